// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Copyright Seed c100dd53 maintainers
 *	<maintainers@users.noreply.a-seed-c100dd53.example>, 2026
 *
 * The CPU Jitter RNG: what its core (jitterentropy.c, built with -O0 and
 * without kernel headers) and its host (the crypto API glue, or a test
 * program) provide to each other.  An includer defines u8, u32 and u64.
 */
#ifndef _CRYPTO_JITTERENTROPY_H
#define _CRYPTO_JITTERENTROPY_H

/* Provided by the host of the core. */
void *jent_zalloc(unsigned int len);
void jent_zfree(void *ptr);
void jent_get_nstime(u64 *out);
int jent_sha3_256(void *hash, const u8 *in, unsigned int inlen, u8 *out);

/* Flags of jent_entropy_collector_alloc(). */
#define JENT_DISABLE_MEMORY_ACCESS	0x4	/* bit 2, as in 2015 */

/* Results of jent_entropy_init(): 0 or one of these. */
#define JENT_ENOTIME		1	/* a time stamp was 0 */
#define JENT_ECOARSETIME	2	/* a delta was 0, or most are multiples of 100 */
#define JENT_ENOMONOTONIC	3	/* the timer went backwards more than 3 times */
#define JENT_EMINVARIATION	4	/* fewer than 1 delta in 10 differs from the last */
#define JENT_EVARVAR		5	/* every delta is the same */
#define JENT_EMINVARVAR		6	/* the deltas vary by 1 in all */
#define JENT_ESTUCK		8	/* more than 9 samples in 10 are stuck */
#define JENT_EHEALTH		9	/* the RCT or the APT failed */
#define JENT_ENOMEM		10	/* no memory for the test's collector */

/* Results of jent_read_entropy(): 0 or one of these. */
#define JENT_READ_EINVAL	(-1)	/* no collector, or the hash failed */
#define JENT_READ_EINTERMITTENT	(-2)	/* a health test failed; try again */
#define JENT_READ_EPERMANENT	(-3)	/* a health test failed for good */

#define JENT_BLOCK_BYTES	32	/* the output of one conditioning */

/* What the start-up test saw in its counted samples. */
struct jent_startup_stats {
	unsigned int samples;	/* counted samples */
	unsigned int stuck;	/* of them stuck */
	unsigned int varied;	/* with a delta unlike the one before */
	unsigned int mod100;	/* with a delta that is a multiple of 100 */
	unsigned int backwards;	/* with a time stamp not above the last */
	unsigned int rct_max;	/* longest run of one delta */
	unsigned int apt_max;	/* largest APT count in a window */
	u64 delta_min;		/* smallest delta */
	u64 delta_max;		/* largest delta */
	u64 delta_sum;		/* sum of |delta - previous delta| */
};

/* Test hooks (CONFIG_CRYPTO_JITTERENTROPY_TESTHOOKS): the next read fails. */
#define JENT_TESTHOOK_NONE		0
#define JENT_TESTHOOK_INTERMITTENT	1
#define JENT_TESTHOOK_PERMANENT		2

#ifdef CONFIG_CRYPTO_JITTERENTROPY_TESTHOOKS
void jent_testhook_fail_next_read(int kind);
unsigned int jent_testhook_alloc_size(unsigned int len);
void jent_testhook_periodic_clock(const u64 *deltas, unsigned int period);
int jent_testhook_startup_test(struct jent_startup_stats *stats, char *text,
			       unsigned int size);
u64 jent_testhook_clock(void);
#endif

/*
 * The raw noise test interface (CONFIG_CRYPTO_JITTERENTROPY_TESTINTERFACE,
 * jitterentropy-testing.c): every raw sample, for an SP 800-90B assessment.
 */
#ifdef CONFIG_CRYPTO_JITTERENTROPY_TESTINTERFACE
void jent_testing_store_raw(u64 delta);
int jent_testing_fixed_loops(void);
void jent_testing_init(void);
void jent_testing_exit(void);
#else
#define jent_testing_store_raw(delta) do { } while (0)
#define jent_testing_fixed_loops() 0
static inline void jent_testing_init(void) { }
static inline void jent_testing_exit(void) { }
#endif

struct rand_data;

int jent_entropy_init(struct jent_startup_stats *stats);
struct rand_data *jent_entropy_collector_alloc(unsigned int osr,
					       unsigned int flags, void *hash);
void jent_entropy_collector_free(struct rand_data *ec);
int jent_read_entropy(struct rand_data *ec, unsigned char *data,
		      unsigned int len);

#endif /* _CRYPTO_JITTERENTROPY_H */
