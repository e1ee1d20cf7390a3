# SPDX-License-Identifier: GPL-2.0-only
"""Book parts: the document control at the front (title page lines,
version, commit, the run the evidence comes from, the revision history),
and the glossary and references at the back, drawn from book/glossary.json
and book/references.json.

Every reference must be cited in the book (a link to #ref-KEY), and every
citation must name an entry: a build warning otherwise.
"""

import datetime
import json
import os
import re
import subprocess

from . import matrix
from .md import code, esc, table

REFERENCES = "book/references.json"
GLOSSARY = "book/glossary.json"
HISTORY = 12


def git(top, *args):
    try:
        r = subprocess.run(["git", "-C", top] + list(args), capture_output=True, text=True)
    except OSError:
        return ""
    return r.stdout.strip() if r.returncode == 0 else ""


def render_time():
    when = os.environ.get("SOURCE_DATE_EPOCH")
    stamp = (datetime.datetime.fromtimestamp(int(when), datetime.timezone.utc)
             if when else datetime.datetime.now(datetime.timezone.utc))
    return stamp.strftime("%Y-%m-%d %H:%M UTC")


def facts(rd):
    """Version, date and commit of the book as rendered, from git."""
    srcs = rd.conf.sources + ["tangle.conf"]
    commit = git(rd.top, "rev-parse", "HEAD")
    dirty = bool(git(rd.top, "status", "--porcelain", "--", *srcs))
    count = git(rd.top, "rev-list", "--count", "HEAD", "--", *srcs)
    return {"commit": commit, "dirty": dirty,
            "revision": int(count) if count.isdigit() else None,
            "date": git(rd.top, "log", "-1", "--format=%cs", "HEAD"),
            "rendered": render_time()}


def version_text(f):
    if f["revision"] is None:
        return "not under version control"
    v = f"revision {f['revision']}"
    return v + (" with uncommitted changes" if f["dirty"] else "")


def title_block(rd, f):
    """A YAML block with the title page's date line: version, date, commit,
    and what run the evidence comes from."""
    commit = f["commit"][:12] or "none"
    line1 = (f"Version: {version_text(f)} of {f['date'] or '?'}, commit {commit}; "
             f"rendered {f['rendered']}")
    line2 = "Evidence: " + matrix.run_line(rd.report)
    return ["---", "date: |", "  " + esc(line1) + "\\", "  " + line2, "---", ""]


def history(rd):
    srcs = rd.conf.sources + ["tangle.conf"]
    log = git(rd.top, "log", f"-{HISTORY}", "--format=%cs%x09%h%x09%s", "HEAD", "--", *srcs)
    rows = []
    for ln in log.splitlines():
        date, h, subject = (ln.split("\t", 2) + ["", ""])[:3]
        rows.append([esc(date), code(h), esc(subject)])
    return rows


def front(rd):
    """The document control section, before the book's first part."""
    f = facts(rd)
    rep = rd.report or {}
    rows = [["version", esc(version_text(f)) + " (the number of commits that "
             "changed the book's sources or `tangle.conf`)"],
            ["date", esc(f["date"] or "?") + " (the commit's)"],
            ["commit", code(f["commit"] or "none")],
            ["rendered", esc(f["rendered"]) + ", by `make book`"],
            ["evidence", matrix.run_line(rd.report)],
            ["conformance report", code("build/conformance/report.json") +
             (f" of {esc(str(rep.get('started')))}" if rep else " (absent)")],
            ["kernel base", esc(f"{rd.conf.base_package} {rd.conf.base_version}")],
            ["sources", f"{len(rd.conf.sources)} noweb files (see the "
             "[colophon](#colophon))"]]
    out = title_block(rd, f) + ["# Document control {- #document-control}", "",
                                "What this copy of the book is, and what run its "
                                "results come from.", ""]
    out += table(["", ""], [1, 4], rows)
    hist = history(rd)
    if hist:
        out += ["The last changes to the book's sources:", ""]
        out += table(["date", "commit", "subject"], [2, 2, 8], hist)
    out += ["The documents the book cites are listed, with their editions, "
            "under [References](#references); its terms under "
            "[Glossary](#glossary).", ""]
    return out


def slug(term):
    return re.sub(r"[^a-z0-9]+", "-", term.lower()).strip("-")


def load(rd, path, warn):
    try:
        with open(os.path.join(rd.top, path), encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        warn(f"{path}: {e}")
        return None


def glossary(rd):
    out = ["", "# Glossary {- #glossary}", "",
           "The terms of the book that are the kernel's, the standards' or "
           "the project's own, in alphabetical order.", ""]
    data = load(rd, GLOSSARY, lambda m: rd.warn("book", m))
    for e in sorted((data or {}).get("entries", []), key=lambda e: e["term"].lower()):
        out += [f"[{esc(e['term'])}]{{#gloss-{slug(e['term'])}}}", f":   {e['text']}", ""]
    return out


def references(rd, md_text):
    """The bibliography; warns about entries no text cites and citations
    of entries that do not exist."""
    out = ["", "# References {- #references}", "",
           "The documents the book cites, with their exact editions, and the "
           "kernel commits it names, by their mainline ids.", ""]
    data = load(rd, REFERENCES, lambda m: rd.warn("book", m))
    keys = set()
    for g in (data or {}).get("groups", []):
        out += [f"## {esc(g['title'])} {{- #references-{slug(g['title'])}}}", ""]
        for e in g["entries"]:
            keys.add(e["key"])
            tail = ""
            if e.get("id"):
                tail += f" {esc(e['id'])}."
            if e.get("url"):
                tail += f" <{e['url']}>"
            out += [f"[**{esc(e['label'])}**]{{#ref-{e['key']}}}: {e['text']}{tail}", ""]
    cited = set(re.findall(r"\(#ref-([A-Za-z0-9._-]+)\)", md_text))
    for k in sorted(keys - cited):
        rd.warn("book", f"{REFERENCES}: entry {k} is cited nowhere (cite it as "
                f"[label](#ref-{k}) or remove it)")
    for k in sorted(cited - keys):
        rd.warn("book", f"a citation names #ref-{k}, which {REFERENCES} does not have")
    return out
