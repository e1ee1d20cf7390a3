/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The user-space entropy collectors of `make entropy` (harness/stages/
 * entropy.py): one program per noise source, each made of the source's
 * core compiled exactly as the kernel compiles it (-O0), a host for it
 * (time stamps from the CPU's cycle counter, memory, SHA3-256: -O2, as
 * the kernel's glue; the hash is OpenSSL's for ours, 6.1's own
 * crypto/sha3_generic.c, compiled as the kernel compiles it, for 6.1's),
 * an adapter below, and collect.c, which records the raw samples and
 * writes them out.
 */
#ifndef ENTROPY_COLLECT_H
#define ENTROPY_COLLECT_H

/* The source adapter (ours.c, pristine_host.c). */
extern const char *const source_name;
int source_startup(void);			/* the start-up test: 0 or its code */
void *source_alloc(void);			/* a new collector, or NULL */
int source_read(void *ec, unsigned char *buf, unsigned int len);
void source_free(void *ec);

/* The host's time stamp: the CPU's cycle counter where there is one. */
unsigned long long collect_clock(void);
const char *collect_clock_name(void);

/* Every raw sample of the collector being recorded goes through here. */
void collect_sample(unsigned long long delta);
/* 1 while a collector is recorded with fixed loop counts (our design). */
int collect_fixed_loops(void);

/* Both cores' allocator (the kernel's jent_zalloc() and jent_zfree()). */
void *jent_zalloc(unsigned int len);
void jent_zfree(void *ptr);

#endif
