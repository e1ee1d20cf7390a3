// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host of Linux 6.1's Jitter RNG core for `make entropy`: the unmodified
 * crypto/jitterentropy.c of the pristine tree, compiled on its own with
 * -O0 (include/linux/fips.h here stands in for the kernel's), and what
 * 6.1's glue, crypto/jitterentropy-kcapi.c, provides it: time stamps
 * (memory is collect.c's), and SHA3-256 as a hash state that
 * jent_hash_time() and jent_read_random_block() update and finalise.  6.1's raw sample is the
 * time delta its jent_measure_jitter() hands to jent_hash_time() (after
 * its stuck test and health tests saw it); the host records it there
 * while collect.c records.  Compiled with -O2, as the glue and
 * sha3_generic.c are.
 */
#include "collect.h"
#include "sha3.h"

#include <stdlib.h>
#include <string.h>

typedef unsigned long long __u64;
typedef unsigned char u8;

/* 6.1's crypto/jitterentropy.h, declared here as the glue sees it. */
struct rand_data;
int jent_entropy_init(void *hash_state);
int jent_read_entropy(struct rand_data *ec, unsigned char *data, unsigned int len);
struct rand_data *jent_entropy_collector_alloc(unsigned int osr, unsigned int flags,
					       void *hash_state);
void jent_entropy_collector_free(struct rand_data *entropy_collector);

const char *const source_name = "pristine-user";
int fips_enabled;

void jent_get_nstime(__u64 *out)
{
	*out = collect_clock();
}

/* 6.1's jent_hash_time(): hash_loop_cnt hashes of an intermediary buffer
 * and the additional data, then the time delta into the pool's state
 * unless it was stuck. */
int jent_hash_time(void *hash_state, __u64 time, u8 *addtl,
		   unsigned int addtl_len, __u64 hash_loop_cnt,
		   unsigned int stuck)
{
	struct sha3_state desc;
	u8 intermediary[SHA3_256_DIGEST];
	__u64 j;

	memset(intermediary, 0, sizeof(intermediary));
	collect_sample(time);
	for (j = 0; j < hash_loop_cnt; j++) {
		sha3_init(&desc);
		sha3_update(&desc, intermediary, sizeof(intermediary));
		sha3_update(&desc, addtl, addtl_len);
		sha3_final(&desc, intermediary);
	}
	sha3_update(hash_state, intermediary, sizeof(intermediary));
	if (!stuck)
		sha3_update(hash_state, &time, sizeof(time));
	memset(intermediary, 0, sizeof(intermediary));
	return 0;
}

int jent_read_random_block(void *hash_state, char *dst, unsigned int dst_len)
{
	u8 block[SHA3_256_DIGEST];

	sha3_final(hash_state, block);
	sha3_init(hash_state);
	sha3_update(hash_state, block, sizeof(block));
	if (dst_len)
		memcpy(dst, block, dst_len);
	memset(block, 0, sizeof(block));
	return 0;
}

/* 6.1's glue keeps one hash state per instance; so does this host. */
struct pristine {
	struct sha3_state hash;
	struct rand_data *ec;
};

static struct sha3_state startup_hash;

int source_startup(void)
{
	sha3_init(&startup_hash);
	return jent_entropy_init(&startup_hash);
}

void *source_alloc(void)
{
	struct pristine *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	sha3_init(&p->hash);
	p->ec = jent_entropy_collector_alloc(1, 0, &p->hash);
	if (!p->ec) {
		free(p);
		return NULL;
	}
	return p;
}

int source_read(void *ec, unsigned char *buf, unsigned int len)
{
	return jent_read_entropy(((struct pristine *)ec)->ec, buf, len);
}

void source_free(void *ec)
{
	struct pristine *p = ec;

	jent_entropy_collector_free(p->ec);
	free(p);
}
