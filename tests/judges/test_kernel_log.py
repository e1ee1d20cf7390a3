# SPDX-License-Identifier: GPL-2.0-only
"""The kernel-log judge on a recorded debug boot, with reports put in.

The recorded debug-main log (KASAN, lockdep, kmemleak, fault injection)
is clean; the same log with one report of each kind the debug kernel can
print (KASAN, UBSAN, a WARNING, lockdep, a hung task, a soft and a hard
lockup, RCU stalls) must fail naming it, and an allowlisted line passes
with its count.  The debug kernel's config fragment must build the
detectors in (a log pattern for a detector that is not there can never
match).
"""

import unittest
from unittest import mock

from harness.base import kbuild, records
from harness.judges import kernel_log
from harness.stages import plan

from . import logs

DEBUG = "debug-main-console.log"
ANCHOR = "    ok 1 seed_module_scenario\n"
REPORTS = [
    "BUG: KASAN: slab-out-of-bounds in drbg_seed+0x2a1/0x4c0",
    "UBSAN: shift-out-of-bounds in crypto/drbg.c:1234:20",
    "WARNING: CPU: 1 PID: 57 at crypto/drbg.c:1150 drbg_async_seed_apply+0x9e/0xc0",
    "WARNING: possible circular locking dependency detected",
    "INFO: task kworker/u4:2:61 blocked for more than 120 seconds.",
    "watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [kworker/1:2:57]",
    "NMI watchdog: Watchdog detected hard LOCKUP on cpu 1",
    "rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:",
    "rcu: INFO: rcu_preempt self-detected stall on CPU",
    "rcu: INFO: rcu_preempt detected expedited stalls on CPUs/tasks: { 1-... }",
    "INFO: rcu_sched detected stalls on CPUs/tasks:",
    "ODEBUG: init active (active state 0) object: 00000000 object type: work_struct",
    "debugfs: Directory 'jitterentropy_rng' with parent '/' already present!",
]


class KernelLogTest(unittest.TestCase):
    def test_recorded_debug_log_is_clean(self):
        c = kernel_log.check(logs.path(DEBUG), "debug-main")
        self.assertEqual(c.status, "pass", c.reason)
        self.assertEqual(c.counts["reports"], 0)

    def test_every_kind_of_report_fails(self):
        for line in REPORTS:
            with self.subTest(report=line):
                p = logs.edited(self, DEBUG, ANCHOR, ANCHOR + f"[  12.345678] {line}\n")
                c = kernel_log.check(p, "debug-main")
                self.assertEqual(c.status, "fail")
                self.assertEqual(c.counts["reports"], 1)
                self.assertIn(line[:40], c.reason)

    def test_allowlisted_report_passes_with_its_count(self):
        line = "WARNING: CPU: 0 PID: 1 at drivers/acpi/x.c:1 acpi_thing+0x1/0x2"
        p = logs.edited(self, DEBUG, ANCHOR, ANCHOR + line + "\n")
        allow = [(records.re.compile("acpi_thing"), "firmware, not the series")]
        with mock.patch.object(records, "allowlist", return_value=allow):
            c = kernel_log.check(p, "debug-main")
        self.assertEqual((c.status, c.counts["allowlisted"]), ("pass", 1))

    def test_debug_kernel_has_the_detectors(self):
        want = kbuild.fragment_lines(kbuild.VARIANTS["debug"])
        for opt in ("CONFIG_DETECT_HUNG_TASK", "CONFIG_SOFTLOCKUP_DETECTOR"):
            self.assertEqual(want.get(opt), "y", opt)
        # Above KUnit's 300 s per case: a case KUnit still waits for is not a hang.
        self.assertGreater(int(want["CONFIG_DEFAULT_HUNG_TASK_TIMEOUT"]), 300)
        self.assertTrue(int(want["CONFIG_RCU_CPU_STALL_TIMEOUT"]) > 0)
        debug = [b for b in plan.BOOTS if b.get("variant") == "debug"]
        self.assertTrue(debug)
        for b in debug:
            self.assertIn("watchdog_thresh=", b["append"], b["name"])


if __name__ == "__main__":
    unittest.main()
