// SPDX-License-Identifier: GPL-2.0-only
/* The user-space host of the Jitter RNG core; see shim.h. */
#include "shim.h"
#include "zalloc.h"

#ifdef SHIM_OWN_SHA3
#include "sha3.h"
#else
#include <openssl/evp.h>
#endif

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
	void *p;

	if (fail_at && !--fail_at)
		return NULL;
	p = host_zalloc(len);
	if (p)
		live++;
	return p;
}

void jent_zfree(void *ptr)
{
	if (!ptr)
		return;
	live--;
	host_zfree(ptr);
}

/*
 * ---- SHA3-256 (FIPS 202) ----
 *
 * OpenSSL's libcrypto on x86-64.  Debian's 32-bit toolchain (gcc-multilib)
 * has a 32-bit libc but no 32-bit libcrypto, so the i386 driver is built
 * with SHIM_OWN_SHA3 and the small Keccak beside this file (sha3.c).  Both
 * are checked against hashlib through the driver's "sha3" command.
 */

void shim_sha3_256(const u8 *in, size_t len, u8 out[32])
{
#ifdef SHIM_OWN_SHA3
	sha3_256(in, len, out);
#else
	/* Fails only when libcrypto cannot allocate. */
	if (!EVP_Digest(in, len, out, NULL, EVP_sha3_256(), NULL))
		abort();
#endif
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
