// SPDX-License-Identifier: GPL-2.0-only
/*
 * make stress: the blocking API through random_blocking/stress (chapter
 * "The blocking API"), and the races with the CRNG not yet ready: before
 * the seeded calls of stress.c, while the CRNG is not ready (the stress
 * boot makes it so), runs of the blocking API are made while a child
 * process credits entropy with RNDADDENTROPY at a seeded moment, so that
 * requests are pending, and cancelled, while the CRNG becomes ready.
 */
#include "report.h"
#include "stress.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/random.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef STRESS_BLK	/* (a host test builds this file with other paths) */
#define STRESS_BLK	"/sys/kernel/debug/random_blocking/stress"
#endif

/*
 * One write to random_blocking/stress: ops operations of the blocking API
 * from the kernel's generator seeded with seed.  The result line's counts
 * go to *res; its errors must be 0.  Returns the write's result.
 */
long blocking_run(uint64_t seed, int ops, struct blk_result *res)
{
	char cmd[48], line[512], *p;
	int fd = open(STRESS_BLK, O_RDWR), len;
	long r;

	memset(res, 0, sizeof(*res));
	res->errors = -1;
	if (fd < 0)
		return -errno;
	len = snprintf(cmd, sizeof(cmd), "%llu %d", (unsigned long long)seed, ops);
	r = write(fd, cmd, (size_t)len);
	r = r < 0 ? -errno : r == len ? 0 : -EIO;
	lseek(fd, 0, SEEK_SET);
	memset(line, 0, sizeof(line));
	if (!r && read(fd, line, sizeof(line) - 1) > 0 && (p = strstr(line, "ops=")))
		sscanf(p, "ops=%*u queued=%u busy=%*u cancels=%u cancel_syncs=%u "
		       "syncs=%u sync_skipped=%*u pauses=%*u callbacks=%u errors=%d "
		       "ready_at_start=%d ready_at_end=%d", &res->queued, &res->cancels,
		       &res->cancel_syncs, &res->syncs, &res->callbacks, &res->errors,
		       &res->ready_at_start, &res->ready_at_end);
	close(fd);
	return r;
}

/* RNDADDENTROPY of 256 bits credited: what makes the CRNG ready at once. */
static int add_entropy(uint64_t x)
{
	struct {
		int entropy_count, buf_size;
		uint32_t buf[8];
	} e = { 256, 32, { 0 } };
	int i, fd = open("/dev/random", O_WRONLY), r;

	for (i = 0; i < 8; i++)
		e.buf[i] = (uint32_t)stress_next(&x);
	if (fd < 0)
		return -errno;
	r = ioctl(fd, RNDADDENTROPY, &e) ? -errno : 0;
	close(fd);
	return r;
}

/* Blocking-API runs while the CRNG becomes ready under them. */
void check_unready(uint64_t seed)
{
	uint64_t x = (seed ? seed : 1) ^ 0x756e7265616479ULL;
	int delay_ms = 200 + (int)(stress_next(&x) % 1000), writes = 0, before = 0;
	int spanning = 0, st = 0;
	struct blk_result res;
	char why[200] = "";
	pid_t child;

	if (crng_ready_now()) {
		report_check("guest.stress.unready", "skip", "the CRNG was ready at /init",
			     NULL);
		return;
	}
	child = fork();
	if (!child) {
		usleep((useconds_t)delay_ms * 1000);
		_exit(add_entropy(x) ? 1 : 0);
	}
	while (writes < 400 && !why[0]) {
		long r = blocking_run(stress_next(&x), 64, &res);

		writes++;
		if (r || res.errors)
			snprintf(why, sizeof(why), "write %d: result %ld, errors %d", writes,
				 r, res.errors);
		before += !res.ready_at_start;
		spanning += !res.ready_at_start && res.ready_at_end;
		if (res.ready_at_start)
			break;
	}
	if (child > 0)
		waitpid(child, &st, 0);
	if (!why[0] && (child < 0 || !WIFEXITED(st) || WEXITSTATUS(st)))
		snprintf(why, sizeof(why), "RNDADDENTROPY failed");
	if (!why[0] && !spanning)
		snprintf(why, sizeof(why), "no run had requests pending while the CRNG "
			 "became ready (%d runs before)", before);
	report_check("guest.stress.unready", why[0] ? "fail" : "pass", why[0] ? why : NULL,
		     "\"runs\":%d,\"runs_before_ready\":%d,\"runs_across_ready\":%d,"
		     "\"entropy_after_ms\":%d,\"ops_per_run\":64", writes, before, spanning,
		     delay_ms);
}

long meminfo_kib(const char *key)
{
	char buf[8192], *p;
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);

	if (fd >= 0) {
		if (write(fd, "3", 1) != 1)
			say("stress: drop_caches failed");
		close(fd);
	}
	if (read_file("/proc/meminfo", buf, sizeof(buf)) < 0 || !(p = strstr(buf, key)))
		return -1;
	return strtol(p + strlen(key), NULL, 10);
}
