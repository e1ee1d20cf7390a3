// SPDX-License-Identifier: GPL-2.0-only
/*
 * A noise source for collect.c whose start-up test fails on the starts
 * that STARTUP_FAILS lists ("2,3": the second and third start fail with
 * 9, 6.1's JENT_EHEALTH), for test_entropy_collect.py.  Its reads give
 * 32 zero bytes and eight raw samples each.
 */
#include "collect.h"

#include <stdlib.h>
#include <string.h>

const char *const source_name = "startup-stub";

static int starts;

int source_startup(void)
{
	const char *fails = getenv("STARTUP_FAILS");
	char list[256], *tok, *save = NULL;

	starts++;
	if (!fails)
		return 0;
	strncpy(list, fails, sizeof(list) - 1);
	list[sizeof(list) - 1] = 0;
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (atoi(tok) == starts)
			return 9;
	return 0;
}

void *source_alloc(void)
{
	return malloc(1);
}

int source_read(void *ec, unsigned char *buf, unsigned int len)
{
	unsigned int i;

	(void)ec;
	memset(buf, 0, len);
	for (i = 0; i < 8; i++)
		collect_sample(100 + i);
	return 0;
}

void source_free(void *ec)
{
	free(ec);
}
