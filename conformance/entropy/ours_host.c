// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host of our Jitter RNG core (tangled/jitterentropy.c, compiled on its
 * own with -O0 and CONFIG_CRYPTO_JITTERENTROPY_TESTINTERFACE, as a test
 * kernel compiles it) for `make entropy`: what the kernel glue provides
 * (memory, time stamps, SHA3-256), the raw-sample hook of the test
 * interface, and the adapter of collect.h.  Compiled with -O2, as the glue.
 */
#include "collect.h"
#include "sha3.h"

#include <stdlib.h>
#include <string.h>

typedef unsigned long long u64;
typedef unsigned int u32;
typedef unsigned char u8;
#include "jitterentropy.h"

const char *const source_name = "ours-user";

void *jent_zalloc(unsigned int len)
{
	size_t *p = calloc(1, sizeof(size_t) * 2 + len);

	if (!p)
		return NULL;
	p[0] = len;
	return p + 2;
}

void jent_zfree(void *ptr)
{
	size_t *p;

	if (!ptr)
		return;
	p = (size_t *)ptr - 2;
	memset(ptr, 0, p[0]);
	free(p);
}

void jent_get_nstime(u64 *out)
{
	*out = collect_clock();
}

int jent_sha3_256(void *hash, const u8 *in, unsigned int inlen, u8 *out)
{
	(void)hash;
	sha3_256(in, inlen, out);
	return 0;
}

/* The test interface's hook: the core hands it every raw sample. */
void jent_testing_store_raw(u64 delta)
{
	collect_sample(delta);
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
