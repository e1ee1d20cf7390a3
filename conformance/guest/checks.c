// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which checks a boot mode runs.  The host chooses the mode with
 * conform.mode= on the kernel command line (harness/stages/plan.py).
 */
#include "acvp.h"
#include "cavs.h"
#include "checks.h"
#include "report.h"
#include "util.h"

#include <string.h>
#include <unistd.h>

void run_checks(const char *mode)
{
	if (!strcmp(mode, "checks")) {
		char rec[8];

		check_proc_crypto();
		check_jitter();
		/*
		 * conform.record=0: another boot of this kernel (debug-jitter)
		 * runs the record's checks, and a check is reported once.
		 */
		if (!cmdline_value("conform.record", rec, sizeof(rec)) || strcmp(rec, "0"))
			check_jitter_record();
		check_blocking_isolation();
		check_hostile();
		return;
	}
	if (!strcmp(mode, "jitter-absent")) {
		check_jitter_absent();
		check_drbg_trace();
		return;
	}
	if (!strcmp(mode, "jitter-record")) {
		check_jitter_record();
		return;
	}
	if (!strcmp(mode, "jitter-hooked-read")) {
		check_jitter_hooked_read();
		return;
	}
	if (!strcmp(mode, "drbg")) {
		check_drbg_trace();
		return;
	}
	if (!strcmp(mode, "sockets")) {
		check_partial_sockets();
		return;
	}
	if (!strcmp(mode, "stress")) {
		check_stress();	/* make stress (stress.c) */
		return;
	}
	if (!strcmp(mode, "modules")) {
		check_modules();
		return;
	}
	if (!strcmp(mode, "idle"))
		return;
	if (!strcmp(mode, "entropy")) {
		run_entropy();	/* raw noise for make entropy (entropy.c) */
		return;
	}
	if (!strcmp(mode, "bench")) {
		run_bench();	/* timings for make bench (bench.c), no checks */
		return;
	}
	if (!strcmp(mode, "cavs")) {
		check_cavs(CAVS_PACK_PATH);
		return;
	}
	if (!strcmp(mode, "acvp")) {
		run_acvp(ACVP_PACK_PATH);	/* ACVP answers (acvp.c), no checks */
		return;
	}
	if (!strcmp(mode, "hang")) {
		/* For the harness's own test: never end; QEMU must be killed. */
		say("mode hang: sleeping forever");
		for (;;)
			pause();
	}
	report_check("guest.mode", "fail", "unknown conform.mode", "\"mode\":\"%s\"",
		     mode);
}
