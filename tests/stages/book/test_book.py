# SPDX-License-Identifier: GPL-2.0-only
"""The book renderer's filter and checks do what they claim.

A small synthetic book (two files, a continued chunk, a requirement, an
edit script) goes through noweb's front end and the Markdown filter: each
chunk gets its noidx label as anchor, "used in / continued in / defines"
links, and the chunk uses inside code are recorded for the post-pass.  The
tangle with provenance (notangle -L) equals notangle's output, chunk by
chunk; the lines of the series the series stage makes from it are traced
back to their chunks through its line map, and a stale line is not.  The
generated parts (figures, worked example) render from their data files.
The link checker catches a dead anchor and a missing file; the gap check
fails a requirement with no check unless the gap is accepted, and an impl
naming no chunk; headless Chromium, through WebDriver, reports a page's
errors and sideways scroll in one line and writes its screenshots.
"""

import json
import os
import re
import shutil
import struct
import subprocess
import tempfile
import unittest

from harness.base import noweb
from harness.judges import worked_example as wx_data
from harness.stages.book import browser, browsercheck
from harness.stages.book import check as book_check
from harness.stages.book import figures, output
from harness.stages.book import trace as booktrace
from harness.stages.book import worked_example
from harness.stages.book.md import PLACEHOLDER, code, esc

from .small_book import ONE, Book

# About 15 s of the host tests on two CPUs: run before the short modules
# (host_tests.shuffled).
LONG = True


class FilterTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.b = Book()
        cls.rd = cls.b.renderer()
        cls.md = cls.rd.markdown()
        cls.by_name = {}
        for c in cls.rd.book.chunks:
            cls.by_name.setdefault(c.name, []).append(c)

    @classmethod
    def tearDownClass(cls):
        cls.b.close()

    def assertIn(self, needle, hay, msg=None):
        # The generated Markdown is long: name only what is missing.
        if needle not in hay:
            self.fail(msg or f"{needle!r} not in the output")

    def test_anchors_are_noidx_labels(self):
        """Every chunk is a div whose id is its noidx label, stable across runs."""
        labels = [c.label for c in self.rd.book.chunks]
        self.assertEqual(len(labels), 6)
        for lab in labels:
            self.assertRegex(lab, r"^NW[0-9A-Za-z]+-[0-9A-Za-z]+-\d+$")
            self.assertIn(f"::: {{#{lab} .chunk}}", self.md)
        again, _ = self.b.front_end()
        self.assertEqual([c.label for c in again.chunks], labels)

    def test_cross_references(self):
        """Used in, continued in, continues, defines, uses, meets."""
        foo = self.by_name["function [[foo]]"][0]
        demo = self.by_name["demo.c"][0]
        h1, h2 = self.by_name["[[demo.c]] helpers"]
        xref = self.rd.chunk_xref(foo)
        text = "\n".join(xref)
        self.assertIn(f"Used in [⟨demo\\.c {demo.number}⟩](#{demo.label})", text)
        self.assertIn("Defines [`foo`](#ident-foo)", text)
        self.assertIn("Meets [demo](#req-demo)", text)
        t1 = "\n".join(self.rd.chunk_xref(h1))
        t2 = "\n".join(self.rd.chunk_xref(h2))
        self.assertIn(f"Continued in [⟨`demo.c` helpers {h2.number}⟩](#{h2.label})", t1)
        self.assertIn(f"Continues [⟨`demo.c` helpers {h1.number}⟩](#{h1.label})", t2)
        self.assertIn(f"(#{h1.label})", "\n".join(self.rd.chunk_xref(demo)) + f"(#{h1.label})")
        self.assertIn("Defines [`BAZ`](#ident-BAZ)", t1)
        self.assertIn("Defines [`bar`](#ident-bar)", t2)
        self.assertIn(f"Uses [`foo`](#{foo.label})", t2)
        self.assertTrue(h2.continued)
        self.assertIn(f"[⟨`demo.c` helpers {h2.number}⟩](#{h2.label})\\+≡", self.md)
        root = "\n".join(self.rd.chunk_xref(self.by_name["patch one"][0]))
        self.assertIn("Root chunk: patch 1 of the series", root)

    def test_uses_inside_code_become_links(self):
        """Chunk uses in code are placeholders that the post-pass links."""
        foo = self.by_name["function [[foo]]"][0]
        demo = self.by_name["demo.c"][0]
        self.assertIn(PLACEHOLDER.format(1), self.md)
        targets = {n: t for n, (t, _, _) in self.rd.uses.items()}
        self.assertIn(foo.label, targets.values())
        html_out = output.html_post(
            f'<div id="{demo.label}" class="chunk"><pre><code>'
            f'{PLACEHOLDER.format(1)}\n</code></pre></div>'
            f'<div id="x" class="chunk"><pre><code>int y = foo();</code></pre></div>',
            self.rd)
        self.assertIn(f'href="#{self.rd.uses[1][0]}"', html_out)
        self.assertIn(f'<a class="ident" href="#{foo.label}">foo</a>', html_out)
        tex = output.tex_post(f"\\NormalTok{{{PLACEHOLDER.format(1)}}}", self.rd)
        self.assertIn(f"\\hyperlink{{nwchunk{foo.number}}}", tex)

    def test_quoted_code_in_prose(self):
        """[[x]] in prose is inline code, bare inside an existing code span."""
        self.assertIn("Prose about `foo`, which `bar` calls.", self.md)

    def test_requirement_block(self):
        self.assertIn("::: {#req-demo .requirement}", self.md)
        self.assertIn("[**Requirement [demo](#trace-req-demo)**", self.md)
        self.assertIn("Tested by: `t.one`", self.md)
        self.assertIn("### demo {- #trace-req-demo}", self.md)
        self.assertIn("**No run yet.**", self.md)

    def test_identifier_kinds(self):
        kinds = self.rd.book.kinds
        self.assertEqual(kinds.get("foo"), "function")
        self.assertEqual(kinds.get("bar"), "function")
        self.assertEqual(kinds.get("BAZ"), "macro")
        names = [n for n, _, _ in self.rd.book.ident_index]
        self.assertEqual(sorted(names, key=str.lower), sorted(["BAZ", "bar", "foo"],
                                                              key=str.lower))

    def test_tangle_with_provenance_equals_notangle(self):
        """noweb.provenance() gives exactly notangle's text, and each line
        the chain of chunks it sits in, innermost last."""
        srcs, cwd, bk = self.b.conf.sources, self.b.dir, self.rd.book
        lines = {}
        for root in ("demo.c", "patch one", "cover letter"):
            ref = subprocess.run(["notangle", "-t8", "-R" + root] + srcs,
                                 capture_output=True, text=True, cwd=cwd).stdout
            lines[root] = noweb.provenance(srcs, root, bk, cwd=cwd)
            self.assertEqual("".join(t + "\n" for t, _ in lines[root]), ref, root)

        def num(name, i=0):
            return self.by_name[name][i].number
        demo, foo = num("demo.c"), num("function [[foo]]")
        h1, h2 = num("[[demo.c]] helpers"), num("[[demo.c]] helpers", 1)
        # The blank last line of <<[[demo.c]] helpers>> 1 is given what its
        # neighbours share: <<demo.c>>.
        want = [(demo, foo)] * 4 + [(demo, h1), (demo,)] + [(demo, h2)] * 4
        self.assertEqual([st for _, st in lines["demo.c"]], want)
        patch = num("patch one")
        self.assertEqual([st for _, st in lines["patch one"]],
                         [(patch,)] * 2 + [(patch,) + st for st in want])
        self.assertEqual([st for _, st in lines["cover letter"]], [(num("cover letter"),)] * 2)
        bar = [st for text, st in lines["demo.c"] if "return foo() << x;" in text]
        self.assertEqual(len(bar), 1)
        self.assertEqual(bar[0][-1], h2)

    def test_patch_lines_traced(self):
        """A patch's lines map back to the chunks through the series' line
        map; a line the book no longer writes so, or a patch that no longer
        fits its map, does not."""
        b = Book()
        self.addCleanup(b.close)
        lines_json = b.tangle_and_series()
        bk, _ = b.front_end()
        label = {c.name + (f" {i}" if i else ""): c.label for name, defs in bk.defs.items()
                 for i, c in enumerate(defs)}
        outs = {o.title: o for o in booktrace.trace_outputs(b.dir, b.conf, bk, lines_json)}
        self.assertEqual(sorted(outs), ["cover letter", "file demo.c", "patch 1"])
        # The line map: the Subject is line 1 of the edit script, int foo(void) line 3.
        p = outs["patch 1"]
        with open(lines_json) as f:
            entry = json.load(f)[os.path.basename(p.path)]
        self.assertEqual((entry["root"], entry["edits"]), ("patch one", "0001.edits"))
        self.assertEqual(len(entry["lines"]), len(p.lines))
        by_text = {ln.text: ln for ln in p.lines}
        subject = next(ln for ln in p.lines if ln.text.startswith("Subject: "))
        self.assertEqual(subject.text, "Subject: [PATCH 1/1] demo: one")
        self.assertEqual(entry["lines"][subject.no - 1], ["book", 1])
        self.assertEqual(entry["lines"][by_text["+int foo(void)"].no - 1], ["book", 3])
        # Traced: the subject to the edit script, each + line to its chunks.
        self.assertEqual((subject.kind, subject.stack), ("book", (label["patch one"],)))
        self.assertEqual(by_text["+int foo(void)"].stack,
                         (label["patch one"], label["demo.c"], label["function [[foo]]"]))
        self.assertEqual(by_text["+\treturn foo() << x;"].stack[-1],
                         label["[[demo.c]] helpers 1"])
        self.assertEqual(by_text["+#define BAZ 2"].stack[-1], label["[[demo.c]] helpers"])
        added = [ln for ln in p.lines if ln.text.startswith("+") and
                 not ln.text.startswith("+++ ")]
        self.assertEqual(len(added), 10)
        self.assertEqual({ln.kind for ln in added}, {"book"})
        for t in ("diff --git a/demo.c b/demo.c", "+++ b/demo.c",
                  "Signed-off-by: Test Identity <test@example.org>"):
            self.assertEqual(by_text[t].kind, "generated", t)
        self.assertTrue(p.lines[0].text.startswith("From ") and
                        p.lines[0].kind == "generated")
        cover = {ln.text: ln for ln in outs["cover letter"].lines}
        self.assertEqual(cover["Body."].stack, (label["cover letter"],))
        self.assertEqual(cover["Subject: [PATCH 0/1] Subject line"].kind, "book")
        self.assertEqual([ln.kind for ln in outs["file demo.c"].lines], ["book"] * 10)
        loc = booktrace.locations(outs.values())
        self.assertEqual(loc[label["function [[foo]]"]]["tangled/demo.c"], [1, 2, 3, 4])
        self.assertEqual(loc[label["function [[foo]]"]][p.path],
                         [by_text["+int foo(void)"].no + k for k in range(4)])
        # The book changes one line and tangled/ is not made again: that
        # line is untraced, in the patch and in the file; the rest still is.
        with open(os.path.join(b.dir, "two.nw")) as f:
            two = f.read()
        with open(os.path.join(b.dir, "two.nw"), "w") as f:
            f.write(two.replace("return foo() @<< x;", "return foo() @<< (x);"))
        bk, _ = b.front_end()
        outs = {o.title: o for o in booktrace.trace_outputs(b.dir, b.conf, bk, lines_json)}
        kinds = {ln.text: ln.kind for ln in outs["patch 1"].lines}
        self.assertEqual(kinds["+\treturn foo() << x;"], "untraced")
        self.assertEqual(kinds["+int foo(void)"], "book")
        self.assertEqual(kinds["Subject: [PATCH 1/1] demo: one"], "book")
        self.assertEqual([ln.kind for ln in outs["file demo.c"].lines],
                         ["book"] * 8 + ["untraced", "book"])
        # A stray line in the patch: the map no longer fits, nothing is traced.
        with open(os.path.join(b.dir, p.path), "a") as f:
            f.write("+int stray;\n")
        o = next(o for o in booktrace.trace_outputs(b.dir, b.conf, bk, lines_json)
                 if o.title == "patch 1")
        self.assertEqual({ln.kind for ln in o.lines}, {"untraced"})
        self.assertEqual(o.lines[-1].text, "+int stray;")


class HookTest(unittest.TestCase):
    """The generated parts: figures from data files, the worked example."""

    def ctx(self, top):
        return {"top": top, "outdir": os.path.join(top, "out"), "report": None,
                "esc": esc, "code": code}

    def test_figure_from_tcg_data_is_labelled(self):
        top = tempfile.mkdtemp(prefix="bookfig-")
        try:
            d = os.path.join(top, "build/conformance/figures")
            os.makedirs(d)
            with open(os.path.join(d, "jitter-deltas.json"), "w") as f:
                f.write('{"kind": "histogram", "title": "t", "series": '
                        '[{"values": [1, 2, 2, 3, 3, 3]}], "run": {"started": "s", '
                        '"kernel": "k", "accel": "tcg"}}')
            md, notes = figures.render(self.ctx(top))
            self.assertEqual(notes, [])
            self.assertIn("::: {#fig-jitter-deltas .figure}", md)
            self.assertIn("Emulated timer, not evidence.", md)
            self.assertIn("::: {#fig-health-tests .placeholder}", md)
            self.assertTrue(os.path.getsize(os.path.join(top, "out/figures/jitter-deltas.png")))
        finally:
            shutil.rmtree(top)

    def test_worked_example_placeholder_and_model(self):
        """Without its data file the chapter is a placeholder and the build
        is told; from the data `examples` writes (NIST's values and the host
        model's), each value is marked same or differs, a model that differs
        is a note naming the mechanism, and a value not recomputed says so."""
        top = tempfile.mkdtemp(prefix="bookwx-")
        try:
            md, notes = worked_example.render(self.ctx(top))
            self.assertIn("::: placeholder", md)
            self.assertIn(f"No data: {code(worked_example.DATA)} is missing.", md)
            self.assertNotIn("[same]", md)
            self.assertEqual(len(notes), 1)
            self.assertIn(worked_example.DATA, notes[0])
            data_path = wx_data.write(os.path.join(top, worked_example.DATA),
                                      os.path.join(top, "no-report.json"))
            md, notes = worked_example.render(self.ctx(top))
            self.assertEqual(notes, [])
            self.assertNotIn("No data", md)
            self.assertIn("| [same]{.st .st-pass} |", md)
            self.assertNotIn("[differs]", md)
            self.assertEqual(len(re.findall(r"recomputed (\d+) of \1 values identically",
                                            md)), 4)
            self.assertIn("No traced seeding", md)
            # each generate call has its number: the PR record's two calls
            # take an AdditionalInput and an EntropyInputPR each
            self.assertIn("| EntropyInputPR (call 2) |", md)
            self.assertNotIn("(call 3)", md)
            self.assertIn(" 2^seedlen^", md)
            with open(data_path) as f:
                data = json.load(f)
            self.assertEqual([(r["mech"], r["pr"]) for r in data["records"]],
                             [("HMAC_DRBG", False), ("Hash_DRBG", False),
                              ("CTR_DRBG", False), ("HMAC_DRBG", True)])
            # A model that echoes NIST's values, one of them wrong.
            for r in data["records"]:
                r["recomputed"] = {st: dict(v) for st, v in r["steps"].items()}
                r["recomputed"]["OUTPUT"] = {"ReturnedBits": r["returned"]}
                if r["mech"] == "CTR_DRBG":
                    r["recomputed"]["RESEED"]["V"] = "00"
            with open(data_path, "w") as f:
                json.dump(data, f)
            md, notes = worked_example.render(self.ctx(top))
            self.assertIn("| [same]{.st .st-pass} |", md)
            self.assertIn("[differs]{.st .st-fail}", md)
            self.assertEqual(len(notes), 1)
            self.assertIn("CTR_DRBG", notes[0])
            # No recomputation at all: every value says so, and that is no error.
            for r in data["records"]:
                r["recomputed"] = None
            with open(data_path, "w") as f:
                json.dump(data, f)
            md, notes = worked_example.render(self.ctx(top))
            self.assertEqual(notes, [])
            self.assertIn("[not yet available]{.st .st-notrun} |", md)
            self.assertNotIn("[same]", md)
        finally:
            shutil.rmtree(top)

    def test_traced_seeding_from_the_run(self):
        """The kernel's seeding of the conform run, taken apart: the parts of
        each seeding, the kernel's V and Key beside the model's, the output;
        a kernel Key that is not the model's is a note."""
        from tests.stages.test_conform import make_trace
        top = tempfile.mkdtemp(prefix="bookwt-")
        try:
            rec = make_trace("drbg_nopr_hmac_sha256", pattern=False)
            log = os.path.join(top, "build/conformance/boots/drbg/results.log")
            os.makedirs(os.path.dirname(log))
            with open(log, "w") as f:
                f.write(json.dumps(dict(rec, driver="drbg_nopr_sha1")) + "\n")
                f.write(json.dumps(rec) + "\n")
            rep = os.path.join(top, "build/conformance/report.json")
            with open(rep, "w") as f:
                json.dump({"id": "R1-abc", "started": "then", "boots": [
                    {"name": "drbg", "accel": "tcg",
                     "results_log": "build/conformance/boots/drbg/results.log"}]}, f)
            t = wx_data.traced(rep)
            self.assertEqual(t["run"], "R1-abc")
            self.assertEqual(t["instantiate"]["part"], 48)
            self.assertEqual(t["reseed"]["part"], 32)
            self.assertEqual(t["kernel_state"], {k: t["model_state"][k] for k in ("V", "Key")})
            self.assertEqual(t["out"], t["model_out"])
            notes = []
            md = "\n".join(worked_example.traced_md(t, esc, code, notes))
            self.assertEqual(notes, [])
            self.assertIn('"trace pers" (10 bytes)', md)
            self.assertEqual(md.count("[same]{.st .st-pass}"), 3)
            t["kernel_state"]["Key"] = "00" + t["kernel_state"]["Key"][2:]
            md = "\n".join(worked_example.traced_md(t, esc, code, notes))
            self.assertIn("[differs]{.st .st-fail}", md)
            self.assertTrue(any("Key after instantiation" in n for n in notes), notes)
            os.unlink(log)
            t = wx_data.traced(rep)
            self.assertIn("recorded no trace", t["missing"])
        finally:
            shutil.rmtree(top)

    def test_driver_names(self):
        self.assertEqual(wx_data.driver_of("HMAC_DRBG", "SHA-256", False),
                         "drbg_nopr_hmac_sha256")
        self.assertEqual(wx_data.driver_of("CTR_DRBG", "AES-256 use df", True),
                         "drbg_pr_ctr_aes256")
        self.assertEqual(wx_data.driver_of("Hash_DRBG", "SHA-1", False),
                         "drbg_nopr_sha1")


class LinkCheckTest(unittest.TestCase):
    def test_dead_anchor_and_missing_file(self):
        d = tempfile.mkdtemp(prefix="booklinks-")
        try:
            with open(os.path.join(d, "book.css"), "w") as f:
                f.write("")
            page = ('<link rel="stylesheet" href="book.css"><p id="yes">x</p>'
                    '<a href="#yes">ok</a><a href="#nope">dead</a>'
                    '<img src="figures/missing.png"><a href="https://example.org/">x</a>')
            counts, problems = book_check.check_links(page, d)
            self.assertEqual(counts["broken"], 2)
            self.assertEqual(counts["external"], 1)
            self.assertTrue(any("'nope'" in p for p in problems))
            self.assertTrue(any("missing.png" in p for p in problems))
            counts, problems = book_check.check_links(
                '<p id="a"></p><p id="a"></p><a href="#a">x</a>', d)
            self.assertEqual(counts["duplicate_ids"], 1)
        finally:
            shutil.rmtree(d)

    def test_tex_links(self):
        counts, missing = book_check.check_tex_links(
            "\\hypertarget{a}{}\\hyperlink{a}{x}\\hyperlink{b}{y}")
        self.assertEqual(missing, ["b"])


# A page with every fault the browser check looks for: an uncaught
# exception, a console error, an image and a style sheet that do not load,
# and a section wider than a phone.
BAD_PAGE = ('<!DOCTYPE html><html><head><link rel="stylesheet" href="gone.css">'
            '</head><body><div class="chunk" id="c1" style="border-left:1px solid">'
            'x</div><section id="traceability" style="width:900px">wide'
            '</section><img src="missing.png"><script>console.error("said\\nso");'
            'undefined_function();</script></body></html>')
GOOD_PAGE = ('<!DOCTYPE html><html><head><meta name="viewport" content="width='
             'device-width"></head><body><div class="chunk" id="c1" style='
             '"border-left:1px solid">x</div><section id="traceability">t</section>'
             '</body></html>')


class BrowserOfflineTest(unittest.TestCase):
    def test_missing_driver_is_a_skip_naming_its_package(self):
        old = browser.CHROMEDRIVER
        browser.CHROMEDRIVER = "/nonexistent/chromedriver"
        try:
            c = browsercheck.browser_check(tempfile.gettempdir())
        finally:
            browser.CHROMEDRIVER = old
        self.assertEqual(c.status, "skip")
        self.assertIn("chromium-driver", c.reason)

    def test_a_driver_error_is_one_line(self):
        class WebDriverException(Exception):
            msg = "unknown error: Chrome failed to start\n  (session info)"

            def __str__(self):
                return "Message: " + self.msg + "\nStacktrace:\n#0 0x55d"
        self.assertEqual(browser.one_line(WebDriverException()),
                         "WebDriverException: unknown error: Chrome failed to start")


@unittest.skipIf(browser.missing(), browser.missing())
class BrowserTest(unittest.TestCase):
    def book(self, html):
        d = tempfile.mkdtemp(prefix="bookwd-")
        self.addCleanup(shutil.rmtree, d)
        with open(os.path.join(d, "book.html"), "w") as f:
            f.write(html)
        return d

    def test_console_error_and_failed_load_are_caught(self):
        d = self.book(BAD_PAGE)
        with browser.Browser() as b:
            b.navigate("file://" + os.path.join(d, "book.html"))
            problems = b.problems()
            shot = b.screenshot(os.path.join(d, "s.png"))
        self.assertTrue(any(p.startswith("exception: ") and "undefined_function" in p
                            for p in problems), problems)
        self.assertTrue(any(p.startswith("console.error: ") and "said" in p
                            for p in problems), problems)
        for name in ("missing.png", "gone.css"):
            self.assertTrue(any(p.startswith("failed load: ") and name in p
                                for p in problems), problems)
        self.assertFalse(any("\n" in p for p in problems), problems)
        with open(shot, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    def test_viewport_is_the_css_size_asked(self):
        d = self.book(GOOD_PAGE)
        with browser.Browser() as b:
            b.navigate("file://" + os.path.join(d, "book.html"))
            for w, h in ((1280, 900), (390, 844)):
                b.viewport(w, h)
                self.assertEqual(b.evaluate("[innerWidth, innerHeight]"), [w, h])

    def test_check_fails_in_one_line_naming_each_fault(self):
        c = browsercheck.browser_check(self.book(BAD_PAGE))
        self.assertEqual(c.status, "fail")
        self.assertNotIn("\n", c.reason)
        for part in ("undefined_function", "missing.png", "gone.css",
                     "at 390 px the page scrolls sideways", "traceability"):
            self.assertIn(part, c.reason)
        self.assertNotIn("at 1280 px", c.reason)
        self.assertEqual(c.counts["sideways_scroll"], 1)

    def test_check_passes_a_clean_page_with_its_screenshots(self):
        d = self.book(GOOD_PAGE)
        c = browsercheck.browser_check(d)
        self.assertEqual(c.status, "pass", c.reason)
        names = {"first-page", "phone", "chunk"} | {
            f"{tag}-{a}" for tag in ("laptop", "phone") for a in browsercheck.SECTIONS}
        self.assertEqual(set(c.extra["screenshots"]), names)
        self.assertEqual(c.counts["screenshots"], len(names))
        for name, size in (("first-page", (1280, 900)), ("phone", (780, 1688)),
                           ("phone-traceability", (390, 844))):
            with open(os.path.join(d, f"screenshot-{name}.png"), "rb") as f:
                head = f.read(24)
            self.assertEqual(head[:8], b"\x89PNG\r\n\x1a\n")
            self.assertEqual(struct.unpack(">II", head[16:24]), size, name)


class GapCheckTest(unittest.TestCase):
    def traces(self, one):
        b = Book(one=one)
        try:
            bk, _ = b.front_end()
            return booktrace.requirements(b.conf, bk, None, b.dir)
        finally:
            b.close()

    def test_gap_fails(self):
        problems = book_check.gap_problems(self.traces(ONE))
        self.assertEqual(len(problems), 1)
        self.assertIn("req-gap", problems[0])
        self.assertIn("no check", problems[0])

    def test_accepted_gap_passes(self):
        one = ONE.replace('impl="[[demo.c]] helpers"}',
                          'impl="[[demo.c]] helpers" accepted="shown by review"}')
        self.assertEqual(book_check.gap_problems(self.traces(one)), [])

    def test_parameterised_check_is_aggregated(self):
        checks = {"k.case.a": {"id": "k.case.a", "status": "pass"},
                  "k.case.b": {"id": "k.case.b", "status": "fail", "reason": "x"},
                  "k.other": {"id": "k.other", "status": "pass"}}
        c = booktrace.aggregate("k.case", checks)
        self.assertEqual(c["status"], "fail")
        self.assertIn("2 cases", c["title"])
        self.assertIn("k.case.b", c["reason"])
        self.assertIsNone(booktrace.aggregate("k.none", checks))

    def test_unknown_chunk_fails(self):
        one = ONE.replace('impl="function [[foo]]"', 'impl="function [[fooo]]"')
        problems = book_check.gap_problems(self.traces(one))
        self.assertTrue(any("fooo" in p and "no chunk defines" in p for p in problems))


class ChunkCheckTest(unittest.TestCase):
    def test_missing_chunk_is_reported(self):
        b = Book()
        try:
            bk, _ = b.front_end()
            first = bk.chunks[0]
            html_text = "".join(
                f'<div id="{c.label}" class="chunk"><pre>'
                + "\n".join("".join(p[1] for p in ln if p[0] != "use") for ln in c.lines)
                + '</pre><div class="chunk-xref"></div></div>'
                for c in bk.chunks if c is not first)
            problems = book_check.chunk_problems(bk, html_text)
            self.assertTrue(any(first.label in p for p in problems))
        finally:
            b.close()


if __name__ == "__main__":
    unittest.main()
