# SPDX-License-Identifier: GPL-2.0-only
"""The Jitter RNG core (tangled/jitterentropy.c), tested in user space.

The tangled core is compiled, the same file, against a small shim
(tests/jitter/shim.c: a scripted timer, an allocator that can fail,
SHA3-256) by a driver that calls its functions (tests/jitter/driver.c),
at -O0 for x86-64 and, when gcc-multilib is installed, for i386.  An
independent model (tests/jitter/model.py, written from the book's
description, not from the C) computes what the core must do for the
same scripted timer: every measurement (time stamp, delta, memory and
fold loop counts, folded bit), the pool, the conditioned blocks, the
health-test counters, the start-up result.  Each test compares the two,
bit for bit, or drives the core into one of its failures on purpose.
"""

import hashlib
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from fractions import Fraction

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
JDIR = os.path.join(TOP, "tests/jitter")
TANGLED = os.path.join(TOP, "tangled")
sys.path.insert(0, JDIR)
sys.path.append(os.path.join(TOP, "conformance/host"))
import model  # noqa: E402
from figures_data import timer_lines  # noqa: E402  (the figures' encoder)

M64 = model.M64
BUILD = {}          # arch -> path of the driver, or None when it cannot be built
BUILD_ERR = {}


def build(arch):
    """Compile the driver with the tangled core for arch ('64' or '32')."""
    if arch in BUILD:
        return BUILD[arch]
    out = os.path.join(tempfile.mkdtemp(prefix="jent-host-"), f"driver{arch}")
    cmd = ["gcc", f"-m{arch}", "-O0", "-std=gnu11", "-g", "-Wall", "-Wextra", "-Werror",
           "-I", JDIR, "-I", TANGLED, "-o", out,
           os.path.join(JDIR, "driver.c"), os.path.join(JDIR, "shim.c")]
    r = subprocess.run(cmd, capture_output=True, text=True)
    BUILD[arch] = out if r.returncode == 0 else None
    BUILD_ERR[arch] = r.stderr[-2000:]
    return BUILD[arch]


def need(test, arch="64"):
    path = build(arch)
    if path is None:
        if arch == "32" and ("gnu/stubs-32.h" in BUILD_ERR[arch]
                             or "cannot find" in BUILD_ERR[arch]):
            test.skipTest("no i386 toolchain (apt-get install gcc-multilib): "
                          + BUILD_ERR[arch].strip().splitlines()[0])
        test.fail(f"the driver does not build for -m{arch}:\n{BUILD_ERR[arch]}")
    return path


def drive(test, cmds, arch="64"):
    r = subprocess.run([need(test, arch)], input="\n".join(cmds) + "\n",
                       capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        test.fail(f"driver exited {r.returncode}: {r.stdout[-500:]} {r.stderr[-500:]}")
    return r.stdout.splitlines()


def parse_state(line):
    assert line.startswith("state "), line
    out = {}
    for kv in line.split()[1:]:
        k, v = kv.split("=", 1)
        out[k] = v if k in ("block", "mem") else int(v)
    return out


def traces(lines):
    return [tuple(int(x) for x in ln.split()[1:]) for ln in lines if ln.startswith("m ")]


def jittery(seed, base=None, spread=None):
    """A plausible timer: each read adds base + (pseudo-random % spread)."""
    rnd = random.Random(seed)
    base = base if base is not None else rnd.randrange(50, 3000)
    spread = spread if spread is not None else rnd.randrange(20, 5000)
    return rnd.getrandbits(40) + 1, [("rand", rnd.getrandbits(63) | 1, base, spread, 0)]


def deltas_timer(deltas, t0=1000):
    """A timer on which measurement i after the priming one has the delta
    deltas[i].  A measurement reads the timer three times (memory loop
    count, time stamp, fold loop count); the delta is the distance between
    two time stamps, so it spans the 3rd read of one measurement and the
    1st and 2nd of the next: here +0, +1 and +(delta - 1)."""
    incs = [1, 1, 0]
    for d in deltas:
        incs += [1, d - 1, 0] if d else [0, 0, 0]
    return t0, [("inc", x & M64) for x in incs]


def compare_read(test, t0, segs, lengths, osr=1, flags=0, arch="64", trace=True):
    """Run reads of the given lengths in the C and the model; compare all."""
    cmds = timer_lines(t0, segs) + [f"trace {int(trace)}", f"new {osr} {flags}"]
    for n in lengths:
        cmds += [f"read {n}", "state"]
    out = drive(test, cmds, arch)
    ec = model.Collector(model.Timer(t0, segs), osr, flags)
    reads = [ln for ln in out if ln.startswith("read ")]
    states = [parse_state(ln) for ln in out if ln.startswith("state ")]
    test.assertEqual(out[0], "new ok")
    results = []
    for i, n in enumerate(lengths):
        ret, data = ec.read(n)
        m = re.fullmatch(r"read (-?\d+) ([0-9a-f]*) (guard=[0-9a-f]+)", reads[i])
        test.assertIsNotNone(m, reads[i])
        cret, chex, guard = m.groups()
        test.assertEqual(int(cret), ret, f"read {i} ({n} bytes): return code")
        test.assertEqual(chex, data.hex(), f"read {i} ({n} bytes): output")
        test.assertEqual(guard, "guard=a5", "the core wrote past the buffer")
        test.assertEqual(states[i], ec.state(), f"state after read {i}")
        results.append((ret, data))
    if trace:
        test.assertEqual(traces(out), ec.trace, "measurements differ")
    return results, ec


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
        # one block: a priming measurement, then 5 words of 64 pairs or more
        self.assertGreaterEqual(len(ec.trace), 1 + 5 * 128)

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
    """Blocks are SHA3-256(previous block || five pool words)."""

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
        msg = b1 + b"".join(w.to_bytes(8, "little") for w in words[5:])
        self.assertEqual(hashlib.sha3_256(msg).digest(), b2)

    def test_credited_input_is_output_plus_64(self):
        self.assertEqual(model.BLOCK_WORDS * 64, model.BLOCK_BYTES * 8 + 64)

    def test_hash_failure_is_reported(self):
        t0, segs = jittery(16)
        out = drive(self, timer_lines(t0, segs) + ["new 1 0", "hashfail 1", "read 16"])
        ret, data = out[1].split()[1:3]
        self.assertEqual(int(ret), -1)
        self.assertEqual(data, "00" * 16)


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

    def test_reads_match_model_i386(self):
        for seed in range(3):
            compare_read(self, *jittery(300 + seed), [40], arch="32")

    def test_zero_length_and_no_collector(self):
        out = drive(self, timer_lines(0, [("const", 0)]) + ["read 4", "new 1 0", "read 0"])
        self.assertEqual(out[0], "read -1 00000000 guard=a5")
        self.assertEqual(out[2], "read 0  guard=a5")


def gf2_solve(cols, target):
    """x with sum of cols[k] for the set bits k of x == target, over GF(2)."""
    rows = [(c, 1 << k) for k, c in enumerate(cols)]
    basis = {}
    for vec, comb in rows:
        while vec:
            top = vec.bit_length() - 1
            if top not in basis:
                basis[top] = (vec, comb)
                break
            bv, bc = basis[top]
            vec, comb = vec ^ bv, comb ^ bc
    x = 0
    while target:
        top = target.bit_length() - 1
        bv, bc = basis[top]          # KeyError: not solvable
        target, x = target ^ bv, x ^ bc
    return x


class RepeatTest(unittest.TestCase):
    """Two equal consecutive pool words are delivered, not refused."""

    def test_repeated_pool_word_is_not_an_error(self):
        """The 2015 FIPS test panicked on two equal 64-bit outputs (defect
        5).  Here the timer is built so that the second word of a block
        equals the first: the read succeeds, the C matching the model."""
        rnd = random.Random(27)

        def run(state, bits):
            for k in range(64):
                state = model.lfsr(state, bits >> k & 1)
            return state
        b1 = rnd.getrandbits(64)
        d1 = run(0, b1)                      # pool before the first stir
        w1 = model.stir(d1)
        # bits b2 with run(w1, b2) == d1; run is affine in the bits
        cols = [run(0, 1 << k) for k in range(64)]
        b2 = gf2_solve(cols, d1 ^ run(w1, 0))
        self.assertEqual(run(w1, b2), d1)
        bits = [b1 >> k & 1 for k in range(64)] + [b2 >> k & 1 for k in range(64)]
        bits += [rnd.getrandbits(1) for _ in range(64 * 3)]
        # deltas: a pair (x, 1 - x) of non-stuck measurements per bit
        deltas, ld, ld2, last = [1000], 0, 0, None
        probe = model.Collector(None)
        for x in bits:
            for want in (x, 1 - x):
                while True:
                    d = rnd.randrange(2000, 1 << 20)
                    if model.fold(d) != want or d == last:
                        continue
                    saved = (probe.ld, probe.ld2)
                    if probe.stuck(d):
                        probe.ld, probe.ld2 = saved
                        continue
                    break
                deltas.append(d)
                last = d
        t0, segs = deltas_timer(deltas[1:])
        ec = model.Collector(model.Timer(t0, segs))
        words = []
        orig = ec.word

        def word():
            lv, w = orig()
            words.append(w)
            return lv, w
        ec.word = word
        self.assertEqual(ec.read(32)[0], 0)
        self.assertEqual(words[0], words[1])
        (ret, _), = compare_read(self, t0, segs, [32])[0]
        self.assertEqual(ret, 0)


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


class HealthTest(unittest.TestCase):
    """RCT and APT on the deltas, the von Neumann bound: cutoffs and
    induced failures."""

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

    def test_vn_cutoffs_from_formula(self):
        """(7/8)^C <= alpha: 156 and 312 consecutive pairs without a bit."""
        for a, c in ((30, model.VN_CUT), (60, model.VN_CUT_PERM)):
            self.assertEqual(math.ceil(a / -math.log2(Fraction(7, 8))), c)
            self.assertLessEqual((7 / 8) ** c, 2.0 ** -a)
            self.assertGreater((7 / 8) ** (c - 1), 2.0 ** -a)

    def _stopped_clock_after(self, seed, good_reads):
        t0, segs = jittery(seed)
        segs = [("rand",) + segs[0][1:4] + (good_reads,), ("const", 0)]
        return t0, segs

    def test_rct_intermittent_failure(self):
        """A clock that stops mid-block: the 31st equal delta fails the read
        with -2, the buffer is zero, the pool and chain value are reset."""
        t0, segs = self._stopped_clock_after(20, 1500)
        (r1, _), = compare_read(self, t0, segs, [32])[0][:1]
        self.assertEqual(r1, -2)
        _, ec = compare_read(self, t0, segs, [32])
        self.assertEqual((ec.data, ec.block, ec.health.rct_run), (0, bytes(32), 31))

    def test_rct_permanent_failure(self):
        """The clock stays stopped: each read fails again at once (the run
        goes on), until the 61st equal delta makes it permanent; from then
        on every read fails with -3 without measuring."""
        t0, segs = self._stopped_clock_after(21, 1500)
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

    def test_vn_bound_intermittent_and_permanent(self):
        """Deltas that all have even parity, so every folded bit is 0, and
        never repeat: no pair makes a bit.  After 156 pairs in a row the
        read fails (-2); each later read adds a pair, and the 312th makes
        the failure permanent (-3)."""
        deltas, d = [], 1000
        while len(deltas) < 1200:
            d += 7 + len(deltas) % 5
            if bin(d).count("1") % 2 == 0:
                deltas.append(d)
        res, ec = compare_read(self, *deltas_timer(deltas), [32] * 158)
        codes = [r for r, _ in res]
        self.assertEqual(codes, [-2] * 156 + [-3, -3])
        self.assertEqual(ec.health.vn, model.VN_CUT_PERM)
        self.assertLess(ec.health.rct_run, model.RCT_CUT)

    def test_good_timers_pass(self):
        """On jittery timers, long reads never fail a health test."""
        for seed in range(3):
            res, ec = compare_read(self, *jittery(400 + seed, 300, 4000), [256],
                                   trace=False)
            self.assertEqual(res[0][0], 0)

    def test_failed_collector_stays_failed(self):
        t0, segs = self._stopped_clock_after(23, 1500)
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
        return deltas_timer(deltas, t0)

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
