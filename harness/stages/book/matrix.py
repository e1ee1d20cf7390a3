# SPDX-License-Identifier: GPL-2.0-only
"""Book part: the traceability matrix and the patches line by line."""

import os

from . import trace as booktrace
from .md import breakable, code, esc, md_inline, out_anchor, status_md, table


def run_line(rep):
    """What run the evidence comes from, in one sentence (the title page
    and the matrix say it the same way)."""
    if rep is None:
        return "draft: no run (no `build/conformance/report.json`)"
    rid = rep.get("id") or "without an id"
    full = booktrace.full_run(rep)
    if not full:
        return (f"draft: no full run (report {code(rid)} of {esc(str(rep.get('started')))}"
                " is from `make conform` alone, without the host tests)")
    return (f"report {code(rid)}, `make check` started {esc(str(full.get('started')))}")


def run_summary(rd):
    rep = rd.report
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
    full = booktrace.full_run(rep)
    out += ["| the run | |", "|--|----|",
            f"| evidence | {run_line(rep)} |",
            f"| report id | {code(str(rep.get('id', '?')))} |",
            f"| conform started | {esc(str(rep.get('started', '?')))} |",
            "| host tests | " + ("merged by `make check`" if full else
                                  "not in this report (`make conform` alone)") + " |",
            f"| kernel release | {code(str(k.get('release', '?')))} |",
            f"| base package | {esc(str(k.get('base', '?')))} |",
            f"| series head | {code(str(k.get('series_head', '?'))[:12])} |",
            f"| kernel .config sha256 | {code(str(k.get('config_sha256', '?'))[:16])}… |",
            f"| boots | {esc(', '.join(b.get('name', '?') for b in boots)) or 'none'}"
            f" (accelerator: {esc(', '.join(accel)) or '?'}) |",
            f"| checks | {s.get('passed', 0)} passed, {s.get('failed', 0)} failed, "
            f"{s.get('skipped', 0)} skipped |", ""]
    now = booktrace.tangled_hashes(rd.top)
    then = rep.get("tangled", {})
    rows, stale = [], 0
    for path in sorted(set(now) | set(then)):
        a, b = then.get(path), now.get(path)
        same = "yes" if a and a == b else ("not in the run" if not a else
                                            "absent now" if not b else "**no**")
        if same != "yes":
            stale += 1
        rows.append([esc(path), code(a[:16]) + "…" if a else "–", same])
    out += ["The run tested these files of `tangled/` (sha256); the last "
            "column compares them with the files this book was rendered "
            "with.", ""]
    out += table(["file", "sha256 in the run", "same as now"], [6, 3, 2], rows)
    if stale:
        out += ["::: warning",
                f"**{stale} file(s) of `tangled/` differ from the ones the last "
                "run tested**: its results are for another version of the "
                "series.  Run `make conform` again.", ":::", ""]
    return out


def prefix_name(p):
    return f"`{p}.`" if p else "as named"


def test_line(t):
    """One named check of a requirement, with each instance's result."""
    if not t.instances:
        run = booktrace.optional_run(t.id)
        where = f"made by `{run}`, not by make check; its report is absent" if run \
            else "no such check in the report"
        return f"- check {code(t.id)}: {status_md('not run')} ({where})"
    parts = []
    for p, c in t.instances:
        title = f", {esc(c['title'])}" if c.get("title") and "cases:" in c["title"] else ""
        reason = (f" ({esc(breakable(c['reason'][:200]))})" if c.get("reason") and
                  c["status"] != "pass" else "")
        run = f" (`{c['run']}`)" if c.get("run") else ""
        parts.append(f"{prefix_name(p)}: {status_md(c['status'])}{run}{title}{reason}")
    title = t.check.get("title") if t.check else None
    title = f" – {esc(breakable(title))}" if title and "cases:" not in title else ""
    return f"- check {code(t.id)}{title}: {status_md(t.status)}; " + "; ".join(parts)


def matrix(rd):
    out = ["", "# Traceability matrix {- #traceability}", "",
           "Each requirement of the book: the clause it meets, where it comes "
           "from, the chunks that implement it, the lines of `tangled/` they "
           "became, the checks that test it and their last result.  A check "
           "is named without the prefix a boot gives it (`debug.` on the "
           "debug kernel, `fips.` with `fips=1`, `nojent.` without the "
           "Jitter RNG, `modules.` for the modules build); every prefixed "
           "instance in the report is shown and counts.  A requirement "
           "*passes* when every check it names ran and passed everywhere it "
           "ran, *fails* when one failed, is *partial* when some did not run "
           "or were skipped, and *not run* when none ran.  A requirement "
           "with no chunk or no check is a *gap*; `make book-check` fails on "
           "a gap that is not accepted with a reason, on a clause that is "
           "not cited precisely and, in a book built by `make check`, on a "
           "check that did not run.", "",
           "## The last run {- #trace-run}", ""]
    out += run_summary(rd)
    out += ["## Summary {- #trace-summary}", ""]
    rows = []
    for t in rd.traces:
        chunks = ", ".join(rd.chunk_ref(labels[0], short=True)
                           for _, labels in t.chunks) or "–"
        if t.unknown:
            chunks += f" + {len(t.unknown)} unknown"
        ran = sum(1 for x in t.tests if x.status not in ("not run", "skipped"))
        rows.append([f"[{esc(t.req.id)}](#trace-req-{t.req.id})",
                     esc(t.req.clause or "**none given**"), esc(t.req.source) or "–",
                     chunks, f"{ran} of {len(t.tests)}", status_md(t.status)])
    if not rd.traces:
        rows.append(["(no requirement blocks in the book)", "", "", "", "", ""])
    out += table(["requirement", "clause", "origin", "chunks", "checks run",
                  "last run"], [15, 24, 14, 12, 7, 8], rows)
    out += ["## Requirement by requirement {- #trace-detail}", ""]
    for t in rd.traces:
        r = t.req
        out += [f"### {esc(r.id)} {{- #trace-req-{r.id}}}", "",
                f"{md_inline(r.text)} ([in the text](#req-{r.id}))", "",
                f"Clause: {esc(r.clause or 'none given')}.  Origin: "
                f"{esc(r.source) or '–'}.  Stated at {esc(r.where)}.", ""]
        for name, labels in t.chunks:
            wh = []
            for lab in labels:
                wh += rd.where(lab)
            out.append(f"- chunk {rd.chunk_ref(labels[0])}: " +
                       ("; ".join(wh) if wh else "not found in `tangled/`"))
        for name in t.unknown:
            out.append(f"- chunk {code(name)}: **no chunk has this name**")
        if not r.impl:
            out.append("- **gap: no chunk implements it**")
        out += [test_line(x) for x in t.tests]
        if not r.tests:
            out.append("- **gap: no check tests it**")
        if r.accepted:
            out.append(f"- accepted gap: {esc(r.accepted)}")
        out += ["", f"Result: {status_md(t.status)}", ""]
    return out

def patch_lines(rd):
    out = ["", "# The patches, line by line {- #patches-line-by-line}", "",
           "Every line of every file in `tangled/`, by line number: the chunk "
           "it comes from (the innermost one; the chunks that use it are "
           "listed under it in the book) and the requirements that chunk "
           "or its users meet.  *Context* lines are the pristine kernel's; "
           "*generated* lines are written by `git format-patch` and "
           "the series builder (mail headers, sign-off, diffstat, hunk "
           "headers).", ""]
    if not rd.outs:
        out += ["::: placeholder", "`tangled/` holds no files yet "
                "(`make tangle` writes them).", ":::", ""]
    for o in rd.outs:
        counts = {k: o.count(k) for k in ("book", "context", "generated", "untraced")}
        root = (f"from the root chunk {rd.chunk_ref(rd.book.defs[o.root][0].label)}"
                if o.root in rd.book.defs else "which the book no longer makes")
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
                    for r in rd.req_by_label.get(s, []):
                        if r not in reqs:
                            reqs.append(r)
                out.append(f"| {anchor} | {rd.chunk_ref(lab)} | " +
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

