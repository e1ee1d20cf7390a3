# SPDX-License-Identifier: GPL-2.0-only
"""The Public Use Document (harness/stages/pud.py) renders from the entropy
run alone: every section, the claim and the figures of the summary, the
code's cutoffs; it fails when its data is not this tree's or a credited
source was not measured, and when there is no entropy run at all; a
record of an earlier design of the core renders, and says so once."""

import argparse
import glob
import json
import os
import shutil
import tempfile
import unittest
from unittest import mock

from harness.base import config
from harness.judges import entropy_chain as chain
from harness.judges import entropy_claim as claims
from harness.judges import entropy_report as er
from harness.stages import pud
from tests.stages.book.test_entropy_part import fake_source

# About 11 s of the host tests on two CPUs: run before the short modules
# (host_tests.shuffled).
LONG = True


def summary(names=("ours-uml-tsc", "ours-uml-tsc-fixed", "ours-user", "ours-user-fixed")):
    sources = {n: fake_source(n, 4.25) for n in names}
    return {"started": "2026-12-06T08:00:00+00:00", "host": {"cpu_model": "Some CPU"},
            "code": er.code_claims(), "sources": sources,
            "claims": claims.credit(sources), "drbg": chain.drbg_claims(256, True)}


class PudTest(unittest.TestCase):
    def setUp(self):
        self.out = tempfile.mkdtemp(prefix="pud-")
        self.addCleanup(shutil.rmtree, self.out)

    def render(self, data, current=True):
        prov = {"source": "evidence", "path": "evidence/entropy/summary.json",
                "current": current, "commit": "abc"}
        return {c.id: c for c in pud.render(self.out, data, prov, None)}

    def test_every_section_and_the_figures(self):
        cs = self.render(summary())
        self.assertEqual({k: c.status for k, c in cs.items()},
                         {"pud.html": "pass", "pud.pdf": "pass", "pud.data": "pass"})
        with open(os.path.join(self.out, "pud.md")) as f:
            md = f.read()
        for _, title in pud.SECTIONS:
            self.assertIn(f"# {title} ", md)
        for text in ("31 / 61", "325 / 355", "156 / 312", "1.000",
                     "x86-64, the kernel's timing path (rdtsc)", "`ours-uml-tsc`",
                     "4.2500", "384.0", "`make acvp` writes them",
                     "SHA3-256 of 320 counted deltas", "| stuck bound (4.5) |",
                     "q of samples that are not stuck"):
            self.assertIn(text, md)
        for gone in ("von Neumann", "pool word", "unbiased", "LFSR"):
            self.assertNotIn(gone, md)
        self.assertGreater(os.path.getsize(os.path.join(self.out, "pud.pdf")), 1000)

    def test_a_record_of_an_earlier_design_renders(self):
        """The kept records of the earlier designs (evidence/history/)
        render every section, say once that they are of an earlier design,
        and show that design's credit as not measured."""
        for path in sorted(glob.glob(config.top("evidence/history/*.json"))):
            with self.subTest(path=os.path.basename(path)):
                with open(path) as f:
                    data = json.load(f)
                cs = self.render(data, current=False)
                self.assertEqual(cs["pud.html"].status, "pass", cs["pud.html"].reason)
                with open(os.path.join(self.out, "pud.md")) as f:
                    md = f.read()
                self.assertEqual(md.count("The record is of an earlier design"), 1)
                self.assertNotIn("384.0", md)

    def test_data_of_other_inputs_fails(self):
        cs = self.render(summary(), current=False)
        self.assertEqual(cs["pud.data"].status, "fail")
        self.assertIn("made on other inputs", cs["pud.data"].reason)

    def test_a_credited_source_not_measured_fails(self):
        cs = self.render(summary(names=("ours-user", "ours-user-fixed", "ours-uml-tsc")))
        self.assertEqual(cs["pud.data"].status, "fail")
        self.assertIn("ours-uml-tsc-fixed: not measured", cs["pud.data"].reason)

    def test_no_entropy_run_is_one_line(self):
        with mock.patch.object(pud.evidence, "load", return_value=(None, None)), \
                self.assertRaisesRegex(SystemExit, "no entropy run"):
            pud.run(argparse.Namespace(out=self.out))


if __name__ == "__main__":
    unittest.main()
