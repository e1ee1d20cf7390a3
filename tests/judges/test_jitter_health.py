# SPDX-License-Identifier: GPL-2.0-only
"""The Jitter RNG core (tangled/jitterentropy.c) in user space, continued
from test_jitter.py (which says how the driver and the model are compared):
a repeated output block, the kernel glue's lock, the health tests (RCT,
APT, the stuck bound: cutoffs and induced failures), the start-up test
with each of its error codes (on x86-64 and i386), and allocation.
"""

import hashlib
import math
import os
import random
import re
import unittest
from fractions import Fraction

from .jitter_driver import TANGLED, compare_read, deltas_timer, drive, jittery, model, \
    timer_lines, traces


class RepeatTest(unittest.TestCase):
    """Two equal consecutive output blocks are delivered, not refused."""

    def test_repeated_block_is_not_an_error(self):
        """The 2015 FIPS test panicked on two equal 64-bit outputs (defect
        5).  Two equal blocks in a row cannot be scripted within one chain:
        each block is SHA3-256 of the one before it and new deltas, so the
        second equals the first only at a fixed point of SHA3-256, and two
        equal 64-bit words of one block would take some 2^64 tries.  But a
        failed read resets the chain to zero, so the same 320 deltas after
        it make the same block again: the first read of a new collector
        (64 priming samples, then the deltas D) gives B = SHA3-256(0 || D);
        the second read fails (-2) at 31 equal deltas, handing out nothing;
        the third hashes D again on the reset chain.  The collector hands
        out B twice in a row, and the read succeeds: the C matching the
        model."""
        rnd = random.Random(27)
        d = [rnd.randrange(1 << 20, 1 << 21) for _ in range(model.BLOCK_SAMPLES)]
        stall = [4321] * model.RCT_CUT
        # read 1: D; read 2: its priming measurement, then the run of 31;
        # read 3: its priming measurement, then D again
        deltas = d + [7777] + stall + [8888] + d + [rnd.randrange(5000, 9000)
                                                     for _ in range(400)]
        res, ec = compare_read(self, *deltas_timer(deltas), [32, 32, 32])
        (r1, b1), (r2, b2), (r3, b3) = res
        self.assertEqual((r1, r2, r3), (0, -2, 0))
        self.assertEqual(b2, bytes(32))
        self.assertEqual(b3, b1)
        self.assertEqual(b1, hashlib.sha3_256(bytes(32) + b"".join(
            x.to_bytes(8, "little") for x in d)).digest())
        self.assertEqual(ec.health.rct_run, 1)


class GlueTest(unittest.TestCase):
    """Properties of the kernel glue that need no kernel to check."""

    def test_glue_locks_with_a_mutex(self):
        """The read path takes a mutex, and no spinlock anywhere (defect
        8): the tangled glue is read, as a reviewer would."""
        with open(os.path.join(TANGLED, "jitterentropy-kcapi.c")) as f:
            src = f.read()
        self.assertIn("struct mutex jent_lock;", src)
        body = src[src.index("static int jent_kcapi_random("):]
        body = body[:body.index("\n}\n")]
        self.assertIn("mutex_lock(&rng->jent_lock);", body)
        self.assertIn("mutex_unlock(&rng->jent_lock);", body)
        self.assertNotRegex(src, r"spin_lock|spinlock_t|raw_spin")

    def test_glue_yields_between_blocks(self):
        """A read through the crypto API calls the core one output block
        at a time and gives up the CPU between two calls (issue 37): a read
        of many blocks runs thousands of unoptimised measurements.  The
        tangled glue is read, as a reviewer would."""
        with open(os.path.join(TANGLED, "jitterentropy-kcapi.c")) as f:
            src = f.read()
        body = src[src.index("static int jent_kcapi_random("):]
        body = body[:body.index("\n}\n")]
        self.assertNotIn("jent_read_entropy(", body,
                         "the read path calls the core for the whole buffer")
        self.assertIn("jent_kcapi_read(rng->entropy_collector, rdata, dlen)", body)
        self.assertIn("static int jent_kcapi_read(", src)
        read = src[src.index("static int jent_kcapi_read("):]
        read = read[:read.index("\n}\n")]
        self.assertRegex(read, r"min_t\(unsigned int, dlen - done, JENT_BLOCK_BYTES\)")
        self.assertRegex(read, r"do \{[\s\S]*jent_read_entropy\(ec, rdata \+ done, n\);"
                               r"[\s\S]*cond_resched\(\);[\s\S]*\} while \(done < dlen\);")


class HealthTest(unittest.TestCase):
    """RCT and APT on the deltas, the stuck bound: cutoffs and induced
    failures."""

    @staticmethod
    def critbinom(n, p, q):
        c = Fraction(0)
        for k in range(n + 1):
            c += Fraction(math.comb(n, k)) * p ** k * (1 - p) ** (n - k)
            if c >= q:
                return k

    def test_rct_cutoffs_from_formula(self):
        """C = 1 + ceil(-log2(alpha) / H), H = 1: 31 and 61."""
        for a, c in ((30, model.RCT_CUT), (60, model.RCT_CUT_PERM)):
            self.assertEqual(1 + math.ceil(a / 1), c)

    def test_apt_cutoffs_from_binomial(self):
        """C = 1 + CRITBINOM(512, 2^-H, 1 - alpha): 325 and 355; the false
        positive rate P(B >= C) with B - 1 ~ Bin(511, 1/2) is at most alpha."""
        for a, c in ((30, model.APT_CUT), (60, model.APT_CUT_PERM)):
            k = self.critbinom(512, Fraction(1, 2), 1 - Fraction(1, 2 ** a))
            self.assertEqual(1 + k, c)
            tail = sum(math.comb(511, j) for j in range(c - 1, 512))
            self.assertLessEqual(Fraction(tail, 2 ** 511), Fraction(1, 2 ** a))

    def test_stuck_cutoffs_from_formula(self):
        """The smallest C with (7/8)^C <= alpha, for alpha = 2^-30 and
        2^-60: 156 and 312 stuck samples in a row (a sample usable with
        probability 1/8 at least); the core's constants are these."""
        with open(os.path.join(TANGLED, "jitterentropy.c")) as f:
            core = f.read()
        for a, c, name in ((30, model.STUCK_CUT, "JENT_STUCK_CUTOFF"),
                           (60, model.STUCK_CUT_PERM, "JENT_STUCK_CUTOFF_PERMANENT")):
            smallest = next(k for k in range(1, 1000)
                            if Fraction(7, 8) ** k <= Fraction(1, 2 ** a))
            self.assertEqual(smallest, c)
            self.assertEqual(math.ceil(a / -math.log2(7 / 8)), c)
            m = re.search(rf"^#define {name}\s+(\d+)$", core, re.M)
            self.assertIsNotNone(m, f"the core has no {name}")
            self.assertEqual(int(m.group(1)), c)
        self.assertEqual((model.STUCK_CUT, model.STUCK_CUT_PERM), (156, 312))

    # Timer reads before the clock stops: 200 measurements, in the first
    # block of a new collector (which takes 1 + 64 + 320 at least).
    MID_FIRST_BLOCK = 600

    def _stopped_clock_after(self, seed, good_reads):
        t0, segs = jittery(seed)
        segs = [("rand",) + segs[0][1:4] + (good_reads,), ("const", 0)]
        return t0, segs

    def test_rct_intermittent_failure(self):
        """A clock that stops mid-block: the 31st equal delta fails the read
        with -2, the buffer is zero, the chain value is reset; the stuck
        test's history and the health counters are not."""
        t0, segs = self._stopped_clock_after(20, self.MID_FIRST_BLOCK)
        (r1, _), = compare_read(self, t0, segs, [32])[0][:1]
        self.assertEqual(r1, -2)
        _, ec = compare_read(self, t0, segs, [32])
        self.assertEqual((ec.block, ec.health.rct_run), (bytes(32), 31))
        self.assertEqual((ec.ld, ec.ld2, ec.health.stuck_run), (0, 0, 30))

    def test_failure_after_good_reads_clears_the_chain(self):
        """The clock stops after some good reads: the failed read resets
        the chain value the good ones left (the C state after every read
        equals the model's).  When the first block fails, as in the test
        above, the chain value is still all zero and a reset that forgot
        it could not be seen."""
        t0, segs = self._stopped_clock_after(24, 2400)
        blocks = []
        res, ec = compare_read(self, t0, segs, [32] * 4,
                               after_read=lambda i, ec, c: blocks.append(c["block"]))
        codes = [r for r, _ in res]
        self.assertEqual(codes, [0, 0, -2, -2])
        self.assertEqual(blocks[1], res[1][1].hex())
        self.assertEqual(blocks[2:], ["00" * 32] * 2)

    def test_rct_permanent_failure(self):
        """The clock stays stopped: each read fails again at once (the run
        goes on), until the 61st equal delta makes it permanent; from then
        on every read fails with -3 without measuring."""
        t0, segs = self._stopped_clock_after(21, self.MID_FIRST_BLOCK)
        res, ec = compare_read(self, t0, segs, [32] * 32)
        codes = [r for r, _ in res]
        self.assertEqual(codes, [-2] * 30 + [-3, -3])
        self.assertEqual(ec.health.rct_run, 61)
        self.assertTrue(ec.failed)

    def test_apt_intermittent_and_permanent_failure(self):
        """One delta value in 9 of 10 samples, never 31 in a row: the APT
        fails the read at a count of 325; the count goes on in its window,
        each read failing again at its first sample, until 355 makes the
        failure permanent."""
        rnd = random.Random(22)
        deltas = [400 if k % 10 != 8 else 401 + 2 * rnd.randrange(1, 2000)
                  for k in range(3000)]
        res, ec = compare_read(self, *deltas_timer(deltas), [32] * 60)
        codes = [r for r, _ in res]
        first = codes.index(-2)
        self.assertEqual(codes[:first], [])
        self.assertIn(-3, codes)
        perm = codes.index(-3)
        self.assertEqual(codes[first:perm], [-2] * (perm - first))
        self.assertEqual(set(codes[perm:]), {-3})
        self.assertGreaterEqual(ec.health.apt_count, model.APT_CUT_PERM)
        self.assertLess(ec.health.rct_run, model.RCT_CUT)

    def test_stuck_bound_intermittent_and_permanent(self):
        """Deltas that grow by a constant step never repeat (no RCT, APT
        or lag match) and are stuck, by their zero third difference, from
        the third on.  The first read of a new collector fails (-2) at its
        158th sample, the 156th stuck one in a row (priming samples are
        stuck-tested as every sample is).  The count and the stuck test's history
        outlive the failure; each later read's first two samples, whose
        stuck tests span the block's priming measurement, are not stuck
        (and counted), but may not set the count back, so the read fails at
        its third sample with the count one higher.  The 157th read brings
        it to 312: permanent (-3); the next read fails at once.  Were the
        count set back by those two samples, or the history cleared, every
        read would fail with -2 and none with -3."""
        deltas = [5000 + 7 * k for k in range(1000)]
        reads = model.STUCK_CUT_PERM - model.STUCK_CUT + 2
        seen = []

        def after_read(i, ec, c_state):
            seen.append((c_state["stuck_run"], c_state["reads"]))
        res, ec = compare_read(self, *deltas_timer(deltas, prime=False), [32] * reads,
                               after_read=after_read)
        codes = [r for r, _ in res]
        self.assertEqual(codes, [-2] * (reads - 2) + [-3, -3])
        self.assertEqual([r for r, _ in seen],
                         list(range(model.STUCK_CUT, model.STUCK_CUT_PERM + 1))
                         + [model.STUCK_CUT_PERM])
        # timer reads: 3 a measurement; the first read 1 + 158, each
        # later one 1 + 3, the last one none
        per_read = [b - a for a, b in zip([0] + [t for _, t in seen], [t for _, t in seen])]
        self.assertEqual(per_read, [3 * (1 + 2 + model.STUCK_CUT)]
                         + [3 * (1 + 3)] * (reads - 2) + [0])
        self.assertEqual(ec.health.stuck_run, model.STUCK_CUT_PERM)
        self.assertLess(ec.health.rct_run, model.RCT_CUT)
        self.assertLess(ec.health.apt_count, model.APT_CUT)
        self.assertEqual(ec.health.lag_count, 0)

    def test_good_timers_pass(self):
        """On jittery timers, long reads never fail a health test."""
        for seed in range(3):
            res, ec = compare_read(self, *jittery(400 + seed, 300, 4000), [256],
                                   trace=False)
            self.assertEqual(res[0][0], 0)

    def test_failed_collector_stays_failed(self):
        t0, segs = self._stopped_clock_after(23, self.MID_FIRST_BLOCK)
        res, ec = compare_read(self, t0, segs, [32] * 31 + [0, 1])
        self.assertEqual([r for r, _ in res][-3:], [-3, -3, -3])


class StartupTest(unittest.TestCase):
    """The start-up test: 1024 counted samples after 100 warm-up ones; each
    error code from a timer built to cause it."""

    def run_startup(self, t0, segs, arch="64"):
        out = drive(self, timer_lines(t0, segs) + ["trace 1", "startup"], arch)
        line = [ln for ln in out if ln.startswith("startup ")][0]
        code = int(line.split()[1])
        stats = dict(kv.split("=") for kv in line.split()[2:])
        code_m, s, tr = model.startup(model.Timer(t0, segs))
        self.assertEqual(traces(out), tr)
        self.assertEqual(code, code_m)
        for k, v in s.items():
            self.assertEqual(int(stats[k]), v, k)
        self.assertEqual(int(stats["live"]), 0, "the test's collector leaked")
        return code, s

    @staticmethod
    def deltas_timer(deltas, t0=1000):
        # (the start-up test makes one priming measurement, not a block's)
        return deltas_timer(deltas, t0, prime=False)

    N = model.WARMUP + model.SAMPLES

    def good(self, seed):
        rnd = random.Random(seed)
        return [rnd.randrange(400, 1400) for _ in range(self.N)]

    def test_passes_on_jittery_timer(self):
        for seed in range(3):
            code, s = self.run_startup(*jittery(500 + seed))
            self.assertEqual(code, 0)
            self.assertEqual(s["samples"], 1024)

    def test_counts_1024_samples_after_warmup(self):
        code, s = self.run_startup(*jittery(510))
        self.assertEqual(s["reads"], 3 * (1 + self.N))

    def test_passes_i386(self):
        code, _ = self.run_startup(*jittery(511), arch="32")
        self.assertEqual(code, 0)

    # Each verdict at its threshold: one timer on each side of it, built
    # from the model's counts, so that a threshold of the C one away from
    # the book's is seen (the C's code and counts must equal the model's).

    def nonmult(self, rnd):
        """A plausible delta that is not a multiple of 100."""
        while True:
            x = rnd.randrange(401, 1400)
            if x % 100:
                return x

    def with_mod100(self, k, seed=918):
        """Jittery deltas, k of the 1024 counted ones multiples of 100."""
        rnd = random.Random(seed)
        d = [self.nonmult(rnd) for _ in range(self.N)]
        for j in rnd.sample(range(model.WARMUP, self.N), k):
            d[j] = 100 * rnd.randrange(2, 14)
        return d

    def test_coarse_timer_threshold(self):
        """918 of 1024 counted deltas multiples of 100 (1024 / 10 * 9)
        pass; 919 fail with JENT_ECOARSETIME."""
        for k, want in ((918, 0), (919, model.ECOARSETIME)):
            code, s = self.run_startup(*self.deltas_timer(self.with_mod100(k)))
            self.assertEqual((code, s["mod100"]), (want, k))

    def with_changes(self, v, seed=102):
        """Counted deltas in runs: v of the 1023 after the first differ
        from the delta before them."""
        rnd = random.Random(seed)
        d = [self.nonmult(rnd) for _ in range(model.WARMUP)]
        bounds = {round(model.SAMPLES * (i + 1) / (v + 1)) for i in range(v)}
        cur = self.nonmult(rnd)
        for j in range(model.SAMPLES):
            while j in bounds and d[-1] == cur:
                cur = self.nonmult(rnd)
            d.append(cur)
        return d

    def test_variation_threshold(self):
        """101 changes among the counted deltas fail with
        JENT_EMINVARIATION (fewer than 1024 / 10); 102 pass that check
        and meet the next, the stuck one (the runs are stuck)."""
        for v, want in ((101, model.EMINVARIATION), (102, model.ESTUCK)):
            code, s = self.run_startup(*self.deltas_timer(self.with_changes(v)))
            self.assertEqual((code, s["varied"]), (want, v))

    def with_progression(self, n, seed=919):
        """Jittery deltas, the first n counted ones in a straight line
        (step 3: every one stuck by its third difference)."""
        rnd = random.Random(seed)
        d = [self.nonmult(rnd) for _ in range(self.N)]
        for j in range(n):
            d[model.WARMUP + j] = 1001 + 3 * j
        return d

    def test_stuck_threshold(self):
        """918 stuck of 1024 counted pass (1024 / 10 * 9); 919 fail with
        JENT_ESTUCK.  The line's length that makes each is the model's."""
        lengths = {}
        for n in range(900, 940):
            _, s, _ = model.startup(model.Timer(*self.deltas_timer(
                self.with_progression(n))))
            lengths.setdefault(s["stuck"], n)
        for stuck, want in ((918, 0), (919, model.ESTUCK)):
            self.assertIn(stuck, lengths)
            code, s = self.run_startup(*self.deltas_timer(
                self.with_progression(lengths[stuck])))
            self.assertEqual((code, s["stuck"]), (want, stuck))

    def test_enotime_at_the_priming_measurement(self):
        """Only the priming measurement's time stamp is 0 (the timer
        wraps there): JENT_ENOTIME all the same."""
        d = self.with_mod100(0)
        code, _ = self.run_startup(*self.deltas_timer(d, t0=model.M64 - 1))
        self.assertEqual(code, model.ENOTIME)

    def test_smallest_delta_of_a_timer_going_back(self):
        """A timer that goes back by 1 at every measurement: every delta
        is 2^64 - 1, and so is the smallest one reported."""
        code, s = self.run_startup(*self.deltas_timer([model.M64] * self.N, t0=1 << 40))
        self.assertEqual((code, s["dmin"]), (model.ENOMONOTONIC, model.M64))

    def test_enotime(self):
        self.assertEqual(self.run_startup(0, [("const", 0)])[0], model.ENOTIME)

    def test_ecoarsetime_zero_delta(self):
        d = self.good(520)
        d[500] = 0
        self.assertEqual(self.run_startup(*self.deltas_timer(d))[0], model.ECOARSETIME)

    def test_ecoarsetime_multiples_of_100(self):
        rnd = random.Random(521)
        d = [100 * rnd.randrange(4, 40) for _ in range(self.N)]
        self.assertEqual(self.run_startup(*self.deltas_timer(d))[0], model.ECOARSETIME)

    def test_enomonotonic(self):
        d = self.good(522)
        for i in (300, 500, 700, 900):
            d[i] = -5000
        self.assertEqual(self.run_startup(*self.deltas_timer(d))[0], model.ENOMONOTONIC)

    def test_three_steps_back_are_tolerated(self):
        d = self.good(523)
        for i in (300, 500, 700):
            d[i] = -5000
        self.assertEqual(self.run_startup(*self.deltas_timer(d))[0], 0)

    def test_evarvar_constant_step(self):
        """A timer that advances by a constant step fails (the seed passed
        it: its first delta was compared with an unset one)."""
        for step in (2, 7, 333):
            code, s = self.run_startup(5, [("inc", step), ("rand", 1, step, 1, 0)])
            self.assertEqual(code, model.EVARVAR)
            self.assertEqual(s["dsum"], 0)

    def test_eminvarvar(self):
        d = [777] * self.N
        d[-1] = 778
        self.assertEqual(self.run_startup(*self.deltas_timer(d))[0], model.EMINVARVAR)

    def test_eminvarvar_threshold(self):
        """The deltas change by 2 in all: not JENT_EMINVARVAR (a sum of at
        most 1), but the next check, JENT_EMINVARIATION (one change)."""
        d = [777] * self.N
        d[-1] = 779
        code, s = self.run_startup(*self.deltas_timer(d))
        self.assertEqual((code, s["dsum"]), (model.EMINVARIATION, 2))

    def test_eminvariation(self):
        d = [1000 + 37 * (i // 20) for i in range(self.N)]
        code, s = self.run_startup(*self.deltas_timer(d))
        self.assertEqual(code, model.EMINVARIATION)
        self.assertLess(s["varied"], 102)

    def test_estuck(self):
        d = [500 + 3 * i for i in range(self.N)]
        code, s = self.run_startup(*self.deltas_timer(d))
        self.assertEqual(code, model.ESTUCK)
        self.assertGreater(s["stuck"], 918)

    def test_ehealth_rct(self):
        d = self.good(524)
        for i in range(600, 631):
            d[i] = 999
        code, s = self.run_startup(*self.deltas_timer(d))
        self.assertEqual(code, model.EHEALTH)
        self.assertEqual(s["rct_max"], 31)

    def test_ehealth_apt(self):
        rnd = random.Random(525)
        d = [900 if (i - model.WARMUP) % 3 != 2 else rnd.randrange(1000, 9000)
             for i in range(self.N)]
        code, s = self.run_startup(*self.deltas_timer(d))
        self.assertEqual(code, model.EHEALTH)
        self.assertGreaterEqual(s["apt_max"], 325)
        self.assertLess(s["rct_max"], 31)

    def test_rct_30_is_not_a_failure(self):
        d = self.good(526)
        for i in range(600, 630):
            d[i] = 999
        self.assertEqual(self.run_startup(*self.deltas_timer(d))[0], 0)

    def test_enomem(self):
        for n in (1, 2):
            out = drive(self, timer_lines(*jittery(527)) + [f"allocfail {n}", "startup"])
            self.assertEqual(out[0].split()[1], str(model.ENOMEM))
            self.assertIn("live=0", out[0])


class AllocTest(unittest.TestCase):
    """The collector's allocation, flags and free."""

    def test_free_null_is_safe(self):
        """Freeing NULL returns at once (the seed dereferenced it first)."""
        self.assertEqual(drive(self, ["freenull"]), ["freenull ok"])

    def test_free_releases_both_allocations(self):
        out = drive(self, timer_lines(0, [("const", 0)]) + ["new 1 0", "free"])
        self.assertEqual(out, ["new ok", "free live=0"])

    def test_unknown_flags_and_osr_refused(self):
        out = drive(self, ["new 1 1", "new 1 2", "new 17 0", "new 0 4", "new 16 0"])
        self.assertEqual(out, ["new null", "new null", "new null", "new ok", "new ok"])

    def test_allocation_failure(self):
        out = drive(self, ["allocfail 1", "new 1 0", "allocfail 2", "new 1 0",
                           "free"])
        self.assertEqual(out, ["new null", "new null", "free live=0"])


if __name__ == "__main__":
    unittest.main()
