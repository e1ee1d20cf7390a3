#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Render the book: HTML and PDF in build/book/.

  book.py build [--out DIR]     render (default DIR: build/book)
  book.py markdown              write the generated pandoc Markdown to stdout

The pipeline:

  spec.nw chapters/*.nw (tangle.conf order)
    -> markup -t | autodefs | finduses -noquote | noidx     (tools/nwbook.py)
    -> pandoc Markdown (this file): doc chunks as written, [[code]] as
       inline code, each code chunk a div whose id is its noidx label, with
       its name, "used in / continued in / defines / uses" links, the lines
       of tangled/ it became and the requirements it meets; requirement
       blocks with their chunks, checks and last result; then the generated
       parts: worked example, figures and the performance appendix (hooks
       in book/), traceability matrix, the patches line by line, the chunk
       and identifier indexes, the colophon
    -> pandoc --toc -N --section-divs -> book.html (+ a post-pass that links
       chunk uses and identifiers inside the highlighted code)
    -> pandoc -> LaTeX (+ the same post-pass for chunk uses) -> pdflatex
       -> book.pdf

Warnings of every stage (noweb, pandoc, LaTeX apart from over- and underfull
boxes) are printed and written to build/book/build.json, which
tools/book_check.py turns into the check book.build.
"""

import datetime
import html
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "tools"))
sys.path.insert(0, os.path.join(TOP, "book"))
import booktrace  # noqa: E402
import nwbook  # noqa: E402
import nwconf  # noqa: E402

PANDOC = "pandoc"
PDFLATEX = "pdflatex"
BOOKDIR = os.path.join(TOP, "book")

LANG_CLASS = {"c": "c", "makefile": "makefile", "bash": "bash", "python": "python",
              "kconfig": "kconfig", "text": "text", "editscript": "editscript"}
PLACEHOLDER = "NWUSEQ{:05d}Z"
PLACEHOLDER_RE = re.compile(r"NWUSEQ(\d{5})Z")


# ---------------------------------------------------------------------------
# Markdown helpers

# A paragraph in small type, ragged right, in the PDF (nothing in HTML).
SMALL = "`\\begingroup\\footnotesize\\raggedright{}`{=latex}"
END_SMALL = "`\\par\\endgroup`{=latex}"

PUNCT = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def esc(s):
    """Text that pandoc Markdown reads back literally."""
    return "".join("\\" + ch if ch in PUNCT else ch for ch in s)


def code(s):
    """Inline code with a fence longer than any backtick run inside."""
    run = max((len(m) for m in re.findall(r"`+", s)), default=0)
    fence = "`" * (run + 1)
    pad = " " if s.startswith("`") or s.endswith("`") or not s.strip() else ""
    return f"{fence}{pad}{s}{pad}{fence}"


QUOTED = re.compile(r"\[\[(.*?)\]\](?!\])")


def name_parts(name):
    """Split a chunk name into [("text", s) | ("code", s)] at its [[...]]."""
    parts, pos = [], 0
    for m in QUOTED.finditer(name):
        if m.start() > pos:
            parts.append(("text", name[pos:m.start()]))
        parts.append(("code", m.group(1)))
        pos = m.end()
    if pos < len(name):
        parts.append(("text", name[pos:]))
    return parts


def name_md(name):
    return "".join(code(s) if k == "code" else esc(s) for k, s in name_parts(name))


def md_inline(text):
    """A requirement's text (pandoc Markdown from a doc chunk, one line):
    [[code]] becomes inline code, the rest is kept as Markdown."""
    return "".join(code(s) if k == "code" else s for k, s in name_parts(text))


def name_html(name):
    return "".join(f"<code>{html.escape(s)}</code>" if k == "code" else html.escape(s)
                   for k, s in name_parts(name))


def tex_verb_escape(s):
    """Escape for text inside pandoc's Highlighting (commandchars=\\\\\\{\\})."""
    return s.replace("\\", "\\textbackslash{}").replace("{", "\\{").replace("}", "\\}") \
        .replace("\\textbackslash\\{\\}", "\\textbackslash{}")


def name_tex_verb(name):
    out = []
    for k, s in name_parts(name):
        e = tex_verb_escape(s)
        out.append(f"\\texttt{{{e}}}" if k == "code" else f"\\textrm{{\\textit{{{e}}}}}")
    return "".join(out)


def slug(s):
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", s).strip("-") or "x"


def ident_anchor(name):
    return "ident-" + slug(name)


def out_anchor(path):
    base = os.path.basename(path)
    m = re.match(r"^(\d{4})-", base)
    return "out-" + (m.group(1) if m else slug(base))


def status_md(st):
    cls = {"pass": "pass", "fail": "fail", "skip": "skip", "gap": "gap",
           "not run": "notrun", "accepted gap": "accepted", "partly skipped": "skip",
           None: "notrun"}.get(st, "notrun")
    return f"[{esc(st or 'not in the last run')}]{{.st .st-{cls}}}"


# ---------------------------------------------------------------------------
# The renderer

class Renderer:
    def __init__(self, top, outdir):
        self.top = top
        self.outdir = outdir
        self.conf = nwconf.load(os.path.join(top, "tangle.conf"))
        self.warnings = []          # (stage, message)
        self.book, self.raw = nwbook.front_end(self.conf.sources, self.conf, cwd=top)
        for w in self.book.warnings:
            self.warn("noweb", w)
        self.outs = booktrace.trace_outputs(top, self.conf, self.book)
        self.loc = booktrace.locations(self.outs)
        self.report, self.report_path = booktrace.load_report(top)
        try:
            self.traces = booktrace.requirements(self.conf, self.book, self.report, top)
        except ValueError as e:
            self.warn("book", f"requirement blocks: {e}")
            self.traces = []
        for c in self.book.chunks:
            for line in c.lines:
                for p in line:
                    if p[0] == "use" and p[1] not in self.book.defs:
                        self.warn("noweb", f"{c.src}:{c.line}: <<{c.name}>> uses "
                                  f"<<{p[1]}>>, which no chunk defines")
        self.uses = {}              # placeholder number -> (target, use label, name)
        self.req_by_label = {}      # definition label -> [requirement ids]
        for t in self.traces:
            for name, labels in t.chunks:
                for lab in labels:
                    self.req_by_label.setdefault(lab, []).append(t.req.id)
        self.trace_by_id = {t.req.id: t for t in self.traces}
        self.roots = {}
        for i, c in enumerate(self.conf.patches):
            self.roots[c] = f"patch {i + 1} of the series"
        for out, c in self.conf.files:
            self.roots[c] = f"the file tangled/{out}"
        if self.conf.cover:
            self.roots[self.conf.cover] = "the cover letter of the series"
        self.out_by_root = {o.root: o for o in self.outs}
        self.ident_def = {}
        for name, defs, _ in self.book.ident_index:
            if defs:
                self.ident_def[name] = defs[0]

    def warn(self, stage, msg):
        self.warnings.append((stage, msg))

    # -- references ----------------------------------------------------------

    def chunk_ref(self, label, short=False):
        c = self.book.by_label.get(label)
        if c is None:
            return esc(label)
        if short:
            return f"[{c.number}](#{label})"
        return f"[⟨{name_md(c.name)} {c.number}⟩](#{label})"

    def where(self, label, link=True):
        """'0001 lines 61–64' for the lines a definition became."""
        parts = []
        for o in self.outs:
            nos = self.loc.get(label, {}).get(o.path)
            if not nos:
                continue
            rs = booktrace.ranges(nos)
            short = os.path.basename(o.path)
            txt = f"{esc(short)} lines {booktrace.fmt_ranges(rs)}"
            parts.append(f"[{txt}](#{out_anchor(o.path)}-L{rs[0][0]})" if link else txt)
        return parts

    # -- doc chunks ----------------------------------------------------------

    def docs_md(self, d, state):
        out = []
        for line in d.lines:
            raw = "".join(f"[[{s}]]" if k == "quote" else s for k, s in line)
            if raw.startswith("::: {.requirement"):
                out.extend(self.requirement_head(raw))
                state["req"] = raw
                continue
            if state.get("req") and raw.strip() == ":::":
                out.extend(self.requirement_foot(state["req"]))
                state["req"] = None
                out.append(":::")
                continue
            s, ticks = "", 0
            for k, text in line:
                if k == "text":
                    s += text
                    ticks += len(re.findall(r"(?<!\\)`", text))
                elif ticks % 2:
                    s += text           # already inside a code span
                else:
                    s += code(text)
            out.append(s)
        return out

    def req_of(self, raw):
        m = re.match(r"^::: \{\.requirement #req-([A-Za-z0-9-]+)", raw)
        return self.trace_by_id.get(m.group(1)) if m else None

    def requirement_head(self, raw):
        t = self.req_of(raw)
        if t is None:
            self.warn("book", f"requirement block not understood: {raw[:80]}")
            return ["::: {.requirement}"]
        r = t.req
        src = f" · {esc(r.source)}" if r.source else ""
        return [f"::: {{#req-{r.id} .requirement}}",
                "```{=latex}", "\\begin{leftbar}", "```", "",
                f"[**Requirement [{esc(r.id)}](#trace-req-{r.id})**{src}]{{.req-head}}",
                ""]

    def requirement_foot(self, raw):
        t = self.req_of(raw)
        if t is None:
            return []
        chunks = [self.chunk_ref(labels[0]) for _, labels in t.chunks]
        chunks += [f"{code(n)} (no such chunk)" for n in t.unknown]
        checks = [f"{code(cid)} ({status_md(st)})" for cid, st, _ in t.checks]
        lines = ["", "::: req-foot"]
        lines.append(SMALL + "Implemented by: " + ("; ".join(chunks) if chunks else
                                                    "no chunk (gap)") + "\\")
        lines.append("Tested by: " + ("; ".join(checks) if checks else "no check (gap)")
                     + "\\")
        acc = f" (accepted: {esc(t.req.accepted)})" if t.req.accepted else ""
        lines.append(f"Last run: {status_md(t.status)}{acc}; "
                     f"[traceability](#trace-req-{t.req.id})" + END_SMALL)
        lines.append(":::")
        lines += ["", "```{=latex}", "\\end{leftbar}", "```", ""]
        return lines

    # -- code chunks ---------------------------------------------------------

    def chunk_md(self, c):
        lang = self.book.langs.get(c.label, "c")
        body = []
        for line in c.lines:
            s = ""
            for p in line:
                if p[0] == "use":
                    n = len(self.uses) + 1
                    self.uses[n] = (p[2], p[3], p[1])
                    s += PLACEHOLDER.format(n)
                else:
                    s += p[1]
            body.append(s.expandtabs(8))
        fence = "~" * max(4, 1 + max((len(m) for ln in body
                                      for m in re.findall(r"~+", ln)), default=0))
        op = "+≡" if c.continued else "≡"
        out = ["", "```{=latex}", "\\needspace{6\\baselineskip}", "```", "",
               f"::: {{#{c.label} .chunk}}",
               f"[[⟨{name_md(c.name)} {c.number}⟩](#{c.label})"
               f"{esc(op)}]{{.chunk-head}}", "",
               f"{fence} {{.{LANG_CLASS.get(lang, 'text')} .chunk-code}}"]
        out += body
        out += [fence, ""]
        out += self.chunk_xref(c)
        out += [":::", ""]
        return out

    def chunk_xref(self, c):
        items = []
        if c.prevdef:
            items.append(f"Continues {self.chunk_ref(c.prevdef)}.")
        if c.nextdef:
            items.append(f"Continued in {self.chunk_ref(c.nextdef)}.")
        if c.usedin:
            items.append("Used in " + ", ".join(self.chunk_ref(u) for u in c.usedin) + ".")
        elif c.root or c.name in self.roots:
            what = self.roots.get(c.name)
            o = self.out_by_root.get(c.name)
            if what and o:
                items.append(f"Root chunk: {esc(what)}, "
                             f"[{esc(o.path)}](#{out_anchor(o.path)}).")
            elif what:
                items.append(f"Root chunk: {esc(what)}.")
            else:
                items.append("Root chunk, named in no line of tangle.conf.")
        if c.defines:
            items.append("Defines " + ", ".join(
                f"[{code(i)}](#{ident_anchor(i)})" for i in c.defines) + ".")
        used = []
        for ident, lab in c.uses:
            if ident in c.defines or lab == c.label:
                continue
            used.append(f"[{code(ident)}](#{lab})")
        if used:
            items.append("Uses " + ", ".join(used) + ".")
        wh = self.where(c.label)
        if wh:
            items.append("Tangles to " + "; ".join(wh) + ".")
        rq = self.req_by_label.get(c.label)
        if rq:
            items.append("Meets " + ", ".join(
                f"[{esc(r)}](#req-{r})" for r in rq) + ".")
        items.append(f"Source: {esc(c.src)}:{c.line}.")
        items[0] = SMALL + items[0]
        items[-1] += END_SMALL
        return ["::: chunk-xref"] + [i + "\\" for i in items[:-1]] + [items[-1], ":::"]

    # -- the whole book ------------------------------------------------------

    def markdown(self):
        out = []
        state = {}
        src = None
        for part in self.book.parts:
            if part.src != src and out:
                out += ["", ""]       # a file ends a paragraph
            src = part.src
            if isinstance(part, nwbook.Chunk):
                out += self.chunk_md(part)
            else:
                out += self.docs_md(part, state)
        if state.get("req"):
            self.warn("book", "a requirement block is not closed with ':::'")
        out += self.generated()
        return "\n".join(out) + "\n"

    def generated(self):
        ctx = {"top": self.top, "outdir": self.outdir, "report": self.report,
               "report_path": self.report_path, "esc": esc, "code": code}
        out = []
        # performance (make bench's appendix) draws after figures, which
        # clears the figures directory first.
        for modname in ("worked_example", "figures", "performance"):
            try:
                mod = __import__(modname)
                md, notes = mod.render(ctx)
            except Exception as e:   # a hook must never stop the book
                md = (f"# {esc(modname.replace('_', ' ').capitalize())} {{-}}\n\n"
                      f"::: placeholder\nThis part could not be generated: "
                      f"{esc(type(e).__name__)}: {esc(str(e)[:300])}\n:::\n")
                notes = [f"{modname}: {type(e).__name__}: {e}"]
            for n in notes:
                self.warn(modname, n)
            out += ["", md, ""]
        out += self.matrix()
        out += self.patch_lines()
        out += self.chunk_index()
        out += self.ident_index()
        out += self.colophon()
        return out

    # -- traceability --------------------------------------------------------

    def run_summary(self):
        rep = self.report
        out = []
        if rep is None:
            out += ["::: placeholder",
                    "**No run yet.** There is no `build/conformance/report.json`: "
                    "`make conform` writes it.  The matrix below shows every "
                    "requirement with its chunks and checks, and no results.",
                    ":::", ""]
            return out
        k = rep.get("kernel", {})
        boots = rep.get("boots", [])
        s = rep.get("summary", {})
        accel = sorted({b.get("accel", "?") for b in boots})
        out += ["| the run | |", "|--|----|",
                f"| started | {esc(str(rep.get('started', '?')))} |",
                f"| kernel release | {code(str(k.get('release', '?')))} |",
                f"| base package | {esc(str(k.get('base', '?')))} |",
                f"| series head | {code(str(k.get('series_head', '?'))[:12])} |",
                f"| kernel .config sha256 | {code(str(k.get('config_sha256', '?'))[:16])}… |",
                f"| boots | {esc(', '.join(b.get('name', '?') for b in boots)) or 'none'}"
                f" (accelerator: {esc(', '.join(accel)) or '?'}) |",
                f"| checks | {s.get('passed', 0)} passed, {s.get('failed', 0)} failed, "
                f"{s.get('skipped', 0)} skipped |", ""]
        now = booktrace.tangled_hashes(self.top)
        then = rep.get("tangled", {})
        out += ["The run tested these files of `tangled/` (sha256); the last "
                "column compares them with the files this book was rendered "
                "with.", "",
                "| file | sha256 in the run | same as now |", "|------|----|---|"]
        stale = 0
        for path in sorted(set(now) | set(then)):
            a, b = then.get(path), now.get(path)
            same = "yes" if a and a == b else ("not in the run" if not a else
                                                "absent now" if not b else "**no**")
            if same != "yes":
                stale += 1
            out.append(f"| {esc(path)} | {code(a[:16]) + '…' if a else '–'} | {same} |")
        out.append("")
        if stale:
            out += ["::: warning",
                    f"**{stale} file(s) of `tangled/` differ from the ones the last "
                    "run tested**: its results are for another version of the "
                    "series.  Run `make conform` again.", ":::", ""]
        return out

    def matrix(self):
        out = ["", "# Traceability matrix {- #traceability}", "",
               "Each requirement of the book, the chunks that implement it, the "
               "lines of `tangled/` they became, the checks that test it and the "
               "result of the last `make conform`.  A requirement with no chunk "
               "or no check is a *gap*; `make book-check` fails on a gap that "
               "is not accepted with a reason.", "",
               "## The last run {- #trace-run}", ""]
        out += self.run_summary()
        out += ["## Summary {- #trace-summary}", "",
                "| requirement | source | chunks | checks | last run |",
                "|------|----|-----|--|----|"]
        for t in self.traces:
            chunks = ", ".join(self.chunk_ref(labels[0], short=True)
                               for _, labels in t.chunks) or "–"
            if t.unknown:
                chunks += f" + {len(t.unknown)} unknown"
            out.append(f"| [{esc(t.req.id)}](#trace-req-{t.req.id}) | "
                       f"{esc(t.req.source) or '–'} | {chunks} | {len(t.checks)} | "
                       f"{status_md(t.status)} |")
        if not self.traces:
            out.append("| (no requirement blocks in the book) | | | | |")
        out += ["", "## Requirement by requirement {- #trace-detail}", ""]
        for t in self.traces:
            r = t.req
            out += [f"### {esc(r.id)} {{- #trace-req-{r.id}}}", "",
                    f"{md_inline(r.text)} ([in the text](#req-{r.id}); "
                    f"source: {esc(r.source) or '–'}; {esc(r.where)})", ""]
            for name, labels in t.chunks:
                wh = []
                for lab in labels:
                    wh += self.where(lab)
                out.append(f"- chunk {self.chunk_ref(labels[0])}: " +
                           ("; ".join(wh) if wh else "not found in `tangled/`"))
            for name in t.unknown:
                out.append(f"- chunk {code(name)}: **no chunk has this name**")
            if not r.impl:
                out.append("- **gap: no chunk implements it**")
            for cid, st, c in t.checks:
                title = f" – {esc(c['title'])}" if c and c.get("title") else ""
                reason = f" ({esc(c['reason'][:200])})" if c and c.get("reason") else ""
                out.append(f"- check {code(cid)}{title}: {status_md(st)}{reason}")
            if not r.tests:
                out.append("- **gap: no check tests it**")
            if r.accepted:
                out.append(f"- accepted gap: {esc(r.accepted)}")
            out += ["", f"Result: {status_md(t.status)}", ""]
        return out

    def patch_lines(self):
        out = ["", "# The patches, line by line {- #patches-line-by-line}", "",
               "Every line of every file in `tangled/`, by line number: the chunk "
               "it comes from (the innermost one; the chunks that use it are "
               "listed under it in the book) and the requirements that chunk "
               "or its users meet.  *Context* lines are the pristine kernel's; "
               "*generated* lines are written by `git format-patch` and "
               "`tools/series.py` (mail headers, sign-off, diffstat, hunk "
               "headers).", ""]
        if not self.outs:
            out += ["::: placeholder", "`tangled/` holds no files yet "
                    "(`make tangle` writes them).", ":::", ""]
        for o in self.outs:
            counts = {k: o.count(k) for k in ("book", "context", "generated", "untraced")}
            root = (f"from the root chunk {self.chunk_ref(self.book.defs[o.root][0].label)}"
                    if o.root in self.book.defs else "which the book no longer makes")
            out += [f"## {esc(os.path.basename(o.path))} {{- #{out_anchor(o.path)}}}", "",
                    f"{esc(o.title.capitalize())}, {root}: "
                    f"{len(o.lines)} lines, {counts['book']} from the book, "
                    f"{counts['context']} context, {counts['generated']} generated"
                    + (f", **{counts['untraced']} not produced by the book** "
                       "(run `make tangle`)" if counts["untraced"] else "") + ".", "",
                    "| lines | from | meets |", "|--|--------|------|"]
            for a, z, kind, lab in booktrace.innermost_runs(o):
                rng = f"{a}" if a == z else f"{a}–{z}"
                anchor = f"[{rng}]{{#{out_anchor(o.path)}-L{a}}}"
                if kind == "book" and lab:
                    stack = next(ln.stack for ln in o.lines if ln.no == a)
                    reqs = []
                    for s in stack:
                        for r in self.req_by_label.get(s, []):
                            if r not in reqs:
                                reqs.append(r)
                    out.append(f"| {anchor} | {self.chunk_ref(lab)} | " +
                               (", ".join(f"[{esc(r)}](#req-{r})" for r in reqs) or "–")
                               + " |")
                else:
                    what = {"context": "context (pristine kernel)",
                            "removed": "removed (pristine kernel)",
                            "generated": "generated", "untraced": "**not from the book**",
                            "book": "the book"}[kind]
                    out.append(f"| {anchor} | {what} | |")
            out.append("")
        return out

    def chunk_index(self):
        out = ["", "# Index of chunks {- #index-chunks}", "",
               "Every chunk name, in alphabetical order, with the chunks that "
               "define it and the chunks that use it.", ""]
        for first, name, uses, defs in self.book.chunk_index:
            ds = ", ".join(self.chunk_ref(d, short=True) for d in defs)
            us = ", ".join(self.chunk_ref(u, short=True) for u in uses)
            root = f"; {esc(self.roots[name])}" if name in self.roots else ""
            out.append(f"- ⟨{name_md(name)}⟩: defined in {ds or '–'}"
                       + (f"; used in {us}" if us else "; used nowhere" + root if not root
                          else root) + ".")
        out.append("")
        return out

    def ident_index(self):
        out = ["", "# Index of identifiers {- #index-identifiers}", "",
               "The C functions, structures, macros, variables and Kconfig "
               "options the book defines, found in the chunks by the book's "
               "own `autodefs` (`tools/nwbook.py`) and cross-referenced by "
               "noweb's `finduses` and `noidx`: where each is defined and "
               "the chunks that use it.", "",
               "| identifier | kind | defined in | used in |", "|------|--|--------|----|"]
        for name, defs, uses in self.book.ident_index:
            kind = self.book.kinds.get(name, "identifier")
            ds = ", ".join(self.chunk_ref(d) for d in defs)
            us = ", ".join(self.chunk_ref(u, short=True) for u in uses if u not in defs)
            out.append(f"| [{code(name)}]{{#{ident_anchor(name)}}} | {esc(kind)} | "
                       f"{ds or '–'} | {us or '–'} |")
        if not self.book.ident_index:
            out.append("| (none) | | | |")
        out.append("")
        return out

    # -- colophon ------------------------------------------------------------

    def colophon(self):
        def dpkg(pkg):
            try:
                r = subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg],
                                   capture_output=True, text=True)
                return r.stdout.strip() if r.returncode == 0 and r.stdout.strip() \
                    else "not installed"
            except OSError:
                return "unknown"

        def first_line(cmd):
            try:
                r = subprocess.run(cmd, capture_output=True, text=True)
                return (r.stdout or r.stderr).strip().splitlines()[0]
            except (OSError, IndexError):
                return "not found"

        pkgs = [("noweb", "noweb", ""),      # noweb prints no version of its own
                ("pandoc", "pandoc", first_line([PANDOC, "--version"])),
                ("gcc", "gcc-12", first_line(["gcc", "--version"])),
                ("QEMU", "qemu-system-x86", first_line(["qemu-system-x86_64", "--version"])),
                ("kernel source", self.conf.base_package, ""),
                ("kernel config", "linux-config-6.1", ""),
                ("git", "git", ""),
                ("Python", "python3", sys.version.split()[0]),
                ("matplotlib", "python3-matplotlib", ""),
                ("LaTeX", "texlive-latex-recommended", first_line([PDFLATEX, "--version"])),
                ("Chromium", "chromium", "")]
        ran = (self.report or {}).get("packages", {})
        rows = ["Versions installed where this book was rendered, and (last "
                "column) those `build/conformance/report.json` recorded for the "
                "last run, which may have been on another machine.", "",
                "| tool | Debian package | version here | reports itself as | in the last run |",
                "|--|---|---|----|---|"]
        for tool, pkg, selfv in pkgs:
            rows.append(f"| {esc(tool)} | {code(pkg)} | {code(dpkg(pkg))} | "
                        f"{esc(selfv) or '–'} | "
                        f"{code(ran[pkg]) if pkg in ran else '–'} |")
        srcs = " ".join(shlex.quote(s) for s in self.conf.sources)
        cmds = ["# the packages (make deps does this; the kernel source is pinned):",
                "tools/deps.sh build",
                "# then either",
                "make tangle",
                "# or, spelled out, what make tangle does:",
                "/usr/bin/python3 tools/nw.py lint"]
        for out_, chunk in self.conf.files:
            cmds.append(f"notangle -t8 -R{shlex.quote(chunk)} {srcs} > "
                        f"tangled/{shlex.quote(out_)}")
        cmds.append("mkdir -p build/tangle/edits")
        for i, chunk in enumerate(self.conf.patches, 1):
            cmds.append(f"notangle -t8 -R{shlex.quote(chunk)} {srcs} > "
                        f"build/tangle/edits/{i:04d}.edits")
        if self.conf.cover:
            cmds.append(f"notangle -t8 -R{shlex.quote(self.conf.cover)} {srcs} > "
                        "build/tangle/edits/cover.txt")
        cmds.append("/usr/bin/python3 tools/series.py build/tangle/edits tangled/patches")
        fence = "~~~~"
        git = {}
        for key, cmd in (("commit", ["git", "rev-parse", "HEAD"]),
                         ("dirty", ["git", "status", "--porcelain"])):
            try:
                git[key] = subprocess.run(cmd, capture_output=True, text=True,
                                          cwd=self.top).stdout.strip()
            except OSError:
                git[key] = ""
        when = os.environ.get("SOURCE_DATE_EPOCH")
        stamp = (datetime.datetime.fromtimestamp(int(when), datetime.timezone.utc)
                 if when else datetime.datetime.now(datetime.timezone.utc))
        state = " with uncommitted changes" if git.get("dirty") else ""
        out = ["", "# Colophon {- #colophon}", "",
               f"This book was rendered on {stamp.strftime('%Y-%m-%d %H:%M UTC')} "
               f"from commit {code(git.get('commit', '?')[:12] or '?')}{state} "
               f"by `make book` (`tools/book.py`), from {len(self.conf.sources)} "
               f"noweb sources in the order of `tangle.conf`: "
               + ", ".join(code(s) for s in self.conf.sources) + ".", "",
               "## Tools {- #colophon-tools}", ""] + rows + [
               "", "## Regenerating tangled/ from this book {- #colophon-tangle}", "",
               "`make tangle` regenerates `tangled/` from the noweb sources; "
               "`make drift` checks that the committed files are what it makes, "
               "byte for byte.  On Debian 12 (bookworm, amd64), from a checkout "
               "of this book's commit, with the pinned kernel source package "
               f"{code(self.conf.base_package + '=' + self.conf.base_version)} "
               "(`tools/series.py` imports its tarball into a git tree in the "
               "kernel cache, `~/.cache/literate-drbg` unless `KCACHE` says "
               "otherwise, and commits each patch there with the identity and "
               "date of `tangle.conf`):", "",
               fence + " {.bash}"] + cmds + [fence, "",
               "`tools/nw.py tangle` runs these `notangle` commands through a "
               "temporary file each (a failed one leaves no partial output) and "
               "refuses output with trailing blanks.  "
               "Each `notangle` writes one root chunk; the edit scripts say where "
               "each chunk goes in the kernel tree (the chapter on the pipeline "
               "describes their language), and `series.py` applies them one "
               "patch at a time and runs `git format-patch --no-signature "
               "--abbrev=12`.", "",
               "## How this book was made {- #colophon-render}", "",
               "noweb's front end (`markup -t`, then the book's `autodefs`, "
               "`finduses -noquote`, `noidx`) reads the sources; "
               "`tools/book.py` writes pandoc Markdown with one anchor per chunk "
               "(noidx's label); pandoc writes HTML and LaTeX; `pdflatex` "
               "writes the PDF.  `make book-check` checks that the build has no "
               "warnings, that every link resolves, that every chunk is in "
               "the HTML, that Chromium loads the page without a console "
               "error, and that every requirement has a chunk and a check.", ""]
        if not self.sources_exist("tangled/patches/series"):
            out += ["`tangled/` holds no series yet.", ""]
        return out

    def sources_exist(self, rel):
        return os.path.exists(os.path.join(self.top, rel))


# ---------------------------------------------------------------------------
# pandoc, the HTML post-pass, LaTeX

def pandoc(args, md, stage, warn):
    r = subprocess.run([PANDOC] + args, input=md, capture_output=True, text=True)
    for w in r.stderr.splitlines():
        if w.strip():
            warn(stage, w.strip())
    if r.returncode != 0:
        raise SystemExit(f"book: pandoc ({stage}) failed: {r.stderr.strip()[:500]}")
    return r.stdout


def html_post(text, rd):
    """Link chunk uses and identifiers inside the highlighted code."""
    book = rd.book

    def use_html(m):
        n = int(m.group(1))
        target, use_label, name = rd.uses[n]
        c = book.by_label.get(target)
        num = f" {c.number}" if c else ""
        idattr = f' id="{html.escape(use_label)}"' if use_label else ""
        return (f'<a class="chunk-use"{idattr} href="#{html.escape(target or "")}">'
                f'⟨{name_html(name)}{num}⟩</a>')

    text = PLACEHOLDER_RE.sub(use_html, text)
    idents = {n: lab for n, lab in rd.ident_def.items()}
    if not idents:
        return text
    ident_re = re.compile(r"(?<![\w#])(" + "|".join(
        re.escape(n) for n in sorted(idents, key=len, reverse=True)) + r")(?!\w)")
    out = []
    pos = 0
    chunk_re = re.compile(r'<div id="([^"]+)" class="chunk">')
    pre_re = re.compile(r"(<pre[^>]*>)(.*?)(</pre>)", re.S)
    current = None
    for m in pre_re.finditer(text):
        before = text[pos:m.start()]
        for cm in chunk_re.finditer(before):
            current = cm.group(1)
        if current is not None and '<div class="chunk-xref">' in before:
            # The last chunk's notes came after its code: this <pre> is
            # outside any chunk (unless a new chunk began after them).
            last_x = before.rfind('<div class="chunk-xref">')
            last_c = max((cm.start() for cm in chunk_re.finditer(before)), default=-1)
            if last_c < last_x:
                current = None
        out.append(before)
        body = m.group(2)
        parts = re.split(r"(<[^>]+>)", body)
        depth_a = 0
        for i, p in enumerate(parts):
            if p.startswith("<"):
                if re.match(r"<a[\s>]", p):
                    depth_a += 1
                elif p.startswith("</a"):
                    depth_a -= 1
                continue
            if depth_a or current is None:
                continue
            parts[i] = ident_re.sub(
                lambda im: im.group(1) if idents[im.group(1)] == current else
                f'<a class="ident" href="#{idents[im.group(1)]}">{im.group(1)}</a>', p)
        out.append(m.group(1) + "".join(parts) + m.group(3))
        pos = m.end()
    out.append(text[pos:])
    return "".join(out)


def tex_post(text, rd):
    """Link chunk uses inside the highlighted code.  Verbatim makes '-'
    active, so links from inside code go to a second target per chunk,
    nwchunkN, set beside the one pandoc makes from the noidx label."""
    def use_tex(m):
        n = int(m.group(1))
        target, _, name = rd.uses[n]
        c = rd.book.by_label.get(target)
        num = f" {c.number}" if c else ""
        dest = f"nwchunk{c.number}" if c else "nwchunk0"
        return (f"\\hyperlink{{{dest}}}{{\\ensuremath{{\\langle}}"
                f"{name_tex_verb(name)}\\textrm{{\\textit{{{num}}}}}"
                f"\\ensuremath{{\\rangle}}}}")

    def alias(m):
        c = rd.book.by_label.get(m.group(1))
        extra = f"\\hypertarget{{nwchunk{c.number}}}{{}}" if c else ""
        return m.group(0) + extra
    text = re.sub(r"\\hypertarget\{([^}]+)\}\{\}", alias, text)
    return PLACEHOLDER_RE.sub(use_tex, text)


# Characters pdflatex (T1, utf8) lacks, and what to print instead.
UNICODE_TEX = {
    "⟨": r"\ensuremath{\langle}", "⟩": r"\ensuremath{\rangle}", "≡": r"\ensuremath{\equiv}",
    "→": r"\ensuremath{\rightarrow}", "←": r"\ensuremath{\leftarrow}", "↦": r"\ensuremath{\mapsto}",
    "↔": r"\ensuremath{\leftrightarrow}", "⇒": r"\ensuremath{\Rightarrow}",
    "≤": r"\ensuremath{\leq}", "≥": r"\ensuremath{\geq}", "≠": r"\ensuremath{\neq}",
    "≈": r"\ensuremath{\approx}", "×": r"\ensuremath{\times}", "−": r"\ensuremath{-}",
    "±": r"\ensuremath{\pm}", "·": r"\ensuremath{\cdot}", "∞": r"\ensuremath{\infty}",
    "∈": r"\ensuremath{\in}", "⊕": r"\ensuremath{\oplus}", "‖": r"\ensuremath{\|}",
    "∑": r"\ensuremath{\sum}", "√": r"\ensuremath{\surd}", "∧": r"\ensuremath{\wedge}",
    "∨": r"\ensuremath{\vee}", "¬": r"\ensuremath{\neg}", "⌊": r"\ensuremath{\lfloor}",
    "⌋": r"\ensuremath{\rfloor}", "⌈": r"\ensuremath{\lceil}", "⌉": r"\ensuremath{\rceil}",
    "✓": r"\ensuremath{\checkmark}", "✗": r"\ensuremath{\times}", "…": r"\ldots{}",
    "′": r"\ensuremath{'}", "″": r"\ensuremath{''}", "•": r"\textbullet{}",
    "‐": "-", "‑": "-", "‒": "--", "\u200b": r"\hspace{0pt}", "\u00a0": "~",
    "µ": r"\ensuremath{\mu}", "²": r"\textsuperscript{2}", "³": r"\textsuperscript{3}",
    "½": r"\ensuremath{\frac12}", "≪": r"\ensuremath{\ll}", "≫": r"\ensuremath{\gg}",
    "α": r"\ensuremath{\alpha}", "β": r"\ensuremath{\beta}", "γ": r"\ensuremath{\gamma}",
    "δ": r"\ensuremath{\delta}", "Δ": r"\ensuremath{\Delta}", "ε": r"\ensuremath{\varepsilon}",
    "λ": r"\ensuremath{\lambda}", "μ": r"\ensuremath{\mu}", "π": r"\ensuremath{\pi}",
    "σ": r"\ensuremath{\sigma}", "Σ": r"\ensuremath{\Sigma}", "τ": r"\ensuremath{\tau}",
    "χ": r"\ensuremath{\chi}", "ω": r"\ensuremath{\omega}", "Ω": r"\ensuremath{\Omega}",
    "ϵ": r"\ensuremath{\epsilon}", "θ": r"\ensuremath{\theta}", "ρ": r"\ensuremath{\rho}",
}


def unicode_preamble(text, warn):
    """\\DeclareUnicodeCharacter for what T1 lacks; a visible stand-in (and a
    warning) for characters nobody has thought of."""
    lines = []
    for ch in sorted(set(text)):
        if ord(ch) < 0x250 and ch not in UNICODE_TEX:
            continue
        if ch in "–—‘’“”€":
            continue
        rep = UNICODE_TEX.get(ch)
        if rep is None:
            rep = f"\\textrm{{[U+{ord(ch):04X}]}}"
            warn("latex", f"character U+{ord(ch):04X} ({ch}) has no PDF glyph; "
                 "printed as [U+{:04X}] (add it to UNICODE_TEX in tools/book.py)"
                 .format(ord(ch)))
        lines.append(f"\\DeclareUnicodeCharacter{{{ord(ch):04X}}}{{{rep}}}")
    return "\n".join(lines) + "\n"


LATEX_WARNING = re.compile(r"^(?:LaTeX|Package|Class|pdfTeX)\b.*Warning|^! ")
BOX = re.compile(r"^(?:Overfull|Underfull) \\[hv]box")


def latex_warnings(log):
    """[(kind, message)] from a LaTeX log: kind 'link' for undefined
    references and destinations, 'warning' for the rest (boxes excluded)."""
    out = []
    lines = log.split("\n")
    for i, ln in enumerate(lines):
        if BOX.match(ln):
            continue
        if "pdfTeX warning" in ln:
            msg = ln.strip()
            if len(ln) >= 79 and i + 1 < len(lines) and lines[i + 1].strip():
                msg += lines[i + 1].strip()      # the log wraps at 79 columns
            out.append(("link" if "dest" in msg else "warning", msg))
            continue
        if LATEX_WARNING.search(ln):
            msg = ln.strip()
            j = i + 1
            while j < len(lines) and lines[j].startswith("(") and \
                    not lines[j].startswith("(./") and len(msg) < 400:
                msg += " " + lines[j].strip("() ").strip()
                j += 1
            kind = "link" if re.search(r"Reference .* undefined|There were undefined "
                                       r"references|Hyper reference", msg) else "warning"
            out.append((kind, msg))
    return out


def run_pdflatex(outdir, texname, warn):
    """pdflatex until the references settle; return [(kind, msg)] of the last run."""
    latexdir = os.path.join(outdir, "latex")
    log = ""
    for n in range(4):
        r = subprocess.run([PDFLATEX, "-interaction=nonstopmode", "-halt-on-error",
                            "-file-line-error", f"-output-directory={latexdir}",
                            os.path.join(latexdir, texname)],
                           cwd=outdir, capture_output=True, text=True,
                           errors="replace")
        logpath = os.path.join(latexdir, texname[:-4] + ".log")
        try:
            with open(logpath, errors="replace") as f:
                log = f.read()
        except OSError:
            log = r.stdout
        if r.returncode != 0:
            err = [ln for ln in log.split("\n")
                   if ln.startswith("! ") or re.match(r"^\S+\.tex:\d+: ", ln)]
            raise SystemExit("book: pdflatex failed: " + " | ".join(err[:5])[:800]
                             + f" (see {os.path.relpath(logpath, TOP)})")
        if not re.search(r"Rerun to get|Label\(s\) may have changed|"
                         r"rerunfilecheck Warning|undefined references", log) or n == 3:
            if n >= 1:
                break
    return latex_warnings(log)


def copy_assets(outdir):
    os.makedirs(outdir, exist_ok=True)
    shutil.copyfile(os.path.join(BOOKDIR, "book.css"), os.path.join(outdir, "book.css"))


def build(outdir):
    t0 = time.time()
    outdir = os.path.abspath(outdir)
    os.makedirs(os.path.join(outdir, "latex"), exist_ok=True)
    copy_assets(outdir)
    rd = Renderer(TOP, outdir)
    md = rd.markdown()
    with open(os.path.join(outdir, "book.md"), "w", encoding="utf-8") as f:
        f.write(md)
    common = ["-f", "markdown", "--toc", "--toc-depth=2", "-N", "--standalone",
              f"--highlight-style={os.path.join(BOOKDIR, 'highlight.theme')}",
              "--resource-path", outdir]
    html_text = pandoc(common + ["-t", "html5", "--section-divs", "--css", "book.css",
                                 "-M", "document-css=false",
                                 "--template", os.path.join(BOOKDIR, "template.html")],
                       md, "pandoc html", rd.warn)
    html_text = html_post(html_text, rd)
    with open(os.path.join(outdir, "book.html"), "w", encoding="utf-8") as f:
        f.write(html_text)
    pre = os.path.join(outdir, "latex", "unicode.tex")
    with open(pre, "w", encoding="utf-8") as f:
        f.write(unicode_preamble(md, rd.warn))
    tex = pandoc(common + ["-t", "latex", "--top-level-division=chapter",
                           "-H", os.path.join(BOOKDIR, "header.tex"), "-H", pre,
                           "-V", "documentclass=report", "-V", "classoption=notitlepage",
                           "-V", "papersize=a4",
                           "-V", "fontsize=10pt", "-V", "geometry=margin=2.2cm",
                           "-V", "colorlinks=true", "-V", "linkcolor=blue!50!black",
                           "-V", "urlcolor=blue!50!black", "-V", "toccolor=black"],
                 md, "pandoc latex", rd.warn)
    tex = tex_post(tex, rd)
    with open(os.path.join(outdir, "latex", "book.tex"), "w", encoding="utf-8") as f:
        f.write(tex)
    lw = run_pdflatex(outdir, "book.tex", rd.warn)
    shutil.copyfile(os.path.join(outdir, "latex", "book.pdf"),
                    os.path.join(outdir, "book.pdf"))
    for kind, msg in lw:
        rd.warn("latex-link" if kind == "link" else "latex", msg)
    info = {
        "seconds": round(time.time() - t0, 1),
        "sources": rd.conf.sources,
        "chunks": [{"label": c.label, "name": c.name, "number": c.number,
                    "src": f"{c.src}:{c.line}",
                    "first_line": next((ln for ln in c.text_lines() if ln.strip()), "")}
                   for c in rd.book.chunks],
        "requirements": [{"id": t.req.id, "status": t.status, "gaps": t.gaps,
                          "accepted": t.req.accepted, "unknown_chunks": t.unknown,
                          "checks": [[cid, st] for cid, st, _ in t.checks]}
                         for t in rd.traces],
        "outputs": [{"path": o.path, "lines": len(o.lines),
                     **{k: o.count(k) for k in ("book", "context", "generated",
                                                "removed", "untraced")}}
                    for o in rd.outs],
        "report": os.path.relpath(rd.report_path, TOP) if rd.report else None,
        "warnings": [{"stage": s, "message": m} for s, m in rd.warnings],
        "identifiers": len(rd.book.ident_index),
    }
    with open(os.path.join(outdir, "build.json"), "w", encoding="utf-8") as f:
        json.dump(info, f, indent=1)
    for s, m in rd.warnings:
        print(f"book: warning ({s}): {m}", file=sys.stderr)
    print(f"book: {len(rd.book.chunks)} chunks, {len(rd.traces)} requirements, "
          f"{len(rd.book.ident_index)} identifiers -> "
          f"{os.path.relpath(os.path.join(outdir, 'book.html'), TOP)}, "
          f"{os.path.relpath(os.path.join(outdir, 'book.pdf'), TOP)} "
          f"({len(rd.warnings)} warning(s), {info['seconds']} s)")
    return info


def main(argv):
    if argv[1:2] == ["build"]:
        out = os.path.join(TOP, "build/book")
        if "--out" in argv:
            out = argv[argv.index("--out") + 1]
        try:
            build(out)
        except nwbook.FrontEndError as e:
            print(f"book: noweb: {e}", file=sys.stderr)
            return 1
        return 0
    if argv[1:2] == ["markdown"]:
        rd = Renderer(TOP, os.path.join(TOP, "build/book"))
        sys.stdout.write(rd.markdown())
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
