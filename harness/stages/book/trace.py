# SPDX-License-Identifier: GPL-2.0-only
"""From the book to tangled/ and to the last run, and back.

- trace_outputs(): every line of every file in tangled/ (the patches and
  the `file` outputs of tangle.conf) is traced to the chunk definitions it
  came from.  A `file` output is noweb.provenance() of its root (notangle
  -L).  A patch line is found in the series' line map (series.py,
  build/tangle/lines.json: the edit-script line each + line, subject and
  message line came from), and that edit-script line in the provenance of
  the patch's root chunk.  A line is "book" (with its chunk stack),
  "context" or "removed" (the pristine kernel's), "generated" (mail
  headers, sign-off, diffstat, hunk headers), or "untraced" (the book no
  longer writes it: tangled/ is stale, run make tangle).
- requirements(): the requirement blocks (base/reqs.py) joined with the
  chunks they name, the lines those chunks became, the checks that test
  them, and the results of the last run in build/conformance/report.json.
"""

import os
import re

from ...base import config, evidence, files, noweb
from ...base import reqs as reqsmod

LINES = config.build("tangle/lines.json")


class Line:
    __slots__ = ("no", "text", "kind", "stack")

    def __init__(self, no, text, kind, stack=()):
        self.no, self.text, self.kind, self.stack = no, text, kind, stack


class Output:
    """One traced file of tangled/."""

    def __init__(self, path, title, root):
        self.path = path          # relative to the top, e.g. tangled/patches/0001-...
        self.title = title
        self.root = root          # the root chunk (edit script, file or cover letter)
        self.lines = []           # [Line]

    def count(self, kind):
        return sum(1 for ln in self.lines if ln.kind == kind)


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        text = f.read().split("\n")
    return text[:-1] if text and text[-1] == "" else text


def expansion(conf, book, root, cwd):
    """[(text, stack of labels)] of a root's expansion, or [] when the book
    does not define it."""
    if root not in book.defs:
        return []
    labels = {c.number: c.label for c in book.chunks}
    return [(t, tuple(labels[n] for n in st))
            for t, st in noweb.provenance(conf.sources, root, book, cwd=cwd)]


def shown_text(text):
    """What each line of a patch file shows of the book: the unfolded
    subject (without git's "[PATCH n/m] ") for the Subject header, the line
    without its "+" in the diff, the line itself in the message."""
    out, i = list(text), 0
    while i < len(text) and text[i] != "":
        if text[i].startswith("Subject:"):
            j = i + 1
            while j < len(text) and text[j].startswith(" "):
                j += 1
            subj = " ".join(t.strip() for t in [text[i][8:]] + text[i + 1:j])
            subj = re.sub(r"^\[PATCH[^\]]*\] ", "", subj)
            out[i:j] = [subj] * (j - i)
            i = j
            continue
        i += 1
    in_diff = False
    for k in range(i, len(text)):
        in_diff = in_diff or text[k].startswith("diff --git ")
        if in_diff and text[k].startswith("+"):
            out[k] = text[k][1:]
    return out


def trace_mapped(path, entry, exp):
    """Lines of one patch file from its line-map entry and its root's
    expansion; a line whose edit-script line the book no longer writes
    the same way is untraced."""
    text = read_lines(path)
    marks = entry.get("lines", []) if entry else []
    if len(marks) != len(text):
        return [Line(i + 1, t, "untraced") for i, t in enumerate(text)]
    shown = shown_text(text)
    out = []
    for i, (t, mark) in enumerate(zip(text, marks)):
        if mark[0] != "book":
            out.append(Line(i + 1, t, mark[0]))
            continue
        k = mark[1] - 1
        edit = exp[k][0] if 0 <= k < len(exp) else None
        if edit is not None and edit.startswith("%% subject "):
            edit = edit[len("%% subject "):]
        if edit == shown[i]:
            out.append(Line(i + 1, t, "book", exp[k][1]))
        else:
            out.append(Line(i + 1, t, "untraced"))
    return out


def trace_file(path, exp):
    text = read_lines(path)
    out = []
    for i, t in enumerate(text):
        if i < len(exp) and exp[i][0] == t and len(exp) == len(text):
            out.append(Line(i + 1, t, "book", exp[i][1]))
        else:
            out.append(Line(i + 1, t, "untraced" if t.strip() else "generated"))
    return out


def series_files(top):
    path = os.path.join(top, "tangled/patches/series")
    try:
        with open(path) as f:
            return [ln.strip() for ln in f if ln.strip() and not ln.startswith("#")]
    except OSError:
        return []


def trace_outputs(top, conf, book, lines_json=LINES):
    """[Output] for the cover letter, each patch, and each file output."""
    lmap = files.read_json(lines_json) or {}
    outs = []
    pdir = os.path.join(top, "tangled/patches")
    names = series_files(top)
    cover = "0000-cover-letter.patch"
    if os.path.exists(os.path.join(pdir, cover)):
        o = Output(f"tangled/patches/{cover}", "cover letter", conf.cover)
        o.lines = trace_mapped(os.path.join(pdir, cover), lmap.get(cover),
                               expansion(conf, book, conf.cover, top))
        outs.append(o)
    for k, name in enumerate(names):
        p = os.path.join(pdir, name)
        if not os.path.exists(p):
            continue
        chunk = conf.patches[k] if k < len(conf.patches) else None
        o = Output(f"tangled/patches/{name}", f"patch {k + 1}", chunk)
        entry = lmap.get(name)
        if entry and entry.get("root") != chunk:
            entry = None
        o.lines = trace_mapped(p, entry, expansion(conf, book, chunk, top))
        outs.append(o)
    for out, chunk in conf.files:
        p = os.path.join(top, "tangled", out)
        if chunk in book.defs and os.path.exists(p):
            o = Output(f"tangled/{out}", f"file {out}", chunk)
            o.lines = trace_file(p, expansion(conf, book, chunk, top))
            outs.append(o)
    return outs


def ranges(nos):
    """[1,2,3,7,8] -> [(1,3),(7,8)]."""
    out = []
    for n in sorted(set(nos)):
        if out and n == out[-1][1] + 1:
            out[-1][1] = n
        else:
            out.append([n, n])
    return [tuple(r) for r in out]


def fmt_ranges(rs):
    return ", ".join(f"{a}" if a == b else f"{a}–{b}" for a, b in rs)


def locations(outs):
    """{definition label: {output path: [line numbers]}}: where each chunk
    (with everything it uses) ended up."""
    loc = {}
    for o in outs:
        for ln in o.lines:
            if ln.kind != "book":
                continue
            for lab in ln.stack:
                loc.setdefault(lab, {}).setdefault(o.path, []).append(ln.no)
    return loc


def innermost_runs(o):
    """[(first, last, kind, innermost label)] over an output's lines."""
    runs = []
    for ln in o.lines:
        lab = ln.stack[-1] if ln.kind == "book" and ln.stack else None
        key = (ln.kind, lab)
        if runs and tuple(runs[-1][2:]) == key and runs[-1][1] == ln.no - 1:
            runs[-1][1] = ln.no
        else:
            runs.append([ln.no, ln.no, ln.kind, lab])
    return [tuple(r) for r in runs]


# ---------------------------------------------------------------------------
# Requirements and the last run

def load_report(top):
    path = os.path.join(top, "build/conformance/report.json")
    return files.read_json(path), path


# Runs that make check does not make, whose checks a requirement names with
# the run's prefix (modules.guest.x): the matrix shows their result from the
# run's report (build/, else the one make evidence recorded) and says which
# command makes it when there is none, and book-check does not ask make
# check's run for them.  prefix -> (record of base/evidence.py, command).
OPTIONAL_RUNS = {"modules": ("modules", "make modules-check")}


def optional_run(cid):
    """The command that makes check id cid, when only an optional run does."""
    prefix, _ = reqsmod.split_prefix(cid)
    return OPTIONAL_RUNS[prefix][1] if prefix in OPTIONAL_RUNS else None


def optional_checks(top, checks):
    """checks with the optional runs' own checks added ({id: check dict}),
    each marked with the command that made it."""
    out = dict(checks)
    for prefix, (record, cmd) in OPTIONAL_RUNS.items():
        rep, prov = evidence.load(record, top)
        where = cmd if not prov or prov["source"] == "build" else \
            f"{cmd}, recorded in {prov['path']}" + ("" if prov["current"] else
                                                   ", on other inputs")
        for c in (rep or {}).get("checks", []):
            if c.get("id", "").startswith(prefix + ".") and c["id"] not in out:
                out[c["id"]] = dict(c, run=where)
    return out


def tangled_hashes(top):
    return files.tree_hashes(os.path.join(top, "tangled"), top)


class Test:
    """One check id a requirement names, and its instances in the report:
    the check itself and the same check under each boot prefix (debug.,
    fips., nojent., modules.), each aggregated over its cases."""

    def __init__(self, cid):
        self.id = cid
        self.instances = []       # [(prefix, check dict)]

    @property
    def status(self):
        """pass | fail | partial | skipped | not run"""
        st = [c["status"] for _, c in self.instances]
        if not st:
            return "not run"
        if "fail" in st:
            return "fail"
        if all(s == "pass" for s in st):
            return "pass"
        if all(s == "skip" for s in st):
            return "skipped"
        return "partial"

    @property
    def check(self):
        """The unprefixed instance's check dict, or the first one, or None."""
        return self.instances[0][1] if self.instances else None


class Trace:
    """One requirement, joined with everything it points to."""

    def __init__(self, req):
        self.req = req
        self.chunks = []          # [(name, [definition labels])]
        self.unknown = []         # impl names no chunk has
        self.tests = []           # [Test]
        self.gaps = []            # "no chunk", "no check"

    @property
    def checks(self):
        """[(check id, status, check dict)], one per named check."""
        return [(t.id, t.status, t.check) for t in self.tests]

    @property
    def status(self):
        """pass | fail | partial | not run | gap | accepted gap: fail when
        any instance failed, pass when every named check ran and passed,
        not run when none ran (or all were skipped), partial otherwise."""
        if self.gaps and not self.req.accepted:
            return "gap"
        st = [t.status for t in self.tests]
        if not st:
            return "gap" if not self.req.accepted else "accepted gap"
        if "fail" in st:
            return "fail"
        if all(s == "pass" for s in st):
            return "pass"
        if all(s in ("not run", "skipped") for s in st):
            return "not run"
        return "partial"


def aggregate(cid, checks):
    """A check named by a requirement but reported only as its cases
    (cid.param1, cid.param2, ...: a parameterised KUnit case, the checks
    of a host test class, a CAVS file's records): one status for all of
    them (pass, fail, skip, or partial for passes beside skips), or None
    when there are none."""
    kids = [c for k, c in checks.items() if k.startswith(cid + ".")]
    if not kids:
        return None
    st = [c.get("status") for c in kids]
    status = ("fail" if "fail" in st else "pass" if all(s == "pass" for s in st)
              else "skip" if all(s == "skip" for s in st) else "partial")
    n = {s: st.count(s) for s in ("pass", "fail", "skip")}
    out = {"id": cid, "status": status,
           "title": f"{len(kids)} cases: {n['pass']} passed, {n['fail']} failed, "
                    f"{n['skip']} skipped"}
    bad = next((c for c in kids if c.get("status") == "fail"), None)
    if bad:
        out["reason"] = f"{bad['id']}: {bad.get('reason', '')}"
    elif status == "skip":
        out["reason"] = kids[0].get("reason", "")
    return out


def lookup(cid, checks):
    """A Test with every instance of check id cid in the report's checks
    ({id: check dict}).  An id given with its prefix names that instance
    only."""
    t = Test(cid)
    prefix, _ = reqsmod.split_prefix(cid)
    for p in ((prefix,) if prefix else ("",) + reqsmod.PREFIXES):
        key = f"{p}.{cid}" if p and not prefix else cid
        c = checks.get(key) or aggregate(key, checks)
        if c:
            t.instances.append((p, c))
    return t


def full_run(report):
    """The make check run the report comes from ({"id", "started", ...}),
    or None when it comes from make conform alone (or there is none)."""
    return (report or {}).get("full_run")


def requirements(conf, book, report, top=None):
    checks = {c["id"]: c for c in (report or {}).get("checks", [])}
    if top:
        checks = optional_checks(top, checks)
    out = []
    srcs = [os.path.join(top, s) for s in conf.sources] if top else conf.sources
    for r in reqsmod.read(srcs):
        if top:
            r.where = os.path.relpath(r.where.rsplit(":", 1)[0], top) + ":" + \
                r.where.rsplit(":", 1)[1]
        t = Trace(r)
        for name in r.impl:
            if name in book.defs:
                t.chunks.append((name, [d.label for d in book.defs[name]]))
            else:
                t.unknown.append(name)
        t.tests = [lookup(cid, checks) for cid in r.tests]
        if not r.impl:
            t.gaps.append("no chunk")
        if not r.tests:
            t.gaps.append("no check")
        out.append(t)
    return out
