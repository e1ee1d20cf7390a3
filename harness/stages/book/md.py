# SPDX-License-Identifier: GPL-2.0-only
"""pandoc Markdown helpers of the book: escaping, inline code, chunk names
with their [[code]], anchors, status labels."""

import html
import os
import re

LANG_CLASS = {"c": "c", "makefile": "makefile", "bash": "bash", "python": "python",
              "kconfig": "kconfig", "text": "text", "editscript": "editscript"}
PLACEHOLDER = "NWUSEQ{:05d}Z"
PLACEHOLDER_RE = re.compile(r"NWUSEQ(\d{5})Z")


# ---------------------------------------------------------------------------
# Markdown helpers

# A paragraph in small type, ragged right, in the PDF (nothing in HTML).
SMALL = "`\\begingroup\\footnotesize\\raggedright{}`{=latex}"
END_SMALL = "`\\par\\endgroup`{=latex}"



def small_table(lines, size="footnotesize"):
    """A generated table in small type in the PDF (as it is in HTML): its
    numbers would run past the margin in the text size."""
    return (["```{=latex}", f"\\begingroup\\{size}", "```", ""] + list(lines)
            + ["", "```{=latex}", "\\endgroup", "```", ""])


def when(iso):
    """An ISO 8601 time of a report as text that can break at its space:
    2026-12-03T22:44:59+00:00 -> 2026-12-03 22:44:59 UTC."""
    s = str(iso or "?")
    return s.replace("T", " ", 1).replace("+00:00", " UTC")


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


def breakable(s, run=24):
    """Text with a zero-width space after + , = / in every run of more than
    `run` characters without a blank (x^64+x^61+...): it wraps in a narrow
    column, in HTML and in the PDF, and reads the same."""
    def fix(m):
        return re.sub(r"([+,=/])(?=\S)", "\\1\u200b", m.group(0))
    return re.sub(r"\S{%d,}" % (run + 1), fix, s)


def table(header, widths, rows):
    """A pipe table whose columns take the given shares of the text width
    (pandoc sizes them by the dashes of the separator line when a line is
    longer than 72 characters, and this separator always is)."""
    total = sum(widths)
    sep = "|" + "|".join("-" * max(3, round(90 * w / total)) for w in widths) + "|"
    out = ["| " + " | ".join(header) + " |", sep]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out + [""]


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


STATUS_CLASS = {"pass": "pass", "fail": "fail", "skip": "skip", "skipped": "skip",
                "partial": "partial", "gap": "gap", "not run": "notrun",
                "accepted gap": "accepted", None: "notrun"}


def status_md(st):
    cls = STATUS_CLASS.get(st, "notrun")
    return f"[{esc(st or 'not run')}]{{.st .st-{cls}}}"


