#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Lint and tangle the book.

  nw.py lint                  check the noweb sources (exit 1 on any finding)
  nw.py tangle OUTDIR EDITDIR write tangled files to OUTDIR and the series'
                              edit scripts (one per patch, plus the cover
                              letter) to EDITDIR

The lint finds what notangle would silently get wrong:
  - a root chunk that tangle.conf does not name (a typo in a chunk name
    makes a new root whose code reaches no file);
  - a chunk that tangle.conf names but the book never defines;
  - a chunk used but never defined (notangle still writes the file);
  - '<<' in code that is neither '@<<' nor a use of a defined chunk
    (x = (a << 2) | (b >> 3) is read as a use of the chunk ' 2) | (b ');
  - trailing blanks on any line, and in any tangled output.
Defined and used names come from noweb's own front end (markup), so the
lint sees exactly what notangle sees.
"""

import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nwconf  # noqa: E402

MARKUP = "/usr/lib/noweb/markup"
DEF_RE = re.compile(r"^<<(.*)>>=\s*$")
END_RE = re.compile(r"^@(\s|$)")


def markup_defs_uses(sources):
    """Return ({name: [file:line of definitions]}, {name: [file:line of uses]})."""
    try:
        out = subprocess.run([MARKUP] + sources, check=True, capture_output=True,
                             text=True).stdout
    except FileNotFoundError:
        sys.exit(f"nw: {MARKUP} not found: install noweb (make deps)")
    except subprocess.CalledProcessError as e:
        sys.exit(f"nw: markup failed: {e.stderr.strip()}")
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


def scan_code_lines(path):
    """Yield (line number, text) of every line inside a code chunk."""
    in_code = False
    with open(path, encoding="utf-8") as f:
        for no, text in enumerate(f, 1):
            text = text.rstrip("\n")
            if DEF_RE.match(text):
                in_code = True
                continue
            if in_code and END_RE.match(text):
                in_code = False
                continue
            if in_code:
                yield no, text


def literal_shifts(text, defined):
    """Columns of '<<' in a code line that are not '@<<' or a defined use."""
    bad = []
    i = 0
    while True:
        i = text.find("<<", i)
        if i < 0:
            return bad
        if i > 0 and text[i - 1] == "@":
            i += 2
            continue
        close = text.find(">>", i + 2)
        if close >= 0 and text[i + 2:close] in defined:
            i = close + 2
            continue
        bad.append(i + 1)
        i += 2


def lint(conf):
    problems = []
    for src in conf.sources:
        if not os.path.exists(src):
            problems.append(f"{src}: listed in {conf.path} but missing")
    if problems:
        return problems
    defs, uses = markup_defs_uses(conf.sources)
    named = dict(conf.named_chunks())
    for name, what in named.items():
        if name not in defs:
            problems.append(f"{conf.path}: {what} names chunk <<{name}>>, "
                            "which no source defines")
    for name, where in sorted(defs.items()):
        if name not in uses and name not in named:
            problems.append(f"{where[0]}: root chunk <<{name}>> is not named in "
                            f"{conf.path} (a typo in a chunk name? its code "
                            "reaches no output)")
    for name, where in sorted(uses.items()):
        if name not in defs:
            for w in where:
                problems.append(f"{w}: use of undefined chunk <<{name}>> "
                                "(write @<< for a literal shift)")
    for src in conf.sources:
        with open(src, encoding="utf-8") as f:
            for no, text in enumerate(f, 1):
                if text.rstrip("\n") != text.rstrip("\n").rstrip(" \t"):
                    problems.append(f"{src}:{no}: trailing blanks")
        for no, text in scan_code_lines(src):
            for col in literal_shifts(text, defs):
                close = text.find(">>", col + 1)
                if close >= 0:
                    continue  # already reported as an undefined use
                problems.append(f"{src}:{no}:{col}: '<<' in code: write '@<<' "
                                "for a literal shift")
    return problems


def notangle(conf, chunk, dest):
    """Tangle one chunk into dest; never leave a partial or broken file."""
    os.makedirs(os.path.dirname(dest) or ".", exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(dest) or ".",
                               prefix=".tangle-")
    try:
        with os.fdopen(fd, "w") as out:
            r = subprocess.run(["notangle", "-t8", "-R" + chunk] + conf.sources,
                               stdout=out, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            msg = r.stderr.strip().replace("\n", "; ")
            raise SystemExit(f"nw: notangle <<{chunk}>> failed: {msg}")
        with open(tmp, encoding="utf-8") as f:
            for no, text in enumerate(f, 1):
                if text.rstrip("\n") != text.rstrip("\n").rstrip(" \t"):
                    raise SystemExit(f"nw: <<{chunk}>> line {no} of its output "
                                     "has trailing blanks")
        os.chmod(tmp, 0o644)
        os.replace(tmp, dest)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def tangle(conf, outdir, editdir):
    for out, chunk in conf.files:
        notangle(conf, chunk, os.path.join(outdir, out))
    os.makedirs(editdir, exist_ok=True)
    for old in os.listdir(editdir):
        os.unlink(os.path.join(editdir, old))
    for i, chunk in enumerate(conf.patches, 1):
        notangle(conf, chunk, os.path.join(editdir, f"{i:04d}.edits"))
    notangle(conf, conf.cover, os.path.join(editdir, "cover.txt"))


def main(argv):
    conf = nwconf.load()
    if argv[1:2] == ["lint"]:
        problems = lint(conf)
        for p in problems:
            print(p, file=sys.stderr)
        if problems:
            print(f"nw lint: {len(problems)} problem(s)", file=sys.stderr)
            return 1
        print(f"nw lint: {len(conf.sources)} sources, "
              f"{len(conf.patches)} patches, {len(conf.files)} files: clean")
        return 0
    if argv[1:2] == ["tangle"] and len(argv) == 4:
        problems = lint(conf)
        if problems:
            for p in problems:
                print(p, file=sys.stderr)
            return 1
        tangle(conf, argv[2], argv[3])
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
