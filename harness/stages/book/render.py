# SPDX-License-Identifier: GPL-2.0-only
"""The book's text: pandoc Markdown from the noweb sources.

  spec.nw chapters/*.nw (tangle.conf order)
    -> markup -t | autodefs | finduses -noquote | noidx    (base/nwbook.py)
    -> pandoc Markdown (this module): doc chunks as written, [[code]] as
       inline code, each code chunk a div whose id is its noidx label, with
       its name, "used in / continued in / defines / uses" links, the lines
       of tangled/ it became (trace.py) and the requirements it meets;
       requirement blocks with their chunks, checks and last result; then
       the generated parts: worked example, the ACVP run, figures, the performance
       appendix, traceability matrix, the patches line by line, the chunk
       and identifier indexes, the colophon.

output.py turns the Markdown into HTML and PDF.  Every part reads data
files only (report.json, bench.json, figures/*.json, book-data/*.json).
"""

import os
import re

from ...base import conf as confmod
from ...base import nwbook
from ...base.nwbook import Chunk
from . import (acvp, apparatus, assessor, colophon, entropy, figures, hardening, indexes,
               matrix, performance, runvalues, worked_example)
from . import trace as booktrace
from .md import (END_SMALL, LANG_CLASS, PLACEHOLDER, SMALL, code, esc, ident_anchor,
                 name_md, out_anchor, status_md)

# entropy and performance draw after figures, which clears the figures first.
PARTS = (worked_example, assessor, acvp, figures, entropy, hardening, performance)


class Renderer:
    def __init__(self, top, outdir):
        self.top = top
        self.outdir = outdir
        self.conf = confmod.load(os.path.join(top, "tangle.conf"))
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
                    text = runvalues.substitute(text, self.report,
                                                bool(booktrace.full_run(self.report)),
                                                self.warn, esc)
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
        clause = f" · {esc(r.clause)}" if r.clause else " · **no clause given**"
        src = f" · origin: {esc(r.source)}" if r.source else ""
        return [f"::: {{#req-{r.id} .requirement}}",
                "```{=latex}", "\\begin{leftbar}", "```", "",
                f"[**Requirement [{esc(r.id)}](#trace-req-{r.id})**{clause}{src}]"
                "{.req-head}", ""]

    def requirement_foot(self, raw):
        t = self.req_of(raw)
        if t is None:
            return []
        chunks = [self.chunk_ref(labels[0]) for _, labels in t.chunks]
        chunks += [f"{code(n)} (no such chunk)" for n in t.unknown]
        checks = [f"{code(x.id)} ({status_md(x.status)}"
                  + (f", {len(x.instances)} instances" if len(x.instances) > 1 else "")
                  + ")" for x in t.tests]
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
        # Room for the head and the whole chunk when it is short, for the
        # head and eight lines when it is long: no chunk starts at a page's
        # foot (book-check measures it, latex/book.pos).
        room = min(len(body), 8) + 4
        out = ["", "```{=latex}", f"\\needspace{{{room}\\baselineskip}}", "```", "",
               f"::: {{#{c.label} .chunk}}",
               f"`\\nwpos{{start}}{{{c.number}}}`{{=latex}}"
               f"[[⟨{name_md(c.name)} {c.number}⟩](#{c.label})"
               f"{esc(op)}]{{.chunk-head}}", "",
               f"{fence} {{.{LANG_CLASS.get(lang, 'text')} .chunk-code}}"]
        out += body
        out += [fence, "", "```{=latex}", f"\\nwpos{{end}}{{{c.number}}}", "```", ""]
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
        out = apparatus.front(self)
        state = {}
        src = None
        for part in self.book.parts:
            if part.src != src and out:
                out += ["", ""]       # a file ends a paragraph
            src = part.src
            if isinstance(part, Chunk):
                out += self.chunk_md(part)
            else:
                out += self.docs_md(part, state)
        if state.get("req"):
            self.warn("book", "a requirement block is not closed with ':::'")
        out += self.generated()
        md = "\n".join(out) + "\n"
        back = apparatus.glossary(self)
        back += apparatus.references(self, md + "\n".join(back))
        back += indexes.chunk_index(self) + indexes.ident_index(self) + colophon.colophon(self)
        return md + "\n".join(back) + "\n"

    def generated(self):
        ctx = {"top": self.top, "outdir": self.outdir, "report": self.report,
               "report_path": self.report_path, "esc": esc, "code": code}
        out = []
        # performance (make bench's appendix) draws after figures, which
        # clears the figures directory first.
        for mod in PARTS:
            name = mod.__name__.rsplit(".", 1)[-1]
            try:
                md, notes = mod.render(ctx)
            except Exception as e:   # a part must never stop the book
                md = (f"# {esc(name.replace('_', ' ').capitalize())} {{-}}\n\n"
                      f"::: placeholder\nThis part could not be generated: "
                      f"{esc(type(e).__name__)}: {esc(str(e)[:300])}\n:::\n")
                notes = [f"{name}: {type(e).__name__}: {e}"]
            for n in notes:
                self.warn(name, n)
            out += ["", md, ""]
        out += matrix.matrix(self)
        out += matrix.patch_lines(self)
        return out
