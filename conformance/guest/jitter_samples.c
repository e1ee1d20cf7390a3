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
 * mode, the largest record and one byte more, and that a recording gives
 * its instance back.
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
#include <sys/stat.h>
#include <unistd.h>

#define RECORD_PATH	"/sys/kernel/debug/jitterentropy_rng/record"
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

/*
 * The record file's limits, before the record the host replays: its mode
 * is 0600; 1025 bytes are refused with EINVAL and 1024, the most, are
 * recorded; and each recording frees the instance it made, so that the
 * reference count of jitterentropy_rng in /proc/crypto is what it was.
 */
static void check_record_limits(void)
{
	char head[64];
	struct stat st;
	long before = proc_crypto_refcnt("jitterentropy_rng"), after;
	int fd, err_over, err_max, result = 1;
	unsigned int got = 0;
	ssize_t n;

	if (stat(RECORD_PATH, &st) || (fd = open(RECORD_PATH, O_RDWR)) < 0) {
		report_check("guest.jitter.record-limits", "fail", "no " RECORD_PATH,
			     "\"errno\":%d", errno);
		return;
	}
	err_over = write_count(fd, "1025");
	err_max = write_count(fd, "1024");
	lseek(fd, 0, SEEK_SET);
	n = read(fd, head, sizeof(head) - 1);
	close(fd);
	head[n > 0 ? n : 0] = '\0';
	if (sscanf(head, "bytes %u\nresult %d\n", &got, &result) != 2)
		got = 0;
	after = proc_crypto_refcnt("jitterentropy_rng");
	if ((st.st_mode & 07777) == 0600 && err_over == EINVAL && !err_max &&
	    got == 1024 && !result && before > 0 && after == before)
		report_check("guest.jitter.record-limits", "pass", NULL,
			     "\"mode\":\"%o\",\"refcnt\":%ld", st.st_mode & 07777, after);
	else
		report_check("guest.jitter.record-limits", "fail",
			     (st.st_mode & 07777) != 0600 ? "the record file's mode is not 0600" :
			     err_over != EINVAL ? "a record of 1025 bytes was not refused with EINVAL" :
			     err_max || got != 1024 || result ?
			     "a record of 1024 bytes was not made" :
			     "a recording did not give back its instance (refcnt in /proc/crypto)",
			     "\"mode\":\"%o\",\"over_errno\":%d,\"max_errno\":%d,"
			     "\"bytes\":%u,\"result\":%d,\"refcnt_before\":%ld,"
			     "\"refcnt_after\":%ld", st.st_mode & 07777, err_over,
			     err_max, got, result, before, after);
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
