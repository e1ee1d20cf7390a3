# SPDX-License-Identifier: GPL-2.0-only
"""judges/synthetic.py: the sources of known min-entropy and the check
entropy-kat records for each (chapter "SP 800-90B entropy assessment",
"What the assessor must say about sources we know").

- The samples are the sources the chapter describes (seeds 90 to 93).
- The check passes inside the chapter's bound with the values the table
  quotes, and fails outside it, above the truth, when another estimate
  decides, and on the assessor's error line.

Run from the repository: /usr/bin/python3 -m unittest tests.judges.test_synthetic
"""

import random
import unittest

from harness.judges import synthetic


class SyntheticJudgeTest(unittest.TestCase):
    """judges/synthetic.py: the check entropy-kat records for each source,
    whose counts the chapter's table quotes."""

    def test_samples_are_the_sources(self):
        self.assertEqual(synthetic.samples("uniform", 16), random.Random(90).randbytes(16))
        self.assertEqual(set(synthetic.samples("biased", 1000)), {0, 1})
        p = synthetic.samples("periodic", 21)
        self.assertEqual(p[:7] * 3, p)
        self.assertRaises(KeyError, synthetic.samples, "gaussian")

    def test_inside_the_bound_passes_with_the_values(self):
        res = {"assessed": 0.18731, "H_original": 0.18731, "H_bitstring": None,
               "literal": {"compression": {"min_entropy": 0.18731}}}
        c = synthetic.judge("biased", res, 1.234)
        self.assertEqual(c.status, "pass", c.reason)
        self.assertEqual(c.id, "entropy.synthetic.biased")
        self.assertEqual(c.counts["assessed"], 0.1873)
        self.assertEqual(c.counts["decider"], 0.1873)
        self.assertNotIn("H_bitstring", c.counts)

    def test_outside_the_bound_fails(self):
        res = {"assessed": 0.2, "literal": {"compression": {"min_entropy": 0.2}}}
        c = synthetic.judge("biased", res)
        self.assertEqual(c.status, "fail")
        self.assertIn("outside [0.185, 0.19]", c.reason)

    def test_another_estimate_deciding_fails(self):
        res = {"assessed": 0.187, "literal": {"compression": {"min_entropy": 0.189}}}
        c = synthetic.judge("biased", res)
        self.assertEqual(c.status, "fail")
        self.assertIn("does not decide", c.reason)

    def test_above_the_truth_fails(self):
        c = synthetic.judge("uniform", {"assessed": 8.5})
        self.assertEqual(c.status, "fail")
        self.assertIn("above the truth", c.reason)

    def test_assessor_error_fails_with_its_line(self):
        c = synthetic.judge("markov", "assess: markov.bin: cannot read")
        self.assertEqual((c.status, c.reason), ("fail", "assess: markov.bin: cannot read"))


if __name__ == "__main__":
    unittest.main()
