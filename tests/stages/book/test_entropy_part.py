# SPDX-License-Identifier: GPL-2.0-only
"""The book's entropy part (harness/stages/book/entropy.py) renders from
make entropy's data files alone: without them a placeholder and a note;
with them every table, each number the summary holds, the figures drawn,
emulated data labelled, a source that was not collected a note; a record
of an earlier design of the core renders, and says so once.
"""

import glob
import json
import os
import shutil
import tempfile
import unittest

from harness.base import config, files
from harness.judges import entropy_chain as chain
from harness.judges import entropy_report as er
from harness.stages.book import entropy
from harness.stages.book.md import code, esc


def fake_source(name, h_i, emulated=False, design="ours", startup_failures=None,
                blocks=None):
    """A source's summary as make entropy writes it; blocks: the assessed
    min-entropy per bit of its recorded output blocks, if any."""
    meta = {"design": design, "emulated": emulated, "where": f"somewhere {name}",
            "clock": "rdtsc", "seq": {"samples": 1000000, "blocks": 450, "cpu_s": 2.0},
            "restart": {"restarts": 1000, "len": 1000}, "wall_total_s": 9.5}
    if startup_failures is not None:
        meta["startup_failures"] = startup_failures
    desc = {"quantiles": {k: 1000 for k in ("min", "p0.1", "p1", "p25", "median", "p75",
                                            "p99", "p99.9", "max")},
            "iqr": 600, "distinct": 400, "lattice_step": 21, "plugin_h_delta": 5.7,
            "plugin_h_low8": 5.69, "plugin_h_low4": 3.9, "stuck": .02}
    est = {"min_entropy": h_i + .5}
    assess = {"assessed": h_i, "H_original": h_i, "H_bitstring": .7, "samples": 10 ** 6,
              "literal": {"mcv": est, "lrs": {"min_entropy": h_i}},
              "bitstring": {"mcv": {"min_entropy": .99}},
              "restart": {"H_I": h_i, "sanity": {"cutoff": 45, "x_row": 40, "x_col": 33,
                                                 "x_max": 40, "pass": True},
                          "H_r": h_i + .1, "H_c": h_i + .2, "H_validated": h_i,
                          "verdict": "pass",
                          "reason": "ok"}}
    bits = {"blocks": {"assessed": blocks, "samples": 256000, "literal": {"mcv": est}}
            if blocks else None}
    health = {k: {"fires": 0, "max": 3, "estimate": 1e-40, "cutoff": 31} for k in
              ("rct", "apt")}
    health["rct"]["repeat"], health["apt"]["share"] = .015, .016
    health["lag"] = {"fires": 0, "max_run": 2, "max_count": 2000, "hit": .016,
                     "estimate": 1e-80, "run_cutoff": 47, "count_cutoff": 66621}
    health["stuck"] = {"fires": 0, "max_run": 20, "yield": .9812, "estimate": 1e-270,
                       "cutoff": 156}
    return er.source_summary(name, meta, desc, assess, health,
                             bits if design == "ours" else {})


class EntropyPartTest(unittest.TestCase):

    def setUp(self):
        self.top = tempfile.mkdtemp(prefix="book-entropy-")
        self.ctx = {"top": self.top, "outdir": os.path.join(self.top, "out"),
                    "esc": esc, "code": code}

    def tearDown(self):
        shutil.rmtree(self.top)

    def test_placeholder_without_data(self):
        md, notes = entropy.render(self.ctx)
        self.assertIn("The entropy data is missing", md)
        self.assertEqual(len(notes), 1)
        self.assertIn(entropy.SUMMARY, notes[0])
        # the chapter links to every section of the run: without data each
        # anchor is still there (a book built by make book alone had eight
        # dead links, which pdfTeX reported)
        for title, _ in entropy.SECTIONS:
            self.assertIn(f"## {title}\n", md)

    def test_tables_and_figures_from_the_data(self):
        s = {"schema": 1, "started": "2026-12-03T18:00:00+00:00", "duration_s": 123,
             "host": {"cpu_model": "Some CPU", "nproc": 2}, "code": er.code_claims(),
             "sources": {"ours-user": fake_source("ours-user", 4.8123, blocks=.8512),
                         "pristine-user": fake_source("pristine-user", 5.6431,
                                                      design="pristine"),
                         "ours-kernel": fake_source("ours-kernel", 7.1, emulated=True)},
             "drbg": chain.drbg_claims(256, True)}
        fig = {"id": "entropy-deltas", "caption": "c", "layout": [1, 1], "run": {},
               "panels": [{"title": "t", "kind": "line", "accel": "tcg",
                           "series": [{"x": [1, 2, 3], "y": [.1, .5, .4]}]}]}
        files.write_json(os.path.join(self.top, entropy.SUMMARY), s)
        files.write_json(os.path.join(self.top, entropy.FIGDATA, "entropy-deltas.json"), fig)
        md, notes = entropy.render(self.ctx)
        for text in ("4.8123", "5.6431", "`ours-kernel` (emulated)", "Some CPU",
                     "`ours-user` output blocks (recorded), bits", "0.8512",
                     "320 counted samples at 1.0000 bits each, 320.0 bits",
                     "**full entropy**", "31 / 61", "325 / 355",
                     "47 / 77", "66621 / 67121", "| stuck bound | 156 | 20 | 0 | 0.9812 |",
                     "384.0", "{#fig-entropy-deltas .figure}", "Emulated timer"):
            self.assertIn(text, md)
        for gone in ("unbiased", "von Neumann", "pool word", "folded"):
            self.assertNotIn(gone, md)
        self.assertNotIn("earlier design", md)
        self.assertTrue(os.path.getsize(os.path.join(self.top, "out/figures/entropy-deltas.png")))
        # the two figures without data are notes, nothing else is
        self.assertEqual(sorted(n.split(":")[0] for n in notes),
                         ["entropy figure entropy-correlation",
                          "entropy figure entropy-restart"])

    def test_start_up_failures_of_a_collector_are_shown(self):
        """A user-space collector's start-up tests: 1001 passed of the 1002
        run when one failed and was run again (6.1's core, 2026-12-06)."""
        s = {"code": er.code_claims(), "sources": {
            "ours-user": fake_source("ours-user", 4.8, startup_failures=0),
            "pristine-user": fake_source("pristine-user", 5.6, design="pristine",
                                         startup_failures=1)}}
        files.write_json(os.path.join(self.top, entropy.SUMMARY), s)
        md, _ = entropy.render(self.ctx)
        self.assertIn("start-up test passed (at boot, or at each start of a collector)", md)
        self.assertIn("| 1001 of 1001 |", md)
        self.assertIn("| 1001 of 1002 |", md)

    def test_the_priming_columns_of_the_restarts_are_shown(self):
        """Our core's restarts: the column counts over its 64 priming
        samples and the columns after them, which the matrix is of; 6.1's
        core (no priming samples) has no row."""
        ours = fake_source("ours-uml-tsc-fixed", 1.0)
        cols = [100] * 128
        cols[3], cols[5], cols[64], cols[70] = 427, 295, 91, 120
        ours["collect"]["restart"].update(priming=64, first_columns=cols)
        s = {"code": er.code_claims(), "params": {"restarts": 1000},
             "sources": {"ours-uml-tsc-fixed": ours,
                         "pristine-user": fake_source("pristine-user", 5.6,
                                                      design="pristine")}}
        files.write_json(os.path.join(self.top, entropy.SUMMARY), s)
        md, _ = entropy.render(self.ctx)
        self.assertIn("the same column statistic (the count of the most common 8-bit "
                      "symbol in 1,000 restarts) over the priming samples and the first "
                      "64 columns after them", md)
        row = next(ln for ln in md.splitlines() if ln.startswith("| `ours-uml-tsc-fixed`")
                   and "427 (column 3)" in ln)
        self.assertIn("| 64 | 427 (column 3) | 100, 100, 100, 427, 100, 295,", row)
        self.assertIn("| 120 | 91, 100, 100, 100, 100, 100, 120,", row)
        self.assertFalse(any(ln.startswith("| `pristine-user`") and "(column" in ln
                             for ln in md.splitlines()))
        # the sources table: our restarts are the priming samples and the row
        self.assertIn("| 1000 x (64 + 936), by a new collector |", md)
        self.assertIn("| 1000 x 1000, by a new collector |", md)

    def test_a_record_of_an_earlier_design_renders(self):
        """The kept records of the earlier designs (evidence/history/: pool
        words of unbiased bits, and of one folded bit per sample) render
        every section without a crash, say once that they are of an
        earlier design, and show none of that design's chain or credit."""
        paths = sorted(glob.glob(config.top("evidence/history/*.json")))
        self.assertEqual(len(paths), 2)
        for path in paths:
            with self.subTest(path=os.path.basename(path)):
                with open(path) as fh:
                    files.write_json(os.path.join(self.top, entropy.SUMMARY), json.load(fh))
                md, _ = entropy.render(self.ctx)
                self.assertEqual(md.count("This record is of an earlier design"), 1)
                for title, _ in entropy.SECTIONS:
                    self.assertIn(f"## {title}\n", md)
                self.assertIn("No chain of this design in this record", md)
                self.assertNotIn("Into SHA3-256:", md)
                self.assertNotIn("unbiased bits", md)

    def test_a_source_not_collected_is_shown_and_noted(self):
        s = {"code": er.code_claims(), "sources": {
            "ours-user": fake_source("ours-user", 4.8),
            "ours-kernel": {"name": "ours-kernel", "error": "the entropy boot ended with hung"}}}
        files.write_json(os.path.join(self.top, entropy.SUMMARY), s)
        md, notes = entropy.render(self.ctx)
        self.assertIn("**not collected**", md)
        self.assertTrue(any("ours-kernel was not collected" in n for n in notes))

    def test_a_refusal_is_shown_and_not_a_warning(self):
        """The kernel refusing a recording (UML's coarse clock, loop counts
        fixed) is that environment's result: in the table, not a build
        warning, which make book-check would fail on."""
        s = {"code": er.code_claims(), "sources": {
            "ours-user": fake_source("ours-user", 4.8),
            "ours-uml-fixed": {"name": "ours-uml-fixed", "refused": True,
                               "error": "the kernel refused the recording: a permanent "
                                        "health test failure (EFAULT)"}}}
        files.write_json(os.path.join(self.top, entropy.SUMMARY), s)
        md, notes = entropy.render(self.ctx)
        self.assertIn("permanent health test failure", md)
        self.assertFalse(any("ours-uml-fixed" in n for n in notes), notes)


if __name__ == "__main__":
    unittest.main()
