/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * <crypto/hash.h> for 6.1's Jitter RNG glue in user space
 * (conformance/entropy/pristine_host.c): the parts of the synchronous hash
 * API the glue uses.  A transform is reduced to the sizes the glue and
 * crypto/sha3_generic.c ask of it; the host calls the algorithm's
 * functions itself (there is no algorithm registry).
 */
#ifndef ENTROPY_CRYPTO_HASH_H
#define ENTROPY_CRYPTO_HASH_H

#include <linux/types.h>
#include <string.h>

/* What a transform of an algorithm tells its users. */
struct crypto_shash {
	unsigned int digestsize;
	unsigned int descsize;		/* the algorithm's state behind a desc */
};

/* A hash state: the transform, then the algorithm's state (its context). */
struct shash_desc {
	struct crypto_shash *tfm;
	void *__ctx[] __attribute__((__aligned__(8)));	/* ARCH_SLAB_MINALIGN */
};

/* As 6.1: room for the largest state of any algorithm (360 bytes). */
#define HASH_MAX_DESCSIZE (sizeof(struct shash_desc) + 360)

/* A struct shash_desc with room for its state, on the stack, as 6.1's. */
#define SHASH_DESC_ON_STACK(shash, ctx)					\
	char __##shash##_desc[sizeof(struct shash_desc) + HASH_MAX_DESCSIZE] \
		__attribute__((__aligned__(__alignof__(struct shash_desc)))); \
	struct shash_desc *shash = (struct shash_desc *)__##shash##_desc

static inline unsigned int crypto_shash_digestsize(struct crypto_shash *tfm)
{
	return tfm->digestsize;
}

static inline unsigned int crypto_shash_descsize(struct crypto_shash *tfm)
{
	return tfm->descsize;
}

/* The desc and its state wiped, in a way the compiler keeps. */
static inline void shash_desc_zero(struct shash_desc *desc)
{
	explicit_bzero(desc, sizeof(*desc) + crypto_shash_descsize(desc->tfm));
}

#endif
