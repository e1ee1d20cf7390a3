/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * make stress's seeded calls (stress.c, stress_blk.c): the plan of one
 * call, which a host test (tests/guest/test_stress.py) runs without a
 * kernel.
 */
#ifndef GUEST_STRESS_H
#define GUEST_STRESS_H

#include <stddef.h>
#include <stdint.h>

enum {
	S_RUN_BAD, S_RUN_GOOD, S_TRACE, S_ALG_READ, S_ALG_KEY, S_ALG_CYCLE,
	S_JITTER_READ, S_RAW_NOISE, S_BLOCKING, S_ISO, S_IFACES
};

struct stress_call {
	int iface;
	uint32_t a, b;
};

/* What one write to random_blocking/stress reported. */
struct blk_result {
	unsigned int queued, cancels, cancel_syncs, syncs, callbacks;
	int errors, ready_at_start, ready_at_end;
};

uint64_t stress_next(uint64_t *x);

/* The next call from the generator *x; *hash takes it in (FNV-1a). */
void stress_plan(uint64_t *x, struct stress_call *c, uint64_t *hash);

/* One write of "seed ops" to random_blocking/stress (stress_blk.c): 0 or
 * -errno; *res gets the counts of its result line. */
long blocking_run(uint64_t seed, int ops, struct blk_result *res);

/* The blocking API while the CRNG becomes ready (guest.stress.unready). */
void check_unready(uint64_t seed);

/* Allocation failure at every point (stress_faults.c). */
void check_stress_faults(void);

/* A field of /proc/meminfo in KiB, after dropping the caches; -1 if none. */
long meminfo_kib(const char *key);

/*
 * Unreclaimable slab at one point of the run (stress.c): SUnreclaim after
 * dropping the caches, shrinking every slab cache (which empties KASAN's
 * quarantine and gives empty slabs back) and waiting for RCU's deferred
 * frees, and each cache's slab from /proc/slabinfo, so that growth can be
 * told per cache.
 */
#define SLAB_CACHES	512
#define SLAB_NAME	64

struct slab_mark {
	int taken;
	int shrunk;		/* caches shrunk */
	long sunreclaim_kib;
	int n;
	char name[SLAB_CACHES][SLAB_NAME];
	long kib[SLAB_CACHES];
};

int slab_shrink_all(const char *dir);
void slab_parse(struct slab_mark *m, const char *path);
void slab_top(const struct slab_mark *a, const struct slab_mark *b, char *out, size_t n);

#endif
