// SPDX-License-Identifier: GPL-2.0-only
/*
 * /proc/crypto: every DRBG instance and the Jitter RNG are registered and
 * their self-tests passed.  The test kernel has the crypto self-tests on
 * (CONFIG_CRYPTO_MANAGER_DISABLE_TESTS is not set), so "passed" means
 * testmgr ran the algorithm's tests, or its alg_test_null entry.
 */
#include "checks.h"
#include "report.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

static char proc[262144];

/* The selftest field of the entry whose driver is name, or NULL. */
static const char *selftest_of(const char *name, char *out, size_t n)
{
	char key[128];
	const char *p, *s, *next;

	snprintf(key, sizeof(key), "\ndriver       : %s\n", name);
	p = strstr(proc, key);
	if (!p)
		return NULL;
	next = strstr(p + 1, "\nname ");
	s = strstr(p, "\nselftest     : ");
	if (!s || (next && s > next))
		return NULL;
	s += strlen("\nselftest     : ");
	snprintf(out, n, "%.*s", (int)strcspn(s, "\n"), s);
	return out;
}

void check_proc_crypto(void)
{
	char st[64], bad[4096] = "";
	int ok = 0, i;

	if (read_file("/proc/crypto", proc, sizeof(proc)) <= 0) {
		report_check("guest.proc_crypto.drbg", "fail", "cannot read /proc/crypto",
			     NULL);
		return;
	}
	for (i = 0; i < 22; i++) {
		const char *r = selftest_of(drbg_drivers[i], st, sizeof(st));

		if (r && !strcmp(r, "passed")) {
			ok++;
			continue;
		}
		snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad), "%s%s: %s",
			 bad[0] ? "; " : "", drbg_drivers[i], r ? r : "not registered");
	}
	if (ok == 22)
		report_check("guest.proc_crypto.drbg", "pass", NULL,
			     "\"registered\":22,\"selftest_passed\":22");
	else
		report_check("guest.proc_crypto.drbg", "fail", bad,
			     "\"selftest_passed\":%d", ok);

	if (!selftest_of("jitterentropy_rng", st, sizeof(st)))
		report_check("guest.proc_crypto.jitterentropy", "fail",
			     "jitterentropy_rng is not registered", NULL);
	else if (strcmp(st, "passed"))
		report_check("guest.proc_crypto.jitterentropy", "fail",
			     "jitterentropy_rng selftest not passed",
			     "\"selftest\":\"%s\"", st);
	else
		report_check("guest.proc_crypto.jitterentropy", "pass", NULL,
			     "\"selftest\":\"passed\"");
}
