# SPDX-License-Identifier: GPL-2.0-only
"""The verb book: the book's Markdown (render.py) through pandoc to HTML,
and through pandoc and pdflatex to PDF, in build/book/.

Warnings of every stage (noweb, pandoc, LaTeX apart from over- and
underfull boxes) are printed and written to build/book/build.json, which
check.py turns into the check book.build.
"""

import concurrent.futures
import html
import os
import re
import shutil
import subprocess
import sys
import time

from ...base import config, files
from ...base.noweb import NowebError
from .md import PLACEHOLDER_RE, name_html, name_tex_verb
from .render import Renderer

PANDOC = "pandoc"
PDFLATEX = "pdflatex"
BOOKDIR = config.top("book")
TOP = config.TOP


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


BREAK_AFTER = "./-:=+"


def texttt_breaks(text, minlen=12):
    """Break points (\\allowbreak) after . / - : = + inside every long
    \\texttt{...} pandoc wrote for inline code, so that identifiers and check
    ids wrap in narrow table cells instead of running into the margin (the
    underscore breaks by itself, book/header.tex)."""
    out, pos = [], 0
    key = "\\texttt{"
    while True:
        i = text.find(key, pos)
        if i < 0:
            out.append(text[pos:])
            return "".join(out)
        j, depth = i + len(key), 1
        while j < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[j], 0) if text[j - 1] != "\\" else 0
            j += 1
        body = text[i + len(key):j - 1]
        out.append(text[pos:i + len(key)])
        if len(body) >= minlen and "\n" not in body:
            b, d = [], 0
            for k, ch in enumerate(body):
                b.append(ch)
                if ch in "{}" and (k == 0 or body[k - 1] != "\\"):
                    d += 1 if ch == "{" else -1
                if d == 0 and ch in BREAK_AFTER and k < len(body) - 1 and \
                        (k == 0 or body[k - 1] != "\\"):
                    b.append("\\allowbreak{}")
            body = "".join(b)
        out.append(body + "}")
        pos = j


DOTTED = re.compile(r"(?<![{\\\w])((?:[A-Za-z0-9]|\\_)+\.){2,}(?:[A-Za-z0-9]|\\_)+")


ARGUMENT = re.compile(r"(\\(?:href|url|hyperlink|hypertarget|label|includegraphics)"
                      r"(?:\[[^]]*\])?\{[^}]*\})")


def dotted_breaks(text, minlen=20):
    """Break points after the dots of long dotted names written as plain
    text (check ids such as host.unit.jitter.FoldTest.test_fold in a table
    cell), outside code environments."""
    out, in_code = [], False
    for ln in text.split("\n"):
        if ln.startswith("\\begin{Highlighting}") or ln.startswith("\\begin{verbatim}"):
            in_code = True
        elif ln.startswith("\\end{Highlighting}") or ln.startswith("\\end{verbatim}"):
            in_code = False
        elif not in_code and "." in ln:
            parts = ARGUMENT.split(ln)
            for k in range(0, len(parts), 2):      # not inside a URL or label
                parts[k] = DOTTED.sub(lambda m: m.group(0).replace(".", ".\\allowbreak{}")
                                      if len(m.group(0)) >= minlen else m.group(0), parts[k])
            ln = "".join(parts)
        out.append(ln)
    return "\n".join(out)


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
    return dotted_breaks(texttt_breaks(PLACEHOLDER_RE.sub(use_tex, text)))


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
                 "printed as [U+{:04X}] (add it to UNICODE_TEX in harness/stages/book/output.py)"
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


def pandoc_common(outdir):
    return ["-f", "markdown", "--toc", "--toc-depth=2", "-N", "--standalone",
            f"--highlight-style={os.path.join(BOOKDIR, 'highlight.theme')}",
            "--resource-path", outdir]


def write_html(rd, md, outdir):
    text = pandoc(pandoc_common(outdir) + [
        "-t", "html5", "--section-divs", "--css", "book.css", "-M", "document-css=false",
        "--template", os.path.join(BOOKDIR, "template.html")], md, "pandoc html", rd.warn)
    files.write_text(os.path.join(outdir, "book.html"), html_post(text, rd))


def write_pdf(rd, md, outdir):
    pre = os.path.join(outdir, "latex", "unicode.tex")
    files.write_text(pre, unicode_preamble(md, rd.warn))
    tex = pandoc(pandoc_common(outdir) + [
        "-t", "latex", "--top-level-division=chapter",
        "-H", os.path.join(BOOKDIR, "header.tex"), "-H", pre,
        "-V", "documentclass=report", "-V", "classoption=titlepage",
        "-V", "papersize=a4", "-V", "fontsize=10pt", "-V", "geometry=margin=2.2cm",
        "-V", "colorlinks=true", "-V", "linkcolor=blue!50!black",
        "-V", "urlcolor=blue!50!black", "-V", "toccolor=black"], md, "pandoc latex", rd.warn)
    files.write_text(os.path.join(outdir, "latex", "book.tex"), tex_post(tex, rd))
    for kind, msg in run_pdflatex(outdir, "book.tex", rd.warn):
        rd.warn("latex-link" if kind == "link" else "latex", msg)
    shutil.copyfile(os.path.join(outdir, "latex", "book.pdf"),
                    os.path.join(outdir, "book.pdf"))


def build_info(rd, t0):
    """build/book/build.json: what book-check reads."""
    return {
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
        "report": config.display(rd.report_path) if rd.report else None,
        "warnings": [{"stage": s, "message": m} for s, m in rd.warnings],
        "identifiers": len(rd.book.ident_index),
    }


def build(outdir):
    t0 = time.time()
    outdir = os.path.abspath(outdir)
    os.makedirs(os.path.join(outdir, "latex"), exist_ok=True)
    shutil.copyfile(os.path.join(BOOKDIR, "book.css"), os.path.join(outdir, "book.css"))
    rd = Renderer(config.TOP, outdir)
    md = rd.markdown()
    files.write_text(os.path.join(outdir, "book.md"), md)
    # The HTML and the PDF are made from the same Markdown and share
    # nothing else: pandoc's HTML beside pandoc's LaTeX and pdflatex, on
    # the two CPUs make check has.
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        html_written = pool.submit(write_html, rd, md, outdir)
        write_pdf(rd, md, outdir)
        html_written.result()
    info = build_info(rd, t0)
    files.write_json(os.path.join(outdir, "build.json"), info)
    for s, m in rd.warnings:
        print(f"book: warning ({s}): {m}", file=sys.stderr)
    print(f"book: {len(rd.book.chunks)} chunks, {len(rd.traces)} requirements, "
          f"{len(rd.book.ident_index)} identifiers -> "
          f"{config.display(os.path.join(outdir, 'book.html'))}, "
          f"{config.display(os.path.join(outdir, 'book.pdf'))} "
          f"({len(rd.warnings)} warning(s), {info['seconds']} s)")
    return info


def run(args):
    if args.markdown:
        sys.stdout.write(Renderer(config.TOP, args.out).markdown())
        return 0
    try:
        build(args.out)
    except NowebError as e:
        print(f"book: noweb: {e}", file=sys.stderr)
        return 1
    return 0


def register(sub):
    p = sub.add_parser("book", help="render the book (HTML and PDF) into build/book")
    p.add_argument("--out", default=config.build("book"))
    p.add_argument("--markdown", action="store_true",
                   help="write the generated pandoc Markdown to stdout instead")
    p.set_defaults(func=run)
