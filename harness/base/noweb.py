# SPDX-License-Identifier: GPL-2.0-only
"""noweb's own tools, run for the harness: markup, notangle, notangle -L.

There is one tangler, noweb's notangle.  Where the harness needs to know
which chunk a line of a tangled file came from (the book's traceability),
it asks notangle itself: `notangle -L` writes a line marker wherever the
source position changes.  Those markers change only white space (the
indentation of a use is dropped and a partial line is broken before a
marker), so every line of the real output is matched to the annotated
output by its non-blank characters: exact, with no guessing by content.
The chain of chunks a line sits in (its stack) follows from the order of
the markers and the order of the uses in the chunks (a walk of the chunk
graph, never of its text).
"""

import os
import re
import subprocess
import tempfile

from . import config

LIB = "/usr/lib/noweb"
MARKUP = os.path.join(LIB, "markup")
MARK = "\x01NWLINE"
MARK_RE = re.compile("^" + MARK + r" (.*) (\d+)\x02$")


class NowebError(Exception):
    pass


def run(cmd, inp=None, cwd=None):
    """Run one noweb stage; return (stdout, stderr).  Fail on a non-zero exit."""
    try:
        r = subprocess.run(cmd, input=inp, capture_output=True, text=True,
                           cwd=cwd or config.TOP)
    except FileNotFoundError:
        raise NowebError(f"{cmd[0]} not found: install noweb (make deps)")
    if r.returncode != 0:
        raise NowebError(f"{os.path.basename(cmd[0])} exited {r.returncode}: "
                         f"{r.stderr.strip()[:500]}")
    return r.stdout, r.stderr


def defs_uses(sources):
    """({name: [file:line of definitions]}, {name: [file:line of uses]})
    from noweb's front end, so that the lint sees what notangle sees."""
    out, _ = run([MARKUP] + list(sources))
    defs, uses = {}, {}
    fname, line = "?", 1
    for rec in out.split("\n"):
        if rec.startswith("@file "):
            fname, line = rec[6:], 1
        elif rec == "@nl":
            line += 1
        elif rec.startswith("@defn "):
            defs.setdefault(rec[6:], []).append(f"{fname}:{line}")
        elif rec.startswith("@use "):
            uses.setdefault(rec[5:], []).append(f"{fname}:{line}")
    return defs, uses


def expand(sources, root, lines_marked=False, cwd=None):
    """notangle -t8 of one root: its text.  An undefined chunk is an error
    (notangle would still write the rest)."""
    cmd = ["notangle", "-t8", "-R" + root]
    if lines_marked:
        cmd.append(f"-L{MARK} %F %L\x02%N")
    try:
        r = subprocess.run(cmd + list(sources), capture_output=True, text=True,
                           cwd=cwd or config.TOP)
    except FileNotFoundError:
        raise NowebError("notangle not found: install noweb (make deps)")
    if r.returncode != 0:
        raise NowebError(f"notangle <<{root}>> failed: "
                         f"{r.stderr.strip().replace(chr(10), '; ')}")
    return r.stdout


def tangle_to(sources, root, dest):
    """Tangle one root into dest; never leave a partial or broken file, nor
    one with trailing blanks."""
    text = expand(sources, root)
    for no, line in enumerate(text.split("\n"), 1):
        if line != line.rstrip(" \t"):
            raise NowebError(f"<<{root}>> line {no} of its output has trailing blanks")
    os.makedirs(os.path.dirname(dest) or ".", exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(dest) or ".", prefix=".tangle-")
    try:
        with os.fdopen(fd, "w") as out:
            out.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, dest)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


# ---------------------------------------------------------------------------
# Provenance: which chunk each output line came from

def _annotated_pieces(text):
    """[(file, line, piece text)] of the non-blank lines of notangle -L
    output, each with the source position it came from.  (Blank lines
    carry no position: notangle writes no marker before a newline alone.)"""
    pieces, pos = [], None
    for ln in text.split("\n"):
        m = MARK_RE.match(ln)
        if m:
            pos = [m.group(1), int(m.group(2))]
            continue
        if ln.strip():
            if pos is None:
                raise NowebError("notangle -L output does not start with a marker")
            pieces.append((pos[0], pos[1], ln))
        if pos is not None:
            pos[1] += 1
    return pieces


def line_positions(plain, annotated):
    """For each line of the plain output (without the open line after the
    final newline), the source (file, line) it came from; None for a blank
    line.  The annotated output differs from the plain one in white space
    only: its non-blank characters are matched one to one."""
    pieces = _annotated_pieces(annotated)
    lines = plain.split("\n")
    if lines and lines[-1] == "":
        lines = lines[:-1]
    out, k = [], 0
    for no, real in enumerate(lines, 1):
        want = "".join(real.split())
        if not want:
            out.append(None)
            continue
        got, first = "", None
        while k < len(pieces) and len(got) < len(want):
            first = first or pieces[k][:2]
            got += "".join(pieces[k][2].split())
            k += 1
        if got != want:
            raise NowebError(f"line {no} ({real.strip()[:40]!r}) does not match "
                             "notangle -L's output")
        out.append(first)
    if k != len(pieces):
        raise NowebError("notangle -L wrote more text than notangle")
    return out


def chunk_at(book):
    """{(file, line): chunk number} for every code line of every chunk."""
    at = {}
    for c in book.chunks:
        for i in range(len(c.lines)):
            at[(c.src, c.line + 1 + i)] = c.number
    return at


def walk(book, name, stack=()):
    """The chunk graph below name, in expansion order: a stack of chunk
    numbers at every entry into a definition and every return to one."""
    for d in book.defs.get(name, []):
        if d.number in stack:
            continue
        here = stack + (d.number,)
        yield here
        for line in d.lines:
            for p in line:
                if p[0] == "use":
                    yield from walk(book, p[1], here)
                    yield here


def _common(a, b):
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]


def provenance(sources, root, book, cwd=None):
    """[(text, stack of chunk numbers, innermost last)] for every line of
    root's expansion; book is the markup's Book (nwbook.parse).  A blank
    line gets the chunks its neighbours share: the chunk whose newline it
    is, in all but a blank last line of a used chunk."""
    plain = expand(sources, root, cwd=cwd)
    pos = line_positions(plain, expand(sources, root, lines_marked=True, cwd=cwd))
    at = chunk_at(book)
    events = list(walk(book, root))
    lines = plain.split("\n")
    if lines and lines[-1] == "":
        lines = lines[:-1]
    stacks, e = [], 0
    for p in pos:
        if p is None:
            stacks.append(None)
            continue
        num = at.get(tuple(p))
        if num is None:
            raise NowebError(f"<<{root}>>: {p[0]}:{p[1]} is in no code chunk")
        while e < len(events) and events[e][-1] != num:
            e += 1
        if e == len(events):
            raise NowebError(f"<<{root}>>: chunk {num} out of expansion order")
        stacks.append(events[e])
    prev = None
    for i, st in enumerate(stacks):
        if st is not None:
            prev = st
            continue
        nxt = next((s for s in stacks[i + 1:] if s is not None), None)
        stacks[i] = (_common(prev, nxt) if prev and nxt else prev or nxt
                     or tuple(d.number for d in book.defs.get(root, [])[:1]))
    return list(zip(lines, stacks))
