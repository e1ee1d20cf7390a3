// SPDX-License-Identifier: GPL-2.0-only
/*
 * The Jitter RNG from user space (chapter "The CPU Jitter RNG in the
 * kernel").  In the main boot: through AF_ALG ("rng", "jitterentropy_rng")
 * it produces output, two reads differ, two instances differ; and the
 * kernel log says whether its start-up test passed on this machine, with
 * what figures.  Under TCG the timer is emulated, so the figures describe
 * QEMU, not a CPU.  In the boots that use the test hooks: the RNG is absent
 * after a failed start-up test, and a hooked read fails as the book says.
 */
#include "checks.h"
#include "report.h"
#include "util.h"

#include <errno.h>
#include <linux/if_alg.h>
#include <stdio.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/socket.h>
#include <unistd.h>

#define JENT_LEN 64

/* An operation socket on a new instance of jitterentropy_rng, or -errno. */
static int jent_open(void)
{
	int tfm = rng_bind("jitterentropy_rng"), op;

	if (tfm < 0)
		return tfm;
	op = accept(tfm, NULL, 0);
	if (op < 0)
		op = -errno;
	close(tfm);
	return op;
}

static int jent_read(int op, unsigned char *buf)
{
	ssize_t n = read(op, buf, JENT_LEN);

	return n == JENT_LEN ? 0 : n < 0 ? -errno : -EIO;
}

static int all_zero(const unsigned char *b, size_t n)
{
	while (n--)
		if (*b++)
			return 0;
	return 1;
}

/* The start-up line of the kernel log, JSON-escaped into esc, or NULL. */
static const char *startup_line(char *esc, size_t n)
{
	static char log[1 << 20];
	char *p, *nl;
	int len = klogctl(3, log, sizeof(log) - 1);	/* SYSLOG_ACTION_READ_ALL */

	if (len < 0)
		return NULL;
	log[len] = '\0';
	p = strstr(log, "jitterentropy: start-up test ");
	if (!p)
		return NULL;
	nl = strchr(p, '\n');
	if (nl)
		*nl = '\0';
	json_escape(esc, n, p);
	return p;
}

static void check_startup_line(void)
{
	char sig[13], esc[1024];
	const char *timer, *p;

	hypervisor_signature(sig);
	timer = !strncmp(sig, "TCG", 3) ?
		"emulated (QEMU TCG): figures describe the emulator, not evidence" :
		!strncmp(sig, "KVM", 3) ? "virtualised (KVM)" : "unknown";
	p = startup_line(esc, sizeof(esc));
	if (!p) {
		report_check("guest.jitter.startup", "fail",
			     "no start-up line from jitterentropy in the kernel log",
			     "\"timer\":\"%s\"", timer);
		return;
	}
	if (!strncmp(p, "jitterentropy: start-up test passed", 35))
		report_check("guest.jitter.startup", "pass", NULL,
			     "\"line\":\"%s\",\"timer\":\"%s\",\"hypervisor\":\"%s\"",
			     esc, timer, sig);
	else
		report_check("guest.jitter.startup", "fail", "the start-up test failed",
			     "\"line\":\"%s\",\"timer\":\"%s\",\"hypervisor\":\"%s\"",
			     esc, timer, sig);
}

void check_jitter(void)
{
	unsigned char a[JENT_LEN], b[JENT_LEN], c[JENT_LEN];
	int op1, op2, r;
	long long t0;

	check_startup_line();

	op1 = jent_open();
	if (op1 < 0) {
		report_check("guest.jitter.output", "fail", "cannot open jitterentropy_rng via AF_ALG",
			     "\"errno\":%d", -op1);
		report_check("guest.jitter.reads_differ", "skip", "no instance", NULL);
		report_check("guest.jitter.instances_differ", "skip", "no instance", NULL);
		return;
	}
	memset(a, 0, sizeof(a));
	t0 = now_us();
	r = jent_read(op1, a);
	if (r || all_zero(a, sizeof(a)))
		report_check("guest.jitter.output", "fail",
			     r ? "read failed" : "64 zero bytes", "\"errno\":%d", -r);
	else
		report_check("guest.jitter.output", "pass", NULL,
			     "\"bytes\":%d,\"us\":%lld", JENT_LEN, now_us() - t0);

	r = jent_read(op1, b);
	if (r)
		report_check("guest.jitter.reads_differ", "fail", "second read failed",
			     "\"errno\":%d", -r);
	else if (!memcmp(a, b, sizeof(a)))
		report_check("guest.jitter.reads_differ", "fail", "two reads gave the same bytes",
			     NULL);
	else
		report_check("guest.jitter.reads_differ", "pass", NULL, "\"bytes\":%d", JENT_LEN);

	op2 = jent_open();
	r = op2 < 0 ? op2 : jent_read(op2, c);
	if (r)
		report_check("guest.jitter.instances_differ", "fail",
			     "second instance unusable", "\"errno\":%d", -r);
	else if (!memcmp(a, c, sizeof(a)) || !memcmp(b, c, sizeof(b)))
		report_check("guest.jitter.instances_differ", "fail",
			     "two instances gave the same bytes", NULL);
	else
		report_check("guest.jitter.instances_differ", "pass", NULL,
			     "\"bytes\":%d", JENT_LEN);
	if (op2 >= 0)
		close(op2);
	close(op1);
}

/* Boot jitter-absent: the start-up test was made to fail (no fips=1). */
void check_jitter_absent(void)
{
	static char proc[262144];
	char esc[1024];
	const char *line = startup_line(esc, sizeof(esc));
	int op = jent_open();
	int listed;

	read_file("/proc/crypto", proc, sizeof(proc));
	listed = strstr(proc, "\ndriver       : jitterentropy_rng\n") != NULL;
	if (op >= 0)
		close(op);
	if (!listed && op == -ENOENT && line &&
	    strstr(line, "start-up test failed (2)"))
		report_check("guest.jitter.absent", "pass", NULL,
			     "\"line\":\"%s\",\"af_alg_errno\":%d", esc, -op);
	else
		report_check("guest.jitter.absent", "fail",
			     "the RNG should be absent after a failed start-up test (code 2)",
			     "\"in_proc_crypto\":%s,\"af_alg\":%d,\"line\":\"%s\"",
			     listed ? "true" : "false", op, line ? esc : "");
}

/*
 * Boots jitter-intermittent-fips and jitter-permanent-fips: the first read
 * of the RNG was armed to fail.  Intermittent: -EAGAIN, then a read that
 * works.  Permanent: the kernel panics (with fips=1) during the first read,
 * so nothing after it is reported.
 */
void check_jitter_hooked_read(void)
{
	unsigned char a[JENT_LEN], b[JENT_LEN];
	int op = jent_open(), r1, r2;

	if (op < 0) {
		report_check("guest.jitter.hooked_read", "fail",
			     "cannot open jitterentropy_rng via AF_ALG", "\"errno\":%d", -op);
		return;
	}
	say("jitter: reading with a hooked failure armed");
	memset(a, 0xa5, sizeof(a));
	r1 = jent_read(op, a);
	r2 = jent_read(op, b);
	close(op);
	if (r1 == -EAGAIN && !r2 && !all_zero(b, sizeof(b)))
		report_check("guest.jitter.hooked_read", "pass", NULL,
			     "\"first\":\"EAGAIN\",\"second\":\"ok\"");
	else
		report_check("guest.jitter.hooked_read", "fail",
			     "expected EAGAIN, then output",
			     "\"first_errno\":%d,\"second_errno\":%d", -r1, -r2);
}
