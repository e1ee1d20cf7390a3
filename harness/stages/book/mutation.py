# SPDX-License-Identifier: GPL-2.0-only
"""The hardening appendix's section on the mutation score of the series,
from build/mutants/series.json (`make mutants`, not part of make check).

    section(series, esc, code, notes) -> [markdown lines]

series is the JSON the verb mutants writes (None when it has not run):
per part its last run, with the counts and kill rate per file, every
mutant's verdict and the wall time.  Without it the section is a
placeholder naming the command; survivors are named in the text,
not given as build notes: a recorded run's verdicts are evidence for the
issue to judge, not a reason for make check to fail.
"""

from collections import Counter

from ..kmutants_report import judged
from .md import small_table, table

PATH = "build/mutants/series.json"
PARTS = ("drbg", "random", "jitter")
HEAD = "## Mutation score of the series {- #hardening-mutants}"
INTRO = ("`make mutants` changes the series' own code one small defect at a "
         "time (a comparison negated, a constant moved by one, a call or a "
         "zeroisation deleted, two arguments swapped, a function returning at "
         "once) and boots the kernel with each, running the boots that cover "
         "the file; a mutant is killed when a check fails or a boot hangs.  "
         "How, and which mutants are equivalent, is in the chapter \"Testing "
         "the seeding from inside\" ([Mutants](#drbg-mutants)).")


def _pct(rate):
    return "-" if rate is None else f"{100 * rate:.1f}%"


def _table(rows):
    head = ["file", "added lines", "mutants", "killed", "timeout", "survived",
            "equivalent", "build-failed", "not run", "kill rate"]
    # the file's column wide enough for crypto/jitterentropy-kcapi.c
    # (with ten equal columns its name ran 15.6 pt past its cell)
    return small_table(table(head, [3] + [1] * (len(head) - 1),
                             [[str(c) for c in r] for r in rows]), "scriptsize")


def _verdicts_of(results, rerun):
    """The verdicts the rerun gave that still stand (a rerun's verdicts
    carry its start time: kmutants_report.merge)."""
    ids = set(rerun.get("ids", []))
    return [r for r in results if r.get("rerun") == rerun.get("started")
            and r.get("id") in ids]


def _killed_by(results, rerun):
    """The mutants whose kill the rerun gave."""
    return [r for r in _verdicts_of(results, rerun)
            if r.get("status") in ("killed", "timeout")]


# A later sitting on the test kernel of more mutants than this
# (MUTANTS_RESUME=1 judges hundreds) is told by its counts, not by every
# id and every kill.  A rerun on a stronger kernel is always listed: its
# mutants are the test kernel's survivors, each of which the reader
# follows to its fate.
RERUN_LIST_MAX = 12


def _rerun_md(r, res, esc, code):
    """One later sitting of the part: a few mutants chosen by id, or the
    survivors on a stronger kernel, are named with their kills; a sitting
    of many on the test kernel is told by the verdicts of it that still stand (a later rerun
    on a stronger kernel takes over the ones it kills)."""
    ids = r.get("ids", [])
    head = (f"Judged again ({esc(r.get('started', '?'))}, on the "
            f"{esc(r.get('variant', 'test'))} kernel, {r.get('wall_s')} s): ")
    if len(ids) > RERUN_LIST_MAX and r.get("variant", "test") == "test":
        counts = Counter(x.get("status", "?") for x in _verdicts_of(res, r))
        told = ", ".join(f"{n} {esc(st.replace('-', ' '))}"
                         for st, n in sorted(counts.items()))
        return (head + f"{len(ids)} mutants; of its verdicts that still stand: "
                + (told or "none") + ".")
    killed = _killed_by(res, r)
    return (head + ", ".join(code(i) for i in ids) + "; killed there: "
            + (", ".join(f"{code(k['id'])} (by {code(k.get('boot') or '?')})"
                         for k in killed) or "none") + ".")


def what_md(what, esc, code):
    """A mutant's description (kmutants.py writes code between backticks:
    "`0x67452301efcdab89ULL` -> `0x67452301efcdab89ULL+1`") with its code
    as inline code, which the PDF may break inside (output.texttt_breaks),
    not as one long word of text.  The survivors are a table, whose cells
    are set ragged right: in a justified list item such a line had no
    break TeX would take, and ran into the margin."""
    parts = what.split("`")
    if len(parts) % 2 == 0:             # an odd number of backticks: all text
        return esc(what)
    return "".join(code(p) if k % 2 else esc(p) for k, p in enumerate(parts) if p)


def part_md(part, run, esc, code, notes):
    boots = ', '.join(code(b) for b in run.get('boots', []))
    accel = esc(run.get('accel', 'tcg'))
    chosen = (f"{esc(run.get('started', '?'))}: {run.get('selected')} of "
              f"{run.get('generated')} mutants selected ({esc(run.get('scope', '?'))})")
    out = [f"### {part} {{- #hardening-mutants-{part}}}", ""]
    if run.get("reruns"):
        # The counts and the table are the record's, over every sitting;
        # the first sitting's own figures (it may have chosen two mutants
        # by id) must not read as the record's.
        out += [f"The record of the part: {len(run.get('results', []))} of "
                f"{run.get('generated')} mutants listed, {judged(run)} judged by a "
                f"boot, over {1 + len(run['reruns'])} sittings under {accel}.  The "
                f"first sitting started {chosen}, wall time {run.get('wall_s')} s; "
                f"boots, in the order run: {boots}.", ""]
    else:
        out += [f"Run started {chosen}, {judged(run)} judged by a boot, wall time "
                f"{run.get('wall_s')} s, under {accel}; boots, in the order run: "
                f"{boots}.", ""]
    rows = []
    for path, f in sorted(run.get("files", {}).items()):
        rows.append([code(path), f.get("added_lines", "-"), f.get("mutants", 0),
                     f.get("killed", 0), f.get("timeout", 0), f.get("survived", 0),
                     f.get("equivalent", 0), f.get("build-failed", 0),
                     f.get("not-run", 0), _pct(f.get("kill_rate"))])
    out += _table(rows)
    # not judged: those stopped by the time box, and those a run of a
    # subset (by id, or the first N) did not choose, which the record does
    # not list at all
    files_ = run.get("files", {}).values()
    unlisted = max(0, (run.get("generated") or 0) - sum(f.get("mutants", 0) for f in files_))
    pending = unlisted + sum(f.get("not-run", 0) for f in files_)
    if pending:
        out += [f"**Not final: {pending} mutant(s) not judged yet.**  The run was "
                "stopped by its time box (or chose a subset); the kill rate counts "
                "the judged mutants only.  `make mutants MUTANTS=" + part
                + " MUTANTS_RESUME=1` judges the rest on these inputs, in as many "
                "sittings as it takes.", ""]
    res = run.get("results", [])
    for r in run.get("reruns", []):
        out += [_rerun_md(r, res, esc, code), ""]
    if run.get("reruns"):
        total = (run.get("wall_s") or 0) + sum(r.get("wall_s") or 0
                                               for r in run["reruns"])
        out += [f"Wall time of the run and its {len(run['reruns'])} later "
                f"sitting(s): {total} s ({total / 3600:.1f} h).", ""]
    booted = [r for r in res if r.get("status") in ("killed", "timeout", "survived",
                                                   "equivalent")]
    if booted:
        secs = sum(r.get("seconds", 0) for r in booted) / len(booted)
        out += [f"Boot time per mutant judged: {secs:.0f} s on average.", ""]
    surv = [r for r in res if r.get("status") == "survived"]
    if surv:
        out += [f"Survivors ({len(surv)}):", ""]
        out += small_table(table(
            ["mutant", "where", "defect"], [3, 3, 4],
            [[code(r["id"]), code(f"{r['file']}:{r['line']}"), what_md(r["what"], esc, code)]
             for r in surv]), "footnotesize")
    stale = run.get("stale_equivalents") or []
    if stale:
        notes.append(f"mutants: {len(stale)} row(s) of the equivalence table killed")
        out += ["Argued equivalent but killed: " + ", ".join(code(s) for s in stale)
                + ".", ""]
    return out


def section(series, esc, code, notes):
    out = [HEAD, "", INTRO, ""]
    if not series or not series.get("parts"):
        return out + ["::: placeholder",
                      f"**Not run for this book.** There is no {code(PATH)}: "
                      "`make mutants` writes it (`MUTANTS=drbg`, `random` or "
                      "`jitter` runs one part; not part of `make check`).", ":::", ""]
    parts = series["parts"]
    for part in PARTS:
        if part in parts:
            out += part_md(part, parts[part], esc, code, notes)
    missing = [p for p in PARTS if p not in parts]
    if missing:
        out += ["Not run for this book: " + ", ".join(
            f"`make mutants MUTANTS={p}`" for p in missing) + ".", ""]
    return out
