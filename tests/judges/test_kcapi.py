# SPDX-License-Identifier: GPL-2.0-only
"""libkcapi as the DRBGs' second client (issue 40).

- The guest's classifier (conformance/guest/kcapi_drbg.c, built for the
  host as a shared object with -DKCAPI_NONE) says which requests the
  AF_ALG CAVP interface can carry: the limits are algif_rng.c's 128 bytes,
  128 carried and 129 not, and a reseed or prediction resistance is never
  carried.
- harness/judges/kcapi_judge.py: cavs.kcapi and acvp.kcapi fail when an
  answer differs from the debugfs interface's or from NIST's, when the
  counts do not add up to the records, when nothing was answered, when the
  flipped-bit copy is not caught, and when the guest sent nothing.
"""

import ctypes
import os
import subprocess
import tempfile
import unittest

from harness.base import config
from harness.judges import cavs_pack, kcapi_judge

GUEST = config.top("conformance/guest")


class ClassifierTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.d = tempfile.mkdtemp(prefix="kcapi-")
        so = os.path.join(cls.d, "kcapi.so")
        r = subprocess.run(["gcc", "-DKCAPI_NONE", "-shared", "-fPIC", "-O2", "-Wall",
                            "-Werror", "-o", so] +
                           [os.path.join(GUEST, f) for f in
                            ("kcapi_drbg.c", "report.c", "util.c")],
                           capture_output=True, text=True)
        if r.returncode:
            raise AssertionError(f"kcapi_drbg.c does not build for the host: {r.stderr}")
        cls.lib = ctypes.CDLL(so)
        cls.lib.kcapi_drbg_beyond.argtypes = [ctypes.c_char_p]
        cls.lib.kcapi_drbg_request_ok.argtypes = [ctypes.c_char_p, ctypes.c_uint32]
        cls.names = (ctypes.c_char_p * 6).in_dll(cls.lib, "kcapi_beyond_names")

    def beyond(self, flags=0, out_len=32, entropy=32, nonce=16, addtl=(0, 0)):
        strings = [b"e" * entropy, b"n" * nonce, b"", b"", b"", b"a" * addtl[0],
                   b"b" * addtl[1], b"", b""]
        req = cavs_pack.encode_request("drbg_nopr_sha256", flags, out_len, strings)
        self.assertEqual(self.lib.kcapi_drbg_request_ok(req, len(req)), 1)
        return self.names[self.lib.kcapi_drbg_beyond(req)].decode()

    def test_limits(self):
        self.assertEqual(self.beyond(), "carried")
        self.assertEqual(self.beyond(out_len=128), "carried")
        self.assertEqual(self.beyond(out_len=129), "returned_bits_over_128_bytes")
        self.assertEqual(self.beyond(entropy=112, nonce=16), "carried")
        self.assertEqual(self.beyond(entropy=113, nonce=16),
                         "entropy_and_nonce_over_128_bytes")
        self.assertEqual(self.beyond(addtl=(128, 128)), "carried")
        self.assertEqual(self.beyond(addtl=(0, 129)), "additional_input_over_128_bytes")

    def test_reseed_and_pr_never_carried(self):
        self.assertEqual(self.beyond(flags=cavs_pack.FLAG_RESEED), "reseed")
        self.assertEqual(self.beyond(flags=cavs_pack.FLAG_PR), "prediction_resistance")
        # The first reason in kcapi_drbg.h's order is the one given.
        self.assertEqual(self.beyond(flags=cavs_pack.FLAG_PR, out_len=256),
                         "prediction_resistance")

    def test_malformed_request(self):
        req = cavs_pack.encode_request("drbg_nopr_sha256", 0, 32, [b"x"] * 9)
        self.assertEqual(self.lib.kcapi_drbg_request_ok(req[:-1], len(req) - 1), 0)
        self.assertEqual(self.lib.kcapi_drbg_request_ok(req[:100], 100), 0)


def _meta():
    sections = [{"title": "no_reseed SHA-256", "driver": "drbg_nopr_sha256",
                 "records": 3, "selftest": False},
                {"title": "pr_true SHA-256", "driver": "drbg_pr_sha256", "records": 2,
                 "selftest": False},
                {"title": "flipped bit", "driver": "drbg_nopr_sha256", "records": 1,
                 "selftest": True}]
    records = [{"file": 0, "line": 10 * i, "where": f"f.rsp:{10 * i}", "section": s}
               for i, s in enumerate((0, 0, 0, 1, 1, 2))]
    return {"sections": sections, "records": records}


def _lines(answered=3, same_debugfs=3, same_expected=3, errors=0, pr=2,
           selftest=(1, 1, 0)):
    return [{"type": "cavs_kcapi", "s": 0, "answered": answered,
             "same_debugfs": same_debugfs, "same_expected": same_expected,
             "errors": errors, "beyond": {}},
            {"type": "cavs_kcapi", "s": 1, "answered": 0, "same_debugfs": 0,
             "same_expected": 0, "errors": 0, "beyond": {"prediction_resistance": pr}},
            {"type": "cavs_kcapi", "s": 2, "answered": selftest[0],
             "same_debugfs": selftest[1], "same_expected": selftest[2], "errors": 0,
             "beyond": {}}]


class CavsCheckTest(unittest.TestCase):
    def test_pass_and_counts(self):
        c = kcapi_judge.cavs_check(_lines(), _meta())
        self.assertEqual(c.status, "pass", c.reason)
        self.assertEqual(c.counts["records"], 5)
        self.assertEqual(c.counts["answered"], 3)
        self.assertEqual(c.counts["beyond_prediction_resistance"], 2)
        self.assertIn("caught", c.details["flipped_bit_copy"])

    def test_differs_from_debugfs(self):
        recs = _lines(same_debugfs=2) + [{"type": "cavs_kcapi_fail", "f": 0, "line": 10,
                                          "s": 0, "same_debugfs": False,
                                          "debugfs_answered": True,
                                          "same_expected": True, "got": "00"}]
        c = kcapi_judge.cavs_check(recs, _meta())
        self.assertEqual(c.status, "fail")
        self.assertIn("f.rsp:10", c.reason)
        self.assertIn("debugfs", c.reason)

    def test_differs_from_nist(self):
        c = kcapi_judge.cavs_check(_lines(same_expected=2), _meta())
        self.assertEqual(c.status, "fail")
        self.assertIn("2 NIST's", c.reason)

    def test_counts_must_add_up(self):
        c = kcapi_judge.cavs_check(_lines(pr=1), _meta())
        self.assertEqual(c.status, "fail")
        self.assertIn("accounted for 1 of 2", c.reason)

    def test_errors_fail(self):
        recs = _lines(answered=2, same_debugfs=2, same_expected=2, errors=1) + [
            {"type": "cavs_kcapi_fail", "f": 0, "line": 20, "s": 0, "stage": "seed",
             "err": -22}]
        c = kcapi_judge.cavs_check(recs, _meta())
        self.assertEqual(c.status, "fail")
        self.assertIn("seed failed: error -22", c.reason)

    def test_nothing_answered_fails(self):
        lines = _lines(answered=0, same_debugfs=0, same_expected=0)
        lines[0]["beyond"] = {"reseed": 3}
        c = kcapi_judge.cavs_check(lines, _meta())
        self.assertEqual(c.status, "fail")
        self.assertIn("nothing was compared", c.reason)

    def test_flipped_copy_not_caught_fails(self):
        c = kcapi_judge.cavs_check(_lines(selftest=(1, 1, 1)), _meta())
        self.assertEqual(c.status, "fail")
        self.assertIn("flipped-bit copy", c.reason)

    def test_no_lines_fails(self):
        c = kcapi_judge.cavs_check([{"type": "cavs_done"}], _meta())
        self.assertEqual(c.status, "fail")
        self.assertIn("no libkcapi result", c.reason)

    def test_guest_without_libkcapi_reports_its_own_skip(self):
        recs = [{"type": "check", "id": "cavs.kcapi", "status": "skip",
                 "reason": "this /init was built without libkcapi"}]
        self.assertEqual(kcapi_judge.cavs_checks(recs, _meta()), [])
        self.assertEqual(kcapi_judge.cavs_checks(_lines(), _meta())[0].status, "pass")

    def test_missing_section_fails(self):
        c = kcapi_judge.cavs_check(_lines()[:2], _meta())
        self.assertEqual(c.status, "fail")
        self.assertIn("flipped bit: no libkcapi line", c.reason)


def _acvp_meta(expected="aa"):
    entries = [{"kind": "drbg", "tcId": 1, "model": "aa", "expected": expected},
               {"kind": "drbg", "tcId": 2, "model": "bb", "expected": None},
               {"kind": "hash", "tcId": 3, "model": "cc", "expected": None}]
    return {"entries": entries, "sets": [
        {"name": "hashDRBG", "family": "drbg", "groups": [{"tests": [0, 1]}]},
        {"name": "SHA3-256", "family": "sha3", "groups": [{"tests": [2]}]}]}


class AcvpCheckTest(unittest.TestCase):
    def recs(self, out0="aa", second=None):
        return [{"type": "acvp", "i": 0, "err": 0, "out": "aa"},
                {"type": "acvp", "i": 1, "err": 0, "out": "bb"},
                {"type": "acvp_kcapi", "i": 0, "out": out0},
                second or {"type": "acvp_kcapi", "i": 1,
                           "beyond": "returned_bits_over_128_bytes"}]

    def test_pass_and_counts(self):
        c = kcapi_judge.acvp_check(_acvp_meta(), self.recs())
        self.assertEqual(c.status, "pass", c.reason)
        self.assertEqual((c.counts["test_cases"], c.counts["answered"],
                          c.counts["same_expected"],
                          c.counts["beyond_returned_bits_over_128_bytes"]), (2, 1, 1, 1))

    def test_differs(self):
        c = kcapi_judge.acvp_check(_acvp_meta(), self.recs(out0="ab"))
        self.assertEqual(c.status, "fail")
        self.assertIn("tcId 1: libkcapi's answer differs from the debugfs", c.reason)

    def test_differs_from_expected_only(self):
        c = kcapi_judge.acvp_check(_acvp_meta(expected="ff"), self.recs())
        self.assertEqual(c.status, "fail")
        self.assertIn("expected result", c.reason)

    def test_missing_and_error(self):
        c = kcapi_judge.acvp_check(_acvp_meta(), self.recs()[:3])
        self.assertEqual(c.status, "fail")
        self.assertIn("tcId 2: no libkcapi answer", c.reason)
        c = kcapi_judge.acvp_check(_acvp_meta(), self.recs(second={
            "type": "acvp_kcapi", "i": 1, "stage": "init", "err": -2}))
        self.assertEqual(c.status, "fail")
        self.assertIn("init failed: error -2", c.reason)

    def test_nothing_carried_is_a_skip_with_the_reasons(self):
        recs = self.recs()
        recs[2] = {"type": "acvp_kcapi", "i": 0, "beyond": "reseed"}
        c = kcapi_judge.acvp_check(_acvp_meta(), recs)
        self.assertEqual(c.status, "skip")
        self.assertIn("none of the 2 claimed DRBG test cases", c.reason)
        self.assertIn("1 reseed, 1 returned bits over 128 bytes", c.reason)
        meta = _acvp_meta()
        meta["sets"] = meta["sets"][1:]
        self.assertEqual(kcapi_judge.acvp_check(meta, recs).status, "skip")

    def test_nothing_answered_with_an_error_fails(self):
        recs = self.recs(second={"type": "acvp_kcapi", "i": 1, "stage": "seed",
                                 "err": -22})
        recs[2] = {"type": "acvp_kcapi", "i": 0, "beyond": "reseed"}
        c = kcapi_judge.acvp_check(_acvp_meta(), recs)
        self.assertEqual(c.status, "fail")
        self.assertIn("nothing was compared", c.reason)


if __name__ == "__main__":
    unittest.main()
