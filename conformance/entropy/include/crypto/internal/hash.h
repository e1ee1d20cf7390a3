/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * <crypto/internal/hash.h> for 6.1's crypto/sha3_generic.c in user space:
 * a desc's state, and the algorithm description the file fills in, with
 * the fields it sets.  Registering does nothing: the host calls
 * crypto_sha3_init(), crypto_sha3_update() and crypto_sha3_final()
 * itself.
 */
#ifndef ENTROPY_CRYPTO_INTERNAL_HASH_H
#define ENTROPY_CRYPTO_INTERNAL_HASH_H

#include <crypto/hash.h>
#include <linux/bitops.h>
#include <linux/types.h>
#include <string.h>

struct module;

struct crypto_alg {
	const char *cra_name;
	const char *cra_driver_name;
	unsigned int cra_blocksize;
	struct module *cra_module;
};

struct shash_alg {
	int (*init)(struct shash_desc *desc);
	int (*update)(struct shash_desc *desc, const u8 *data, unsigned int len);
	int (*final)(struct shash_desc *desc, u8 *out);
	unsigned int descsize;
	unsigned int digestsize;
	struct crypto_alg base;
};

static inline void *shash_desc_ctx(struct shash_desc *desc)
{
	return desc->__ctx;
}

static inline int crypto_register_shashes(struct shash_alg *algs, int count)
{
	(void)algs;
	(void)count;
	return 0;
}

static inline void crypto_unregister_shashes(struct shash_alg *algs, int count)
{
	(void)algs;
	(void)count;
}

#endif
