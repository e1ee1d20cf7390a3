# SPDX-License-Identifier: GPL-2.0-only
"""The lag predictor test of the Jitter RNG core (chapter "The CPU Jitter
RNG: entropy evidence"): its cutoffs from their formulas, the C core and
the model agreeing on its counters, and timers of period 2 to 8, which the
RCT, the APT and the stuck bound let through, failing the start-up test
and every read.
"""

import math
import random
import unittest
from unittest import mock

from harness.judges import entropy_math as em

from .jitter_driver import compare_read, deltas_timer, drive, model, timer_lines

# About 12 s of the host tests on two CPUs: run before the short modules
# (host_tests.shuffled).
LONG = True

# The deltas of one period of the scripted timers (their first k for
# period k): never stuck, no delta repeated within a period.
PERIOD = (1003, 1019, 1008, 1022, 1026, 1029, 1000, 1024)


def periodic(k, n=40000):
    return deltas_timer([PERIOD[i % k] for i in range(n)])


def without_lag_test():
    """The model as the core was before the lag predictor test."""
    return mock.patch.object(model.Health, "lag", lambda self, delta: model.OK)


class LagCutoffTest(unittest.TestCase):
    """Cutoffs for H = 1 bit per sample, alpha = 2^-30 and 2^-60, over the
    131072 - 8 guesses of a window."""

    N = model.LAG_WINDOW - model.LAG_HISTORY

    def test_run_cutoffs_from_union_bound(self):
        """r = smallest with n 2^-r <= alpha: 47 and 77."""
        for a, c in ((30, model.LAG_RUN_CUT), (60, model.LAG_RUN_CUT_PERM)):
            self.assertEqual(em.lag_run_cutoff(1, a, self.N), c)
            self.assertLessEqual(self.N * 2.0 ** -c, 2.0 ** -a)
            self.assertGreater(self.N * 2.0 ** -(c - 1), 2.0 ** -a)

    def test_count_cutoffs_from_exact_binomial(self):
        """C = 1 + CRITBINOM(n, 1/2, 1 - alpha), checked with exact integer
        sums: P[X >= C] <= alpha < P[X >= C - 1]."""
        for a, c in ((30, model.LAG_COUNT_CUT), (60, model.LAG_COUNT_CUT_PERM)):
            self.assertEqual(em.lag_count_cutoff(1, a, self.N), c)
            tail, term, k = 0, math.comb(self.N, self.N), self.N
            while k >= c - 1:
                if k == c - 1:
                    above = tail
                tail += term
                term = term * k // (self.N - k + 1)
                k -= 1
            self.assertLessEqual(above * 2 ** a, 2 ** self.N)
            self.assertGreater(tail * 2 ** a, 2 ** self.N)


class LagTest(unittest.TestCase):
    """Periodic timers, in the C core and the model."""

    def startup(self, t0, segs):
        out = drive(self, timer_lines(t0, segs) + ["startup"])
        code = int(next(ln for ln in out if ln.startswith("startup ")).split()[1])
        self.assertEqual(code, model.startup(model.Timer(t0, segs))[0])
        return code

    def test_periodic_timers_fail_the_startup_test(self):
        """Periods 2 to 8: JENT_EHEALTH, from the lag predictor."""
        for k in range(2, 9):
            with self.subTest(period=k):
                self.assertEqual(self.startup(*periodic(k)), model.EHEALTH)

    def test_periodic_timers_fail_every_read(self):
        """Periods 2 to 8: the first read fails at a run of 47 right
        guesses; so does every read after it; no output ever."""
        for k in range(2, 9):
            with self.subTest(period=k):
                res, ec = compare_read(self, *periodic(k), [32] * 4, trace=False)
                self.assertEqual([r for r, _ in res], [-2] * 4)
                self.assertEqual(ec.health.lag_run, model.LAG_RUN_CUT)
                self.assertLess(ec.health.rct_run, model.RCT_CUT)
                self.assertLess(ec.health.apt_count, model.APT_CUT)

    def test_without_the_test_periodic_timers_pass(self):
        """What the lag predictor test is for: without it (the core before
        it), every period passes the start-up test and the reads, and two
        collectors started at different times give the same output."""
        with without_lag_test():
            for k in range(2, 9):
                with self.subTest(period=k):
                    t0, segs = periodic(k)
                    self.assertEqual(model.startup(model.Timer(t0, segs))[0], 0)
                    a = model.Collector(model.Timer(t0, segs)).read(64)
                    b = model.Collector(model.Timer(t0 + 987654321, segs)).read(64)
                    self.assertEqual(a[0], 0)
                    self.assertEqual(a, b)

    def test_jittery_timers_pass(self):
        """Timers with real variation never fail it (nor the others)."""
        for seed in range(3):
            rnd = random.Random(700 + seed)
            deltas = [rnd.randrange(900, 1400) for _ in range(20000)]
            res, _ = compare_read(self, *deltas_timer(deltas), [64, 64], trace=False)
            self.assertEqual([r for r, _ in res], [0, 0])

    def hfeed(self, n, deltas):
        out = drive(self, [f"hfeed {n} {len(deltas)} " + " ".join(map(str, deltas))])
        kv = dict(x.split("=", 1) for x in out[0].split()[1:])
        h, levels = model.Health(), [0, 0, 0]
        for i in range(n):
            levels[h.insert(deltas[i % len(deltas)])] += 1
        self.assertEqual([int(kv[k]) for k in ("ok", "intermittent", "permanent")], levels)
        want = {"rct_last": h.rct_last, "rct_run": h.rct_run, "apt_base": h.apt_base,
                "apt_count": h.apt_count, "apt_seen": h.apt_seen}
        for k, v in want.items():
            self.assertEqual(int(kv[k]), v, k)
        return kv["lag"], h

    def test_counters_match_model_across_a_window(self):
        """140000 deltas of a 4000-long pseudo-random cycle with many
        repeats: every counter of the C core equals the model's after the
        lag window (131072) ended and a new one began."""
        rnd = random.Random(31)
        deltas = [rnd.choice((1000, 1001, 1002, 1003)) if rnd.random() < .3
                  else rnd.randrange(2000, 9000) for _ in range(4000)]
        lag, h = self.hfeed(140000, deltas)
        self.assertEqual(lag, ",".join(str(x) for x in h.lag_hist + h.lag_score +
                                       [h.lag_best, h.lag_run, h.lag_count, h.lag_seen]))
        self.assertEqual(h.lag_seen, 140000 - model.LAG_WINDOW)

    def test_count_cutoffs_to_the_delta(self):
        """A stream the lag predictor guesses right more often than the
        count cutoffs allow, but never 47 times in a row: stretches of
        40 deltas of period 2, each followed by 4 unlike ones.  Fed one
        window less one delta, the count passes 66,621 and then 67,121,
        and the C core's verdict on every delta (the number of healthy,
        intermittent and permanent ones) equals the model's: a count
        cutoff of the C one away from its formula is seen to the delta.
        The run, the RCT and the APT stay below their cutoffs."""
        rnd = random.Random(66621)
        deltas = []
        for _ in range(50):
            deltas += [1000, 1500] * 20 + [rnd.randrange(2000, 9000) for _ in range(4)]
        n = model.LAG_WINDOW - 1
        _, h = self.hfeed(n, deltas)
        self.assertGreater(h.lag_count, model.LAG_COUNT_CUT_PERM)
        g, runs, others = model.Health(), [], []
        for i in range(n):
            g.insert(deltas[i % len(deltas)])
            runs.append(g.lag_run)
            others.append((g.rct_run, g.apt_count))
        self.assertLess(max(runs), model.LAG_RUN_CUT)
        self.assertLess(max(r for r, _ in others), model.RCT_CUT)
        self.assertLess(max(a for _, a in others), model.APT_CUT)

    def test_a_new_window_starts_from_nothing(self):
        """Across the end of a window, on streams whose first guesses in
        the new window are right (constant deltas, for lag 1 and every
        other lag; period 2, for lag 2 only): the C core's counters equal
        the model's, so a window starts with no run and with lag 1 as its
        guess, not with what the last window left (the random stream of
        test_counters_match_model_across_a_window breaks both at its
        first wrong guess, and cannot tell)."""
        for deltas in ([1000], [1000, 1500]):
            with self.subTest(deltas=deltas):
                lag, h = self.hfeed(model.LAG_WINDOW + 20, deltas)
                self.assertEqual(lag, ",".join(str(x) for x in h.lag_hist + h.lag_score +
                                               [h.lag_best, h.lag_run, h.lag_count,
                                                h.lag_seen]))
                self.assertEqual(h.lag_seen, 20)
                self.assertEqual(h.lag_count, 12 if len(deltas) == 1 else 11)

    def test_permanent_run_cutoff(self):
        """Fed without interruption (no priming measurement between reads),
        a period-3 stream reaches the permanent run cutoff of 77."""
        lag, h = self.hfeed(100, list(PERIOD[:3]))
        self.assertEqual(h.lag_run, 100 - model.LAG_HISTORY - 1)
        self.assertEqual(model.level(h.lag_run, model.LAG_RUN_CUT, model.LAG_RUN_CUT_PERM),
                         model.PERMANENT)


if __name__ == "__main__":
    unittest.main()
