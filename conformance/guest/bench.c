// SPDX-License-Identifier: GPL-2.0-only
/*
 * Boot mode "bench": timings for `make bench` (harness/stages/bench.py), never
 * checks.  The same /init runs on the test kernel and on the pristine 6.1
 * kernel; it uses only what both have (AF_ALG "rng", the kernel log), so
 * the two columns of the benchmark come from the same program.
 *
 * Result lines (one JSON object each, on the results channel):
 *
 *   {"type":"bench_initcall","fn":F,"ret":R,"us":T}
 *       from the kernel log of an initcall_debug boot (log_buf_len large
 *       enough to keep it), for jent_mod_init and drbg_init;
 *   {"type":"bench_crng","ready_before":B,"wait_us":T}
 *       one blocking getrandom() first, so that both kernels seed their
 *       DRBGs with the CRNG ready (the same seed path in both);
 *   {"type":"bench_jent_read","bytes":32,"us":[...]}
 *       microseconds of each of N reads of 32 bytes from one
 *       jitterentropy_rng instance (bench.reads=N, default 32);
 *   {"type":"bench_jent_size","bytes":B,"reads":K,"us":T}
 *       microseconds to obtain B bytes (32 B to bench.max, default 64 KiB,
 *       by powers of four and the maximum), in reads of at most 128 bytes
 *       (algif_rng's MAXSIZE in 6.1);
 *   {"type":"bench_drbg","driver":D,"err":E,"us":[...]}
 *       microseconds of setsockopt(ALG_SET_KEY) on a newly bound AF_ALG
 *       tfm of each of the 22 DRBGs: that call instantiates the DRBG
 *       (crypto_rng_reset -> drbg_kcapi_seed -> drbg_instantiate), which
 *       seeds it from get_random_bytes() and the Jitter RNG (bench.drbg=N
 *       repetitions per driver, default 3; a new tfm each time);
 *   {"type":"bench_error","what":W,"errno":E} when something cannot run.
 *
 * Under QEMU's TCG the guest's clock is the host's clock seen through an
 * emulator: these figures compare two kernels on one emulated machine in
 * one run, and say nothing about a real CPU.
 */
#include "checks.h"
#include "report.h"
#include "util.h"

#include <errno.h>
#include <linux/if_alg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef SOL_ALG
#define SOL_ALG 279
#endif

#define BENCH_CHUNK	128	/* algif_rng returns at most this per read */
#define BENCH_MAX_READS	256
#define BENCH_LOG_LEN	(4 << 20)

static long cmdline_long(const char *key, long def, long lo, long hi)
{
	char v[32];
	char *end;
	long n;

	if (!cmdline_value(key, v, sizeof(v)))
		return def;
	n = strtol(v, &end, 10);
	if (*end || n < lo || n > hi)
		return def;
	return n;
}

static void bench_error(const char *what, int err)
{
	report_line("{\"type\":\"bench_error\",\"what\":\"%s\",\"errno\":%d}",
		    what, err);
	say("bench: %s: %s", what, strerror(err));
}

/* Append ",n" (or "n" first) to a JSON array body in buf. */
static void append_num(char *buf, size_t n, long long v)
{
	size_t len = strlen(buf);

	snprintf(buf + len, n - len, "%s%lld", len ? "," : "", v);
}

static void bench_initcalls(void)
{
	static const char *const fns[] = { "jent_mod_init", "drbg_init" };
	static char log[BENCH_LOG_LEN];
	int len = klogctl(3, log, sizeof(log) - 1);	/* READ_ALL */
	size_t i;

	if (len < 0) {
		bench_error("klogctl", errno);
		return;
	}
	log[len] = '\0';
	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		char pat[64];
		const char *p;
		long long us;
		int ret;

		snprintf(pat, sizeof(pat), "initcall %s+", fns[i]);
		p = strstr(log, pat);
		if (!p || !(p = strstr(p, " returned ")) ||
		    sscanf(p, " returned %d after %lld usecs", &ret, &us) != 2) {
			report_line("{\"type\":\"bench_initcall\",\"fn\":\"%s\","
				    "\"missing\":true}", fns[i]);
			continue;
		}
		report_line("{\"type\":\"bench_initcall\",\"fn\":\"%s\",\"ret\":%d,"
			    "\"us\":%lld}", fns[i], ret, us);
	}
}

static void bench_crng(void)
{
	int ready = crng_ready_now();
	long long t0 = now_us();
	char b;

	if (getrandom(&b, 1, 0) != 1)
		bench_error("getrandom", errno);
	report_line("{\"type\":\"bench_crng\",\"ready_before\":%s,\"wait_us\":%lld}",
		    ready ? "true" : "false", now_us() - t0);
}

/* Read n bytes from op, at most BENCH_CHUNK a read; the reads, or -errno. */
static long read_n(int op, unsigned char *buf, size_t n)
{
	size_t got = 0;
	long reads = 0;

	while (got < n) {
		size_t want = n - got < BENCH_CHUNK ? n - got : BENCH_CHUNK;
		ssize_t r = read(op, buf + got, want);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -EIO;
		got += (size_t)r;
		reads++;
	}
	return reads;
}

static void bench_jitter(void)
{
	long nreads = cmdline_long("bench.reads", 32, 1, BENCH_MAX_READS);
	long max = cmdline_long("bench.max", 65536, 32, 1 << 20);
	static unsigned char buf[1 << 20];
	char list[BENCH_MAX_READS * 12] = "";
	long long t;
	size_t bytes;
	long i, r;
	int tfm, op;

	tfm = rng_bind("jitterentropy_rng");
	if (tfm < 0) {
		bench_error("bind jitterentropy_rng", -tfm);
		return;
	}
	op = accept(tfm, NULL, 0);
	if (op < 0) {
		bench_error("accept jitterentropy_rng", errno);
		close(tfm);
		return;
	}
	/* One read first: the instance's first use is not timed. */
	r = read_n(op, buf, 32);
	if (r < 0) {
		bench_error("read jitterentropy_rng", (int)-r);
		goto out;
	}
	say("bench: jitterentropy_rng, %ld reads of 32 bytes", nreads);
	for (i = 0; i < nreads; i++) {
		t = now_us();
		r = read_n(op, buf, 32);
		t = now_us() - t;
		if (r < 0) {
			bench_error("read jitterentropy_rng", (int)-r);
			goto out;
		}
		append_num(list, sizeof(list), t);
	}
	report_line("{\"type\":\"bench_jent_read\",\"bytes\":32,\"us\":[%s]}", list);

	/* 32 bytes, then four times as many each step, ending at max. */
	for (bytes = 32; ; bytes = bytes * 4 < (size_t)max ? bytes * 4 : (size_t)max) {
		say("bench: jitterentropy_rng, %zu bytes", bytes);
		t = now_us();
		r = read_n(op, buf, bytes);
		t = now_us() - t;
		if (r < 0) {
			bench_error("read jitterentropy_rng", (int)-r);
			goto out;
		}
		report_line("{\"type\":\"bench_jent_size\",\"bytes\":%zu,\"reads\":%ld,"
			    "\"us\":%lld}", bytes, r, t);
		if (bytes >= (size_t)max)
			break;
	}
out:
	close(op);
	close(tfm);
}

static void bench_drbg(void)
{
	long reps = cmdline_long("bench.drbg", 3, 1, 100);
	/* The personalisation string: the same 32 bytes in both kernels. */
	static const unsigned char pers[32] = "literate-drbg bench pers string";
	char list[100 * 12];
	size_t i;
	long k;

	say("bench: instantiating each of the 22 DRBGs %ld times", reps);
	for (i = 0; i < 22; i++) {
		int err = 0;

		list[0] = '\0';
		for (k = 0; k < reps; k++) {
			int tfm = rng_bind(drbg_drivers[i]);
			long long t;

			if (tfm < 0) {
				err = -tfm;
				break;
			}
			t = now_us();
			if (setsockopt(tfm, SOL_ALG, ALG_SET_KEY, pers, sizeof(pers)))
				err = errno;
			t = now_us() - t;
			close(tfm);
			if (err)
				break;
			append_num(list, sizeof(list), t);
		}
		report_line("{\"type\":\"bench_drbg\",\"driver\":\"%s\",\"err\":%d,"
			    "\"us\":[%s]}", drbg_drivers[i], err, list);
	}
}

void run_bench(void)
{
	bench_initcalls();
	bench_crng();
	bench_jitter();
	bench_drbg();
}
