# SPDX-License-Identifier: GPL-2.0-only
"""The ACVP stage's counts of a vector set (set_summary) and its verdict
over all sets (total_check): every count exact, and each way the run can
claim nothing or stop short a failure."""

import unittest

from harness.base.checks import Check
from harness.stages import acvp


def vset(name, slug, groups):
    return {"name": name, "slug": slug, "algorithm": "hashDRBG", "revision": "1.0",
            "groups": groups}


SET = vset("drbg-a", "a", [
    {"tests": [1, 2], "na": {"reseed": [3]}},
    {"tests": [], "na": {"reseed": [4, 5], "pr": [6]}},
    {"tests": [7], "na": {}}])
CHECKS = [Check.passed("acvp.a.tg1", "t", counts={"test_cases": 3, "answered": 2}),
          Check.failed("acvp.a.tg3", "t", "differs", counts={"test_cases": 1,
                                                             "answered": 1}),
          Check.passed("acvp.a.tg4", "t"),      # no counts: adds nothing
          Check.passed("acvp.a.tg5", "t", counts={"test_cases": 0, "answered": 0}),
          Check.passed("acvp.b.tg1", "t", counts={"test_cases": 50, "answered": 50}),
          Check.passed("acvp.a.total", "t", counts={"test_cases": 99})]
DOCS = {"drbg-a": {"response": {"x": 1}, "validation": {"disposition": "passed"},
                   "agrees": True}}


class SetSummaryTest(unittest.TestCase):
    def test_every_count(self):
        self.assertEqual(acvp.set_summary(SET, CHECKS, DOCS), {
            "name": "drbg-a", "algorithm": "hashDRBG", "revision": "1.0",
            "test_groups": 3, "groups_answered": 2, "groups_not_applicable": 1,
            "test_cases": 4, "claimed": 3, "answered": 3, "not_applicable": 4,
            "reasons": [{"reason": "reseed", "test_cases": 3},
                        {"reason": "pr", "test_cases": 1}],
            "failed_groups": 1, "response": True, "validation": "passed",
            "agrees_with_server": True})

    def test_no_response_and_no_validation(self):
        s = acvp.set_summary(SET, [], {"drbg-a": {"response": None, "validation": None,
                                                  "agrees": None}})
        self.assertEqual((s["response"], s["validation"], s["agrees_with_server"],
                          s["test_cases"], s["answered"], s["failed_groups"]),
                         (False, None, None, 0, 0, 0))


def summ(name, claimed, answered, na=0):
    return {"name": name, "test_groups": 1, "test_cases": claimed + na,
            "claimed": claimed, "answered": answered, "not_applicable": na}


META = {"probes": ["p1", "p2"]}


class TotalCheckTest(unittest.TestCase):
    def test_a_full_answer_passes_with_its_counts(self):
        c = acvp.total_check([summ("a", 3, 3, 1), summ("b", 2, 2)], [], META, {"ok": 1})
        self.assertEqual(c.status, "pass", c.reason)
        self.assertEqual(c.counts, {"test_groups": 2, "test_cases": 6, "claimed": 5,
                                    "answered": 5, "not_applicable": 1, "sets": 2,
                                    "probes": 2})
        self.assertIn("(5 of 5 claimed, 1 not applicable, in 2 sets)", c.title)

    def test_an_unfinished_pack_fails_first(self):
        bad = [Check.failed("acvp.a.tg1", "t", "differs"),
               Check.failed("acvp.a.tg2", "t", "differs too")]
        c = acvp.total_check([summ("a", 3, 3)], bad, META, None)
        self.assertEqual(c.status, "fail")
        self.assertTrue(c.reason.startswith("the guest did not finish the pack; "
                                            "acvp.a.tg1: differs; acvp.a.tg2: differs too"),
                        c.reason)

    def test_claiming_nothing_fails(self):
        c = acvp.total_check([summ("a", 0, 0, 4)], [], META, {"ok": 1})
        self.assertEqual(c.status, "fail")
        self.assertEqual(c.reason, "the registration claims no test case of these sets")

    def test_one_set_claiming_nothing_fails(self):
        c = acvp.total_check([summ("a", 3, 3), summ("b", 0, 0, 7)], [], META, {"ok": 1})
        self.assertEqual(c.status, "fail")
        self.assertEqual(c.reason, "b: the registration claims no test case of this set "
                                   "(7 not applicable)")


if __name__ == "__main__":
    unittest.main()
