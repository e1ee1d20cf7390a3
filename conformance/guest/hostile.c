// SPDX-License-Identifier: GPL-2.0-only
/*
 * Hostile input, from user space, through every interface the series adds
 * or changes: the DRBG's debugfs test interface (run and trace), the
 * blocking API's isolation trigger, and AF_ALG rng sockets on the DRBG and
 * the Jitter RNG.  Every call must return (no crash, no hang) with a
 * defined result; the debug boot's kmemleak scan then looks for leaks.
 *
 * Also allocation failure at every point: with /proc/self/fail-nth (the
 * kernel's systematic fault injection), the N-th slab allocation of one
 * trace request fails, for N = 1, 2, ... until a request needs fewer
 * allocations than N; each must end in a clean error.
 */
#include "checks.h"
#include "report.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/if_alg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef AF_ALG
#define AF_ALG 38
#endif
#ifndef SOL_ALG
#define SOL_ALG 279
#endif

#ifndef TRACE	/* (a host test builds this file with other paths) */
#define RUN	"/sys/kernel/debug/drbg_cavp/run"
#define TRACE	"/sys/kernel/debug/drbg_cavp/trace"
#define ISO	"/sys/kernel/debug/random_blocking/isolation"
#define FAIL_NTH "/proc/self/fail-nth"
#define FAILSLAB_GFP "/sys/kernel/debug/failslab/ignore-gfp-wait"
#endif

/* A well-formed run request; lens[] are the nine field lengths. */
static size_t run_req(uint8_t *buf, size_t cap, const char *driver, uint32_t flags,
		      uint32_t out_len, const uint32_t *lens)
{
	size_t total = 116, i;

	for (i = 0; i < 9; i++)
		total += lens[i];
	if (total > cap)
		return 0;
	memset(buf, 0, total);
	memcpy(buf, "DCV1", 4);
	put_le32(buf + 4, (uint32_t)total);
	put_le32(buf + 8, flags);
	put_le32(buf + 12, out_len);
	snprintf((char *)buf + 16, 64, "%s", driver);
	for (i = 0; i < 9; i++)
		put_le32(buf + 80 + 4 * i, lens[i]);
	for (i = 116; i < total; i++)
		buf[i] = (uint8_t)(i * 13);
	return total;
}

/* write() a message to a fresh open of path; returns write's result or -errno. */
static long write_msg(const char *path, const void *msg, size_t len)
{
	int fd = open(path, O_RDWR);
	long r;

	if (fd < 0)
		return -errno;
	r = write(fd, msg, len);
	if (r < 0)
		r = -errno;
	close(fd);
	return r;
}

struct tally {
	int calls, unexpected;
	char first[256];
};

static void expect(struct tally *t, const char *what, long got, long want)
{
	t->calls++;
	if (got == want)
		return;
	if (!t->unexpected++)
		snprintf(t->first, sizeof(t->first), "%s: got %ld, expected %ld", what,
			 got, want);
}

static void report_tally(const char *id, struct tally *t)
{
	if (t->unexpected)
		report_check(id, "fail", t->first, "\"calls\":%d,\"unexpected\":%d",
			     t->calls, t->unexpected);
	else
		report_check(id, "pass", NULL, "\"calls\":%d,\"unexpected\":0", t->calls);
}

/*
 * The well-formed request of n bytes at buf moved one byte up, to an odd
 * address: the "misaligned buffer" case is the same request from a user
 * buffer no word boundary holds, which the kernel must accept.  buf has
 * room for n + 2 bytes.
 */
static uint8_t *misaligned_copy(uint8_t *buf, size_t n)
{
	uint8_t *p = buf + 1 + !((uintptr_t)(buf + 1) & 1);

	memmove(p, buf, n);
	return p;
}

static void hostile_run(void)
{
	static uint8_t msg[(1 << 20) + 4096];
	uint32_t lens[9] = { 16, 8, 0, 0, 0, 0, 0, 0, 0 };
	struct tally t = { 0 };
	size_t n;
	int fd;
	char rd[64];

	n = run_req(msg, sizeof(msg), "drbg_nopr_sha256", 0, 32, lens);
	expect(&t, "well-formed request", write_msg(RUN, msg, n), (long)n);
	expect(&t, "empty write", write_msg(RUN, msg, 0), -EINVAL);
	expect(&t, "one byte", write_msg(RUN, msg, 1), -EINVAL);
	expect(&t, "header only, truncated", write_msg(RUN, msg, 115), -EINVAL);
	expect(&t, "NULL buffer", write_msg(RUN, NULL, 200), -EFAULT);
	expect(&t, "unmapped buffer", write_msg(RUN, (void *)4096, 200), -EFAULT);
	expect(&t, "misaligned buffer", write_msg(RUN, misaligned_copy(msg, n), n),
	       (long)n);
	n = run_req(msg, sizeof(msg), "drbg_nopr_sha256", 0, 32, lens);
	memcpy(msg, "XCV1", 4);
	expect(&t, "wrong magic", write_msg(RUN, msg, n), -EINVAL);
	memcpy(msg, "DCV1", 4);
	put_le32(msg + 4, (uint32_t)n + 1);
	expect(&t, "total length disagrees", write_msg(RUN, msg, n), -EINVAL);
	put_le32(msg + 4, (uint32_t)n);
	put_le32(msg + 80, 0xffffffffu);
	expect(&t, "field length past the end", write_msg(RUN, msg, n), -EINVAL);
	put_le32(msg + 80, 16);
	put_le32(msg + 12, 0);
	expect(&t, "zero output length", write_msg(RUN, msg, n), -EINVAL);
	put_le32(msg + 12, (1 << 18) + 1);
	expect(&t, "output length above the limit", write_msg(RUN, msg, n), -EINVAL);
	put_le32(msg + 12, 32);
	put_le32(msg + 8, 0x80);
	expect(&t, "unknown flag", write_msg(RUN, msg, n), -EINVAL);
	put_le32(msg + 8, 0);
	memset(msg + 16, 'x', 64);
	expect(&t, "driver name without NUL", write_msg(RUN, msg, n), -EINVAL);
	n = run_req(msg, sizeof(msg), "jitterentropy_rng", 0, 32, lens);
	expect(&t, "not a DRBG", write_msg(RUN, msg, n), -EINVAL);
	n = run_req(msg, sizeof(msg), "drbg_nopr_nosuchcore", 0, 32, lens);
	expect(&t, "unknown DRBG (error in the reply)", write_msg(RUN, msg, n), (long)n);
	expect(&t, "over 1 MiB", write_msg(RUN, msg, (1 << 20) + 1), -EMSGSIZE);
	lens[0] = 0;
	lens[1] = 0;
	n = run_req(msg, sizeof(msg), "drbg_pr_ctr_aes256", 3, 1 << 18, lens);
	expect(&t, "empty entropy, 256 KiB output (split)", write_msg(RUN, msg, n),
	       (long)n);
	fd = open(RUN, O_RDWR);
	expect(&t, "read before any request", fd < 0 ? -errno : read(fd, rd, sizeof(rd)), 0);
	if (fd >= 0)
		close(fd);
	report_tally("guest.hostile.debugfs-run", &t);
}

static void hostile_trace(void)
{
	uint8_t msg[256];
	struct tally t = { 0 };

	memset(msg, 0, sizeof(msg));
	memcpy(msg, "DCT1", 4);
	put_le32(msg + 4, 88);
	put_le32(msg + 12, 16);
	snprintf((char *)msg + 16, 64, "drbg_nopr_hmac_sha256");
	expect(&t, "well-formed trace", write_msg(TRACE, msg, 88), 88);
	put_le32(msg + 12, 4097);
	expect(&t, "output above 4096", write_msg(TRACE, msg, 88), -EINVAL);
	put_le32(msg + 12, 16);
	put_le32(msg + 80, 1000);
	expect(&t, "personalization past the end", write_msg(TRACE, msg, 88), -EINVAL);
	put_le32(msg + 80, 0);
	put_le32(msg + 84, 5);
	expect(&t, "additional input length disagrees", write_msg(TRACE, msg, 88),
	       -EINVAL);
	put_le32(msg + 84, 0);
	put_le32(msg + 8, 2);
	expect(&t, "unknown flag", write_msg(TRACE, msg, 88), -EINVAL);
	expect(&t, "short", write_msg(TRACE, msg, 87), -EINVAL);
	expect(&t, "NULL buffer", write_msg(TRACE, NULL, 88), -EFAULT);
	report_tally("guest.hostile.debugfs-trace", &t);
}

static void hostile_isolation(void)
{
	struct tally t = { 0 };

	expect(&t, "zero requests", write_msg(ISO, "0", 1), -EINVAL);
	expect(&t, "negative", write_msg(ISO, "-1", 2), -EINVAL);
	expect(&t, "too many", write_msg(ISO, "100000", 6), -EINVAL);
	expect(&t, "not a number", write_msg(ISO, "abc", 3), -EINVAL);
	expect(&t, "NULL buffer", write_msg(ISO, NULL, 3), -EFAULT);
	expect(&t, "one request", write_msg(ISO, "1", 1), 1);
	report_tally("guest.hostile.blocking-isolation", &t);
}

/* NULL, hidden from the compiler's argument checks. */
static void *volatile nowhere;

static void hostile_af_alg(void)
{
	static char buf[1 << 20], key[1024];
	struct tally t = { 0 };
	int s, op, i, socks[256], nsocks = 0;
	long r;

	expect(&t, "bind unknown rng", rng_bind("drbg_nopr_nosuch"), -ENOENT);
	s = rng_bind("drbg_nopr_sha512");
	expect(&t, "bind DRBG", s >= 0, 1);
	if (s >= 0) {
		op = accept(s, NULL, 0);
		r = op >= 0 ? read(op, buf, 16) : 0;
		expect(&t, "read before seeding", r < 0 ? -errno : r, -EINVAL);
		if (op >= 0)
			close(op);
		close(s);
	}
	s = rng_bind("drbg_nopr_hmac_sha256");
	expect(&t, "bind DRBG", s >= 0, 1);
	if (s >= 0) {
		expect(&t, "seed with a 1 KiB key",
		       setsockopt(s, SOL_ALG, ALG_SET_KEY, key, sizeof(key)), 0);
		expect(&t, "seed again",
		       setsockopt(s, SOL_ALG, ALG_SET_KEY, key, 16), 0);
		op = accept(s, NULL, 0);
		expect(&t, "accept", op >= 0, 1);
		if (op >= 0) {
			r = read(op, buf, 0);
			expect(&t, "read 0 bytes", r < 0 ? -errno : r, 0);
			r = read(op, buf, sizeof(buf));
			expect(&t, "read 1 MiB (capped at 128 bytes)", r, 128);
			r = read(op, nowhere, 64);
			expect(&t, "read into NULL", r < 0 ? -errno : r, -EFAULT);
			r = read(op, buf + 1, 33);
			expect(&t, "misaligned read", r, 33);
			close(op);
		}
		close(s);
	}
	s = rng_bind("jitterentropy_rng");
	expect(&t, "bind Jitter RNG", s >= 0, 1);
	if (s >= 0) {
		op = accept(s, NULL, 0);
		r = op >= 0 ? read(op, buf, 4096) : -1;
		expect(&t, "Jitter read of 4096 (capped at 128 bytes)", r, 128);
		if (op >= 0)
			close(op);
		close(s);
	}
	for (i = 0; i < 256; i++) {
		socks[nsocks] = rng_bind(i & 1 ? "jitterentropy_rng" : "drbg_pr_ctr_aes128");
		if (socks[nsocks] >= 0)
			nsocks++;
	}
	expect(&t, "256 sockets at once", nsocks, 256);
	while (nsocks)
		close(socks[--nsocks]);
	report_tally("guest.hostile.af-alg", &t);
}

/* A small seeded fuzz loop over the run interface: random field lengths,
 * flags, output lengths and corruptions.  Reproducible from the seed. */
static void fuzz_run(void)
{
	static uint8_t msg[70000];
	static const char *const names[] = { "drbg_pr_sha1", "drbg_nopr_ctr_aes192",
		"drbg_nopr_hmac_sha512", "drbg_pr_hmac_sha384", "drbg_nopr_nosuch" };
	uint64_t x = 0x5eed2026;
	int i, j, ok = 0, refused = 0, other = 0;
	long long t0 = now_us();
	char why[160] = "";

	for (i = 0; i < 2000 && now_us() - t0 < 60000000LL; i++) {
		uint32_t lens[9];
		size_t n;
		long r;

		for (j = 0; j < 9; j++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			lens[j] = (x & 7) == 0 ? 0 : (uint32_t)(x % 300);
		}
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		n = run_req(msg, sizeof(msg), names[x % 5], (uint32_t)(x >> 8) & 3,
			    1 + (uint32_t)((x >> 16) % 700), lens);
		if (!n)
			continue;
		if ((x >> 40) % 4 == 0)
			msg[(x >> 20) % n] ^= (uint8_t)(1u << ((x >> 50) % 8));
		r = write_msg(RUN, msg, n);
		if (r == (long)n)
			ok++;
		else if (r == -EINVAL)
			refused++;
		else if (!other++)
			snprintf(why, sizeof(why), "iteration %d: write returned %ld", i, r);
	}
	if (other)
		report_check("guest.hostile.fuzz-run", "fail", why,
			     "\"iterations\":%d,\"accepted\":%d,\"refused\":%d,\"other\":%d,"
			     "\"seed\":\"0x5eed2026\"", i, ok, refused, other);
	else
		report_check("guest.hostile.fuzz-run", "pass", NULL,
			     "\"iterations\":%d,\"accepted\":%d,\"refused\":%d,\"other\":0,"
			     "\"seed\":\"0x5eed2026\",\"ms\":%lld", i, ok, refused,
			     (now_us() - t0) / 1000);
}

/* Allocation failure at every point of one trace request (fail-nth). */
static void fail_every_allocation(void)
{
	uint8_t msg[88];
	char v[16];
	int nth, fd, injected = 0, clean = 0, bad = 0;
	long r;
	char why[160] = "";

	if (access(FAIL_NTH, F_OK) || access(FAILSLAB_GFP, F_OK)) {
		report_check("guest.faults.alloc-every-point", "skip",
			     "no fault injection in this kernel (the debug kernel has it)",
			     NULL);
		return;
	}
	fd = open(FAILSLAB_GFP, O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "N", 1) != 1)
			say("failslab: ignore-gfp-wait not set");
		close(fd);
	}
	memset(msg, 0, sizeof(msg));
	memcpy(msg, "DCT1", 4);
	put_le32(msg + 4, 88);
	put_le32(msg + 8, 1);
	put_le32(msg + 12, 16);
	snprintf((char *)msg + 16, 64, "drbg_nopr_hmac_sha256");
	for (nth = 1; nth < 400; nth++) {
		int tfd = open(TRACE, O_RDWR), ffd = open(FAIL_NTH, O_RDWR);
		uint8_t reply[64];
		int err = 0;

		if (tfd < 0 || ffd < 0) {
			bad++;
			break;
		}
		snprintf(v, sizeof(v), "%d", nth);
		if (write(ffd, v, strlen(v)) != (ssize_t)strlen(v)) {
			/* Nothing is armed: this point must not count. */
			snprintf(why, sizeof(why), "allocation %d: writing " FAIL_NTH
				 " failed: %s", nth, strerror(errno));
			bad++;
			close(ffd);
			close(tfd);
			break;
		}
		r = write(tfd, msg, sizeof(msg));
		if (r < 0)
			r = -errno;
		lseek(ffd, 0, SEEK_SET);
		memset(v, 0, sizeof(v));
		if (read(ffd, v, sizeof(v) - 1) < 0)
			v[0] = '?';
		close(ffd);
		if (r == 88 && pread(tfd, reply, sizeof(reply), 0) >= 8)
			err = (int32_t)(reply[4] | reply[5] << 8 | reply[6] << 16 |
					(uint32_t)reply[7] << 24);
		close(tfd);
		if (atoi(v) != 0) {
			/* Fewer allocations than nth: nothing was injected; done. */
			if (r != 88 || err)
				bad++;
			break;
		}
		injected++;
		if ((r == -ENOMEM) || (r == 88 && err))
			clean++;
		else if (r == 88 && !err)
			clean++;	/* the failed allocation had a fallback */
		else if (!bad++)
			snprintf(why, sizeof(why), "allocation %d: write returned %ld", nth, r);
	}
	fd = open(FAILSLAB_GFP, O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "Y", 1) != 1)
			say("failslab: ignore-gfp-wait not restored");
		close(fd);
	}
	if (bad || !injected)
		report_check("guest.faults.alloc-every-point", "fail",
			     why[0] ? why : "no allocation could be made to fail",
			     "\"points\":%d,\"clean\":%d", injected, clean);
	else
		report_check("guest.faults.alloc-every-point", "pass", NULL,
			     "\"points\":%d,\"clean\":%d", injected, clean);
}

void check_hostile(void)
{
	if (access(RUN, F_OK)) {
		report_check("guest.hostile", "fail", "no " RUN ": not the test kernel", NULL);
		return;
	}
	hostile_run();
	hostile_trace();
	hostile_isolation();
	hostile_af_alg();
	fuzz_run();
	fail_every_allocation();
}
