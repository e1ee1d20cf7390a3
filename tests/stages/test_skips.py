# SPDX-License-Identifier: GPL-2.0-only
"""The declared skips (harness/stages/skips.py, conformance/expected-skips.txt).

A skip of the run that no entry declares fails check.skips.expected,
named with its reason; one that an entry declares does not.  An entry
that matched no skip fails check.skips.declared when its checks ran, or
when they are not in a full run; in a run restricted by BOOTS or
VECTORS, or one that failed elsewhere, an entry whose checks are
absent is a note.  A wildcard stays
inside one part of the dotted id.  A line the reader cannot take is an
error naming the file and the line; the committed list is read without
one, and the verb skips re-judges a report."""

import json
import os
import tempfile
import unittest

from harness.base.checks import Check
from harness.stages import skips

from ..verbs import run_verb

LIST = ("# a comment\n\n"
        "cavs.*.hash-sha224\tno SHA-224 core\n"
        "guest.faults.alloc-every-point\tno fault injection in the test kernel\n")


def skip(cid, why="not applicable"):
    return {"id": cid, "status": "skip", "reason": why}


def judged(checks, text=LIST, restricted=()):
    """{id: Check} of the two verdicts."""
    return {c.id: c for c in skips.judge(checks, skips.parse(text, "l.txt"), restricted)}


class ParseTest(unittest.TestCase):
    def error(self, text):
        with self.assertRaises(skips.ListError) as cm:
            skips.parse(text, "conformance/expected-skips.txt")
        return str(cm.exception)

    def test_entries_with_their_lines(self):
        es = skips.parse(LIST, "l.txt")
        self.assertEqual([(e.pattern, e.reason, e.line) for e in es],
                         [("cavs.*.hash-sha224", "no SHA-224 core", 3),
                          ("guest.faults.alloc-every-point",
                           "no fault injection in the test kernel", 4)])

    def test_a_line_without_a_tab(self):
        self.assertEqual(self.error("# x\na.b no tab here\n"),
                         "conformance/expected-skips.txt:2: no TAB: a line is a "
                         "check-id pattern, a TAB, the reason")

    def test_a_line_without_a_reason(self):
        self.assertEqual(self.error("a.b\t  \n"),
                         "conformance/expected-skips.txt:1: a.b: no reason after the TAB")

    def test_a_line_without_a_pattern(self):
        self.assertIn(":1: no check-id pattern", self.error("\tbecause\n"))

    def test_a_pattern_given_twice(self):
        self.assertEqual(self.error("a.b\tone\n\na.b\ttwo\n"),
                         "conformance/expected-skips.txt:3: a.b: declared already at "
                         "line 1")

    def test_patterns_that_would_take_a_whole_family(self):
        for p in ("acvp.*", "cavs.*.*", "*", "acvp.hashdrbg-1-0.??"):
            with self.subTest(p):
                self.assertIn(":1: pattern", self.error(f"{p}\twhatever\n"))
                self.assertIn("too wide", self.error(f"{p}\twhatever\n"))

    def test_characters_no_check_id_has(self):
        for p in ("a.b c", "a.[bc]", "a.b/c", " a.b"):
            with self.subTest(p):
                self.assertIn(":1: pattern", self.error(f"{p}\twhy\n"))

    def test_an_empty_part(self):
        for p in ("a..b", ".a", "a."):
            with self.subTest(p):
                self.assertIn("empty part", self.error(f"{p}\twhy\n"))

    def test_an_absent_list_is_an_error(self):
        with self.assertRaises(skips.ListError) as cm:
            skips.read("/nonexistent/expected-skips.txt")
        self.assertIn("/nonexistent/expected-skips.txt: cannot be read", str(cm.exception))

    def test_the_committed_list_reads(self):
        es = skips.read()
        self.assertGreater(len(es), 0)
        self.assertTrue(all(e.reason for e in es))


class MatchTest(unittest.TestCase):
    def test_a_wildcard_stays_inside_one_part(self):
        e = skips.parse("cavs.*.hash-sha224\twhy\n", "l")[0]
        self.assertTrue(e.matches("cavs.pr_true.hash-sha224"))
        self.assertFalse(e.matches("cavs.pr_true.x.hash-sha224"))
        self.assertFalse(e.matches("debug.cavs.pr_true.hash-sha224"))
        self.assertFalse(e.matches("cavs.pr_true.hash-sha224x"))
        q = skips.parse("cavs.x.ctr-aes???-nodf\twhy\n", "l")[0]
        self.assertTrue(q.matches("cavs.x.ctr-aes128-nodf"))
        self.assertFalse(q.matches("cavs.x.ctr-aes12-nodf"))


class JudgeTest(unittest.TestCase):
    RUN = [skip("cavs.no_reseed.hash-sha224"), skip("cavs.pr_true.hash-sha224"),
           skip("guest.faults.alloc-every-point"), {"id": "kunit.a.b", "status": "pass"}]

    def test_declared_skips_pass(self):
        v = judged(self.RUN)
        self.assertEqual(v["check.skips.expected"].status, "pass")
        self.assertEqual(v["check.skips.expected"].counts,
                         {"skips": 3, "declared": 3, "unexpected": 0})
        self.assertEqual(v["check.skips.declared"].status, "pass")
        self.assertEqual(v["check.skips.expected"].details["by_entry"],
                         {"cavs.*.hash-sha224": 2, "guest.faults.alloc-every-point": 1})

    def test_an_unexpected_skip_fails_named_with_its_reason(self):
        run = self.RUN + [skip("kunit.drbg_seed.not_ready", "CRNG already ready"),
                          Check.skipped("book.browser", "t", "chromium is not installed")]
        c = judged(run)["check.skips.expected"]
        self.assertEqual(c.status, "fail")
        self.assertEqual(c.reason, "2 skip(s) declared nowhere in "
                         "conformance/expected-skips.txt: kunit.drbg_seed.not_ready "
                         "(CRNG already ready); book.browser (chromium is not installed)")
        self.assertEqual(c.counts["unexpected"], 2)

    def test_a_skip_under_another_prefix_is_not_declared(self):
        c = judged(self.RUN + [skip("debug.cavs.pr_true.hash-sha224")])["check.skips.expected"]
        self.assertEqual(c.status, "fail")
        self.assertIn("debug.cavs.pr_true.hash-sha224", c.reason)

    def test_an_entry_whose_check_ran_fails_even_in_a_restricted_run(self):
        run = [skip("cavs.pr_true.hash-sha224"),
               {"id": "guest.faults.alloc-every-point", "status": "pass"}]
        for restricted in ((), ("BOOTS=main",)):
            with self.subTest(restricted=restricted):
                c = judged(run, restricted=restricted)["check.skips.declared"]
                self.assertEqual(c.status, "fail")
                self.assertEqual(c.reason, "1 declared skip(s) did not occur: "
                                 "guest.faults.alloc-every-point (line 4: ran: pass)")

    def test_an_entry_absent_from_a_full_run_fails(self):
        c = judged([skip("cavs.pr_true.hash-sha224")])["check.skips.declared"]
        self.assertEqual(c.status, "fail")
        self.assertIn("guest.faults.alloc-every-point (line 4: not in the run)", c.reason)

    def test_an_entry_absent_from_a_restricted_run_is_a_note(self):
        c = judged([skip("cavs.pr_true.hash-sha224")],
                   restricted=["BOOTS=cavs"])["check.skips.declared"]
        self.assertEqual(c.status, "pass")
        self.assertEqual(c.details["not_in_this_run"],
                         ["guest.faults.alloc-every-point (line 4: not in the run)"])
        self.assertEqual(c.details["excused_by"], ["BOOTS=cavs"])

    def test_an_entry_absent_from_a_run_that_failed_elsewhere_is_a_note(self):
        c = judged([skip("cavs.pr_true.hash-sha224"),
                    {"id": "host.kernel.test", "status": "fail", "reason": "no build"}]
                   )["check.skips.declared"]
        self.assertEqual(c.status, "pass")
        self.assertEqual(c.details["excused_by"],
                         ["1 failed check(s), first host.kernel.test"])

    def test_a_malformed_list_is_one_failure_naming_file_and_line(self):
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write("a.b\tfine\na.c without a tab\n")
        self.addCleanup(os.unlink, f.name)
        v = skips.verdicts(self.RUN, f.name)
        self.assertEqual([(c.id, c.status) for c in v], [("check.skips.expected", "fail")])
        self.assertEqual(v[0].reason, f"{f.name}:2: no TAB: a line is a check-id "
                         "pattern, a TAB, the reason")


class VerbTest(unittest.TestCase):
    """python3 -m harness skips --report R: make check's judgment of R."""

    def verb(self, checks, *extra):
        d = tempfile.mkdtemp(prefix="skips-verb-")
        rep, lst = os.path.join(d, "report.json"), os.path.join(d, "skips.txt")
        with open(rep, "w") as f:
            json.dump({"checks": checks}, f)
        with open(lst, "w") as f:
            f.write(LIST)
        self.addCleanup(lambda: [os.unlink(rep), os.unlink(lst), os.rmdir(d)])
        return run_verb(self, ["skips", "--report", rep, "--list", lst] + list(extra),
                        timeout=60)

    def test_declared_skips_exit_0(self):
        rc, out, err = self.verb(JudgeTest.RUN)
        self.assertEqual(rc, 0, out + err)
        self.assertIn("PASS check.skips.expected: skips 3, declared 3, unexpected 0", out)

    def test_an_unexpected_skip_exits_1(self):
        rc, out, err = self.verb(JudgeTest.RUN + [skip("host.unit.x", "why not")])
        self.assertEqual(rc, 1, out + err)
        self.assertIn("FAIL check.skips.expected: 1 skip(s) declared nowhere in "
                      "conformance/expected-skips.txt: host.unit.x (why not)", out)


if __name__ == "__main__":
    unittest.main()
