# SPDX-License-Identifier: GPL-2.0-only
"""The SP 800-90B assessor and its judge (chapter "SP 800-90B entropy
assessment").

- NIST's reference output parses, and anything unexpected in it is an
  error naming file and line; the comparison passes on our own output and
  fails on it perturbed beyond the tolerances (and only then).
- NIST's three short reference files agree (the eight files are the
  entropy-kat verb's, run by make check).
- Four synthetic sources of known min-entropy are assessed within the
  bounds the chapter derives; the biased-bits bound is recomputed here
  from the standard's expectation, independently of the C code.
- The restart tests pass a good matrix, and fail repeated restarts (the
  sanity check) and predictable ones (the validation), with reasons.
- Bad input gets one line on stderr naming the file and the problem, and
  exit status 2.

Run from the repository: /usr/bin/python3 -m unittest tests.judges.test_sp80090b
"""

import copy
import json
import math
import os
import random
import shutil
import subprocess
import tempfile
import unittest

from harness.judges import sp80090b, synthetic
from harness.stages import assess as stage
from harness.stages.book import assessor as bookpart

# About 50 s of the host tests on two CPUs: run before the short modules
# (host_tests.shuffled).
LONG = True

TOP = stage.TOP
REF = os.path.join(TOP, stage.VECTORS, "reference")
DATA = os.path.join(TOP, stage.VECTORS, "data")
Z = 2.5758293035489008

BINARY = None
TMP = None


def setUpModule():
    global BINARY, TMP
    BINARY = stage.build()
    TMP = tempfile.mkdtemp(prefix="sp80090b-test-")


def tearDownModule():
    shutil.rmtree(TMP, ignore_errors=True)


def write(name, data):
    path = os.path.join(TMP, name)
    with open(path, "wb") as f:
        f.write(bytes(data))
    return path


def run(*args):
    """Run the assessor; (exit status, stdout, stderr)."""
    r = subprocess.run([BINARY] + [str(a) for a in args], capture_output=True,
                       text=True)
    return r.returncode, r.stdout, r.stderr


def assess_json(path, *args):
    rc, out, err = run(*args, "--json", "-", path)
    if rc not in (0, 1):
        raise AssertionError(f"assess {path}: exit {rc}: {err}")
    return rc, json.loads(out)


def estimate(result, track, name):
    return result[track][name]["min_entropy"]


# ------------------------------------------------------------------ the judge

class ParseTest(unittest.TestCase):
    """NIST's -vv output, as the judge reads it."""

    def test_reference_8bit(self):
        ref = sp80090b.parse_res(os.path.join(REF, "truerand_8bit.res"))
        self.assertEqual((ref["samples"], ref["distinct"], ref["bits_per_symbol"],
                          ref["bitstring_length"]), (1000000, 256, 8, 8000000))
        self.assertEqual(ref["literal"]["mcv"]["mode_count"], 4124)
        self.assertEqual(ref["bitstring"]["t_tuple"]["t"], 19)
        self.assertIsNone(ref["literal"]["lz78y"]["p_local"])
        self.assertTrue(ref["bitstring"]["collision"]["found_p"])
        self.assertNotIn("collision", ref["literal"])
        self.assertAlmostEqual(ref["assessed"], 7.233861455178495, places=15)
        self.assertFalse(ref["short"])

    def test_reference_1bit_has_no_bitstring(self):
        ref = sp80090b.parse_res(os.path.join(REF, "rand1_short.res"))
        self.assertIsNone(ref["bitstring"])
        self.assertIsNone(ref["H_bitstring"])
        self.assertTrue(ref["short"])
        self.assertEqual(len(ref["literal"]), 10)

    def test_every_reference_parses(self):
        for name in sorted(os.listdir(REF)):
            with self.subTest(name=name):
                ref = sp80090b.parse_res(os.path.join(REF, name))
                self.assertIsNotNone(ref["H_original"])

    def broken(self, old, new):
        with open(os.path.join(REF, "rand4_short.res")) as f:
            text = f.read()
        self.assertIn(old, text)
        path = os.path.join(TMP, "broken.res")
        with open(path, "w") as f:
            f.write(text.replace(old, new, 1))
        line = text[:text.index(old)].count("\n") + 1
        return path, line

    def assertBroken(self, old, new, words, later=0):
        path, line = self.broken(old, new)
        line += later
        with self.assertRaises(sp80090b.ResError) as cm:
            sp80090b.parse_res(path)
        msg = str(cm.exception)
        self.assertIn(f"{path}:{line}:", msg)
        for w in words:
            self.assertIn(w, msg)

    def test_unexpected_line(self):
        self.assertBroken("Bitstring Markov Estimate: P_0 =",
                          "Something else entirely\nBitstring Markov Estimate: P_0 =",
                          ["unexpected line"])

    def test_unknown_value(self):
        self.assertBroken("Literal LRS Estimate: u = ", "Literal LRS Estimate: w = ",
                          ["unknown value", "'w'"])

    def test_unknown_estimator(self):
        self.assertBroken("Literal Lag Prediction Estimate: C =",
                          "Literal Lug Prediction Estimate: C =", ["unknown estimator"])

    def test_integer_that_is_not(self):
        self.assertBroken("Bitstring t-Tuple Estimate: t = 11",
                          "Bitstring t-Tuple Estimate: t = 11.5", ["not an int"])

    def test_value_twice(self):
        self.assertBroken("Literal Most Common Value Estimate: Mode count = 659",
                          "Literal Most Common Value Estimate: Mode count = 659\n"
                          "Literal Most Common Value Estimate: Mode count = 659",
                          ["given twice"], later=1)

    def test_missing_min_entropy(self):
        with open(os.path.join(REF, "rand4_short.res")) as f:
            lines = f.read().split("\n")
        path = os.path.join(TMP, "no-min-entropy.res")
        with open(path, "w") as f:
            f.write("\n".join(ln for ln in lines if not ln.startswith(
                "Literal LZ78Y Prediction Estimate: min entropy")))
        with self.assertRaises(sp80090b.ResError) as cm:
            sp80090b.parse_res(path)
        self.assertIn("literal lz78y has no min entropy line", str(cm.exception))

    def test_unreadable(self):
        with self.assertRaises(sp80090b.ResError) as cm:
            sp80090b.parse_res(os.path.join(TMP, "no-such.res"))
        self.assertIn("cannot read", str(cm.exception))


class CompareTest(unittest.TestCase):
    """judge(): every value compared, within the tolerances and only then."""

    @classmethod
    def setUpClass(cls):
        cls.ref = os.path.join(REF, "rand4_short.res")
        _, cls.ours = assess_json(os.path.join(DATA, "rand4_short.bin"), "--allow-short")

    def judge(self, ours):
        return sp80090b.judge("rand4_short", ours, self.ref)

    def test_our_output_agrees(self):
        c = self.judge(self.ours)
        self.assertEqual(c.status, "pass", c.reason)
        self.assertEqual(c.id, "entropy.kat.rand4_short")
        self.assertEqual(c.origin, "host")
        self.assertEqual(c.counts["integers"], 37)
        self.assertEqual(c.counts["reals"], 63)
        self.assertLess(c.counts["worst_rel_diff"], 1e-12)
        names = [v["name"] for v in c.details["values"]]
        self.assertIn("bitstring.lrs.p_u", names)
        self.assertIn("assessed", names)

    def perturbed(self, track, est, key, f):
        ours = copy.deepcopy(self.ours)
        ours[track][est][key] = f(ours[track][est][key])
        return self.judge(ours)

    def test_integer_off_by_one_fails(self):
        c = self.perturbed("literal", "multi_mmc", "C", lambda v: v + 1)
        self.assertEqual(c.status, "fail")
        self.assertIn("literal.multi_mmc.C", c.reason)

    def test_real_beyond_tolerance_fails(self):
        c = self.perturbed("bitstring", "compression", "p", lambda v: v * (1 + 1e-8))
        self.assertEqual(c.status, "fail")
        self.assertIn("bitstring.compression.p", c.reason)

    def test_real_within_tolerance_passes(self):
        c = self.perturbed("bitstring", "compression", "p", lambda v: v * (1 + 1e-11))
        self.assertEqual(c.status, "pass", c.reason)

    def test_flag_differs(self):
        c = self.perturbed("literal", "lag", "p_local", lambda v: 0.5)
        self.assertEqual(c.status, "fail")
        c = self.perturbed("bitstring", "collision", "found_p", lambda v: not v)
        self.assertEqual(c.status, "fail")

    def test_missing_estimator_fails(self):
        ours = copy.deepcopy(self.ours)
        ours["literal"]["lz78y"] = None
        c = self.judge(ours)
        self.assertEqual(c.status, "fail")
        self.assertIn("literal.lz78y", c.reason)

    def test_assessor_error_fails(self):
        c = self.judge("assess: x.bin: cannot open")
        self.assertEqual(c.status, "fail")
        self.assertIn("cannot open", c.reason)

    def test_six_digits(self):
        self.assertTrue(sp80090b.same_digits(7.2338614, 7.2338617, 6))
        self.assertFalse(sp80090b.same_digits(7.23386, 7.23396, 6))
        self.assertTrue(sp80090b.same_digits(0.0, 0.0, 6))

    def test_summary_and_book_table(self):
        entry = sp80090b.summary_entry("rand4_short", self.ours, self.ref, seconds=0.5)
        self.assertTrue(entry["agree"])
        self.assertEqual(len(entry["estimators"]), 17)
        top = os.path.join(TMP, "book")
        sp80090b.write_summary(os.path.join(top, bookpart.SUMMARY), [entry])
        ctx = {"top": top, "esc": lambda s: s, "code": lambda s: f"`{s}`"}
        md, notes = bookpart.render(ctx)
        self.assertTrue(md.startswith(bookpart.HEAD))
        self.assertIn("## rand4_short", md)
        self.assertIn("| LZ78Y (6.3.10) | bitstring |", md)
        self.assertNotIn("**no**", md)
        self.assertEqual(notes, [])
        bad = dict(entry, agree=False)
        sp80090b.write_summary(os.path.join(top, bookpart.SUMMARY), [bad])
        md, notes = bookpart.render(ctx)
        self.assertIn("**does not agree**", md)
        self.assertEqual(notes, ["assessor table: 1 of 1 files disagree with NIST "
                                 "(rand4_short)"])
        md, notes = bookpart.render({**ctx, "top": os.path.join(TMP, "nowhere")})
        self.assertIn("entropy-kat", md)
        self.assertIn("missing", md)
        self.assertEqual(len(notes), 1)


class KnownAnswerShortTest(unittest.TestCase):
    """NIST's three 10,000-sample files, through the entropy-kat path."""

    def test_short_files_agree(self):
        for stem in ("rand1_short", "rand4_short", "rand8_short"):
            with self.subTest(stem=stem):
                check, entry = stage.kat_one(BINARY, stem, out_dir=TMP)
                self.assertEqual(check.status, "pass", check.reason)
                self.assertTrue(entry["agree"])

    def test_vectors_are_pinned(self):
        self.assertEqual(stage.pin_problems(), [])
        self.assertEqual(len(stage.kat_stems()), 8)


# ------------------------------------------------------- sources we know

def g_sum(z, blocks, d=1000, f=math.log2):
    """The standard's G(z) (6.3.4 step 9): the expectation of f(distance)
    for a block of probability z, over the v = blocks - d test blocks."""
    w, pw, a_sum, inner, tail = 1.0 - z, 1.0, 0.0, 0.0, 0.0
    for u in range(1, blocks + 1):
        a = f(u) * pw if u > 1 else 0.0
        if u > d:
            inner += a_sum
            tail += a
        a_sum += a
        pw *= w
        if pw < 1e-300 and u > d:
            inner += a_sum * (blocks - u)
            break
    return (z * z * inner + z * tail) / (blocks - d)


def expected_compression(p1, nbits, b=6, d=1000):
    """The compression estimate expected for independent bits with
    Pr[1] = p1, and its range for the statistic four standard deviations
    either way: (low, expected, high) in bits per bit."""
    blocks = nbits // b
    probs = [(math.comb(b, k), p1 ** k * (1 - p1) ** (b - k)) for k in range(b + 1)]
    mean = sum(m * g_sum(z, blocks, d) for m, z in probs)
    square = sum(m * g_sum(z, blocks, d, lambda u: math.log2(u) ** 2) for m, z in probs)
    v = blocks - d
    sd = math.sqrt(square - mean * mean)
    bound = mean - Z * 0.5907 * sd / math.sqrt(v)

    def near_uniform(p):
        return g_sum(p, blocks, d) + 63 * g_sum((1 - p) / 63, blocks, d)

    def invert(x):
        lo, hi = 1 / 64, 1.0
        if near_uniform(lo) <= x:
            return 1.0
        for _ in range(40):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if near_uniform(mid) > x else (lo, mid)
        return -math.log2((lo + hi) / 2) / b

    margin = 4 * sd / math.sqrt(v)
    return invert(bound - margin), invert(bound), invert(bound + margin)


class SyntheticSourceTest(unittest.TestCase):
    """The bounds of the chapter's "What the assessor must say about
    sources we know"."""

    N = 1000000

    def test_uniform_bytes(self):
        rc, res = assess_json(write("uniform.bin", synthetic.samples("uniform", self.N)))
        self.assertEqual(rc, 0)
        self.assertEqual((res["bits_per_symbol"], res["distinct_symbols"]), (8, 256))
        self.assertGreaterEqual(res["H_original"], 7.8)
        self.assertLessEqual(res["H_original"], 8.0)
        self.assertGreaterEqual(res["H_bitstring"], 0.83)
        self.assertGreaterEqual(res["assessed"], 6.6)
        self.assertLessEqual(res["assessed"], 8.0)
        self.assertEqual(res["assessed"], min(res["H_original"], 8 * res["H_bitstring"]))

    def test_biased_bits(self):
        truth = -math.log2(0.8)
        rc, res = assess_json(write("biased.bin", synthetic.samples("biased", self.N)))
        self.assertIsNone(res["bitstring"])
        mcv = estimate(res, "literal", "mcv")
        self.assertTrue(0.317 <= mcv <= 0.323, mcv)
        low, mid, high = expected_compression(0.8, self.N)
        self.assertAlmostEqual(mid, 0.1876, places=3)
        comp = estimate(res, "literal", "compression")
        self.assertTrue(low <= comp <= high, (low, comp, high))
        self.assertTrue(0.185 <= res["assessed"] <= 0.190, res["assessed"])
        self.assertEqual(res["assessed"], comp)
        self.assertLess(res["assessed"], truth)

    def test_periodic(self):
        rc, res = assess_json(write("periodic.bin", synthetic.samples("periodic", self.N)))
        self.assertLessEqual(res["assessed"], 1e-3)
        self.assertLess(estimate(res, "literal", "lag"), 1e-6)
        self.assertGreater(res["literal"]["lrs"]["v"], self.N - 100)
        lag = res["literal"]["lag"]
        self.assertGreaterEqual(lag["C"], lag["N"] - 135)
        self.assertLess(res["cpu_seconds"]["literal"] + res["cpu_seconds"]["bitstring"], 60)

    def test_markov_chain(self):
        rc, res = assess_json(write("markov.bin", synthetic.samples("markov", self.N)))
        truth = -math.log2(0.9)
        self.assertGreater(estimate(res, "literal", "mcv"), 0.97)
        self.assertTrue(0.15 <= estimate(res, "literal", "markov") <= 0.167)
        for name in ("lag", "multi_mmc", "lz78y"):
            self.assertTrue(0.145 <= estimate(res, "literal", name) <= truth, name)
        collision = estimate(res, "literal", "collision")
        self.assertTrue(0.0758 <= collision <= 0.0788, collision)
        self.assertEqual(res["assessed"], collision)


# ------------------------------------------------------------- restart tests

class RestartTest(unittest.TestCase):
    """3.1.4: the sanity check and the validation, with their reasons."""

    @classmethod
    def setUpClass(cls):
        cls.data = write("restart-main.bin", random.Random(94).randbytes(20000))

    def restart(self, name, matrix, hi):
        path = write(name, matrix)
        rc, res = assess_json(self.data, "--allow-short", "--restart", path, "--hi", hi)
        return rc, res["restart"]

    def test_good_matrix_passes(self):
        r = random.Random(95)
        rc, rs = self.restart("restart-good.bin", r.randbytes(1000000), 7)
        self.assertEqual(rc, 0, rs["reason"])
        self.assertEqual(rs["verdict"], "pass")
        self.assertEqual(rs["sanity"]["cutoff"], 23)
        self.assertTrue(rs["sanity"]["pass"])
        self.assertAlmostEqual(rs["sanity"]["alpha"], 0.01 / 2000)
        low = min(rs["H_r"], rs["H_c"])
        self.assertGreaterEqual(low, 3.5)
        self.assertEqual(rs["H_validated"], min(low, 7.0))
        self.assertEqual(set(rs["rows"]), set(sp80090b.ESTIMATORS))
        self.assertIsNone(rs["rows"]["collision"])

    def test_repeated_restarts_fail_the_sanity_check(self):
        row = random.Random(96).randbytes(1000)
        rc, rs = self.restart("restart-same.bin", row * 1000, 7)
        self.assertEqual(rc, 1)
        self.assertEqual(rs["verdict"], "fail")
        self.assertFalse(rs["sanity"]["pass"])
        self.assertEqual(rs["sanity"]["x_col"], 1000)
        self.assertIn("column", rs["reason"])
        self.assertIn("3.1.4.3", rs["reason"])
        self.assertNotIn("rows", rs)

    def test_the_submitters_claim_bounds_h_i(self):
        """3.1.3: H_I = min(H_submitter, assessed); the restart tests run
        against that H_I, so a claim below the data's entropy loosens the
        sanity check's cutoff, and a claim above it changes nothing."""
        matrix = random.Random(95).randbytes(1000000)
        path = write("restart-claim.bin", matrix)
        _, plain = assess_json(self.data, "--allow-short", "--restart", path)
        self.assertIsNone(plain["H_submitter"])
        self.assertEqual(plain["H_I"], plain["assessed"])
        _, low = assess_json(self.data, "--allow-short", "--submitter", 1,
                             "--restart", path)
        self.assertEqual(low["H_submitter"], 1.0)
        self.assertEqual(low["H_I"], 1.0)
        self.assertEqual(low["restart"]["H_I"], 1.0)
        self.assertEqual(low["restart"]["H_I_from"], "3.1.3")
        self.assertGreater(low["restart"]["sanity"]["cutoff"],
                           plain["restart"]["sanity"]["cutoff"])
        self.assertEqual(low["restart"]["H_validated"], 1.0)
        _, high = assess_json(self.data, "--allow-short", "--submitter", 8)
        self.assertEqual(high["H_I"], high["assessed"])
        self.assertLess(high["H_I"], 8.0)

    def test_predictable_restarts_fail_the_validation(self):
        matrix = bytes((i + j) % 256 for i in range(1000) for j in range(1000))
        rc, rs = self.restart("restart-ramp.bin", matrix, 4)
        self.assertEqual(rc, 1)
        self.assertTrue(rs["sanity"]["pass"], rs["reason"])
        self.assertEqual(rs["verdict"], "fail")
        self.assertLess(min(rs["H_r"], rs["H_c"]), 2.0)
        self.assertIn("3.1.4.2", rs["reason"])

    def test_binomial_cutoffs(self):
        """The cutoff for alpha = 0.01/2000 from a direct tail sum."""
        for h, cutoff in ((8, 15), (7.5, 19), (7, 23), (4, 99), (1, 570)):
            rc, rs = self.restart("restart-good2.bin", bytes(1000000), h)
            self.assertEqual(rs["sanity"]["cutoff"], cutoff, h)
            self.assertEqual(rs["sanity"]["x_max"], 1000)


# ----------------------------------------------------------------- bad input

class BadInputTest(unittest.TestCase):
    """One line on stderr naming the file and the problem; exit status 2."""

    def assertOneLine(self, args, path, words):
        rc, out, err = run(*args)
        self.assertEqual(rc, 2, err)
        self.assertEqual(out, "")
        lines = err.splitlines()
        self.assertEqual(len(lines), 1, err)
        self.assertTrue(lines[0].startswith(f"assess: {path}: "), lines[0])
        for w in words:
            self.assertIn(w, lines[0])

    def test_empty_file(self):
        p = write("empty.bin", b"")
        self.assertOneLine([p], p, ["empty"])

    def test_fewer_samples_than_the_minimum(self):
        p = write("short.bin", random.Random(97).randbytes(999999))
        self.assertOneLine([p], p, ["999999 samples", "1000000", "3.1.1"])

    def test_symbol_wider_than_declared(self):
        p = write("wide.bin", [1, 2, 3, 0x13, 4] * 2000)
        self.assertOneLine(["--bits", 4, "--allow-short", p], p,
                           ["sample 3", "0x13", "wider than 4 bits"])

    def test_restart_file_of_the_wrong_size(self):
        data = write("ok.bin", random.Random(98).randbytes(5000))
        p = write("restart-short.bin", bytes(999999))
        self.assertOneLine(["--allow-short", "--restart", p, data], p,
                           ["999999 samples", "1000 restarts", "3.1.4.1"])

    def test_restart_symbol_wider_than_the_data(self):
        data = write("nibbles.bin", [r % 16 for r in range(5000)])
        p = write("restart-wide.bin", bytes([0x10]) * 1000000)
        self.assertOneLine(["--allow-short", "--restart", p, data], p,
                           ["wider than 4 bits"])

    def test_unreadable_files(self):
        p = os.path.join(TMP, "does-not-exist.bin")
        self.assertOneLine([p], p, ["cannot open", "No such file"])
        self.assertOneLine([TMP], TMP, ["cannot read"])

    def test_one_symbol(self):
        p = write("constant.bin", bytes([7]) * 1000000)
        self.assertOneLine([p], p, ["0x07", "one symbol"])

    def test_bad_options(self):
        p = write("ok2.bin", random.Random(99).randbytes(5000))
        self.assertOneLine(["--bits", 9, p], "--bits", ["'9'"])
        self.assertOneLine(["--allow-short", "--restart", p, "--hi", 9, p], "--hi",
                           ["'9'"])
        self.assertOneLine(["--allow-short", "--restart", p, "--hi", 0, p], "--hi",
                           ["not in (0, 8]"])
        self.assertOneLine(["--allow-short", "--submitter", 0, p], "--submitter",
                           ["no claim"])
        self.assertOneLine(["--allow-short", "--restart", p, "--hi", 1, "--submitter",
                            1, p], "--hi", ["given twice"])
        rc, out, err = run("--frobnicate", p)
        self.assertEqual(rc, 2)
        self.assertIn("usage", err)


if __name__ == "__main__":
    unittest.main()
