# SPDX-License-Identifier: GPL-2.0-only
"""How many mutants of a part's run a boot judged (kmutants_report), as
the record's markdown says it; and the stress verb's --rejudge without
a report, in one line."""

import os
import shutil
import tempfile
import unittest
from types import SimpleNamespace as NS

from harness.stages import kmutants_report, stress


class JudgedTest(unittest.TestCase):
    def test_killed_timeout_survived_and_equivalent_count(self):
        run = {"results": [{"status": s} for s in (
            "killed", "timeout", "survived", "equivalent", "build-failed", "not-run",
            "killed")]}
        self.assertEqual(kmutants_report.judged(run), 5)
        self.assertEqual(kmutants_report.judged({"results": []}), 0)


class RejudgeTest(unittest.TestCase):
    def test_no_report_is_one_line(self):
        d = tempfile.mkdtemp(prefix="rejudge-")
        self.addCleanup(shutil.rmtree, d)
        with self.assertRaises(SystemExit) as e:
            stress.rejudge(NS(out=d))
        self.assertTrue(str(e.exception.code).startswith(
            "stress: --rejudge: no stress report "), e.exception.code)
        self.assertTrue(str(e.exception.code).endswith(os.path.join(d, "report.json")
                                                       .rsplit("/", 1)[1]))


if __name__ == "__main__":
    unittest.main()
