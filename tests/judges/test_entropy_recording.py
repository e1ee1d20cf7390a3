# SPDX-License-Identifier: GPL-2.0-only
"""The two-sample test of the recording's cost
(harness/judges/entropy_recording.py) and the checks on the conditioning's
recorded output (entropy_report.conditioning_checks)."""

import unittest

import numpy as np

from harness.judges import entropy_recording as rec
from harness.judges import entropy_report as er

ROWS, LEN = 20, 20000


def rows(spread_a, spread_b, shift=0, seed=1):
    rng = np.random.default_rng(seed)
    m = np.empty((ROWS, LEN), dtype="<u8")
    for i in range(ROWS):
        s = spread_a if i % 2 == 0 else spread_b
        m[i] = rng.normal(1500, s, LEN).astype("u8") + (shift if i % 2 == 0 else 0)
    return m.tobytes()


class TwoSampleTest(unittest.TestCase):
    def test_one_distribution_passes(self):
        r = rec.two_sample(rows(80, 80), ROWS, LEN, 3)
        self.assertTrue(r["symbols"]["pass"] and r["shape"]["pass"], r)
        self.assertEqual((r["n_a"], r["n_b"]), (ROWS // 2 * LEN,) * 2)

    def test_a_constant_cost_is_found_and_not_judged(self):
        """The store adds a constant: found as the shift, the rest passes."""
        r = rec.two_sample(rows(80, 80, shift=5), ROWS, LEN, 3)
        self.assertEqual(r["shift"], 5)
        self.assertTrue(r["symbols"]["pass"] and r["shape"]["pass"], r)

    def test_a_changed_form_fails(self):
        r = rec.two_sample(rows(80, 100), ROWS, LEN, 3)
        self.assertFalse(r["shape"]["pass"])

    def test_changed_symbols_fail(self):
        """Deltas whose low bits lose their spread in B: the symbols differ."""
        a = np.frombuffer(rows(80, 80), dtype="<u8").copy().reshape(ROWS, LEN)
        a[1::2] &= ~np.uint64(1)
        r = rec.two_sample(a.tobytes(), ROWS, LEN, 3)
        self.assertFalse(r["symbols"]["pass"])

    def test_a_short_recording_is_refused(self):
        with self.assertRaisesRegex(ValueError, "expected 20 rows of 20000"):
            rec.two_sample(rows(80, 80)[:-8], ROWS, LEN, 3)


class ConditioningChecksTest(unittest.TestCase):
    def test_broken_blocks_and_a_changed_recording_fail(self):
        good = {"symbols": {"pass": True, "p": 0.5, "chi2": 1, "df": 1},
                "shape": {"pass": True, "p": 0.5, "chi2": 1, "df": 1},
                "stride": 3, "alpha": 0.001}
        bad = dict(good, shape={"pass": False, "p": 1e-9, "chi2": 99.0, "df": 18})
        for blocks, recording, want in ((0.97, good, ["pass", "pass"]),
                                        (0.2, good, ["fail", "pass"]),
                                        (0.97, bad, ["pass", "fail"])):
            s = {"blocks": {"assessed": blocks, "samples": 256000}, "recording": recording}
            got = [c.status for c in er.conditioning_checks("entropy.x", s, "x")]
            self.assertEqual(got, want, (blocks, recording))


if __name__ == "__main__":
    unittest.main()
