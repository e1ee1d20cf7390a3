# SPDX-License-Identifier: GPL-2.0-only
"""The book renderer's filter and checks do what they claim.

A small synthetic book (two files, a continued chunk, a requirement, an
edit script) goes through noweb's front end and the Markdown filter: each
chunk gets its noidx label as anchor, "used in / continued in / defines"
links, and the chunk uses inside code are recorded for the post-pass.  The
tangle with provenance equals notangle's output.  The link checker catches
a dead anchor and a missing file; the gap check fails a requirement with
no check unless the gap is accepted, and an impl naming no chunk.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tools"))
import book  # noqa: E402
import book_check  # noqa: E402
import booktrace  # noqa: E402
import nwbook  # noqa: E402
import nwconf  # noqa: E402

CONF = """\
source one.nw
source two.nw
identity Test Identity <test@example.org>
date 2026-12-01T00:00:00+00:00
base linux-source-6.1 6.1.192-3
file demo.c = demo.c
patch patch one
cover cover letter
"""

ONE = """\
# A chapter {#chap}

Prose about [[foo]], which `[[bar]]` calls.

::: {.requirement #req-demo source="test" impl="function [[foo]]" tests="t.one"}
[[foo]] returns one.
:::

::: {.requirement #req-gap source="test" impl="[[demo.c]] helpers"}
A requirement nobody tests.
:::

<<function [[foo]]>>=
int foo(void)
{
	return 1;
}
@

<<demo.c>>=
<<function [[foo]]>>
<<[[demo.c]] helpers>>
@
"""

TWO = """\
# Another chapter

<<[[demo.c]] helpers>>=
#define BAZ 2

@
More prose.
<<[[demo.c]] helpers>>=
static int bar(int x)
{
	return foo() @<< x;
}
@
<<patch one>>=
%% subject demo: one
%% write demo.c
<<demo.c>>
@
<<cover letter>>=
Subject line
Body.
@
"""


class Book:
    def __init__(self, one=ONE, two=TWO):
        self.dir = tempfile.mkdtemp(prefix="booktest-")
        for name, text in (("tangle.conf", CONF), ("one.nw", one), ("two.nw", two)):
            with open(os.path.join(self.dir, name), "w") as f:
                f.write(text)
        self.conf = nwconf.Conf(os.path.join(self.dir, "tangle.conf"))

    def front_end(self):
        return nwbook.front_end(self.conf.sources, self.conf, cwd=self.dir)

    def renderer(self):
        return book.Renderer(self.dir, os.path.join(self.dir, "build/book"))

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)


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
        self.assertIn(book.PLACEHOLDER.format(1), self.md)
        targets = {n: t for n, (t, _, _) in self.rd.uses.items()}
        self.assertIn(foo.label, targets.values())
        html_out = book.html_post(
            f'<div id="{demo.label}" class="chunk"><pre><code>'
            f'{book.PLACEHOLDER.format(1)}\n</code></pre></div>'
            f'<div id="x" class="chunk"><pre><code>int y = foo();</code></pre></div>',
            self.rd)
        self.assertIn(f'href="#{self.rd.uses[1][0]}"', html_out)
        self.assertIn(f'<a class="ident" href="#{foo.label}">foo</a>', html_out)
        tex = book.tex_post(f"\\NormalTok{{{book.PLACEHOLDER.format(1)}}}", self.rd)
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
        t = nwbook.Tangler(self.rd.book)
        for root in ("demo.c", "patch one", "cover letter"):
            ref = subprocess.run(["notangle", "-t8", "-R" + root] + self.b.conf.sources,
                                 capture_output=True, text=True, cwd=self.b.dir).stdout
            self.assertEqual(nwbook.expand_text(t, root), ref, root)
        lines = nwbook.expand_lines(t, "demo.c")
        h2 = self.by_name["[[demo.c]] helpers"][1]
        bar = [st for text, st in lines if "return foo() << x;" in text]
        self.assertEqual(len(bar), 1)
        self.assertEqual(bar[0][-1], h2.label)

    def test_patch_lines_traced(self):
        """A patch's + lines map back to the chunks; a stray one does not."""
        t = nwbook.Tangler(self.rd.book)
        ops = booktrace.edit_ops(nwbook.expand_lines(t, "patch one"))
        patch = textwrap.dedent("""\
            From 0 Mon Sep 17 00:00:00 2001
            Subject: [PATCH 1/1] demo: one

            Signed-off-by: Test Identity <test@example.org>
            ---
            diff --git a/demo.c b/demo.c
            new file mode 100644
            --- /dev/null
            +++ b/demo.c
            @@ -0,0 +1,12 @@
            +int foo(void)
            +{
            +	return 1;
            +}
            +#define BAZ 2
            +
            +static int bar(int x)
            +{
            +	return foo() << x;
            +}
            +int stray;
            """)
        p = os.path.join(self.b.dir, "p.patch")
        with open(p, "w") as f:
            f.write(patch)
        lines = booktrace.trace_patch(p, ops, 1)
        kinds = {ln.no: ln.kind for ln in lines}
        self.assertEqual(kinds[2], "book")
        self.assertEqual(kinds[11], "book")
        self.assertEqual(kinds[21], "untraced")
        foo = self.by_name["function [[foo]]"][0]
        self.assertEqual(lines[10].stack[-1], foo.label)


class HookTest(unittest.TestCase):
    """The generated parts: figures from data files, the worked example."""

    def ctx(self, top):
        return {"top": top, "outdir": os.path.join(top, "out"), "report": None,
                "esc": book.esc, "code": book.code}

    def test_figure_from_tcg_data_is_labelled(self):
        import figures
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
        import worked_example
        top = tempfile.mkdtemp(prefix="bookwx-")
        try:
            os.symlink(os.path.join(TOP, "vectors"), os.path.join(top, "vectors"))
            md, notes = worked_example.render(self.ctx(top))
            self.assertEqual(notes, [])
            self.assertIn("Recomputation not yet available", md)
            self.assertIn("[not yet available]{.st .st-notrun} |", md)
            # A model that echoes NIST's values, one of them wrong.
            os.makedirs(os.path.join(top, "conformance/host"))
            with open(os.path.join(top, "conformance/host/drbg_model.py"), "w") as f:
                f.write(textwrap.dedent('''\
                    import worked_example as w
                    def book_trace(mech, section, rec):
                        path = f"{TOP}/vectors/cavs-intermediate/pr_false/{mech}.txt"
                        params, r = w.pick(w.parse(path), section)
                        out = {s: dict(v) for s, v in r["_steps"].items()}
                        out["OUTPUT"] = {"ReturnedBits": r["ReturnedBits"]}
                        if mech == "CTR_DRBG":
                            out["RESEED"]["V"] = "00"
                        return out
                    ''').replace("{TOP}", TOP))
            md, notes = worked_example.render(self.ctx(top))
            self.assertNotIn("Recomputation not yet available", md)
            self.assertIn("| [same]{.st .st-pass} |", md)
            self.assertIn("[differs]{.st .st-fail}", md)
            self.assertEqual(len(notes), 1)
            self.assertIn("CTR_DRBG", notes[0])
        finally:
            shutil.rmtree(top)


    def test_driver_names(self):
        import worked_example
        self.assertEqual(worked_example.driver_of("HMAC_DRBG", "SHA-256", False),
                         "drbg_nopr_hmac_sha256")
        self.assertEqual(worked_example.driver_of("CTR_DRBG", "AES-256 use df", True),
                         "drbg_pr_ctr_aes256")
        self.assertEqual(worked_example.driver_of("Hash_DRBG", "SHA-1", False),
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


@unittest.skipUnless(os.path.exists("/usr/bin/chromium"), "chromium not installed")
class BrowserTest(unittest.TestCase):
    def test_console_error_and_failed_load_are_caught(self):
        import cdp
        d = tempfile.mkdtemp(prefix="bookcdp-")
        try:
            page = os.path.join(d, "p.html")
            with open(page, "w") as f:
                f.write('<!DOCTYPE html><html><body><p id="a">x</p>'
                        '<img src="missing.png"><script>undefined_function();</script>'
                        '</body></html>')
            with cdp.Browser() as b:
                b.open_page()
                b.viewport(400, 300)
                b.navigate("file://" + page)
                b.drain(0.3)
                problems = b.problems()
                b.screenshot(os.path.join(d, "s.png"))
            self.assertTrue(any("undefined_function" in p for p in problems), problems)
            self.assertTrue(any("missing.png" in p or "ERR_FILE_NOT_FOUND" in p
                                for p in problems), problems)
            self.assertTrue(os.path.getsize(os.path.join(d, "s.png")))
        finally:
            shutil.rmtree(d)


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
