# SPDX-License-Identifier: GPL-2.0-only
"""/proc/crypto's "selftest : passed" is counted for what it is.

testmgr writes "passed" for a driver whose alg_test_descs[] entry is
alg_test_null, which tests nothing.  The judge reads each driver's test
from the cached tree's crypto/testmgr.c: of Linux 6.1's 22 DRBGs, 9 have
a known-answer test (alg_test_drbg) and 13 only alg_test_null, and so has
jitterentropy_rng; the checks say so, and count only the 9 as tested.
(Before the fix the guest reported "selftest_passed": 22.)  A driver not
registered, or whose self-test did not pass, fails.  jitterentropy_rng
must also have the 2015 patch's priority 100 and seed size 0: a mutant of
the series that made it 101 or 99 survived every other check.
"""

import unittest

from harness.base import kcache
from harness.judges import proc_crypto

DRBGS = [f"drbg_{pr}_{core}" for pr in ("pr", "nopr")
         for core in ("sha1", "sha256", "sha384", "sha512", "hmac_sha1", "hmac_sha256",
                      "hmac_sha384", "hmac_sha512", "ctr_aes128", "ctr_aes192",
                      "ctr_aes256")]


def records(jitter=None, **override):
    """The 23 records of a good boot; override sets a driver's selftest,
    jitter the fields of the jitterentropy_rng record."""
    out = []
    for i, d in enumerate(DRBGS):
        out.append({"type": "proc_crypto", "driver": d,
                    "selftest": override.get(d, "passed"), "priority": 200 + i,
                    "seedsize": 0})
    out.append(dict({"type": "proc_crypto", "driver": "jitterentropy_rng",
                     "selftest": override.get("jitterentropy_rng", "passed"),
                     "priority": 100, "seedsize": 0}, **(jitter or {})))
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
        self.assertEqual(j.status, "pass", j.reason)
        self.assertIn("alg_test_null", j.title)
        self.assertIn("priority 100 and seed size 0", j.title)
        self.assertEqual((j.details["priority"], j.details["seedsize"]), (100, 0))

    def test_jitter_priority_and_seed_size_are_the_patchs(self):
        for fields, reason in (
                ({"priority": 101}, "jitterentropy_rng priority 101, expected 100"),
                ({"priority": 99}, "jitterentropy_rng priority 99, expected 100"),
                ({"seedsize": 1}, "jitterentropy_rng seedsize 1, expected 0"),
                ({"priority": None}, "the guest sent no priority"),
                ({"seedsize": None}, "the guest sent no seedsize")):
            with self.subTest(fields=fields):
                j = self.judge(records(jitter=fields))["guest.proc_crypto.jitterentropy"]
                self.assertEqual(j.status, "fail")
                self.assertIn(reason, j.reason)

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
