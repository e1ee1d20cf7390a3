# SPDX-License-Identifier: GPL-2.0-only
"""make mutants in shards (issue 39): a run of hours split over machines.

  make mutants SHARD=i/N          judge every N-th mutant of the selection,
                                  starting at the i-th; write
                                  build/mutants/shard-<i>-of-<N>.json
  python3 -m harness mutants-merge [FILE ...] [--compare RECORD]
                                  the N shard files into series.json

A shard is the same run on fewer mutants: the selection (all, --first,
--only) is made first, in file order, and the shard takes the mutants
at positions i-1, i-1+N, ... of it.  Each shard builds its own schema,
runs its own baseline and gives its boots their timeouts from it, so
that a shard needs nothing from another: any machine with the project
and a kernel cache can run one.  Nothing here dispatches them:
tools/shards.sh hands the shards to GNU parallel (on this machine, or
over ssh), and a CI matrix does the same with one job per shard.

The merge checks that the files are one run's shards: the same N, every
i from 1 to N once, the same inputs digest (base/evidence.py) and the
same selection, and no mutant judged twice.  The merged part is the run
a single machine would have written, its verdicts by mutant the same;
what differs is how it was made, which it keeps: each shard's start,
wall time, host and timeouts, and the wall time of the whole (the
longest shard).  --compare RECORD reads another series.json (a single
machine's run on the same inputs) and exits 1 when any mutant's verdict
(status and killing judge) differs; the comparison, with both runs'
wall times, goes to build/mutants/compare.json (`make shards-demo`
makes one on this machine, and `make evidence` keeps it as "shards").
"""

import glob
import os
import re

from ..base import config, evidence, files
from . import kmutants_report as report

SHARD = re.compile(r"^(\d+)/(\d+)$")
COMPARE = "compare.json"        # in report.OUT


def say(msg):
    config.say("mutants", msg)


def parse(text):
    """(i, n) of SHARD=i/N, None for no shard; a one-line error for a bad one."""
    if not text:
        return None
    m = SHARD.match(text.strip())
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
        config.die("mutants", f"SHARD={text}: expected i/N with 1 <= i <= N, e.g. 1/2")
    return int(m.group(1)), int(m.group(2))


def pick(chosen, scope, shard):
    """The shard's part of a selection, and its scope line."""
    if not shard:
        return chosen, scope
    i, n = shard
    mine = chosen[i - 1::n]
    return mine, f"{scope}; shard {i} of {n}: {len(mine)} of {len(chosen)}"


def path_of(shard):
    i, n = shard
    return os.path.join(report.OUT, f"shard-{i}-of-{n}.json")


def write(shard, part, run, host):
    """Add one part's run to the shard's file (a shard may run several parts)."""
    path = path_of(shard)
    data = files.read_json(path) or {}
    if data.get("shard") != list(shard):
        data = {"schema": 1, "shard": list(shard), "host": host, "parts": {}}
    data["parts"][part] = run
    files.write_json(path, data)
    say(f"shard {shard[0]} of {shard[1]}: {config.display(path)} (python3 -m harness "
        "mutants-merge makes series.json of all the shards)")


def _base_scope(scope):
    return scope.split("; shard ")[0]


def every_shard(tag, shards):
    """N, when shards ([i, N] of each file given) are every shard 1..N of
    one run, each once; a one-line error under tag otherwise, naming the
    shards missing or given twice (make stress's merge uses it too)."""
    if not shards or any(len(tuple(s or ())) != 2 for s in shards):
        config.die(tag, f"not every shard of one run: {shards or 'none'}")
    ns = {s[1] for s in shards}
    if len(ns) != 1:
        config.die(tag, f"shards of different runs: N is {sorted(ns)}")
    n = ns.pop()
    have = sorted(s[0] for s in shards)
    if have != list(range(1, n + 1)):
        missing = sorted(set(range(1, n + 1)) - set(have))
        twice = sorted({i for i in have if have.count(i) > 1})
        config.die(tag, f"{n} shards expected: "
                   + "; ".join(([f"missing {missing}"] if missing else []) +
                               ([f"twice {twice}"] if twice else [])))
    return n


def merge_shards(datas):
    """{part: the merged run} of the shard files' contents; a one-line error
    when they are not every shard of one run."""
    if not datas:
        config.die("mutants-merge", "no shard file (build/mutants/shard-<i>-of-<N>.json)")
    n = every_shard("mutants-merge", [d["shard"] for d in datas])
    parts = {}
    for part in sorted({p for d in datas for p in d["parts"]}):
        runs = [(d["shard"][0], d.get("host"), d["parts"].get(part)) for d in datas]
        if any(r is None for _, _, r in runs):
            config.die("mutants-merge", f"part {part} is not in every shard")
        parts[part] = _merge_part(part, sorted(runs, key=lambda x: x[0]), n)
    return parts


def _merge_part(part, runs, n):
    first = runs[0][2]
    for key in ("inputs", "generated", "variant", "boots", "accel"):
        vals = {repr(r.get(key)) for _, _, r in runs}
        if len(vals) > 1:
            config.die("mutants-merge", f"{part}: the shards differ in {key}: they are "
                       "not shards of one run on the same inputs")
    scopes = {_base_scope(r["scope"]) for _, _, r in runs}
    if len(scopes) > 1:
        config.die("mutants-merge", f"{part}: the shards chose from different "
                   f"selections: {sorted(scopes)}")
    results = [x for _, _, r in runs for x in r["results"]]
    ids = [x["id"] for x in results]
    if len(set(ids)) != len(ids):
        config.die("mutants-merge", f"{part}: a mutant judged in two shards")
    results.sort(key=lambda x: x["n"])
    added = {p: f.get("added_lines") for p, f in first["files"].items()}
    return {"started": min(r["started"] for _, _, r in runs),
            "wall_s": max(r["wall_s"] for _, _, r in runs),
            "generated": first["generated"], "selected": len(results),
            "scope": f"{scopes.pop()}, in {n} shards", "boots": first["boots"],
            "variant": first["variant"], "inputs": first["inputs"],
            "timeouts": {f"shard {i}": r["timeouts"] for i, _, r in runs},
            "accel": first["accel"], "files": report.per_file(results, added),
            "results": results,
            "stale_equivalents": sorted({s for _, _, r in runs
                                         for s in r.get("stale_equivalents", [])}),
            "shards": [{"shard": i, "of": n, "host": host, "started": r["started"],
                        "wall_s": r["wall_s"], "selected": r["selected"]}
                       for i, host, r in runs],
            "cpu_wall_s": sum(r["wall_s"] for _, _, r in runs)}


def verdicts(series):
    """{part: {mutant id: (status, killing judge)}} of a series record."""
    return {part: {r["id"]: (r["status"], r.get("boot")) for r in run["results"]}
            for part, run in (series.get("parts") or {}).items()}


def differences(a, b):
    """Lines naming each mutant whose verdict differs between records a and b."""
    va, vb = verdicts(a), verdicts(b)
    out = []
    for part in sorted(set(va) | set(vb)):
        x, y = va.get(part, {}), vb.get(part, {})
        for mid in sorted(set(x) | set(y)):
            if x.get(mid) != y.get(mid):
                out.append(f"{mid}: {x.get(mid)} against {y.get(mid)}")
    return out


def merge_verb(args):
    paths = args.files or sorted(glob.glob(os.path.join(report.OUT, "shard-*-of-*.json")))
    datas = []
    for p in paths:
        d = files.read_json(p, kind=dict)
        if not d or not isinstance(d.get("shard"), list) or "parts" not in d:
            config.die("mutants-merge", f"{p}: not a shard file of make mutants SHARD=i/N")
        datas.append(d)
    parts = merge_shards(datas)
    series = files.read_json(os.path.join(report.OUT, "series.json"))
    for part, run in parts.items():
        series = report.merge(series, part, run)
        say(f"{part}: {run['selected']} mutants from {len(run['shards'])} shards, "
            f"wall time {run['wall_s']} s (the longest shard; {run['cpu_wall_s']} s "
            "summed over the shards)")
    report.write(series)
    say(f"merged: {config.display(report.OUT)}/series.{{json,md}}")
    if args.compare:
        other = files.read_json(args.compare, kind=dict)
        if not other:
            config.die("mutants-merge", f"{args.compare}: no series record to compare")
        theirs = {p: r for p, r in (other.get("parts") or {}).items() if p in parts}
        for part, run in parts.items():
            if part not in theirs or theirs[part].get("inputs") != run["inputs"]:
                config.die("mutants-merge", f"{args.compare}: part {part} is not there, "
                           "or was made on other inputs: nothing to compare")
        diff = differences({"parts": parts}, {"parts": theirs})
        for line in diff:
            say(f"differs: {line}")
        n = sum(len(v) for v in verdicts({"parts": parts}).values())
        say(f"compared with {args.compare}: " + (f"{n} verdicts, every one the same"
                                                 if not diff else
                                                 f"{len(diff)} of {n} verdicts differ"))
        path = os.path.join(report.OUT, COMPARE)
        files.write_json(path, comparison(parts, theirs, diff, n))
        say(f"the comparison: {config.display(path)}")
        return 1 if diff else 0
    return 0


def comparison(parts, theirs, diff, n):
    """build/mutants/compare.json: the merged run of N shards beside one
    machine's run on the same inputs (the record `make evidence` keeps as
    "shards", and the hardening appendix shows)."""
    def runs(rs, keys):
        return {p: {k: r.get(k) for k in keys} for p, r in rs.items()}
    return {"schema": 1, "started": min(r["started"] for r in parts.values()),
            "inputs": evidence.digests(),
            "merged": runs(parts, ("started", "wall_s", "cpu_wall_s", "selected", "scope",
                                   "shards", "files")),
            "single": runs(theirs, ("started", "wall_s", "selected", "scope", "files")),
            "verdicts": n, "differences": diff, "same": not diff}


def register(sub):
    p = sub.add_parser("mutants-merge", help="merge make mutants SHARD=i/N's shard files "
                                             "into build/mutants/series.json")
    p.add_argument("files", nargs="*", help="shard files (default: "
                                            "build/mutants/shard-*-of-*.json)")
    p.add_argument("--compare", help="a series.json of one machine on the same inputs: "
                                     "exit 1 if any verdict differs")
    p.set_defaults(func=merge_verb)
