// SPDX-License-Identifier: GPL-2.0-only
/*
 * make stress (harness/stages/stress.py): seeded hostile calls, many of
 * them, through every interface the series adds or changes, on the debug
 * kernel.  The kernel command line gives the figures:
 *
 *   conform.stress_calls=N     calls to make (each blocking-API operation
 *                              of random_blocking/stress counts as one)
 *   conform.stress_seed=S      the seed of the xorshift64 generator that
 *                              chooses every call and its arguments
 *   conform.stress_seconds=T   the time bound: the loop stops there and
 *                              says how far it got
 *   conform.stress_slab_kib=K  how much unreclaimable slab may grow over
 *                              the second half of the calls, and over the
 *                              allocation-failure paths (guest.stress.memory)
 *
 * The calls are chosen from the seed alone, never from a result, so the
 * same seed makes the same sequence of calls; its FNV-1a hash is reported
 * (sequence_fnv64) with the seed.  Each call has an expected result; any
 * other is counted and the first is named.
 *
 * Before the loop, stress_blk.c's check_unready() runs the blocking API
 * while the CRNG becomes ready.
 */
#include "checks.h"
#include "report.h"
#include "stress.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_alg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef STRESS_RUN	/* (a host test builds this file with other paths) */
#define STRESS_RUN	"/sys/kernel/debug/drbg_cavp/run"
#define STRESS_TRACE	"/sys/kernel/debug/drbg_cavp/trace"
#define STRESS_ISO	"/sys/kernel/debug/random_blocking/isolation"
#define STRESS_RAW	"/sys/kernel/debug/jitterentropy_testing/raw_noise"
#endif
#ifndef STRESS_SLABINFO
#define STRESS_SLABINFO	"/proc/slabinfo"
#endif
#ifndef STRESS_SLABSYS
#define STRESS_SLABSYS	"/sys/kernel/slab"
#endif

#define BLK_OPS		16	/* blocking-API operations per write */
#define ALG_SOCKS	3

static const char *const iface_names[S_IFACES] = {
	"run_bad", "run_good", "trace", "af_alg_read", "af_alg_key", "af_alg_cycle",
	"jitter_read", "raw_noise", "blocking", "isolation",
};

uint64_t stress_next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static uint64_t fnv(uint64_t h, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++) {
		h ^= (v >> (8 * i)) & 0xff;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* The next call: its interface and arguments, from the generator only. */
void stress_plan(uint64_t *x, struct stress_call *c, uint64_t *hash)
{
	static const int weight[64] = {
		[0 ... 17] = S_RUN_BAD, [18 ... 21] = S_RUN_GOOD, [22 ... 25] = S_TRACE,
		[26 ... 41] = S_ALG_READ, [42 ... 45] = S_ALG_KEY, [46 ... 47] = S_ALG_CYCLE,
		[48 ... 51] = S_JITTER_READ, [52] = S_RAW_NOISE, [53 ... 62] = S_BLOCKING,
		[63] = S_ISO,
	};
	uint64_t r = stress_next(x);

	c->iface = weight[r % 64];
	c->a = (uint32_t)(r >> 8);
	c->b = (uint32_t)(stress_next(x) >> 16);
	*hash = fnv(fnv(fnv(*hash, (uint64_t)c->iface), c->a), c->b);
}

struct stress {
	long n[S_IFACES], calls, unexpected, jitter_again;
	char first[256];
	int parent[ALG_SOCKS], op[ALG_SOCKS], jitter;
};

static void expect(struct stress *s, int iface, const char *what, long got, long want)
{
	if (got == want)
		return;
	if (!s->unexpected++)
		snprintf(s->first, sizeof(s->first), "call %ld (%s, %s): got %ld, expected %ld",
			 s->calls, iface_names[iface], what, got, want);
}

static long write_path(const char *path, const void *msg, size_t len)
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

/* A run request (DCV1, chapter "CAVS") of n bytes for driver d. */
static size_t run_msg(uint8_t *m, size_t cap, const char *d, uint32_t a, uint32_t b)
{
	size_t total = 116 + (b % 48) + (a >> 20) % 16, i;

	if (total > cap)
		return 0;
	memset(m, 0, total);
	memcpy(m, "DCV1", 4);
	put_le32(m + 4, (uint32_t)total);
	put_le32(m + 8, a & 3);
	put_le32(m + 12, 1 + (b >> 8) % 256);
	snprintf((char *)m + 16, 64, "%s", d);
	put_le32(m + 80, b % 48);
	put_le32(m + 84, (a >> 20) % 16);
	for (i = 116; i < total; i++)
		m[i] = (uint8_t)(i * 7 + a);
	return total;
}

static void call_run(struct stress *s, const struct stress_call *c)
{
	static uint8_t m[512];
	size_t n = run_msg(m, sizeof(m), drbg_drivers[c->a % 22], c->a, c->b);

	if (c->iface == S_RUN_GOOD) {
		expect(s, c->iface, drbg_drivers[c->a % 22], write_path(STRESS_RUN, m, n),
		       (long)n);
		return;
	}
	switch ((c->a >> 4) % 6) {
	case 0: memcpy(m, "XCV1", 4); break;		/* wrong magic */
	case 1: put_le32(m + 4, (uint32_t)n + 1); break;	/* total disagrees */
	case 2: put_le32(m + 80, 0xfffffff0u); break;	/* field past the end */
	case 3: put_le32(m + 12, 0); break;		/* no output */
	case 4: put_le32(m + 8, 0x80); break;		/* unknown flag */
	default: n = c->b % 116; break;			/* shorter than the header */
	}
	expect(s, c->iface, "malformed", write_path(STRESS_RUN, m, n), -EINVAL);
}

static void call_trace(struct stress *s, const struct stress_call *c)
{
	uint8_t m[88];
	int bad = c->a & 1;

	memset(m, 0, sizeof(m));
	memcpy(m, "DCT1", 4);
	put_le32(m + 4, 88);
	put_le32(m + 12, bad ? 4097 + c->b % 1000 : 1 + c->b % 64);
	snprintf((char *)m + 16, 64, "%s", drbg_drivers[(c->a >> 1) % 22]);
	expect(s, c->iface, bad ? "output too long" : "well-formed",
	       write_path(STRESS_TRACE, m, sizeof(m)), bad ? -EINVAL : 88);
}

/* Sockets kept open across calls: three DRBGs, seeded, and the Jitter RNG. */
static const char *const alg_drivers[ALG_SOCKS] = {
	"drbg_nopr_hmac_sha256", "drbg_pr_ctr_aes128", "drbg_nopr_sha512",
};

static void alg_open(struct stress *s)
{
	static const char key[32] = "make stress: a seed for AF_ALG";
	int i, p;

	for (i = 0; i < ALG_SOCKS; i++) {
		p = rng_bind(alg_drivers[i]);
		s->parent[i] = p;
		s->op[i] = -1;
		if (p >= 0 && !setsockopt(p, SOL_ALG, ALG_SET_KEY, key, sizeof(key)))
			s->op[i] = accept(p, NULL, 0);
	}
	p = rng_bind("jitterentropy_rng");
	s->jitter = p >= 0 ? accept(p, NULL, 0) : -1;
	if (p >= 0)
		close(p);
}

static void alg_close(struct stress *s)
{
	int i;

	for (i = 0; i < ALG_SOCKS; i++) {
		if (s->op[i] >= 0)
			close(s->op[i]);
		if (s->parent[i] >= 0)
			close(s->parent[i]);
	}
	if (s->jitter >= 0)
		close(s->jitter);
}

static long rd(int fd, char *buf, size_t n)
{
	long r = fd < 0 ? -EBADF : read(fd, buf, n);

	return r < 0 ? -errno : r;
}

static void call_alg(struct stress *s, const struct stress_call *c)
{
	static char buf[1024], key[1024];
	int k = c->a % ALG_SOCKS;
	size_t len = c->b % 300;
	long r;

	if (c->iface == S_ALG_READ) {
		expect(s, c->iface, alg_drivers[k], rd(s->op[k], buf + (c->a >> 8) % 8, len),
		       (long)(len < 128 ? len : 128));
	} else if (c->iface == S_ALG_KEY) {
		/* A reseed: af_alg refuses a key while a socket is accepted. */
		if (s->op[k] >= 0)
			close(s->op[k]);
		r = s->parent[k] < 0 ? -EBADF :
			setsockopt(s->parent[k], SOL_ALG, ALG_SET_KEY, key, 1 + len) ? -errno : 0;
		expect(s, c->iface, alg_drivers[k], r, 0);
		s->op[k] = s->parent[k] < 0 ? -1 : accept(s->parent[k], NULL, 0);
	} else if (c->iface == S_JITTER_READ) {
		r = rd(s->jitter, buf, 1 + len % 64);
		if (r == -EAGAIN)	/* an intermittent health failure */
			s->jitter_again++;
		else
			expect(s, c->iface, "jitterentropy_rng", r, (long)(1 + len % 64));
	}
}

/* A socket's whole life: bind, seed (or not), accept, read, close. */
static void call_alg_cycle(struct stress *s, const struct stress_call *c)
{
	static char buf[256];
	const char *d = c->a % 23 == 22 ? "drbg_nopr_nosuch" : drbg_drivers[c->a % 23];
	int keyed = (c->a >> 8) & 1, p = rng_bind(d), op;
	long r;

	if (c->a % 23 == 22) {
		expect(s, c->iface, d, p < 0 ? p : 0, -ENOENT);
		if (p >= 0)
			close(p);
		return;
	}
	if (p < 0) {
		expect(s, c->iface, d, p, 0);
		return;
	}
	if (keyed && setsockopt(p, SOL_ALG, ALG_SET_KEY, buf, 16 + c->b % 48))
		expect(s, c->iface, "setkey", -errno, 0);
	op = accept(p, NULL, 0);
	r = rd(op, buf, 1 + c->b % 128);
	expect(s, c->iface, keyed ? "read, seeded" : "read before seeding", r,
	       keyed ? (long)(1 + c->b % 128) : -EINVAL);
	if (op >= 0)
		close(op);
	close(p);
}

/* The raw-noise test interface: mostly refused counts, rarely a recording. */
static void call_raw_noise(struct stress *s, const struct stress_call *c)
{
	static char buf[8 * 16];
	char num[16];
	int fd, n = 1 + c->b % 16;
	long r;

	switch (c->a % 8) {
	case 0:
		fd = open(STRESS_RAW, O_RDWR);
		snprintf(num, sizeof(num), "%d", n);
		r = fd < 0 ? -errno : write(fd, num, strlen(num));
		expect(s, c->iface, "record", r < 0 ? -errno : r, (long)strlen(num));
		if (fd >= 0) {
			lseek(fd, 0, SEEK_SET);
			expect(s, c->iface, "read the record", rd(fd, buf, sizeof(buf)), 8L * n);
			close(fd);
		}
		return;
	case 1 ... 3:
		expect(s, c->iface, "zero", write_path(STRESS_RAW, "0", 1), -EINVAL);
		return;
	case 4 ... 5:
		expect(s, c->iface, "too many", write_path(STRESS_RAW, "8000001", 7), -EINVAL);
		return;
	}
	expect(s, c->iface, "not a number", write_path(STRESS_RAW, "x1", 2), -EINVAL);
}

static void call_blocking(struct stress *s, const struct stress_call *c)
{
	struct blk_result res;
	long r = blocking_run(((uint64_t)c->a << 32) | c->b, BLK_OPS, &res);

	expect(s, c->iface, "write", r, 0);
	if (!r)
		expect(s, c->iface, "errors in the result line", res.errors, 0);
}

static void call_iso(struct stress *s, const struct stress_call *c)
{
	char n[4];
	int len = snprintf(n, sizeof(n), "%u", 1 + c->a % 8);

	expect(s, c->iface, "requests", write_path(STRESS_ISO, n, (size_t)len), len);
}

static void one_call(struct stress *s, const struct stress_call *c)
{
	switch (c->iface) {
	case S_RUN_BAD:
	case S_RUN_GOOD:
		call_run(s, c);
		break;
	case S_TRACE:
		call_trace(s, c);
		break;
	case S_ALG_CYCLE:
		call_alg_cycle(s, c);
		break;
	case S_RAW_NOISE:
		call_raw_noise(s, c);
		break;
	case S_BLOCKING:
		call_blocking(s, c);
		break;
	case S_ISO:
		call_iso(s, c);
		break;
	default:
		call_alg(s, c);
	}
	s->n[c->iface] += c->iface == S_BLOCKING ? BLK_OPS : 1;
	s->calls += c->iface == S_BLOCKING ? BLK_OPS : 1;
}

/*
 * Unreclaimable slab at one point of the run.  What a kernel that frees
 * what it allocates may still hold there, and how each is let go first:
 *  - the page, dentry and inode caches: dropped (drop_caches);
 *  - KASAN's quarantine of freed objects (up to 1/32 of memory, filled by
 *    every free and emptied only when full) and the empty slabs SLUB keeps
 *    on its per-CPU and per-node partial lists: each cache is shrunk
 *    through /sys/kernel/slab/<cache>/shrink, whose kmem_cache_shrink()
 *    empties the cache's quarantine and gives its empty slabs back;
 *  - frees deferred to RCU (kmemleak's metadata, SLAB_TYPESAFE_BY_RCU
 *    caches): waited for, then the caches are shrunk again.
 * Then SUnreclaim is read, and the slab of every cache from /proc/slabinfo,
 * so that growth can be told per cache.
 */
int slab_shrink_all(const char *dir)
{
	char path[512];
	struct dirent *e;
	int n = 0, fd;
	DIR *d = opendir(dir);

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/shrink", dir, e->d_name);
		fd = open(path, O_WRONLY);
		if (fd < 0)
			continue;
		n += write(fd, "1", 1) == 1;
		close(fd);
	}
	closedir(d);
	return n;
}

static char slabinfo[262144];

/* Each cache's slab in KiB from a /proc/slabinfo (version 2.1) into m. */
void slab_parse(struct slab_mark *m, const char *path)
{
	char *ln, *save = NULL;

	m->n = 0;
	if (read_file(path, slabinfo, sizeof(slabinfo)) < 0)
		return;
	for (ln = strtok_r(slabinfo, "\n", &save); ln && m->n < SLAB_CACHES;
	     ln = strtok_r(NULL, "\n", &save)) {
		long pages, slabs;

		if (sscanf(ln, "%63s %*d %*d %*d %*d %ld : tunables %*d %*d %*d : "
			   "slabdata %*d %ld", m->name[m->n], &pages, &slabs) == 3)
			m->kib[m->n++] = slabs * pages * 4;
	}
}

static void slab_mark(struct slab_mark *m)
{
	meminfo_kib("SUnreclaim:");	/* drops the caches */
	slab_shrink_all(STRESS_SLABSYS);
	sleep(2);
	m->shrunk = slab_shrink_all(STRESS_SLABSYS);
	m->sunreclaim_kib = meminfo_kib("SUnreclaim:");
	m->taken = 1;
	slab_parse(m, STRESS_SLABINFO);
}

/* The caches that grew most from a to b: "name +KiB" pairs, largest first. */
void slab_top(const struct slab_mark *a, const struct slab_mark *b, char *out, size_t n)
{
	long grew[SLAB_CACHES];
	size_t o = 0;
	int i, j, k;

	for (i = 0; i < b->n; i++) {
		grew[i] = b->kib[i];
		for (j = 0; j < a->n; j++)
			if (!strcmp(a->name[j], b->name[i])) {
				grew[i] -= a->kib[j];
				break;
			}
	}
	out[0] = 0;
	for (k = 0; k < 5; k++) {
		int best = -1;

		for (i = 0; i < b->n; i++)
			if (grew[i] > 0 && (best < 0 || grew[i] > grew[best]))
				best = i;
		if (best < 0 || o >= n)
			break;
		o += (size_t)snprintf(out + o, n - o, "%s%s +%ld", k ? ", " : "",
				      b->name[best], grew[best]);
		grew[best] = 0;
	}
}

static struct slab_mark mark_boot, mark_half, mark_end, mark_faults;

/*
 * The seeded calls, until want calls are made or the time bound is hit;
 * the slab is marked once, when half of them are made, with the sockets
 * closed as they are at the end, and the sockets opened again as at the
 * start (the expected results do not depend on the key a socket had).
 */
static void stress_loop(uint64_t seed, long want, long secs)
{
	uint64_t x = seed ? seed : 1, hash = 0xcbf29ce484222325ULL;
	long long t0 = now_us(), end = t0 + secs * 1000000LL;
	char per[512] = "";
	struct stress_call c;
	struct stress s;
	long next_say = 10000;
	int i, bound = 0;
	size_t o = 0;

	memset(&s, 0, sizeof(s));
	alg_open(&s);
	while (s.calls < want) {
		if (now_us() >= end) {
			bound = 1;
			break;
		}
		if (s.calls >= want / 2 && !mark_half.taken) {
			/* as at the end: no socket open (each holds a DRBG) */
			alg_close(&s);
			slab_mark(&mark_half);
			alg_open(&s);
		}
		stress_plan(&x, &c, &hash);
		one_call(&s, &c);
		if (s.calls >= next_say) {
			say("stress: %ld of %ld calls, %lld s", s.calls, want,
			    (now_us() - t0) / 1000000);
			next_say += 10000;
		}
	}
	alg_close(&s);
	for (i = 0; i < S_IFACES && o < sizeof(per); i++)
		o += (size_t)snprintf(per + o, sizeof(per) - o, ",\"%s\":%ld",
				      iface_names[i], s.n[i]);
	report_check("guest.stress.calls",
		     s.unexpected || bound ? "fail" : "pass",
		     s.unexpected ? s.first : bound ? "the time bound was reached first" : NULL,
		     "\"requested\":%ld,\"calls\":%ld,\"seed\":%llu,\"seconds_bound\":%ld,"
		     "\"time_bound_hit\":%d,\"unexpected\":%ld,\"jitter_eagain\":%ld,"
		     "\"ms\":%lld,\"sequence_fnv64\":\"%016llx\"%s",
		     want, s.calls, (unsigned long long)seed, secs, bound, s.unexpected,
		     s.jitter_again, (now_us() - t0) / 1000, (unsigned long long)hash, per);
}

static long cmdline_long(const char *key, long dflt)
{
	char v[32];

	return cmdline_value(key, v, sizeof(v)) ? strtol(v, NULL, 0) : dflt;
}

/*
 * guest.stress.memory: the first half of the calls warms every cache the
 * calls use (per-CPU slabs, partial lists, one-time objects of the
 * interfaces); the second half repeats the same kinds of calls from the
 * same generator, so a kernel that frees what it allocates ends it with
 * the unreclaimable slab it started it with, give or take the slabs SLUB
 * keeps per CPU.  A leak of b bytes per call shows as b x calls / 2.  The
 * allocation-failure paths run after it and are held to the same bound.
 */
void check_stress(void)
{
	char v[32], top[512], ftop[512];
	uint64_t seed = cmdline_value("conform.stress_seed", v, sizeof(v)) ?
		strtoull(v, NULL, 0) : 1;
	long bound = cmdline_long("conform.stress_slab_kib", 256);
	long grew, fgrew;
	const char *why = NULL;

	slab_mark(&mark_boot);
	check_unready(seed);
	stress_loop(seed, cmdline_long("conform.stress_calls", 1000),
		    cmdline_long("conform.stress_seconds", 600));
	slab_mark(&mark_end);
	check_stress_faults();
	slab_mark(&mark_faults);
	grew = mark_end.sunreclaim_kib - mark_half.sunreclaim_kib;
	fgrew = mark_faults.sunreclaim_kib - mark_end.sunreclaim_kib;
	slab_top(&mark_half, &mark_end, top, sizeof(top));
	slab_top(&mark_end, &mark_faults, ftop, sizeof(ftop));
	if (mark_boot.sunreclaim_kib < 0 || mark_end.sunreclaim_kib < 0)
		why = "no SUnreclaim in /proc/meminfo";
	else if (!mark_half.taken)
		why = "the calls stopped before their half: no second half to measure";
	else if (!mark_boot.n)
		why = "no cache in /proc/slabinfo";
	else if (mark_half.shrunk <= 0 || mark_end.shrunk <= 0 || mark_faults.shrunk <= 0)
		why = "no cache could be shrunk through /sys/kernel/slab/<cache>/shrink";
	else if (grew > bound)
		why = "unreclaimable slab grew past the bound over the second half of the calls";
	else if (fgrew > bound)
		why = "unreclaimable slab grew past the bound over the allocation-failure paths";
	report_check("guest.stress.memory", why ? "fail" : "pass", why,
		     "\"slab_kib_boot\":%ld,\"slab_kib_half\":%ld,\"slab_kib_end\":%ld,"
		     "\"slab_kib_faults\":%ld,\"growth_kib\":%ld,\"faults_growth_kib\":%ld,"
		     "\"first_half_growth_kib\":%ld,\"bound_kib\":%ld,\"caches\":%d,"
		     "\"caches_shrunk\":%d,"
		     "\"top_growth\":\"%s\",\"faults_top_growth\":\"%s\"",
		     mark_boot.sunreclaim_kib, mark_half.sunreclaim_kib, mark_end.sunreclaim_kib,
		     mark_faults.sunreclaim_kib, grew, fgrew,
		     mark_half.sunreclaim_kib - mark_boot.sunreclaim_kib, bound, mark_end.n,
		     mark_end.shrunk, top, ftop);
}
