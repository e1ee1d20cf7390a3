/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The user-space host of the Jitter RNG core, for its tests: a scripted
 * timer, an allocator that can be told to fail, SHA3-256, and a trace of
 * every measurement.  The test driver includes this, then the tangled core.
 */
#ifndef JENT_SHIM_H
#define JENT_SHIM_H

#include <stddef.h>

/* The timer: a start value and a list of segments, or the real clock. */
void shim_timer_reset(unsigned long long t0);
void shim_timer_inc(unsigned long long d);
void shim_timer_set(unsigned long long v);
void shim_timer_rand(unsigned long long seed, unsigned long long base,
		     unsigned long long spread, unsigned long long count);
void shim_timer_const(unsigned long long count);
void shim_timer_real(void);
const char *shim_timer_tsc(void);
unsigned long long shim_timer_reads(void);

/* Keep every time stamp handed to the core from now on (on: 1), or stop. */
void shim_record(int on);
size_t shim_recorded(const unsigned long long **stamps);

/* The n-th allocation from now fails (0: none does). */
void shim_alloc_fail_at(unsigned int n);
unsigned int shim_alloc_live(void);

/* SHA3-256 (see shim.c), and a handle that makes it fail. */
void shim_sha3_256(const unsigned char *in, size_t len, unsigned char out[32]);
extern int shim_hash_fails;

void shim_trace(const void *ec, unsigned long long time,
		unsigned long long delta, unsigned int mem_loops,
		unsigned int fold_loops);

#define jent_trace_measurement(ec, time, delta, mem_loops, fold_loops) \
	shim_trace(ec, time, delta, mem_loops, fold_loops)

#endif
