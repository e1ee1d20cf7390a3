# SPDX-License-Identifier: GPL-2.0-only
"""The host SP 800-90A model (harness/judges/drbg_model.py).

- It reproduces the ReturnedBits of every applicable NIST CAVS record
  (7920: Hash and HMAC with SHA-1/256/384/512, CTR with AES-128/192/256
  and df, in no_reseed, pr_false and pr_true).
- It reproduces NIST's intermediate working state (V, C, reseed counter;
  Key, V) after every step of every applicable record of the
  intermediate-value files, so a wrong step shows where it goes wrong.
- The kernel conventions it adds are really exercised: requests above
  65536 bytes are sliced as drbg_generate_long() does (and that differs
  from one big Generate), prediction resistance reseeds per slice, and an
  all-empty HMAC_DRBG seed runs both Update rounds as the kernel does.
"""

import glob
import os
import sys
import time
import unittest

from harness.base.config import TOP
from harness.judges import cavs_parse, cavs_records, drbg_model

NIST = os.path.join(TOP, "vectors/cavs")
INTERMEDIATE = os.path.join(TOP, "vectors/cavs-intermediate")


def applicable_records(paths, intermediate=False):
    recs = []
    for p in paths:
        parsed = cavs_parse.parse_file(p, intermediate=intermediate,
                                 name=os.path.relpath(p, TOP))
        if parsed.errors:
            raise AssertionError(f"{p} does not parse: {parsed.errors[:3]}")
        recs += [r for r in parsed.records if r.section.applicable]
    return recs


class NistRecordsTest(unittest.TestCase):
    def test_every_applicable_nist_record(self):
        """the model reproduces all 7920 applicable NIST CAVS records"""
        paths = [p for p, _, _ in cavs_parse.find_files([NIST])]
        recs = applicable_records(paths)
        # 11 sections of 240 records in each of the three kinds.
        by_kind = {k: sum(1 for r in recs if r.kind == k) for k in cavs_records.KINDS}
        self.assertEqual(by_kind, {k: 11 * 240 for k in cavs_records.KINDS})
        t0 = time.time()
        bad = [r.where for r in recs if drbg_model.run_record(r)[1] != r.returned]
        seconds = time.time() - t0
        self.assertEqual(bad, [], f"{len(bad)} records differ")
        print(f"\n  model: {len(recs)} NIST records in {seconds:.2f} s",
              file=sys.stderr)

    def test_intermediate_values(self):
        """the model's working state equals NIST's after every step"""
        paths = sorted(glob.glob(os.path.join(INTERMEDIATE, "*/*.txt")))
        self.assertEqual(len(paths), 9)
        recs = applicable_records(paths, intermediate=True)
        compared = {}
        problems = []
        for r in recs:
            trace = []
            drbg_model.run_record(r, trace)
            steps = [s for s, _ in r.steps]
            if [s for s, _ in trace] != steps:
                problems.append(f"{r.where}: steps {steps}, model {trace}")
                continue
            for (step, mine), (_, nist) in zip(trace, r.steps):
                self.assertTrue(nist, f"{r.where} {step}: no state parsed")
                for name, value in nist.items():
                    if mine.get(name) != value:
                        problems.append(f"{r.where} {step} {name}")
                    key = (r.section.mechanism, r.kind)
                    compared[key] = compared.get(key, 0) + 1
        self.assertEqual(problems[:10], [])
        # Every mechanism in every kind had its state compared.
        for mech in cavs_records.MECHANISMS:
            for kind in cavs_records.KINDS:
                self.assertGreater(compared.get((mech, kind), 0), 0, (mech, kind))

    def test_a_wrong_step_is_visible_in_the_intermediate_values(self):
        """a model with a broken reseed disagrees at RESEED, not before"""
        path = os.path.join(INTERMEDIATE, "pr_false/Hash_DRBG.txt")
        rec = applicable_records([path], intermediate=True)[0]
        orig = drbg_model.HashDRBG.reseed

        def broken(self, entropy, addtl=b""):
            orig(self, entropy + b"\x00", addtl)
        trace = []
        drbg_model.HashDRBG.reseed = broken
        try:
            drbg_model.run_record(rec, trace)
        finally:
            drbg_model.HashDRBG.reseed = orig
        nist = dict(rec.steps)
        mine = dict(trace)
        self.assertEqual(mine["INSTANTIATE"]["V"], nist["INSTANTIATE"]["V"])
        self.assertNotEqual(mine["RESEED"]["V"], nist["RESEED"]["V"])


class KernelConventionsTest(unittest.TestCase):
    def _drbg(self, driver, pers=b"p"):
        return drbg_model.instantiate(driver, b"\x11" * 48, pers)

    def test_long_request_is_sliced(self):
        """65537 bytes = Generate(65536) + Generate(1), same additional input"""
        for driver in ("drbg_nopr_hmac_sha256", "drbg_nopr_ctr_aes128",
                       "drbg_nopr_sha1"):
            a = self._drbg(driver)
            out = a.generate(65537, b"addtl")
            b = self._drbg(driver)
            parts = b.mech.generate(65536, b"addtl") + b.mech.generate(1, b"addtl")
            self.assertEqual(out, parts, driver)
            c = self._drbg(driver)
            one = c.mech.generate(65537, b"addtl")
            self.assertNotEqual(out[65536:], one[65536:], driver)
            self.assertEqual(out[:65536], one[:65536], driver)
            self.assertEqual(a.state(), b.state(), driver)

    def test_exactly_65536_is_one_generate(self):
        a = self._drbg("drbg_nopr_hmac_sha1")
        b = self._drbg("drbg_nopr_hmac_sha1")
        self.assertEqual(a.generate(65536, b"x"), b.mech.generate(65536, b"x"))
        self.assertEqual(a.state(), b.state())

    def test_prediction_resistance_reseeds_every_slice(self):
        """drbg_pr_*: reseed(test entropy, addtl) then generate, per slice"""
        a = self._drbg("drbg_pr_sha256")
        a.set_entropy(b"\x22" * 32)
        out = a.generate(65536 + 10, b"ai")
        b = self._drbg("drbg_pr_sha256")
        expect = b""
        for n in (65536, 10):
            b.mech.reseed(b"\x22" * 32, b"ai")
            expect += b.mech.generate(n)
        self.assertEqual(out, expect)

    def test_empty_means_none(self):
        """empty additional input is no additional input"""
        for driver in drbg_model.CORES:
            a = self._drbg("drbg_nopr_" + driver)
            b = self._drbg("drbg_nopr_" + driver)
            self.assertEqual(a.generate(40, b""), b.mech.generate(40, None), driver)

    def test_hmac_empty_seed_runs_both_rounds(self):
        """HMAC_DRBG: an all-empty seed still runs two Update rounds (kernel)"""
        d = drbg_model.instantiate("drbg_nopr_hmac_sha256", b"", b"")
        spec = drbg_model.HmacDRBG("sha256")
        spec.Key, spec.V = b"\x00" * 32, b"\x01" * 32
        spec.update(None)             # SP 800-90A: Null data, one round
        self.assertNotEqual(d.state()["Key"], spec.Key)
        two = drbg_model.HmacDRBG("sha256")
        two.Key, two.V = b"\x00" * 32, b"\x01" * 32
        two.update(b"")
        self.assertEqual(d.state()["Key"], two.Key)

    def test_nonce_is_part_of_the_test_entropy(self):
        """instantiate(E||N) in the kernel = instantiate(E, N) in the standard"""
        for core in drbg_model.CORES:
            d = drbg_model.instantiate("drbg_nopr_" + core, b"E" * 32 + b"N" * 16, b"P")
            m = drbg_model.CORES[core]()
            m.instantiate(b"E" * 32, b"N" * 16, b"P")
            self.assertEqual(d.generate(50), m.generate(50), core)

    def test_driver_names(self):
        self.assertEqual(drbg_model.parse_driver("drbg_pr_ctr_aes192"),
                         ("ctr_aes192", True))
        self.assertEqual(drbg_model.parse_driver("drbg_nopr_sha384"), ("sha384", False))
        for bad in ("drbg_pr_sha224", "drbg_nopr_hmac_sha3", "sha256"):
            with self.assertRaises(ValueError):
                drbg_model.parse_driver(bad)


if __name__ == "__main__":
    unittest.main()
