// SPDX-License-Identifier: GPL-2.0-only
/*
 * The seed material of real seedings, from outside the kernel: for each of
 * the 22 DRBG instances, twice (the Jitter RNG's output replaced by the
 * pattern 0x5a, and the real Jitter RNG), ask /sys/kernel/debug/drbg_cavp/
 * trace to instantiate, reseed and generate, and print every seeding's
 * bytes, the output, and the DRBG's V and C right after instantiation as
 * one JSON record.  The host checks the layout and recomputes the state
 * and the output with its own SP 800-90A model
 * (harness/judges/seed_trace.py).
 */
#include "checks.h"
#include "report.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TRACE_PATH	"/sys/kernel/debug/drbg_cavp/trace"
#define TRACE_OUTLEN	64
#define STATE_MAX	128
#define REPLY_MAX	(16 + 8 * (12 + 256) + 4 + 4096 + 4 + 2 * STATE_MAX)

static const char trace_pers[] = "conformance trace personalization";
static const char trace_addtl[] = "conformance trace additional input";

/* One trace; prints its record; returns 0 when the kernel reported no error. */
static int trace_one(const char *driver, int pattern)
{
	size_t pl = sizeof(trace_pers) - 1, al = sizeof(trace_addtl) - 1;
	size_t total = 88 + pl + al, off;
	static uint8_t req[512], reply[REPLY_MAX];
	static char line[16384], h[2 * 4096 + 1];
	uint32_t nseeds, i, outlen, slen = 0;
	int fd, err;
	ssize_t n, got;

	memset(req, 0, sizeof(req));
	memcpy(req, "DCT1", 4);
	put_le32(req + 4, total);
	put_le32(req + 8, pattern ? 1 : 0);
	put_le32(req + 12, TRACE_OUTLEN);
	snprintf((char *)req + 16, 64, "%s", driver);
	put_le32(req + 80, pl);
	put_le32(req + 84, al);
	memcpy(req + 88, trace_pers, pl);
	memcpy(req + 88 + pl, trace_addtl, al);

	fd = open(TRACE_PATH, O_RDWR);
	if (fd < 0)
		return -errno;
	if (write(fd, req, total) != (ssize_t)total) {
		err = -errno;
		close(fd);
		return err ? err : -EIO;
	}
	got = pread(fd, reply, sizeof(reply), 0);
	close(fd);
	if (got < 20 || memcmp(reply, "DTR1", 4))
		return -EPROTO;
	err = (int32_t)get_le32(reply + 4);
	nseeds = get_le32(reply + 12);
	off = (size_t)snprintf(line, sizeof(line),
			       "{\"type\":\"trace\",\"driver\":\"%s\",\"pattern\":%s,"
			       "\"err\":%d,\"step\":%u,\"pers\":\"", driver,
			       pattern ? "true" : "false", err, get_le32(reply + 8));
	hex_encode(h, (const uint8_t *)trace_pers, pl);
	off += (size_t)snprintf(line + off, sizeof(line) - off, "%s\",\"addtl\":\"", h);
	hex_encode(h, (const uint8_t *)trace_addtl, al);
	off += (size_t)snprintf(line + off, sizeof(line) - off, "%s\",\"seeds\":[", h);
	n = 16;
	for (i = 0; i < nseeds && i < 8; i++) {
		uint32_t reseed = get_le32(reply + n), len = get_le32(reply + n + 4);
		uint32_t stored = get_le32(reply + n + 8);

		hex_encode(h, reply + n + 12, stored);
		off += (size_t)snprintf(line + off, sizeof(line) - off,
					"%s{\"reseed\":%u,\"len\":%u,\"hex\":\"%s\"}",
					i ? "," : "", reseed, len, h);
		n += 12 + stored;
	}
	outlen = get_le32(reply + n);
	hex_encode(h, reply + n + 4, outlen);
	off += (size_t)snprintf(line + off, sizeof(line) - off, "],\"out\":\"%s\"", h);
	n += 4 + outlen;
	if (n + 4 <= got)
		slen = get_le32(reply + n);
	if (slen <= STATE_MAX && n + 4 + 2 * (ssize_t)slen <= got) {
		hex_encode(h, reply + n + 4, slen);
		off += (size_t)snprintf(line + off, sizeof(line) - off, ",\"v\":\"%s\"", h);
		hex_encode(h, reply + n + 4 + slen, slen);
		off += (size_t)snprintf(line + off, sizeof(line) - off, ",\"c\":\"%s\"", h);
	}
	snprintf(line + off, sizeof(line) - off, "}");
	report_line("%s", line);
	return err;
}

void check_drbg_trace(void)
{
	int i, p, ok = 0, bad = 0;
	char why[512] = "";

	if (access(TRACE_PATH, F_OK)) {
		report_check("guest.drbg.trace", "skip",
			     "no " TRACE_PATH ": kernel without CONFIG_CRYPTO_DRBG_CAVP_DEBUGFS",
			     NULL);
		return;
	}
	for (i = 0; i < 22; i++) {
		for (p = 1; p >= 0; p--) {
			int err = trace_one(drbg_drivers[i], p);

			if (!err) {
				ok++;
				continue;
			}
			if (!bad++)
				snprintf(why, sizeof(why), "%s (pattern %d): error %d",
					 drbg_drivers[i], p, err);
		}
	}
	if (bad)
		report_check("guest.drbg.trace", "fail", why,
			     "\"traced\":%d,\"failed\":%d", ok, bad);
	else
		report_check("guest.drbg.trace", "pass", NULL,
			     "\"traced\":%d,\"failed\":0", ok);
}
