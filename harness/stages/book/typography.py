# SPDX-License-Identifier: GPL-2.0-only
"""The PDF as a reader sees it, for book-check: overfull boxes wider than
a limit (the LaTeX log), anything printed outside the text block (the PDF's
word boxes, pdftotext -bbox: a table wider than the page shows here), code
chunks that start in the last lines of a page and break there (the
positions latex/book.pos recorded at shipout, book/header.tex), glyphs
the fonts lack (the log's "Missing character", fonts not embedded), and
"\\|\\|" in math (latex/book.tex), a doubled double bar where a table
meant the concatenation "||" (written \\|\\| outside math).

Each function returns (counts, problems); problems are one line each,
with the page or the line of latex/book.tex and the text concerned.
"""

import bisect
import html
import os
import re
import subprocess

from ...base.checks import Check

OVERFULL_PT = 5.0          # an overfull box wider than this fails
MARGIN_BP = 5.0            # text this far outside the text block fails
FOOT_LINES = 8             # a chunk that breaks needs this many lines on its first page
SP_PER_BP = 65536 * 72.27 / 72

OVERFULL = re.compile(r"^Overfull \\hbox \(([0-9.]+)pt too wide\) "
                      r"(?:in paragraph|in alignment|detected) at lines? (\d+)", re.M)
HEADING = re.compile(r"\\(chapter|section|subsection)\*?\{(.*)")


def headings(tex_lines):
    """[(line number, heading text)] of latex/book.tex."""
    out = []
    for i, ln in enumerate(tex_lines):
        m = HEADING.match(ln)
        if m:
            t = re.sub(r"\\(?:label|hypertarget)\{[^}]*\}|\\[a-zA-Z]+|[{}]", "", m.group(2))
            out.append((i + 1, re.sub(r"\s+", " ", t).strip()[:60]))
    return out


def where(line, heads, tex_lines):
    k = bisect.bisect([h[0] for h in heads], line) - 1
    sec = heads[k][1] if k >= 0 else "the front matter"
    text = tex_lines[line - 1].strip()[:70] if 0 < line <= len(tex_lines) else ""
    return f"book.tex line {line} (in \"{sec}\"): {text}"


def overfull(log, tex, limit=OVERFULL_PT):
    tex_lines = tex.split("\n")
    heads = headings(tex_lines)
    boxes = [(float(m.group(1)), int(m.group(2))) for m in OVERFULL.finditer(log)]
    bad = sorted((b for b in boxes if b[0] > limit), reverse=True)
    counts = {"overfull_boxes": len(boxes), f"wider_than_{int(limit)}pt": len(bad),
              "widest_pt": max((w for w, _ in boxes), default=0.0)}
    return counts, [f"{w:.1f} pt too wide at {where(n, heads, tex_lines)}" for w, n in bad]


def read_layout(pos_text):
    """{"layout": {...} in sp, "chunks": {number: {"start": (page, y), "end": ...}}}."""
    layout, chunks = None, {}
    for ln in pos_text.split("\n"):
        f = ln.split()
        if f[:1] == ["layout"] and len(f) >= 11:
            v = [int(float(x.rstrip("pt")) * 65536) for x in f[1:11]]
            layout = dict(zip(("textheight", "paperheight", "topmargin", "headheight",
                               "headsep", "voffset", "baselineskip", "textwidth",
                               "oddsidemargin", "hoffset"), v))
        elif len(f) == 4 and f[0] in ("start", "end") and f[3].lstrip("-").isdigit():
            chunks.setdefault(f[1], {})[f[0]] = (f[2], int(f[3]))
    return layout, chunks


def text_block(layout):
    """(left, right, bottom, top) of the text block in sp from the page's
    lower left corner."""
    inch = int(72.27 * 65536)
    top = layout["paperheight"] - (inch + layout["voffset"] + layout["topmargin"]
                                   + layout["headheight"] + layout["headsep"])
    left = inch + layout["hoffset"] + layout["oddsidemargin"]
    return left, left + layout["textwidth"], top - layout["textheight"], top


def chunk_breaks(pos_text, foot=FOOT_LINES):
    layout, chunks = read_layout(pos_text)
    if layout is None:
        return {"chunks": 0}, ["latex/book.pos has no layout line: book/header.tex "
                               "did not record the chunks' positions"]
    bottom = text_block(layout)[2]
    problems, near = [], 0
    for num, p in sorted(chunks.items(), key=lambda kv: int(kv[0])):
        if "start" not in p or "end" not in p:
            continue
        (pg, y), (pg_end, _) = p["start"], p["end"]
        lines = (y - bottom) / layout["baselineskip"]
        if lines < foot:
            near += 1
            if pg != pg_end:
                problems.append(f"chunk {num} starts {max(lines, 0):.1f} lines above the "
                                f"foot of page {pg} and breaks there (continues on "
                                f"page {pg_end})")
    return {"chunks": len(chunks), "near_foot": near, "broken_at_foot": len(problems)}, \
        problems


WORD = re.compile(r'<word xMin="([-0-9.]+)" yMin="([-0-9.]+)" xMax="([-0-9.]+)" '
                  r'yMax="([-0-9.]+)">(.*?)</word>')
PAGE = re.compile(r'<page width="([0-9.]+)" height="([0-9.]+)">')


def margins(pdf, pos_text, tol=MARGIN_BP):
    """Words printed outside the text block, from pdftotext -bbox."""
    layout, _ = read_layout(pos_text)
    if layout is None:
        return {}, ["latex/book.pos has no layout line"]
    left, right, _, _ = (v / SP_PER_BP for v in text_block(layout))
    r = subprocess.run(["pdftotext", "-bbox", pdf, "-"], capture_output=True, text=True,
                       errors="replace")
    if r.returncode != 0:
        return {}, [f"pdftotext -bbox failed: {r.stderr.strip()[:200]}"]
    problems, pages, words = [], 0, 0
    for page_no, page in enumerate(r.stdout.split("<page ")[1:], start=1):
        pages += 1
        for m in WORD.finditer(page):
            words += 1
            x0, x1 = float(m.group(1)), float(m.group(3))
            if x1 > right + tol or x0 < left - tol:
                problems.append(f"page {page_no}: \"{html.unescape(m.group(5))[:40]}\" "
                                f"spans x = {x0:.0f}..{x1:.0f} bp, the text block "
                                f"{left:.0f}..{right:.0f} bp")
    return {"pages": pages, "words": words, "outside": len(problems),
            "text_block_bp": [round(left, 1), round(right, 1)]}, problems


DOUBLE_BAR = re.compile(r"\\\|(?:\s|\\[,;:! ])*\\\|")


def double_bars(tex):
    """Math that prints a doubled double bar (two \\| in a row)."""
    tex_lines = tex.split("\n")
    heads = headings(tex_lines)
    hits = [i + 1 for i, ln in enumerate(tex_lines) if DOUBLE_BAR.search(ln)]
    return {"double_bars": len(hits)}, [
        f"a doubled double bar (\\|\\| in math) at {where(n, heads, tex_lines)}"
        for n in hits]


MISSING = re.compile(r"^Missing character: There is no (.+?) in font (.+?)!", re.M)


def glyphs(log, pdf):
    missing = [f"{m.group(1)} in font {m.group(2)}" for m in MISSING.finditer(log)]
    stand_ins = re.findall(r"\[U\+[0-9A-F]{4,5}\]", pdf_text(pdf))
    unembedded, fonts = fonts_not_embedded(pdf)
    problems = [f"missing glyph: {m}" for m in sorted(set(missing))]
    problems += [f"printed as a stand-in: {s}" for s in sorted(set(stand_ins))]
    problems += [f"font not embedded: {f}" for f in unembedded]
    return {"missing_characters": len(missing), "stand_ins": len(stand_ins),
            "fonts": fonts, "fonts_not_embedded": len(unembedded)}, problems


def fonts_not_embedded(pdf):
    """([font names not embedded], number of fonts) from pdffonts, whose
    columns the line of dashes under its header delimits."""
    r = subprocess.run(["pdffonts", pdf], capture_output=True, text=True, errors="replace")
    lines = r.stdout.split("\n")
    if len(lines) < 2 or not lines[1].startswith("-"):
        return [f"(pdffonts failed: {r.stderr.strip()[:100]})"], 0
    cols, pos = [], 0
    for dash in lines[1].split(" "):
        cols.append((pos, pos + len(dash)))
        pos += len(dash) + 1
    names = [lines[0][a:b].strip() for a, b in cols]
    emb = names.index("emb")
    fonts = [ln for ln in lines[2:] if ln.strip()]
    bad = [ln[cols[0][0]:cols[0][1]].strip() or "(unnamed)" for ln in fonts
           if ln[cols[emb][0]:cols[emb][1]].strip() != "yes"]
    return bad, len(fonts)


def pdf_text(pdf):
    r = subprocess.run(["pdftotext", pdf, "-"], capture_output=True, text=True,
                       errors="replace")
    return r.stdout


def read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def one(cid, title, result, missing=None):
    counts, problems = result
    kw = dict(origin="book", counts=counts)
    if missing:
        return Check.failed(cid, title, missing, **kw)
    if problems:
        more = f" (and {len(problems) - 12} more)" if len(problems) > 12 else ""
        return Check.failed(cid, title, "; ".join(problems[:12]) + more, **kw)
    return Check.passed(cid, title, **kw)


def checks(outdir):
    """The five typography checks of the PDF in outdir."""
    latex = os.path.join(outdir, "latex")
    log, tex = read(os.path.join(latex, "book.log")), read(os.path.join(latex, "book.tex"))
    pos, pdf = read(os.path.join(latex, "book.pos")), os.path.join(outdir, "book.pdf")
    absent = [n for n, v in (("latex/book.log", log), ("latex/book.tex", tex),
                             ("latex/book.pos", pos)) if v is None]
    if not os.path.exists(pdf):
        absent.append("book.pdf")
    missing = f"not written: {', '.join(absent)}" if absent else None
    empty = ({}, [])
    return [
        one("book.pdf.overfull", f"no line of the PDF is more than {OVERFULL_PT:g} pt "
            "too wide (LaTeX's overfull boxes)", overfull(log, tex) if not missing else
            empty, missing),
        one("book.pdf.margins", "nothing is printed outside the text block: no table, "
            "code line or word runs into the margin (the PDF's word boxes)",
            margins(pdf, pos) if not missing else empty, missing),
        one("book.pdf.chunk-breaks", f"no code chunk starts within {FOOT_LINES} lines of "
            "a page's foot and breaks there", chunk_breaks(pos) if not missing else
            empty, missing),
        one("book.pdf.glyphs", "every character has a glyph in the PDF's fonts, and every "
            "font is embedded", glyphs(log, pdf) if not missing else empty, missing),
        one("book.pdf.double-bars", "no doubled double bar: \"||\" is text, not \\|\\| "
            "in math", double_bars(tex) if not missing else empty, missing)]
