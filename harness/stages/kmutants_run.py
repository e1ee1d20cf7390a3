# SPDX-License-Identifier: GPL-2.0-only
"""The verb mutants (make mutants): the mutation score of the series.

  python3 -m harness mutants --list [--part drbg,...]
  python3 -m harness mutants [--part drbg,...] [--only ID,...] [--first N]
                             [--shard i/N]

For each part (kmutants.PARTS), every mutant of the lines the series adds
(kmutants.py) goes into one schema build of the test kernel
(kmutants_schema.py): the part's files are compiled alone first, and a
mutant the compiler rejects is dropped from the schema
(kmutants_compile.py).  The covering boots of the part (kmutants_boot.py,
BOOTS, cheapest first) run once with mutant=0, which
must pass: they are the baseline and give each boot its timeout (twice
its baseline time and 30 s more; a boot that does not end by then kills
its mutant as a hang).  Then per mutant the boots run with
mutant=N until one fails.  A mutant of a file the host tests compile
(the Jitter RNG's core) meets its host judge first (kmutants_host.py).  A mutant dropped from the schema gets a build
of its own, with N fixed at compile time; if that does not compile it is
build-failed, not a mutant.

Afterwards the series is applied again and the test kernel rebuilt, so
nothing of a mutant stays in the cache (as make teeth does).  Results:
build/mutants/series.{json,md} (kmutants_report.py), the other parts'
last runs kept; a shard (--shard i/N, SHARD=i/N: every N-th mutant of
the selection) writes build/mutants/shard-<i>-of-<N>.json instead, which
mutants-merge joins (kmutants_shard.py).
"""

import datetime
import os
import platform
import signal
import subprocess
import time

from ..base import config, evidence, files, guest, kbuild, kcache, proc, qemu
from . import kmutants
from . import kmutants_report as report
from . import kmutants_shard as shards
from .kmutants_boot import Booter, boots_of, judges_of
from .kmutants_compile import Compiler, fit_schema, prelude_compiles, write_schemata


def schema_holds(variant):
    """Whether one build can hold many mutants.  The selector is a
    core_param, read from the kernel's command line by built-in code; a
    module loaded by /init does not see it, so on the modules kernel each
    mutant is a build of its own, N fixed at compile time."""
    return variant != "modules"


def say(msg):
    config.say("mutants", msg)


def record(m, verdict, how):
    keep = ("id", "n", "file", "line", "func", "op", "what")
    out = dict({k: m[k] for k in keep}, build=how, **verdict)
    if m.get("compiled") is False:
        out["compiled"] = False
        if out["status"] == "survived":
            out["reason"] = "not compiled in the test kernel (an #if branch)"
    return out


def not_run(m, reason, how="schema"):
    return record(m, {"status": "not-run", "boot": None, "failed": [], "boots": [],
                      "seconds": 0, "reason": reason}, how)


def out_of_time(args):
    """Why no further mutant is judged (the time given is up, or the run
    was interrupted), or None."""
    if args.stop:
        return args.stop
    if args.minutes and time.time() > args.t0 + 60 * args.minutes:
        args.stop = f"the run's {args.minutes} minutes were up"
    return args.stop


def run_schema(part, args, src, held, init, texts):
    """Build the schema of held and judge each mutant of it, while there
    is time."""
    b = kbuild.build(args.variant)
    booter = Booter(part, args, src, os.path.join(b, "arch/x86/boot/bzImage"), init,
                    texts)
    booter.baseline()
    out = []
    for i, m in enumerate(held, 1):
        if out_of_time(args):
            out.append(not_run(m, args.stop))
            continue
        try:
            v = booter.judge(m)
        except KeyboardInterrupt:
            qemu.stop_all()
            args.stop = "the run was interrupted"
            out.append(not_run(m, args.stop))
            continue
        out.append(record(m, v, "schema"))
        say(f"[{i}/{len(held)}] {m['id']} {m['file']}:{m['line']} {m['what'][:70]}: "
            f"{v['status']}" + (f" by {v['boot']} ({', '.join(v['failed'][:2])})"
                                if v["boot"] else "") + f" ({v['seconds']} s)")
    return out, booter.timeouts


def alone_compiles(comp, m):
    """None when m compiles in a build of its own (N fixed), else its
    build-failed record."""
    ok, _, log = comp.attempt([m], const=m["n"])
    if ok:
        return None
    first = next((ln for ln in log.splitlines() if "error:" in ln), "?")
    return record(m, {"status": "build-failed", "boot": None, "failed": [], "boots": [],
                      "seconds": 0, "reason": first.strip()[:200]}, "alone")


def run_alone(part, args, src, comp, m, init, timeouts):
    """A mutant the schema could not hold, in a build of its own."""
    if args.no_alone:
        return not_run(m, "the schema cannot hold it, and --no-alone was given", "alone")
    if out_of_time(args):
        return not_run(m, args.stop, "alone")
    booter = Booter(part, args, src, None, init, comp.texts)
    booter.timeouts = timeouts
    try:
        # the host judge needs no kernel: a mutant it kills is not built
        first = booter.judge(m, booted=False)
        if first["status"] != "survived":
            return record(m, first, "alone")
        comp.attempt([m], const=m["n"])
        b = kbuild.build(args.variant)
        booter.image = os.path.join(b, "arch/x86/boot/bzImage")
        v = booter.judge(m, hosted=False)
        v["boots"] = first["boots"] + v["boots"]
        v["seconds"] = round(first["seconds"] + v["seconds"], 1)
        return record(m, v, "alone")
    except KeyboardInterrupt:
        qemu.stop_all()
        args.stop = "the run was interrupted"
        return not_run(m, args.stop, "alone")


def baseline_alone(part, args, src, texts, init):
    """The baseline when no schema build ran: the part's files as the
    series makes them, built and booted; the boots' timeouts."""
    for p in kmutants.PARTS[part]:
        with open(os.path.join(src, p), "w") as f:
            f.write(texts[p][1])
    b = kbuild.build(args.variant)
    booter = Booter(part, args, src, os.path.join(b, "arch/x86/boot/bzImage"), init,
                    texts)
    booter.baseline()
    return booter.timeouts


def build_dir(variant):
    version, _ = kcache.ensure_pristine()
    return os.path.join(kcache.tree_dir(version), f"build-{variant}")


def restore(src, part, variant):
    """The series again, and the kernel rebuilt from it."""
    subprocess.run(["git", "-C", src, "checkout", "-q", "--"] + kmutants.PARTS[part])
    say(f"restoring the series and the {variant} kernel")
    kcache.apply_series(config.top("tangled/patches"))
    kbuild.build(variant)


def select(muts, args, part=None):
    """The mutants this run judges, and how they were chosen.  --resume:
    those the part's record has not judged (not run, or new), as a run by
    id that updates the record; with no record of the part, all."""
    if getattr(args, "resume", False):
        series = files.read_json(os.path.join(report.OUT, "series.json")) or {}
        run = series.get("parts", {}).get(part)
        if not run:
            return muts, "all"
        done = {r["id"] for r in run["results"] if r["status"] != "not-run"}
        chosen = [m for m in muts if m["id"] not in done]
        return chosen, f"{len(chosen)} not yet judged, chosen by id"
    if args.only:
        want = set(args.only.split(","))
        chosen = [m for m in muts if m["id"] in want]
        return chosen, f"{len(chosen)} chosen by id"
    if args.first:
        return muts[:args.first], f"the first {args.first} in file order"
    return muts, "all"


def select_shard(muts, args, part=None):
    """select(), then the shard's part of it (kmutants_shard.py)."""
    chosen, scope = select(muts, args, part)
    return shards.pick(chosen, scope, args.shard)


def judge_part(part, args, texts, sel):
    """The verdicts of sel (schema, then builds of their own)."""
    src = kcache.apply_series(config.top("tangled/patches"))
    for p in kmutants.PARTS[part]:
        with open(os.path.join(src, p)) as f:
            if f.read() != texts[p][1]:
                config.die("mutants", f"{p} in {src} is not what tangled/patches make "
                           "of the pristine file: the tree was edited")
    kbuild.build(args.variant)
    init = guest.build()
    try:
        comp = Compiler(src, build_dir(args.variant), part, texts)
        if schema_holds(args.variant):
            held, dropped = fit_schema(comp, sel)
            say(f"schema {part}: {len(held)} mutant(s) in one build, {len(dropped)} "
                "need builds of their own")
            kept = comp.compiled(held)
            for m in held:
                m["compiled"] = m["n"] in kept
            say(f"schema {part}: {sum(not m['compiled'] for m in held)} mutant(s) in "
                "code the test kernel does not compile (#if): they can only survive")
        else:
            held, dropped = [], list(sel)
            say(f"{part} is built as modules on the {args.variant} kernel: each of "
                f"the {len(dropped)} mutant(s) is a build of its own")
            prelude_compiles(comp)
        results = [r for r in (alone_compiles(comp, m) for m in dropped) if r]
        failed = {r["id"] for r in results}
        say(f"schema {part}: {len(failed)} of {len(dropped)} do not compile alone "
            "either: build-failed")
        for r in results:
            say(f"  {r['id']} ({r['file']}:{r['line']}): {r['reason']}")
        timeouts = {}
        if held:
            write_schemata(src, part, texts, held)
            rs, timeouts = run_schema(part, args, src, held, init, texts)
            results += rs
        elif len(failed) < len(dropped):
            timeouts = baseline_alone(part, args, src, texts, init)
        for m in dropped:
            if m["id"] not in failed:
                results.append(run_alone(part, args, src, comp, m, init, timeouts))
                say(f"{m['id']} (a build of its own): {results[-1]['status']}")
    finally:
        restore(src, part, args.variant)
    return sorted(results, key=lambda r: r["n"]), timeouts


def run_part(part, args, texts):
    t0 = time.time()
    started = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    inputs = evidence.digests()
    muts, added = kmutants.part_mutants(part, texts)
    sel, scope = select_shard(muts, args, part)
    if not sel:
        say(f"{part}: no mutant selected")
        return None
    say(f"{part}: {len(sel)} of {len(muts)} mutants ({scope}); boots "
        f"{', '.join(judges_of(part, args.variant))}")
    results, timeouts = judge_part(part, args, texts, sel)
    stale = report.settle(results, report.equivalents())
    run = {"started": started, "wall_s": round(time.time() - t0), "generated": len(muts),
           "selected": len(sel), "scope": scope, "boots": judges_of(part, args.variant),
           "variant": args.variant, "inputs": inputs,
           "timeouts": timeouts, "accel": args.accel,
           "files": report.per_file(results, added), "results": results,
           "stale_equivalents": stale}
    if args.shard:
        shards.write(args.shard, part, run, {"node": platform.node(),
                                             "cpu_model": proc.cpu_model(),
                                             "nproc": os.cpu_count()})
    else:
        report.write(report.merge(files.read_json(os.path.join(report.OUT, "series.json")),
                                  part, run))
    for path, f in run["files"].items():
        say(f"{path}: {f['killed'] + f['timeout']}/{f['counted']} killed "
            f"({f['survived']} survived, {f['equivalent']} equivalent, "
            f"{f['build-failed']} build-failed, {f['not-run']} not run)")
    return run


def list_mutants(parts, texts):
    total = 0
    for part in parts:
        muts, added = kmutants.part_mutants(part, texts)
        for m in muts:
            print(f"{m['id']}\t{m['file']}:{m['line']}\t{m['op']}\t{m['what']}".replace(
                "\n", " "))
        ops = ", ".join(f"{op} {sum(m['op'] == op for m in muts)}" for op in kmutants.OPS)
        lines = ", ".join(f"{p} {n} added lines" for p, n in added.items())
        print(f"{part}: {len(muts)} mutants ({ops}); {lines}")
        total += len(muts)
    print(f"total: {total} mutants")


def adopt_evidence():
    """With no build/mutants/series.json, start from the recorded one
    (evidence/mutants.json) if it was made on this tree's inputs: a run of
    hours goes on over several machines (--resume)."""
    path = os.path.join(report.OUT, "series.json")
    if os.path.exists(path):
        return
    rep, prov = evidence.load("mutants")
    if not rep:
        return
    if not prov["current"]:
        say(f"{prov['path']} was made on other inputs than this tree's: not adopted, "
            "this run starts afresh")
        return
    report.write(rep)
    say(f"{prov['path']} (recorded {prov.get('recorded', '?')}) adopted as "
        f"{config.display(path)}: its verdicts stand for this tree")


def interrupted(signum, frame):
    raise KeyboardInterrupt


def run(args):
    args.t0, args.stop = time.time(), None
    signal.signal(signal.SIGTERM, interrupted)
    parts = [p for p in (args.part or "").split(",") if p] or list(kmutants.PARTS)
    unknown = [p for p in parts if p not in kmutants.PARTS]
    if unknown:
        config.die("mutants", f"no part {', '.join(unknown)} (known: "
                   f"{', '.join(kmutants.PARTS)})")
    bootless = [p for p in parts if not boots_of(p, args.variant)]
    if bootless:
        config.die("mutants", f"no boot of the {args.variant} kernel runs the code of "
                   f"{', '.join(bootless)} (built in on every kernel): run it on the "
                   "test or debug kernel")
    if args.settle:
        path = os.path.join(report.OUT, "series.json")
        series = files.read_json(path)
        if not series:
            config.die("mutants", f"no {config.display(path)} to settle: run make mutants")
        report.write(report.resettle(series, report.equivalents()))
        say(f"{config.display(path)}: the table of equivalent mutants read again")
        return 0
    args.shard = shards.parse(args.shard)
    if args.shard and args.resume:
        config.die("mutants", "SHARD and MUTANTS_RESUME together: a shard judges its "
                   "part of a whole run (resume merges into series.json)")
    if not args.list and not args.shard:
        adopt_evidence()
    _, src = kcache.ensure_pristine()
    paths = [p for part in parts for p in kmutants.PARTS[part]]
    texts = kmutants.final_texts(src, paths, config.top("tangled/patches"))
    if args.list:
        list_mutants(parts, texts)
        return 0
    if args.only:
        ids = {m["id"] for part in parts for m in kmutants.part_mutants(part, texts)[0]}
        unknown = sorted(set(args.only.split(",")) - ids)
        if unknown:
            config.die("mutants", f"no mutant {', '.join(unknown[:5])} in "
                       f"{', '.join(parts)} (see python3 -m harness mutants --list)")
    runs = [run_part(part, args, texts) for part in parts]
    if not args.shard:
        say(f"results: {config.display(report.OUT)}/series.{{json,md}}")
    return 0 if all(r is None or all(f["survived"] == 0 for f in r["files"].values())
                    for r in runs) else 1


def register(sub):
    p = sub.add_parser("mutants", help="mutation score of the series' kernel code")
    p.add_argument("--list", action="store_true", help="list the mutants and stop")
    p.add_argument("--settle", action="store_true",
                   help="read the book's table of equivalent mutants again into "
                        "build/mutants/series.json, and stop")
    p.add_argument("--part", default=os.environ.get("MUTANTS", ""),
                   help="comma-separated parts: drbg, random, jitter (default all)")
    p.add_argument("--only", default=os.environ.get("MUTANT_IDS", ""),
                   help="comma-separated mutant ids")
    p.add_argument("--resume", action="store_true",
                   default=bool(os.environ.get("MUTANTS_RESUME")),
                   help="judge only the mutants the part's record has not judged yet "
                        "(after a run cut short by --minutes, or on another machine "
                        "from evidence/mutants.json)")
    p.add_argument("--shard", default=os.environ.get("SHARD", ""),
                   help="i/N: judge the i-th of N shards of the selection "
                        "(kmutants_shard.py; python3 -m harness mutants-merge joins them)")
    p.add_argument("--first", type=int, default=int(os.environ.get("MUTANTS_FIRST") or 0),
                   help="only the first N mutants of each part, in file order")
    p.add_argument("--minutes", type=float,
                   default=float(os.environ.get("MUTANTS_MINUTES") or 0),
                   help="judge no further mutant after this many minutes (the rest "
                        "are reported as not run); 0: no limit")
    p.add_argument("--no-alone", action="store_true",
                   help="do not build the mutants the schema cannot hold")
    p.add_argument("--variant", default=os.environ.get("MUTANTS_VARIANT") or "test",
                   choices=["test", "debug", "modules"],
                   help="the kernel: test, debug (its slower boots: KASAN, lockdep, "
                        "PROVE_RCU, kmemleak) or modules (the DRBG and the Jitter RNG "
                        "removed and loaded again; a build per mutant), for the test "
                        "kernel's survivors")
    p.add_argument("--accel", default=os.environ.get("ACCEL") or "tcg",
                   choices=["tcg", "kvm"])
    p.set_defaults(func=run)
