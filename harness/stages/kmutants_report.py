# SPDX-License-Identifier: GPL-2.0-only
"""make mutants: the verdicts, the book's table of equivalent mutants,
and build/mutants/series.{json,md}.

A mutant ends killed (a check of a covering boot failed), timeout (a
boot did not end: a hang kills too), survived (every covering boot
passed), equivalent (it survived, and the book's table argues that no
test can tell it from the series), build-failed (it does not compile:
not a mutant, counted apart) or not-run (its own build was not made;
the runner says why).  The kill rate of a file is (killed + timeout) /
(mutants - build-failed - equivalent - not-run).

The table of equivalent mutants is in the book (chapter "Testing the
seeding from inside", chapters/31-drbg-testing.nw): a Markdown table between the lines
"<!-- equivalent-mutants -->" and "<!-- /equivalent-mutants -->",
one row per mutant, its id in backquotes in the first column and the
argument in the second.
"""

import os
import re

from ..base import config, files

OUT = config.build("mutants")
BOOK = config.top("chapters/31-drbg-testing.nw")
KILLS = ("killed", "timeout")
NOT_COUNTED = ("build-failed", "equivalent", "not-run")
STATUSES = KILLS + ("survived",) + NOT_COUNTED
# The kernels that judge the test kernel's survivors again (make mutants
# MUTANTS_VARIANT=...): their kills add to the part's run.
STRONGER = ("debug", "modules")


def equivalents(path=BOOK):
    """{mutant id: reason} from the book's table; a row that is not
    `id` | reason stops with its line."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except OSError:
        return {}
    out, inside = {}, False
    for no, ln in enumerate(lines, 1):
        if ln.strip() == "<!-- equivalent-mutants -->":
            inside = True
            continue
        if ln.strip() == "<!-- /equivalent-mutants -->":
            inside = False
            continue
        if not inside or not ln.strip() or re.match(r"^\|[\s:|-]+\|$", ln.strip()):
            continue
        m = re.match(r"^\|\s*`([\w:.-]+)`\s*\|\s*(.+?)\s*\|$", ln.strip())
        if not m:
            if ln.strip().startswith("| mutant"):
                continue
            config.die("mutants", f"{config.display(path)}:{no}: expected "
                       "| `part:function:op:hash` | reason | in the table of "
                       "equivalent mutants")
        out[m.group(1)] = m.group(2)
    return out


def settle(results, equiv):
    """Survivors the book argues equivalent become equivalent (with the
    reason); an argued mutant that was killed is a stale row."""
    stale = []
    for r in results:
        if r["id"] in equiv:
            if r["status"] == "survived":
                r["status"], r["reason"] = "equivalent", equiv[r["id"]]
            elif r["status"] in KILLS:
                stale.append(r["id"])
    return stale


def resettle(series, equiv):
    """series.json with the book's table read again (no boot): a mutant
    argued equivalent since the run becomes equivalent, one whose row is
    gone survives again."""
    for run in series.get("parts", {}).values():
        for r in run["results"]:
            if r["status"] == "equivalent" and r["id"] not in equiv:
                r["status"] = "survived"
                r.pop("reason", None)
        run["stale_equivalents"] = settle(run["results"], equiv)
        added = {p: f.get("added_lines") for p, f in run["files"].items()}
        run["files"] = per_file(run["results"], added)
    return series


def per_file(results, added):
    """{file: counts, kill rate} of results; added: {file: lines added}."""
    out = {}
    for path in sorted({r["file"] for r in results} | set(added)):
        rs = [r for r in results if r["file"] == path]
        n = {s: sum(r["status"] == s for r in rs) for s in STATUSES}
        counted = len(rs) - sum(n[s] for s in NOT_COUNTED)
        killed = n["killed"] + n["timeout"]
        out[path] = dict(n, mutants=len(rs), counted=counted,
                         added_lines=added.get(path),
                         kill_rate=round(killed / counted, 4) if counted else None)
    return out


def merge(previous, part, run):
    """series.json after the run of one part: the other parts' last runs
    are kept as they were.  A run of mutants chosen by id (after a test
    was added), or on a stronger kernel (debug or modules, of the test
    kernel's survivors), does not replace the part's run but updates its
    verdicts: by id, each verdict replaces the old one (or joins the part,
    when the part's run did not list that mutant); on a stronger
    kernel, a survivor it kills is killed, by the boot named, and the
    verdict names the kernel.  Such runs are kept in the part's "reruns"."""
    parts = dict((previous or {}).get("parts", {}))
    debug = run.get("variant") in STRONGER
    by_id_run = str(run.get("scope", "")).endswith("chosen by id")
    if part not in parts or not (debug or by_id_run):
        parts[part] = run
        return {"schema": 1, "parts": parts}
    base = dict(parts[part])
    by_id = {r["id"]: r for r in run["results"]}
    results = []
    for r in base["results"]:
        d = by_id.get(r["id"])
        if d and debug and r["status"] == "survived" and d["status"] in KILLS:
            r = dict(r, status=d["status"], boot=d["boot"], failed=d["failed"],
                     kernel=run["variant"], rerun=run.get("started"))
        elif d and not debug:
            r = dict(d, rerun=run["started"])
        results.append(r)
    if not debug:
        # A mutant the part's run never listed (that run chose a few by
        # id; this one resumes with the rest) is added, not dropped.
        have = {r["id"] for r in results}
        results += [dict(d, rerun=run["started"]) for i, d in by_id.items()
                    if i not in have]
        results.sort(key=lambda r: r.get("n", 0))
    added = {p: f.get("added_lines") for p, f in base["files"].items()}
    base.update(results=results, files=per_file(results, added),
                reruns=base.get("reruns", []) + [
                    {k: v for k, v in run.items() if k not in ("files", "results")}
                    | {"ids": sorted(by_id)}])
    parts[part] = base
    return {"schema": 1, "parts": parts}


def write(series):
    os.makedirs(OUT, exist_ok=True)
    files.write_json(os.path.join(OUT, "series.json"), series)
    files.write_text(os.path.join(OUT, "series.md"), markdown(series))


def judged(run):
    """How many mutants of run a boot judged."""
    return sum(r.get("status") in KILLS + ("survived", "equivalent")
               for r in run.get("results", []))


def _rate(f):
    return "-" if f["kill_rate"] is None else f"{100 * f['kill_rate']:.1f}%"


def markdown(series):
    lines = ["# Mutation score of the series", ""]
    for part, run in sorted(series["parts"].items()):
        lines += [f"## {part}", "",
                  f"{run['started']}; {run['selected']} of {run['generated']} mutants "
                  f"selected ({run['scope']}), {judged(run)} judged by a boot; wall "
                  f"time {run['wall_s']} s; boots: {', '.join(run['boots'])}", "",
                  "| file | added lines | mutants | killed | timeout | survived | "
                  "equivalent | build-failed | not run | kill rate |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        for path, f in run["files"].items():
            added = "-" if f["added_lines"] is None else f["added_lines"]
            lines.append(f"| {path} | {added} | {f['mutants']} | {f['killed']} | "
                         f"{f['timeout']} | {f['survived']} | {f['equivalent']} | "
                         f"{f['build-failed']} | {f['not-run']} | {_rate(f)} |")
        surv = [r for r in run["results"] if r["status"] in ("survived", "not-run")]
        lines += ["", f"Survivors and mutants not run ({len(surv)}):", ""]
        lines += [f"- `{r['id']}` {r['file']}:{r['line']} {r['what']} ({r['status']}"
                  + (f": {r['reason']}" if r.get("reason") else "") + ")" for r in surv]
        if run.get("stale_equivalents"):
            lines += ["", "Rows of the equivalence table whose mutant was killed: "
                      + ", ".join(run["stale_equivalents"])]
        lines.append("")
    return "\n".join(lines)
