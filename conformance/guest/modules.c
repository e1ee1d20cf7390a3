// SPDX-License-Identifier: GPL-2.0-only
/*
 * Boot mode "modules" (the modules kernel variant): load the modules the
 * host packed into /lib/modules in the order of /lib/modules/order, with
 * finit_module(), then check that the Jitter RNG registered from its
 * module, produces output, and seeds a DRBG that is itself a module.
 */
#include "checks.h"
#include "report.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int load(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	r = (int)syscall(SYS_finit_module, fd, "", 0);
	r = r ? -errno : 0;
	close(fd);
	return r;
}

void check_modules(void)
{
	char order[4096], path[512], why[512] = "", *line, *save = NULL;
	int loaded = 0, failed = 0;

	if (read_file("/lib/modules/order", order, sizeof(order)) <= 0) {
		report_check("guest.modules.load", "fail", "no /lib/modules/order", NULL);
		return;
	}
	for (line = strtok_r(order, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int r;

		snprintf(path, sizeof(path), "/lib/modules/%s", line);
		r = load(path);
		if (!r || r == -EEXIST) {
			loaded++;
			continue;
		}
		if (!failed++)
			snprintf(why, sizeof(why), "%s: finit_module: %s", line, strerror(-r));
	}
	if (failed)
		report_check("guest.modules.load", "fail", why,
			     "\"loaded\":%d,\"failed\":%d", loaded, failed);
	else
		report_check("guest.modules.load", "pass", NULL, "\"loaded\":%d", loaded);
	check_proc_crypto();
	check_jitter();
}
