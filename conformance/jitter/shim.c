// SPDX-License-Identifier: GPL-2.0-only
/* The user-space host of the Jitter RNG core; see shim.h. */
#include "shim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef unsigned long long u64;
typedef unsigned int u32;
typedef unsigned char u8;
#include "jitterentropy.h"

/* ---- the scripted timer ---- */

enum { SEG_INC, SEG_SET, SEG_RAND, SEG_CONST };

struct seg {
	int kind;
	u64 a, base, spread, count;	/* SET: a is the value; INC: a is the step */
};

static struct seg *segs;
static size_t nsegs, cap, cur;
static u64 t_now, reads, used_in_seg;
static int real_clock, tsc_clock;
static u64 *rec;
static size_t nrec, caprec;
static int recording;

void shim_timer_reset(u64 t0)
{
	nsegs = cur = 0;
	t_now = t0;
	reads = used_in_seg = 0;
	real_clock = tsc_clock = 0;
}

static void push(struct seg s)
{
	if (nsegs == cap) {
		cap = cap ? 2 * cap : 1024;
		segs = realloc(segs, cap * sizeof(*segs));
		if (!segs)
			abort();
	}
	segs[nsegs++] = s;
}

void shim_timer_inc(u64 d)
{
	push((struct seg){ .kind = SEG_INC, .a = d, .count = 1 });
}

void shim_timer_set(u64 v)
{
	push((struct seg){ .kind = SEG_SET, .a = v, .count = 1 });
}

void shim_timer_rand(u64 seed, u64 base, u64 spread, u64 count)
{
	push((struct seg){ .kind = SEG_RAND, .a = seed, .base = base,
			   .spread = spread, .count = count });
}

void shim_timer_const(u64 count)
{
	push((struct seg){ .kind = SEG_CONST, .count = count });
}

void shim_timer_real(void)
{
	real_clock = 1;
}

/*
 * The CPU's own counter, which is what random_get_entropy() reads on x86
 * (rdtsc); elsewhere the monotonic clock.  Returns which one it is.
 */
const char *shim_timer_tsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
	tsc_clock = 1;
	return "rdtsc";
#else
	real_clock = 1;
	return "clock_monotonic_ns";
#endif
}

void shim_record(int on)
{
	recording = on;
	if (on)
		nrec = 0;
}

size_t shim_recorded(const u64 **stamps)
{
	*stamps = rec;
	return nrec;
}

static void record(u64 t)
{
	if (!recording)
		return;
	if (nrec == caprec) {
		caprec = caprec ? 2 * caprec : 4096;
		rec = realloc(rec, caprec * sizeof(*rec));
		if (!rec)
			abort();
	}
	rec[nrec++] = t;
}

u64 shim_timer_reads(void)
{
	return reads;
}

static u64 xorshift64(u64 *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

void jent_get_nstime(u64 *out)
{
	struct seg *s;

	reads++;
#if defined(__x86_64__) || defined(__i386__)
	if (tsc_clock) {
		*out = __builtin_ia32_rdtsc();
		record(*out);
		return;
	}
#endif
	if (real_clock) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		*out = (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
		record(*out);
		return;
	}
	while (cur < nsegs && segs[cur].count && used_in_seg >= segs[cur].count) {
		cur++;
		used_in_seg = 0;
	}
	if (cur >= nsegs) {
		fprintf(stdout, "error timer exhausted after %llu reads\n", reads - 1);
		fflush(stdout);
		exit(3);
	}
	s = &segs[cur];
	used_in_seg++;
	switch (s->kind) {
	case SEG_INC:
		t_now += s->a;
		break;
	case SEG_SET:
		t_now = s->a;
		break;
	case SEG_RAND:
		t_now += s->base + xorshift64(&s->a) % s->spread;
		break;
	case SEG_CONST:
		break;
	}
	*out = t_now;
	record(*out);
}

/* ---- memory ---- */

static unsigned int fail_at, live;

void shim_alloc_fail_at(unsigned int n)
{
	fail_at = n;
}

unsigned int shim_alloc_live(void)
{
	return live;
}

void *jent_zalloc(unsigned int len)
{
	size_t *p;

	if (fail_at && !--fail_at)
		return NULL;
	p = calloc(1, sizeof(size_t) * 2 + len);
	if (!p)
		return NULL;
	p[0] = len;
	live++;
	return p + 2;
}

void jent_zfree(void *ptr)
{
	size_t *p;

	if (!ptr)
		return;
	p = (size_t *)ptr - 2;
	memset(ptr, 0, p[0]);
	live--;
	free(p);
}

/* ---- SHA3-256 (FIPS 202), a small Keccak-f[1600] ---- */

static const u64 rc[24] = {
	0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808aULL,
	0x8000000080008000ULL, 0x000000000000808bULL, 0x0000000080000001ULL,
	0x8000000080008081ULL, 0x8000000000008009ULL, 0x000000000000008aULL,
	0x0000000000000088ULL, 0x0000000080008009ULL, 0x000000008000000aULL,
	0x000000008000808bULL, 0x800000000000008bULL, 0x8000000000008089ULL,
	0x8000000000008003ULL, 0x8000000000008002ULL, 0x8000000000000080ULL,
	0x000000000000800aULL, 0x800000008000000aULL, 0x8000000080008081ULL,
	0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL,
};
static const int rho[25] = {
	0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43,
	25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14,
};

static u64 rol(u64 x, int n)
{
	return n ? (x << n) | (x >> (64 - n)) : x;
}

static void keccakf(u64 a[25])
{
	u64 c[5], b[25];
	int r, x, y;

	for (r = 0; r < 24; r++) {
		for (x = 0; x < 5; x++)
			c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
		for (x = 0; x < 5; x++) {
			u64 d = c[(x + 4) % 5] ^ rol(c[(x + 1) % 5], 1);

			for (y = 0; y < 25; y += 5)
				a[y + x] ^= d;
		}
		for (x = 0; x < 5; x++)
			for (y = 0; y < 5; y++)
				b[y + 5 * ((2 * x + 3 * y) % 5)] =
					rol(a[x + 5 * y], rho[x + 5 * y]);
		for (y = 0; y < 25; y += 5)
			for (x = 0; x < 5; x++)
				a[y + x] = b[y + x] ^ (~b[y + (x + 1) % 5] & b[y + (x + 2) % 5]);
		a[0] ^= rc[r];
	}
}

void shim_sha3_256(const u8 *in, size_t len, u8 out[32])
{
	const size_t rate = 136;
	u64 a[25] = { 0 };
	u8 blk[136];
	size_t i, n;

	for (;;) {
		n = len < rate ? len : rate;
		memset(blk, 0, rate);
		memcpy(blk, in, n);
		if (n < rate) {
			blk[n] ^= 0x06;
			blk[rate - 1] ^= 0x80;
		}
		for (i = 0; i < rate; i++)
			a[i / 8] ^= (u64)blk[i] << (8 * (i % 8));
		keccakf(a);
		if (n < rate)
			break;
		in += n;
		len -= n;
	}
	for (i = 0; i < 32; i++)
		out[i] = (u8)(a[i / 8] >> (8 * (i % 8)));
}

int shim_hash_fails;

int jent_sha3_256(void *hash, const u8 *in, unsigned int inlen, u8 *out)
{
	(void)hash;
	if (shim_hash_fails)
		return -1;
	shim_sha3_256(in, inlen, out);
	return 0;
}
