# SPDX-License-Identifier: GPL-2.0-only
"""The verb book-check: render the book and check it; write
build/book/book-checks.json.

  python3 -m harness book-check [--no-build] [--json OUT] [--no-browser]

  book.build        the build ran and wrote HTML and PDF with no warning
                    from noweb, pandoc, LaTeX (over- and underfull boxes
                    excepted) or the generated parts
  book.links.html   every link and anchor of book.html resolves: #ids,
                    local files (CSS, PDF, figures), no duplicate id
  book.links.pdf    every \\hyperlink of the LaTeX has its \\hypertarget,
                    and pdflatex reported no undefined reference
  book.chunks       every code chunk of the sources is in the HTML, with
                    its anchor and every line of its code
  book.browser      headless Chromium, through WebDriver, loads book.html
                    without a console error, exception or failed load;
                    every in-page link resolves in the live DOM;
                    screenshots of the first page (laptop and phone) and
                    of one chunk with its cross-references are written to
                    build/book/
  book.trace.gaps   every requirement has a chunk and a check (or an
                    accepted="reason"), and every chunk its impl names exists
  book.trace.clauses  every requirement cites its clause precisely, or
                    says it comes from the 2015 series or a port decision
  book.trace.evidence  in a book built by make check (report.json has
                    "full_run"), every check the matrix traces ran: no
                    "not run" (skipped outside a full run)
  book.trace.lines  every + line and commit-message line of tangled/ comes
                    from a chunk of the book (else tangled/ is stale)
  book.pdf.overfull no overfull box wider than 5 pt (the LaTeX log)
  book.pdf.margins  no word of the PDF outside the text block (pdftotext
                    -bbox): tables, code and text stay on the page
  book.pdf.chunk-breaks  no code chunk starts within 8 lines of a page's
                    foot and breaks there (latex/book.pos)
  book.pdf.glyphs   no glyph missing from the fonts, every font embedded
  book.pdf.double-bars  no \\|\\| in the LaTeX's math (a doubled double
                    bar where "||" was meant)

Exit status 1 when any check fails.
"""

import concurrent.futures
import html
import html.parser
import os
import re
import subprocess
import sys
import time
import urllib.parse

from ...base import conf as confmod
from ...base import config, files, noweb, nwbook
from ...base import reqs as reqsmod
from ...base.checks import Check
from ...base.report import as_dicts
from . import browsercheck
from . import trace as booktrace
from . import typography

OUT = config.build("book")
BUILD_STAGES_LINK = ("latex-link",)
TOP = config.TOP


def check(cid, title, status, reason=None, counts=None):
    kw = dict(origin="book", counts=counts or {})
    if status == "pass":
        return Check.passed(cid, title, **kw)
    if status == "skip":
        return Check.skipped(cid, title, reason, **kw)
    return Check.failed(cid, title, reason, **kw)


# ---------------------------------------------------------------------------
# Links, gaps, chunks

class LinkParser(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids = []
        self.links = []           # (tag, attr, value, line)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.append(a["id"])
        if tag == "a" and a.get("name"):
            self.ids.append(a["name"])
        for attr in ("href", "src"):
            if a.get(attr) is not None and tag in ("a", "link", "img", "script",
                                                   "source", "iframe"):
                self.links.append((tag, attr, a[attr], self.getpos()[0]))

    handle_startendtag = handle_starttag


def check_links(text, basedir):
    """Return (counts, problems) for one HTML page."""
    p = LinkParser()
    p.feed(text)
    ids = set(p.ids)
    dups = sorted({i for i in p.ids if p.ids.count(i) > 1}) if len(ids) != len(p.ids) else []
    problems = [f"duplicate id {d!r}" for d in dups]
    counts = {"links": len(p.links), "internal": 0, "files": 0, "external": 0,
              "anchors": len(ids), "broken": 0, "duplicate_ids": len(dups)}
    for tag, attr, val, line in p.links:
        url = urllib.parse.urlsplit(val)
        if url.scheme in ("http", "https", "mailto", "data"):
            counts["external"] += 1
            continue
        if url.scheme and url.scheme != "file":
            counts["external"] += 1
            continue
        if not url.path:
            counts["internal"] += 1
            frag = urllib.parse.unquote(url.fragment)
            if frag not in ids:
                counts["broken"] += 1
                problems.append(f"line {line}: <{tag} {attr}=\"{val}\">: no element "
                                f"has id {frag!r}")
            continue
        counts["files"] += 1
        path = os.path.normpath(os.path.join(basedir, urllib.parse.unquote(url.path)))
        if not os.path.exists(path):
            counts["broken"] += 1
            problems.append(f"line {line}: <{tag} {attr}=\"{val}\">: "
                            f"{os.path.relpath(path, basedir)} does not exist")
        elif url.fragment and path.endswith(".html"):
            with open(path, encoding="utf-8", errors="replace") as f:
                q = LinkParser()
                q.feed(f.read())
            if urllib.parse.unquote(url.fragment) not in set(q.ids):
                counts["broken"] += 1
                problems.append(f"line {line}: {val}: no such anchor")
    return counts, problems


def written_at(frag, sources):
    """Where the sources link to #frag: ['chapters/x.nw:12', ...]."""
    out = []
    pat = re.compile(r"\(#" + re.escape(frag) + r"\)")
    for src in sources:
        try:
            with open(os.path.join(TOP, src), encoding="utf-8") as f:
                for no, line in enumerate(f, 1):
                    if pat.search(line):
                        out.append(f"{src}:{no}")
        except OSError:
            pass
    return out


def check_tex_links(tex):
    """\\hyperlink targets without a \\hypertarget (pandoc and our post-pass)."""
    targets = set(re.findall(r"\\hypertarget\{([^}]*)\}", tex))
    links = re.findall(r"\\hyperlink\{([^}]*)\}", tex)
    missing = sorted({t for t in links if t not in targets})
    return {"links": len(links), "targets": len(targets), "broken": len(missing)}, missing


# ---------------------------------------------------------------------------
# Gaps

def gap_problems(traces):
    """Problems of the requirement -> chunk -> check chain: a gap that is
    not accepted, a chunk name no chunk has."""
    out = []
    for t in traces:
        for g in t.gaps:
            if not t.req.accepted:
                out.append(f"req-{t.req.id} ({t.req.where}): {g} (add it, or mark the "
                           "gap accepted=\"reason\")")
        for n in t.unknown:
            out.append(f"req-{t.req.id} ({t.req.where}): impl names <<{n}>>, which "
                       "no chunk defines")
    return out


# ---------------------------------------------------------------------------
# Chunks in the HTML

def chunk_problems(book, html_text):
    """Every chunk has its div and every line of its code is in the HTML."""
    problems = []
    text_of = {}
    for m in re.finditer(r'<div id="([^"]+)" class="chunk">(.*?)<div class="chunk-xref">',
                         html_text, re.S):
        body = re.sub(r"<[^>]+>", "", m.group(2))
        text_of[m.group(1)] = html.unescape(body)
    for c in book.chunks:
        if c.label not in text_of:
            problems.append(f"<<{c.name}>> ({c.src}:{c.line}): no chunk with id "
                            f"{c.label} in the HTML")
            continue
        have = text_of[c.label]
        for no, line in enumerate(c.lines):
            if any(p[0] == "use" for p in line):
                names = [p[1] for p in line if p[0] == "use"]
                for n in names:
                    plain = re.sub(r"\[\[(.*?)\]\](?!\])", r"\1", n)
                    if plain not in have:
                        problems.append(f"<<{c.name}>>: the use of <<{n}>> is missing")
                continue
            s = "".join(p[1] for p in line).expandtabs(8).rstrip()
            if s.strip() and s not in have:
                problems.append(f"<<{c.name}>> ({c.src}:{c.line + 1 + no}): line "
                                f"{s.strip()[:60]!r} is missing from the HTML")
                break
    return problems


# ---------------------------------------------------------------------------
# The checks

def build_check(rc, err, info):
    title = "the book builds (HTML, PDF) without warnings"
    if rc != 0 or info is None:
        tail = [ln for ln in err.splitlines() if ln.strip()][-3:]
        return check("book.build", title, "fail",
                     f"the build failed (exit {rc}): " + " | ".join(tail))
    html_path, pdf_path = os.path.join(OUT, "book.html"), os.path.join(OUT, "book.pdf")
    warns = [w for w in info["warnings"] if w["stage"] not in BUILD_STAGES_LINK]
    by = {}
    for w in warns:
        by[w["stage"]] = by.get(w["stage"], 0) + 1
    missing = [p for p in (html_path, pdf_path)
               if not os.path.exists(p) or not os.path.getsize(p)]
    reason = "; ".join(f"{w['stage']}: {w['message']}" for w in warns[:8])
    if missing:
        reason = (f"missing or empty: {', '.join(config.display(p) for p in missing)}; "
                  + reason)
    counts = {"warnings": len(warns), **{f"warnings_{k}": v for k, v in by.items()},
              "chunks": len(info["chunks"]), "seconds": info["seconds"],
              "pdf_bytes": os.path.getsize(pdf_path) if os.path.exists(pdf_path) else 0}
    return check("book.build", title, "fail" if warns or missing else "pass",
                 reason or None, counts)


def html_links_check(html_text, sources):
    title = "every link and anchor of book.html resolves"
    if html_text is None:
        return check("book.links.html", title, "fail", "book.html was not written")
    counts, problems = check_links(html_text, OUT)
    for i, p in enumerate(problems):
        m = re.search(r"no element has id '([^']*)'", p)
        where = written_at(m.group(1), sources) if m else []
        if where:
            problems[i] = p + f" (linked from {', '.join(where[:3])})"
    return check("book.links.html", title, "fail" if problems else "pass",
                 "; ".join(problems[:10]) or None, counts)


def pdf_links_check(info):
    title = "every internal link of the PDF has its target"
    tex_path = os.path.join(OUT, "latex/book.tex")
    if not os.path.exists(tex_path) or info is None:
        return check("book.links.pdf", title, "fail", "no LaTeX output (latex/book.tex)")
    with open(tex_path, encoding="utf-8") as f:
        counts, missing = check_tex_links(f.read())
    latex_link = [w["message"] for w in info["warnings"] if w["stage"] == "latex-link"]
    counts["latex_reference_warnings"] = len(latex_link)
    problems = [f"\\hyperlink{{{m}}} has no \\hypertarget" for m in missing[:10]]
    problems += latex_link[:10]
    return check("book.links.pdf", title, "fail" if problems else "pass",
                 "; ".join(problems) or None, counts)


def chunks_check(conf, book, html_text):
    markup, _ = noweb.run([noweb.MARKUP, "-t"] + conf.sources)
    ndefs = sum(1 for ln in markup.split("\n") if ln.startswith("@defn "))
    problems = chunk_problems(book, html_text or "")
    if ndefs != len(book.chunks):
        problems.insert(0, f"markup sees {ndefs} chunk definitions, the renderer "
                        f"{len(book.chunks)}")
    found = len(re.findall(r'<div id="[^"]+" class="chunk">', html_text or ""))
    return check("book.chunks", "every chunk of the sources is in the HTML",
                 "fail" if problems else "pass", "; ".join(problems[:8]) or None,
                 {"chunks": ndefs, "in_html": found,
                  "lines_checked": sum(len(c.lines) for c in book.chunks)})


def load_traces(conf, book):
    report, _ = booktrace.load_report(TOP)
    return report, booktrace.requirements(conf, book, report, TOP)


def gaps_check(report, traces):
    title = "every requirement has a chunk and a check, every impl chunk exists"
    problems = gap_problems(traces)
    counts = {"requirements": len(traces),
              "gaps": sum(1 for t in traces if t.gaps and not t.req.accepted),
              "accepted_gaps": sum(1 for t in traces if t.gaps and t.req.accepted),
              "unknown_chunks": sum(len(t.unknown) for t in traces),
              "checks_named": sum(len(t.tests) for t in traces),
              "report": "present" if report else "absent"}
    return check("book.trace.gaps", title, "fail" if problems else "pass",
                 "; ".join(problems[:10]) or None, counts)


def clause_problems(traces):
    return [f"req-{t.req.id} ({t.req.where}): {p}" for t in traces
            for p in [reqsmod.clause_problem(t.req.clause)] if p]


def clauses_check(traces):
    title = ("every requirement cites its clause (document, section, step; IG "
             "number) or says it comes from the 2015 series or a port decision alone")
    problems = clause_problems(traces)
    counts = {"requirements": len(traces), "without_clause": len(problems),
              "origin_only": sum(1 for t in traces if (t.req.clause or "").startswith(
                  reqsmod.ORIGIN_ONLY))}
    return check("book.trace.clauses", title, "fail" if problems else "pass",
                 "; ".join(problems[:10]) or None, counts)


def not_run_problems(traces):
    """What did not run: each named check with no instance in the report
    (or only skipped ones), each requirement whose state is "not run"."""
    out = [f"req-{t.req.id}: nothing it names ran" for t in traces
           if t.status == "not run"]
    seen = set()
    for t in traces:
        for x in t.tests:
            if x.status == "not run" and x.id not in seen and \
                    not booktrace.optional_run(x.id):
                seen.add(x.id)
                out.append(f"{x.id} (req-{t.req.id}): not in the report")
    return out


def evidence_check(report, traces):
    """In a book built by make check, every check the matrix traces ran."""
    title = "the matrix shows a result for every check it traces (make check's run)"
    full = booktrace.full_run(report)
    states = [t.status for t in traces]
    counts = {s.replace(" ", "_"): states.count(s)
              for s in ("pass", "fail", "partial", "not run")}
    counts["checks_not_run"] = sum(1 for t in traces for x in t.tests
                                   if x.status == "not run")
    if not full:
        return check("book.trace.evidence", title, "skip",
                     "draft: build/conformance/report.json is not from make check "
                     "(no full run), so results may be missing", counts)
    counts["report"] = report.get("id")
    problems = not_run_problems(traces)
    return check("book.trace.evidence", title, "fail" if problems else "pass",
                 "; ".join(problems[:12]) or None, counts)


def lines_check(conf, book):
    outs = booktrace.trace_outputs(TOP, conf, book)
    untraced = [(o.path, ln.no) for o in outs for ln in o.lines if ln.kind == "untraced"]
    counts = {"files": len(outs), "lines": sum(len(o.lines) for o in outs),
              "from_book": sum(o.count("book") for o in outs),
              "context": sum(o.count("context") for o in outs),
              "generated": sum(o.count("generated") for o in outs),
              "untraced": len(untraced)}
    title = "every line of tangled/ that the book writes traces back to a chunk"
    if untraced:
        first = {}
        for p, n in untraced:
            first.setdefault(p, n)
        return check("book.trace.lines", title, "fail",
                     "lines of tangled/ the book does not produce (tangled/ is stale: "
                     "run make tangle): " + "; ".join(f"{os.path.basename(p)} line {n}"
                                                      for p, n in first.items()), counts)
    if not outs:
        return check("book.trace.lines", title, "skip", "tangled/ holds no files", counts)
    return check("book.trace.lines", title, "pass", None, counts)


def source_checks(conf, html_text):
    """The checks that need the book as noweb sees it."""
    try:
        book, _ = nwbook.front_end(conf.sources, conf, cwd=TOP)
    except noweb.NowebError as e:
        return [check("book.chunks", "every chunk of the sources is in the HTML",
                      "fail", f"noweb: {e}")]
    try:
        report, traces = load_traces(conf, book)
    except ValueError as e:
        return [chunks_check(conf, book, html_text),
                check("book.trace.gaps", "the requirement blocks are read", "fail",
                      f"requirement blocks: {e}"), lines_check(conf, book)]
    return [chunks_check(conf, book, html_text), gaps_check(report, traces),
            clauses_check(traces), evidence_check(report, traces),
            lines_check(conf, book)]


def run(args):
    t0 = time.time()
    rc, err = 0, ""
    if not args.no_build:
        r = subprocess.run([config.PY, "-m", "harness", "book"], cwd=TOP,
                           capture_output=True, text=True)
        rc, err = r.returncode, r.stderr
        sys.stderr.write(r.stderr)
        sys.stdout.write(r.stdout)
    info = files.read_json(os.path.join(OUT, "build.json"))
    html_path = os.path.join(OUT, "book.html")
    html_text = open(html_path, encoding="utf-8").read() if os.path.exists(html_path) else None
    conf = confmod.load()
    # Chromium works on its own processes while the checks below read the
    # HTML and the PDF here: the browser's check runs beside them.
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        browser = None
        if not args.no_browser and html_text is not None:
            browser = pool.submit(browsercheck.browser_check, OUT)
        checks = [build_check(rc, err, info), html_links_check(html_text, conf.sources),
                  pdf_links_check(info)] + source_checks(conf, html_text)
        checks += typography.checks(OUT)
        if browser is not None:
            checks.append(browser.result())
    if args.no_browser:
        checks.append(check("book.browser", browsercheck.TITLE, "skip", "--no-browser"))
    elif html_text is None:
        checks.append(check("book.browser", browsercheck.TITLE, "fail",
                            "book.html was not written"))
    files.write_json(args.json, as_dicts(checks))
    n = {s: sum(1 for c in checks if c.status == s) for s in ("pass", "fail", "skip")}
    for c in checks:
        if c.status != "pass":
            print(f"book-check: {c.status.upper()} {c.id}: {(c.reason or '')[:400]}",
                  file=sys.stderr)
    print(f"book-check: {n['pass']} passed, {n['fail']} failed, {n['skip']} skipped "
          f"in {time.time() - t0:.1f} s -> {config.display(args.json)}")
    return 1 if n["fail"] else 0


def register(sub):
    p = sub.add_parser("book-check", help="render the book and check it")
    p.add_argument("--no-build", action="store_true", help="check the last build")
    p.add_argument("--no-browser", action="store_true", help="skip the Chromium check")
    p.add_argument("--json", default=os.path.join(OUT, "book-checks.json"),
                   help="where the checks go")
    p.set_defaults(func=run)
