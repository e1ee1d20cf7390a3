// SPDX-License-Identifier: GPL-2.0-only
/*
 * kmemleak in the debug kernel: after the checks of a boot, scan twice (a
 * second scan drops objects that were only in flight during the first) and
 * send every report to the host, one record each.  The host fails the boot
 * on any report that its allowlist does not explain.
 */
#include "checks.h"
#include "report.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KMEMLEAK "/sys/kernel/debug/kmemleak"

static void send_report(const char *start, size_t len)
{
	static char esc[16384];
	char *copy = strndup(start, len);

	if (!copy)
		return;
	json_escape(esc, sizeof(esc), copy);
	report_line("{\"type\":\"kmemleak\",\"text\":\"%s\"}", esc);
	free(copy);
}

void kmemleak_scan(void)
{
	static char buf[1 << 20];
	const char *p, *next;
	int fd, i, reports = 0;
	ssize_t n, got = 0;

	fd = open(KMEMLEAK, O_RDWR);
	if (fd < 0) {
		report_line("{\"type\":\"kmemleak\",\"error\":\"cannot open " KMEMLEAK "\"}");
		return;
	}
	for (i = 0; i < 2; i++) {
		if (write(fd, "scan", 4) != 4)
			say("kmemleak: scan request failed");
		sleep(1);
	}
	lseek(fd, 0, SEEK_SET);
	while (got < (ssize_t)sizeof(buf) - 1 &&
	       (n = read(fd, buf + got, sizeof(buf) - 1 - (size_t)got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	for (p = strstr(buf, "unreferenced object"); p; p = next) {
		next = strstr(p + 1, "unreferenced object");
		send_report(p, next ? (size_t)(next - p) : strlen(p));
		reports++;
	}
	report_line("{\"type\":\"kmemleak-done\",\"reports\":%d}", reports);
	say("kmemleak: %d report(s) after two scans", reports);
}
