# SPDX-License-Identifier: GPL-2.0-only
"""The verb mutants-harness itself: a mutant its oracle catches is
killed, one it does not catch survives and fails the score, an oracle
that fails without a mutant stops the run, a mutant whose text moved is
refused, and the verb's exit status and checks say so."""

import json
import os
import shutil
import tempfile
import unittest
from types import SimpleNamespace as NS
from unittest import mock

from harness.base import config
from harness.stages import mutant_space, mutants
from harness.stages.harness_mutants import MUTANTS

REAL = next(m for m in MUTANTS if m["name"] == "failed-is-pass")
# A change no test can see (a docstring's word), with a passing oracle.
HARMLESS = dict(REAL, name="harmless", old="Problems with a list of Checks",
                new="Problems with a list of checks", what="a docstring's word")


class RunAllTest(unittest.TestCase):
    def test_killed_and_survived(self):
        d = tempfile.mkdtemp(prefix="mutants-ws-")
        self.addCleanup(shutil.rmtree, d)
        real = tempfile.mkdtemp
        with mock.patch.object(mutant_space.tempfile, "mkdtemp",
                               lambda prefix: real(prefix=prefix, dir=d)):
            results = mutants.run_all([REAL, HARMLESS], 240)
        self.assertEqual(os.listdir(d), [])     # the workspace is removed
        self.assertEqual([(r["mutant"], r["killed"]) for r in results],
                         [("failed-is-pass", True), ("harmless", False)])
        self.assertNotEqual(results[0]["oracle_exit"], 0)
        self.assertEqual(results[1]["oracle_exit"], 0)
        checks = {c.id: c for c in mutants.as_checks(results)}
        self.assertEqual(checks["host.mutants.failed-is-pass"].status, "pass")
        self.assertEqual(checks["host.mutants.harmless"].status, "fail")
        score = checks["host.mutants.score"]
        self.assertEqual((score.status, score.counts), ("fail", {"mutants": 2, "killed": 1}))
        self.assertEqual(score.reason, "harmless survived")

    def test_a_failing_oracle_stops_the_run(self):
        broken = dict(HARMLESS, oracle="tests.base.test_checks.NoSuchTest")
        with self.assertRaises(SystemExit) as e:
            mutants.run_all([broken], 120)
        self.assertTrue(str(e.exception.code).startswith(
            "mutants: the oracles fail without a mutant (1): "), e.exception.code)

    def test_a_moved_text_is_refused(self):
        top = mutant_space.workspace()
        self.addCleanup(shutil.rmtree, top)
        with self.assertRaises(SystemExit):
            mutants.mutate(top, dict(HARMLESS, old="no such text anywhere"))

    def test_every_mutant_s_text_is_in_its_file_once(self):
        """A mutant whose code moved stops make check's mutants step (as
        host-tests-exit-0 did when the verb's exit line changed): each
        one's text is in its file exactly once."""
        for m in MUTANTS:
            with self.subTest(mutant=m["name"]):
                with open(config.top("harness", m["file"])) as f:
                    self.assertEqual(f.read().count(m["old"]), 1, m["old"])

    def test_no_mutant_is_no_pass(self):
        self.assertEqual(mutants.as_checks([])[0].status, "fail")


class VerbTest(unittest.TestCase):
    def test_exit_status_and_checks(self):
        d = tempfile.mkdtemp(prefix="mutants-verb-")
        self.addCleanup(shutil.rmtree, d)
        out = os.path.join(d, "checks.json")
        with mock.patch.object(mutants, "OUT", d), mock.patch.object(mutants, "say"):
            rc = mutants.run(NS(generated=False, only="failed-is-pass", json=out,
                                timeout=240))
            self.assertEqual(rc, 0)
            with open(out) as f:
                got = {c["id"]: c["status"] for c in json.load(f)}
            self.assertEqual(got, {"host.mutants.failed-is-pass": "pass",
                                   "host.mutants.score": "pass"})
            self.assertTrue(os.path.exists(os.path.join(d, "harness.md")))
            with mock.patch.object(mutants, "MUTANTS", [HARMLESS]):
                rc = mutants.run(NS(generated=False, only=None, json=out, timeout=240))
            self.assertEqual(rc, 1)
            with self.assertRaises(SystemExit) as e:
                mutants.run(NS(generated=False, only="no-such-mutant", json=None,
                               timeout=240))
            self.assertTrue(str(e.exception.code).startswith(
                "mutants: no mutant no-such-mutant "), e.exception.code)


if __name__ == "__main__":
    unittest.main()
