# SPDX-License-Identifier: GPL-2.0-only
"""make stress's judge (harness/judges/stress.py): one row per boot with
what it ran and what was seen, and the verdicts on the figures.

- The rows take their figures from the checks of their own boot: the
  seeded calls, the race's life cycles (from the KUnit case's log line),
  the kernel-log and kmemleak reports, slab at four points and the caches
  that grew most.
- stress.figures fails when a boot did not end as planned, when fewer
  calls were made than asked (the guest's time bound came first), and
  when the race ran fewer life cycles than asked (a kernel that ignores
  drbg_kunit.race_rounds=).
- stress.targets is skipped, saying so, when smaller figures than issue
  20's were asked for.
"""

import unittest

from harness.base.checks import Check
from harness.judges import stress

FIG = {"calls": 1000, "seed": 20, "seconds": 600, "race_rounds": 100,
       "module_rounds": 10}


def boots(calls_outcome="end"):
    return [{"name": "stress-calls", "outcome": calls_outcome, "expect": "end",
             "seconds": 100.0, "append": "conform.stress_calls=1000", "title": "calls"},
            {"name": "stress-race", "outcome": "end", "expect": "end", "seconds": 50.0,
             "append": "drbg_kunit.race_rounds=100", "title": "race"},
            {"name": "stress-modules", "outcome": "end", "expect": "end", "seconds": 9.0,
             "append": "conform.modules_rounds=10", "title": "modules"}]


def checks(calls=1000, cycles=200, reports=0, leaks=0, reloaded=10):
    def c(cid, boot, status="pass", counts=None, details=None, extra=None):
        return Check(cid, status, cid, reason=None if status == "pass" else "why",
                     boot=boot, counts=counts or {}, details=details or {},
                     extra=extra or {})
    return [
        c("boot.stress-calls", "stress-calls"),
        c("boot.stress-calls.kernel-log", "stress-calls", "fail" if reports else "pass",
          {"reports": reports, "allowlisted": 0}),
        c("stress-calls.guest.kmemleak.stress-calls", "stress-calls",
          "fail" if leaks else "pass", {"reports": leaks, "unexplained": leaks,
                                        "allowlisted": 0}),
        c("stress-calls.guest.stress.calls", "stress-calls", "pass",
          {"requested": 1000, "calls": calls, "seed": 20},
          extra={"sequence_fnv64": "150126cb8399f9cc"}),
        c("stress-calls.guest.stress.memory", "stress-calls", "pass",
          {"slab_kib_boot": 100, "slab_kib_half": 130, "slab_kib_end": 170,
           "slab_kib_faults": 170, "growth_kib": 40, "faults_growth_kib": 0,
           "bound_kib": 512},
          extra={"top_growth": "kmalloc-96 +24", "faults_top_growth": ""}),
        c("stress-calls.guest.stress.faults.run.drbg_pr_sha256", "stress-calls", "pass",
          {"points": 40, "errors": 38, "recovered": 2}),
        c("stress-calls.guest.stress.faults.af-alg.jitterentropy_rng", "stress-calls",
          "fail", {"points": 10, "errors": 9, "recovered": 0}),
        c("stress-calls.guest.stress.faults", "stress-calls", "pass",
          {"operations": 2, "failslab": 1, "fail_page_alloc": 1}),
        c("boot.stress-race", "stress-race"),
        c("boot.stress-race.kernel-log", "stress-race", "pass", {"reports": 0}),
        c("stress-race.kunit.drbg_race.async_vs_lifecycle", "stress-race", "pass",
          details={"log": [f"# async_vs_lifecycle: {cycles} iterations on 2 CPUs "
                           "in 5000 ms"]}),
        c("stress-modules.guest.modules.rmmod_loop", "stress-modules", "pass",
          {"rounds": reloaded, "unloaded": reloaded, "reloaded": reloaded,
           "jitter_cycles": reloaded}),
    ]


class StressJudgeTest(unittest.TestCase):
    def test_rows_and_totals(self):
        s = stress.summary(boots(), checks(), FIG)
        calls, race, mods = s["boots"]
        self.assertEqual(mods["modules"]["jitter_cycles"], 10)
        self.assertEqual(s["module_cycles"], 10)
        self.assertEqual(calls["calls"]["calls"], 1000)
        self.assertEqual(calls["calls"]["seed"], 20)
        # (a guest record's string field is an extra of its check, not a count)
        self.assertEqual(calls["calls"]["sequence_fnv64"], "150126cb8399f9cc")
        self.assertEqual(calls["memory"]["growth_kib"], 40)
        # (the caches that grew most are strings: extras of the check)
        self.assertEqual((calls["memory"]["top_growth"], calls["memory"]["status"]),
                         ("kmalloc-96 +24", "pass"))
        self.assertEqual((calls["kernel_log_reports"], calls["kmemleak_unexplained"]),
                         (0, 0))
        self.assertEqual(calls["checks"], {"pass": 7, "fail": 1, "skip": 0})
        self.assertEqual(calls["faults"], {"points": 50, "errors": 47, "recovered": 2,
                                           "paths": 2, "paths_failed": 1, "operations": 2,
                                           "failslab": 1, "fail_page_alloc": 1})
        self.assertEqual(s["fault_points"], 50)
        self.assertEqual(race["race"], {"cycles": 200, "cpus": 2, "ms": 5000})
        self.assertEqual((s["calls"], s["race_cycles"]), (1000, 200))
        self.assertEqual(stress.check(s).status, "pass")

    def test_reports_are_counted(self):
        s = stress.summary(boots(), checks(reports=3, leaks=2), FIG)
        self.assertEqual((s["kernel_log_reports"], s["kmemleak_unexplained"]), (3, 2))
        self.assertEqual(s["boots"][0]["failed"],
                         ["boot.stress-calls.kernel-log",
                          "stress-calls.guest.kmemleak.stress-calls",
                          "stress-calls.guest.stress.faults.af-alg.jitterentropy_rng"])

    def test_fewer_calls_than_asked_fails(self):
        c = stress.check(stress.summary(boots(), checks(calls=640), FIG))
        self.assertEqual(c.status, "fail")
        self.assertIn("stress-calls: 640 of 1000 calls made", c.reason)

    def test_fewer_race_cycles_than_asked_fails(self):
        c = stress.check(stress.summary(boots(), checks(cycles=4000 // 20), dict(
            FIG, race_rounds=2000)))
        self.assertEqual(c.status, "fail")
        self.assertIn("stress-race: 200 of 4000 life cycles", c.reason)

    def test_fewer_module_cycles_than_asked_fails(self):
        c = stress.check(stress.summary(boots(), checks(reloaded=7), FIG))
        self.assertEqual(c.status, "fail")
        self.assertIn("stress-modules: 7 of 10 module cycles", c.reason)

    def test_a_boot_that_hung_fails(self):
        c = stress.check(stress.summary(boots("timeout"), checks(), FIG))
        self.assertEqual(c.status, "fail")
        self.assertIn("stress-calls: ended timeout, expected end", c.reason)

    def test_no_boot_fails(self):
        self.assertEqual(stress.check(stress.summary([], [], FIG)).status, "fail")

    def test_targets(self):
        small = stress.targets(stress.summary(boots(), checks(), FIG))
        self.assertEqual(small.status, "skip")
        self.assertIn("calls 1000 < 100000", small.reason)
        self.assertIn("race_cycles 200 < 10000", small.reason)
        self.assertIn("module_cycles 10 < 1000", small.reason)
        full = dict(FIG, calls=100000, race_rounds=5000, module_rounds=1000)
        self.assertEqual(stress.targets(stress.summary(boots(), checks(), full)).status,
                         "pass")


if __name__ == "__main__":
    unittest.main()
