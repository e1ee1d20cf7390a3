# SPDX-License-Identifier: GPL-2.0-only
"""More of what the host-tests verb records: a skip after a failed
subTest leaves the method failed, a long reason keeps its last 1500
characters, an expected failure is a pass, a skip reaches unittest's own
count too; and the verb in this process, on one file of tests."""

import contextlib
import io
import json
import os
import shutil
import tempfile
import unittest
from types import SimpleNamespace as NS

from harness.stages import host_tests

LONG = "start" + "x" * 3000 + "the end"


class _More:
    def test_subtest_fails_then_skips(self):
        with self.subTest(case=1):
            self.fail("case 1 broke")
        self.skipTest("nothing more to see")

    def test_long_reason(self):
        self.fail(LONG)

    @unittest.expectedFailure
    def test_expected_failure(self):
        self.fail("known")

    def test_skip(self):
        self.skipTest("no device")

    def test_error(self):
        raise RuntimeError("boom")


def run():
    cls = type("More", (_More, unittest.TestCase), {"__module__": __name__})
    names = sorted(n for n in dir(_More) if n.startswith("test_"))
    result = unittest.TextTestRunner(resultclass=host_tests.Recorder, stream=io.StringIO(),
                                     verbosity=0).run(unittest.TestSuite(cls(n)
                                                                         for n in names))
    return {r["id"].rsplit(".", 1)[1]: r for r in result.records.values()}, result


class MoreOutcomesTest(unittest.TestCase):
    def test_outcomes(self):
        records, result = run()
        self.assertEqual({m: r["status"] for m, r in records.items()}, {
            "test_subtest_fails_then_skips": "fail", "test_long_reason": "fail",
            "test_expected_failure": "pass", "test_skip": "skip", "test_error": "fail"})
        # unittest's own lists, which its summary line prints, agree
        self.assertEqual([t.id().rsplit(".", 1)[1] for t, _ in result.failures],
                         ["test_long_reason", "test_subtest_fails_then_skips (case=1)"])
        self.assertEqual([t.id().rsplit(".", 1)[1] for t, _ in result.errors],
                         ["test_error"])
        self.assertEqual(len(result.expectedFailures), 1)
        self.assertIn("case 1 broke", records["test_subtest_fails_then_skips"]["reason"])
        reason = records["test_long_reason"]["reason"]
        self.assertEqual(len(reason), 1500)
        self.assertIn("the end", reason)
        self.assertNotIn("start", reason)
        self.assertEqual([(t.id().rsplit(".", 1)[1], why) for t, why in result.skipped],
                         [("test_skip", "no device"),
                          ("test_subtest_fails_then_skips", "nothing more to see")])


class InProcessVerbTest(unittest.TestCase):
    def test_one_passing_file_exits_0_and_writes_its_records(self):
        d = tempfile.mkdtemp(prefix="host-tests-")
        self.addCleanup(shutil.rmtree, d)
        out = os.path.join(d, "records.json")
        cwd = os.getcwd()
        self.addCleanup(os.chdir, cwd)
        os.chdir(d)     # the verb runs from the top of the repository
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()):
            rc = host_tests.run(NS(seed=7, jobs=1, claims=None, pattern="test_check_units.py",
                                   json=out))
        self.assertEqual(rc, 0, buf.getvalue())
        with open(out) as f:
            records = json.load(f)
        self.assertEqual([(r["id"], r["status"]) for r in records], [
            ("host.unit.check_units.RcCheckTest."
             "test_zero_passes_and_anything_else_fails_with_its_reason", "pass")])
        self.assertIn("host tests: shuffled with seed 7 (--seed 7 repeats the order)",
                      buf.getvalue())
        self.assertIn("host tests: 1 passed, 0 failed, 0 skipped", buf.getvalue())


if __name__ == "__main__":
    unittest.main()
