/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SHA3-256 (FIPS 202) with an incremental interface, for the user-space
 * hosts of the entropy collectors (conformance/entropy/): the one-shot hash
 * our core asks for, and the init/update/final hash state 6.1's core keeps
 * between time stamps.  Compiled with -O2, as the kernel compiles
 * crypto/sha3_generic.c.  The Jitter RNG's host test driver
 * (conformance/jitter/shim.c) hashes with it too, at the driver's -O0.
 */
#ifndef ENTROPY_SHA3_H
#define ENTROPY_SHA3_H

#include <stddef.h>
#include <stdint.h>

#define SHA3_256_RATE	136
#define SHA3_256_DIGEST	32

struct sha3_state {
	uint64_t a[25];
	unsigned char buf[SHA3_256_RATE];
	size_t n;		/* bytes in buf */
};

void sha3_init(struct sha3_state *s);
void sha3_update(struct sha3_state *s, const void *in, size_t len);
void sha3_final(struct sha3_state *s, unsigned char out[SHA3_256_DIGEST]);
void sha3_256(const void *in, size_t len, unsigned char out[SHA3_256_DIGEST]);

#endif
