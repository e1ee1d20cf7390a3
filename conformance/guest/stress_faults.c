// SPDX-License-Identifier: GPL-2.0-only
/*
 * make stress: allocation failure at every point of every path, not one.
 * With /proc/self/fail-nth (the kernel's systematic fault injection), the
 * N-th allocation of one operation fails, for N = 1, 2, ... until the
 * operation needs fewer than N: the slab allocator's (failslab) and, where
 * the kernel has it (CONFIG_FAIL_PAGE_ALLOC), the page allocator's, which
 * vmalloc() also takes its pages from.  The operations: the DRBG test
 * interface's run path for a PR and a non-PR instance of each core type
 * (its output is known from the run without a fault, and a run that
 * recovers from one must give the same bytes), a seeding trace of each
 * (instantiation, reseed, generate with the real sources), and the life
 * of an AF_ALG socket on two DRBGs and the Jitter RNG.  Each point must
 * end in an error returned or in the right result; the boot's kmemleak
 * scan then looks for what a failed path left behind.
 */
#include "report.h"
#include "stress.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/if_alg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef FAULT_NTH	/* (a host test builds this file with other paths) */
#define FAULT_NTH	"/proc/self/fail-nth"
#define FAULT_SLAB	"/sys/kernel/debug/failslab/"
#define FAULT_PAGE	"/sys/kernel/debug/fail_page_alloc/"
#define FAULT_RUN	"/sys/kernel/debug/drbg_cavp/run"
#define FAULT_TRACE	"/sys/kernel/debug/drbg_cavp/trace"
#endif

#define FAULT_MAX	3000	/* points per operation, at most */

static const char *const fault_drivers[] = {
	"drbg_pr_ctr_aes128", "drbg_nopr_ctr_aes128", "drbg_pr_sha256",
	"drbg_nopr_sha256", "drbg_pr_hmac_sha256", "drbg_nopr_hmac_sha256",
};

/* The reply of the run without a fault, which a recovered run must equal. */
static uint8_t reference[16 + 2 * 64];
static int take_reference;

static int set_knob(const char *dir, const char *knob, const char *v)
{
	char path[160];
	int fd, ok;

	snprintf(path, sizeof(path), "%s%s", dir, knob);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return 0;
	ok = write(fd, v, strlen(v)) == (ssize_t)strlen(v);
	close(fd);
	return ok;
}

/* A run request: PR instances with their two entropy inputs, others with
 * a reseed; 64 bytes out of each generate. */
static size_t fault_run_msg(uint8_t *m, const char *driver)
{
	int pr = !strncmp(driver, "drbg_pr_", 8), i;
	uint32_t lens[9] = { 32, 16, 0, pr ? 0 : 32, 0, 0, 0, pr ? 32 : 0, pr ? 32 : 0 };
	size_t total = 116;

	for (i = 0; i < 9; i++)
		total += lens[i];
	memset(m, 0, total);
	memcpy(m, "DCV1", 4);
	put_le32(m + 4, (uint32_t)total);
	put_le32(m + 8, pr ? 2 : 1);
	put_le32(m + 12, 64);
	snprintf((char *)m + 16, 64, "%s", driver);
	for (i = 0; i < 9; i++)
		put_le32(m + 80 + 4 * i, lens[i]);
	for (i = 116; i < (int)total; i++)
		m[i] = (uint8_t)(i * 29 + 1);
	return total;
}

/* Write a message to path and read the reply back; its length or -errno. */
static long exchange(const char *path, const uint8_t *m, size_t n, uint8_t *reply,
		     size_t cap)
{
	int fd = open(path, O_RDWR);
	long r;

	if (fd < 0)
		return -errno;
	r = write(fd, m, n);
	if (r == (long)n)
		r = pread(fd, reply, cap, 0);
	r = r < 0 ? -errno : r;
	close(fd);
	return r;
}

/* The error of a reply, a negative errno (anything else is -EIO). */
static int reply_error(const uint8_t *reply)
{
	int32_t e = (int32_t)get_le32(reply + 4);

	return e < 0 && e > -4096 ? e : -EIO;
}

/* 0: the right result; < 0: an error returned; 1: a wrong result. */
static int op_run(const char *driver)
{
	uint8_t m[512], reply[sizeof(reference)];
	size_t n = fault_run_msg(m, driver);
	long r = exchange(FAULT_RUN, m, n, reply, sizeof(reply));

	if (r < 0)
		return (int)r;
	if (r >= 8 && get_le32(reply + 4))
		return reply_error(reply);
	if (take_reference && r == (long)sizeof(reference))
		memcpy(reference, reply, sizeof(reference));
	return r == (long)sizeof(reference) && !memcmp(reply, reference, sizeof(reply)) ?
		0 : 1;
}

static int op_trace(const char *driver)
{
	uint8_t m[88], reply[4096];
	long r;

	memset(m, 0, sizeof(m));
	memcpy(m, "DCT1", 4);
	put_le32(m + 4, 88);
	put_le32(m + 12, 16);
	snprintf((char *)m + 16, 64, "%s", driver);
	r = exchange(FAULT_TRACE, m, sizeof(m), reply, sizeof(reply));
	if (r < 0)
		return (int)r;
	if (r < 8 || memcmp(reply, "DTR1", 4))
		return 1;
	return get_le32(reply + 4) ? reply_error(reply) : 0;
}

static int op_af_alg(const char *driver)
{
	static const char key[32] = "make stress: allocation failure";
	char buf[64];
	int s = rng_bind(driver), op;
	long r;

	if (s < 0)
		return s;
	if (strncmp(driver, "drbg_", 5) == 0 &&
	    setsockopt(s, SOL_ALG, ALG_SET_KEY, key, sizeof(key))) {
		r = -errno;
		close(s);
		return (int)r;
	}
	op = accept(s, NULL, 0);
	r = op < 0 ? -errno : read(op, buf, sizeof(buf));
	r = r < 0 && op >= 0 ? -errno : r;
	if (op >= 0)
		close(op);
	close(s);
	return r < 0 ? (int)r : r == (long)sizeof(buf) ? 0 : 1;
}

struct fault_op {
	const char *kind;
	int (*fn)(const char *driver);
};

/* Arm fail-nth with nth, run the operation, disarm; *fired: the fault was
 * injected (the counter reached 0).  Returns the operation's result. */
static int one_point(const struct fault_op *op, const char *driver, int nth,
		     int *fired, char *why, size_t wn)
{
	int fd = open(FAULT_NTH, O_RDWR), len, r;
	char v[16];

	*fired = 0;
	if (fd < 0) {
		snprintf(why, wn, "open " FAULT_NTH ": %s", strerror(errno));
		return 1;
	}
	len = snprintf(v, sizeof(v), "%d", nth);
	if (write(fd, v, (size_t)len) != len) {
		snprintf(why, wn, "point %d: writing " FAULT_NTH " failed: %s", nth,
			 strerror(errno));
		close(fd);
		return 1;
	}
	r = op->fn(driver);
	memset(v, 0, sizeof(v));
	if (pread(fd, v, sizeof(v) - 1, 0) < 0)
		v[0] = '?';
	*fired = atoi(v) == 0 && v[0] == '0';
	if (!*fired && write(fd, "0", 1) != 1)
		say("stress: " FAULT_NTH " not disarmed");
	close(fd);
	return r;
}

static void fault_points(const struct fault_op *op, const char *driver)
{
	int nth, fired, r, points = 0, errors = 0, recovered = 0, bad = 0;
	char id[96], why[200] = "";

	take_reference = 1;
	r = op->fn(driver);
	take_reference = 0;
	if (r)
		snprintf(why, sizeof(why), "without a fault: result %d", r);
	for (nth = 1; !why[0] && nth <= FAULT_MAX; nth++) {
		r = one_point(op, driver, nth, &fired, why, sizeof(why));
		if (why[0])
			break;
		if (!fired) {
			if (r)
				snprintf(why, sizeof(why), "no fault left at point %d, but result %d",
					 nth, r);
			break;
		}
		points++;
		if (r < 0)
			errors++;
		else if (!r)
			recovered++;
		else if (!bad++)
			snprintf(why, sizeof(why), "point %d: a wrong result, no error", nth);
	}
	if (nth > FAULT_MAX && !why[0])
		snprintf(why, sizeof(why), "more than %d points", FAULT_MAX);
	snprintf(id, sizeof(id), "guest.stress.faults.%s.%s", op->kind, driver);
	report_check(id, why[0] ? "fail" : "pass", why[0] ? why : NULL,
		     "\"points\":%d,\"errors\":%d,\"recovered\":%d", points, errors,
		     recovered);
}

void check_stress_faults(void)
{
	static const struct fault_op ops[] = {
		{ "run", op_run }, { "trace", op_trace }, { "af-alg", op_af_alg },
	};
	static const char *const alg[] = {
		"drbg_nopr_hmac_sha256", "drbg_pr_ctr_aes128", "jitterentropy_rng",
	};
	int page, i, j, n = 0;

	if (access(FAULT_NTH, F_OK) || !set_knob(FAULT_SLAB, "ignore-gfp-wait", "N")) {
		report_check("guest.stress.faults", "skip", "no fault injection in this "
			     "kernel (the debug kernel has it)", NULL);
		return;
	}
	set_knob(FAULT_SLAB, "verbose", "0");
	page = set_knob(FAULT_PAGE, "ignore-gfp-wait", "N") &&
	       set_knob(FAULT_PAGE, "min-order", "0");
	set_knob(FAULT_PAGE, "verbose", "0");
	for (i = 0; i < 2; i++) {
		for (j = 0; j < (int)(sizeof(fault_drivers) / sizeof(*fault_drivers)); j++) {
			fault_points(&ops[i], fault_drivers[j]);
			n++;
		}
	}
	for (j = 0; j < 3; j++, n++)
		fault_points(&ops[2], alg[j]);
	report_check("guest.stress.faults", "pass", NULL,
		     "\"operations\":%d,\"failslab\":1,\"fail_page_alloc\":%d",
		     n, page);
	set_knob(FAULT_SLAB, "ignore-gfp-wait", "Y");
	set_knob(FAULT_PAGE, "ignore-gfp-wait", "Y");
	set_knob(FAULT_PAGE, "min-order", "1");
}
