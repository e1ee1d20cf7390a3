# SPDX-License-Identifier: GPL-2.0-only
"""make mutants in shards (kmutants_shard.py): a shard takes every N-th
mutant of the selection; the merge of every shard of one run is the
record one machine writes, verdict for verdict, and refuses files that
are not every shard of one run on the same inputs."""

import json
import os
import shutil
import tempfile
import types
import unittest
from unittest import mock

from harness.stages import kmutants_report as report
from harness.stages import kmutants_run as runner
from harness.stages import kmutants_shard as shards


def mutant(n, path="crypto/drbg.c"):
    return {"id": f"drbg:f:cmp:{n:06d}", "n": n, "file": path, "line": 10 + n,
            "func": "f", "op": "cmp", "what": f"m{n}"}


def verdict(m, status="killed", boot="drbg"):
    return dict(m, build="schema", status=status, boot=boot if status != "survived" else None,
                failed=[], boots=[], seconds=1.0)


# One machine's verdicts on six mutants: the record every merge must equal.
MUTS = [mutant(n) for n in range(1, 7)]
ONE = {1: ("killed", "drbg"), 2: ("survived", None), 3: ("timeout", "fips-drbg"),
       4: ("killed", "jitter-absent"), 5: ("killed", "drbg"), 6: ("survived", None)}


def run_of(results, scope, started="2026-12-07T04:00:00+00:00", wall=100, inputs="d1"):
    return {"started": started, "wall_s": wall, "generated": 6, "selected": len(results),
            "scope": scope, "boots": ["drbg", "fips-drbg", "jitter-absent"],
            "variant": "test", "inputs": {"mutants": inputs}, "timeouts": {"drbg": 90},
            "accel": "tcg", "files": report.per_file(results, {"crypto/drbg.c": 40}),
            "results": results, "stale_equivalents": []}


def shard_file(i, n, scope="all", **kw):
    mine = shards.pick(MUTS, scope, (i, n))[0]
    results = [verdict(m, *ONE[m["n"]]) for m in mine]
    return {"schema": 1, "shard": [i, n], "host": {"node": f"m{i}"},
            "parts": {"drbg": run_of(results, shards.pick(MUTS, scope, (i, n))[1], **kw)}}


class PickTest(unittest.TestCase):
    def test_every_nth_from_the_ith_covers_the_selection_once(self):
        got = [shards.pick(MUTS, "all", (i, 4))[0] for i in range(1, 5)]
        self.assertEqual([[m["n"] for m in g] for g in got], [[1, 5], [2, 6], [3], [4]])
        self.assertEqual(shards.pick(MUTS, "all", (2, 4))[1], "all; shard 2 of 4: 2 of 6")
        self.assertEqual(shards.pick(MUTS, "all", None), (MUTS, "all"))

    def test_parse(self):
        self.assertEqual(shards.parse("2/3"), (2, 3))
        self.assertIsNone(shards.parse(""))
        for bad in ("0/2", "3/2", "1-2", "x"):
            with self.subTest(bad=bad), self.assertRaises(SystemExit):
                shards.parse(bad)

    def test_the_runner_shards_after_choosing(self):
        args = types.SimpleNamespace(resume=False, only="", first=4, shard=(2, 2))
        sel, scope = runner.select_shard(MUTS, args, "drbg")
        self.assertEqual([m["n"] for m in sel], [2, 4])
        self.assertEqual(scope, "the first 4 in file order; shard 2 of 2: 2 of 4")


class EveryShardTest(unittest.TestCase):
    """The one test of "every shard 1..N of one run, each once" that the
    mutants' and the stress run's merges share; its error names what is
    wrong."""

    def refused(self, given):
        with mock.patch("sys.stderr"), self.assertRaises(SystemExit) as cm:
            shards.every_shard("t", given)
        return str(cm.exception)

    def test_every_shard_once(self):
        self.assertEqual(shards.every_shard("t", [[2, 3], [1, 3], [3, 3]]), 3)
        self.assertEqual(shards.every_shard("t", [(1, 1)]), 1)

    def test_missing_twice_mixed_and_malformed(self):
        self.assertIn("missing [3]", self.refused([[1, 3], [2, 3]]))
        self.assertIn("missing [2]; twice [1]", self.refused([[1, 2], [1, 2]]))
        self.assertIn("N is [2, 3]", self.refused([[1, 2], [2, 3]]))
        self.assertIn("not every shard", self.refused([[1, 2], None]))
        self.assertIn("not every shard", self.refused([]))


class MergeTest(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="shards-")
        self.addCleanup(shutil.rmtree, self.d)
        out = mock.patch.object(report, "OUT", self.d)
        out.start()
        self.addCleanup(out.stop)

    def write(self, data, name):
        path = os.path.join(self.d, name)
        with open(path, "w") as f:
            json.dump(data, f)
        return path

    def one_machine(self):
        return {"schema": 1, "parts": {"drbg": run_of([verdict(m, *ONE[m["n"]])
                                                        for m in MUTS], "all", wall=300)}}

    def merge(self, *datas, compare=None):
        paths = [self.write(d, f"shard-{d['shard'][0]}-of-{d['shard'][1]}.json")
                 for d in datas]
        return shards.merge_verb(types.SimpleNamespace(files=paths, compare=compare))

    def test_merged_shards_are_the_one_machine_record(self):
        one = self.write(self.one_machine(), "one.json")
        rc = self.merge(shard_file(1, 2, wall=120), shard_file(2, 2, wall=150), compare=one)
        self.assertEqual(rc, 0)
        with open(os.path.join(self.d, "series.json")) as f:
            series = json.load(f)
        run = series["parts"]["drbg"]
        self.assertEqual(shards.verdicts(series), shards.verdicts(self.one_machine()))
        self.assertEqual([r["n"] for r in run["results"]], [1, 2, 3, 4, 5, 6])
        self.assertEqual(run["files"], self.one_machine()["parts"]["drbg"]["files"])
        self.assertEqual((run["wall_s"], run["cpu_wall_s"]), (150, 270))
        self.assertEqual(run["scope"], "all, in 2 shards")
        self.assertEqual([s["host"]["node"] for s in run["shards"]], ["m1", "m2"])
        self.assertTrue(os.path.exists(os.path.join(self.d, "series.md")))
        with open(os.path.join(self.d, "compare.json")) as f:
            cmp = json.load(f)
        self.assertTrue(cmp["same"])
        self.assertEqual((cmp["verdicts"], cmp["differences"]), (6, []))
        self.assertEqual(cmp["merged"]["drbg"]["wall_s"], 150)
        self.assertEqual(cmp["single"]["drbg"]["wall_s"], 300)
        self.assertIn("mutants", cmp["inputs"])

    def test_a_differing_verdict_fails_the_comparison(self):
        other = self.one_machine()
        other["parts"]["drbg"]["results"][1]["status"] = "killed"
        one = self.write(other, "one.json")
        self.assertEqual(self.merge(shard_file(1, 2), shard_file(2, 2), compare=one), 1)
        with open(os.path.join(self.d, "compare.json")) as f:
            cmp = json.load(f)
        self.assertFalse(cmp["same"])
        self.assertEqual(cmp["differences"], ["drbg:f:cmp:000002: ('survived', None) "
                                              "against ('killed', None)"])

    def test_other_inputs_cannot_be_compared(self):
        one = self.write(self.one_machine(), "one.json")
        with self.assertRaises(SystemExit):
            self.merge(shard_file(1, 2, inputs="d2"), shard_file(2, 2, inputs="d2"),
                       compare=one)

    def test_not_every_shard_of_one_run_is_refused(self):
        for datas in ((shard_file(1, 3), shard_file(2, 3)),          # one missing
                      (shard_file(1, 2), shard_file(2, 3)),          # two runs
                      (shard_file(1, 2), shard_file(2, 2, inputs="d2")),
                      (shard_file(1, 2), shard_file(2, 2, scope="the first 4 in file "
                                                              "order"))):
            with self.subTest(shards=[d["shard"] for d in datas]), \
                    self.assertRaises(SystemExit):
                shards.merge_shards(datas)
        twice = shard_file(2, 2)
        twice["parts"]["drbg"]["results"].append(verdict(MUTS[0]))
        with self.assertRaises(SystemExit):
            shards.merge_shards([shard_file(1, 2), twice])

    def test_the_runner_writes_a_shard_file_not_series(self):
        args = types.SimpleNamespace(resume=False, only="", first=0, shard=(1, 2),
                                     variant="test", accel="tcg")
        texts = {}
        with mock.patch.object(runner.kmutants, "part_mutants",
                               return_value=(MUTS, {"crypto/drbg.c": 40})), \
                mock.patch.object(runner, "judge_part", side_effect=lambda p, a, t, sel: (
                    [verdict(m, *ONE[m["n"]]) for m in sel], {"drbg": 90})), \
                mock.patch.object(runner.report, "equivalents", return_value={}):
            runner.run_part("drbg", args, texts)
        self.assertFalse(os.path.exists(os.path.join(self.d, "series.json")))
        with open(os.path.join(self.d, "shard-1-of-2.json")) as f:
            data = json.load(f)
        self.assertEqual(data["shard"], [1, 2])
        self.assertEqual([r["n"] for r in data["parts"]["drbg"]["results"]], [1, 3, 5])


if __name__ == "__main__":
    unittest.main()
