/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The guest's side of the results channel: one JSON object per line on the
 * second serial port (/dev/ttyS1), read by the host's harness
 * (harness/base/records.py).
 */
#ifndef GUEST_REPORT_H
#define GUEST_REPORT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* Open the results channel; fall back to stdout if there is none. */
void report_open(void);

/* Write one raw line to the results channel (a newline is added). */
void report_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * A check result.  status is "pass", "fail" or "skip"; reason may be NULL
 * for a pass.  extra, if not NULL, is a JSON object body (without braces)
 * appended to the record, e.g. "\"count\":3".
 */
void report_check(const char *id, const char *status, const char *reason,
		  const char *extra_fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Progress for the human watching the console (stderr, i.e. ttyS0). */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Escape s as the inside of a JSON string into out (size n). */
void json_escape(char *out, size_t n, const char *s);

#endif
