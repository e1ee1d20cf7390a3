/* SPDX-License-Identifier: GPL-2.0-only */
/* The checks the guest runs, by boot mode; see checks.c. */
#ifndef GUEST_CHECKS_H
#define GUEST_CHECKS_H

#include <stddef.h>

/* The 22 DRBG driver names of Linux 6.1 (drbg_cores[] x {pr, nopr}). */
extern const char *const drbg_drivers[22];

void run_checks(const char *mode);

/* Helpers shared by the checks, defined in init.c. */
int read_file(const char *path, char *buf, size_t n);
const char *cmdline_value(const char *key, char *out, size_t n);
int crng_ready_now(void);

/* Individual checks. */
void check_proc_crypto(void);
void check_drbg_trace(void);
void check_blocking_isolation(void);
void kmemleak_scan(void);
void check_hostile(void);
void check_modules(void);

/* Boot mode "cavs": CAVS known answers from a pack (cavs.c, cavs.h). */
void check_cavs(const char *pack_path);
void check_jitter(void);
void check_jitter_absent(void);
void check_jitter_hooked_read(void);
void check_jitter_record(void);
void hypervisor_signature(char sig[13]);

/* Boot mode "bench": timings for make bench, no checks (bench.c). */
void run_bench(void);

#endif
