# SPDX-License-Identifier: GPL-2.0-only
"""The hardening appendix's section on the full Kconfig matrix
(book/kconfig.py): the counts of the run, each option's coverage, the
randconfigs with their seeds, a build note for a failure; and that make
check's short run, which writes the same file, does not hide the kept
full record (evidence.load(whole=True))."""

import json
import os
import shutil
import tempfile
import unittest

from harness.base import evidence, files
from harness.stages.book import kconfig
from harness.stages.book import md as bookmd

OPTS = [{"name": "KUNIT", "type": "tristate", "rules": []},
        {"name": "CRYPTO_JITTERENTROPY", "type": "tristate", "rules": []}]


def rec(name, k, j, built=True, secs=20.0, error=None):
    return {"name": name, "values": {"KUNIT": k, "CRYPTO_JITTERENTROPY": j},
            "seconds": secs, "built": built, "error": error}


def full(**kw):
    rep = {"schema": 1, "mode": "full", "options": OPTS, "kernel": "6.1.192-3",
           "started": "2026-12-07T10:00:00+00:00", "host": {"nproc": 2, "cpu_model": "cpu"}, "allowed_by_rules": 4,
           "dropped_by_rules": 5, "seconds": 4000.0,
           "combinations": [rec("001-nn", "n", "n", secs=150.0), rec("002-nm", "n", "m"),
                            rec("003-ny", "n", "y", secs=30.0),
                            {"name": "004-yy", "values": {"KUNIT": "y",
                                                          "CRYPTO_JITTERENTROPY": "y"},
                             "refused": ["KUNIT=y (got n)"]}],
           "dropped_sample": [{"name": "mn", "values": {}, "rule": "x: y",
                               "refused": ["KUNIT=m (got n)"]}],
           "randconfig": [{"name": "randconfig-0x1", "seed": "0x00000001",
                           "values": {"KUNIT": "m", "CRYPTO_JITTERENTROPY": "y"},
                           "seconds": 40.0, "built": True, "error": None}]}
    rep.update(kw)
    return rep


class SectionTest(unittest.TestCase):
    def section(self, rep):
        notes = []
        return "\n".join(kconfig.section(rep, bookmd.esc, bookmd.code, notes)), notes

    def test_placeholder_without_a_full_run(self):
        for rep in (None, full(mode="short")):
            md, notes = self.section(rep)
            self.assertIn("placeholder", md)
            self.assertIn("make kconfig-matrix", md)
            self.assertNotIn("built and linked**", md)
            self.assertEqual(notes, [])

    def test_counts_coverage_and_seeds(self):
        md, notes = self.section(full())
        self.assertIn("**3 built and linked**, 0 failed, 1 refused by Kconfig", md)
        self.assertIn("4 combinations allowed by their rules and 5 dropped", md)
        self.assertIn("started 2026-12-07 10:00:00 UTC, on cpu (2 CPUs)", md)
        self.assertIn("1 were refused and 0 kept", md)
        self.assertIn("20 to 150 s (median 30 s; the slowest: `001-nn` 150 s, `003-ny` 30 s, "
                      "`002-nm` 20 s)", md)
        # KUNIT was n in all three built; the Jitter RNG once each.
        self.assertIn("| `KUNIT` | tristate | 0 | 0 | 3 |", md)
        self.assertIn("| `CRYPTO_JITTERENTROPY` | tristate | 1 | 1 | 1 |", md)
        self.assertIn("| `0x00000001` | `my` | built and linked |", md)
        self.assertEqual(notes, [])

    def test_a_failure_is_named_and_noted(self):
        rep = full()
        rep["combinations"][1] = rec("002-nm", "n", "m", built=False,
                                     error="undefined reference to `jent_read'")
        rep["dropped_sample"][0]["refused"] = []
        md, notes = self.section(rep)
        self.assertIn("**2 built and linked**, 1 failed", md)
        self.assertIn("002\\-nm", md)
        self.assertIn(bookmd.esc("Kconfig keeps it, the rules dropped it"), md)
        self.assertEqual(len(notes), 1)
        self.assertIn("2 combination(s)", notes[0])


class WholeLoadTest(unittest.TestCase):
    """make check's short run in build/ must not stand for the kept full
    record; a full run in build/ is this tree's own and is read first."""

    def setUp(self):
        self.top = tempfile.mkdtemp(prefix="kconfig-record-")
        self.addCleanup(shutil.rmtree, self.top)
        for rel in evidence.RECORDS["kconfig"]["inputs"]:
            self.write(rel if "." in os.path.basename(rel) else rel + "/p.patch", "x\n")
        rep = full(inputs=evidence.digests(self.top))
        self.write("build/kconfig-matrix/report.json", json.dumps(rep))
        evidence.record("kconfig", self.top)

    def write(self, rel, text):
        files.write_text(os.path.join(self.top, rel), text)

    def test_a_short_run_is_passed_over(self):
        short = full(mode="short", inputs=evidence.digests(self.top), combinations=[])
        self.write("build/kconfig-matrix/report.json", json.dumps(short))
        rep, prov = evidence.load("kconfig", self.top, whole=True)
        self.assertEqual((rep["mode"], prov["source"]), ("full", "evidence"))
        self.assertTrue(prov["current"])
        rep, prov = evidence.load("kconfig", self.top)
        self.assertEqual((rep["mode"], prov["source"]), ("short", "build"))

    def test_a_full_run_in_build_is_read_first(self):
        rep, prov = evidence.load("kconfig", self.top, whole=True)
        self.assertEqual(prov["source"], "build")


if __name__ == "__main__":
    unittest.main()
