# SPDX-License-Identifier: GPL-2.0-only
"""The book as evidence: the traceability matrix finds every instance of a
check whatever prefix a boot gave it, states pass, fail, partial and not
run, and fails book-check on a "not run" in a full run only; a requirement
without a precise clause fails; numbers quoted from the run come from the
report; an uncited reference is a warning; and the typography checks see
an overfull line, a word in the margin, a chunk broken at a page's foot
and a missing glyph.
"""

import os
import shutil
import subprocess
import tempfile
import unittest

from harness.base import reqs
from harness.stages.book import apparatus, runvalues, typography
from harness.stages.book import check as book_check
from harness.stages.book import trace as booktrace
from harness.stages.book.md import esc
from harness.stages.book.output import dotted_breaks, texttt_breaks

from .small_book import ONE, Book

CHECKS = {"kunit.s.a": {"id": "kunit.s.a", "status": "pass"},
          "debug.kunit.s.a": {"id": "debug.kunit.s.a", "status": "pass"},
          "nojent.guest.x": {"id": "nojent.guest.x", "status": "pass"},
          "kunit.s.b.p1": {"id": "kunit.s.b.p1", "status": "pass"},
          "fips.kunit.s.b.p1": {"id": "fips.kunit.s.b.p1", "status": "skip", "reason": "r"},
          "host.t": {"id": "host.t", "status": "fail", "reason": "broke"}}


def traces(tests, report):
    one = ONE.replace('tests="t.one"', f'tests="{tests}"').replace(
        'source="test" impl="function [[foo]]"',
        'clause="SP 800-90A Rev. 1 9.1 step 6" source="test" impl="function [[foo]]"')
    b = Book(one=one)
    try:
        bk, _ = b.front_end()
        return booktrace.requirements(b.conf, bk, report, b.dir)
    finally:
        b.close()


class MatrixTest(unittest.TestCase):
    def test_prefixed_instances_are_found(self):
        t = booktrace.lookup("guest.x", CHECKS)
        self.assertEqual([p for p, _ in t.instances], ["nojent"])
        self.assertEqual(t.status, "pass")
        t = booktrace.lookup("kunit.s.a", CHECKS)
        self.assertEqual([p for p, _ in t.instances], ["", "debug"])
        t = booktrace.lookup("debug.kunit.s.a", CHECKS)      # named with its prefix
        self.assertEqual([p for p, _ in t.instances], ["debug"])

    def test_states(self):
        rep = {"checks": list(CHECKS.values())}
        st = lambda tests: traces(tests, rep)[0].status      # noqa: E731
        self.assertEqual(st("kunit.s.a; guest.x"), "pass")
        self.assertEqual(st("kunit.s.a; kunit.s.b"), "partial")     # fips. skipped
        self.assertEqual(st("kunit.s.a; nowhere"), "partial")
        self.assertEqual(st("nowhere; nothing"), "not run")
        self.assertEqual(st("kunit.s.a; host.t"), "fail")

    def test_not_run_fails_only_a_full_run(self):
        rep = {"checks": list(CHECKS.values())}
        c = book_check.evidence_check(rep, traces("kunit.s.a; nowhere", rep))
        self.assertEqual(c.status, "skip")
        rep["full_run"] = {"by": "make check", "started": "now"}
        c = book_check.evidence_check(rep, traces("kunit.s.a; nowhere", rep))
        self.assertEqual(c.status, "fail")
        self.assertIn("nowhere (req-demo): not in the report", c.reason)
        c = book_check.evidence_check(rep, traces("kunit.s.a; guest.x", rep))
        self.assertEqual(c.status, "pass", c.reason)

    def test_optional_run_is_not_asked_of_make_check(self):
        # make check does not make the modules kernel: a check of make
        # modules-check, named with its prefix, is "not run" without failing
        # the full run's evidence; unprefixed it would fail it.
        rep = {"checks": list(CHECKS.values()), "full_run": {"by": "make check"}}
        c = book_check.evidence_check(rep, traces("kunit.s.a; modules.guest.m", rep))
        self.assertEqual(c.status, "pass", c.reason)
        c = book_check.evidence_check(rep, traces("kunit.s.a; guest.m", rep))
        self.assertEqual(c.status, "fail")
        self.assertIn("guest.m (req-demo): not in the report", c.reason)

    def test_optional_run_report_is_read(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        self.assertEqual(booktrace.optional_checks(tmp, {}), {})
        os.makedirs(os.path.join(tmp, "build/modules-check"))
        with open(os.path.join(tmp, "build/modules-check/report.json"), "w") as f:
            f.write('{"checks": [{"id": "modules.guest.m", "status": "fail"},'
                    ' {"id": "guest.other", "status": "pass"}]}')
        got = booktrace.optional_checks(tmp, {"kunit.s.a": CHECKS["kunit.s.a"]})
        self.assertEqual(sorted(got), ["kunit.s.a", "modules.guest.m"])
        self.assertEqual(got["modules.guest.m"]["run"], "make modules-check")
        t = booktrace.lookup("modules.guest.m", got)
        self.assertEqual(t.status, "fail")

    def test_optional_run_recorded_in_evidence_is_read(self):
        """A clean clone has no build/modules-check: the recorded run counts,
        and the matrix says where it came from and whether it is current."""
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        os.makedirs(os.path.join(tmp, "evidence"))
        with open(os.path.join(tmp, "evidence/modules.json"), "w") as f:
            f.write('{"inputs": {"modules": "old"}, "checks": '
                    '[{"id": "modules.guest.m", "status": "pass"}]}')
        with open(os.path.join(tmp, "evidence/manifest.json"), "w") as f:
            f.write('{"modules": {"file": "evidence/modules.json", "commit": "c"}}')
        got = booktrace.optional_checks(tmp, {})
        self.assertEqual(got["modules.guest.m"]["status"], "pass")
        self.assertEqual(got["modules.guest.m"]["run"], "make modules-check, recorded "
                         "in evidence/modules.json, on other inputs")


class ClauseTest(unittest.TestCase):
    def test_clause_forms(self):
        for good in ("SP 800-90A Rev. 1 9.3.1 step 7", "FIPS 140-3 IG 9.3.A",
                     "SP 800-90B 4.4.1; SP 800-90C 3.1", "SP 800-90A Rev. 1 Table 2",
                     "2015 series only (patch 2/6)", "port decision (test only)"):
            self.assertIsNone(reqs.clause_problem(good), good)
        for bad in (None, "", "seed 1/6", "SP 800-90C", "project",
                    "SP 800-90B 4.3; port decision"):
            self.assertIsNotNone(reqs.clause_problem(bad), bad)

    def test_check_fails_without_clause(self):
        ts = traces("kunit.s.a", None)
        c = book_check.clauses_check(ts)
        self.assertEqual(c.status, "fail")            # req-gap has no clause
        self.assertIn("req-gap", c.reason)
        self.assertNotIn("req-demo", c.reason)


class RunValueTest(unittest.TestCase):
    REP = {"id": "R1", "host": {"nproc": 2}, "boots": [{"name": "main", "cpu": "qemu64"}],
           "checks": [{"id": "g.out", "counts": {"us": 31952}, "line": "a (b)",
                       "details": {"log": ["# x: 3 ms"]}}]}

    def sub(self, text, report=REP, full=True):
        warns = []
        out = runvalues.substitute(text, report, full, lambda s, m: warns.append(m), esc)
        return out, warns

    def test_values_come_from_the_report(self):
        self.assertEqual(self.sub("{{run report host.nproc}} CPUs")[0], "2 CPUs")
        self.assertEqual(self.sub("{{run check g.out counts.us/1000}} ms")[0], "32 ms")
        self.assertEqual(self.sub("{{run check g.out line}}")[0], "a \\(b\\)")
        self.assertEqual(self.sub("{{run boot main cpu}}")[0], "qemu64")
        self.assertEqual(self.sub("{{run check g.out details.log.0}}")[0], "\\# x\\: 3 ms")

    def test_missing_values(self):
        out, warns = self.sub("{{run check g.out counts.none}}")
        self.assertEqual((out, len(warns)), ("(not in this run)", 1))
        out, warns = self.sub("{{run check g.out counts.none}}", full=False)
        self.assertEqual((out, warns), ("(not in this run)", []))
        self.assertEqual(self.sub("{{run report id}}", report=None)[0], "(no run)")


class ApparatusTest(unittest.TestCase):
    def test_uncited_reference_is_a_warning(self):
        b = Book()
        try:
            rd = b.renderer()
            os.makedirs(os.path.join(b.dir, "book"))
            with open(os.path.join(b.dir, apparatus.REFERENCES), "w") as f:
                f.write('{"groups": [{"title": "T", "entries": ['
                        '{"key": "a", "label": "A", "text": "x"},'
                        '{"key": "b", "label": "B", "text": "y"}]}]}')
            md = "\n".join(apparatus.references(rd, "see [A](#ref-a) and [C](#ref-c)"))
            self.assertIn("[**A**]{#ref-a}: x", md)
            warns = [m for _, m in rd.warnings]
            self.assertTrue(any("entry b is cited nowhere" in w for w in warns), warns)
            self.assertTrue(any("#ref-c" in w for w in warns), warns)
        finally:
            b.close()


class BreakTest(unittest.TestCase):
    def test_break_points(self):
        self.assertEqual(texttt_breaks(r"\texttt{host.unit.x.Test.test}"),
                         r"\texttt{host.\allowbreak{}unit.\allowbreak{}x.\allowbreak{}"
                         r"Test.\allowbreak{}test}")
        self.assertEqual(texttt_breaks(r"\texttt{a.b}"), r"\texttt{a.b}")
        out = dotted_breaks("host.unit.jitter.FoldTest.test \\href{http://a.bbbbbbbbb."
                            "cccccccccc.dd}{x}\n\\begin{Highlighting}\nhost.unit.jitter.F."
                            "test\n\\end{Highlighting}")
        self.assertIn(r"host.\allowbreak{}unit.", out)
        self.assertIn("\\href{http://a.bbbbbbbbb.cccccccccc.dd}", out)
        self.assertIn("\nhost.unit.jitter.F.test\n", out)


LAYOUT = "layout 650.0pt 845.04684pt -37.0pt 12.0pt 25.0pt 0.0pt 12.0pt 469.47pt -9.7pt 0.0pt\n"


class TypographyTest(unittest.TestCase):
    def test_overfull_lines(self):
        log = ("Overfull \\hbox (3.1pt too wide) in paragraph at lines 2--3\n"
               "Overfull \\hbox (64.0pt too wide) in alignment at lines 4--9\n")
        tex = "\\chapter{One}\nx\ny\n\\section{Two}\nwide\n"
        counts, problems = typography.overfull(log, tex)
        self.assertEqual((counts["overfull_boxes"], len(problems)), (2, 1))
        self.assertIn('64.0 pt too wide at book.tex line 4 (in "Two")', problems[0])

    def test_chunk_breaks(self):
        # text block bottom = 845.04684 - (72.27 - 37 + 12 + 25 + 650) pt = 122.78 pt
        sp = lambda pt: int(pt * 65536)                       # noqa: E731
        pos = LAYOUT + (f"start 1 3 {sp(122.78 + 2 * 12)}\nend 1 4 {sp(700)}\n"
                        f"start 2 5 {sp(122.78 + 2 * 12)}\nend 2 5 {sp(123)}\n"
                        f"start 3 6 {sp(500)}\nend 3 7 {sp(700)}\n")
        counts, problems = typography.chunk_breaks(pos)
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("chunk 1 starts 2.0 lines above the foot of page 3", problems[0])
        self.assertEqual(counts["near_foot"], 2)

    def test_double_bars(self):
        # pandoc's LaTeX of the seed-paths row before the fix, of the row
        # after it, and of a single bar (concatenation) in math
        tex = ("\\section{Seeds}\n"
               "grb \\(\\|\\|\\) \\emph{x} & grb \\textbar\\textbar{} \\emph{x} \\\\\n"
               "formally, \\(H(A \\,\\|\\, B)\\)\n"
               "\\(x \\| \\, \\|\\)\n")
        counts, problems = typography.double_bars(tex)
        self.assertEqual(counts["double_bars"], 2, problems)
        self.assertIn('at book.tex line 2 (in "Seeds")', problems[0])
        self.assertIn("book.tex line 4", problems[1])

    @unittest.skipUnless(shutil.which("pdflatex") and shutil.which("pdftotext"),
                         "pdflatex or poppler-utils missing (make deps-book)")
    def test_margins_and_glyphs_of_a_pdf(self):
        d = tempfile.mkdtemp(prefix="booktypo-")
        try:
            tex = os.path.join(d, "t.tex")
            with open(tex, "w") as f:
                f.write("\\documentclass{article}\\usepackage[margin=2.2cm]{geometry}"
                        "\\begin{document}\\tracinglostchars=2 \\noindent\\hbox{"
                        + "wide " * 60 + "} and \\char200\\end{document}\n")
            subprocess.run(["pdflatex", "-interaction=nonstopmode", "t.tex"], cwd=d,
                           capture_output=True)
            pdf = os.path.join(d, "t.pdf")
            pos = "layout 700pt 845pt 0pt 0pt 0pt 0pt 12pt 470pt 0pt 0pt\n"
            counts, problems = typography.margins(pdf, pos)
            self.assertTrue(problems and "wide" in problems[0], problems)
            with open(os.path.join(d, "t.log"), errors="replace") as f:
                log = f.read()
            counts, problems = typography.glyphs(log, pdf)
            self.assertTrue(any("missing glyph" in p for p in problems), (problems, log[-500:]))
        finally:
            shutil.rmtree(d)


if __name__ == "__main__":
    unittest.main()
