# SPDX-License-Identifier: GPL-2.0-only
"""The Jitter RNG core (tangled/jitterentropy.c), tested in user space.

The tangled core is compiled, the same file, against a small shim
(conformance/jitter/shim.c: a scripted timer, an allocator that can fail,
SHA3-256) by a driver that calls its functions (conformance/jitter/driver.c),
at -O0 for x86-64 and for i386 (gcc-multilib, installed by make deps; run
directly, or under qemu-i386 where the host cannot execute i386
binaries).  An independent model (harness/judges/jitter_model.py, written
from the book's description, not from the C) computes what the core must
do for the same scripted timer: every measurement (time stamp, delta,
memory and fold loop counts), the counted samples, the conditioned
blocks, the hash input left behind, the health-test counters, the
start-up result.  Each test compares
the two, bit for bit, or drives the core into one of its failures on
purpose.

This file: the build, the shim, the measurement and its loop counts, the
fold, the memory access, the stuck test, the counted samples, the
conditioning and the reads.  The health tests, the
start-up test, allocation and the glue are in test_jitter_health.py.
"""

import hashlib
from decimal import Decimal, getcontext
import os
import random
import re
import shutil
import subprocess
import tempfile
import unittest

from .jitter_driver import JDIR, M64, TANGLED, compare_read, deltas_timer, drive, jittery, \
    model, need, parse_state, priming_deltas, timer_lines, traces


class BuildTest(unittest.TestCase):
    """The core compiles alone, refuses optimisation, builds for i386."""

    def test_core_needs_no_system_or_kernel_headers(self):
        """tangled/jitterentropy.c compiles with -nostdinc -ffreestanding."""
        r = subprocess.run(["gcc", "-O0", "-std=gnu11", "-Wall", "-Wextra", "-Werror",
                            "-nostdinc", "-ffreestanding", "-c", "-o", os.devnull,
                            os.path.join(TANGLED, "jitterentropy.c")],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(TANGLED, "jitterentropy.c")) as f:
            incs = re.findall(r'^#include\s+(\S+)', f.read(), re.M)
        self.assertEqual(incs, ['"jitterentropy.h"'])

    def test_refuses_optimisation(self):
        """-O2 stops the build with the core's #error."""
        r = subprocess.run(["gcc", "-O2", "-c", "-o", os.devnull,
                            os.path.join(TANGLED, "jitterentropy.c")],
                           capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("-O0", r.stderr)

    def test_driver_builds_x86_64(self):
        need(self, "64")

    def test_driver_builds_i386(self):
        need(self, "32")


class ShimTest(unittest.TestCase):
    """The test shim itself is right where the model relies on it."""

    def test_shim_sha3_matches_hashlib(self):
        rnd = random.Random(3)
        msgs = [b"", b"abc"] + [rnd.randbytes(n) for n in (1, 71, 72, 135, 136, 137, 300)]
        out = drive(self, ["sha3 " + m.hex() for m in msgs])
        self.assertEqual([ln.split()[1] for ln in out],
                         [hashlib.sha3_256(m).hexdigest() for m in msgs])

    def test_own_sha3_matches_hashlib(self):
        """The small Keccak of the i386 driver (sha3.c, SHIM_OWN_SHA3), built
        as the driver builds it, for i386 and x86-64, one-shot and fed in
        pieces."""
        tmp = tempfile.mkdtemp(prefix="jent-sha3-")
        self.addCleanup(shutil.rmtree, tmp, ignore_errors=True)
        with open(os.path.join(tmp, "t.c"), "w") as f:
            f.write('#include "sha3.h"\n#include <stdio.h>\n#include <stdlib.h>\n'
                    "int main(int c, char **v)\n{\n\tstatic unsigned char b[4096];\n"
                    "\tunsigned char o[32];\n\tstruct sha3_state s;\n"
                    "\tsize_t n = fread(b, 1, sizeof(b), stdin), i, k = atoi(v[1]);\n"
                    "\t(void)c;\n\tif (!k) {\n\t\tsha3_256(b, n, o);\n\t} else {\n"
                    "\t\tsha3_init(&s);\n\t\tfor (i = 0; i < n; i += k)\n"
                    "\t\t\tsha3_update(&s, b + i, i + k < n ? k : n - i);\n"
                    "\t\tsha3_final(&s, o);\n\t}\n\tfor (i = 0; i < 32; i++)\n"
                    "\t\tprintf(\"%02x\", o[i]);\n\treturn 0;\n}\n")
        rnd = random.Random(51)
        for arch in ("32", "64"):
            exe = os.path.join(tmp, f"t{arch}")
            r = subprocess.run(["gcc", f"-m{arch}", "-O0", "-std=gnu11", "-Wall", "-Wextra",
                                "-Werror", "-I", JDIR, "-o", exe, os.path.join(tmp, "t.c"),
                                os.path.join(JDIR, "sha3.c")], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, f"-m{arch}: {r.stderr[-1000:]}")
            for n in (0, 1, 71, 135, 136, 137, 272, 300, 2000):
                data = rnd.randbytes(n)
                for piece in (0, 1, 7, 136, 4096):      # 0: sha3_256(), one-shot
                    out = subprocess.run([exe, str(piece)], input=data, capture_output=True,
                                         check=True).stdout.decode()
                    self.assertEqual(out, hashlib.sha3_256(data).hexdigest(),
                                     (arch, n, piece))

    def test_scripted_timer_matches_model(self):
        t0, segs = 5, [("inc", 7), ("set", 3), ("rand", 99, 10, 5, 4), ("const", 2),
                       ("inc", 1), ("rand", 12345, 100, 1000, 0)]
        out = drive(self, timer_lines(t0, segs) + ["shuffle 63 0"] * 20)
        t = model.Timer(t0, segs)
        want = [model.shuffle(t(), 63) for _ in range(20)]
        self.assertEqual([int(ln.split()[1]) for ln in out], want)


class ShuffleTest(unittest.TestCase):
    """Loop counts come from one fresh time stamp each, all of its bits."""

    def test_loop_counts_match_model(self):
        rnd = random.Random(1)
        vals = [rnd.getrandbits(64) for _ in range(300)] + [0, M64, 1 << 63]
        for bits in (4, 7):
            out = drive(self, timer_lines(0, [("set", v) for v in vals])
                        + [f"shuffle {bits} 0"] * len(vals))
            got = [int(ln.split()[1]) for ln in out]
            self.assertEqual(got, [model.shuffle(v, bits) for v in vals])
            self.assertTrue(all(1 <= g <= 1 << bits for g in got))

    def test_top_bit_of_time_stamp_counts(self):
        """Bit 63 changes the memory loop count (the seed's 64/7 = 9 pieces
        dropped it)."""
        out = drive(self, timer_lines(0, [("set", 0), ("set", 1 << 63)])
                    + ["shuffle 7 0"] * 2)
        self.assertEqual([ln.split()[1] for ln in out], ["1", "2"])

    def test_loop_counts_not_keyed_by_state(self):
        """Two collectors with different chaining blocks (the collector's
        secret), on the same timer, make the same loop counts and the same
        measurements, over two blocks (defect 2); their outputs differ."""
        t0, segs = jittery(11)
        runs, outs = [], []
        for block in (bytes(32), bytes(range(1, 33))):
            out = drive(self, timer_lines(t0, segs)
                        + ["trace 1", "new 1 0", f"setblock {block.hex()}", "read 8",
                           "read 8"])
            runs.append(traces(out))
            outs.append([ln for ln in out if ln.startswith("read ")])
        self.assertEqual(runs[0], runs[1])
        self.assertGreater(len(runs[0]), 2 * (1 + model.BLOCK_SAMPLES))
        self.assertNotEqual(outs[0][0], outs[1][0])
        self.assertNotEqual(outs[0][1], outs[1][1])


class FoldTest(unittest.TestCase):
    """The fold: the parity of the delta, whatever the loop count."""

    def test_fold_matches_model(self):
        rnd = random.Random(2)
        cases = [(rnd.getrandbits(64), rnd.randrange(1, 17)) for _ in range(400)]
        cases += [(0, 1), (M64, 16), (1, 1), (1 << 63, 3), (3, 0)]
        out = drive(self, [f"fold {x} {n}" for x, n in cases])
        self.assertEqual([int(ln.split()[1]) for ln in out],
                         [model.fold(x, n) for x, n in cases])


class MemoryTest(unittest.TestCase):
    """The memory noise: 2 KiB, +1 per access, a step of 31 with wrap."""

    def test_memaccess_matches_model(self):
        rnd = random.Random(4)
        loops = [rnd.randrange(1, 129) for _ in range(40)]
        out = drive(self, timer_lines(0, [("const", 0)]) + ["new 1 0"]
                    + [f"memaccess {n}" for n in loops] + ["state"])
        ec = model.Collector(model.Timer(0, [("const", 0)]))
        for n in loops:
            for _ in range(model.MEM_ACCESSLOOPS + n):
                ec.mem[ec.loc] = (ec.mem[ec.loc] + 1) & 0xFF
                ec.loc = (ec.loc + 31) % 2048
        st = parse_state(out[-1])
        self.assertEqual((st["loc"], st["mem"]), (ec.loc, ec.mem.hex()))

    def test_every_byte_hit_evenly(self):
        """2048 accesses touch each of the 2048 bytes exactly once."""
        out = drive(self, timer_lines(0, [("const", 0)])
                    + ["new 1 0", "memaccess 1920", "state"])
        st = parse_state(out[-1])
        self.assertEqual(st["mem"], "01" * 2048)
        self.assertEqual(st["loc"], 0)

    def test_disable_memory_access(self):
        t0, segs = jittery(12)
        compare_read(self, t0, segs, [32], flags=model.DISABLE_MEMORY_ACCESS)


class StuckTest(unittest.TestCase):
    """The stuck test: zero 1st, 2nd or 3rd difference of the deltas."""

    def test_stuck_matches_model(self):
        rnd = random.Random(5)
        deltas = []
        for _ in range(300):
            r = rnd.random()
            deltas.append(deltas[-1] if deltas and r < 0.2 else
                          0 if r < 0.25 else
                          2 * deltas[-1] - (deltas[-2] if len(deltas) > 1 else 0)
                          if deltas and r < 0.4 else rnd.randrange(1, 50))
        deltas = [d & M64 for d in deltas]
        out = drive(self, timer_lines(0, [("const", 0)]) + ["new 1 0"]
                    + [f"stuck {d}" for d in deltas])[1:]
        ec = model.Collector(None)
        want = [int(ec.stuck(d)) for d in deltas]
        self.assertEqual([int(ln.split()[1]) for ln in out], want)
        self.assertGreater(sum(want), 50)
        self.assertLess(sum(want), 250)

    def test_stuck_cases(self):
        """A repeated delta, a zero delta and a constant 2nd difference are
        stuck; a fresh delta is not."""
        out = drive(self, timer_lines(0, [("const", 0)]) + ["new 1 0"]
                    + [f"stuck {d}" for d in (10, 25, 25, 0, 7, 9, 11, 20)])[1:]
        self.assertEqual([int(ln.split()[1]) for ln in out], [0, 0, 1, 1, 0, 0, 1, 0])


def traced_reads(test, t0, segs, lengths, osr=1):
    """Reads of a new collector in the C core alone, traced: for each read
    (its return code, its bytes, its measurements)."""
    out = drive(test, timer_lines(t0, segs) + ["trace 1", f"new {osr} 0"]
                + [f"read {n}" for n in lengths])
    reads, meas = [], []
    for ln in out:
        if ln.startswith("m "):
            meas.append(tuple(int(x) for x in ln.split()[1:]))
        elif ln.startswith("read "):
            m = re.fullmatch(r"read (-?\d+) ([0-9a-f]*) guard=a5", ln)
            test.assertIsNotNone(m, ln)
            reads.append((int(m.group(1)), bytes.fromhex(m.group(2)), meas))
            meas = []
    return reads


def counted_deltas(reads):
    """The counted deltas of each read, by the book's rule applied to the
    measurements alone: a block's first measurement is its priming one,
    which nothing sees; the others are samples, of which the collector's
    first FIRST_PRIMING are not counted, nor is any stuck one (the stuck
    test's history runs on across reads).  Also the number of stuck
    samples after the priming ones."""
    history = model.Collector(None)
    seen, stuck, per_read = 0, 0, []
    for _, _, meas in reads:
        kept = []
        for (_, delta, _, _) in meas[1:]:
            st = history.stuck(delta)
            if seen >= model.FIRST_PRIMING:
                stuck += st
                if not st:
                    kept.append(delta)
            seen += 1
        per_read.append(kept)
    return per_read, stuck


def le(deltas):
    return b"".join(d.to_bytes(8, "little") for d in deltas)


def unstuck_deltas(seed, n, lo=1000000, hi=2000000):
    """n deltas drawn from a wide range, so that none is stuck after
    priming_deltas() or after one another (checked by the test's
    measurement counts)."""
    rnd = random.Random(seed)
    return [rnd.randrange(lo, hi) for _ in range(n)]


def repeating_timer(seed=14, n=60000):
    """A timer with many stuck samples: each read adds one of a few
    values, so that deltas (three reads each) repeat often."""
    rnd = random.Random(seed)
    return 1000, [("inc", rnd.choice((301, 301, 302, 517, 733))) for _ in range(n)]


class CountedTest(unittest.TestCase):
    """A sample is counted when it is not stuck and the collector's
    priming is over; only counted samples reach the conditioning."""

    def test_reads_match_model_many_timers(self):
        for seed in range(12):
            t0, segs = jittery(100 + seed)
            compare_read(self, t0, segs, [32])

    def test_block_takes_at_least_321_measurements(self):
        """A block takes exactly BLOCK_SAMPLES (320) counted samples and
        one priming measurement: 321 measurements at least, a new
        collector's first block FIRST_PRIMING (64) more.  On a timer
        without stuck samples the C core takes exactly that many (osr 1,
        reads of one, one and two blocks); on one with many stuck samples,
        more, and each block still ends at its 320th counted sample,
        counted from the C's measurements by the book's rule."""
        self.assertEqual((model.BLOCK_SAMPLES, model.FIRST_PRIMING), (320, 64))
        t0, segs = deltas_timer(unstuck_deltas(21, 1400))
        compare_read(self, t0, segs, [32, 32, 64])
        reads = traced_reads(self, t0, segs, [32, 32, 64])
        self.assertEqual([r for r, _, _ in reads], [0, 0, 0])
        self.assertEqual([len(m) for _, _, m in reads], [1 + 64 + 320, 1 + 320, 2 * (1 + 320)])
        t0, segs = repeating_timer()
        compare_read(self, t0, segs, [32, 32])
        reads = traced_reads(self, t0, segs, [32, 32])
        self.assertEqual([r for r, _, _ in reads], [0, 0])
        kept, stuck = counted_deltas(reads)
        self.assertEqual([len(k) for k in kept], [320, 320])
        self.assertGreater(stuck, 50, "the timer should make stuck samples")
        self.assertGreater(len(reads[0][2]), 1 + 64 + 320)
        self.assertGreater(len(reads[1][2]), 1 + 320)
        for (_, _, meas), k in zip(reads, kept):    # a block ends at a counted sample
            self.assertEqual(meas[-1][1], k[-1])

    def test_stuck_samples_are_not_counted(self):
        """jent_counted_sample(), called alone, hands out exactly the deltas
        that are not stuck, after the priming samples, never a stuck one;
        and a read's block is SHA3-256 of the chain and exactly the
        non-stuck deltas after the priming samples, found from the C's
        measurements (defect 4: 1.1.0 let stuck measurements into the
        pool)."""
        # stuck: a repeat (2nd), a zero (5th), a constant step (8th, 9th);
        # called alone, with no block's priming measurement, the collector's
        # first sample is the timer's first delta (t0 + 2)
        pattern = [5000, 5000, 6100, 7300, 0, 9000, 9100, 9200, 9300, 4000, 11111]
        t0 = 1000
        samples = [t0 + 2] + priming_deltas()[1:] + pattern * 3
        _, segs = deltas_timer(samples[1:], t0=t0, prime=False)
        out = drive(self, timer_lines(t0, segs) + ["new 1 0"] + ["counted"] * 15)
        got = [tuple(int(x) for x in ln.split()[1:]) for ln in out[1:]]
        ec = model.Collector(model.Timer(t0, segs))
        self.assertEqual(got, [ec.counted_sample() for _ in range(15)])
        probe = model.Collector(None)
        stuck = [probe.stuck(d) for d in samples]
        self.assertFalse(any(stuck[:model.FIRST_PRIMING]))
        first = model.FIRST_PRIMING
        fresh = [d for d, st in zip(samples[first:], stuck[first:]) if not st]
        self.assertEqual(fresh[:7], [5000, 6100, 7300, 9000, 9100, 4000, 11111])
        self.assertEqual([d for _, d in got], fresh[:15])
        for d in (0, 9200, 9300):
            self.assertNotIn(d, [d for _, d in got])
        # whole blocks, on a timer with many stuck samples
        t0, segs = repeating_timer()
        compare_read(self, t0, segs, [32, 32])
        reads = traced_reads(self, t0, segs, [32, 32])
        kept, stuck = counted_deltas(reads)
        self.assertGreater(stuck, 50, "the timer should make stuck samples")
        b1, b2 = reads[0][1], reads[1][1]
        self.assertEqual(hashlib.sha3_256(bytes(32) + le(kept[0])).digest(), b1)
        self.assertEqual(hashlib.sha3_256(b1 + le(kept[1])).digest(), b2)


class ConditioningTest(unittest.TestCase):
    """Blocks are SHA3-256(previous block || 320 counted deltas)."""

    @staticmethod
    def recording(ec):
        """Record ec's counted deltas, and count its samples."""
        n = {"samples": 0, "counted": []}
        sample, counted_sample = ec.sample, ec.counted_sample

        def one_sample():
            n["samples"] += 1
            return sample()

        def one_counted():
            lv, delta = counted_sample()
            if not lv:
                n["counted"].append(delta)
            return lv, delta
        ec.sample, ec.counted_sample = one_sample, one_counted
        return n

    def test_block_is_sha3_of_chain_and_deltas(self):
        """Each block is SHA3-256 of the block before it (zero for a new
        collector) and its 320 counted deltas, 8 bytes each, least
        significant first: 2592 bytes.  The C matches the model, read after
        read."""
        t0, segs = jittery(15)
        (r1, b1), (r2, b2) = compare_read(self, t0, segs, [32, 32])[0]
        self.assertEqual((r1, r2), (0, 0))
        ec = model.Collector(model.Timer(t0, segs))
        n = self.recording(ec)
        self.assertEqual(ec.read(32), (0, b1))
        d = n["counted"]
        self.assertEqual(len(d), model.BLOCK_SAMPLES)
        msg = bytes(32) + le(d)
        self.assertEqual(len(msg), 2592)
        self.assertEqual(hashlib.sha3_256(msg).digest(), b1)
        self.assertEqual(ec.read(32), (0, b2))
        self.assertEqual(len(d), 2 * model.BLOCK_SAMPLES)
        self.assertEqual(hashlib.sha3_256(b1 + le(d[model.BLOCK_SAMPLES:])).digest(), b2)

    def test_deltas_carry_output_plus_64(self):
        """320 counted deltas, each credited with the claim H = 1 bit per
        raw sample, carry n_out + 64 = 320 bits, what a 256-bit block
        needs for full entropy (SP 800-90C's n + 64); 6.1's 256 (fips=0)
        would carry only n_out.  The core's constant is the book's."""
        h_claim = 1
        need = 8 * model.BLOCK_BYTES + 64
        self.assertEqual(model.BLOCK_SAMPLES * h_claim, need)
        self.assertLess(256 * h_claim, need)
        with open(os.path.join(TANGLED, "jitterentropy.c")) as f:
            core = f.read()
        m = re.search(r"^#define JENT_BLOCK_SAMPLES\s+(\d+)", core, re.M)
        self.assertIsNotNone(m, "the core has no JENT_BLOCK_SAMPLES")
        self.assertEqual(int(m.group(1)), model.BLOCK_SAMPLES)

    def test_output_entropy_of_a_block(self):
        """SP 800-90B 3.1.5.1.2: Output_Entropy of SHA3-256 over the chain and
        320 deltas (n_in = 256 + 320 x 64 bits, the core's hash input) is
        full entropy (1 - 2^-32 per bit) for h_in = 320, not for 256."""
        n_in = 8 * (model.BLOCK_BYTES + 8 * model.BLOCK_SAMPLES)
        n_out = nw = 8 * model.BLOCK_BYTES
        full = n_out * (1 - Decimal(2) ** -32)
        self.assertEqual(n_in, 256 + 320 * 64)
        # the core's hash input (ec->in, which the state line shows) is as long
        st = parse_state(drive(self, ["new 1 0", "state"])[1])
        self.assertEqual(4 * len(st["in"]), n_in)
        self.assertGreaterEqual(output_entropy(n_in, n_out, nw, n_out + 64), full)
        self.assertLess(output_entropy(n_in, n_out, nw, n_out), full)
        self.assertLess(output_entropy(n_in, n_out, nw, 128), 129)

    def test_hash_failure_is_reported(self):
        """A failure of the host's SHA3-256 fails the read (-1, zero
        bytes), after the block's 320 counted samples, and resets the
        chain; it is not a health failure: the next read succeeds.  C and
        model agree on every measurement and on the state after each
        read."""
        t0, segs = jittery(16)
        out = drive(self, timer_lines(t0, segs) + ["trace 1", "new 1 0", "read 32",
                                                   "hashfail 1", "read 16", "state",
                                                   "hashfail 0", "read 16", "state"])
        reads = [ln.split() for ln in out if ln.startswith("read ")]
        states = [parse_state(ln) for ln in out if ln.startswith("state ")]
        ec = model.Collector(model.Timer(t0, segs))
        self.assertEqual(ec.read(32), (0, bytes.fromhex(reads[0][2])))
        ec.hash_fails = True
        self.assertEqual(ec.read(16), (-1, bytes(16)))
        self.assertEqual(reads[1][1:3], ["-1", "00" * 16])
        self.assertEqual(states[0], ec.state())
        self.assertEqual((states[0]["block"], states[0]["failed"]), ("00" * 32, 0))
        ec.hash_fails = False
        ret, data = ec.read(16)
        self.assertEqual((ret, data.hex()), (0, reads[2][2]))
        self.assertEqual(states[1], ec.state())
        self.assertEqual(traces(out), ec.trace)

    def test_first_block_of_a_collector_is_primed_longer(self):
        """A new collector's first FIRST_PRIMING (64) samples, stuck or
        not, are taken as every sample is, seen by the stuck test and the
        health tests, and none is counted (the warm-up of the sampling path
        the restart test saw in its early columns); every block starts with
        one priming measurement that is no sample.  Here ten of the 64 are
        stuck: the first read still takes 1 + 64 + 320 measurements, the
        second 1 + 320, and the first block hashes the 320 deltas after the
        64.  C and model agree."""
        prime = priming_deltas()
        for k in range(5, 60, 6):
            prime[k] = prime[k - 1]              # a repeat: stuck
        probe = model.Collector(None)
        self.assertEqual(sum(probe.stuck(d) for d in prime), 10)
        deltas = unstuck_deltas(22, 700)
        t0, segs = deltas_timer(prime + deltas, prime=False)
        compare_read(self, t0, segs, [32, 32])
        reads = traced_reads(self, t0, segs, [32, 32])
        self.assertEqual([len(m) for _, _, m in reads], [1 + 64 + 320, 1 + 320])
        self.assertEqual(reads[0][1], hashlib.sha3_256(bytes(32) + le(deltas[:320])).digest())
        ec = model.Collector(model.Timer(t0, segs))
        n = self.recording(ec)
        self.assertEqual(ec.read(32)[0], 0)
        self.assertEqual((n["samples"], ec.priming), (64 + 320, 0))
        self.assertEqual(ec.health.apt_seen, n["samples"] % model.APT_WINDOW)
        self.assertEqual(ec.health.lag_seen, n["samples"])
        self.assertEqual(n["counted"], deltas[:320])
        self.assertEqual(ec.read(32)[0], 0)
        self.assertEqual(n["samples"], 64 + 2 * 320)

    def test_a_failed_priming_goes_on_at_the_next_read(self):
        """A repetition among the priming samples fails the read (-2) at
        the 31st sample, which is not a priming sample any more (a health
        failure ends the search before the count); the next read of that
        collector makes the 34 priming samples still to come, then its
        block of 320 counted ones, hashed on a chain reset to zero.  C and
        model agree."""
        deltas = [500] * 32 + [2000 + 3 * k * k + k for k in range(1000)]
        t0, segs = deltas_timer(deltas, prime=False)
        res, _ = compare_read(self, t0, segs, [32, 32])
        self.assertEqual([r for r, _ in res], [-2, 0])
        probe = model.Collector(model.Timer(t0, segs))
        n = self.recording(probe)
        self.assertEqual(probe.read(32)[0], -2)
        self.assertEqual((n["samples"], probe.priming), (31, model.FIRST_PRIMING - 30))
        self.assertEqual(probe.read(32)[0], 0)
        self.assertEqual((n["samples"], probe.priming), (31 + 34 + 320, 0))
        # the block's priming measurement takes the 32nd 500; then 34
        # priming samples, then the counted ones
        self.assertEqual(n["counted"], deltas[32 + 34:32 + 34 + 320])
        self.assertEqual(res[1][1], hashlib.sha3_256(bytes(32) + le(n["counted"])).digest())
        reads = traced_reads(self, t0, segs, [32, 32])
        self.assertEqual([len(m) for _, _, m in reads], [1 + 31, 1 + 34 + 320])


def output_entropy(n_in, n_out, nw, h_in):
    """SP 800-90B 3.1.5.1.2, in 200-digit decimals."""
    getcontext().prec = 200
    two = Decimal(2)
    p_high = two ** -h_in
    p_low = (1 - p_high) / (two ** n_in - 1)
    n = min(n_out, nw)
    psi = two ** (n_in - n) * p_low + p_high
    u = two ** (n_in - n) + (2 * n * two ** (n_in - n) * two.ln()).sqrt()
    omega = u * p_low
    return -max(psi, omega).ln() / two.ln()


class ZeroisationTest(unittest.TestCase):
    """What a read leaves behind: jent_gen_block() gathers the chaining
    block and the counted deltas in the collector's hash input (ec->in,
    2592 bytes, too large for a kernel stack frame), hashes it, and wipes
    it, whether the block was made or a health test or the hash failed.
    The driver's state line shows the buffer as the read left it."""

    def test_a_read_leaves_no_hash_input_behind(self):
        zero = "00" * (model.BLOCK_BYTES + 8 * model.BLOCK_SAMPLES)
        t0, segs = jittery(25)
        cases = {
            # a good read of two blocks, and one of osr 2
            "read": (t0, segs, ["new 1 0", "read 64", "state"]),
            "osr": (t0, segs, ["new 2 0", "read 32", "state"]),
            # the clock stops after 200 counted deltas of the first block
            "health": (t0, [("rand",) + segs[0][1:4] + (3 * (1 + 64 + 200),),
                            ("const", 0)], ["new 1 0", "read 32", "state"]),
            # the hash fails with the buffer full
            "hash": (t0, segs, ["new 1 0", "hashfail 1", "read 32", "state"]),
        }
        for name, (t, sg, cmds) in cases.items():
            with self.subTest(name):
                out = drive(self, timer_lines(t, sg) + cmds)
                ret = int(next(ln for ln in out if ln.startswith("read ")).split()[1])
                self.assertEqual(ret, {"read": 0, "osr": 0, "health": -2, "hash": -1}[name])
                st = parse_state(out[-1])
                self.assertEqual(len(st["in"]), len(zero))
                self.assertEqual(st["in"], zero)


class ReadTest(unittest.TestCase):
    """n-byte reads: whole blocks, the last one truncated."""

    def test_reads_of_many_lengths(self):
        rnd = random.Random(17)
        for seed in range(4):
            t0, segs = jittery(200 + seed)
            lengths = [rnd.choice((0, 1, 7, 8, 31, 32, 33, 48, 64, 65)) for _ in range(4)]
            compare_read(self, t0, segs, lengths)

    def test_truncation_of_last_block(self):
        """A 33-byte read is a whole block and the first byte of the next:
        the second block is not handed out or reused."""
        t0, segs = jittery(18)
        (_, a), = compare_read(self, t0, segs, [33])[0]
        (_, b), = compare_read(self, t0, segs, [64])[0]
        self.assertEqual(a, b[:33])
        (_, c), (_, d) = compare_read(self, t0, segs, [33, 32])[0]
        self.assertEqual(c, a)
        self.assertNotEqual(d, b[32:])     # the next read makes a new block

    def test_oversampling(self):
        """With osr rounds a block is conditioned osr times, each round over
        the last result and 320 new counted deltas, after one priming
        measurement: for osr 2, SHA3(SHA3(chain || d1..d320) || d321..d640),
        from the C alone on a timer without stuck samples; and C and model
        agree for osr 3 on a jittery timer."""
        deltas = unstuck_deltas(19, 1500)
        t0, segs = deltas_timer(deltas)
        reads = traced_reads(self, t0, segs, [32, 32], osr=2)
        self.assertEqual([len(m) for _, _, m in reads], [1 + 64 + 640, 1 + 640])
        sha3 = lambda b: hashlib.sha3_256(b).digest()
        b1 = sha3(sha3(bytes(32) + le(deltas[:320])) + le(deltas[320:640]))
        self.assertEqual(reads[0][:2], (0, b1))
        b2 = sha3(sha3(b1 + le(deltas[641:961])) + le(deltas[961:1281]))
        self.assertEqual(reads[1][:2], (0, b2))
        compare_read(self, t0, segs, [32, 32], osr=2)
        compare_read(self, *jittery(19), [40], osr=3)

    def test_oversampling_rate_zero_is_one(self):
        """An instance asked for with osr 0 gets the default of 1: its
        reads and its state are those of osr 1, in the C and the model."""
        _, ec = compare_read(self, *jittery(20), [40], osr=0)
        self.assertEqual(ec.osr, 1)

    def test_reads_match_model_i386(self):
        for seed in range(3):
            compare_read(self, *jittery(300 + seed), [40], arch="32")

    def test_zero_length_and_no_collector(self):
        out = drive(self, timer_lines(0, [("const", 0)]) + ["read 4", "new 1 0", "read 0"])
        self.assertEqual(out[0], "read -1 00000000 guard=a5")
        self.assertEqual(out[2], "read 0  guard=a5")


if __name__ == "__main__":
    unittest.main()
