// SPDX-License-Identifier: GPL-2.0-only
/* SHA3-256, Keccak-f[1600]; see sha3.h.  Checked against hashlib by
 * tests/judges/test_jitter.py. */
#include "sha3.h"

#include <string.h>

static const uint64_t rc[24] = {
	0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808aULL,
	0x8000000080008000ULL, 0x000000000000808bULL, 0x0000000080000001ULL,
	0x8000000080008081ULL, 0x8000000000008009ULL, 0x000000000000008aULL,
	0x0000000000000088ULL, 0x0000000080008009ULL, 0x000000008000000aULL,
	0x000000008000808bULL, 0x800000000000008bULL, 0x8000000000008089ULL,
	0x8000000000008003ULL, 0x8000000000008002ULL, 0x8000000000000080ULL,
	0x000000000000800aULL, 0x800000008000000aULL, 0x8000000080008081ULL,
	0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL,
};

static uint64_t rol(uint64_t x, int n)
{
	return (x << n) | (x >> (64 - n));
}

/* 24 rounds of theta, rho and pi, chi and iota, the lanes unrolled. */
static void keccakf(uint64_t a[25])
{
	uint64_t b[25], c0, c1, c2, c3, c4, d0, d1, d2, d3, d4;
	int r;

	for (r = 0; r < 24; r++) {
		c0 = a[0] ^ a[5] ^ a[10] ^ a[15] ^ a[20];
		c1 = a[1] ^ a[6] ^ a[11] ^ a[16] ^ a[21];
		c2 = a[2] ^ a[7] ^ a[12] ^ a[17] ^ a[22];
		c3 = a[3] ^ a[8] ^ a[13] ^ a[18] ^ a[23];
		c4 = a[4] ^ a[9] ^ a[14] ^ a[19] ^ a[24];
		d0 = c4 ^ rol(c1, 1);
		d1 = c0 ^ rol(c2, 1);
		d2 = c1 ^ rol(c3, 1);
		d3 = c2 ^ rol(c4, 1);
		d4 = c3 ^ rol(c0, 1);
		b[0] = a[0] ^ d0;
		b[10] = rol(a[1] ^ d1, 1);
		b[20] = rol(a[2] ^ d2, 62);
		b[5] = rol(a[3] ^ d3, 28);
		b[15] = rol(a[4] ^ d4, 27);
		b[16] = rol(a[5] ^ d0, 36);
		b[1] = rol(a[6] ^ d1, 44);
		b[11] = rol(a[7] ^ d2, 6);
		b[21] = rol(a[8] ^ d3, 55);
		b[6] = rol(a[9] ^ d4, 20);
		b[7] = rol(a[10] ^ d0, 3);
		b[17] = rol(a[11] ^ d1, 10);
		b[2] = rol(a[12] ^ d2, 43);
		b[12] = rol(a[13] ^ d3, 25);
		b[22] = rol(a[14] ^ d4, 39);
		b[23] = rol(a[15] ^ d0, 41);
		b[8] = rol(a[16] ^ d1, 45);
		b[18] = rol(a[17] ^ d2, 15);
		b[3] = rol(a[18] ^ d3, 21);
		b[13] = rol(a[19] ^ d4, 8);
		b[14] = rol(a[20] ^ d0, 18);
		b[24] = rol(a[21] ^ d1, 2);
		b[9] = rol(a[22] ^ d2, 61);
		b[19] = rol(a[23] ^ d3, 56);
		b[4] = rol(a[24] ^ d4, 14);
		a[0] = b[0] ^ (~b[1] & b[2]);
		a[1] = b[1] ^ (~b[2] & b[3]);
		a[2] = b[2] ^ (~b[3] & b[4]);
		a[3] = b[3] ^ (~b[4] & b[0]);
		a[4] = b[4] ^ (~b[0] & b[1]);
		a[5] = b[5] ^ (~b[6] & b[7]);
		a[6] = b[6] ^ (~b[7] & b[8]);
		a[7] = b[7] ^ (~b[8] & b[9]);
		a[8] = b[8] ^ (~b[9] & b[5]);
		a[9] = b[9] ^ (~b[5] & b[6]);
		a[10] = b[10] ^ (~b[11] & b[12]);
		a[11] = b[11] ^ (~b[12] & b[13]);
		a[12] = b[12] ^ (~b[13] & b[14]);
		a[13] = b[13] ^ (~b[14] & b[10]);
		a[14] = b[14] ^ (~b[10] & b[11]);
		a[15] = b[15] ^ (~b[16] & b[17]);
		a[16] = b[16] ^ (~b[17] & b[18]);
		a[17] = b[17] ^ (~b[18] & b[19]);
		a[18] = b[18] ^ (~b[19] & b[15]);
		a[19] = b[19] ^ (~b[15] & b[16]);
		a[20] = b[20] ^ (~b[21] & b[22]);
		a[21] = b[21] ^ (~b[22] & b[23]);
		a[22] = b[22] ^ (~b[23] & b[24]);
		a[23] = b[23] ^ (~b[24] & b[20]);
		a[24] = b[24] ^ (~b[20] & b[21]);
		a[0] ^= rc[r];
	}
}

static void absorb(struct sha3_state *s)
{
	size_t i;

	for (i = 0; i < SHA3_256_RATE; i++)
		s->a[i / 8] ^= (uint64_t)s->buf[i] << (8 * (i % 8));
	keccakf(s->a);
	s->n = 0;
}

void sha3_init(struct sha3_state *s)
{
	memset(s, 0, sizeof(*s));
}

void sha3_update(struct sha3_state *s, const void *in, size_t len)
{
	const unsigned char *p = in;
	size_t k;

	while (len) {
		k = SHA3_256_RATE - s->n;
		if (k > len)
			k = len;
		memcpy(s->buf + s->n, p, k);
		s->n += k;
		p += k;
		len -= k;
		if (s->n == SHA3_256_RATE)
			absorb(s);
	}
}

void sha3_final(struct sha3_state *s, unsigned char out[SHA3_256_DIGEST])
{
	size_t i;

	memset(s->buf + s->n, 0, SHA3_256_RATE - s->n);
	s->buf[s->n] ^= 0x06;
	s->buf[SHA3_256_RATE - 1] ^= 0x80;
	absorb(s);
	for (i = 0; i < SHA3_256_DIGEST; i++)
		out[i] = (unsigned char)(s->a[i / 8] >> (8 * (i % 8)));
	memset(s, 0, sizeof(*s));
}

void sha3_256(const void *in, size_t len, unsigned char out[SHA3_256_DIGEST])
{
	struct sha3_state s;

	sha3_init(&s);
	sha3_update(&s, in, len);
	sha3_final(&s, out);
}
