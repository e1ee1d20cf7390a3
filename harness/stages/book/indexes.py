# SPDX-License-Identifier: GPL-2.0-only
"""Book part: the indexes of chunks and identifiers."""

from .md import code, esc, ident_anchor, name_md


def chunk_index(rd):
    out = ["", "# Index of chunks {- #index-chunks}", "",
           "Every chunk name, in alphabetical order, with the chunks that "
           "define it and the chunks that use it.", ""]
    for first, name, uses, defs in rd.book.chunk_index:
        ds = ", ".join(rd.chunk_ref(d, short=True) for d in defs)
        us = ", ".join(rd.chunk_ref(u, short=True) for u in uses)
        root = f"; {esc(rd.roots[name])}" if name in rd.roots else ""
        out.append(f"- ⟨{name_md(name)}⟩: defined in {ds or '–'}"
                   + (f"; used in {us}" if us else "; used nowhere" + root if not root
                      else root) + ".")
    out.append("")
    return out

def ident_index(rd):
    out = ["", "# Index of identifiers {- #index-identifiers}", "",
           "The C functions, structures, macros, variables and Kconfig "
           "options the book defines, found in the chunks by the book's "
           "own `autodefs` (`harness/base/nwbook.py`) and cross-referenced by "
           "noweb's `finduses` and `noidx`: where each is defined and "
           "the chunks that use it.", "",
           "| identifier | kind | defined in | used in |", "|------|--|--------|----|"]
    for name, defs, uses in rd.book.ident_index:
        kind = rd.book.kinds.get(name, "identifier")
        ds = ", ".join(rd.chunk_ref(d) for d in defs)
        us = ", ".join(rd.chunk_ref(u, short=True) for u in uses if u not in defs)
        out.append(f"| [{code(name)}]{{#{ident_anchor(name)}}} | {esc(kind)} | "
                   f"{ds or '–'} | {us or '–'} |")
    if not rd.book.ident_index:
        out.append("| (none) | | | |")
    out.append("")
    return out

# -- colophon ------------------------------------------------------------

