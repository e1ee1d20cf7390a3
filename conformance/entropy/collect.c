// SPDX-License-Identifier: GPL-2.0-only
/*
 * Records the raw samples of one noise source in user space:
 *
 *   collect SEQ RESTARTS LEN OUTDIR [fixed]
 *
 * SEQ consecutive raw samples of one collector (OUTDIR/deltas.bin), then
 * RESTARTS restarts of LEN samples each (OUTDIR/restart-deltas.bin, row
 * after row): each restart runs the source's start-up test and reads from
 * a new collector, as SP 800-90B 3.1.4 asks.  Samples are the full 64-bit
 * time deltas, little-endian.  "fixed" records with the loop shuffle
 * off, as the kernel's raw noise interface does when its loop_shuffle is
 * N (our design only; the source's host asks collect_fixed_loops()).
 * One line of JSON on stdout says what was
 * done: blocks read, failed reads, CPU and wall time.  Exit status 2 on
 * bad arguments or a failed start-up test, 3 on a permanent failure.
 */
#include "collect.h"
#include "zalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BLOCK 32	/* one output block per read, as the kernel's callers read */

static unsigned long long *rec;
static size_t rec_have, rec_want;
static int recording, fixed_loops;

void collect_sample(unsigned long long delta)
{
	if (recording && rec_have < rec_want)
		rec[rec_have++] = delta;
}

int collect_fixed_loops(void)
{
	return recording && fixed_loops;
}

unsigned long long collect_clock(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
#endif
}

const char *collect_clock_name(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return "rdtsc";
#else
	return "clock_monotonic_ns";
#endif
}

static double seconds(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct tally {
	unsigned long blocks, intermittent;
	double cpu, wall;
};

/* Read blocks from ec until want samples are recorded into out. */
static int record(void *ec, unsigned long long *out, size_t want, struct tally *t)
{
	unsigned char buf[BLOCK];
	int ret;

	rec = out;
	rec_have = 0;
	rec_want = want;
	recording = 1;
	while (rec_have < rec_want) {
		ret = source_read(ec, buf, sizeof(buf));
		t->blocks++;
		if (ret == -2) {
			t->intermittent++;
		} else if (ret) {
			recording = 0;
			return ret;
		}
	}
	recording = 0;
	return 0;
}

static void write_all(const char *dir, const char *name,
		      const unsigned long long *v, size_t n)
{
	char path[4096];
	unsigned char le[8];
	size_t i;
	int k;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f) {
		fprintf(stderr, "collect: %s: cannot write: %s\n", path, strerror(errno));
		exit(2);
	}
	for (i = 0; i < n; i++) {
		for (k = 0; k < 8; k++)
			le[k] = (unsigned char)(v[i] >> (8 * k));
		fwrite(le, 1, 8, f);
	}
	if (fclose(f)) {
		fprintf(stderr, "collect: %s: cannot write: %s\n", path, strerror(errno));
		exit(2);
	}
}

/*
 * A collector starts as the kernel's module does, with its start-up test.
 * A failure is counted and the test run again, as a later load of the
 * module would run it; STARTUP_TRIES failures in a row end the collection.
 * The count is reported: a core whose start-up test fails on the samples
 * of a working timer is a finding (make entropy judges ours and reports
 * 6.1's).
 */
#define STARTUP_TRIES	3

static unsigned long startup_failures;

static void *new_collector(void)
{
	void *ec;
	int ret, tries = 0;

	while ((ret = source_startup())) {
		startup_failures++;
		if (++tries == STARTUP_TRIES) {
			fprintf(stderr, "collect: %s: the start-up test failed %d times in "
				"a row (last with %d)\n", source_name, tries, ret);
			exit(2);
		}
	}
	ec = source_alloc();
	if (!ec) {
		fprintf(stderr, "collect: %s: no collector\n", source_name);
		exit(2);
	}
	return ec;
}

static void timed(struct tally *t, int start)
{
	if (start) {
		t->cpu = -seconds(CLOCK_PROCESS_CPUTIME_ID);
		t->wall = -seconds(CLOCK_MONOTONIC);
	} else {
		t->cpu += seconds(CLOCK_PROCESS_CPUTIME_ID);
		t->wall += seconds(CLOCK_MONOTONIC);
	}
}

static void fail_read(int ret, const char *what)
{
	fprintf(stderr, "collect: %s: a read of the %s failed with %d\n",
		source_name, what, ret);
	exit(3);
}

int main(int argc, char **argv)
{
	struct tally seq = { 0 }, rs = { 0 };
	unsigned long long *v;
	unsigned long n, r, len, i;
	void *ec;
	int ret;

	if (argc < 5 || argc > 6 || !(n = strtoul(argv[1], NULL, 10)) ||
	    !(len = strtoul(argv[3], NULL, 10)) ||
	    (argc == 6 && strcmp(argv[5], "fixed"))) {
		fprintf(stderr, "usage: collect SEQ RESTARTS LEN OUTDIR [fixed]\n");
		return 2;
	}
	fixed_loops = argc == 6;
	r = strtoul(argv[2], NULL, 10);
	v = malloc(sizeof(*v) * (n > r * len ? n : r * len));
	if (!v)
		return 2;
	ec = new_collector();
	timed(&seq, 1);
	ret = record(ec, v, n, &seq);
	timed(&seq, 0);
	source_free(ec);
	if (ret)
		fail_read(ret, "sequential run");
	write_all(argv[4], "deltas.bin", v, n);
	timed(&rs, 1);
	for (i = 0; i < r; i++) {
		ec = new_collector();
		ret = record(ec, v + i * len, len, &rs);
		source_free(ec);
		if (ret)
			fail_read(ret, "restarts");
	}
	timed(&rs, 0);
	write_all(argv[4], "restart-deltas.bin", v, r * len);
	printf("{\"source\":\"%s\",\"clock\":\"%s\",\"fixed_loops\":%d,"
	       "\"startup_failures\":%lu,\"seq\":{\"samples\":%lu,"
	       "\"blocks\":%lu,\"intermittent\":%lu,\"cpu_s\":%.6f,\"wall_s\":%.6f},"
	       "\"restart\":{\"restarts\":%lu,\"len\":%lu,\"blocks\":%lu,"
	       "\"intermittent\":%lu,\"cpu_s\":%.6f,\"wall_s\":%.6f}}\n",
	       source_name, collect_clock_name(), fixed_loops, startup_failures, n, seq.blocks,
	       seq.intermittent,
	       seq.cpu, seq.wall, r, len, rs.blocks, rs.intermittent, rs.cpu, rs.wall);
	free(v);
	return 0;
}

/* Both cores' allocator, as the kernel's jent_zalloc() and jent_zfree(). */
void *jent_zalloc(unsigned int len)
{
	return host_zalloc(len);
}

void jent_zfree(void *ptr)
{
	host_zfree(ptr);
}
