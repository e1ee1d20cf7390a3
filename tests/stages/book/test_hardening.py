# SPDX-License-Identifier: GPL-2.0-only
"""The hardening appendix is drawn from the reports, and says when one is
missing or shows a failure.

A made-up conformance report (two faults, one failing) and a made-up i386
report (checks of several families, one failing, one boot that timed out)
go through the renderer: the figures in the Markdown are the reports'
figures, the failures are named and given as build notes, and without an
i386 report the section is a placeholder naming the command.
"""

import json
import os
import tempfile
import unittest

from harness.stages.book import hardening
from harness.stages.book.md import code, esc

MAIN = {
    "started": "2026-12-03T20:00:00Z", "duration_s": 300,
    "host": {"cpu_model": "AMD EPYC", "nproc": 2},
    "kernel": {"release": "6.1.192-gabc"},
    "hardening": {
        "faults": [
            {"fault": "Jitter RNG absent", "checks": ["a"], "instances": 44,
             "status": "pass"},
            {"fault": "allocation failure", "checks": ["b"], "instances": 3,
             "status": "fail"},
        ],
        "fault_injection_points": 34, "hostile_calls": 3601,
        "kernel_log_reports": 0, "kmemleak_unexplained": 0,
        "kmemleak_allowlisted": 67,
    },
}


def i386_report(fail=False):
    checks = [{"id": f"i386.kunit.drbg_seed.case{i}", "status": "pass"}
              for i in range(7)]
    checks += [{"id": f"i386.cavs.Hash_DRBG.{i}", "status": "pass"} for i in range(5)]
    checks += [{"id": "i386.cavs.TDEA", "status": "skip"}]
    checks += [{"id": "i386.cavs.total", "status": "fail",
                "counts": {"passed": 80, "applicable": 81, "skipped_sections": 1,
                           "skipped_records": 240}}]
    checks += [{"id": "boot.main", "status": "pass"}]
    if fail:
        checks += [{"id": "i386.guest.jitter.startup", "status": "fail"}]
    return {"started": "2026-12-03T21:00:00Z", "duration_s": 400,
            "host": {"cpu_model": "AMD EPYC", "nproc": 2},
            "kernel": {"release": "6.1.192-gi386"},
            "boots": [{"name": "main", "outcome": "end", "expect": "end"},
                      {"name": "race", "outcome": "timeout", "expect": "end"}],
            "checks": checks}


class HardeningTest(unittest.TestCase):
    def render(self, main, i386):
        with tempfile.TemporaryDirectory() as top:
            if i386 is not None:
                os.makedirs(os.path.join(top, "build/conformance-i386"))
                with open(os.path.join(top, hardening.I386), "w") as f:
                    json.dump(i386, f)
            return hardening.render({"top": top, "report": main, "esc": esc,
                                     "code": code})

    def test_faults_from_the_report(self):
        md, notes = self.render(MAIN, None)
        self.assertIn("| Jitter RNG absent | 44 | pass |", md)
        self.assertIn("| allocation failure | 3 | **fail** |", md)
        self.assertIn("hostile calls made: 3601", md)
        self.assertIn("Fault-injection points reached: 34", md)
        self.assertEqual(notes, ["hardening: fault failed: allocation failure"])

    def test_no_i386_report_is_a_placeholder_naming_the_command(self):
        md, _ = self.render(MAIN, None)
        self.assertIn("::: placeholder", md.split("On a 32-bit machine")[1])
        self.assertIn("make conform ARCH=i386", md)

    def test_i386_counts_by_family(self):
        md, notes = self.render(MAIN, i386_report())
        self.assertIn("| KUnit cases | 7 | 0 | 0 |", md)
        self.assertIn("| CAVS sections | 5 | 1 | 1 |", md)
        self.assertIn("CAVS records: 80 of 81 applicable", md)
        self.assertIn("| boots | 1 | 0 | 0 |", md)
        self.assertIn("Boots: 2, of which ended as expected: 1.", md)
        self.assertIn("6.1.192-gi386", md)
        self.assertIn("i386: 1 check(s) failed: i386.cavs.total", notes)

    def test_an_i386_failure_is_named_and_noted(self):
        md, notes = self.render(MAIN, i386_report(fail=True))
        self.assertIn("| guest checks | 0 | 1 | 0 |", md)
        self.assertIn("i386.guest.jitter.startup", md)
        self.assertTrue(any(n.startswith("i386: 2 check(s) failed") for n in notes))

    def test_no_main_report(self):
        md, _ = self.render(None, None)
        self.assertIn("There is no", md)
