// SPDX-License-Identifier: GPL-2.0-only
/*
 * kmemleak in the debug kernel: after the checks of a boot, wait until
 * everything they allocated is older than kmemleak's minimum object age
 * (MSECS_MIN_AGE, 5000 ms in mm/kmemleak.c: a younger object is never
 * reported), then scan twice (a second scan drops objects that were only
 * in flight during the first) and send every report to the host, one
 * record each, and how long after the checks the first scan ran.  The host
 * fails the boot on any report that its allowlist does not explain, and on
 * a scan that ran too soon.
 */
#include "checks.h"
#include "report.h"
#include "util.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KMEMLEAK "/sys/kernel/debug/kmemleak"
/* MSECS_MIN_AGE of mm/kmemleak.c, and a second more. */
#define KMEMLEAK_WAIT_MS (5000 + 1000)

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
	long long checks_end = now_us(), age_ms;
	const char *p, *next;
	int fd, i, reports = 0;
	ssize_t n, got = 0;

	fd = open(KMEMLEAK, O_RDWR);
	if (fd < 0) {
		report_line("{\"type\":\"kmemleak\",\"error\":\"cannot open " KMEMLEAK "\"}");
		return;
	}
	while ((now_us() - checks_end) / 1000 < KMEMLEAK_WAIT_MS)
		usleep(100000);
	age_ms = (now_us() - checks_end) / 1000;
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
	report_line("{\"type\":\"kmemleak-done\",\"reports\":%d,\"age_ms\":%lld}",
		    reports, age_ms);
	say("kmemleak: %d report(s) after two scans, the first %lld ms after the checks",
	    reports, age_ms);
}
