# SPDX-License-Identifier: GPL-2.0-only
"""The generated mutants of the harness (hmutants.py, hmutants_run.py):
the operators, the ids, the tracer that picks the tests of a line, and
the score and fates."""

import ast
import os
import shutil
import tempfile
import textwrap
import unittest
from types import SimpleNamespace as NS
from unittest import mock

from harness.base import config, files
from harness.stages import hmutants, hmutants_run

SAMPLE = textwrap.dedent('''\
    import os


    def verdict(problems, limit):
        """Doc."""
        if len(problems) > 3:
            say(f"many {len(problems) == 2}")
        os.remove("stale")
        write(problems, limit)
        return [p for p in problems if p != limit]


    def flag(x):
        return x is None


    def untouched(a, b):
        return a < b
    ''')


def mutants_of(text, names=("verdict", "flag")):
    return hmutants.generate("stages/sample.py", text, names)


class OperatorTest(unittest.TestCase):
    def setUp(self):
        self.ms = mutants_of(SAMPLE)

    def by(self, op):
        return [(m["old"], m["new"]) for m in self.ms if m["op"] == op]

    def test_each_operator(self):
        self.assertIn(("len(problems) > 3", "(len(problems) <= 3)"), self.by("cmp"))
        self.assertIn(("p != limit", "(p == limit)"), self.by("cmp"))
        self.assertIn(("x is None", "(x is not None)"), self.by("cmp"))
        self.assertEqual(sorted(self.by("const")), [("3", "(2)"), ("3", "(4)")])
        self.assertEqual(self.by("call"), [("write(problems, limit)", "pass")])
        self.assertEqual(self.by("zero"), [('os.remove("stale")', "pass")])
        self.assertIn(("problems, limit", "limit, problems"), self.by("swap"))
        self.assertEqual(sorted(n.split("\n")[0].strip() for _, n in self.by("ret")),
                         ["return False", "return []"])

    def test_not_mutated(self):
        # say() prints progress; an f-string's parts have no position;
        # a function the scope does not name is left alone.
        self.assertFalse([m for m in self.ms if "say(" in m["old"]])
        self.assertFalse([m for m in self.ms if "== 2" in m["old"]])
        self.assertFalse([m for m in self.ms if m["function"] == "untouched"])

    def test_every_mutant_is_python(self):
        for m in self.ms:
            ast.parse(hmutants.apply(SAMPLE, m))

    def test_ids_survive_an_edit_elsewhere(self):
        moved = mutants_of("# a new first line\n\n" + SAMPLE)
        self.assertEqual([m["id"] for m in self.ms], [m["id"] for m in moved])
        self.assertEqual(len({m["id"] for m in self.ms}), len(self.ms))

    def test_moved_text_is_refused(self):
        for m in self.ms:
            with self.subTest(m["id"]), self.assertRaises(SystemExit):
                hmutants.apply("x = 1\n" + SAMPLE, m)

    def test_a_default_value_is_run_by_the_function_s_callers(self):
        # the def line runs at import; a call runs the first statement
        # after the docstring
        text = "def f(x, n=3):\n    \"\"\"Doc.\"\"\"\n    return x[:n]\n"
        (m,) = [m for m in hmutants.generate("stages/s.py", text, ("f",))
                if m["op"] == "const" and m["new"] == "(4)"]
        self.assertEqual((m["line"], m["cover"]), (1, 3))
        lines = {("stages/s.py", 3): ["t.caller"], ("stages/s.py", 1): ["t.importer"]}
        self.assertEqual(hmutants_run.covering(m, lines, {"t.caller": 1, "t.importer": 1}),
                         ["t.caller", "t.importer"])

    def test_scope_naming_a_missing_function_dies(self):
        with self.assertRaises(SystemExit):
            mutants_of(SAMPLE, ("verdict", "gone"))

    def test_the_real_scope_generates_valid_python(self):
        ms = hmutants.all_mutants()
        self.assertGreater(len(ms), 300)
        self.assertEqual(set(hmutants.OPS), {m["op"] for m in ms})
        texts = {}
        for m in ms:
            if m["file"] not in texts:
                with open(config.top("harness", m["file"])) as f:
                    texts[m["file"]] = f.read()
            ast.parse(hmutants.apply(texts[m["file"]], m))


class MutatedTest(unittest.TestCase):
    def test_the_file_is_put_back_even_when_the_run_raises(self):
        top = tempfile.mkdtemp(prefix="hmutants-test-")
        self.addCleanup(shutil.rmtree, top)
        path = os.path.join(top, "harness", "stages", "sample.py")
        os.makedirs(os.path.dirname(path))
        with open(path, "w") as f:
            f.write(SAMPLE)
        m = next(m for m in mutants_of(SAMPLE) if m["op"] == "cmp")
        with self.assertRaises(RuntimeError):
            with hmutants_run.mutated(top, m):
                with open(path) as f:
                    self.assertEqual(f.read(), hmutants.apply(SAMPLE, m))
                raise RuntimeError("the run broke")
        with open(path) as f:
            self.assertEqual(f.read(), SAMPLE)


class TraceTest(unittest.TestCase):
    """The tracer on a repository of one module and two tests, one of
    which runs the module in a Python child."""

    def test_lines_of_each_test_in_process_and_in_children(self):
        top = tempfile.mkdtemp(prefix="hmutants-test-")
        self.addCleanup(shutil.rmtree, top)
        os.makedirs(os.path.join(top, "harness", "stages"))
        os.makedirs(os.path.join(top, "tests"))
        shutil.copy(config.top("harness", "stages", "hmutants_trace.py"),
                    os.path.join(top, "harness", "stages"))
        for d in ("harness", "tests"):
            open(os.path.join(top, d, "__init__.py"), "w").close()
        with open(os.path.join(top, "harness", "mod.py"), "w") as f:
            f.write("def a(x):\n    return x + 1\n\n\ndef b(x):\n    return x * 2\n")
        with open(os.path.join(top, "tests", "test_mod.py"), "w") as f:
            f.write(textwrap.dedent('''\
                import subprocess, sys, unittest
                from harness import mod

                class T(unittest.TestCase):
                    def test_a(self):
                        self.assertEqual(mod.a(1), 2)

                    def test_b_in_a_child(self):
                        out = subprocess.run([sys.executable, "-c",
                                              "from harness import mod; print(mod.b(2))"],
                                             capture_output=True, text=True).stdout
                        self.assertEqual(out.strip(), "4")
                '''))
        lines, times = hmutants_run.trace(top, ["mod.py"], 120)
        self.assertEqual(lines[("mod.py", 2)], ["tests.test_mod.T.test_a"])
        self.assertEqual(lines[("mod.py", 6)], ["tests.test_mod.T.test_b_in_a_child"])
        self.assertEqual(set(times), {"tests.test_mod.T.test_a",
                                      "tests.test_mod.T.test_b_in_a_child"})
        m = {"file": "mod.py", "line": 6, "old": "x * 2"}
        self.assertEqual(hmutants_run.covering(m, lines, times),
                         ["tests.test_mod.T.test_b_in_a_child"])


def result(mid, killed, line=1):
    return {"id": mid, "file": "stages/x.py", "line": line, "killed": killed,
            "source": "x", "old": "a", "new": "b"}


class ScoreTest(unittest.TestCase):
    def test_a_survivor_without_a_fate_fails_the_score(self):
        rs = [result("k", True), result("s", False), result("e", False)]
        stale = hmutants_run.settle(rs, {"e": "prints only"})
        self.assertEqual(stale, [])
        s = hmutants_run.score(rs)
        self.assertEqual((s["killed"], s["equivalent"], s["survived"], s["rate"]),
                         (1, 1, 1, 0.5))
        score, fates = hmutants_run.as_checks(rs, stale)
        self.assertEqual((score.status, fates.status), ("fail", "pass"))
        self.assertIn("s survived", score.reason)

    def test_all_killed_or_equivalent_passes(self):
        rs = [result("k", True), result("e", False)]
        score, fates = hmutants_run.as_checks(rs, hmutants_run.settle(rs, {"e": "why"}))
        self.assertEqual((score.status, fates.status), ("pass", "pass"))

    def test_a_fate_for_a_killed_mutant_is_stale(self):
        rs = [result("k", True)]
        stale = hmutants_run.settle(rs, {"k": "said equivalent"})
        self.assertEqual(stale, ["k"])
        self.assertEqual(hmutants_run.as_checks(rs, stale)[1].status, "fail")

    def test_the_table_names_each_survivor_s_change_and_fate(self):
        rs = [result("k", True), dict(result("e", False), old="a | b", new="a\nb"),
              result("s", False)]
        hmutants_run.settle(rs, {"e": "prints only"})
        md = hmutants_run.markdown(rs, hmutants_run.score(rs))
        rows = [ln for ln in md.splitlines() if ln.startswith("| ") and "---" not in ln][1:]
        self.assertEqual(rows, ["| e | stages/x.py:1 | `a \\| b` → `a b` | "
                                "equivalent: prints only |",
                                "| s | stages/x.py:1 | `a` → `b` | **survives** |"])
        self.assertIn("**1 of 2 non-equivalent mutants killed** (3 generated, "
                      "1 equivalent, 1 surviving)", md)

    def test_no_mutant_fails(self):
        self.assertEqual(hmutants_run.as_checks([], [])[0].status, "fail")

    def test_fates_file_errors_name_file_and_line(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        p = os.path.join(d, "fates.txt")
        with open(p, "w") as f:
            f.write("# comment\na.b.cmp.1 why it is the same\n")
        self.assertEqual(hmutants_run.read_fates(p), {"a.b.cmp.1": "why it is the same"})
        for bad in ("a.b.cmp.1\n", "a.b why\na.b again\n"):
            with open(p, "w") as f:
                f.write(bad)
            with self.assertRaises(SystemExit):
                hmutants_run.read_fates(p)

    def test_declared_fates_are_generated_mutants(self):
        ids = {m["id"] for m in hmutants.all_mutants()}
        self.assertEqual(set(hmutants_run.read_fates()) - ids, set())


class RunVerbTest(unittest.TestCase):
    """The verb's run on a part (--only): the whole suite's trace gets the
    suite's own timeout (not an oracle's 300 s), the part's survivors get
    their declared fates, and a fate of another part is not stale."""

    def test_a_part_is_traced_with_the_suite_s_timeout_and_settled(self):
        d = tempfile.mkdtemp(prefix="hmutants-run-")
        self.addCleanup(shutil.rmtree, d)
        ws = os.path.join(d, "ws")
        fates = hmutants_run.read_fates()
        mid = next(m for m in fates if m.startswith("stages.check.merge."))

        def run_all(ms, lines, times, tops):
            return [dict(result(m["id"], False), op=m["op"], file=m["file"]) for m in ms]
        with mock.patch.object(hmutants_run, "OUT", d), \
                mock.patch.object(hmutants_run, "workspace",
                                  side_effect=lambda: os.makedirs(ws) or ws), \
                mock.patch.object(hmutants_run, "trace", return_value=({}, {})) as trace, \
                mock.patch.object(hmutants_run, "run_all", side_effect=run_all), \
                mock.patch.object(hmutants_run, "say"):
            rc = hmutants_run.run(NS(only=mid, list=False, jobs=1, reuse_trace=False,
                                     confirm=False, suite_timeout=1234, json=None))
        self.assertEqual(trace.call_args.args[2], 1234)
        self.assertEqual(rc, 0)
        rec = files.read_json(os.path.join(d, "generated.json"))
        self.assertEqual(rec["mode"], "partial")
        self.assertEqual([r["fate"] for r in rec["results"]], [f"equivalent: {fates[mid]}"])
        self.assertFalse(os.path.exists(ws))     # the workspace is removed


if __name__ == "__main__":
    unittest.main()
