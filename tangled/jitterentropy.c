/*
 * Non-physical true random number generator based on timing jitter --
 * Jitter RNG standalone code.
 *
 * Copyright Stephan Mueller <smueller@chronox.de>, 2015 - 2023
 * Copyright Seed c100dd53 maintainers
 *	<maintainers@users.noreply.a-seed-c100dd53.example>, 2026
 *
 * Design
 * ======
 *
 * See https://www.chronox.de/jent.html
 *
 * License
 * =======
 *
 * Redistribution and use in source and binary forms, with or without
 * modification, are permitted provided that the following conditions
 * are met:
 * 1. Redistributions of source code must retain the above copyright
 *    notice, and the entire permission notice in its entirety,
 *    including the disclaimer of warranties.
 * 2. Redistributions in binary form must reproduce the above copyright
 *    notice, this list of conditions and the following disclaimer in the
 *    documentation and/or other materials provided with the distribution.
 * 3. The name of the author may not be used to endorse or promote
 *    products derived from this software without specific prior
 *    written permission.
 *
 * ALTERNATIVELY, this product may be distributed under the terms of
 * the GNU General Public License, in which case the provisions of the GPL2 are
 * required INSTEAD OF the above restrictions.  (This clause is
 * necessary due to a potential bad interaction between the GPL and
 * the restrictions contained in a BSD-style copyright.)
 *
 * THIS SOFTWARE IS PROVIDED ``AS IS'' AND ANY EXPRESS OR IMPLIED
 * WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE IMPLIED WARRANTIES
 * OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE, ALL OF
 * WHICH ARE HEREBY DISCLAIMED.  IN NO EVENT SHALL THE AUTHOR BE
 * LIABLE FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR
 * CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT
 * OF SUBSTITUTE GOODS OR SERVICES; LOSS OF USE, DATA, OR PROFITS; OR
 * BUSINESS INTERRUPTION) HOWEVER CAUSED AND ON ANY THEORY OF
 * LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY, OR TORT
 * (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE
 * USE OF THIS SOFTWARE, EVEN IF NOT ADVISED OF THE POSSIBILITY OF SUCH
 * DAMAGE.
 */

/*
 * CPU Jitter RNG: the noise source, its conditioning and its health
 * tests.
 *
 * The design is Stephan Mueller's CPU Jitter random number generator as
 * submitted for Linux in 2015 (library version 1.1.0), with the defects
 * since found in it fixed, and, as in later versions, its raw time deltas
 * conditioned by SHA3-256 (without the 2015 bit extraction) and the
 * health tests of NIST SP 800-90B section 4.4.  The file is generated from a literate
 * book, where each part of it is argued.  The project's changes are
 * distributed under the licence above, as the file is.
 *
 * It must be compiled without optimisation: the execution time of its
 * loops is what it measures.  It includes no kernel header, so that the
 * same file can be compiled in user space for its tests; what it needs
 * from its host is declared in jitterentropy.h.
 */

#ifdef __OPTIMIZE__
#error "jitterentropy.c measures its own execution time: compile it with -O0"
#endif

typedef unsigned long long u64;
typedef unsigned int u32;
typedef unsigned char u8;

#ifndef NULL
#define NULL ((void *)0)
#endif

#include "jitterentropy.h"

/*
 * A test program may define this to see every measurement; the kernel
 * build leaves it empty.
 */
#ifndef jent_trace_measurement
#define jent_trace_measurement(ec, time, delta, mem_loops, fold_loops) \
	do { } while (0)
#endif

#define JENT_MEMORY_BLOCKS	64
#define JENT_MEMORY_BLOCKSIZE	32
#define JENT_MEMORY_SIZE	(JENT_MEMORY_BLOCKS * JENT_MEMORY_BLOCKSIZE)
#define JENT_MEMORY_ACCESSLOOPS	128
#define JENT_MAX_ACC_LOOP_BIT	7
#define JENT_MIN_ACC_LOOP_BIT	0
#define JENT_MAX_FOLD_LOOP_BIT	4
#define JENT_MIN_FOLD_LOOP_BIT	0
#define JENT_WORD_BITS		64
#define JENT_STUCK_CUTOFF		156
#define JENT_STUCK_CUTOFF_PERMANENT	312
#define JENT_BLOCK_SAMPLES	320	/* counted samples per block: (256 + 64) / H */
#define JENT_FIRST_PRIMING	64	/* samples before the first counted one */
#define JENT_RCT_CUTOFF			31
#define JENT_RCT_CUTOFF_PERMANENT	61
#define JENT_APT_WINDOW			512
#define JENT_APT_CUTOFF			325
#define JENT_APT_CUTOFF_PERMANENT	355
#define JENT_MAX_OSR		16
#define JENT_STARTUP_WARMUP	100
#define JENT_STARTUP_SAMPLES	1024
#define JENT_LAG_HISTORY		8
#define JENT_LAG_WINDOW			131072
#define JENT_LAG_RUN_CUTOFF		47
#define JENT_LAG_RUN_CUTOFF_PERMANENT	77
#define JENT_LAG_COUNT_CUTOFF		66621
#define JENT_LAG_COUNT_CUTOFF_PERMANENT	67121

#define JENT_HEALTH_OK			0
#define JENT_HEALTH_INTERMITTENT	1
#define JENT_HEALTH_PERMANENT		2
#define JENT_HASH_FAILURE		3

struct jent_health {
	u64 rct_last;			/* the delta the run is made of */
	unsigned int rct_run;		/* length of the current run */
	u64 apt_base;			/* first delta of the APT window */
	unsigned int apt_count;		/* deltas equal to apt_base */
	unsigned int apt_seen;		/* deltas seen in the window */
	unsigned int stuck_run;		/* stuck samples in a row */
	u64 lag_history[JENT_LAG_HISTORY];	/* the last deltas, a ring */
	unsigned int lag_score[JENT_LAG_HISTORY]; /* right guesses per lag */
	unsigned int lag_best;		/* the best lag, minus one */
	unsigned int lag_run;		/* right guesses in a row */
	unsigned int lag_count;		/* right guesses in the window */
	unsigned int lag_seen;		/* deltas seen in the window */
};

struct rand_data {
	unsigned int osr;		/* oversampling rate */
	unsigned char *mem;		/* memory noise buffer, or NULL */
	unsigned int memlocation;	/* next byte of mem to touch */
	u64 prev_time;			/* time stamp of the last measurement */
	u64 last_delta;			/* stuck test: the last delta */
	u64 last_delta2;		/* stuck test: the last 2nd difference */
	int failed;			/* a permanent health failure was seen */
	u8 block[JENT_BLOCK_BYTES];	/* the last output block (secret) */
	u8 in[JENT_BLOCK_BYTES + JENT_BLOCK_SAMPLES * 8]; /* hash input (secret) */
	void *hash;			/* the host's SHA3-256 handle */
	unsigned int priming;		/* priming samples still to come */
	unsigned int spanned;		/* samples whose stuck test spans a gap */
	struct jent_health health;
};

static void jent_memzero(void *ptr, unsigned int len)
{
	u8 *p = ptr;
	unsigned int i;

	for (i = 0; i < len; i++)
		p[i] = 0;
}

static unsigned int jent_loop_shuffle(unsigned int bits, unsigned int min)
{
	u64 time = 0;
	u64 mask = (1ULL << bits) - 1;
	unsigned int shuffle = 0;
	unsigned int i;

	if (jent_testing_fixed_loops())
		return 1U << min;
	jent_get_nstime(&time);
	for (i = 0; i < (JENT_WORD_BITS + bits - 1) / bits; i++) {
		shuffle ^= (unsigned int)(time & mask);
		time >>= bits;
	}
	return shuffle + (1U << min);
}

static void jent_memaccess(struct rand_data *ec, unsigned int loops)
{
	unsigned int i;

	if (!ec->mem)
		return;
	for (i = 0; i < JENT_MEMORY_ACCESSLOOPS + loops; i++) {
		ec->mem[ec->memlocation] = ec->mem[ec->memlocation] + 1;
		ec->memlocation = (ec->memlocation + JENT_MEMORY_BLOCKSIZE - 1) %
				  JENT_MEMORY_SIZE;
	}
}

static u64 jent_fold_time(u64 time, unsigned int loops)
{
	u64 folded = 0;
	unsigned int i, j;

	for (j = 0; j < loops; j++) {
		folded = 0;
		for (i = 1; i <= JENT_WORD_BITS; i++)
			folded ^= (time << (JENT_WORD_BITS - i)) >> (JENT_WORD_BITS - 1);
	}
	return folded;
}

static u64 jent_measure_jitter(struct rand_data *ec)
{
	unsigned int mem_loops, fold_loops;
	u64 time = 0;
	u64 delta;

	mem_loops = jent_loop_shuffle(JENT_MAX_ACC_LOOP_BIT, JENT_MIN_ACC_LOOP_BIT);
	jent_memaccess(ec, mem_loops);
	jent_get_nstime(&time);
	delta = time - ec->prev_time;
	ec->prev_time = time;
	fold_loops = jent_loop_shuffle(JENT_MAX_FOLD_LOOP_BIT, JENT_MIN_FOLD_LOOP_BIT);
	jent_fold_time(delta, fold_loops);
	jent_trace_measurement(ec, time, delta, mem_loops, fold_loops);
	return delta;
}

static int jent_stuck(struct rand_data *ec, u64 delta)
{
	u64 delta2 = ec->last_delta - delta;
	u64 delta3 = delta2 - ec->last_delta2;

	ec->last_delta = delta;
	ec->last_delta2 = delta2;
	return !delta || !delta2 || !delta3;
}

static int jent_health_level(unsigned int count, unsigned int cutoff,
			     unsigned int cutoff_permanent)
{
	if (count >= cutoff_permanent)
		return JENT_HEALTH_PERMANENT;
	if (count >= cutoff)
		return JENT_HEALTH_INTERMITTENT;
	return JENT_HEALTH_OK;
}

static int jent_rct_insert(struct jent_health *h, u64 delta)
{
	if (h->rct_run && delta == h->rct_last) {
		h->rct_run++;
	} else {
		h->rct_last = delta;
		h->rct_run = 1;
	}
	return jent_health_level(h->rct_run, JENT_RCT_CUTOFF,
				 JENT_RCT_CUTOFF_PERMANENT);
}

static int jent_apt_insert(struct jent_health *h, u64 delta)
{
	int level;

	if (!h->apt_seen) {
		h->apt_base = delta;
		h->apt_count = 1;
	} else if (delta == h->apt_base) {
		h->apt_count++;
	}
	h->apt_seen++;
	level = jent_health_level(h->apt_count, JENT_APT_CUTOFF,
				  JENT_APT_CUTOFF_PERMANENT);
	if (h->apt_seen == JENT_APT_WINDOW)
		h->apt_seen = 0;
	return level;
}

static u64 jent_lag_past(const struct jent_health *h, unsigned int lag)
{
	return h->lag_history[(h->lag_seen - lag) % JENT_LAG_HISTORY];
}

static void jent_lag_score(struct jent_health *h, u64 delta)
{
	unsigned int i;

	for (i = 0; i < JENT_LAG_HISTORY; i++) {
		if (jent_lag_past(h, i + 1) != delta)
			continue;
		h->lag_score[i]++;
		if (h->lag_score[i] > h->lag_score[h->lag_best])
			h->lag_best = i;
	}
}

static void jent_lag_reset(struct jent_health *h)
{
	unsigned int i;

	for (i = 0; i < JENT_LAG_HISTORY; i++)
		h->lag_score[i] = 0;
	h->lag_best = 0;
	h->lag_run = 0;
	h->lag_count = 0;
	h->lag_seen = 0;
}

static int jent_lag_insert(struct jent_health *h, u64 delta)
{
	int run, count, level = JENT_HEALTH_OK;

	if (h->lag_seen >= JENT_LAG_HISTORY) {
		if (jent_lag_past(h, h->lag_best + 1) == delta) {
			h->lag_run++;
			h->lag_count++;
		} else {
			h->lag_run = 0;
		}
		run = jent_health_level(h->lag_run, JENT_LAG_RUN_CUTOFF,
					JENT_LAG_RUN_CUTOFF_PERMANENT);
		count = jent_health_level(h->lag_count, JENT_LAG_COUNT_CUTOFF,
					  JENT_LAG_COUNT_CUTOFF_PERMANENT);
		level = run > count ? run : count;
		jent_lag_score(h, delta);
	}
	h->lag_history[h->lag_seen % JENT_LAG_HISTORY] = delta;
	if (++h->lag_seen == JENT_LAG_WINDOW)
		jent_lag_reset(h);
	return level;
}

static int jent_health_insert(struct jent_health *h, u64 delta)
{
	int level = jent_rct_insert(h, delta);
	int apt = jent_apt_insert(h, delta);
	int lag = jent_lag_insert(h, delta);

	if (apt > level)
		level = apt;
	return lag > level ? lag : level;
}

static int jent_sample(struct rand_data *ec, u64 *delta, int *stuck)
{
	*delta = jent_measure_jitter(ec);
	jent_testing_store_raw(*delta);
	*stuck = jent_stuck(ec, *delta);
	return jent_health_insert(&ec->health, *delta);
}

static int jent_counted_sample(struct rand_data *ec, u64 *delta)
{
	int stuck, level, counted;

	do {
		level = jent_sample(ec, delta, &stuck);
		if (level)
			return level;
		if (stuck) {
			ec->health.stuck_run++;
			level = jent_health_level(ec->health.stuck_run,
						  JENT_STUCK_CUTOFF,
						  JENT_STUCK_CUTOFF_PERMANENT);
		} else if (!ec->spanned) {
			ec->health.stuck_run = 0;
		}
		if (ec->spanned)
			ec->spanned--;
		counted = !stuck && !ec->priming;
		if (ec->priming)
			ec->priming--;
	} while (!level && !counted);
	return level;
}

static int jent_gen_block(struct rand_data *ec)
{
	unsigned int i, r, n;
	u64 delta = 0;
	int ret = JENT_HEALTH_OK;

	jent_measure_jitter(ec);
	ec->spanned = 2;
	for (r = 0; r < ec->osr; r++) {
		for (i = 0; i < JENT_BLOCK_BYTES; i++)
			ec->in[i] = ec->block[i];
		for (n = 0; n < JENT_BLOCK_SAMPLES; n++) {
			ret = jent_counted_sample(ec, &delta);
			if (ret)
				goto out;
			for (i = 0; i < 8; i++)
				ec->in[JENT_BLOCK_BYTES + 8 * n + i] =
					(u8)(delta >> (8 * i));
		}
		if (jent_sha3_256(ec->hash, ec->in, sizeof(ec->in), ec->block)) {
			ret = JENT_HASH_FAILURE;
			goto out;
		}
	}
out:
	jent_memzero(ec->in, sizeof(ec->in));
	delta = 0;
	return ret;
}

static void jent_reset(struct rand_data *ec)
{
	jent_memzero(ec->block, sizeof(ec->block));
}

int jent_read_entropy(struct rand_data *ec, unsigned char *data,
		      unsigned int len)
{
	unsigned int done = 0, n, i;
	int ret = JENT_HEALTH_OK;

	if (!ec || (!data && len)) {
		if (data)
			jent_memzero(data, len);
		return JENT_READ_EINVAL;
	}
	if (ec->failed) {
		jent_memzero(data, len);
		return JENT_READ_EPERMANENT;
	}
	while (done < len) {
		ret = jent_gen_block(ec);
		if (ret)
			break;
		n = len - done < JENT_BLOCK_BYTES ? len - done : JENT_BLOCK_BYTES;
		for (i = 0; i < n; i++)
			data[done + i] = ec->block[i];
		done += n;
	}
	if (ret == JENT_HEALTH_OK)
		return 0;
	jent_memzero(data, len);
	jent_reset(ec);
	if (ret == JENT_HEALTH_INTERMITTENT)
		return JENT_READ_EINTERMITTENT;
	if (ret == JENT_HEALTH_PERMANENT) {
		ec->failed = 1;
		return JENT_READ_EPERMANENT;
	}
	return JENT_READ_EINVAL;
}

struct rand_data *jent_entropy_collector_alloc(unsigned int osr,
					       unsigned int flags, void *hash)
{
	struct rand_data *ec;

	if (flags & ~JENT_DISABLE_MEMORY_ACCESS || osr > JENT_MAX_OSR)
		return NULL;
	ec = jent_zalloc(sizeof(*ec));
	if (!ec)
		return NULL;
	if (!(flags & JENT_DISABLE_MEMORY_ACCESS)) {
		ec->mem = jent_zalloc(JENT_MEMORY_SIZE);
		if (!ec->mem) {
			jent_zfree(ec);
			return NULL;
		}
	}
	ec->osr = osr ? osr : 1;
	ec->hash = hash;
	ec->priming = JENT_FIRST_PRIMING;
	return ec;
}

void jent_entropy_collector_free(struct rand_data *ec)
{
	if (!ec)
		return;
	jent_zfree(ec->mem);
	jent_zfree(ec);
}

static u64 jent_sat_add(u64 sum, u64 x)
{
	return sum + x < sum ? ~0ULL : sum + x;
}

int jent_entropy_init(struct jent_startup_stats *stats)
{
	struct jent_startup_stats s = { 0 };
	struct rand_data *ec;
	u64 delta, prev, old_delta = 0;
	unsigned int i, counted;
	int zero_time = 0, zero_delta = 0, health_failed = 0;
	int stuck, level;

	ec = jent_entropy_collector_alloc(1, 0, NULL);
	if (!ec)
		return JENT_ENOMEM;
	jent_measure_jitter(ec);
	if (!ec->prev_time)
		zero_time = 1;
	s.delta_min = ~0ULL;
	for (i = 0; i < JENT_STARTUP_WARMUP + JENT_STARTUP_SAMPLES; i++) {
		prev = ec->prev_time;
		delta = jent_measure_jitter(ec);
		stuck = jent_stuck(ec, delta);
		if (!ec->prev_time)
			zero_time = 1;
		if (!delta)
			zero_delta = 1;
		if (i < JENT_STARTUP_WARMUP)
			continue;
		counted = i - JENT_STARTUP_WARMUP;
		level = jent_health_insert(&ec->health, delta);
		if (level)
			health_failed = 1;
		s.samples++;
		s.stuck += stuck;
		if (!(ec->prev_time > prev))
			s.backwards++;
		if (!((u32)delta % 100))
			s.mod100++;
		if (counted) {
			if (delta != old_delta)
				s.varied++;
			s.delta_sum = jent_sat_add(s.delta_sum, delta > old_delta ?
						   delta - old_delta :
						   old_delta - delta);
		}
		old_delta = delta;
		if (delta < s.delta_min)
			s.delta_min = delta;
		if (delta > s.delta_max)
			s.delta_max = delta;
		if (ec->health.rct_run > s.rct_max)
			s.rct_max = ec->health.rct_run;
		if (ec->health.apt_count > s.apt_max)
			s.apt_max = ec->health.apt_count;
	}
	jent_entropy_collector_free(ec);
	if (stats)
		*stats = s;

	if (zero_time)
		return JENT_ENOTIME;
	if (zero_delta || s.mod100 > JENT_STARTUP_SAMPLES / 10 * 9)
		return JENT_ECOARSETIME;
	if (s.backwards > 3)
		return JENT_ENOMONOTONIC;
	if (!s.delta_sum)
		return JENT_EVARVAR;
	if (s.delta_sum <= 1)
		return JENT_EMINVARVAR;
	if (s.varied < JENT_STARTUP_SAMPLES / 10)
		return JENT_EMINVARIATION;
	if (s.stuck > JENT_STARTUP_SAMPLES / 10 * 9)
		return JENT_ESTUCK;
	if (health_failed)
		return JENT_EHEALTH;
	return 0;
}
