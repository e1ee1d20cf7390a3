# SPDX-License-Identifier: GPL-2.0-only
"""book.trace.evidence, exactly: its counts of the matrix's states, the
checks not run named once each however many requirements trace them,
at most twelve in the reason; and the book-check verb's exit status and
summary line as its checks say."""

import json
import os
import shutil
import sys
import tempfile
import threading
import unittest
from types import SimpleNamespace as NS
from unittest import mock

from harness.stages.book import browsercheck
from harness.stages.book import check as book_check

from ...verbs import run_verb


def trace(req, status, *tests):
    return NS(req=NS(id=req), status=status,
              tests=[NS(id=i, status=s) for i, s in tests])


TRACES = [trace("a", "pass", ("kunit.x", "pass")),
          trace("b", "partial", ("kunit.x", "pass"), ("guest.gone", "not run")),
          trace("c", "not run", ("guest.gone", "not run"), ("guest.lost", "not run")),
          trace("d", "fail", ("host.y", "fail"))]
FULL = {"id": "r1", "full_run": {"by": "make check"}}


class EvidenceCountsTest(unittest.TestCase):
    def test_counts_of_a_full_run(self):
        c = book_check.evidence_check(FULL, TRACES)
        self.assertEqual(c.id, "book.trace.evidence")
        self.assertEqual(c.status, "fail")
        self.assertEqual(c.counts, {"pass": 1, "fail": 1, "partial": 1, "not_run": 1,
                                    "checks_not_run": 3, "report": "r1"})
        self.assertEqual(c.reason, "req-c: nothing it names ran; guest.gone (req-b): "
                                   "not in the report; guest.lost (req-c): not in the report")

    def test_a_draft_is_a_skip_with_its_counts(self):
        c = book_check.evidence_check({"id": "r2"}, TRACES)
        self.assertEqual((c.id, c.status), ("book.trace.evidence", "skip"))
        self.assertTrue(c.reason.startswith("draft: build/conformance/report.json is not "
                                            "from make check"), c.reason)
        self.assertEqual(c.counts, {"pass": 1, "fail": 1, "partial": 1, "not_run": 1,
                                    "checks_not_run": 3})

    def test_at_most_twelve_problems_in_the_reason(self):
        many = [trace(f"r{i:02d}", "partial", (f"guest.c{i:02d}", "not run"))
                for i in range(13)]
        c = book_check.evidence_check(FULL, many)
        self.assertEqual(c.reason.count("not in the report"), 12)
        self.assertIn("guest.c11", c.reason)
        self.assertNotIn("guest.c12", c.reason)
        self.assertEqual(c.counts["checks_not_run"], 13)


class BookCheckVerbTest(unittest.TestCase):
    """book-check with no book built: each check fails or skips as it
    says, the summary line counts them, and the exit status is 1."""

    def test_no_book_fails_with_counts_as_the_checks_say(self):
        for browser in ([], ["--no-browser"]):
            with self.subTest(browser=browser):
                d = tempfile.mkdtemp(prefix="book-check-")
                self.addCleanup(shutil.rmtree, d)
                path = os.path.join(d, "checks.json")
                rc, out, err = run_verb(self, ["book-check", "--no-build", "--json", path]
                                        + browser, timeout=240)
                self.assertEqual(rc, 1, out + err)
                with open(path) as f:
                    checks = json.load(f)
                n = {s: sum(c["status"] == s for c in checks) for s in ("pass", "fail",
                                                                       "skip")}
                self.assertGreater(n["fail"], 0)
                self.assertIn(f"book-check: {n['pass']} passed, {n['fail']} failed, "
                              f"{n['skip']} skipped in ", out)
                for c in checks:
                    if c["status"] != "pass":
                        self.assertIn(f"book-check: {c['status'].upper()} {c['id']}:", err)
                browser_check = [c for c in checks if c["id"] == "book.browser"]
                self.assertEqual(len(browser_check), 1)
                self.assertEqual(browser_check[0]["title"], browsercheck.TITLE)
                self.assertEqual((browser_check[0]["status"], browser_check[0]["reason"]),
                                 ("skip", "--no-browser") if browser else
                                 ("fail", "book.html was not written"))


class BookCheckRunTest(unittest.TestCase):
    """book-check on a book that is there (its checks replaced by stand-ins
    that pass): the build's exit status and text, build.json and
    book.html are what the checks judge, the browser check runs on the
    book's directory, and a run with every check passed exits 0."""

    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="book-check-run-")
        self.addCleanup(shutil.rmtree, self.d)
        with open(os.path.join(self.d, "build.json"), "w") as f:
            json.dump({"chunks": ["c1"]}, f)
        with open(os.path.join(self.d, "book.html"), "w") as f:
            f.write("<html>the book</html>")
        self.seen = {}
        ok = book_check.check("book.x", "t", "pass")
        for obj, name, value in (
                (book_check, "build_check", ok), (book_check, "html_links_check", ok),
                (book_check, "pdf_links_check", ok), (book_check, "source_checks", [ok]),
                (book_check.typography, "checks", []),
                (browsercheck, "browser_check", book_check.check("book.browser", "t", "pass"))):
            p = mock.patch.object(obj, name, side_effect=self.spy(name, value))
            p.start()
            self.addCleanup(p.stop)
        for p in (mock.patch.object(book_check, "OUT", self.d), mock.patch("sys.stdout"),
                  mock.patch("sys.stderr")):
            p.start()
            self.addCleanup(p.stop)

    def spy(self, name, value):
        def called(*a):
            self.seen[name] = a
            return value
        return called

    def run_check(self, **kw):
        args = NS(**dict({"no_build": True, "no_browser": False,
                          "json": os.path.join(self.d, "checks.json")}, **kw))
        rc = book_check.run(args)
        with open(args.json) as f:
            return rc, json.load(f)

    def test_a_book_whose_checks_pass_exits_0(self):
        rc, checks = self.run_check()
        self.assertEqual(rc, 0)
        self.assertEqual(self.seen["build_check"], (0, "", {"chunks": ["c1"]}))
        self.assertEqual(self.seen["html_links_check"][0], "<html>the book</html>")
        self.assertEqual(self.seen["browser_check"], (self.d,))
        self.assertEqual([c["id"] for c in checks][-1], "book.browser")
        self.assertEqual({c["status"] for c in checks}, {"pass"})

    def test_the_browser_runs_beside_the_other_checks(self):
        """Chromium's check is started before the checks that read the
        HTML and the PDF here, and its result still comes last."""
        started = threading.Event()

        def browser(out):
            started.set()
            return book_check.check("book.browser", "t", "pass")

        def typography(out):
            self.seen["browser_started"] = started.wait(30)
            return []
        with mock.patch.object(browsercheck, "browser_check", side_effect=browser), \
                mock.patch.object(book_check.typography, "checks", side_effect=typography):
            rc, checks = self.run_check()
        self.assertTrue(self.seen["browser_started"])
        self.assertEqual(rc, 0)
        self.assertEqual([c["id"] for c in checks][-1], "book.browser")

    def test_the_build_s_status_and_text_are_judged(self):
        r = NS(returncode=2, stderr="pandoc: no such file\n", stdout="chunks: 9\n")
        with mock.patch.object(book_check.subprocess, "run", return_value=r) as build:
            self.run_check(no_build=False)
        self.assertEqual(build.call_args.args[0][-1], "book")
        self.assertEqual(self.seen["build_check"][:2], (2, "pandoc: no such file\n"))
        for stream, text in ((sys.stderr, "pandoc: no such file\n"), (sys.stdout, "chunks: 9\n")):
            self.assertIn(mock.call(text), stream.write.call_args_list)   # passed on


if __name__ == "__main__":
    unittest.main()
