# SPDX-License-Identifier: GPL-2.0-only
"""make teeth: a mutant is caught only when its oracle fails.

Each broken build names the checks that must fail on it.  A report in
which other checks failed but not the oracle is a mutant NOT caught
(before, any failed check counted); a parameterised oracle (a KUnit case,
drbg.trace) is met by any of its instances; a boot that wrote no report
catches nothing.  (That each mutation matches the series' drbg.c exactly
once is checked by the verb itself, which stops otherwise.)
"""

import unittest

from harness.stages import plan, teeth


def rep(*failed, passed=("boot.teeth",)):
    return [{"id": i, "status": "fail"} for i in failed] + \
        [{"id": i, "status": "pass"} for i in passed]


def result(oracle, checks):
    hits = teeth.caught_by(oracle, checks)
    return {"mutant": "m", "defect": "d", "oracle": oracle, "report": bool(checks),
            "caught": bool(checks) and all(hits.values()), "oracle_failed": hits,
            "failed_checks": 0, "examples": [], "seconds": 1}


class TeethOracleTest(unittest.TestCase):
    def test_other_failures_do_not_count(self):
        r = result(["kunit.drbg_seed.seed_buf_zero_on_error"],
                   rep("boot.teeth.kernel-log", "kunit.drbg_seed.instantiate_layout.x"))
        self.assertFalse(r["caught"])
        c = teeth.as_checks([r])[0]
        self.assertEqual((c.id, c.status), ("teeth.m", "fail"))
        self.assertIn("kunit.drbg_seed.seed_buf_zero_on_error did not fail", c.reason)

    def test_every_oracle_entry_must_fail(self):
        oracle = ["kunit.drbg_seed.instantiate_layout", "drbg.trace"]
        r = result(oracle, rep("kunit.drbg_seed.instantiate_layout.drbg_pr_sha1"))
        self.assertFalse(r["caught"])
        r = result(oracle, rep("kunit.drbg_seed.instantiate_layout.drbg_pr_sha1",
                               "drbg.trace.drbg_nopr_sha256"))
        self.assertTrue(r["caught"])
        self.assertEqual(teeth.as_checks([r])[0].status, "pass")

    def test_prefix_is_a_whole_name(self):
        r = result(["drbg.trace"], rep("drbg.tracer"))
        self.assertFalse(r["caught"])

    def test_no_report_catches_nothing(self):
        r = result(["drbg.trace"], [])
        self.assertFalse(r["caught"])
        self.assertIn("wrote no report", teeth.as_checks([r])[0].reason)

    def test_every_mutant_has_an_oracle(self):
        names = [m[0] for m in teeth.MUTANTS]
        self.assertEqual(len(names), len(set(names)))
        for name, _, subs, oracle, *boots in teeth.MUTANTS:
            self.assertTrue(subs and oracle, name)

    def test_every_mutant_boots_optional_boots_of_the_plan(self):
        """A mutant's boots (its own or the default) are boots of the plan
        that make conform alone never runs; the memory leak's is make
        stress's calls, whose check is its oracle."""
        optional = {b["name"]: b for b in plan.BOOTS if b.get("optional")}
        for name, *_, boots in [m if len(m) == 5 else m + (teeth.BOOTS,)
                                for m in teeth.MUTANTS]:
            for b in boots.split(","):
                self.assertIn(b, optional, name)
        leak = next(m for m in teeth.MUTANTS if m[0] == "jent-handle-leaked")
        self.assertEqual((leak[3], leak[4]), (["guest.stress.memory"], "teeth-stress"))
        self.assertEqual(optional["teeth-stress"]["mode"], "stress")
        self.assertIn("guest.stress.memory", optional["teeth-stress"]["produces"])


if __name__ == "__main__":
    unittest.main()
