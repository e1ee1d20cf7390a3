# SPDX-License-Identifier: GPL-2.0-only
"""The hardening appendix's stress section (harness/stages/book/stress.py)
is drawn from build/stress/report.json: a made-up report goes through the
renderer and its figures come out as they are in it; a failed check is
named and noted; without the report the section is a placeholder naming
`make stress`.
"""

import json
import os
import tempfile
import unittest

from harness.stages.book import hardening, stress
from harness.stages.book.md import code, esc


def report(fail=False):
    calls = {"boot": "stress-calls", "title": "calls", "outcome": "end", "expect": "end",
             "seconds": 812.5, "checks": {"pass": 6, "fail": int(fail), "skip": 0},
             "kernel_log_reports": 0, "kmemleak_unexplained": 0,
             "calls": {"requested": 4321, "calls": 4330, "seed": 97, "unexpected": 0,
                       "sequence_fnv64": "00112233aabbccdd", "ms": 700123,
                       "seconds_bound": 3600, "run_bad": 1234, "blocking": 1600},
             "unready": {"runs": 31, "runs_before_ready": 30, "runs_across_ready": 1,
                         "entropy_after_ms": 640, "ops_per_run": 64, "status": "pass"},
             "faults": {"paths": 15, "points": 700, "errors": 690, "recovered": 10,
                        "paths_failed": 0, "fail_page_alloc": 1},
             "memory": {"slab_kib_boot": 9000, "slab_kib_half": 9400,
                        "slab_kib_end": 9500, "slab_kib_faults": 9520,
                        "growth_kib": 100, "faults_growth_kib": 20,
                        "first_half_growth_kib": 400, "bound_kib": 512,
                        "caches_shrunk": 180, "status": "pass", "reason": None,
                        "top_growth": "kmalloc-96 +60, kmalloc-64 +40",
                        "faults_top_growth": ""}}
    race = {"boot": "stress-race", "title": "race", "outcome": "timeout", "expect": "end",
            "seconds": 99.0, "checks": {"pass": 2, "fail": 1, "skip": 0},
            "kernel_log_reports": 2, "kmemleak_unexplained": None,
            "race": {"cycles": 10000, "cpus": 2, "ms": 300000}}
    mods = {"boot": "stress-modules", "title": "modules", "outcome": "end",
            "expect": "end", "seconds": 50.0, "checks": {"pass": 3, "fail": 0, "skip": 0},
            "kernel_log_reports": 0, "kmemleak_unexplained": 0,
            "modules": {"reloaded": 12, "jitter_cycles": 12, "sockets_generated": 48}}
    checks = [{"id": "stress.figures", "status": "fail", "reason": "stress-race: ended "
               "timeout, expected end"},
              {"id": "stress.targets", "status": "skip", "reason": "calls 4321 < 100000"}]
    if fail:
        checks.append({"id": "stress-calls.guest.stress.calls", "status": "fail",
                       "reason": "x"})
    return {"started": "2026-12-04T01:00:00+00:00", "duration_s": 1234.5,
            "host": {"cpu_model": "AMD EPYC", "nproc": 2},
            "kernel": {"release": "6.1.192-gdebug"}, "checks": checks,
            "stress": {"figures": {"calls": 4321, "seed": 97, "seconds": 3600,
                                   "race_rounds": 5000, "module_rounds": 12},
                       "targets": {"calls": 100000, "race_cycles": 10000,
                                   "module_cycles": 1000},
                       "boots": [calls, race, mods], "calls": 4330, "race_cycles": 10000,
                       "module_cycles": 12, "fault_points": 700,
                       "kernel_log_reports": 2, "kmemleak_unexplained": 0}}


class StressSectionTest(unittest.TestCase):
    def md(self, rep):
        notes = []
        return "\n".join(stress.stress_md(rep, esc, code, notes)), notes

    def test_figures_from_the_report(self):
        md, notes = self.md(report())
        self.assertIn("1234.5 s of wall time", md)
        self.assertIn("Asked for: 4321 calls (seed 97, bounded at 3600 s), 5000 rounds", md)
        self.assertIn("4330 of 4321 calls, seed 97, 0 unexpected results", md)
        self.assertIn("10000 life cycles on 2 CPUs in 300000 ms", md)
        self.assertIn("**timeout** (expected end)", md)
        self.assertIn("| 6 / 0 / 0 |", md)
        self.assertIn("run bad 1234", md)
        self.assertIn("`00112233aabbccdd`", md)
        self.assertIn("31 runs of 64 blocking-API operations, 30 begun before", md)
        self.assertIn("each of 180 slab caches shrunk (KASAN's quarantine emptied): "
                      "9000 KiB at the start, 9400 KiB after half of the calls, 9500 KiB "
                      "after all of them and 9520 KiB after the allocation-failure", md)
        self.assertIn("grew it by **100 KiB** (the caches that grew most: "
                      "`kmalloc-96 +60, kmalloc-64 +40`) and the failure paths by "
                      "**20 KiB** (`none`), each against a bound of 512 KiB", md)
        self.assertIn("is not judged (400 KiB); pass.", md)
        self.assertIn("15 paths (the test interface's run", md)
        self.assertIn("700 points, 690 ended in an error returned and 10 in the right", md)
        self.assertIn("and the page allocator", md)
        self.assertIn("In all: 4330 calls, 10000 race life cycles, 12 module cycles, "
                      "700 allocation failures injected, 2 kernel-log", md)
        self.assertIn("the DRBG module removed and loaded 12 times, the Jitter RNG's 12", md)
        self.assertIn("12 module rounds; issue 20 asks for 100000 calls, 10000 life "
                      "cycles and 1000 module cycles", md)
        self.assertIn("`stress.figures` fail (" + esc("stress-race: ended timeout"), md)
        self.assertIn("`stress.targets` skip (" + esc("calls 4321 < 100000") + ")", md)
        self.assertEqual(notes, ["stress: 1 check(s) failed: stress.figures"])

    def test_a_record_of_the_former_memory_check(self):
        rep = report()
        rep["stress"]["boots"][0]["memory"] = {"slab_kib_before": 9000,
                                               "slab_kib_after": 9500,
                                               "growth_kib": 500, "bound_kib": 40960}
        md, _ = self.md(rep)
        self.assertIn("9000 KiB before, 9500 KiB after (500 KiB, bound 40960 KiB; a run "
                      "of the former check", md)

    def test_a_failed_memory_check_says_why(self):
        rep = report()
        mem = rep["stress"]["boots"][0]["memory"]
        mem.update(growth_kib=900, status="fail", reason="unreclaimable slab grew more "
                   "than the bound over the second half of the calls")
        md, _ = self.md(rep)
        self.assertIn("**900 KiB**", md)
        self.assertIn("fail: unreclaimable slab grew more than the bound over the second "
                      "half of the calls.", md)

    def test_a_failed_check_is_named(self):
        md, notes = self.md(report(fail=True))
        self.assertIn("`stress-calls.guest.stress.calls`", md.split("Failed:")[1])
        self.assertIn("2 check(s) failed", notes[0])

    def test_no_report_is_a_placeholder_naming_the_command(self):
        md, notes = self.md(None)
        self.assertIn("::: placeholder", md)
        self.assertIn("`make stress` writes it", md)
        self.assertEqual(notes, [])

    def test_in_the_appendix(self):
        with tempfile.TemporaryDirectory() as top:
            os.makedirs(os.path.join(top, "build/stress"))
            with open(os.path.join(top, stress.REPORT), "w") as f:
                json.dump(report(), f)
            md, notes = hardening.render({"top": top, "report": None, "esc": esc,
                                          "code": code})
        self.assertLess(md.index("#hardening-stress"), md.index("#hardening-i386"))
        self.assertIn("10000 life cycles", md)
        self.assertIn("stress: 1 check(s) failed", " ".join(notes))


if __name__ == "__main__":
    unittest.main()
