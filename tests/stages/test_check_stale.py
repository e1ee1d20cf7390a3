# SPDX-License-Identifier: GPL-2.0-only
"""A make check that never reaches its report (interrupted in a step)
leaves no report: the last run's green one is gone before the first
step runs, so a CI system reading report.xml sees none, not green."""

import os
import shutil
import tempfile
import unittest
from types import SimpleNamespace as NS
from unittest import mock

from harness.base import config, files
from harness.base.report import NAMES
from harness.stages import check

from .test_check import CheckRun


class StaleReportTest(CheckRun):
    def test_an_interrupted_run_leaves_no_earlier_report(self):
        d = os.path.dirname(self.report)
        os.makedirs(d)
        for name in NAMES:
            files.write_text(os.path.join(d, name), "the last run's green report\n")
        real = self.run_verb

        def interrupted(cmd):
            if "host-tests" in cmd:
                raise KeyboardInterrupt
            return real(cmd)

        self.run_verb = interrupted
        check.run = interrupted
        with self.assertRaises(KeyboardInterrupt):
            check.check(None)
        self.assertEqual(os.listdir(d), [])


class StepNamesTest(CheckRun):
    def test_each_json_step_is_timed_and_written_under_its_key(self):
        rc, failed = self.make_check()
        self.assertEqual((rc, failed), (0, []))
        timings = files.read_json(self.report)["check_timings_s"]
        for key in ("kconfig", "entropy-kat", "host-tests", "mutants", "acvp", "entropy"):
            self.assertIn(key, timings)
            self.assertTrue(os.path.exists(os.path.join(check.OUT, f"{key}.json")), key)
        self.assertFalse([k for k in timings if " " in k], timings)
        ids = [c["id"] for c in files.read_json(self.report)["checks"]]
        self.assertIn("host.book-check.stand-in", ids)   # the book step ran


class JudgeSkipsVerbTest(unittest.TestCase):
    def test_no_report_is_one_line(self):
        d = tempfile.mkdtemp(prefix="judge-skips-")
        self.addCleanup(shutil.rmtree, d)
        path = os.path.join(d, "report.json")
        files.write_json(path, {"checks": "not a list"})
        with self.assertRaises(SystemExit) as e:
            check.judge_skips(NS(report=path, list=os.devnull, restricted=""))
        self.assertEqual(e.exception.code, f"skips: {config.display(path)}: no report "
                                           "with checks")

    def test_a_restricted_run_excuses_an_entry_it_left_out(self):
        """The verb judges against the list it is given, and a run told to
        leave boots out (--restricted) is excused the entries it left out;
        the same report judged as a full run fails check.skips.declared."""
        d = tempfile.mkdtemp(prefix="judge-skips-")
        self.addCleanup(shutil.rmtree, d)
        path, listed = os.path.join(d, "report.json"), os.path.join(d, "skips.txt")
        files.write_json(path, {"checks": [
            {"id": "guest.own.skipped", "status": "skip", "reason": "on purpose"},
            {"id": "guest.own.ran", "status": "pass"}]})
        files.write_text(listed, "guest.own.skipped\ton purpose\n"
                                 "debug.guest.own.skipped\tthe debug boot, left out\n")
        for restricted, rc in (("BOOTS=main", 0), ("", 1)):
            with self.subTest(restricted=restricted), mock.patch("sys.stdout") as out:
                self.assertEqual(check.judge_skips(NS(report=path, list=listed,
                                                      restricted=restricted)), rc)
            text = "".join(c.args[0] for c in out.write.call_args_list)
            self.assertIn("PASS check.skips.expected: skips 1, declared 1, unexpected 0",
                          text)
            self.assertIn(("PASS" if rc == 0 else "FAIL") + " check.skips.declared", text)
