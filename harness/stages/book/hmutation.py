# SPDX-License-Identifier: GPL-2.0-only
"""The hardening appendix's section on the generated mutants of the
harness's verdict code, from build/mutants/generated.json (`make
mutants-harness-gen`, kept by make evidence as the record hmutants).

    section(rec, esc, code, notes) -> [markdown lines]

Per file of the scope: mutants, killed, declared equivalent, surviving and
the kill rate over the non-equivalent ones; then every mutant that was
not killed, with its fate.
"""

from .md import small_table, table

HEAD = "## Mutation score of the harness {- #hardening-hmutants}"
INTRO = (
    "The harness decides every verdict this book reports, so its own code is "
    "mutated too, by the operators of `make mutants` carried over to Python "
    "(`harness/stages/hmutants.py`): a comparison negated, an integer moved by "
    "one, a call statement deleted, a clean-up (a file's removal, a process's "
    "killing) deleted, two neighbouring arguments swapped, a function returning "
    "at once (no problems, nothing found, false, zero).  The scope is the code "
    "that decides, counts or writes a verdict in each stage: the check, conform, "
    "ACVP, entropy, mutants, stress and book-check stages and the report writers.  "
    "Each mutant runs against the host suite: the suite is traced once "
    "(in-process and in every Python process a test starts), and the tests that "
    "run a line of the mutant run on it, fastest first, to the first failure.  "
    "A test that never runs the mutated line runs the same code as on the "
    "unmutated package, so these tests answer as the whole suite would.  Every "
    "survivor is either killed by a new test or named in "
    "`harness/stages/hmutants_fates.txt` with why no verdict can tell it apart.")


def _pct(killed, judged):
    return f"{100 * killed / judged:.1f}%" if judged else "-"


def section(rec, esc, code, notes):
    out = [HEAD, "", INTRO, ""]
    if not rec:
        return out + ["::: placeholder", "No run yet: `make mutants-harness-gen` "
                      "writes `build/mutants/generated.json`.", ":::", ""]
    s = rec["score"]
    judged = s["mutants"] - s["equivalent"]
    out += [f"{s['mutants']} mutants over {len(rec.get('scope', {}))} files, judged by "
            f"{rec.get('tests')} host tests in {rec.get('seconds')} s ({rec.get('jobs')} at "
            f"a time): **{s['killed']} of {judged} non-equivalent mutants killed "
            f"({_pct(s['killed'], judged)})**, {s['equivalent']} equivalent, "
            f"{s['survived']} surviving.", ""]
    per = {}
    for r in rec["results"]:
        f = per.setdefault(r["file"], {"n": 0, "killed": 0, "equivalent": 0})
        f["n"] += 1
        f["killed"] += bool(r["killed"])
        f["equivalent"] += bool(not r["killed"] and r.get("fate"))
    rows = [[code("harness/" + path), f["n"], f["killed"], f["equivalent"],
             f["n"] - f["killed"] - f["equivalent"],
             _pct(f["killed"], f["n"] - f["equivalent"])] for path, f in sorted(per.items())]
    out += small_table(table(["file", "mutants", "killed", "equivalent", "surviving",
                              "kill rate"], [3, 1, 1, 1, 1, 1],
                             [[str(c) for c in r] for r in rows]), "scriptsize")
    left = [r for r in rec["results"] if not r["killed"]]
    if left:
        out += ["The mutants not killed, each with its fate:", ""]
        out += small_table(table(["mutant", "change", "fate"], [3, 3, 3], [
            [code(r["id"]), code(f"{r['old'].strip()[:40]} -> {r['new'].strip()[:40]}"),
             esc(r.get("fate") or "SURVIVES: no test tells it apart")] for r in left]),
            "scriptsize")
    # Survivors are named in the text, not given as build notes (as the
    # series' mutants in mutation.py): a recorded run's verdicts are
    # evidence for the issue to judge, not a reason for make check to fail.
    return out
