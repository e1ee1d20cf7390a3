# SPDX-License-Identifier: GPL-2.0-only
"""host-tests in two processes (--jobs 2): each module runs once, in the
process that claims it first, and the records are those of one process
with the same seed; a test that ran in no process (a process that died)
fails the run and is named."""

import io
import os
import shutil
import subprocess
import tempfile
import unittest
from unittest import mock

from harness.stages import host_tests

from . import sample_order

PATTERN = "sample_*.py"     # sample_order.py and sample_suite.py: one fails


def by_id(records):
    return {r["id"]: r["status"] for r in records}


class SharedRunTest(unittest.TestCase):
    def test_the_records_of_one_process(self):
        for seed in (3, 8):
            with self.subTest(seed=seed):
                shared, ok = host_tests.run_shared(PATTERN, seed, 2)
                sample_order.SEEN.clear()       # as a process of its own starts
                one, result = host_tests.run_tests(PATTERN, stream=io.StringIO(),
                                                   seed=seed)
                ids = [r["id"] for r in shared]
                self.assertEqual(len(ids), len(set(ids)))       # each test once
                self.assertEqual(by_id(shared), by_id(one))
                self.assertEqual((ok, result.wasSuccessful()), (False, False))
                self.assertEqual(by_id(shared)[
                    "host.unit.one_subcase_of_three_fails"], "fail")

    def test_a_test_no_process_ran_fails_the_run(self):
        real = subprocess.Popen

        def dying(cmd, **kw):
            return real([cmd[0], "-c", "import sys; sys.exit(3)"], **kw)
        with mock.patch.object(host_tests.subprocess, "Popen", side_effect=dying):
            records, ok = host_tests.run_shared(PATTERN, 3, 2)
        self.assertFalse(ok)
        self.assertEqual(len(records), 1)
        r = records[0]
        self.assertEqual((r["id"], r["status"]), ("host.unit.workers", "fail"))
        self.assertTrue(r["reason"].startswith("6 test(s) ran in no process (exits [3, 3]): "
                                               "host.unit."), r["reason"])

    def test_nothing_of_the_run_is_left(self):
        with host_tests.own_tmpdir() as left:
            host_tests.run_shared("sample_suite.py", 1, 2)
        self.assertEqual(left, [])

    def test_one_job_runs_here_and_two_share(self):
        rec = [{"id": "host.unit.x", "status": "pass"}]
        for jobs, shared in ((1, False), (2, True), (3, True)):
            with self.subTest(jobs=jobs), \
                    mock.patch.object(host_tests, "run_shared",
                                      return_value=(rec, True)) as share, \
                    mock.patch("sys.stdout", new_callable=io.StringIO), \
                    mock.patch("sys.stderr", new_callable=io.StringIO):
                rc = host_tests.run_here(mock.Mock(claims=None, jobs=jobs, seed=5,
                                                   pattern="sample_suite.py", json=None))
                if shared:
                    share.assert_called_once_with("sample_suite.py", 5, jobs)
                    self.assertEqual(rc, 0)
                else:
                    share.assert_not_called()
                    self.assertEqual(rc, 1)     # sample_suite.py fails one subTest

    def test_a_module_is_claimed_once(self):
        d = tempfile.mkdtemp(prefix="claims-")
        self.addCleanup(shutil.rmtree, d)
        self.assertEqual([host_tests.claim(d, "tests.x"), host_tests.claim(d, "tests.x"),
                          host_tests.claim(d, "tests.y")], [True, False, True])
        self.assertEqual(sorted(os.listdir(d)), ["tests.x", "tests.y"])


class OwnTmpdirTest(unittest.TestCase):
    def test_the_tests_tmpdir_is_theirs_and_goes_with_them(self):
        before = os.environ.get("TMPDIR")
        with host_tests.own_tmpdir() as left:
            d = tempfile.gettempdir()
            self.assertEqual(os.environ["TMPDIR"], d)
            self.assertEqual(os.stat(d).st_mode & 0o7777, 0o1777)
            tempfile.mkdtemp(prefix="left-")
            open(os.path.join(d, "a.log"), "w").close()
        self.assertFalse(os.path.exists(d))
        self.assertEqual(os.environ.get("TMPDIR"), before)
        self.assertNotEqual(tempfile.gettempdir(), d)
        self.assertEqual(len(left), 2)
        self.assertEqual(left[0], "a.log")
        self.assertTrue(left[1].startswith("left-"))

    def test_the_verb_says_what_the_tests_left(self):
        def leaves(args):
            open(os.path.join(tempfile.gettempdir(), "x.edits"), "w").close()
            return 0
        with mock.patch.object(host_tests, "run_here", side_effect=leaves), \
                mock.patch("sys.stdout", new_callable=io.StringIO) as out:
            self.assertEqual(host_tests.run(mock.Mock(claims=None)), 0)
        self.assertIn("host tests: 1 temporary file(s) the tests left, removed with their "
                      "TMPDIR: x.edits", out.getvalue())


if __name__ == "__main__":
    unittest.main()
