/* SPDX-License-Identifier: GPL-2.0-only */
/* The checks the guest runs, by boot mode; see checks.c. */
#ifndef GUEST_CHECKS_H
#define GUEST_CHECKS_H

#include <stddef.h>

void run_checks(const char *mode);

/* Individual checks. */
void check_proc_crypto(void);
long proc_crypto_refcnt(const char *driver);
void check_drbg_trace(void);
void check_blocking_isolation(void);
void kmemleak_scan(void);
void check_hostile(void);
void check_modules(void);
void check_partial_sockets(void);
void check_stress(void);

/* Boot mode "cavs": CAVS known answers from a pack (cavs.c, cavs.h). */
void check_cavs(const char *pack_path);
void check_jitter(void);
void check_jitter_absent(void);
void check_jitter_hooked_read(void);
void check_jitter_record(void);

/* Boot mode "acvp": the kernel's answers to ACVP test cases (acvp.c, acvp.h). */
void run_acvp(const char *pack_path);

/* Boot mode "bench": timings for make bench, no checks (bench.c). */
void run_bench(void);

/* Boot mode "entropy": the Jitter RNG's raw noise for make entropy (entropy.c). */
void run_entropy(void);

#endif
