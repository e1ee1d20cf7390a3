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
memory and fold loop counts, folded bit), the pool, the conditioned
blocks, the health-test counters, the start-up result.  Each test compares
the two, bit for bit, or drives the core into one of its failures on
purpose.

This file: the build, the shim, the measurement and its loop counts, the
fold, the memory access, the stuck test, the LFSR pool and its stir, the
von Neumann pairs, the conditioning and the reads.  The health tests, the
start-up test, allocation and the glue are in test_jitter_health.py.
"""

import hashlib
import math
from decimal import Decimal, getcontext
import os
import random
import re
import shutil
import subprocess
import tempfile
import unittest

from .jitter_driver import JDIR, M64, TANGLED, compare_read, deltas_timer, drive, jittery, \
    model, need, parse_state, timer_lines, traces


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

    def test_loop_counts_not_keyed_by_pool(self):
        """Two collectors with different pools, on the same timer, make the
        same loop counts and the same measurements (defect 2)."""
        t0, segs = jittery(11)
        runs = []
        for pool in (0, 0x0123456789ABCDEF):
            out = drive(self, timer_lines(t0, segs)
                        + ["trace 1", "new 1 0", f"setpool {pool}", "read 8"])
            runs.append(traces(out))
        self.assertEqual(runs[0], runs[1])
        self.assertGreater(len(runs[0]), 128)


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


class LfsrTest(unittest.TestCase):
    """The LFSR step, and what it is as a linear map."""

    @staticmethod
    def _apply(cols, v):
        r, j = 0, 0
        while v:
            if v & 1:
                r ^= cols[j]
            v >>= 1
            j += 1
        return r

    @staticmethod
    def _rank(cols):
        rows, r = list(cols), 0
        for bit in range(64):
            piv = next((i for i in range(r, len(rows)) if rows[i] >> bit & 1), None)
            if piv is None:
                continue
            rows[r], rows[piv] = rows[piv], rows[r]
            for i in range(len(rows)):
                if i != r and rows[i] >> bit & 1:
                    rows[i] ^= rows[r]
            r += 1
        return r

    def test_lfsr_matches_model(self):
        rnd = random.Random(6)
        cases = [(rnd.getrandbits(64), rnd.getrandbits(1)) for _ in range(500)]
        cases += [(0, 0), (0, 1), (M64, 0), (M64, 1), (1 << 63, 0)]
        out = drive(self, [f"lfsr {d} {b}" for d, b in cases])
        self.assertEqual([int(ln.split()[1]) for ln in out],
                         [model.lfsr(d, b) for d, b in cases])

    def test_word_is_a_bijection_of_its_64_bits(self):
        """From any pool, 64 steps map the 64 input bits onto the pool
        one to one (rank 64): a word keeps all the entropy of its bits."""
        def run(bits):
            d = 0
            for k in range(64):
                d = model.lfsr(d, bits >> k & 1)
            return d
        self.assertEqual(self._rank([run(1 << k) for k in range(64)]), 64)

    def test_seed_polynomial_is_primitive(self):
        """x^64+x^61+x^56+x^31+x^28+x^23+1 is primitive over GF(2)."""
        f = sum(1 << e for e in (64, 61, 56, 31, 28, 23, 0))
        n = (1 << 64) - 1
        primes = [3, 5, 17, 257, 641, 65537, 6700417]
        self.assertEqual(math.prod(primes), n)

        def mulmod(a, b):
            r = 0
            while b:
                if b & 1:
                    r ^= a
                b >>= 1
                a <<= 1
                if a >> 64 & 1:
                    a ^= f
            return r

        def xpow(e):
            r, b = 1, 2
            while e:
                if e & 1:
                    r = mulmod(r, b)
                b = mulmod(b, b)
                e >>= 1
            return r
        self.assertEqual(xpow(n), 1)
        for p in primes:
            self.assertNotEqual(xpow(n // p), 1)

    def test_register_characteristic_polynomial(self):
        """As coded (bit 0 XORed in place, then a rotation), the register's
        characteristic polynomial is x^64+x^42+x^37+x^34+x^9+x^4+x+1, not the
        seed's: (x+1) times irreducibles of degree 20 and 43."""
        cols = [model.lfsr(1 << j, 0) for j in range(64)]
        c = sum(1 << e for e in (64, 42, 37, 34, 9, 4, 1, 0))
        acc = [0] * 64
        power = [1 << j for j in range(64)]
        for e in range(65):
            if c >> e & 1:
                acc = [a ^ p for a, p in zip(acc, power)]
            power = [self._apply(cols, p) for p in power]
        self.assertEqual(acc, [0] * 64)          # c(A) = 0, and deg c = 64
        seed = sum(1 << e for e in (64, 61, 56, 31, 28, 23, 0))
        self.assertNotEqual(c, seed)
        ident = [(self._apply(cols, 1 << j)) ^ (1 << j) for j in range(64)]
        self.assertEqual(self._rank(ident), 63)  # one non-zero fixed state


class StirTest(unittest.TestCase):
    """The stir: x XOR mixer(x), constant time, a bijection."""

    def test_stir_matches_model(self):
        rnd = random.Random(7)
        vals = [rnd.getrandbits(64) for _ in range(500)] + [0, M64, 1, 1 << 63]
        out = drive(self, [f"stir {v}" for v in vals])
        self.assertEqual([int(ln.split()[1]) for ln in out],
                         [model.stir(v) for v in vals])

    def test_stir_is_a_bijection(self):
        """stir(x) = (I + L) x + stir(0) with L linear; I + L has rank 64."""
        cols = [model.stir(1 << j) ^ model.stir(0) for j in range(64)]
        rnd = random.Random(8)
        for _ in range(200):
            x, y = rnd.getrandbits(64), rnd.getrandbits(64)
            self.assertEqual(model.stir(x ^ y) ^ model.stir(0),
                             model.stir(x) ^ model.stir(y))
        self.assertEqual(LfsrTest._rank(cols), 64)
        self.assertEqual(bin(model.STIR_CONSTANT).count("1") % 2, 0)

    def test_stir_has_no_data_dependent_branch(self):
        """The compiled stir has one conditional jump: its loop (defect 1)."""
        path = need(self, "64")
        dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", path],
                             capture_output=True, text=True).stdout
        m = re.search(r"<jent_stir_pool>:\n(.*?)\n\n", dis, re.S)
        self.assertIsNotNone(m, "jent_stir_pool not found in the driver")
        jcc = re.findall(r"\sj(?!mp)[a-z]+\s", m.group(1))
        self.assertEqual(len(jcc), 1, m.group(1))


class VonNeumannTest(unittest.TestCase):
    """Pairs of measurements make one bit; stuck pairs are thrown away."""

    def test_reads_match_model_many_timers(self):
        for seed in range(12):
            t0, segs = jittery(100 + seed)
            compare_read(self, t0, segs, [32])

    def test_one_word_needs_at_least_128_measurements(self):
        _, ec = compare_read(self, *jittery(13), [1])
        # a new collector's first block: 64 priming measurements, then 16
        # words of 64 pairs or more
        self.assertEqual((model.BLOCK_WORDS, model.FIRST_PRIMING), (16, 64))
        self.assertGreaterEqual(len(ec.trace), 64 + 16 * 128)

    def test_stuck_samples_are_discarded(self):
        """Replacing every stuck measurement's bit by its opposite does not
        change the output: stuck deltas never reach the pool (defect 4)."""
        # A timer with many repeats: deltas alternate among few values.
        rnd = random.Random(14)
        incs = []
        for _ in range(60000):
            incs.append(rnd.choice((301, 301, 302, 517, 733)))
        segs = [("inc", d) for d in incs]
        (ret, data), = compare_read(self, 1000, segs, [32])[0]
        self.assertEqual(ret, 0)
        ec = model.Collector(model.Timer(1000, segs))
        ec.read(32)
        st = [ec.stuck(d) for (_, d, _, _, _) in ec.trace]  # fresh history
        self.assertGreater(sum(st), 100, "the timer should make stuck deltas")
        # the model with stuck bits flipped gives the same output
        flipped = model.Collector(model.Timer(1000, segs))
        orig_sample = flipped.sample

        def sample():
            lv, bit, s = orig_sample()
            return lv, (bit ^ 1) if s else bit, s
        flipped.sample = sample
        self.assertEqual(flipped.read(32), (0, data))


class ConditioningTest(unittest.TestCase):
    """Blocks are SHA3-256(previous block || sixteen pool words)."""

    @staticmethod
    def counting(probe):
        """Count probe's samples, and its pairs made while it was priming
        (whose bits nobody takes)."""
        n = {"samples": 0, "priming_pairs": 0}
        sample, pair = probe.sample, probe.pair

        def counted_sample():
            n["samples"] += 1
            return sample()

        def counted_pair():
            n["priming_pairs"] += bool(probe.priming)
            return pair()
        probe.sample, probe.pair = counted_sample, counted_pair
        return n

    def test_first_block_of_a_collector_is_primed_longer(self):
        """A new collector's first FIRST_PRIMING samples are 32 pairs made
        as every pair is, by the stuck test and the health tests, whose
        bits are not taken (the warm-up of the sampling path the restart
        test saw in its early columns); every block starts with one
        priming measurement that is no sample.  C and model agree, and the
        pool takes 64 bits a word all the same."""
        t0, segs = jittery(31)
        compare_read(self, t0, segs, [32, 32])
        probe = model.Collector(model.Timer(t0, segs))
        n = self.counting(probe)
        fed, lfsr = [], model.lfsr
        model.lfsr = lambda data, bit: (fed.append(bit), lfsr(data, bit))[1]
        try:
            self.assertEqual(probe.read(32)[0], 0)
            self.assertEqual(len(probe.trace) - n["samples"], 1)
            self.assertEqual((n["priming_pairs"], probe.priming), (model.FIRST_PRIMING // 2, 0))
            self.assertEqual(probe.health.apt_seen, n["samples"] % model.APT_WINDOW)
            self.assertEqual(probe.read(32)[0], 0)
        finally:
            model.lfsr = lfsr
        self.assertEqual(len(probe.trace) - n["samples"], 2)
        self.assertEqual(n["priming_pairs"], model.FIRST_PRIMING // 2)
        self.assertEqual(len(fed), 2 * model.BLOCK_WORDS * 64)

    def test_a_failed_priming_goes_on_at_the_next_read(self):
        """A repetition among the priming samples fails the read (-2) at
        the 31st sample, in the 16th pair; the next read of that collector
        makes the 17 priming pairs still to come, then its block.  C and
        model agree."""
        deltas = [500] * 32 + [2000 + 3 * k * k + k for k in range(6000)]
        t0, segs = deltas_timer(deltas, prime=False)
        res, _ = compare_read(self, t0, segs, [32, 32])
        self.assertEqual([r for r, _ in res], [-2, 0])
        probe = model.Collector(model.Timer(t0, segs))
        n = self.counting(probe)
        self.assertEqual(probe.read(32)[0], -2)
        self.assertEqual((n["samples"], n["priming_pairs"], probe.priming), (31, 16, 17))
        self.assertEqual(probe.read(32)[0], 0)
        self.assertEqual((n["priming_pairs"], probe.priming), (16 + 17, 0))
    def test_block_is_sha3_of_chain_and_words(self):
        t0, segs = jittery(15)
        (r1, b1), (r2, b2) = compare_read(self, t0, segs, [32, 32])[0]
        ec = model.Collector(model.Timer(t0, segs))
        words = []
        orig = ec.word

        def word():
            lv, w = orig()
            words.append(w)
            return lv, w
        ec.word = word
        ec.read(32)
        msg = bytes(32) + b"".join(w.to_bytes(8, "little") for w in words)
        self.assertEqual(hashlib.sha3_256(msg).digest(), b1)
        ec.read(32)
        self.assertEqual(len(words), 2 * model.BLOCK_WORDS)
        msg = b1 + b"".join(w.to_bytes(8, "little") for w in words[model.BLOCK_WORDS:])
        self.assertEqual(hashlib.sha3_256(msg).digest(), b2)

    def test_words_carry_output_plus_64(self):
        """SP 800-90B 3.1.5.2 credits a non-vetted 64-bit word with at most
        0.999 x 64 bits and h' x 64: five words could never carry the
        n_out + 64 = 320 bits a full-entropy block needs; sixteen do for any
        h' >= 5/16; seven would need h' >= 5/7, ten h' >= 1/2 and twelve
        h' >= 5/12, which the kernel object's fixed-loop recordings did not
        always reach (0.404 on one run)."""
        need = model.BLOCK_BYTES * 8 + 64
        self.assertLess(5 * 0.999 * 64, need)
        self.assertEqual(model.BLOCK_WORDS, 16)
        self.assertGreaterEqual(model.BLOCK_WORDS * 64 * min(0.999, 5 / 16), need - 1e-9)
        self.assertLess(model.BLOCK_WORDS * 64 * (5 / 16 - 1e-6), need)
        self.assertLess(12 * 64 * (0.404 + 1e-6), need)
        self.assertLess(10 * 64 * (1 / 2 - 1e-6), need)
        self.assertLess(7 * 64 * (5 / 7 - 1e-6), need)

    def test_output_entropy_of_a_block(self):
        """SP 800-90B 3.1.5.1.2: Output_Entropy of SHA3-256 over the chain and
        sixteen words is full entropy (1 - 2^-32 per bit) for h_in = 320, not 256."""
        n_in = 8 * (model.BLOCK_BYTES + 8 * model.BLOCK_WORDS)
        n_out = nw = 8 * model.BLOCK_BYTES
        full = n_out * (1 - Decimal(2) ** -32)
        self.assertEqual(n_in, 1280)
        self.assertGreaterEqual(output_entropy(n_in, n_out, nw, n_out + 64), full)
        self.assertLess(output_entropy(n_in, n_out, nw, n_out), full)
        self.assertLess(output_entropy(n_in, n_out, nw, 128), 129)

    def test_block_takes_320_unbiased_bits(self):
        """A block hashes at least n_out + 64 = 320 unbiased bits, each from a
        pair of non-stuck raw samples (640 samples), measured on the model
        that the C core matches bit for bit."""
        for seed in range(6):
            t0, segs = jittery(300 + seed)
            ec = model.Collector(model.Timer(t0, segs))
            kept, orig = [], ec.unbiased_bit

            def unbiased_bit():
                lv, bit = orig()
                kept.append(bit is not None and not lv)
                return lv, bit
            ec.unbiased_bit = unbiased_bit
            self.assertEqual(ec.read(32)[0], 0)
            self.assertGreaterEqual(sum(kept), 8 * model.BLOCK_BYTES + 64, f"timer {seed}")

    def test_hash_failure_is_reported(self):
        t0, segs = jittery(16)
        out = drive(self, timer_lines(t0, segs) + ["new 1 0", "hashfail 1", "read 16"])
        ret, data = out[1].split()[1:3]
        self.assertEqual(int(ret), -1)
        self.assertEqual(data, "00" * 16)


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
    """What a read leaves behind on the stack: jent_gen_block() hashes the
    chain value and sixteen pool words from a stack buffer, then clears the
    buffer and its last word.  The driver's readscan reads, and then looks
    through the stack where the read's frames were (the core is built at
    -O0) for the sixteen words the model says the block was made of."""

    def test_a_read_leaves_no_pool_word_on_the_stack(self):
        for seed in range(25, 28):
            with self.subTest(seed=seed):
                t0, segs = jittery(seed)
                m = model.Collector(model.Timer(t0, segs))
                m.measure()
                words = [m.word()[1] for _ in range(model.BLOCK_WORDS)]
                out = drive(self, timer_lines(t0, segs) +
                            ["trace 0", "new 1 0",
                             "readscan 32 " + " ".join(map(str, words))])
                # found= is a bit per word: with the buffer left as it
                # was, 7f; with the last word not cleared, 40
                self.assertEqual(out[-1], "readscan 0 found=0")


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
