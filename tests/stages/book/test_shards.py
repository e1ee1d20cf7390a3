# SPDX-License-Identifier: GPL-2.0-only
"""The hardening appendix's section on shards (book/shards.py): the
one-machine and two-shard wall times side by side, the comparison's
verdict, and a build note when a verdict differs."""

import unittest

from harness.stages.book import md as bookmd
from harness.stages.book import shards

CMP = {"same": True, "verdicts": 6, "differences": [],
       "merged": {"drbg": {"scope": "the first 6 in file order, in 2 shards", "selected": 6,
                           "wall_s": 900, "cpu_wall_s": 1700,
                           "shards": [{"wall_s": 900, "selected": 3},
                                      {"wall_s": 800, "selected": 3}]}},
       "single": {"drbg": {"wall_s": 400, "selected": 6}}}


class SectionTest(unittest.TestCase):
    def section(self, cmp):
        notes = []
        return "\n".join(shards.section(cmp, bookmd.esc, bookmd.code, notes)), notes

    def test_placeholder(self):
        md, notes = self.section(None)
        self.assertIn("make shards-demo", md)
        self.assertIn("placeholder", md)
        self.assertEqual(notes, [])

    def test_the_same_verdicts(self):
        md, notes = self.section(CMP)
        esc = bookmd.esc
        self.assertIn(f"| `drbg` | {esc('the first 6 in file order, in 2 shards')} | 6 | "
                      f"400 s | 900 s | {esc('900 s (3 mutants), 800 s (3 mutants)')} | "
                      "1,700 s |", md)
        self.assertIn("The merged record equals the one-machine record", md)
        self.assertIn("all 6 verdicts", md)
        self.assertEqual(notes, [])

    def test_a_differing_verdict_is_named_and_noted(self):
        cmp = dict(CMP, same=False, differences=["drbg:f:cmp:000002: a against b"])
        md, notes = self.section(cmp)
        self.assertIn("1 of 6 verdicts differ", md)
        self.assertIn("drbg:f:cmp:000002", md)
        self.assertNotIn("equals the one-machine", md)
        self.assertEqual(len(notes), 1)


if __name__ == "__main__":
    unittest.main()
