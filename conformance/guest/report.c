// SPDX-License-Identifier: GPL-2.0-only
/* The results channel of the guest; see report.h. */
#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
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

