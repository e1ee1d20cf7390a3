# SPDX-License-Identifier: GPL-2.0-only
"""The verb checkpatch checks the patches side by side (one perl per
CPU) and reports them in the series' order, whichever ends first; a
patch that is not clean still fails the verb.  checkpatch.pl itself is a
stand-in here: make check runs the real one on the series."""

import json
import os
import shutil
import tempfile
import threading
import unittest
from types import SimpleNamespace as NS
from unittest import mock

from harness.stages import checkpatch

PATCHES = ["/p/0001-a.patch", "/p/0002-b.patch", "/p/0003-c.patch"]


class CheckpatchTest(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="checkpatch-")
        self.addCleanup(shutil.rmtree, self.d)
        self.second_started, self.first_waited = threading.Event(), []
        self.unclean = set()
        for obj, name, value in (
                (checkpatch.kcache, "ensure_pristine", mock.Mock(return_value=(None, "/src"))),
                (checkpatch.kcache, "series_patches", mock.Mock(return_value=PATCHES)),
                (checkpatch, "run_one", self.one), (checkpatch.os, "cpu_count", lambda: 2),
                (checkpatch, "print", mock.Mock())):
            p = mock.patch.object(obj, name, value, create=(name == "print"))
            p.start()
            self.addCleanup(p.stop)

    def one(self, src, path, env):
        """checkpatch.pl on one patch: the first waits until the second
        has started, so it ends last when both run side by side."""
        name = os.path.basename(path)
        if name.startswith("0002"):
            self.second_started.set()
        if name.startswith("0001"):
            self.first_waited.append(self.second_started.wait(30))
        bad = name in self.unclean
        return {"patch": name, "errors": int(bad), "warnings": 0, "checks": 0,
                "findings": ["ERROR: stand-in"] if bad else []}

    def run_verb(self):
        out = os.path.join(self.d, "checks.json")
        rc = checkpatch.run(NS(patchdir="/p", json=out))
        with open(out) as f:
            return rc, json.load(f)

    def test_side_by_side_in_the_series_order(self):
        rc, checks = self.run_verb()
        self.assertEqual(self.first_waited, [True])
        self.assertEqual(rc, 0)
        self.assertEqual([c["id"] for c in checks], ["host.checkpatch.0001",
                                                     "host.checkpatch.0002",
                                                     "host.checkpatch.0003"])

    def test_a_patch_not_clean_fails_the_verb(self):
        self.unclean = {"0003-c.patch"}
        rc, checks = self.run_verb()
        self.assertEqual(rc, 1)
        self.assertEqual([c["status"] for c in checks], ["pass", "pass", "fail"])
        self.assertEqual(checks[2]["reason"], "ERROR: stand-in")


if __name__ == "__main__":
    unittest.main()
