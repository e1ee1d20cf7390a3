# SPDX-License-Identifier: GPL-2.0-only
"""make stress in shards (issue 39): its boots split over machines.

  python3 -m harness stress-merge --boots-of i/N
                                  the names of shard i's boots, for
                                  make stress BOOTS=...
  python3 -m harness stress-merge [FILE ...] [--compare RECORD]
                                  the N shards' reports into
                                  build/stress/report.{json,md,xml}

A stress boot is whole (its calls, its race, its module cycles run in
one guest), so a shard is a set of boots.  Two boots take most of the
run (the seeded calls and the module cycles, about 1300 and 1700 s of
1850 in the kept record), so the boots are dealt by their timeouts in
the stress plan (stress.stress_plan with the default figures, which
grow with the figures): the longest first, each to the shard with the
least so far (the lowest i on a tie).  Shard i runs its boots with
`make stress BOOTS=<names>`, nothing else changed: stress.py is the same
on every machine.  Each
shard's build/stress/report.json comes back as
build/stress/shard-<i>-of-<N>.json (tools/shards.sh N stress).

The merge checks that the reports are every shard of one run: the same
N, every i once, the same inputs digest and figures, each shard's boots
exactly its share, no boot twice.  The merged report is what one machine
writes: the boots in the plan's order with their checks, and the stress
section and its two checks (stress.figures, stress.targets) computed by
the same judge (judges/stress.py) from all of them.  What it keeps of
the shards is their start, duration and host; its duration is the
longest shard's.  --compare RECORD reads one machine's report of the
same inputs and exits 1 when a check's status, or a figure of the stress
section, differs.
"""

import glob
import os

from ..base import config, files
from ..base.checks import Check
from ..base.report import write_all
from ..judges import stress as judge
from . import kmutants_shard, stress

OUT = config.build("stress")
FIGURES = ("calls", "race_cycles", "module_cycles", "fault_points", "kernel_log_reports",
           "kmemleak_unexplained")


def say(msg):
    config.say("stress-merge", msg)


def plan_costs():
    """[(name, timeout)] of the stress plan, in order (the default figures)."""
    return [(b["name"], b["timeout"]) for b in stress.stress_plan(dict(stress.DEFAULTS))]


def names():
    return [name for name, _ in plan_costs()]


def share(i, n, costs=None):
    """Shard i's boots (of n), in the plan's order: the boots dealt longest
    first, each to the shard with the smallest total so far."""
    costs = costs or plan_costs()
    load, mine = [0] * n, [[] for _ in range(n)]
    for k, (name, secs) in sorted(enumerate(costs), key=lambda x: (-x[1][1], x[0])):
        j = min(range(n), key=lambda s: (load[s], s))
        load[j] += secs
        mine[j].append((k, name))
    return [name for _, name in sorted(mine[i - 1])]


def merge(reps, costs=None):
    """The one report of every shard's report (shard: [i, N] in each); a
    one-line error when they are not every shard of one run."""
    costs = costs or plan_costs()
    plan = [name for name, _ in costs]
    n = kmutants_shard.every_shard("stress-merge", [r.get("shard") for r in reps])
    for key in ("inputs",):
        if len({repr(r.get(key)) for r in reps}) != 1:
            config.die("stress-merge", f"the shards differ in {key}: not one run on the "
                       "same inputs")
    if len({repr(r["stress"]["figures"]) for r in reps}) != 1:
        config.die("stress-merge", "the shards ran different figures")
    reps = sorted(reps, key=lambda r: r["shard"][0])
    for r in reps:
        got = [b["name"] for b in r["boots"]]
        if got != share(r["shard"][0], n, costs):
            config.die("stress-merge", f"shard {r['shard'][0]} of {n} ran {got}, its "
                       f"share is {share(r['shard'][0], n, costs)}")
    order = {name: k for k, name in enumerate(plan)}
    boots = sorted((b for r in reps for b in r["boots"]), key=lambda b: order[b["name"]])
    checks = [Check.from_dict(c) for r in reps for c in r["checks"]
              if c["id"] not in ("stress.figures", "stress.targets")]
    fig = reps[0]["stress"]["figures"]
    summary = judge.summary(boots, checks, fig)
    rep = {k: v for k, v in reps[0].items() if k not in ("shard", "summary")}
    rep.update(started=min(r["started"] for r in reps),
               duration_s=max(r["duration_s"] for r in reps), boots=boots,
               checks=checks + [judge.check(summary), judge.targets(summary)],
               stress=summary,
               shards=[{"shard": r["shard"][0], "of": n, "started": r["started"],
                        "duration_s": r["duration_s"], "host": r.get("host"),
                        "boots": [b["name"] for b in r["boots"]]} for r in reps])
    return rep


def differences(a, b):
    """What differs between two stress reports: check statuses, figures."""
    sa = {c["id"]: c["status"] for c in a["checks"]}
    sb = {c["id"]: c["status"] for c in b["checks"]}
    out = [f"{cid}: {sa.get(cid)} against {sb.get(cid)}" for cid in sorted(set(sa) | set(sb))
           if sa.get(cid) != sb.get(cid)]
    out += [f"stress.{k}: {a['stress'].get(k)} against {b['stress'].get(k)}"
            for k in FIGURES if a["stress"].get(k) != b["stress"].get(k)]
    return out


def run(args):
    if args.boots_of:
        i, n = kmutants_shard.parse(args.boots_of)
        print(",".join(share(i, n)))
        return 0
    paths = args.files or sorted(glob.glob(os.path.join(OUT, "shard-*-of-*.json")))
    reps = []
    for p in paths:
        r = files.read_json(p, kind=dict)
        if not r or "stress" not in r or "boots" not in r:
            config.die("stress-merge", f"{p}: not a report of make stress")
        if not r.get("shard"):
            r["shard"] = list(kmutants_shard.parse(
                os.path.basename(p)[len("shard-"):-len(".json")].replace("-of-", "/")))
        reps.append(r)
    rep = merge(reps)
    write_all(rep, OUT)
    s = rep["summary"]
    say(f"{len(reps)} shards, {len(rep['boots'])} boots: {s['passed']} passed, "
        f"{s['failed']} failed, {s['skipped']} skipped; {config.display(OUT)}/report.json "
        f"(wall time {rep['duration_s']} s, the longest shard)")
    rc = 1 if s["failed"] else 0
    if args.compare:
        other = files.read_json(args.compare, kind=dict)
        if not other or "stress" not in other:
            config.die("stress-merge", f"{args.compare}: no stress report to compare")
        if other.get("inputs") != rep.get("inputs"):
            config.die("stress-merge", f"{args.compare} was made on other inputs")
        merged = files.read_json(os.path.join(OUT, "report.json"))
        diff = differences(merged, other)
        for line in diff:
            say(f"differs: {line}")
        say(f"compared with {args.compare}: " + ("the same checks and figures" if not diff
                                                 else f"{len(diff)} difference(s)"))
        rc = rc or (1 if diff else 0)
    return rc


def register(sub):
    p = sub.add_parser("stress-merge", help="make stress in shards: a shard's boots, "
                                            "or the shards' reports merged")
    p.add_argument("files", nargs="*", help="shard reports (default: "
                                            "build/stress/shard-*-of-*.json)")
    p.add_argument("--boots-of", help="i/N: print shard i's boot names and stop")
    p.add_argument("--compare", help="a stress report of one machine on the same "
                                     "inputs: exit 1 if a check or figure differs")
    p.set_defaults(func=run)
