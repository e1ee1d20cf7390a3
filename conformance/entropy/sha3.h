/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SHA3-256 (FIPS 202) with an incremental interface, for the host of 6.1's
 * core (pristine_host.c): the init/update/final hash state it keeps
 * between time stamps, hashed inside its timed region as the kernel's
 * crypto/sha3_generic.c is, so plain C with nothing allocated; compiled
 * with -O2, as the kernel compiles sha3_generic.c.  The i386 build of the
 * Jitter RNG's host test driver (conformance/jitter/shim.c, SHIM_OWN_SHA3)
 * hashes with it too, at the driver's -O0: Debian has no 32-bit libcrypto
 * without the i386 architecture.  The rest of the host side hashes with
 * OpenSSL's libcrypto.
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
