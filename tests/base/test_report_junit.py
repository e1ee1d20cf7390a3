# SPDX-License-Identifier: GPL-2.0-only
"""report.xml, the JUnit form of the report that CI systems read, and the
reason Check.judge() gives: what each says, exactly."""

import json
import os
import shutil
import tempfile
import unittest
import xml.etree.ElementTree as ET

from harness.base import report
from harness.base.checks import Check

LONG = "r" * 499 + "XY" + "z" * 99          # 600 characters; 500 end at "X"
DETAILS = {"rows": ["%05d" % i for i in range(4000)]}


def checks():
    return [{"id": "cavs.hash.one", "title": "t", "origin": "guest", "status": "pass"},
            {"id": "cavs.hash.two", "title": "t", "origin": "guest", "status": "fail",
             "reason": LONG, "details": DETAILS},
            {"id": "cavs.hash.three", "title": "t", "origin": "guest", "status": "skip",
             "reason": LONG},
            {"id": "lonely", "title": "t", "origin": "host", "status": "fail"}]


class JunitTest(unittest.TestCase):
    def setUp(self):
        d = tempfile.mkdtemp(prefix="junit-")
        self.addCleanup(shutil.rmtree, d)
        path = os.path.join(d, "report.xml")
        report.write_junit({"checks": checks()}, path)
        self.root = ET.parse(path).getroot()

    def suite(self, name):
        found = [s for s in self.root if s.get("name") == name]
        self.assertEqual(len(found), 1, [s.get("name") for s in self.root])
        return found[0]

    def test_suites_are_the_ids_without_their_last_part(self):
        self.assertEqual([s.get("name") for s in self.root], ["cavs.hash", "lonely"])
        s = self.suite("cavs.hash")
        self.assertEqual((s.get("tests"), s.get("failures"), s.get("skipped")),
                         ("3", "1", "1"))
        self.assertEqual([(t.get("classname"), t.get("name")) for t in s],
                         [("cavs.hash", "one"), ("cavs.hash", "two"),
                          ("cavs.hash", "three")])
        lone = self.suite("lonely")
        self.assertEqual([(t.get("classname"), t.get("name")) for t in lone],
                         [("lonely", "lonely")])
        self.assertEqual((lone.get("tests"), lone.get("failures")), ("1", "1"))

    def test_a_failure_is_a_failure_element_with_its_reason_and_details(self):
        one, two, three = list(self.suite("cavs.hash"))
        self.assertEqual(list(one), [])
        (f,) = list(two)
        self.assertEqual(f.tag, "failure")
        self.assertEqual(f.get("message"), LONG[:500])
        self.assertTrue(f.get("message").endswith("rX"))
        self.assertEqual(f.text, json.dumps(DETAILS, indent=1)[:20000])
        self.assertEqual(len(f.text), 20000)
        (lone,) = list(self.suite("lonely"))
        self.assertEqual([(e.tag, e.get("message"), e.text) for e in lone],
                         [("failure", "", "{}")])

    def test_a_skip_is_a_skipped_element_with_its_reason(self):
        three = list(self.suite("cavs.hash"))[2]
        self.assertEqual([(e.tag, e.get("message")) for e in three],
                         [("skipped", LONG[:500])])


class WriteAllTest(unittest.TestCase):
    def test_a_failed_write_leaves_no_earlier_report(self):
        d = tempfile.mkdtemp(prefix="write-all-")
        self.addCleanup(shutil.rmtree, d)
        for name in report.NAMES:
            with open(os.path.join(d, name), "w") as f:
                f.write("the last run's green report\n")
        # no "started": report.md cannot be written, after report.json was
        with self.assertRaises(KeyError):
            report.write_all({"checks": checks()}, d)
        self.assertEqual(sorted(os.listdir(d)), ["report.json"])
        with open(os.path.join(d, "report.json")) as f:
            self.assertEqual(json.load(f)["summary"]["failed"], 2)


class JudgeReasonTest(unittest.TestCase):
    def reason(self, n, **kw):
        return Check.judge("x", "t", [f"p{i}" for i in range(n)], **kw).reason

    def test_the_first_three_problems_and_a_count_of_the_rest(self):
        self.assertEqual(self.reason(3), "p0; p1; p2")
        self.assertEqual(self.reason(4), "p0; p1; p2 (and 1 more)")
        self.assertEqual(self.reason(6), "p0; p1; p2 (and 3 more)")
        self.assertEqual(self.reason(2, shown=1, sep=" | "), "p0 (and 1 more)")


if __name__ == "__main__":
    unittest.main()
