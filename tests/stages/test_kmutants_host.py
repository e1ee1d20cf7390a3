# SPDX-License-Identifier: GPL-2.0-only
"""The host judge of make mutants (harness/stages/kmutants_host.py): the
Jitter RNG's host tests, run on a mutant of the core, pass on the series,
kill a mutant that moves a health test's cutoff and name the tests that
failed, and a judge that runs over its time is a hang whose processes
are all gone."""

import os
import subprocess
import tempfile
import time
import unittest
from unittest import mock

from harness.base import config
from harness.stages import kmutants
from harness.stages import kmutants_host as host

# About 20 s of the host tests on two CPUs: run before the short modules
# (host_tests.shuffled).
LONG = True

CORE = "crypto/jitterentropy.c"


def core_mutants():
    with open(config.top("tangled/jitterentropy.c")) as f:
        text = f.read()
    return {CORE: ("", text)}, kmutants.number(kmutants.generate("jitter", CORE, "", text))


class HostJudgeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.texts, cls.muts = core_mutants()
        cls.out = tempfile.mkdtemp(prefix="kmutants-host-")

    def mutant(self, what, line_has):
        lines = self.texts[CORE][1].splitlines()
        return next(m for m in self.muts if m["what"] == what
                    and line_has in lines[m["line"] - 1])

    def test_series_passes_and_a_moved_cutoff_is_killed(self):
        status, failed, _ = host.judge("jitter", CORE, None, self.texts, self.out, 600)
        self.assertEqual((status, failed), ("passed", []))
        # JENT_RCT_CUTOFF 31 made 32: no boot can tell (a guest's timer is
        # not scripted), the host tests put a run at the cutoff
        m = self.mutant("`31` -> `31+1`", "JENT_RCT_CUTOFF")
        status, failed, _ = host.judge("jitter", CORE, m, self.texts, self.out, 600)
        self.assertEqual(status, "killed")
        # the first failure ends the run (unittest -f): one test, named
        self.assertEqual(len(failed), 1)
        # (the RCT run that fails a priming read, test_jitter, comes first)
        self.assertRegex(failed[0], r"^host\.test_jitter(_health)?\.\w+Test\.test_\w+$")
        self.assertEqual(os.listdir(self.out), [])      # nothing left behind

    def test_core_dir_holds_the_mutant_and_the_series_beside_it(self):
        m = self.mutant("`31` -> `31+1`", "JENT_RCT_CUTOFF")
        d = host.core_dir("jitter", CORE, self.texts[CORE][1], m, self.out)
        try:
            self.assertEqual(sorted(os.listdir(d)), ["jitterentropy-kcapi.c",
                                                    "jitterentropy.c", "jitterentropy.h"])
            with open(os.path.join(d, "jitterentropy.c")) as f:
                body = f.read()
            self.assertIn(f"#define __mut(n) ((n) == {m['n']})", body)
            self.assertIn(f"__mut({m['n']})", body.split("#define __mut", 1)[1])
        finally:
            subprocess.run(["rm", "-rf", d], check=True)

    def test_over_time_is_a_hang_and_leaves_no_process(self):
        t0 = time.time()
        status, failed, secs = host.judge("jitter", CORE, None, self.texts, self.out, 1)
        self.assertEqual((status, failed), ("timeout", []))
        self.assertLess(time.time() - t0, 30)
        self.assertLess(secs, 30)
        ps = subprocess.run(["pgrep", "-f", self.out], capture_output=True, text=True)
        self.assertEqual(ps.stdout, "")

    def test_a_judge_that_dies_without_a_failed_test_is_a_kill(self):
        with mock.patch.dict(host.JUDGES[CORE], {"modules": ["tests.no_such_module"]}):
            status, failed, _ = host.judge("jitter", CORE, None, self.texts, self.out, 60)
        self.assertEqual(status, "killed")
        self.assertTrue(failed and failed[0].startswith("host."), failed)


class TestIdTest(unittest.TestCase):
    def test_both_unittest_formats(self):
        self.assertEqual(host.test_id("test_a", "tests.judges.test_jitter.HealthTest"),
                         "host.test_jitter.HealthTest.test_a")
        self.assertEqual(host.test_id("test_a",
                                      "tests.judges.test_jitter.HealthTest.test_a"),
                         "host.test_jitter.HealthTest.test_a")

    def test_only_the_core_is_judged_on_the_host(self):
        self.assertTrue(host.judged(CORE))
        self.assertIsNone(host.judged("crypto/jitterentropy-kcapi.c"))
        self.assertIsNone(host.judged("crypto/drbg.c"))


if __name__ == "__main__":
    unittest.main()
