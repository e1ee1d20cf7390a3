# SPDX-License-Identifier: GPL-2.0-only
"""make stress in shards (stress_shard.py): the boots dealt by their
timeouts, every boot in one shard; the merge of every shard's report is
the report one machine writes (the same checks, the same stress section
from the same judge), and refuses what is not every shard of one run."""

import copy
import json
import os
import shutil
import tempfile
import types
import unittest
from unittest import mock

from harness.base.checks import Check
from harness.base.report import as_dicts
from harness.judges import stress as judge
from harness.stages import stress_shard as ss

COSTS = [("calls", 5400), ("race", 2300), ("modules", 5400), ("fips", 3600),
         ("absent", 1200), ("startup", 1200)]
FIG = {"calls": 100000, "seed": 20, "seconds": 3600, "race_rounds": 5000,
       "module_rounds": 1000}


def boot(name):
    return {"name": name, "title": name, "outcome": "end", "expect": "end", "seconds": 10.0}


def checks_of(name):
    out = [Check.passed(f"boot.{name}.kernel-log", "log", boot=name,
                        counts={"reports": 0})]
    if name == "calls":
        out.append(Check.passed("stress-calls.guest.stress.calls", "calls", boot=name,
                                counts={"calls": 100000, "asked": 100000}))
    if name == "race":
        out.append(Check.passed("stress-race.kunit.drbg_race.async_vs_lifecycle", "race",
                                boot=name, details={"log": [
                                    "async_vs_lifecycle: 10000 iterations on 2 CPUs in 9 ms"]}))
    return out


def report_of(names, shard=None, inputs="d1", started="2026-12-07T05:00:00+00:00",
              duration=100.0):
    boots = [boot(n) for n in names]
    checks = [c for n in names for c in checks_of(n)]
    s = judge.summary(boots, checks, FIG)
    rep = {"schema": 1, "started": started, "duration_s": duration, "host": {"nproc": 2},
           "inputs": {"stress": inputs}, "boots": boots, "stress": s,
           "checks": as_dicts(checks + [judge.check(s), judge.targets(s)])}
    if shard:
        rep["shard"] = list(shard)
    return rep


class ShareTest(unittest.TestCase):
    def test_longest_first_to_the_least_loaded(self):
        a, b = ss.share(1, 2, COSTS), ss.share(2, 2, COSTS)
        # calls and modules first, one each; fips to shard 1 (a tie goes to
        # the lower i), then race, absent and startup to the lighter shard 2.
        self.assertEqual(a, ["calls", "fips"])
        self.assertEqual(b, ["race", "modules", "absent", "startup"])
        for n in (1, 2, 3, 5, 8):
            got = [x for i in range(1, n + 1) for x in ss.share(i, n, COSTS)]
            self.assertEqual(sorted(got), sorted(x for x, _ in COSTS))

    def test_the_two_long_boots_never_share_a_shard(self):
        plan = ss.plan_costs()
        a, b = ss.share(1, 2, plan), ss.share(2, 2, plan)
        self.assertEqual({"stress-calls", "stress-modules"} & set(a), {"stress-calls"})
        self.assertIn("stress-modules", b)


class MergeTest(unittest.TestCase):
    def shards(self, n=2, **kw):
        return [report_of(ss.share(i, n, COSTS), shard=(i, n), **kw) for i in range(1, n + 1)]

    def test_the_merge_is_the_one_machine_report(self):
        one = report_of([x for x, _ in COSTS])
        got = ss.merge(self.shards(), COSTS)
        self.assertEqual([b["name"] for b in got["boots"]], [x for x, _ in COSTS])
        self.assertEqual(got["stress"], one["stress"])
        merged = {c.id: c.status for c in got["checks"]}
        self.assertEqual(merged, {c["id"]: c["status"] for c in one["checks"]})
        self.assertEqual(ss.differences(dict(got, checks=as_dicts(got["checks"])), one), [])
        self.assertEqual(len(got["shards"]), 2)

    def test_the_shards_own_totals_are_judged_again_over_all(self):
        shard_totals = [{c["id"]: c for c in r["checks"]}["stress.figures"]["counts"]
                        for r in self.shards()]
        self.assertEqual([t["calls"] for t in shard_totals], [100000, 0])
        self.assertEqual([t["race_cycles"] for t in shard_totals], [0, 10000])
        got = ss.merge(self.shards(), COSTS)["checks"]
        self.assertEqual([c.id for c in got].count("stress.figures"), 1)
        self.assertEqual([c.id for c in got].count("stress.targets"), 1)
        fig = next(c for c in got if c.id == "stress.figures")
        self.assertEqual((fig.counts["calls"], fig.counts["race_cycles"], fig.counts["boots"]),
                         (100000, 10000, 6))

    def test_not_every_shard_of_one_run_is_refused(self):
        two = self.shards()
        other = copy.deepcopy(two)
        other[1]["inputs"] = {"stress": "d2"}
        wrong = copy.deepcopy(two)
        wrong[0]["boots"] = wrong[0]["boots"][:1]
        figs = copy.deepcopy(two)
        figs[1]["stress"]["figures"] = dict(FIG, calls=5)
        for reps in (two[:1], self.shards(3)[:2], other, wrong, figs,
                     [two[0], two[0]]):
            with self.subTest(), self.assertRaises(SystemExit):
                ss.merge(reps, COSTS)

    def test_the_verb_merges_files_and_compares(self):
        d = tempfile.mkdtemp(prefix="stress-shards-")
        self.addCleanup(shutil.rmtree, d)
        paths = []
        for i, rep in enumerate(self.shards(), 1):
            rep.pop("shard")          # make stress writes none: the name says it
            paths.append(os.path.join(d, f"shard-{i}-of-2.json"))
            with open(paths[-1], "w") as f:
                json.dump(rep, f)
        one = report_of([x for x, _ in COSTS])
        other = os.path.join(d, "one.json")
        with open(other, "w") as f:
            json.dump(one, f)
        args = types.SimpleNamespace(boots_of=None, files=paths, compare=other)
        with mock.patch.object(ss, "OUT", d), mock.patch.object(ss, "plan_costs",
                                                                return_value=COSTS):
            self.assertEqual(ss.run(args), 0)
            with open(os.path.join(d, "report.json")) as f:
                self.assertEqual(json.load(f)["stress"]["calls"], 100000)
            one["stress"]["race_cycles"] = 1
            with open(other, "w") as f:
                json.dump(one, f)
            self.assertEqual(ss.run(args), 1)


if __name__ == "__main__":
    unittest.main()
