# SPDX-License-Identifier: GPL-2.0-only
"""The kmemleak judge on the recorded reports of a debug boot.

The recorded debug-main boot sent 22 reports, all explained by the
allowlist (ACPI's early caches, KUnit's debugfs buffers).  With the
scan's timing the guest now reports, they pass; a report from the
series' code fails; a scan sooner than kmemleak's minimum object age
after the checks (or one that does not say when it ran, as the guest
before this fix) fails, since it cannot see the checks' leaks; an
unfinished scan or a kmemleak that cannot be opened fails.
"""

import json
import unittest

from harness.base import records
from harness.judges import kmemleak

from . import logs

LEAK = ("unreferenced object 0xffff888004a1c000 (size 64):\n  comm \"init\", pid 1\n"
        "  backtrace:\n    [<0000000012345678>] __kmalloc+0x4e/0x90\n"
        "    [<0000000023456789>] drbg_alloc_state+0x1b2/0x3c0\n")


def recorded():
    recs = records.read(logs.path("debug-main-kmemleak.jsonl"))
    return [r for r in recs if r["type"] == "kmemleak"], \
        [r for r in recs if r["type"] == "kmemleak-done"][0]


class KmemleakJudgeTest(unittest.TestCase):
    def judge(self, reports, done):
        return kmemleak.check(reports + ([done] if done else []), "debug-main")

    def test_recorded_reports_are_explained(self):
        reports, done = recorded()
        c = self.judge(reports, dict(done, age_ms=6012))
        self.assertEqual(c.status, "pass", c.reason)
        self.assertEqual(c.counts["allowlisted"], 22)
        self.assertEqual(c.counts["scan_after_checks_ms"], 6012)

    def test_acpi_cache_without_its_create_caches_frame(self):
        """ACPI's early caches once came with acpi_ut_create_caches() inlined
        into acpi_ut_init_globals() (a make stress run of 2026-12-06): still
        ACPI's, still explained; a cache made from the series' code is not."""
        reports, done = recorded()
        acpi = ("unreferenced object 0xffff888001089b40 (size 216):\n"
                "  comm \"swapper/0\", pid 0, jiffies 4294892296\n  backtrace:\n"
                "    [<00000000b7bae036>] kmem_cache_create_usercopy+0x122/0x320\n"
                "    [<000000007267bf6b>] kmem_cache_create+0xd/0x20\n"
                "    [<000000006494d3b3>] acpi_os_create_cache+0x14/0x40\n"
                "    [<00000000e602ae2d>] acpi_ut_init_globals+0xb/0x530\n"
                "    [<000000002bb37b01>] acpi_initialize_subsystem+0x46/0xe3\n"
                "    [<000000006d3ce95e>] acpi_early_init+0x91/0x17a\n")
        c = self.judge(reports + [{"type": "kmemleak", "text": acpi}], dict(done, age_ms=6012))
        self.assertEqual((c.status, c.counts["allowlisted"]), ("pass", 23), c.reason)
        ours = acpi.replace("acpi_os_create_cache+0x14/0x40", "drbg_kcapi_init+0x14/0x40")
        c = self.judge(reports + [{"type": "kmemleak", "text": ours}], dict(done, age_ms=6012))
        self.assertEqual(c.status, "fail")

    def test_leak_of_the_series_fails(self):
        reports, done = recorded()
        c = self.judge(reports + [{"type": "kmemleak", "text": LEAK}],
                       dict(done, age_ms=6012))
        self.assertEqual(c.status, "fail")
        self.assertIn("1 unexplained kmemleak report", c.reason)
        self.assertIn("drbg_alloc_state", c.reason)

    def test_scan_too_soon_fails(self):
        reports, done = recorded()
        self.assertNotIn("age_ms", done, "the recorded guest did not say")
        for age in (None, 1000, 4999):
            with self.subTest(age_ms=age):
                d = dict(done) if age is None else dict(done, age_ms=age)
                c = self.judge(reports, d)
                self.assertEqual(c.status, "fail")
                self.assertIn("kmemleak reports no object younger than 5000 ms",
                              c.reason)

    def test_scan_unfinished_or_impossible(self):
        reports, _ = recorded()
        self.assertEqual(self.judge(reports, None).status, "fail")
        c = self.judge([{"type": "kmemleak", "error": "cannot open "
                         "/sys/kernel/debug/kmemleak"}], {"type": "kmemleak-done",
                                                          "reports": 0, "age_ms": 6000})
        self.assertEqual(c.status, "fail")
        self.assertIn("cannot open", c.reason)

    def test_recorded_file_is_what_the_guest_sends(self):
        with open(logs.path("debug-main-kmemleak.jsonl")) as f:
            kinds = [json.loads(ln)["type"] for ln in f]
        self.assertEqual(kinds.count("kmemleak-done"), 1)
        self.assertEqual(kinds.count("kmemleak"), 22)


if __name__ == "__main__":
    unittest.main()
