# SPDX-License-Identifier: GPL-2.0-only
"""make stress's boot plan (harness/stages/stress.py): the figures are the
verb's options, put on each boot's kernel command line; the FIPS and
Jitter RNG failure boots of the test kernel's plan come again on the
debug kernel; a name or a figure that cannot be is a one-line error.
"""

import json
import os
import tempfile
import unittest

from harness.base import config
from harness.stages import plan, stress

FIG = {"calls": 123456, "seed": 77, "seconds": 900, "race_rounds": 5000,
       "module_rounds": 300}


class StressPlanTest(unittest.TestCase):
    def test_figures_on_the_command_line(self):
        by = {b["name"]: b for b in stress.stress_plan(FIG)}
        calls = by["stress-calls"]["append"].split()
        for arg in ("conform.stress_calls=123456", "conform.stress_seed=77",
                    "conform.stress_seconds=900", "conform.kmemleak=1", "kunit.enable=0"):
            self.assertIn(arg, calls)
        self.assertIn("drbg_kunit.race_rounds=5000", by["stress-race"]["append"].split())
        mods = by["stress-modules"]["append"].split()
        self.assertIn("conform.modules_rounds=300", mods)
        self.assertIn("conform.modules_jitter=1", mods)
        self.assertIn("conform.modules_seconds=900", mods)
        self.assertNotIn("{", " ".join(b["append"] for b in by.values()))

    def test_every_boot_on_a_debug_kernel_with_its_own_prefix(self):
        boots = stress.stress_plan(FIG)
        self.assertEqual(len({b["name"] for b in boots}), len(boots))
        for b in boots:
            # (the modules kernel has the debug kernel's options too)
            self.assertEqual(b["variant"], "modules" if b["name"] == "stress-modules"
                             else "debug", b["name"])
            self.assertEqual(b["prefix"], b["name"])
            self.assertIn("watchdog_thresh=60", b["append"])
            self.assertEqual("conform.kmemleak=1" in b["append"], b["expect"] == "end",
                             b["name"])

    def test_failure_boots_come_again(self):
        by = {b["name"]: b for b in stress.stress_plan(FIG)}
        test = {b["name"]: b for b in plan.BOOTS}
        for name in plan.STRESS_AGAIN:
            again = by[f"stress-{name}"]
            self.assertTrue(again["append"].startswith(test[name]["append"]))
            self.assertEqual(again["expect"], test[name]["expect"])
            self.assertGreaterEqual(again["timeout"], test[name]["timeout"])

    def test_timeouts_grow_with_the_figures(self):
        small = {b["name"]: b["timeout"] for b in stress.stress_plan(
            dict(FIG, seconds=60, race_rounds=100, module_rounds=100))}
        large = {b["name"]: b["timeout"] for b in stress.stress_plan(FIG)}
        self.assertEqual(large["stress-calls"] - small["stress-calls"], 840)
        self.assertEqual(large["stress-race"] - small["stress-race"], 490)
        self.assertEqual(large["stress-modules"] - small["stress-modules"], 840)

    def test_only(self):
        self.assertEqual([b["name"] for b in stress.stress_plan(FIG, ["stress-race"])],
                         ["stress-race"])
        with self.assertRaises(SystemExit) as e:
            stress.stress_plan(FIG, ["stress-nosuch"])
        self.assertIn("stress-nosuch", str(e.exception))

    def test_bad_figures(self):
        class Args:
            calls, seed, seconds, race_rounds, module_rounds = 10, 1, 0, 10, 10
        with self.assertRaises(SystemExit) as e:
            stress.figures_of(Args)
        self.assertIn("--seconds must be positive", str(e.exception))



class RejudgeTest(unittest.TestCase):
    """--rejudge: the judge again on an earlier report, booting nothing;
    its verdicts replace the old ones, and a missing report is a
    one-line error."""

    def args(self, out):
        class Args:
            rejudge = True
        Args.out = out
        return Args

    def test_rejudge_rewrites_the_verdicts(self):
        with tempfile.TemporaryDirectory() as d:
            rep = {"started": "2026-12-04T01:00:00+00:00", "boots": [
                {"name": "stress-calls", "outcome": "end", "expect": "end", "seconds": 1}],
                "checks": [{"id": "stress-calls.guest.stress.calls", "status": "pass",
                            "boot": "stress-calls", "counts": {"calls": 5},
                            "sequence_fnv64": "ab"},
                           {"id": "stress.figures", "status": "pass"}],
                "stress": {"figures": dict(FIG, calls=10)}}
            with open(os.path.join(d, "report.json"), "w") as f:
                json.dump(rep, f)
            self.assertEqual(stress.stress(self.args(d)), 1)
            with open(os.path.join(d, "report.json")) as f:
                out = json.load(f)
        row = out["stress"]["boots"][0]
        self.assertEqual(row["calls"]["sequence_fnv64"], "ab")
        figures = [c for c in out["checks"] if c["id"] == "stress.figures"]
        self.assertEqual(len(figures), 1)
        self.assertEqual(figures[0]["status"], "fail")
        self.assertIn("5 of 10 calls made", figures[0]["reason"])
        self.assertIn("rejudged", out)

    def test_the_kept_record_rejudges_as_it_was_judged(self):
        """The stress record make evidence keeps, judged again: it passed,
        so the rejudged report passes and the verb exits 0."""
        with open(config.top("evidence/stress.json")) as f:
            kept = json.load(f)
        self.assertEqual(kept["summary"]["failed"], 0)
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "report.json"), "w") as f:
                json.dump(kept, f)
            self.assertEqual(stress.stress(self.args(d)), 0)
            with open(os.path.join(d, "report.json")) as f:
                out = json.load(f)
        self.assertEqual((out["summary"]["passed"], out["summary"]["failed"]),
                         (kept["summary"]["passed"], 0))
        self.assertEqual(out["stress"]["figures"], kept["stress"]["figures"])

    def test_no_report(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(SystemExit) as e:
                stress.stress(self.args(d))
        self.assertIn("--rejudge: no stress report", str(e.exception))


if __name__ == "__main__":
    unittest.main()
