// SPDX-License-Identifier: GPL-2.0-only
/*
 * Isolation of the blocking API from user space: four processes read
 * /dev/random and /dev/urandom as fast as they can while the kernel runs a
 * batch of blocking-API requests (debugfs random_blocking/isolation, part
 * of the blocking API's KUnit test option).  The check asserts that every
 * request completed, and reports the delays and how much the readers read.
 */
#include "checks.h"
#include "report.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define ISO_PATH	"/sys/kernel/debug/random_blocking/isolation"
#define ISO_READERS	4
#define ISO_REQUESTS	64

static void reader(const char *dev, volatile unsigned long long *count)
{
	char buf[4096];
	int fd = open(dev, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		_exit(1);
	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n > 0)
			*count += (unsigned long long)n;
	}
}

void check_blocking_isolation(void)
{
	volatile unsigned long long *counts;
	unsigned int req = 0, done = 0;
	long long max_us = -1, sync_us = -1, sync = -1;
	char res[256] = "", why[320];
	pid_t pid[ISO_READERS];
	int fd, i, n;

	if (access(ISO_PATH, F_OK)) {
		report_check("guest.blocking.isolation", "fail",
			     "no " ISO_PATH ": the test kernel lacks the blocking API test option",
			     NULL);
		return;
	}
	counts = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		      -1, 0);
	if (counts == MAP_FAILED) {
		report_check("guest.blocking.isolation", "fail", "mmap failed", NULL);
		return;
	}
	for (i = 0; i < ISO_READERS; i++) {
		pid[i] = fork();
		if (!pid[i])
			reader(i & 1 ? "/dev/urandom" : "/dev/random", &counts[i]);
	}
	usleep(200000);
	fd = open(ISO_PATH, O_RDWR);
	n = fd < 0 ? -1 : (int)write(fd, "64", 2);
	if (n == 2)
		n = (int)pread(fd, res, sizeof(res) - 1, 0);
	if (fd >= 0)
		close(fd);
	for (i = 0; i < ISO_READERS; i++) {
		kill(pid[i], SIGKILL);
		waitpid(pid[i], NULL, 0);
	}
	if (n > 0)
		res[n] = '\0';
	sscanf(res, "requests=%u completed=%u max_us=%lld sync=%lld sync_us=%lld",
	       &req, &done, &max_us, &sync, &sync_us);
	if (req == ISO_REQUESTS && done == req && sync == 4096) {
		report_check("guest.blocking.isolation", "pass", NULL,
			     "\"requests\":%u,\"completed\":%u,\"max_us\":%lld,"
			     "\"sync_bytes\":%lld,\"sync_us\":%lld,\"readers\":%d,"
			     "\"random_bytes_read\":%llu,\"urandom_bytes_read\":%llu",
			     req, done, max_us, sync, sync_us, ISO_READERS,
			     counts[0] + counts[2], counts[1] + counts[3]);
	} else {
		snprintf(why, sizeof(why), "kernel requests did not all complete: %s",
			 res[0] ? res : "no result");
		report_check("guest.blocking.isolation", "fail", why,
			     "\"completed\":%u,\"requests\":%u", done, req);
	}
	munmap((void *)counts, 4096);
}
