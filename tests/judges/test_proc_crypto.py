# SPDX-License-Identifier: GPL-2.0-only
"""/proc/crypto's "selftest : passed" is counted for what it is.

testmgr writes "passed" for a driver whose alg_test_descs[] entry is
alg_test_null, which tests nothing.  The judge reads each driver's test
from the cached tree's crypto/testmgr.c: of Linux 6.1's 22 DRBGs, 9 have
a known-answer test (alg_test_drbg) and 13 only alg_test_null, and so has
jitterentropy_rng; the checks say so, and count only the 9 as tested.
(Before the fix the guest reported "selftest_passed": 22.)  A driver not
registered, or whose self-test did not pass, fails.
"""

import unittest

from harness.base import kcache
from harness.judges import proc_crypto

DRBGS = [f"drbg_{pr}_{core}" for pr in ("pr", "nopr")
         for core in ("sha1", "sha256", "sha384", "sha512", "hmac_sha1", "hmac_sha256",
                      "hmac_sha384", "hmac_sha512", "ctr_aes128", "ctr_aes192",
                      "ctr_aes256")]


def records(**override):
    out = []
    for d in DRBGS + ["jitterentropy_rng"]:
        out.append({"type": "proc_crypto", "driver": d,
                    "selftest": override.get(d, "passed")})
    return out


class ProcCryptoTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.src = kcache.ensure_pristine()[1]

    def judge(self, recs):
        return {c.id: c for c in proc_crypto.checks(recs, "main", self.src)}

    def test_testmgr_tests_from_the_tree(self):
        tests = proc_crypto.testmgr_tests(self.src)
        self.assertEqual(tests["drbg_nopr_hmac_sha256"], "alg_test_drbg")
        self.assertEqual(tests["drbg_pr_sha512"], "alg_test_null")
        self.assertEqual(tests["jitterentropy_rng"], "alg_test_null")
        self.assertEqual(sum(tests[d] == "alg_test_drbg" for d in DRBGS), 9)

    def test_passed_counts_only_what_testmgr_tested(self):
        cs = self.judge(records())
        d = cs["guest.proc_crypto.drbg"]
        self.assertEqual(d.status, "pass", d.reason)
        self.assertEqual(d.counts, {"registered": 22, "testmgr_tested_passed": 9,
                                    "testmgr_null_test": 13})
        self.assertIn("13 have only alg_test_null", d.title)
        self.assertIn("drbg_pr_sha512", d.details["testmgr_null_test"])
        j = cs["guest.proc_crypto.jitterentropy"]
        self.assertEqual(j.status, "pass")
        self.assertIn("alg_test_null", j.title)

    def test_not_registered_or_not_passed_fails(self):
        cs = self.judge(records(drbg_pr_sha1=None, drbg_nopr_sha256="unknown",
                                jitterentropy_rng=None))
        d = cs["guest.proc_crypto.drbg"]
        self.assertEqual(d.status, "fail")
        self.assertIn("drbg_pr_sha1: not registered", d.reason)
        self.assertIn("drbg_nopr_sha256: selftest 'unknown'", d.reason)
        self.assertEqual(cs["guest.proc_crypto.jitterentropy"].status, "fail")

    def test_boot_without_records(self):
        self.assertEqual(self.judge([]), {})
        cs = self.judge(records()[:10])
        self.assertIn("reported 10 DRBGs, expected 22",
                      cs["guest.proc_crypto.drbg"].reason)


if __name__ == "__main__":
    unittest.main()
