# SPDX-License-Identifier: GPL-2.0-only
"""The Check type: what every judge returns and report.json is made of.

- The constructors give the three statuses; a fail or skip always has a
  reason, even when the caller gave none.
- judge() passes on no problems and otherwise fails with the count and the
  first few problems.
- to_dict() is the JSON form (empty fields left out, extra keys kept) and
  from_dict() reads it back to an equal Check.
- summarize() counts pass, fail and skip apart (a skip is never a pass),
  over Checks and dicts alike; validate() names an unknown status, a fail
  or skip without a reason and an id reported twice.
"""

import json
import unittest

from harness.base.checks import STATUSES, Check, summarize, validate


class ConstructorTest(unittest.TestCase):
    def test_passed(self):
        c = Check.passed("a.b", "A passes", counts={"n": 3}, origin="host")
        self.assertEqual((c.id, c.status, c.title, c.reason), ("a.b", "pass", "A passes", None))
        self.assertEqual((c.origin, c.counts), ("host", {"n": 3}))
        self.assertTrue(c.ok)

    def test_failed_and_skipped_always_have_a_reason(self):
        f = Check.failed("a.f", "A", "it broke", boot="test")
        self.assertEqual((f.status, f.reason, f.boot), ("fail", "it broke", "test"))
        self.assertFalse(f.ok)
        s = Check.skipped("a.s", "A", "no interface")
        self.assertEqual((s.status, s.reason), ("skip", "no interface"))
        self.assertFalse(s.ok, "a skip is not a pass")
        for c in (Check.failed("x", "X", None), Check.failed("x", "X", ""),
                  Check.skipped("y", "Y", None), Check.skipped("y", "Y", "")):
            self.assertTrue(c.reason, c)
            self.assertEqual(validate([c]), [])

    def test_defaults_are_not_shared(self):
        a, b = Check.passed("a", "A"), Check.passed("b", "B")
        a.counts["n"] = 1
        a.details["k"] = 2
        a.requirements.append("R1")
        a.extra["e"] = 3
        self.assertEqual((b.counts, b.details, b.requirements, b.extra), ({}, {}, [], {}))
        self.assertEqual(a.origin, "harness")


class JudgeTest(unittest.TestCase):
    def test_no_problems_is_a_pass(self):
        c = Check.judge("j", "J", [], counts={"n": 0})
        self.assertEqual((c.status, c.reason, c.counts), ("pass", None, {"n": 0}))
        self.assertEqual(Check.judge("j", "J", iter(())).status, "pass")

    def test_problems_fail_with_the_first_few(self):
        c = Check.judge("j", "J", ["one", "two"], origin="guest")
        self.assertEqual((c.status, c.reason, c.origin), ("fail", "one; two", "guest"))
        c = Check.judge("j", "J", (f"p{i}" for i in range(5)))
        self.assertEqual(c.reason, "p0; p1; p2 (and 2 more)")
        c = Check.judge("j", "J", [1, 2, 3, 4], shown=1, sep=" | ")
        self.assertEqual(c.reason, "1 (and 3 more)")
        c = Check.judge("j", "J", ["a", "b", "c"], shown=3, sep=" | ")
        self.assertEqual(c.reason, "a | b | c")


class DictTest(unittest.TestCase):
    def full(self):
        return Check.failed("cavs.total", "CAVS", "2 failed", origin="host", boot="cavs",
                            counts={"passed": 1, "failed": 2},
                            details={"errors": ["f:1: bad"]}, requirements=["R7"],
                            extra={"seconds": 1.5})

    def test_to_dict(self):
        d = self.full().to_dict()
        self.assertEqual(d, {"id": "cavs.total", "title": "CAVS", "origin": "host",
                             "boot": "cavs", "status": "fail", "reason": "2 failed",
                             "counts": {"passed": 1, "failed": 2},
                             "details": {"errors": ["f:1: bad"]},
                             "requirements": ["R7"], "seconds": 1.5})
        json.dumps(d)

    def test_empty_fields_left_out(self):
        d = Check("k.x", "pass").to_dict()
        self.assertEqual(d, {"id": "k.x", "title": "k.x", "origin": "harness",
                             "status": "pass", "requirements": []})

    def test_round_trip(self):
        for c in (self.full(), Check.passed("p", "P"), Check.skipped("s", "S", "why"),
                  Check("k.x", "pass")):
            d = c.to_dict()
            back = Check.from_dict(json.loads(json.dumps(d)))
            self.assertEqual(back.to_dict(), d)
        back = Check.from_dict(self.full().to_dict())
        self.assertEqual(back, self.full())

    def test_from_dict_keeps_unknown_keys(self):
        c = Check.from_dict({"id": "g.1", "status": "skip", "reason": "r",
                             "type": "check", "us": 12})
        self.assertEqual((c.id, c.status, c.reason), ("g.1", "skip", "r"))
        self.assertEqual(c.extra, {"type": "check", "us": 12})
        self.assertEqual(c.to_dict()["us"], 12)


class SummarizeValidateTest(unittest.TestCase):
    def test_summarize(self):
        checks = [Check.passed("a", "A"), Check.failed("b", "B", "r"),
                  Check.skipped("c", "C", "r"), Check.skipped("d", "D", "r"),
                  {"id": "e", "status": "pass"}, {"id": "f", "status": "skip"}]
        self.assertEqual(summarize(checks), {"passed": 2, "failed": 1, "skipped": 3,
                                             "total": 6})
        self.assertEqual(summarize([]), {"passed": 0, "failed": 0, "skipped": 0,
                                         "total": 0})
        # An unknown status is refused, never counted as one of the three.
        with self.assertRaises((KeyError, ValueError)):
            summarize([{"id": "z", "status": "passed"}])

    def test_validate(self):
        good = [Check.passed("a", "A"), Check.failed("b", "B", "r"),
                Check.skipped("c", "C", "r")]
        self.assertEqual(validate(good), [])
        bad = good + [Check("d", "ok"), Check("e", "fail"), Check("f", "skip", reason=""),
                      Check.passed("a", "A again")]
        problems = validate(bad)
        self.assertEqual(problems, ["d: status 'ok'", "d: ok without a reason",
                                    "e: fail without a reason",
                                    "f: skip without a reason", "a: reported twice"])
        self.assertEqual(STATUSES, ("pass", "fail", "skip"))


if __name__ == "__main__":
    unittest.main()
