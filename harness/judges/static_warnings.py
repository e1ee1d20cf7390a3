# SPDX-License-Identifier: GPL-2.0-only
"""The static checkers' warnings, pristine against patched (issue 37, item 3).

What sparse (C=2), gcc with W=1, scripts/kernel-doc and coccicheck print
is parsed into Warning records, normalised so that the same warning in
6.1 and in the patched tree compare equal although the series moved it
(line numbers are dropped from the key and mapped through the diff of the
file), and compared: a warning of the patched tree is new unless the
pristine tree has one with the same checker, file and message text.

  parse(checker, text, roots)       -> [Warning]
  classify_make(text, roots)        -> {"sparse": [...], "w1": [...]}
  parse_cocci(text, roots)          -> [Warning] (coccicheck's only)
  line_map(old_lines, new_lines)    -> {new line: old line}
  compare(pristine, patched, maps)  -> [Warning] (the new ones)
  allowed(new, allow)               -> ([new not allowed], [(allowed, reason)])
  checks(results)                   -> [Check]

A new warning that the book argues is not a defect is allowed by a line
of conformance/checkers-allowlist.txt (a regex matched against
"checker file: message", a TAB, the reason); it is counted and listed
with its reason, and does not fail.
"""

import difflib
import re
from dataclasses import asdict, dataclass

from ..base.checks import Check

CHECKERS = {
    "sparse": "sparse (make C=2) on every file the series touches",
    "w1": "gcc with W=1 on every file the series touches",
    "kernel-doc": "scripts/kernel-doc -none on every .c and .h the series touches",
    "coccicheck": "coccicheck (MODE=report) on every .c the series touches",
}
# file:line[:col[-col]]: [severity:] message
LINE = re.compile(r"^(?P<file>[^\s:][^:]*?):(?P<line>\d+):(?:(?P<col>\d+)(?:-\d+)?:)?"
                  r"\s*(?:(?P<sev>warning|error|WARNING|ERROR|INFO|CHECK)\s*:)?"
                  r"\s*(?P<msg>.*\S)\s*$")
GCC_FLAG = re.compile(r"\[-W[^\]]*\]$|\[enabled by default\]$")


@dataclass(frozen=True)
class Warning:
    checker: str
    file: str
    line: int
    severity: str
    message: str

    @property
    def key(self):
        return (self.checker, self.file, normal_message(self.message, self.file))

    def __str__(self):
        return f"{self.file}:{self.line}: {self.severity}: {self.message}"

    @property
    def allow_key(self):
        return f"{self.checker} {self.file}: {self.message}"


def relative(path, roots):
    """A path as the tree names it: without the source or build directory
    in front (O= builds print absolute paths), without ./ or ../."""
    for r in sorted(roots, key=len, reverse=True):
        r = r.rstrip("/") + "/"
        if path.startswith(r):
            path = path[len(r):]
            break
    while path.startswith(("./", "../")):
        path = path.split("/", 1)[1]
    return path


def normal_message(msg, file=""):
    """The text two warnings are compared by: no line or column numbers
    (a checker may name another line of the same file), no source path."""
    msg = re.sub(r"(?:[\w./-]+)?:\d+(?::\d+)?(?:-\d+)?", ":N", msg)
    msg = re.sub(r"\b(line|lines)\s+\d+(\s*-\s*\d+)?", r"\1 N", msg)
    return re.sub(r"\s+", " ", msg).strip()


def parse(checker, text, roots=(), severity_default="warning"):
    """The warnings and errors of one checker's output; notes, context
    lines and progress lines are not warnings.  Duplicates (a header's
    warning printed once per file that includes it) count once."""
    out, seen = [], set()
    for raw in text.splitlines():
        m = LINE.match(raw.strip())
        if not m or not m.group("msg"):
            continue
        sev = (m.group("sev") or severity_default).lower()
        if sev not in ("warning", "error", "info", "check"):
            continue
        w = Warning(checker, relative(m.group("file"), roots), int(m.group("line")),
                    sev, m.group("msg"))
        if (w.file, w.line, w.message) not in seen:
            seen.add((w.file, w.line, w.message))
            out.append(w)
    return out


def classify_make(text, roots=()):
    """Split what `make C=2 W=1 obj.o ...` printed: gcc's diagnostics end
    with their option ([-Wfoo]) and have a column; sparse's have a column
    and no option; kernel-doc's (W=1 runs it on each .c) have no column and
    are left out here (the verb runs kernel-doc on every touched file
    itself, headers included)."""
    sparse, w1 = [], []
    for raw in text.splitlines():
        m = LINE.match(raw.strip())
        if not m or m.group("col") is None or m.group("sev") not in ("warning", "error"):
            continue
        (w1 if GCC_FLAG.search(m.group("msg")) else sparse).append(raw)
    return {"sparse": parse("sparse", "\n".join(sparse), roots),
            "w1": parse("w1", "\n".join(w1), roots)}


def parse_cocci(text, roots=()):
    """coccicheck's warnings from what its make printed: make compiles the
    objects it checks, and gcc's diagnostics (they end with their option)
    are not coccicheck's."""
    return parse("coccicheck", "\n".join(ln for ln in text.splitlines()
                                          if not GCC_FLAG.search(ln.rstrip())), roots)


def line_map(old_lines, new_lines):
    """{line of the patched file: line of the pristine file} for every line
    the series kept (1-based); lines it added are not in the map."""
    sm = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    out = {}
    for tag, i1, _, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            for k in range(j2 - j1):
                out[j1 + k + 1] = i1 + k + 1
    return out


def compare(pristine, patched, maps=None):
    """The warnings of patched that pristine does not have.  A patched
    warning is matched first to a pristine one with the same key at the
    line the diff maps it to, then to any left with the same key (a line
    the series rewrote around an old warning); what is left is new."""
    maps = maps or {}
    left = {}
    for w in pristine:
        left.setdefault(w.key, []).append(w)
    rest = []
    for w in patched:
        old = maps.get(w.file, {}).get(w.line)
        cands = left.get(w.key, [])
        hit = next((p for p in cands if old is not None and p.line == old), None)
        if hit:
            cands.remove(hit)
        else:
            rest.append(w)
    new = []
    for w in rest:
        cands = left.get(w.key, [])
        if cands:
            cands.pop(0)
        else:
            new.append(w)
    return new


def allowed(new, allow):
    """Split new warnings by the allowlist [(regex, reason)]."""
    left, ok = [], []
    for w in new:
        why = next((r for rx, r in allow if rx.search(w.allow_key)), None)
        if why is None:
            left.append(w)
        else:
            ok.append((w, why))
    return left, ok


def slug(path):
    return re.sub(r"[^A-Za-z0-9]+", "-", path).strip("-")


def checks(results, missing=None, allow=()):
    """One check per checker (counts: pristine, patched, new, allowed) and
    one failed check per new warning not allowed.  results: {checker:
    (pristine, patched, new)}; missing: {checker: reason} for a checker
    that could not run, which fails (a checker that did not run has not
    found nothing); allow: [(regex, reason)] (see allowed())."""
    out = []
    for name, title in CHECKERS.items():
        cid = f"host.checkers.{name}"
        if missing and name in missing:
            out.append(Check.failed(cid, title, missing[name], origin="host"))
            continue
        if name not in results:
            continue
        pristine, patched, new = results[name]
        new, ok = allowed(new, allow)
        counts = {"pristine": len(pristine), "patched": len(patched), "new": len(new),
                  "allowed": len(ok)}
        details = {"new": [asdict(w) for w in new[:100]],
                   "allowed": [dict(asdict(w), reason=why) for w, why in ok]}
        if new:
            out.append(Check.failed(cid, title, f"{len(new)} new warning(s) against "
                                    f"pristine 6.1; first: {new[0]}", origin="host",
                                    counts=counts, details=details))
        else:
            out.append(Check.passed(cid, title, origin="host", counts=counts))
        per_file = {}
        for w in new:
            per_file[w.file] = per_file.get(w.file, 0) + 1
            wid = f"{cid}.{slug(w.file)}.{w.line}"
            if per_file[w.file] > 1 and any(c.id == wid for c in out):
                wid += f".{per_file[w.file]}"
            out.append(Check.failed(wid, f"{name}: no new warning in {w.file}", str(w),
                                    origin="host", details=asdict(w)))
    return out
