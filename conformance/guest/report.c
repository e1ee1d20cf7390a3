// SPDX-License-Identifier: GPL-2.0-only
/* The results channel of the guest; see report.h. */
#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/if_alg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static int out_fd = 1;

void report_open(void)
{
	struct termios t;
	int fd = open("/dev/ttyS1", O_WRONLY | O_NOCTTY);

	if (fd < 0) {
		say("no /dev/ttyS1: results go to the console");
		return;
	}
	if (tcgetattr(fd, &t) == 0) {
		cfmakeraw(&t);
		tcsetattr(fd, TCSANOW, &t);
	}
	out_fd = fd;
}

static void write_all(const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(out_fd, buf, len);

		if (n <= 0)
			return;
		buf += n;
		len -= (size_t)n;
	}
}

void report_line(const char *fmt, ...)
{
	char buf[16384];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	write_all(buf, (size_t)n);
}

void json_escape(char *out, size_t n, const char *s)
{
	size_t o = 0;

	for (; *s && o + 7 < n; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			out[o++] = '\\';
			out[o++] = (char)c;
		} else if (c < 0x20) {
			o += (size_t)snprintf(out + o, n - o, "\\u%04x", c);
		} else {
			out[o++] = (char)c;
		}
	}
	out[o] = '\0';
}

void report_check(const char *id, const char *status, const char *reason,
		  const char *extra_fmt, ...)
{
	char extra[12288] = "", why[2048] = "";
	va_list ap;

	if (extra_fmt) {
		va_start(ap, extra_fmt);
		vsnprintf(extra, sizeof(extra), extra_fmt, ap);
		va_end(ap);
	}
	if (reason)
		json_escape(why, sizeof(why), reason);
	report_line("{\"type\":\"check\",\"id\":\"%s\",\"status\":\"%s\"%s%s%s%s%s}",
		    id, status, reason ? ",\"reason\":\"" : "", why,
		    reason ? "\"" : "", extra[0] ? "," : "", extra);
	say("check %s: %s%s%s", id, status, reason ? ": " : "", reason ? reason : "");
}

void say(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 2, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(2, "init: ", 6) < 0 || write(2, buf, (size_t)n) < 0)
		return;
}

long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

void hex_encode(char *out, const uint8_t *b, size_t n)
{
	static const char d[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = d[b[i] >> 4];
		out[2 * i + 1] = d[b[i] & 15];
	}
	out[2 * n] = '\0';
}

int rng_bind(const char *name)
{
	struct sockaddr_alg sa = { .salg_family = AF_ALG };
	int s = socket(AF_ALG, SOCK_SEQPACKET, 0);

	if (s < 0)
		return -errno;
	strcpy((char *)sa.salg_type, "rng");
	snprintf((char *)sa.salg_name, sizeof(sa.salg_name), "%s", name);
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa))) {
		int e = -errno;

		close(s);
		return e;
	}
	return s;
}
