/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SHA3-256 (FIPS 202), a small Keccak written for this book, for the one
 * build that cannot hash with OpenSSL's libcrypto: the i386 Jitter RNG
 * host test driver (shim.c with SHIM_OWN_SHA3, at the driver's -O0).
 * Debian's gcc-multilib has a 32-bit libc but no 32-bit libcrypto, which
 * would take the i386 foreign architecture.  sha3_256() is the driver's;
 * the init/update/final interface it is made of is checked against
 * hashlib, one-shot and fed in pieces, by tests/judges/test_jitter.py.
 */
#ifndef JITTER_SHA3_H
#define JITTER_SHA3_H

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
