// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host of Linux 6.1's Jitter RNG core for `make entropy`: the unmodified
 * crypto/jitterentropy.c of the pristine tree, compiled with the code
 * options of the kernel's crypto/jitterentropy.o (include/linux/fips.h
 * here stands in for the kernel's), and what 6.1's glue,
 * crypto/jitterentropy-kcapi.c, provides it: time stamps (memory is
 * collect.c's), and SHA3-256 as a hash state, a struct shash_desc with its
 * struct sha3_state behind it, that jent_hash_time() and
 * jent_read_random_block() update and finalise.  The hash is 6.1's own
 * crypto/sha3_generic.c from the same tree, compiled with the code options
 * of the kernel's crypto/sha3_generic.o against the headers of include/;
 * the glue reaches it through crypto_shash_*(), this host calls its
 * crypto_sha3_*() functions.  6.1's raw sample is the time delta its
 * jent_measure_jitter() hands to jent_hash_time() (after its stuck test
 * and health tests saw it); the host records it there while collect.c
 * records.  Compiled with -O2, as the glue is.
 */
#include "collect.h"

#include <crypto/hash.h>
#include <crypto/sha3.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 6.1's crypto/jitterentropy.h, declared here as the glue sees it. */
struct rand_data;
int jent_entropy_init(void *hash_state);
int jent_read_entropy(struct rand_data *ec, unsigned char *data, unsigned int len);
struct rand_data *jent_entropy_collector_alloc(unsigned int osr, unsigned int flags,
					       void *hash_state);
void jent_entropy_collector_free(struct rand_data *entropy_collector);

const char *const source_name = "pristine-user";
int fips_enabled;

/* The transform of "sha3-256-generic", the hash 6.1's glue asks for. */
static struct crypto_shash sha3_256 = {
	.digestsize = SHA3_256_DIGEST_SIZE,
	.descsize = sizeof(struct sha3_state),
};

void jent_get_nstime(__u64 *out)
{
	*out = collect_clock();
}

/*
 * 6.1's jent_hash_time(): hash_loop_cnt hashes, each of the intermediary
 * buffer and the additional data (crypto_shash_init, _update, then
 * _finup(addtl), which for sha3_generic is update and final), in a state of
 * its own on the stack; the last intermediary goes into that state too,
 * which is then wiped (it only keeps the compiler from dropping the loop).
 * The pool's state receives the time delta alone, and only when it was
 * not stuck.
 */
int jent_hash_time(void *hash_state, __u64 time, u8 *addtl,
		   unsigned int addtl_len, __u64 hash_loop_cnt,
		   unsigned int stuck)
{
	struct shash_desc *hash_state_desc = (struct shash_desc *)hash_state;
	SHASH_DESC_ON_STACK(desc, hash_state_desc->tfm);
	u8 intermediary[SHA3_256_DIGEST_SIZE];
	__u64 j;

	desc->tfm = hash_state_desc->tfm;
	if (sizeof(intermediary) != crypto_shash_digestsize(desc->tfm))
		return -22;		/* -EINVAL */
	memset(intermediary, 0, sizeof(intermediary));
	collect_sample(time);
	for (j = 0; j < hash_loop_cnt; j++) {
		crypto_sha3_init(desc);
		crypto_sha3_update(desc, intermediary, sizeof(intermediary));
		crypto_sha3_update(desc, addtl, addtl_len);	/* finup: */
		crypto_sha3_final(desc, intermediary);
	}
	crypto_sha3_update(desc, intermediary, sizeof(intermediary));
	if (!stuck)
		crypto_sha3_update(hash_state_desc, (u8 *)&time, sizeof(time));
	shash_desc_zero(desc);
	explicit_bzero(intermediary, sizeof(intermediary));
	return 0;
}

/* 6.1's jent_read_random_block(): the pool's digest, and the pool begun
 * again with it. */
int jent_read_random_block(void *hash_state, char *dst, unsigned int dst_len)
{
	struct shash_desc *hash_state_desc = (struct shash_desc *)hash_state;
	u8 jent_block[SHA3_256_DIGEST_SIZE];

	crypto_sha3_final(hash_state_desc, jent_block);
	crypto_sha3_init(hash_state_desc);
	crypto_sha3_update(hash_state_desc, jent_block, sizeof(jent_block));
	if (dst_len)
		memcpy(dst, jent_block, dst_len);
	explicit_bzero(jent_block, sizeof(jent_block));
	return 0;
}

/*
 * FIPS 202's SHA3-256 of "abc" and of the empty message (NIST's examples),
 * through the functions the collector will time: a collector whose hash
 * is not SHA3-256 refuses to collect.
 */
static const struct {
	const char *msg, *digest;
} sha3_kat[] = {
	{ "abc", "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532" },
	{ "", "a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a" },
};

static void sha3_selftest(void)
{
	SHASH_DESC_ON_STACK(desc, &sha3_256);
	u8 out[SHA3_256_DIGEST_SIZE];
	char hex[2 * SHA3_256_DIGEST_SIZE + 1];
	size_t i, k;

	desc->tfm = &sha3_256;
	for (i = 0; i < sizeof(sha3_kat) / sizeof(sha3_kat[0]); i++) {
		crypto_sha3_init(desc);
		crypto_sha3_update(desc, (const u8 *)sha3_kat[i].msg,
				   strlen(sha3_kat[i].msg));
		crypto_sha3_final(desc, out);
		for (k = 0; k < sizeof(out); k++)
			snprintf(hex + 2 * k, 3, "%02x", out[k]);
		if (strcmp(hex, sha3_kat[i].digest)) {
			fprintf(stderr, "collect: %s: the hash is not SHA3-256: SHA3-256(\"%s\") "
				"gave %s, FIPS 202 says %s; not collecting\n", source_name,
				sha3_kat[i].msg, hex, sha3_kat[i].digest);
			exit(1);
		}
	}
	shash_desc_zero(desc);
}

/* 6.1's glue keeps one hash state per instance, a struct shash_desc with
 * the algorithm's state behind it (kmalloc'ed); so does this host. */
struct pristine {
	struct shash_desc *hash;
	struct rand_data *ec;
};

static struct shash_desc *hash_alloc(void)
{
	struct shash_desc *d = malloc(sizeof(*d) + crypto_shash_descsize(&sha3_256));

	if (d) {
		d->tfm = &sha3_256;
		crypto_sha3_init(d);
	}
	return d;
}

static void hash_free(struct shash_desc *d)
{
	shash_desc_zero(d);
	free(d);
}

/* 6.1's jent_mod_init(): the start-up test with a hash state on the stack;
 * here after the hash's own known-answer test. */
int source_startup(void)
{
	SHASH_DESC_ON_STACK(desc, &sha3_256);
	int ret;

	sha3_selftest();
	desc->tfm = &sha3_256;
	crypto_sha3_init(desc);
	ret = jent_entropy_init(desc);
	shash_desc_zero(desc);
	return ret;
}

void *source_alloc(void)
{
	struct pristine *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->hash = hash_alloc();
	if (p->hash)
		p->ec = jent_entropy_collector_alloc(1, 0, p->hash);
	if (!p->ec) {
		if (p->hash)
			hash_free(p->hash);
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
	hash_free(p->hash);
	free(p);
}
