// SPDX-License-Identifier: GPL-2.0-only
/*
 * Boot mode "sockets": a thousand AF_ALG DRBG sockets, each instantiated
 * (setsockopt ALG_SET_KEY, which an unprivileged user may do) while the
 * CRNG is not ready, so that every instance is partially seeded and waits
 * for the asynchronous reseed.  Then the latency of system_long_wq, the
 * workqueue of the blocking random API, is measured on every CPU through
 * debugfs random_blocking/long_wq_latency: other users of that workqueue
 * must still run.  Then the CRNG is made ready (a blocking getrandom())
 * and every socket must generate.  Times are reported; the bounds are
 * generous (10 s for a work item to start, where a working kernel takes
 * milliseconds and a parked workqueue never starts it).
 */
#include "checks.h"
#include "report.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/if_alg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef SOL_ALG
#define SOL_ALG 279
#endif

#define SOCK_ID		"guest.drbg.partial_sockets"
#define SOCK_N		1000
#define SOCK_DRIVER	"drbg_nopr_hmac_sha256"
#define LAT_PATH	"/sys/kernel/debug/random_blocking/long_wq_latency"
#define LAT_BOUND_US	10000000LL

struct latency {
	unsigned int cpus, ran;
	long long max_us;
};

static int read_latency(struct latency *l)
{
	char line[128];

	memset(l, 0, sizeof(*l));
	l->max_us = -1;
	if (read_file(LAT_PATH, line, sizeof(line)) <= 0)
		return -1;
	return sscanf(line, "cpus=%u ran=%u max_us=%lld", &l->cpus, &l->ran,
		      &l->max_us) == 3 ? 0 : -1;
}

/* Bind and instantiate one socket; its fd, or -errno. */
static int open_instance(int i)
{
	unsigned char seed[16];
	int fd = rng_bind(SOCK_DRIVER);

	if (fd < 0)
		return fd;
	memset(seed, i & 0xff, sizeof(seed));
	if (setsockopt(fd, SOL_ALG, ALG_SET_KEY, seed, sizeof(seed))) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

/* One generate through an accepted socket; 0 or -errno. */
static int generate(int fd)
{
	unsigned char out[16];
	int op = accept(fd, NULL, NULL), r = 0;

	if (op < 0)
		return -errno;
	if (read(op, out, sizeof(out)) != (ssize_t)sizeof(out))
		r = errno ? -errno : -EIO;
	close(op);
	return r;
}

static int open_all(int *fd, int *failed, int *first_err)
{
	int i, opened = 0;

	for (i = 0; i < SOCK_N; i++) {
		fd[i] = open_instance(i);
		if (fd[i] >= 0) {
			opened++;
		} else {
			if (!(*failed)++)
				*first_err = fd[i];
		}
	}
	return opened;
}

static void report(int opened, int failed, int gen_failed, const struct latency *l,
		   long long open_ms, long long ready_ms, long long gen_ms, int err)
{
	char why[256] = "";

	if (opened != SOCK_N)
		snprintf(why, sizeof(why), "%d of %d sockets could not be instantiated "
			 "(first error %d)", failed, SOCK_N, err);
	else if (l->ran != l->cpus || !l->cpus || l->max_us > LAT_BOUND_US)
		snprintf(why, sizeof(why), "system_long_wq starved: %u of %u probes ran, "
			 "longest wait %lld us", l->ran, l->cpus, l->max_us);
	else if (gen_failed)
		snprintf(why, sizeof(why), "%d sockets failed to generate", gen_failed);
	report_check(SOCK_ID, why[0] ? "fail" : "pass", why[0] ? why : NULL,
		     "\"sockets\":%d,\"open_ms\":%lld,\"long_wq_cpus\":%u,"
		     "\"long_wq_ran\":%u,\"long_wq_max_us\":%lld,"
		     "\"crng_ready_ms\":%lld,\"generate_ms\":%lld",
		     opened, open_ms, l->cpus, l->ran, l->max_us, ready_ms, gen_ms);
}

void check_partial_sockets(void)
{
	struct rlimit rl = { SOCK_N + 64, SOCK_N + 64 };
	int *fd, i, opened, failed = 0, gen_failed = 0, err = 0;
	long long t0, t_open, t_ready;
	struct latency l;
	char b;

	if (crng_ready_now()) {
		report_check(SOCK_ID, "skip", "the CRNG was ready at /init: no instance "
			     "would be partially seeded", NULL);
		return;
	}
	if (access(LAT_PATH, F_OK)) {
		report_check(SOCK_ID, "fail", "no " LAT_PATH ": the kernel lacks the "
			     "blocking API's test option", NULL);
		return;
	}
	fd = calloc(SOCK_N, sizeof(*fd));
	if (!fd || setrlimit(RLIMIT_NOFILE, &rl)) {
		report_check(SOCK_ID, "fail", "calloc or setrlimit failed", NULL);
		free(fd);
		return;
	}
	t0 = now_us();
	opened = open_all(fd, &failed, &err);
	t_open = now_us();
	say("sockets: %d DRBG instances in %lld ms, CRNG %s", opened,
	    (t_open - t0) / 1000, crng_ready_now() ? "ready" : "not ready");
	if (crng_ready_now()) {
		report_check(SOCK_ID, "skip", "the CRNG became ready while the sockets "
			     "were opened: the instances did not all wait", NULL);
		goto out;
	}
	read_latency(&l);
	if (getrandom(&b, 1, 0) != 1)
		err = -errno;
	t_ready = now_us();
	for (i = 0; i < SOCK_N; i++)
		if (fd[i] >= 0 && generate(fd[i]))
			gen_failed++;
	report(opened, failed, gen_failed, &l, (t_open - t0) / 1000,
	       (t_ready - t_open) / 1000, (now_us() - t_ready) / 1000, err);
out:
	for (i = 0; i < SOCK_N; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	free(fd);
}
