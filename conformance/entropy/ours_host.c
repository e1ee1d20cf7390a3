// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host of our Jitter RNG core (tangled/jitterentropy.c, compiled on its
 * own with -O0 and CONFIG_CRYPTO_JITTERENTROPY_TESTINTERFACE, as a test
 * kernel compiles it) for `make entropy`: what the kernel glue provides
 * (time stamps, SHA3-256; memory is collect.c's), the raw-sample hook of
 * the test interface, and the adapter of collect.h.  Compiled with -O2, as
 * the glue.  The core hashes a block after its measurements, and the
 * delta that spans the hash is the next block's priming measurement,
 * never a sample; so no recorded delta times it, and SHA3-256 here is
 * OpenSSL's (libcrypto).
 */
#include "collect.h"

#include <openssl/evp.h>

typedef unsigned long long u64;
typedef unsigned int u32;
typedef unsigned char u8;
#include "jitterentropy.h"

const char *const source_name = "ours-user";

void jent_get_nstime(u64 *out)
{
	*out = collect_clock();
}

int jent_sha3_256(void *hash, const u8 *in, unsigned int inlen, u8 *out)
{
	(void)hash;
	return EVP_Digest(in, inlen, out, NULL, EVP_sha3_256(), NULL) ? 0 : -1;
}

/* The test interface's hook: the core hands it every raw sample. */
void jent_testing_store_raw(u64 delta)
{
	collect_sample(delta);
}

/* The test interface's loop_shuffle, off while collect records "fixed". */
int jent_testing_fixed_loops(void)
{
	return collect_fixed_loops();
}

int source_startup(void)
{
	return jent_entropy_init(NULL);
}

void *source_alloc(void)
{
	return jent_entropy_collector_alloc(1, 0, NULL);
}

int source_read(void *ec, unsigned char *buf, unsigned int len)
{
	return jent_read_entropy(ec, buf, len);
}

void source_free(void *ec)
{
	jent_entropy_collector_free(ec);
}
