# SPDX-License-Identifier: GPL-2.0-only
"""Book part: the colophon (how the book and tangled/ were made)."""

import datetime
import os
import shlex
import subprocess
import sys

from ...base import proc
from .md import code, esc

PANDOC = "pandoc"
PDFLATEX = "pdflatex"
FENCE = "~~~~"


def tools_table(rd):
    first = proc.first_line
    pkgs = [("noweb", "noweb", ""),      # noweb prints no version of its own
            ("pandoc", "pandoc", first([PANDOC, "--version"])),
            ("gcc", "gcc-12", first(["gcc", "--version"])),
            ("QEMU", "qemu-system-x86", first(["qemu-system-x86_64", "--version"])),
            ("kernel source", rd.conf.base_package, ""),
            ("kernel config", "linux-config-6.1", ""),
            ("git", "git", ""),
            ("Python", "python3", sys.version.split()[0]),
            ("matplotlib", "python3-matplotlib", ""),
            ("LaTeX", "texlive-latex-recommended", first([PDFLATEX, "--version"])),
            ("Chromium", "chromium", ""),
            ("chromedriver", "chromium-driver", ""),
            ("Selenium", "python3-selenium", "")]
    ran = (rd.report or {}).get("packages", {})
    rows = ["Versions installed where this book was rendered, and (last "
            "column) those `build/conformance/report.json` recorded for the "
            "last run, which may have been on another machine.", "",
            "| tool | Debian package | version here | reports itself as | in the last run |",
            "|--|---|---|----|---|"]
    for tool, pkg, selfv in pkgs:
        rows.append(f"| {esc(tool)} | {code(pkg)} | {code(proc.dpkg_version(pkg))} | "
                    f"{esc(selfv) or '–'} | {code(ran[pkg]) if pkg in ran else '–'} |")
    return rows


def tangle_commands(conf):
    """What make tangle does, spelled out."""
    cmds = ["# the packages (make deps does this; the kernel source is pinned):",
            "tools/deps.sh build",
            "# then either",
            "make tangle",
            "# or, spelled out, what make tangle does:",
            "/usr/bin/python3 -m harness lint",
            "# the sources, in the order of tangle.conf:"]
    cmds += [("SRCS=\"" if i == 0 else "      ") + shlex.quote(src) +
             ("\"" if i == len(conf.sources) - 1 else "")
             for i, src in enumerate(conf.sources)]
    for out_, chunk in conf.files:
        cmds.append(f"notangle -t8 -R{shlex.quote(chunk)} $SRCS > "
                    f"tangled/{shlex.quote(out_)}")
    cmds.append("mkdir -p build/tangle/edits")
    for i, chunk in enumerate(conf.patches, 1):
        cmds.append(f"notangle -t8 -R{shlex.quote(chunk)} $SRCS > "
                    f"build/tangle/edits/{i:04d}.edits")
    if conf.cover:
        cmds.append(f"notangle -t8 -R{shlex.quote(conf.cover)} $SRCS > "
                    "build/tangle/edits/cover.txt")
    cmds.append("/usr/bin/python3 -m harness series build/tangle/edits tangled/patches")
    return cmds


def render_stamp(top):
    git = {}
    for key, cmd in (("commit", ["git", "rev-parse", "HEAD"]),
                     ("dirty", ["git", "status", "--porcelain"])):
        try:
            git[key] = subprocess.run(cmd, capture_output=True, text=True,
                                      cwd=top).stdout.strip()
        except OSError:
            git[key] = ""
    when = os.environ.get("SOURCE_DATE_EPOCH")
    stamp = (datetime.datetime.fromtimestamp(int(when), datetime.timezone.utc)
             if when else datetime.datetime.now(datetime.timezone.utc))
    state = " with uncommitted changes" if git.get("dirty") else ""
    return (f"This book was rendered on {stamp.strftime('%Y-%m-%d %H:%M UTC')} "
            f"from commit {code(git.get('commit', '?')[:12] or '?')}{state}")


def colophon(rd):
    conf = rd.conf
    out = ["", "# Colophon {- #colophon}", "",
           render_stamp(rd.top) + f" by `make book` (`python3 -m harness book`), from "
           f"{len(conf.sources)} noweb sources in the order of `tangle.conf`: "
           + ", ".join(code(s) for s in conf.sources) + ".", "",
           "## Tools {- #colophon-tools}", ""] + tools_table(rd) + [
           "", "## Regenerating tangled/ from this book {- #colophon-tangle}", "",
           "`make tangle` regenerates `tangled/` from the noweb sources; "
           "`make drift` checks that the committed files are what it makes, "
           "byte for byte.  On Debian 12 (bookworm, amd64), from a checkout "
           "of this book's commit, with the pinned kernel source package "
           f"{code(conf.base_package + '=' + conf.base_version)} "
           "(the series builder imports its tarball into a git tree in the "
           "kernel cache, `~/.cache/literate-drbg` unless `KCACHE` says "
           "otherwise, and commits each patch there with the identity and "
           "date of `tangle.conf`):", "",
           FENCE + " {.bash}"] + tangle_commands(conf) + [FENCE, "",
           "`python3 -m harness tangle` runs these `notangle` commands through a "
           "temporary file each (a failed one leaves no partial output) and "
           "refuses output with trailing blanks.  "
           "Each `notangle` writes one root chunk; the edit scripts say where "
           "each chunk goes in the kernel tree (the chapter on the pipeline "
           "describes their language), and the series builder "
           "(`harness/stages/series.py`) applies them one patch at a time and "
           "runs `git format-patch --no-signature --abbrev=12`.", "",
           "## How this book was made {- #colophon-render}", "",
           "noweb's front end (`markup -t`, then the book's `autodefs`, "
           "`finduses -noquote`, `noidx`) reads the sources; "
           "`harness/stages/book/` writes pandoc Markdown with one anchor per chunk "
           "(noidx's label) and traces each line of `tangled/` to its chunk "
           "with `notangle -L`; pandoc writes HTML and LaTeX; `pdflatex` "
           "writes the PDF.  `make book-check` checks that the build has no "
           "warnings, that every link resolves, that every chunk is in "
           "the HTML, that Chromium, driven through WebDriver (chromedriver "
           "and Selenium), loads the page without a console error and "
           "without sideways scrolling on a laptop or a phone, that "
           "every requirement has a chunk, a check and a precise clause, that "
           "in a book built by `make check` every check the matrix traces ran, "
           "and that the PDF has no line more than 5 pt too wide, nothing in "
           "the margin, no code chunk begun at a page's foot, no missing "
           "glyph and no doubled double bar where a table meant ||.", ""]
    if not os.path.exists(os.path.join(rd.top, "tangled/patches/series")):
        out += ["`tangled/` holds no series yet.", ""]
    return out
