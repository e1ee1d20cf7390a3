# SPDX-License-Identifier: GPL-2.0-only
"""make check's skips against the skips the project declares.

A skip is not a pass, and it is not a failure either: until it is
declared, nothing tells a reader whether it was meant.  The list
conformance/expected-skips.txt declares each skip make check makes on
purpose, with the reason it is expected, one line each:

    check-id pattern, a TAB, the reason

('#' starts a comment line; blank lines are ignored).  A pattern is a
check id in which '*' stands for any run of characters and '?' for one,
neither ever crossing a '.': a wildcard stays inside one part of the
dotted id.  A pattern whose last part is nothing but wildcards ("acvp.*",
"cavs.*.*") would take any future skip of a family, and is refused, as
is a pattern given twice.  A line the reader cannot take is an error
naming the file and the line.

Two checks come of it, in make check's summary:

  check.skips.expected  every skip of the run matches an entry; a skip
                        that matches none fails it, named with its reason
  check.skips.declared  every entry matched a skip of the run: a list
                        that says more is skipped than is, is no longer
                        true.  An entry whose checks ran and did not skip
                        fails it always; one whose checks are not in the
                        run at all fails it in a full run that failed
                        nothing else, and is a note when the run was
                        restricted (BOOTS, VECTORS: boots or sections
                        left out on purpose) or another check failed (a
                        step that broke leaves its checks out; the run
                        fails already, and says why).
"""

import re
from dataclasses import dataclass

from ..base import config
from ..base.checks import Check

LIST = "conformance/expected-skips.txt"
EXPECTED, DECLARED = "check.skips.expected", "check.skips.declared"
PATTERN_CHARS = re.compile(r"[A-Za-z0-9_.\-*?]+")


class ListError(ValueError):
    """A line of the list that cannot be taken: 'file:line: what'."""


@dataclass
class Entry:
    pattern: str
    reason: str
    line: int
    rx: re.Pattern

    def matches(self, cid):
        return self.rx.fullmatch(cid) is not None


def compile_pattern(pattern):
    """The regex of a pattern: '*' any run of characters but '.', '?' one."""
    rx = "".join("[^.]*" if ch == "*" else "[^.]" if ch == "?" else re.escape(ch)
                 for ch in pattern)
    return re.compile(rx)


def pattern_problem(pattern):
    """Why a pattern cannot be an entry, or None."""
    if not pattern:
        return "no check-id pattern before the TAB"
    if not PATTERN_CHARS.fullmatch(pattern):
        bad = sorted({ch for ch in pattern if not PATTERN_CHARS.fullmatch(ch)})
        return (f"pattern {pattern!r} has {' '.join(repr(c) for c in bad)}: a check id "
                "has letters, digits, '_', '-' and '.', a pattern also '*' and '?'")
    parts = pattern.split(".")
    if "" in parts:
        return f"pattern {pattern!r} has an empty part (two dots, or a dot at an end)"
    if not parts[-1].strip("*?"):
        return (f"pattern {pattern!r} is too wide: its last part is only wildcards, "
                "so it would take any future skip of the family")
    return None


def parse(text, path=LIST):
    """[Entry] of the list's text; ListError at the first bad line."""
    entries, seen = [], {}
    for no, ln in enumerate(text.splitlines(), 1):
        if not ln.strip() or ln.startswith("#"):
            continue
        where = f"{config.display(path)}:{no}"
        pattern, tab, reason = ln.partition("\t")
        if not tab:
            raise ListError(f"{where}: no TAB: a line is a check-id pattern, a TAB, "
                            "the reason")
        why = pattern_problem(pattern)
        if why:
            raise ListError(f"{where}: {why}")
        if not reason.strip():
            raise ListError(f"{where}: {pattern}: no reason after the TAB")
        if pattern in seen:
            raise ListError(f"{where}: {pattern}: declared already at line "
                            f"{seen[pattern]}")
        seen[pattern] = no
        entries.append(Entry(pattern, reason.strip(), no, compile_pattern(pattern)))
    return entries


def read(path=None):
    """[Entry] of the list file; ListError when it is absent or malformed."""
    path = path or config.top(LIST)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise ListError(f"{config.display(path)}: cannot be read: {e}")
    return parse(text, path)


def _field(c, name):
    return getattr(c, name) if isinstance(c, Check) else c.get(name)


def judge(checks, entries, restricted=()):
    """[check.skips.expected, check.skips.declared] over a run's checks
    (Checks or their JSON form); restricted names what the run was told
    to leave out (["BOOTS=main"]), empty for a full run."""
    skips = [c for c in checks if _field(c, "status") == "skip"]
    hits = {e.pattern: 0 for e in entries}
    unexpected = []
    for c in skips:
        mine = [e for e in entries if e.matches(_field(c, "id"))]
        for e in mine:
            hits[e.pattern] += 1
        if not mine:
            unexpected.append((_field(c, "id"), _field(c, "reason") or ""))
    title = f"every skip is declared, with its reason, in {LIST}"
    counts = {"skips": len(skips), "declared": len(skips) - len(unexpected),
              "unexpected": len(unexpected)}
    details = {"by_entry": hits, "unexpected": [{"id": i, "reason": r}
                                                for i, r in unexpected]}
    if unexpected:
        named = "; ".join(f"{i} ({r})" for i, r in unexpected)
        expected = Check.failed(EXPECTED, title, f"{len(unexpected)} skip(s) declared "
                                f"nowhere in {LIST}: {named}", origin="host",
                                counts=counts, details=details)
    else:
        expected = Check.passed(EXPECTED, title, origin="host", counts=counts,
                                details=details)
    return [expected, declared_check(checks, entries, hits, restricted)]


def declared_check(checks, entries, hits, restricted):
    """Each entry that matched no skip: ran (the list is wrong), or is not
    in the run (wrong in a full run that failed nothing else, else a
    note)."""
    ran, absent = [], []
    for e in entries:
        if hits[e.pattern]:
            continue
        st = sorted({_field(c, "status") for c in checks if e.matches(_field(c, "id"))})
        (ran if st else absent).append(f"{e.pattern} (line {e.line}: "
                                       + (f"ran: {'/'.join(st)}" if st else "not in the run")
                                       + ")")
    title = f"every entry of {LIST} matched a skip of the run"
    counts = {"entries": len(entries), "matched": sum(1 for n in hits.values() if n)}
    failed = sorted(_field(c, "id") for c in checks if _field(c, "status") == "fail")
    excused = restricted or failed
    stale = ran + ([] if excused else absent)
    details = {"stale": stale}
    if excused and absent:
        details["not_in_this_run"] = absent
        details["excused_by"] = (list(restricted) if restricted else
                                 [f"{len(failed)} failed check(s), first {failed[0]}"])
    if stale:
        return Check.failed(DECLARED, title, f"{len(stale)} declared skip(s) did not "
                            f"occur: {'; '.join(stale)}", origin="host", counts=counts,
                            details=details)
    return Check.passed(DECLARED, title, origin="host", counts=counts, details=details)


def verdicts(checks, path=None, restricted=()):
    """judge() on the list at path (default LIST), or one failure naming
    the file and line when the list cannot be read."""
    try:
        entries = read(path)
    except ListError as e:
        return [Check.failed(EXPECTED, f"the skips are judged against {LIST}", str(e),
                             origin="host")]
    return judge(checks, entries, restricted)
