// SPDX-License-Identifier: GPL-2.0-only
/*
 * Isolation of the blocking API from user space: four processes read
 * /dev/random and /dev/urandom as fast as they can while the kernel runs a
 * batch of blocking-API requests (debugfs random_blocking/isolation, part
 * of the blocking API's KUnit test option).  The check asserts that every
 * reader opened its device and read from it (else the "under load" premise
 * is not met, and the check fails saying which reader), that every request
 * completed, and reports the delays and how much the readers read.
 */
#include "checks.h"
#include "report.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef ISO_PATH	/* (a host test builds this file with other paths) */
#define ISO_PATH	"/sys/kernel/debug/random_blocking/isolation"
#define RANDOM_DEV	"/dev/random"
#define URANDOM_DEV	"/dev/urandom"
#endif
#define ISO_READERS	4
#define ISO_REQUESTS	64
#define ISO_OPEN_WAIT_US 5000000LL

/* What each reader tells the parent, in a shared page. */
struct iso_reader {
	volatile int opened;	/* 0: not yet, 1: open, else -errno */
	volatile unsigned long long bytes;
};

static const char *reader_dev(int i)
{
	return i & 1 ? URANDOM_DEV : RANDOM_DEV;
}

static void reader(const char *dev, struct iso_reader *me)
{
	char buf[4096];
	int fd = open(dev, O_RDONLY);
	ssize_t n;

	if (fd < 0) {
		me->opened = -errno;
		_exit(1);
	}
	me->opened = 1;
	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n > 0)
			me->bytes += (unsigned long long)n;
	}
}

/*
 * Why the readers did not load the system (NULL if they did): one could
 * not open its device, or read nothing at all.  Waits up to
 * ISO_OPEN_WAIT_US for every reader to open its device.
 */
static const char *readers_problem(struct iso_reader *r, int after, char *why, size_t n)
{
	long long t0 = now_us();
	int i, waiting = 1;

	while (waiting && now_us() - t0 < ISO_OPEN_WAIT_US) {
		for (i = 0, waiting = 0; i < ISO_READERS; i++)
			waiting |= !r[i].opened;
		if (waiting)
			usleep(10000);
	}
	for (i = 0; i < ISO_READERS; i++) {
		if (r[i].opened < 0)
			snprintf(why, n, "reader %d could not open %s: %s", i, reader_dev(i),
				 strerror(-r[i].opened));
		else if (!r[i].opened)
			snprintf(why, n, "reader %d did not open %s within %lld s", i,
				 reader_dev(i), ISO_OPEN_WAIT_US / 1000000);
		else if (after && !r[i].bytes)
			snprintf(why, n, "reader %d read nothing from %s", i, reader_dev(i));
		else
			continue;
		return why;
	}
	return NULL;
}

static void stop_readers(const pid_t *pid)
{
	int i;

	for (i = 0; i < ISO_READERS; i++) {
		kill(pid[i], SIGKILL);
		waitpid(pid[i], NULL, 0);
	}
}

/* Run the kernel's batch of requests; its result line into res. */
static int trigger_isolation(char *res, size_t n)
{
	int fd = open(ISO_PATH, O_RDWR);
	int got = fd < 0 ? -1 : (int)write(fd, "64", 2);

	if (got == 2)
		got = (int)pread(fd, res, n - 1, 0);
	if (fd >= 0)
		close(fd);
	if (got > 0)
		res[got] = '\0';
	return got;
}

void check_blocking_isolation(void)
{
	struct iso_reader *r;
	unsigned int req = 0, done = 0;
	long long max_us = -1, sync_us = -1, sync = -1;
	char res[256] = "", why[320];
	const char *bad;
	pid_t pid[ISO_READERS];
	int i;

	if (access(ISO_PATH, F_OK)) {
		report_check("guest.blocking.isolation", "fail",
			     "no " ISO_PATH ": the test kernel lacks the blocking API test option",
			     NULL);
		return;
	}
	r = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED) {
		report_check("guest.blocking.isolation", "fail", "mmap failed", NULL);
		return;
	}
	for (i = 0; i < ISO_READERS; i++) {
		pid[i] = fork();
		if (!pid[i])
			reader(reader_dev(i), &r[i]);
	}
	bad = readers_problem(r, 0, why, sizeof(why));
	if (!bad) {
		usleep(200000);
		trigger_isolation(res, sizeof(res));
		bad = readers_problem(r, 1, why, sizeof(why));
	}
	stop_readers(pid);
	sscanf(res, "requests=%u completed=%u max_us=%lld sync=%lld sync_us=%lld",
	       &req, &done, &max_us, &sync, &sync_us);
	if (bad) {
		report_check("guest.blocking.isolation", "fail", bad,
			     "\"readers\":%d", ISO_READERS);
	} else if (req == ISO_REQUESTS && done == req && sync == 4096) {
		report_check("guest.blocking.isolation", "pass", NULL,
			     "\"requests\":%u,\"completed\":%u,\"max_us\":%lld,"
			     "\"sync_bytes\":%lld,\"sync_us\":%lld,\"readers\":%d,"
			     "\"random_bytes_read\":%llu,\"urandom_bytes_read\":%llu",
			     req, done, max_us, sync, sync_us, ISO_READERS,
			     r[0].bytes + r[2].bytes, r[1].bytes + r[3].bytes);
	} else {
		snprintf(why, sizeof(why), "kernel requests did not all complete: %s",
			 res[0] ? res : "no result");
		report_check("guest.blocking.isolation", "fail", why,
			     "\"completed\":%u,\"requests\":%u", done, req);
	}
	munmap((void *)r, 4096);
}
