// SPDX-License-Identifier: GPL-2.0-only
/*
 * The Jitter RNG's raw time stamps, for the book's figures (chapter "The
 * CPU Jitter RNG in the kernel", section "Recording the time stamps of a
 * read").  The test hook jitterentropy_rng/record in debugfs reads
 * conform.jitter_bytes bytes (default 768) from a new instance and
 * returns every time stamp the core took, with the output.  This program
 * passes them on unchanged: the host recomputes the read from them with
 * its model (harness/judges/figures.py), and draws the deltas and
 * the health tests' counts only when the recomputed output is the
 * kernel's.  Under TCG the timer is emulated: the figures say so.
 *
 * First it checks the file's limits (guest.jitter.record-limits): its
 * mode, the size of the buffer of time stamps and the count of those lost,
 * the largest record and one byte more, and that a recording gives its
 * instance back; and, where the kernel injects faults, every allocation
 * of a recording made to fail in turn (guest.jitter.record-faults).
 *
 * Results: one "jitter-record" line (header, output, hypervisor), the
 * time stamps in "jitter-stamps" lines (the first value of the first line
 * absolute, every other one the difference from the one before, modulo
 * 2^64), and the check guest.jitter.record.
 */
#include "checks.h"
#include "report.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define RECORD_PATH	"/sys/kernel/debug/jitterentropy_rng/record"
#define STAMPS_PARAM	"/sys/module/jitterentropy_rng/parameters/testhook_record_stamps"
#define FAIL_NTH	"/proc/self/fail-nth"
#define FAILSLAB_GFP	"/sys/kernel/debug/failslab/ignore-gfp-wait"
#define RECORD_BYTES	768
#define LINE_CHARS	12000	/* digits per results line, under report_line's 16 KiB */

/* The whole file, NUL-terminated, or NULL; *len is its length. */
static char *read_all(int fd, size_t *len)
{
	size_t cap = 1 << 20, n = 0;
	char *buf = malloc(cap), *p;
	ssize_t r;

	while (buf) {
		if (n + 1 == cap) {
			p = realloc(buf, 2 * cap);
			if (!p)
				break;
			buf = p;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r < 0)
				break;
			buf[n] = '\0';
			*len = n;
			return buf;
		}
		n += (size_t)r;
	}
	free(buf);
	return NULL;
}

static void fail(const char *why, int err)
{
	report_check("guest.jitter.record", "fail", why, "\"errno\":%d", err);
}

/* Send the time stamps in lines of at most LINE_CHARS digits. */
static unsigned int send_stamps(const unsigned long long *t, unsigned int n)
{
	static char line[LINE_CHARS + 64];
	unsigned int i = 0, first, seq = 0;
	size_t o;

	while (i < n) {
		first = i;
		o = 0;
		while (i < n && o < LINE_CHARS) {
			unsigned long long v = i ? t[i] - t[i - 1] : t[0];

			o += (size_t)snprintf(line + o, sizeof(line) - o, "%s%llu",
					      i == first ? "" : ",", v);
			i++;
		}
		report_line("{\"type\":\"jitter-stamps\",\"seq\":%u,\"first\":%u,"
			    "\"n\":%u,\"d\":[%s]}", seq++, first, i - first, line);
	}
	return seq;
}

/* Write the byte count v; the write's errno, or 0 when all was written. */
static int write_count(int fd, const char *v)
{
	ssize_t n = (ssize_t)strlen(v);

	errno = 0;
	return write(fd, v, (size_t)n) == n ? 0 : errno ? errno : EIO;
}

/* The record's header: bytes, result, stamps, lost; 0 when it has none. */
static int read_header(int fd, unsigned int h[4])
{
	char head[96];
	ssize_t n;
	int result;

	lseek(fd, 0, SEEK_SET);
	n = read(fd, head, sizeof(head) - 1);
	head[n > 0 ? n : 0] = '\0';
	if (sscanf(head, "bytes %u\nresult %d\nstamps %u\nlost %u\n",
		   &h[0], &result, &h[2], &h[3]) != 4)
		return 0;
	h[1] = (unsigned int)result;
	return 1;
}

/* 32 bytes from a new instance through AF_ALG: 1 when read. */
static int afalg_read(void)
{
	unsigned char buf[32];
	int s = rng_bind("jitterentropy_rng"), op, ok = 0;

	if (s < 0)
		return 0;
	op = accept(s, NULL, 0);
	if (op >= 0) {
		ok = read(op, buf, sizeof(buf)) == (ssize_t)sizeof(buf);
		close(op);
	}
	close(s);
	return ok;
}

static int set_stamps(const char *v)
{
	int fd = open(STAMPS_PARAM, O_WRONLY), err;

	if (fd < 0)
		return errno;
	err = write_count(fd, v);
	close(fd);
	return err;
}

/*
 * The record file's limits, before the record the host replays: its mode
 * is 0600; the buffer holds 524288 time stamps unless testhook_record_stamps
 * says fewer (0 and 524289 are refused with EINVAL; with 100, a record of
 * 32 bytes keeps 100 and counts the rest as lost); 1025 bytes are refused
 * with EINVAL and 1024, the most, are recorded; a read of the recording
 * task after the recording is not recorded (the record's count of time
 * stamps stays); and each recording frees the instance it made, so that
 * the reference count of jitterentropy_rng in /proc/crypto is what it was.
 */
static void check_record_limits(void)
{
	char def[32] = "";
	struct stat st;
	long before = proc_crypto_refcnt("jitterentropy_rng"), after;
	unsigned int small[4] = {0}, max[4] = {0}, again[4] = {0};
	int fd, err_zero, err_big, err_small, err_over, err_max, restored, later;
	const char *why = NULL;

	if (stat(RECORD_PATH, &st) || (fd = open(RECORD_PATH, O_RDWR)) < 0) {
		report_check("guest.jitter.record-limits", "fail", "no " RECORD_PATH,
			     "\"errno\":%d", errno);
		return;
	}
	read_file(STAMPS_PARAM, def, sizeof(def));
	err_zero = set_stamps("0") ?: write_count(fd, "32");
	err_big = set_stamps("524289") ?: write_count(fd, "32");
	err_small = set_stamps("100") ?: write_count(fd, "32");
	if (!err_small && !read_header(fd, small))
		err_small = EBADMSG;
	restored = !set_stamps("524288");
	err_over = write_count(fd, "1025");
	err_max = write_count(fd, "1024");
	if (!err_max && !read_header(fd, max))
		err_max = EBADMSG;
	later = afalg_read() && read_header(fd, again);
	close(fd);
	after = proc_crypto_refcnt("jitterentropy_rng");
	if ((st.st_mode & 07777) != 0600)
		why = "the record file's mode is not 0600";
	else if (strcmp(def, "524288\n"))
		why = "testhook_record_stamps is not 524288 by default";
	else if (err_zero != EINVAL || err_big != EINVAL)
		why = "a buffer of 0 or 524289 time stamps was not refused with EINVAL";
	else if (err_small || small[0] != 32 || small[2] != 100 || !small[3])
		why = "a buffer of 100 time stamps did not keep 100 and count the rest lost";
	else if (!restored)
		why = "testhook_record_stamps could not be set back to 524288";
	else if (err_over != EINVAL)
		why = "a record of 1025 bytes was not refused with EINVAL";
	else if (err_max || max[0] != 1024 || max[1] || max[3])
		why = "a whole record of 1024 bytes was not made";
	else if (!later || again[2] != max[2])
		why = "a later read of the recording task changed the record";
	else if (before <= 0 || after != before)
		why = "a recording did not give back its instance (refcnt in /proc/crypto)";
	report_check("guest.jitter.record-limits", why ? "fail" : "pass", why,
		     "\"mode\":\"%o\",\"errno\":[%d,%d,%d,%d,%d],\"small\":[%u,%u],"
		     "\"max\":[%u,%u,%u,%u],\"refcnt\":[%ld,%ld]", st.st_mode & 07777,
		     err_zero, err_big, err_small, err_over, err_max, small[2],
		     small[3], max[0], max[2], max[3], again[2], before, after);
}

static void set_knob(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY);

	if (fd >= 0) {
		if (write(fd, v, strlen(v)) != (ssize_t)strlen(v))
			fprintf(stderr, "init: %s: cannot write %s\n", path, v);
		close(fd);
	}
}

/*
 * Allocation failure at every point of a recording (fail-nth, the debug
 * kernel's): the N-th allocation of one write of 32 bytes fails, for
 * N = 1, 2, ... until the write makes fewer.  Each write must record or
 * fail with ENOMEM, and none may keep a reference: the counts of
 * jitterentropy_rng and of sha3-256-generic in /proc/crypto are what they
 * were (an instance whose making failed half-way must free its hash).
 * The boot's kmemleak scan looks for the rest.
 */
static void check_record_faults(void)
{
	long jent = proc_crypto_refcnt("jitterentropy_rng");
	long sha3 = proc_crypto_refcnt("sha3-256-generic");
	int nth, points = 0, recorded = 0, refused = 0, after = 0;
	char v[16], why[160] = "";

	if (access(FAIL_NTH, F_OK) || access(FAILSLAB_GFP, F_OK)) {
		report_check("guest.jitter.record-faults", "skip",
			     "no fault injection in this kernel (the debug kernel has it)", NULL);
		return;
	}
	set_knob(FAILSLAB_GFP, "N");
	for (nth = 1; nth < 200 && !why[0]; nth++) {
		int fd = open(RECORD_PATH, O_RDWR), ffd = open(FAIL_NTH, O_RDWR), err;

		if (fd < 0 || ffd < 0) {
			snprintf(why, sizeof(why), "cannot open the record file or " FAIL_NTH);
			break;
		}
		snprintf(v, sizeof(v), "%d", nth);
		if (write(ffd, v, strlen(v)) != (ssize_t)strlen(v))
			snprintf(why, sizeof(why), "point %d: writing " FAIL_NTH " failed", nth);
		err = why[0] ? 0 : write_count(fd, "32");
		lseek(ffd, 0, SEEK_SET);
		memset(v, 0, sizeof(v));
		if (read(ffd, v, sizeof(v) - 1) < 0)
			v[0] = '?';
		close(ffd);
		close(fd);
		if (why[0])
			break;
		if (atoi(v) != 0) {
			/* Fewer allocations than nth: nothing failed, the sweep is done. */
			after = !err;
			break;
		}
		points++;
		if (!err)
			recorded++;
		else if (err == ENOMEM)
			refused++;
		else
			snprintf(why, sizeof(why), "point %d: the write failed with errno %d",
				 nth, err);
	}
	set_knob(FAILSLAB_GFP, "Y");
	if (!why[0] && (!points || !after))
		snprintf(why, sizeof(why), "%s", !points ? "no allocation could be made to fail" :
			 "the write without a fault did not record");
	if (!why[0] && (proc_crypto_refcnt("jitterentropy_rng") != jent ||
			proc_crypto_refcnt("sha3-256-generic") != sha3))
		snprintf(why, sizeof(why), "a failed recording kept a reference "
			 "(refcnt in /proc/crypto)");
	report_check("guest.jitter.record-faults", why[0] ? "fail" : "pass",
		     why[0] ? why : NULL,
		     "\"points\":%d,\"recorded\":%d,\"enomem\":%d,\"refcnt\":[%ld,%ld,%ld,%ld]",
		     points, recorded, refused, jent, proc_crypto_refcnt("jitterentropy_rng"),
		     sha3, proc_crypto_refcnt("sha3-256-generic"));
}

void check_jitter_record(void)
{
	char want[16], sig[13], *text, *p, *out_hex, *end;
	unsigned int bytes = RECORD_BYTES, got_bytes, nstamps, lost, i, lines;
	unsigned long long *t;
	long long t0 = now_us(), us;
	size_t len;
	int fd, result, n;

	check_record_limits();
	check_record_faults();
	if (cmdline_value("conform.jitter_bytes", want, sizeof(want)))
		bytes = (unsigned int)strtoul(want, NULL, 10);
	fd = open(RECORD_PATH, O_RDWR);
	if (fd < 0) {
		fail("no " RECORD_PATH " (test hooks or debugfs missing?)", errno);
		return;
	}
	n = snprintf(want, sizeof(want), "%u", bytes);
	if (write(fd, want, (size_t)n) != n) {
		fail("writing the byte count to the record file failed", errno);
		close(fd);
		return;
	}
	us = now_us() - t0;
	lseek(fd, 0, SEEK_SET);
	text = read_all(fd, &len);
	close(fd);
	if (!text) {
		fail("reading the record failed", errno);
		return;
	}
	n = sscanf(text, "bytes %u\nresult %d\nstamps %u\nlost %u\n",
		   &got_bytes, &result, &nstamps, &lost);
	out_hex = strstr(text, "\noutput ");
	if (n != 4 || !out_hex || got_bytes != bytes) {
		fail("the record's header is not as documented", 0);
		free(text);
		return;
	}
	out_hex += 8;
	p = strchr(out_hex, '\n');
	if (!p || (size_t)(p - out_hex) != 2 * (size_t)bytes) {
		fail("the record's output is not 2 hex digits per byte", 0);
		free(text);
		return;
	}
	*p++ = '\0';
	t = malloc(sizeof(*t) * (nstamps ? nstamps : 1));
	for (i = 0; t && i < nstamps; i++) {
		errno = 0;
		t[i] = strtoull(p, &end, 10);
		if (end == p || *end != '\n' || errno)
			break;
		p = end + 1;
	}
	if (!t || i != nstamps || *p) {
		fail("the record's time stamps are not one decimal per line", 0);
		free(t);
		free(text);
		return;
	}
	hypervisor_signature(sig);
	lines = send_stamps(t, nstamps);
	report_line("{\"type\":\"jitter-record\",\"bytes\":%u,\"result\":%d,"
		    "\"stamps\":%u,\"lost\":%u,\"lines\":%u,\"output\":\"%s\","
		    "\"hypervisor\":\"%s\",\"us\":%lld}",
		    bytes, result, nstamps, lost, lines, out_hex, sig, us);
	if (result || lost || !nstamps)
		report_check("guest.jitter.record", "fail",
			     result ? "the recorded read failed" :
			     lost ? "time stamps were lost: the record is incomplete" :
			     "no time stamps recorded",
			     "\"result\":%d,\"stamps\":%u,\"lost\":%u", result,
			     nstamps, lost);
	else
		report_check("guest.jitter.record", "pass", NULL,
			     "\"bytes\":%u,\"stamps\":%u,\"lines\":%u,\"us\":%lld",
			     bytes, nstamps, lines, us);
	free(t);
	free(text);
}
