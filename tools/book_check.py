#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check the rendered book; write build/book/book-checks.json.

  book_check.py [--no-build] [--json OUT] [--no-browser]

Builds the book first (tools/book.py build) unless --no-build, then:

  book.build        the build ran and wrote HTML and PDF with no warning
                    from noweb, pandoc, LaTeX (over- and underfull boxes
                    excepted) or the generated parts
  book.links.html   every link and anchor of book.html resolves: #ids,
                    local files (CSS, PDF, figures), no duplicate id
  book.links.pdf    every \\hyperlink of the LaTeX has its \\hypertarget,
                    and pdflatex reported no undefined reference
  book.chunks       every code chunk of the sources is in the HTML, with
                    its anchor and every line of its code
  book.browser      headless Chromium loads book.html without a console
                    error, exception or failed load; every in-page link
                    resolves in the live DOM; screenshots of the first page
                    (laptop and phone) and of one chunk with its
                    cross-references are written to build/book/
  book.trace.gaps   every requirement has a chunk and a check (or an
                    accepted="reason"), and every chunk its impl names exists
  book.trace.lines  every + line and commit-message line of tangled/ comes
                    from a chunk of the book (else tangled/ is stale)

Each check is a dict {id, title, origin, status pass|fail|skip, reason,
counts}; the exit status is 1 when any check fails.
"""

import html.parser
import json
import os
import re
import subprocess
import sys
import time
import urllib.parse

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "tools"))
import booktrace  # noqa: E402
import nwbook  # noqa: E402
import nwconf  # noqa: E402

PY = "/usr/bin/python3"
OUT = os.path.join(TOP, "build/book")
BUILD_STAGES_LINK = ("latex-link",)


def check(cid, title, status, reason=None, counts=None):
    c = {"id": cid, "title": title, "origin": "book", "status": status}
    if reason:
        c["reason"] = reason
    if counts is not None:
        c["counts"] = counts
    return c


# ---------------------------------------------------------------------------
# Links in HTML

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
# Chromium

def browser_check(outdir):
    import cdp
    if not os.path.exists(cdp.CHROMIUM):
        return check("book.browser", "headless Chromium loads the book without errors",
                     "skip", f"{cdp.CHROMIUM} is not installed (make deps-book)")
    page = os.path.join(outdir, "book.html")
    url = "file://" + urllib.parse.quote(os.path.abspath(page))
    shots = {}
    t0 = time.time()
    try:
        with cdp.Browser() as b:
            b.open_page()
            b.viewport(1280, 900)
            b.navigate(url)
            b.drain(0.5)
            problems = b.problems()
            info = b.evaluate("""(() => {
                const ids = new Set([...document.querySelectorAll('[id]')].map(e => e.id));
                const links = [...document.querySelectorAll('a[href^="#"]')];
                const bad = links.filter(a => !ids.has(decodeURIComponent(
                    a.getAttribute('href').slice(1)))).map(a => a.getAttribute('href'));
                const imgs = [...document.images].filter(i => !i.complete ||
                    i.naturalWidth === 0).map(i => i.getAttribute('src'));
                const chunks = [...document.querySelectorAll('div.chunk')];
                const pick = chunks.find(c => c.querySelector('.chunk-xref') &&
                    /Used in/.test(c.textContent) && /Defines/.test(c.textContent) &&
                    /Tangles to/.test(c.textContent) && /Meets/.test(c.textContent) &&
                    c.querySelector('a.chunk-use')) || chunks[0];
                return {links: links.length, bad: bad.slice(0, 20), nbad: bad.length,
                        images: document.images.length, badimg: imgs,
                        chunks: chunks.length, pick: pick ? pick.id : null,
                        css: getComputedStyle(document.querySelector('div.chunk') ||
                             document.body).borderLeftStyle,
                        title: document.title};
            })()""")
            shots["first-page"] = os.path.join(outdir, "screenshot-first-page.png")
            b.screenshot(shots["first-page"])
            if info.get("pick"):
                b.evaluate(f"document.getElementById({json.dumps(info['pick'])})"
                           ".scrollIntoView({block: 'start'}); true")
                b.drain(0.3)
                shots["chunk"] = os.path.join(outdir, "screenshot-chunk.png")
                b.screenshot(shots["chunk"])
            b.viewport(390, 844, mobile=True, scale=2)
            b.evaluate("window.scrollTo(0, 0); true")
            b.drain(0.3)
            shots["phone"] = os.path.join(outdir, "screenshot-phone.png")
            b.screenshot(shots["phone"])
            problems += [p for p in b.problems() if p not in problems]
    except Exception as e:
        return check("book.browser", "headless Chromium loads the book without errors",
                     "fail", f"Chromium: {type(e).__name__}: {e}")
    if info.get("badimg"):
        problems.append(f"images that did not load: {', '.join(info['badimg'][:5])}")
    if info.get("css") in (None, "", "none"):
        problems.append("book.css did not apply (div.chunk has no border)")
    # Unresolved in-page links are book.links.html's to report; counted here.
    counts = {"console_errors": len([p for p in problems
                                     if not p.startswith(("images", "book.css"))]),
              "links_checked_in_dom": info.get("links", 0), "links_unresolved": info.get("nbad", 0),
              "images": info.get("images", 0), "chunks_in_dom": info.get("chunks", 0),
              "screenshots": len(shots), "seconds": round(time.time() - t0, 1)}
    c = check("book.browser", "headless Chromium loads the book without errors",
              "fail" if problems else "pass", "; ".join(problems)[:1500] or None, counts)
    c["screenshots"] = {k: os.path.relpath(v, TOP) for k, v in shots.items()}
    c["screenshot_chunk"] = info.get("pick")
    return c


# ---------------------------------------------------------------------------

def main(argv):
    out_json = os.path.join(OUT, "book-checks.json")
    if "--json" in argv:
        out_json = argv[argv.index("--json") + 1]
    checks = []
    t0 = time.time()
    build_rc, build_err = 0, ""
    if "--no-build" not in argv:
        r = subprocess.run([PY, os.path.join(TOP, "tools/book.py"), "build"], cwd=TOP,
                           capture_output=True, text=True)
        build_rc, build_err = r.returncode, r.stderr
        sys.stderr.write(r.stderr)
        sys.stdout.write(r.stdout)
    info = None
    try:
        with open(os.path.join(OUT, "build.json"), encoding="utf-8") as f:
            info = json.load(f)
    except (OSError, ValueError):
        pass
    html_path = os.path.join(OUT, "book.html")
    pdf_path = os.path.join(OUT, "book.pdf")

    # book.build
    if build_rc != 0 or info is None:
        tail = [ln for ln in build_err.splitlines() if ln.strip()][-3:]
        checks.append(check("book.build", "the book builds (HTML, PDF) without warnings",
                            "fail", f"the build failed (exit {build_rc}): "
                            + " | ".join(tail)))
    else:
        warns = [w for w in info["warnings"] if w["stage"] not in BUILD_STAGES_LINK]
        by = {}
        for w in warns:
            by[w["stage"]] = by.get(w["stage"], 0) + 1
        missing = [p for p in (html_path, pdf_path)
                   if not os.path.exists(p) or not os.path.getsize(p)]
        reason = "; ".join(f"{w['stage']}: {w['message']}" for w in warns[:8])
        if missing:
            names = ", ".join(os.path.relpath(p, TOP) for p in missing)
            reason = f"missing or empty: {names}; " + reason
        counts = {"warnings": len(warns), **{f"warnings_{k}": v for k, v in by.items()},
                  "chunks": len(info["chunks"]), "seconds": info["seconds"],
                  "pdf_bytes": os.path.getsize(pdf_path) if os.path.exists(pdf_path) else 0}
        checks.append(check("book.build", "the book builds (HTML, PDF) without warnings",
                            "fail" if warns or missing else "pass", reason or None, counts))

    # book.links.html
    if os.path.exists(html_path):
        with open(html_path, encoding="utf-8") as f:
            html_text = f.read()
        counts, problems = check_links(html_text, OUT)
        srcs = nwconf.load(os.path.join(TOP, "tangle.conf")).sources
        for i, p in enumerate(problems):
            m = re.search(r"no element has id '([^']*)'", p)
            where = written_at(m.group(1), srcs) if m else []
            if where:
                problems[i] = p + f" (linked from {', '.join(where[:3])})"
        checks.append(check("book.links.html", "every link and anchor of book.html resolves",
                            "fail" if problems else "pass",
                            "; ".join(problems[:10]) or None, counts))
    else:
        html_text = ""
        checks.append(check("book.links.html", "every link and anchor of book.html resolves",
                            "fail", "book.html was not written"))

    # book.links.pdf
    tex_path = os.path.join(OUT, "latex/book.tex")
    if os.path.exists(tex_path) and info is not None:
        with open(tex_path, encoding="utf-8") as f:
            counts, missing = check_tex_links(f.read())
        latex_link = [w["message"] for w in info["warnings"] if w["stage"] == "latex-link"]
        counts["latex_reference_warnings"] = len(latex_link)
        problems = [f"\\hyperlink{{{m}}} has no \\hypertarget" for m in missing[:10]]
        problems += latex_link[:10]
        checks.append(check("book.links.pdf", "every internal link of the PDF has its target",
                            "fail" if problems else "pass", "; ".join(problems) or None,
                            counts))
    else:
        checks.append(check("book.links.pdf", "every internal link of the PDF has its target",
                            "fail", "no LaTeX output (latex/book.tex)"))

    # The book as noweb sees it, for the remaining checks.
    conf = nwconf.load(os.path.join(TOP, "tangle.conf"))
    try:
        book, _ = nwbook.front_end(conf.sources, conf, cwd=TOP)
    except nwbook.FrontEndError as e:
        book = None
        checks.append(check("book.chunks", "every chunk of the sources is in the HTML",
                            "fail", f"noweb: {e}"))
    if book is not None:
        markup, _ = nwbook.run([nwbook.MARKUP, "-t"] + conf.sources, cwd=TOP)
        ndefs = sum(1 for ln in markup.split("\n") if ln.startswith("@defn "))
        problems = chunk_problems(book, html_text)
        if ndefs != len(book.chunks):
            problems.insert(0, f"markup sees {ndefs} chunk definitions, the renderer "
                            f"{len(book.chunks)}")
        found = len(re.findall(r'<div id="[^"]+" class="chunk">', html_text))
        checks.append(check("book.chunks", "every chunk of the sources is in the HTML",
                            "fail" if problems else "pass", "; ".join(problems[:8]) or None,
                            {"chunks": ndefs, "in_html": found,
                             "lines_checked": sum(len(c.lines) for c in book.chunks)}))

        report, _ = booktrace.load_report(TOP)
        try:
            traces = booktrace.requirements(conf, book, report, TOP)
        except ValueError as e:
            traces = None
            checks.append(check("book.trace.gaps", "every requirement has a chunk and "
                                "a check", "fail", f"requirement blocks: {e}"))
        if traces is not None:
            problems = gap_problems(traces)
            not_in_report = sorted({cid for t in traces for cid, st, _ in t.checks
                                    if st is None})
            counts = {"requirements": len(traces),
                      "gaps": sum(1 for t in traces if t.gaps and not t.req.accepted),
                      "accepted_gaps": sum(1 for t in traces if t.gaps and t.req.accepted),
                      "unknown_chunks": sum(len(t.unknown) for t in traces),
                      "checks_named": sum(len(t.checks) for t in traces),
                      "checks_not_in_report": len(not_in_report),
                      "report": "present" if report else "absent"}
            reason = "; ".join(problems[:10])
            if not problems and not_in_report:
                reason = ("(not a failure) checks named by requirements but absent from "
                          "the last report: " + ", ".join(not_in_report[:10]))
            checks.append(check("book.trace.gaps", "every requirement has a chunk and a "
                                "check, every impl chunk exists",
                                "fail" if problems else "pass", reason or None, counts))

        outs = booktrace.trace_outputs(TOP, conf, book)
        untraced = [(o.path, ln.no) for o in outs for ln in o.lines if ln.kind == "untraced"]
        counts = {"files": len(outs), "lines": sum(len(o.lines) for o in outs),
                  "from_book": sum(o.count("book") for o in outs),
                  "context": sum(o.count("context") for o in outs),
                  "generated": sum(o.count("generated") for o in outs),
                  "untraced": len(untraced)}
        reason = None
        if untraced:
            first = {}
            for p, n in untraced:
                first.setdefault(p, n)
            reason = ("lines of tangled/ the book does not produce (tangled/ is stale: "
                      "run make tangle): " + "; ".join(f"{os.path.basename(p)} line {n}"
                                                       for p, n in first.items()))
        elif not outs:
            reason = "tangled/ holds no files"
        checks.append(check("book.trace.lines", "every line of tangled/ that the book "
                            "writes traces back to a chunk",
                            "fail" if untraced else ("skip" if not outs else "pass"),
                            reason, counts))

    # book.browser
    if "--no-browser" in argv:
        checks.append(check("book.browser", "headless Chromium loads the book without errors",
                            "skip", "--no-browser"))
    elif os.path.exists(html_path):
        checks.append(browser_check(OUT))
    else:
        checks.append(check("book.browser", "headless Chromium loads the book without errors",
                            "fail", "book.html was not written"))

    os.makedirs(os.path.dirname(out_json), exist_ok=True)
    with open(out_json, "w", encoding="utf-8") as f:
        json.dump(checks, f, indent=1)
    n = {s: sum(1 for c in checks if c["status"] == s) for s in ("pass", "fail", "skip")}
    for c in checks:
        if c["status"] != "pass":
            print(f"book-check: {c['status'].upper()} {c['id']}: {c.get('reason', '')[:400]}",
                  file=sys.stderr)
    print(f"book-check: {n['pass']} passed, {n['fail']} failed, {n['skip']} skipped "
          f"in {time.time() - t0:.1f} s -> {os.path.relpath(out_json, TOP)}")
    return 1 if n["fail"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
