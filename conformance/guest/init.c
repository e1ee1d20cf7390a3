// SPDX-License-Identifier: GPL-2.0-only
/*
 * /init of the conformance guest.
 *
 * Mounts what the checks need, reports the environment (kernel, command
 * line, CPU features, CRNG state), runs the checks of the boot mode named
 * by conform.mode= on the kernel command line, writes an end marker and
 * reboots, which ends QEMU (it runs with -no-reboot).  Results go to the
 * second serial port, one JSON object per line; see report.h.
 */
#include "checks.h"
#include "report.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

static void mount_fs(const char *src, const char *dst, const char *type)
{
	mkdir(dst, 0755);
	if (mount(src, dst, type, 0, NULL) && errno != EBUSY)
		say("mount %s on %s: %s", type, dst, strerror(errno));
}

static void report_environment(const char *mode)
{
	char cpuinfo[65536], flags[8192] = "", esc[4096];
	struct utsname u;
	char *f, *nl;

	uname(&u);
	read_file("/proc/cpuinfo", cpuinfo, sizeof(cpuinfo));
	f = strstr(cpuinfo, "\nflags");
	if (f && (f = strchr(f, ':'))) {
		nl = strchr(f, '\n');
		snprintf(flags, sizeof(flags), "%.*s",
			 (int)(nl ? nl - f - 2 : (long)strlen(f + 2)), f + 2);
	}
	json_escape(esc, sizeof(esc), kernel_cmdline());
	report_line("{\"type\":\"env\",\"mode\":\"%s\",\"release\":\"%s\","
		    "\"version\":\"%s\",\"cmdline\":\"%s\",\"rdrand\":%s,"
		    "\"rdseed\":%s,\"crng_ready_at_init\":%s,\"nproc\":%ld}",
		    mode, u.release, u.version, esc,
		    strstr(flags, "rdrand") ? "true" : "false",
		    strstr(flags, "rdseed") ? "true" : "false",
		    crng_ready_now() ? "true" : "false",
		    sysconf(_SC_NPROCESSORS_ONLN));
}

int main(void)
{
	char mode[64] = "checks", flag[8], end[16] = "";
	long long t0 = now_us();

	mount_fs("proc", "/proc", "proc");
	mount_fs("sysfs", "/sys", "sysfs");
	mount_fs("devtmpfs", "/dev", "devtmpfs");
	mount_fs("debugfs", "/sys/kernel/debug", "debugfs");
	report_open();
	cmdline_value("conform.mode", mode, sizeof(mode));
	report_line("{\"type\":\"begin\"}");
	report_environment(mode);
	say("mode %s", mode);

	run_checks(mode);
	if (cmdline_value("conform.kmemleak", flag, sizeof(flag)) &&
	    !strcmp(flag, "1"))
		kmemleak_scan();

	report_line("{\"type\":\"crng\",\"when\":\"end\",\"ready\":%s}",
		    crng_ready_now() ? "true" : "false");
	report_line("{\"type\":\"end\",\"guest_us\":%lld}", now_us() - t0);
	sync();
	cmdline_value("conform.end", end, sizeof(end));
	say("done in %.1f s; %s to end the run", (now_us() - t0) / 1e6,
	    strcmp(end, "poweroff") ? "rebooting" : "powering off");
	reboot(strcmp(end, "poweroff") ? RB_AUTOBOOT : RB_POWER_OFF);
	return 0;
}
