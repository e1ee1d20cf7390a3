# SPDX-License-Identifier: GPL-2.0-only
"""Each line of each patch of the series, mapped to where it came from.

For every file git format-patch wrote, a list with one entry per line:
["book", N] (line N of the patch's edit script, or of cover.txt for the
cover letter), ["context"], ["removed"] or ["generated"].  A + line is
found through the hunk header: line c + k of the new file, whose origin
the series builder recorded when it put the line there.

One case is not positional: when a patch inserts a line whose text equals
a line already in the file beside it (a blank line, a closing brace),
git may show the old line as added and the new one as context.  Both
have the same text, so the + line is given the edit-script line of the
inserted twin that git shows as context in the same hunk.  A + line with
no such twin is an error: the patch and the edits disagree.
"""

import os
import re

from ..base import config

HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")


class LineMapError(Exception):
    pass


def _headers(text, i, subject_no, out):
    """Mail headers up to the first blank line: Subject (and its folded
    continuation lines) come from the subject line."""
    while i < len(text) and text[i] != "":
        if text[i].startswith("Subject:"):
            out[i] = ["book", subject_no]
            j = i + 1
            while j < len(text) and text[j].startswith(" "):
                out[j] = ["book", subject_no]
                j += 1
            i = j
            continue
        i += 1
    return i


def _message(text, i, nos, out):
    """The commit message up to '---': its lines in order are the message
    body's; the blank separator and the sign-off are generated."""
    i += 1
    k = 0
    while i < len(text) and text[i] != "---":
        if k < len(nos) and not text[i].startswith("Signed-off-by:"):
            out[i] = ["book", nos[k]]
            k += 1
        i += 1
    if k != len(nos):
        raise LineMapError(f"{k} of {len(nos)} message lines found in the patch")
    return i


def _hunk(text, i, new_no, origin, out):
    """One hunk from line i; returns the line after it."""
    pending = []          # + lines whose origin is not this patch's
    twins = {}            # text -> [edit-script line] of inserted lines shown as context
    while i < len(text) and text[i][:1] in ("+", " ", "-", "\\"):
        t, kind = text[i], text[i][:1]
        if kind == "\\":
            i += 1
            continue
        if kind == "-":
            out[i] = ["removed"]
            i += 1
            continue
        o = origin[new_no - 1] if 0 < new_no <= len(origin) else None
        if kind == "+":
            if o is None:
                pending.append(i)
            else:
                out[i] = ["book", o]
        else:
            out[i] = ["context"]
            if o is not None:
                twins.setdefault(t[1:], []).append(o)
        new_no += 1
        i += 1
    for k in pending:
        got = twins.get(text[k][1:])
        if not got:
            raise LineMapError(f"line {k + 1}: an added line the edits did not add")
        out[k] = ["book", got.pop(0)]
    return i


def patch_map(path, made):
    """The map of one patch file; made: what make_commits recorded."""
    with open(path, encoding="utf-8") as f:
        text = f.read().split("\n")
    if text and text[-1] == "":
        text = text[:-1]
    out = [["generated"] for _ in text]
    i = _headers(text, 0, made["subject"], out)
    i = _message(text, i, made["message"], out)
    origin = None
    while i < len(text):
        t = text[i]
        if t.startswith("diff --git "):
            m = re.match(r"diff --git a/(\S+) b/(\S+)", t)
            origin = made["origin"].get(m.group(2), []) if m else []
        elif HUNK.match(t) and origin is not None:
            i = _hunk(text, i + 1, int(HUNK.match(t).group(1)), origin, out)
            continue
        i += 1
    return out


def cover_map(path, cover):
    """The cover letter: its Subject is line 1 of cover.txt, its body the
    lines after it, up to git's short log ("Author (N):")."""
    with open(path, encoding="utf-8") as f:
        text = f.read().split("\n")
    if text and text[-1] == "":
        text = text[:-1]
    out = [["generated"] for _ in text]
    i = _headers(text, 0, 1, out)
    body = cover[1].split("\n")
    skip = len(body) - len(cover[1].lstrip("\n").split("\n"))
    first = 2 + skip                  # cover.txt line of the body's first line
    want = cover[1].strip("\n").split("\n")
    for k, line in enumerate(want):
        if i + 1 + k >= len(text) or text[i + 1 + k] != line:
            raise LineMapError(f"cover letter line {i + 2 + k} is not the chunk's")
        out[i + 1 + k] = ["book", first + k]
    return out


def series_map(outdir, patches, made, cover, cover_root):
    """{file name: {"root", "edits", "lines"}} for the cover letter and
    every patch."""
    todo = [("0000-cover-letter.patch", cover_root, "cover.txt",
             lambda p: cover_map(p, cover))]
    todo += [(name, m["root"], m["edits"], lambda p, m=m: patch_map(p, m))
             for name, m in zip(patches, made)]
    result = {}
    for name, root, edits, mapper in todo:
        try:
            lines = mapper(os.path.join(outdir, name))
        except LineMapError as e:
            config.die("series", f"the line map of {name}: {e}")
        result[name] = {"root": root, "edits": edits, "lines": lines}
    return result
