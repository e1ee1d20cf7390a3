# SPDX-License-Identifier: GPL-2.0-only
"""make stress: what each stress boot ran and what was seen.

summary() turns the boots and checks of a stress run into one row per
boot (its figures: the seeded calls asked for and made, their seed and
the hash of their sequence, the race's life cycles; the kernel-log
reports, kmemleak's unexplained reports, unreclaimable slab at boot,
after half of the calls, after all of them and after the allocation-failure
paths, with the caches that grew most, the checks passed, failed, skipped)
and the run's totals.
check() is stress.figures: every boot ended as planned and reached the
figures it was asked for (calls, race life cycles, module cycles).
targets() is stress.targets: the figures asked for are those of issue 20
(TARGETS), or it is skipped and says so.
"""

import re

from ..base.checks import Check

# The figures issue 20 asks of make stress.
TARGETS = {"calls": 100000, "race_cycles": 10000, "module_cycles": 1000}
RACE_CASE = "kunit.drbg_race.async_vs_lifecycle"
RACE_LOG = re.compile(r"async_vs_lifecycle: (\d+) iterations on (\d+) CPUs in (\d+) ms")


def _race(c):
    for ln in (c.details or {}).get("log", []):
        m = RACE_LOG.search(ln)
        if m:
            return {"cycles": int(m[1]), "cpus": int(m[2]), "ms": int(m[3])}
    return None


def _row(b, mine):
    """One boot's row from its info (report.json's boot) and its checks."""
    st = {s: sum(1 for c in mine if c.status == s) for s in ("pass", "fail", "skip")}
    row = {"boot": b["name"], "title": b.get("title", ""), "append": b.get("append", ""),
           "outcome": b.get("outcome"), "expect": b.get("expect"),
           "seconds": b.get("seconds"), "checks": st,
           "failed": [c.id for c in mine if c.status == "fail"][:10],
           "kernel_log_reports": None, "kmemleak_unexplained": None}
    for c in mine:
        n = c.counts or {}
        if c.id == f"boot.{b['name']}.kernel-log":
            row["kernel_log_reports"] = n.get("reports")
        elif ".guest.kmemleak." in "." + c.id:
            row["kmemleak_unexplained"] = n.get("unexplained")
            row["kmemleak_allowlisted"] = n.get("allowlisted")
        elif c.id.endswith("guest.stress.calls"):
            # (the sequence's hash is a string: a field of its own, not a count)
            row["calls"] = dict(n, sequence_fnv64=(c.extra or {}).get("sequence_fnv64"))
        elif c.id.endswith("guest.stress.unready"):
            row["unready"] = dict(n, status=c.status)
        elif c.id.endswith("guest.stress.memory"):
            # (the caches that grew most are strings: fields of their own)
            ex = c.extra or {}
            row["memory"] = dict(n, status=c.status, reason=c.reason,
                                 top_growth=ex.get("top_growth"),
                                 faults_top_growth=ex.get("faults_top_growth"))
        elif c.id.endswith("guest.modules.rmmod_loop"):
            row["modules"] = dict(n)
        elif c.id.endswith(RACE_CASE):
            row["race"] = _race(c)
        elif c.id.endswith("guest.stress.faults"):
            row.setdefault("faults", {}).update(n)
        elif ".guest.stress.faults." in "." + c.id:
            f = row.setdefault("faults", {})
            for k in ("points", "errors", "recovered"):
                f[k] = f.get(k, 0) + n.get(k, 0)
            f["paths"] = f.get("paths", 0) + 1
            f["paths_failed"] = f.get("paths_failed", 0) + (c.status == "fail")
    return row


def summary(boots, checks, figures):
    """The stress section of report.json."""
    rows = [_row(b, [c for c in checks if c.boot == b["name"]]) for b in boots]
    calls = sum((r.get("calls") or {}).get("calls", 0) for r in rows)
    race = sum((r.get("race") or {}).get("cycles", 0) for r in rows)
    mods = sum((r.get("modules") or {}).get("reloaded", 0) for r in rows)
    points = sum((r.get("faults") or {}).get("points", 0) for r in rows)
    return {"figures": dict(figures), "targets": dict(TARGETS), "boots": rows,
            "calls": calls, "race_cycles": race, "fault_points": points,
            "module_cycles": mods,
            "kernel_log_reports": sum(r["kernel_log_reports"] or 0 for r in rows),
            "kmemleak_unexplained": sum(r["kmemleak_unexplained"] or 0 for r in rows)}


def _shortfalls(row, figures):
    if row["outcome"] != row["expect"]:
        yield f"{row['boot']}: ended {row['outcome']}, expected {row['expect']}"
    if row["boot"] == "stress-calls":
        n = row.get("calls") or {}
        if n.get("calls", 0) < figures["calls"]:
            yield (f"{row['boot']}: {n.get('calls', 0)} of {figures['calls']} calls "
                   "made")
    if row["boot"] == "stress-modules":
        got = (row.get("modules") or {}).get("reloaded", 0)
        if got < figures["module_rounds"]:
            yield f"{row['boot']}: {got} of {figures['module_rounds']} module cycles"
    if row["boot"] == "stress-race":
        got = (row.get("race") or {}).get("cycles", 0)
        if got < 2 * figures["race_rounds"]:
            yield f"{row['boot']}: {got} of {2 * figures['race_rounds']} life cycles"


def check(s):
    """stress.figures: each boot ended as planned and reached its figures."""
    problems = [p for r in s["boots"] for p in _shortfalls(r, s["figures"])]
    if not s["boots"]:
        problems = ["no stress boot ran"]
    return Check.judge("stress.figures", "every stress boot ended as planned and "
                       "reached the figures it was asked for", problems,
                       counts={"boots": len(s["boots"]), "calls": s["calls"],
                               "race_cycles": s["race_cycles"]})


def targets(s):
    """stress.targets: were issue 20's figures asked for?"""
    f, t = s["figures"], s["targets"]
    asked = {"calls": f["calls"], "race_cycles": 2 * f["race_rounds"],
             "module_cycles": f["module_rounds"]}
    short = [f"{k} {asked[k]} < {t[k]}" for k in t if asked[k] < t[k]]
    title = "the run was asked for the figures of issue 20"
    if short:
        return Check.skipped("stress.targets", title, "smaller figures were asked for: "
                             + ", ".join(short), counts=asked)
    return Check.passed("stress.targets", title, counts=asked)
