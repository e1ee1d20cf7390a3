# SPDX-License-Identifier: GPL-2.0-only
"""From the book to tangled/ and to the last run, and back.

- trace_outputs(): every line of every file in tangled/ (the patches and
  the `file` outputs of tangle.conf) is traced to the chunk definitions it
  came from, by expanding the book's roots with provenance (nwbook.Tangler)
  and matching the expansion against the committed files.  A line of a
  patch is one of: "book" (a + line, a commit message line or the subject:
  it came from a chunk), "context" or "removed" (the pristine kernel's),
  "generated" (mail headers, sign-off, diffstat, hunk headers: written by
  series.py and git format-patch), or "untraced" (a + line the book does
  not produce: tangled/ is stale, run make tangle).
- requirements(): the requirement blocks (tools/reqs.py) joined with the
  chunks they name, the lines those chunks became, the checks that test
  them, and the results of the last run in build/conformance/report.json.
"""

import hashlib
import json
import os
import re

import nwbook
import reqs as reqsmod

DIRECTIVE = nwbook.DIRECTIVE


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


def _match(runs, cands):
    """Assign stacks to the lines of `runs` ([(no, text)]) from `cands`
    ([(text, stack)]) by repeated longest common run; {no: stack}."""
    out = {}
    if not cands:
        return out
    by_text = {}
    for j, (t, _) in enumerate(cands):
        by_text.setdefault(t, []).append(j)
    used = set()
    i = 0
    while i < len(runs):
        best_j, best_k = None, 0
        for j in by_text.get(runs[i][1], ()):
            k = 0
            while (i + k < len(runs) and j + k < len(cands)
                   and runs[i + k][1] == cands[j + k][0]):
                k += 1
            if k > best_k or (k == best_k and best_j in used and j not in used):
                best_j, best_k = j, k
        if best_j is None:
            i += 1
            continue
        for k in range(best_k):
            out[runs[i + k][0]] = cands[best_j + k][1]
            used.add(best_j + k)
        i += best_k
    return out


def edit_ops(expansion):
    """Split an expanded edit script into ops: [(op, arg, stack, [(text, stack)])]."""
    ops = []
    for text, st in expansion:
        m = DIRECTIVE.match(text)
        if m:
            ops.append((m.group(1), m.group(2) or "", st, []))
        elif ops:
            ops[-1][3].append((text, st))
    return ops


def trace_patch(path, ops, no_in_series):
    """Trace one git format-patch file against its edit script's ops."""
    with open(path, encoding="utf-8") as f:
        text = f.read().split("\n")
    if text and text[-1] == "":
        text = text[:-1]
    lines = [Line(i + 1, t, "generated") for i, t in enumerate(text)]
    subject_stack = next((st for op, _, st, _ in ops if op == "subject"), ())
    message = [b for op, _, _, body in ops if op == "message" for b in body]
    by_path = {}
    cur = None
    for op, arg, st, body in ops:
        if op in ("write", "edit", "delete"):
            cur = arg
            if op == "write":
                by_path.setdefault(cur, []).extend(body)
        elif op in ("after", "before", "replace") and cur is not None:
            by_path.setdefault(cur, []).extend(body)
    i, n = 0, len(lines)
    # Mail headers up to the first blank line.
    while i < n and lines[i].text != "":
        if lines[i].text.startswith("Subject:"):
            lines[i].kind, lines[i].stack = "book", subject_stack
            j = i + 1
            while j < n and lines[j].text.startswith(" "):
                lines[j].kind, lines[j].stack = "book", subject_stack
                j += 1
        i += 1
    # The message body, up to '---'.
    body = []
    while i < n and lines[i].text != "---":
        if not lines[i].text.startswith("Signed-off-by:"):
            body.append((i, lines[i].text))
        i += 1
    got = _match(body, message)
    for k, _ in body:
        if k in got:
            lines[k].kind, lines[k].stack = "book", got[k]
    # The diff: per file, runs of + lines against that file's new lines.
    path_now = None
    run = []

    def flush():
        if run:
            got = _match(run, by_path.get(path_now, []))
            for k, _ in run:
                if k in got:
                    lines[k].kind, lines[k].stack = "book", got[k]
                else:
                    lines[k].kind = "untraced"
            run.clear()

    in_hunk = False
    while i < n:
        t = lines[i].text
        if t.startswith("diff --git "):
            flush()
            in_hunk = False
            m = re.match(r"diff --git a/(\S+) b/(\S+)", t)
            path_now = m.group(2) if m else None
        elif t.startswith("@@"):
            flush()
            in_hunk = True
        elif in_hunk and t.startswith("+"):
            run.append((i, t[1:]))
        elif in_hunk and t.startswith(" "):
            flush()
            lines[i].kind = "context"
        elif in_hunk and t.startswith("-"):
            lines[i].kind = "removed"
        elif in_hunk and t.startswith("\\"):
            pass
        else:
            flush()
            in_hunk = False
        i += 1
    flush()
    return lines


def trace_cover(path, expansion):
    with open(path, encoding="utf-8") as f:
        text = f.read().split("\n")
    if text and text[-1] == "":
        text = text[:-1]
    lines = [Line(i + 1, t, "generated") for i, t in enumerate(text)]
    if not expansion:
        return lines
    first = expansion[0]
    i, n = 0, len(lines)
    while i < n and lines[i].text != "":
        if lines[i].text.startswith("Subject:"):
            lines[i].kind, lines[i].stack = "book", first[1]
            j = i + 1
            while j < n and lines[j].text.startswith(" "):
                lines[j].kind, lines[j].stack = "book", first[1]
                j += 1
        i += 1
    # The letter ends where git's short log begins ("Author Name (N):").
    end = next((k for k in range(i + 1, n)
                if re.match(r"^\S.* \(\d+\):$", lines[k].text)), n)
    body = [(k, lines[k].text) for k in range(i + 1, end)]
    got = _match(body, expansion[1:])
    for k, _ in body:
        if k in got:
            lines[k].kind, lines[k].stack = "book", got[k]
    return lines


def trace_file(path, expansion):
    with open(path, encoding="utf-8") as f:
        text = f.read().split("\n")
    if text and text[-1] == "":
        text = text[:-1]
    lines = [Line(i + 1, t, "untraced") for i, t in enumerate(text)]
    got = _match([(i, t) for i, t in enumerate(text)], expansion)
    for k in got:
        lines[k].kind, lines[k].stack = "book", got[k]
    for ln in lines:
        if ln.kind == "untraced" and not ln.text.strip():
            ln.kind = "generated"    # a blank line we cannot place
    return lines


def series_files(top):
    path = os.path.join(top, "tangled/patches/series")
    try:
        with open(path) as f:
            return [ln.strip() for ln in f if ln.strip() and not ln.startswith("#")]
    except OSError:
        return []


def trace_outputs(top, conf, book):
    """[Output] for the cover letter, each patch, and each file output."""
    tangler = nwbook.Tangler(book)
    outs = []
    pdir = os.path.join(top, "tangled/patches")
    names = series_files(top)
    cover = sorted(f for f in (os.listdir(pdir) if os.path.isdir(pdir) else [])
                   if f.startswith("0000-"))
    if cover and conf.cover in book.defs:
        o = Output(f"tangled/patches/{cover[0]}", "cover letter", conf.cover)
        o.lines = trace_cover(os.path.join(pdir, cover[0]),
                              nwbook.expand_lines(tangler, conf.cover))
        outs.append(o)
    for k, name in enumerate(names):
        p = os.path.join(pdir, name)
        if not os.path.exists(p):
            continue
        chunk = conf.patches[k] if k < len(conf.patches) else None
        # A patch the book no longer makes (tangled/ is stale): nothing of
        # it can be traced.
        ops = (edit_ops(nwbook.expand_lines(tangler, chunk))
               if chunk in book.defs else [])
        o = Output(f"tangled/patches/{name}", f"patch {k + 1}", chunk)
        o.lines = trace_patch(p, ops, k + 1)
        if not ops:
            for ln in o.lines:
                if ln.kind == "book":
                    ln.kind, ln.stack = "untraced", ()
        outs.append(o)
    for out, chunk in conf.files:
        p = os.path.join(top, "tangled", out)
        if chunk not in book.defs or not os.path.exists(p):
            continue
        o = Output(f"tangled/{out}", f"file {out}", chunk)
        o.lines = trace_file(p, nwbook.expand_lines(tangler, chunk))
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
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f), path
    except (OSError, ValueError):
        return None, path


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 16), b""):
            h.update(block)
    return h.hexdigest()


def tangled_hashes(top):
    out = {}
    base = os.path.join(top, "tangled")
    for dp, _, fs in os.walk(base):
        for f in sorted(fs):
            p = os.path.join(dp, f)
            out[os.path.relpath(p, top)] = sha256(p)
    return dict(sorted(out.items()))


class Trace:
    """One requirement, joined with everything it points to."""

    def __init__(self, req):
        self.req = req
        self.chunks = []          # [(name, [definition labels])]
        self.unknown = []         # impl names no chunk has
        self.checks = []          # [(check id, status or None, check dict)]
        self.gaps = []            # "no chunk", "no check"

    @property
    def status(self):
        """pass | fail | skip | not run | gap"""
        if self.gaps and not self.req.accepted:
            return "gap"
        st = [s for _, s, _ in self.checks]
        if not st:
            return "gap" if not self.req.accepted else "accepted gap"
        if any(s == "fail" for s in st):
            return "fail"
        if any(s is None for s in st):
            return "not run"
        if all(s == "pass" for s in st):
            return "pass"
        return "skip" if all(s == "skip" for s in st) else "partly skipped"


def aggregate(cid, checks):
    """A check named by a requirement but reported only as its cases
    (cid.param1, cid.param2, ...: a parameterised KUnit case): one status
    for all of them, or None when there are none."""
    kids = [c for k, c in checks.items() if k.startswith(cid + ".")]
    if not kids:
        return None
    st = [c.get("status") for c in kids]
    status = ("fail" if "fail" in st else "pass" if all(s == "pass" for s in st)
              else "skip" if all(s == "skip" for s in st) else "pass")
    n = {s: st.count(s) for s in ("pass", "fail", "skip")}
    out = {"id": cid, "status": status,
           "title": f"{len(kids)} cases: {n['pass']} passed, {n['fail']} failed, "
                    f"{n['skip']} skipped"}
    bad = next((c for c in kids if c.get("status") == "fail"), None)
    if bad:
        out["reason"] = f"{bad['id']}: {bad.get('reason', '')}"
    return out


def requirements(conf, book, report, top=None):
    checks = {c["id"]: c for c in (report or {}).get("checks", [])}
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
        for cid in r.tests:
            c = checks.get(cid) or aggregate(cid, checks)
            t.checks.append((cid, c["status"] if c else None, c))
        if not r.impl:
            t.gaps.append("no chunk")
        if not r.tests:
            t.gaps.append("no check")
        out.append(t)
    return out
