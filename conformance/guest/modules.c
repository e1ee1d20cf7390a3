// SPDX-License-Identifier: GPL-2.0-only
/*
 * Boot mode "modules" (the modules kernel variant): load the modules the
 * host packed into /lib/modules in the order of /lib/modules/order, with
 * finit_module(), then check that the Jitter RNG registered from its
 * module, produces output, and seeds a DRBG that is itself a module.
 *
 * Then the DRBG module's life cycle with asynchronous reseeds in flight:
 * in a loop, DRBG instances are created through AF_ALG (partially seeded
 * while the CRNG is not ready, so that the DRBG's one asynchronous request
 * waits), freed, and the module is removed and loaded again.  Midway a
 * child process makes the CRNG ready while the parent frees instances and
 * removes the module, so that the request's callback runs against both.
 * Every removal and load must succeed, and the kernel log must stay clean
 * (the boot's kernel-log check).  The Jitter RNG's record file must work
 * before the rounds and after them, when they removed and loaded the
 * Jitter RNG too, and so must its raw noise interface
 * (guest.modules.jitter-record).
 */
#include "checks.h"
#include "report.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/if_alg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SOL_ALG
#define SOL_ALG 279
#endif

#define LOOP_ROUNDS	40
#define LOOP_SOCKETS	4
#define JITTER_RECORD	"/sys/kernel/debug/jitterentropy_rng/record"
#define JITTER_RAW_INFO	"/sys/kernel/debug/jitterentropy_testing/raw_noise_info"

static int load(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	r = (int)syscall(SYS_finit_module, fd, "", 0);
	r = r ? -errno : 0;
	close(fd);
	return r;
}

/* Open, instantiate and close n DRBG sockets; how many worked. */
static int drbg_sockets(int n)
{
	unsigned char seed[16] = { 1 }, out[16];
	int i, ok = 0;

	for (i = 0; i < n; i++) {
		int fd = rng_bind("drbg_nopr_hmac_sha256"), op;

		if (fd < 0)
			continue;
		if (!setsockopt(fd, SOL_ALG, ALG_SET_KEY, seed, sizeof(seed))) {
			op = accept(fd, NULL, NULL);
			if (op >= 0) {
				ok += read(op, out, sizeof(out)) == (ssize_t)sizeof(out);
				close(op);
			}
		}
		close(fd);
	}
	return ok;
}

/* A child that makes the CRNG ready (a blocking getrandom()). */
static pid_t crng_maker(void)
{
	pid_t pid = fork();
	char b;

	if (!pid)
		_exit(getrandom(&b, 1, 0) == 1 ? 0 : 1);
	return pid;
}

/* Remove the Jitter RNG and load it again (the DRBG is out); 0 or -errno. */
static int cycle_jitter(int round, char *why, size_t n)
{
	int r;

	if (syscall(SYS_delete_module, "jitterentropy_rng", O_NONBLOCK)) {
		r = -errno;
		snprintf(why, n, "round %d: delete_module(jitterentropy_rng): %s", round,
			 strerror(errno));
		return r;
	}
	r = load("/lib/modules/jitterentropy_rng.ko");
	if (r)
		snprintf(why, n, "round %d: finit_module(jitterentropy_rng.ko): %s", round,
			 strerror(-r));
	return r;
}

/*
 * The rounds: conform.modules_rounds= (make stress), LOOP_ROUNDS by
 * default, stopped at conform.modules_seconds= if given; with
 * conform.modules_jitter=1 the Jitter RNG is removed and
 * loaded again too, between the DRBG's removal and its load (its KUnit
 * module, which holds it, is removed first).
 */
static void check_rmmod_loop(void)
{
	char v[16];
	int rounds = cmdline_value("conform.modules_rounds", v, sizeof(v)) ? atoi(v) :
		LOOP_ROUNDS;
	int jitter = cmdline_value("conform.modules_jitter", v, sizeof(v)) && atoi(v);
	long long bound = cmdline_value("conform.modules_seconds", v, sizeof(v)) ?
		atoll(v) * 1000000LL : 0;
	int round, unloaded = 0, reloaded = 0, generated = 0, jcycles = 0, r;
	int crng_round = crng_ready_now() ? -1 : rounds / 2;
	long long t0 = now_us();
	char why[256] = "";
	pid_t child = -1;

	if (jitter)
		syscall(SYS_delete_module, "jitterentropy_kunit", O_NONBLOCK);
	for (round = 0; round < rounds && !why[0]; round++) {
		if (bound && now_us() - t0 > bound) {
			snprintf(why, sizeof(why), "the time bound was reached after %d of %d "
				 "rounds", round, rounds);
			break;
		}
		if (round == crng_round)
			child = crng_maker();
		generated += drbg_sockets(LOOP_SOCKETS);
		if (syscall(SYS_delete_module, "drbg", O_NONBLOCK)) {
			snprintf(why, sizeof(why), "round %d: delete_module(drbg): %s",
				 round, strerror(errno));
			break;
		}
		unloaded++;
		if (jitter && cycle_jitter(round, why, sizeof(why)))
			break;
		jcycles += jitter;
		r = load("/lib/modules/drbg.ko");
		if (r) {
			snprintf(why, sizeof(why), "round %d: finit_module(drbg.ko): %s",
				 round, strerror(-r));
			break;
		}
		reloaded++;
	}
	if (child > 0)
		waitpid(child, NULL, 0);
	report_check("guest.modules.rmmod_loop", why[0] ? "fail" : "pass",
		     why[0] ? why : NULL,
		     "\"rounds\":%d,\"unloaded\":%d,\"reloaded\":%d,\"jitter_cycles\":%d,"
		     "\"sockets_generated\":%d,\"crng_ready_in_round\":%d,\"ms\":%lld",
		     round, unloaded, reloaded, jcycles, generated, crng_round,
		     (now_us() - t0) / 1000);
}

/* One record of 32 bytes through the Jitter RNG's record file: 1 if whole. */
static int jitter_record(void)
{
	char head[64];
	unsigned int bytes = 0;
	int fd = open(JITTER_RECORD, O_RDWR), result = -1;
	ssize_t n;

	if (fd < 0)
		return 0;
	if (write(fd, "32", 2) == 2) {
		lseek(fd, 0, SEEK_SET);
		n = read(fd, head, sizeof(head) - 1);
		head[n > 0 ? n : 0] = '\0';
		if (sscanf(head, "bytes %u\nresult %d\n", &bytes, &result) != 2)
			result = -1;
	}
	close(fd);
	return bytes == 32 && !result;
}

/* The raw noise interface's info file opens and reads (empty before a
 * collection): 1 if so. */
static int jitter_raw_info(void)
{
	char info[512];
	int fd = open(JITTER_RAW_INFO, O_RDONLY), ok;

	if (fd < 0)
		return 0;
	ok = read(fd, info, sizeof(info)) >= 0;
	close(fd);
	return ok;
}

/*
 * The Jitter RNG's debugfs files before and after the rounds: with
 * conform.modules_jitter=1 the module was removed with a record in it and
 * loaded again, and its two debugfs directories (the record's and the raw
 * noise interface's) must have gone with it and come back (a file left
 * behind would point into the removed module).
 */
static void check_jitter_record_reloaded(int before)
{
	int after = jitter_record() && jitter_raw_info();

	report_check("guest.modules.jitter-record", before && after ? "pass" : "fail",
		     !before ? "no record or raw noise info before the rounds" :
		     !after ? "no record or raw noise info after the rounds (a debugfs file "
			      "did not come back)" :
		     NULL, "\"before\":%d,\"after\":%d", before, after);
}

void check_modules(void)
{
	char order[4096], path[512], why[512] = "", *line, *save = NULL;
	int loaded = 0, failed = 0, recorded;

	if (read_file("/lib/modules/order", order, sizeof(order)) <= 0) {
		report_check("guest.modules.load", "fail", "no /lib/modules/order", NULL);
		return;
	}
	for (line = strtok_r(order, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int r;

		snprintf(path, sizeof(path), "/lib/modules/%s", line);
		r = load(path);
		if (!r || r == -EEXIST) {
			loaded++;
			continue;
		}
		if (!failed++)
			snprintf(why, sizeof(why), "%s: finit_module: %s", line, strerror(-r));
	}
	if (failed)
		report_check("guest.modules.load", "fail", why,
			     "\"loaded\":%d,\"failed\":%d", loaded, failed);
	else
		report_check("guest.modules.load", "pass", NULL, "\"loaded\":%d", loaded);
	check_proc_crypto();
	check_jitter();
	recorded = jitter_record() && jitter_raw_info();
	check_rmmod_loop();
	check_jitter_record_reloaded(recorded);
}
