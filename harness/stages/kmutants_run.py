# SPDX-License-Identifier: GPL-2.0-only
"""The verb mutants (make mutants): the mutation score of the series.

  python3 -m harness mutants --list [--part drbg,...]
  python3 -m harness mutants [--part drbg,...] [--only ID,...] [--first N]

For each part (kmutants.PARTS), every mutant of the lines the series adds
(kmutants.py) goes into one schema build of the test kernel
(kmutants_schema.py): the part's files are compiled alone first, and a
mutant the compiler rejects is dropped from the schema.  The covering
boots of the part (BOOTS, cheapest first) run once with mutant=0, which
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
last runs kept.
"""

import datetime
import os
import re
import signal
import subprocess
import time

from ..base import config, evidence, files, guest, kbuild, kcache, qemu, records
from ..base.checks import Check
from ..judges import figures
from . import conform, kmutants
from . import kmutants_host as host
from . import kmutants_report as report
from . import kmutants_schema as schema
from .plan import BOOTS as PLAN

# The boots that run a part's code, the likeliest to kill first (each
# takes seconds to tens of seconds under TCG; a run's timeouts are in
# series.json).  drbg runs every drbg* suite (make teeth's boot runs one).
BOOTS = {
    "drbg": ["drbg", "fips-drbg", "jitter-absent"],
    "random": ["main", "drbg"],
    "jitter": ["jitter", "main", "jitter-raw", "jitter-absent",
               "jitter-intermittent-fips", "jitter-permanent-fips", "jitter-startup-fips",
               "jitter-kat-fips", "drbg"],
}
# Boots of the mutants' own, not in make conform's plan.  jitter-raw reads
# the raw noise test interface (CONFIG_CRYPTO_JITTERENTROPY_TESTINTERFACE),
# which make entropy reads a million samples through in a stage of its
# own: 2000 consecutive samples and 2 restarts of 100 here, so that a
# mutant that stops the core handing its raw samples over is killed.  Its
# "checks" must be reported: a boot that ends without them fails.
OWN_BOOTS = [
    {"name": "jitter-raw", "mode": "entropy", "timeout": 300, "expect": "end",
     "append": "kunit.enable=0 conform.entropy_samples=2000 conform.entropy_restarts=2 "
               "conform.entropy_len=100", "kunit": False,
     "checks": ["guest.entropy.raw"],
     "title": "the Jitter RNG's raw noise interface: 2000 samples, 2 restarts of 100"},
]
# Boots whose guest records one read of the Jitter RNG with every time
# stamp it took (jent_testhook_record_run): make conform replays it once,
# for the figures (conform.figure_checks); here it is a check of the boot,
# so that a mutant whose output the model cannot recompute from the
# kernel's own time stamps is killed.  No record is a failure too.
REPLAYED = ("main",)
# --variant debug (KASAN, lockdep, PROVE_RCU, kmemleak): the stronger and
# slower boots, for survivors of the test kernel's.
DEBUG_BOOTS = {"drbg": ["debug-drbg"], "random": ["debug-main", "debug-drbg"],
               "jitter": ["debug-jitter", "debug-drbg"]}
# --variant modules (debug options too): the DRBG and the Jitter RNG built
# as modules, removed and loaded again with reseeds in flight; the judge of
# a mutant in their teardown.  random.c is built in on every kernel: no boot.
MODULES_BOOTS = {"drbg": ["modules"], "jitter": ["modules"], "random": []}


def boots_of(part, variant):
    return {"debug": DEBUG_BOOTS, "modules": MODULES_BOOTS}.get(variant, BOOTS)[part]


# The host judge (kmutants_host.py) runs first on a mutant of a file it
# judges: it kills most mutants of the Jitter RNG's core in 0.5 to 4 s,
# where the boots take about 30 s to let them through.  It does not depend
# on the kernel, so it runs with the test kernel's boots only.
HOST_TIMEOUT = 600


def host_judged(part, variant):
    """The files of part the host judge tests, on this variant."""
    return [p for p in kmutants.PARTS[part] if host.judged(p)] if variant == "test" else []


def judges_of(part, variant):
    """The names of the host judges and boots of part, in their order."""
    return [host.judged(p)["name"] for p in host_judged(part, variant)] + \
        boots_of(part, variant)


def schema_holds(variant):
    """Whether one build can hold many mutants.  The selector is a
    core_param, read from the kernel's command line by built-in code; a
    module loaded by /init does not see it, so on the modules kernel each
    mutant is a build of its own, N fixed at compile time."""
    return variant != "modules"
OBJ = {p: p[:-2] + ".o" for ps in kmutants.PARTS.values() for p in ps}


def say(msg):
    config.say("mutants", msg)


def spec_of(name, n, timeout=None):
    spec = dict(next(b for b in PLAN + OWN_BOOTS if b["name"] == name))
    spec["append"] = f"{spec['append']} mutant={n}".strip()
    spec.pop("solo", None)
    if timeout:
        spec["timeout"] = timeout
    return spec


def write_schemata(src, part, texts, mutants, const=None):
    """Write the schema of each file of part into the tree; {path: where}."""
    wheres = {}
    for p in kmutants.PARTS[part]:
        mine = [m for m in mutants if m["file"] == p]
        text, wheres[p] = schema.schema(part, p, texts[p][1], mine, const=const)
        with open(os.path.join(src, p), "w") as f:
            f.write(text)
    return wheres


class Compiler:
    """Compiles the part's files as the kernel's build does (the command
    its .o.cmd recorded, without objtool and with no object kept), to
    find the mutants the compiler rejects before a kernel is linked."""

    def __init__(self, src, build, part, texts):
        self.src, self.build, self.part, self.texts = src, build, part, texts
        self.cmds = {p: self.command(p) for p in kmutants.PARTS[part]}
        self.runs = 0

    def command(self, p):
        d, f = os.path.split(OBJ[p])
        path = os.path.join(self.build, d, f".{f}.cmd")
        try:
            with open(path) as fh:
                line = fh.readline()
        except OSError:
            config.die("mutants", f"{path} is missing: build the test kernel first")
        cmd = line.split(":=", 1)[1].split(";")[0].strip()
        cmd = re.sub(r"-Wp,-MMD,\S+", "", cmd)
        return re.sub(r"-o \S+", "-o /dev/null", cmd)

    def attempt(self, mutants, const=None):
        """(ok, the mutants the messages blame, log) of one compile of the
        schema of mutants."""
        wheres = write_schemata(self.src, self.part, self.texts, mutants, const)
        ok, bad, log = True, set(), ""
        for p, cmd in self.cmds.items():
            self.runs += 1
            r = subprocess.run(cmd, shell=True, cwd=self.build, capture_output=True,
                               text=True)
            if r.returncode == 0:
                continue
            ok, log = False, log + r.stderr
            with open(os.path.join(self.src, p)) as f:
                text = f.read()
            errs = [(ln, col) for ln, col, _, _ in schema.compile_errors(r.stderr, p)]
            bad |= schema.culprits(text, wheres[p], errs)
        return ok, bad, log


    def compiled(self, mutants):
        """The N of the mutants the preprocessor keeps (not in an #if
        branch the test kernel's configuration leaves out)."""
        write_schemata(self.src, self.part, self.texts, mutants)
        seen = set()
        for cmd in self.cmds.values():
            r = subprocess.run(cmd.replace(" -c ", " -E ").replace("-o /dev/null", "-o -"),
                               shell=True, cwd=self.build, capture_output=True, text=True)
            seen |= {int(n) for n in re.findall(r"_selector == \((\d+)\)", r.stdout)}
        return seen


def bisect(comp, held):
    """Mutants that fail to compile with no message that names them (a
    macro's constant rejected where the macro is used): halve the set
    until one half alone fails; the smallest failing set found."""
    while len(held) > 1:
        a, b = held[:len(held) // 2], held[len(held) // 2:]
        if not comp.attempt(a)[0]:
            held = a
        elif not comp.attempt(b)[0]:
            held = b
        else:
            return held           # only together: all of them go
    return held


def error_lines(log):
    """The first three lines of a compiler log that speak of an error, on
    one line (for a message that stops the run)."""
    tail = [ln.strip() for ln in log.splitlines() if "error" in ln][:3]
    return " | ".join(tail)[:400]


def fit_schema(comp, mutants):
    """(the mutants the schema holds, the ones it cannot): the ones the
    compiler blames go, then each is tried again alone in the schema."""
    held, dropped = list(mutants), []
    while True:
        ok, bad, log = comp.attempt(held)
        if ok:
            break
        if not held:
            config.die("mutants", f"the files of {comp.part} do not compile with the "
                       f"schema's prelude alone: {log.strip()[:300]}")
        gone = [m for m in held if m["n"] in bad] or bisect(comp, held)
        if len(gone) == len(held) and not bad and len(held) > 1:
            config.die("mutants", f"the schema of {comp.part} does not compile: "
                       f"{error_lines(log)}")
        dropped += gone
        held = [m for m in held if m not in gone]
    back = []
    for m in dropped:
        if comp.attempt(held + back + [m])[0]:
            back.append(m)
    say(f"schema {comp.part}: {len(back)} of {len(dropped)} mutant(s) the compiler "
        f"blamed fit after all ({comp.runs} compiles)")
    held = sorted(held + back, key=lambda m: m["n"])
    if back and not comp.attempt(held)[0]:
        config.die("mutants", f"the schema of {comp.part} with the mutants put back "
                   "does not compile")
    return held, [m for m in dropped if m not in back]


def replay_checks(info):
    """The replay of a boot's recorded Jitter RNG read, as failed or
    passed checks (a boot that recorded nothing fails)."""
    recs = records.read(config.top(info["results_log"]))
    _, _, checks = figures.guest_replay(recs)
    return [Check.failed(c.id, c.title, c.reason, origin="host") if c.status == "skip"
            else c for c in checks]


class Booter:
    """The covering boots of one part on the kernel just built, and the
    host judge of a file the host tests compile (kmutants_host.py)."""

    def __init__(self, part, args, src, image, init, texts):
        self.part, self.args, self.src, self.image, self.init = part, args, src, image, init
        self.texts = texts
        self.out = os.path.join(report.OUT, part)
        self.timeouts = {}

    def host(self, path, m):
        """(status, failed test ids, seconds) of the host judge of path on
        mutant m (None: the series)."""
        name = host.judged(path)["name"]
        return host.judge(self.part, path, m, self.texts, self.out,
                          self.timeouts.get(name, HOST_TIMEOUT))

    def boot(self, name, n):
        """(status, failed check ids, seconds) of one boot with mutant=n."""
        spec = spec_of(name, n, self.timeouts.get(name))
        t0 = time.time()
        try:
            info, checks = conform.run_boot(spec, self.args.accel, self.image, self.init,
                                            self.src, self.out)
        except Exception as e:          # pylint: disable=broad-except
            # A judge that cannot read what the boot left: make conform
            # reports it as a failed check of the boot, and so does this.
            why = f"harness-error.{name}: {type(e).__name__}: {e}"[:200]
            return "killed", [why], round(time.time() - t0, 1)
        if name in REPLAYED and info["outcome"] != "hung":
            checks += replay_checks(info)
        seen = {c.id for c in checks}
        checks += [Check.failed(f"boot.{name}.missing.{cid}", f"{cid} reported",
                                f"the boot ended without reporting {cid}", origin="harness")
                   for cid in spec.get("checks", ()) if cid not in seen
                   and info["outcome"] != "hung"]
        failed = [c.id for c in checks if c.status == "fail"]
        status = "timeout" if info["outcome"] == "hung" and spec["expect"] != "hung" \
            else "killed" if failed else "passed"
        return status, failed[:4], round(time.time() - t0, 1)

    def runs(self, m, paths, booted=True):
        """(name, is a host judge, run) of the host judges of paths, then
        (booted) of the covering boots, in that order, with mutant m (None:
        the series)."""
        out = [(host.judged(p)["name"], True, lambda p=p: self.host(p, m)) for p in paths]
        return out + [(name, False, lambda name=name: self.boot(name, m["n"] if m else 0))
                      for name in boots_of(self.part, self.args.variant) if booted]

    def baseline(self):
        """The host judges on the series and every boot with mutant=0:
        all must pass; sets the timeouts."""
        for name, hosted, run in self.runs(None, host_judged(self.part, self.args.variant)):
            status, failed, secs = run()
            if status != "passed":
                what = (f"the host judge {name} fails on the series", "no test failed") \
                    if hosted else (f"boot {name} fails without a mutant", "no check failed")
                config.die("mutants", f"{what[0]} ({status}: {', '.join(failed) or what[1]}"
                           "): fix that first, or every mutant would be killed")
            self.timeouts[name] = int(2 * secs + 30)
            say(f"baseline {name}: passed in {secs} s (timeout per mutant "
                f"{self.timeouts[name]} s)")

    def judge(self, m, hosted=True, booted=True):
        """The host judge of m's file (hosted) and the covering boots
        (booted) with mutant m, in that order, until one kills it."""
        t0, boots = time.time(), []
        paths = [m["file"]] if hosted and \
            m["file"] in host_judged(self.part, self.args.variant) else []
        for name, _, run in self.runs(m, paths, booted):
            status, failed, secs = run()
            boots.append({"boot": name, "status": status, "seconds": secs})
            if status != "passed":
                return {"status": status, "boot": name, "failed": failed,
                        "boots": boots, "seconds": round(time.time() - t0, 1)}
        return {"status": "survived", "boot": None, "failed": [], "boots": boots,
                "seconds": round(time.time() - t0, 1)}


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


def prelude_compiles(comp):
    """Stop unless the part's files compile with the prelude of a build of
    its own and no mutant: otherwise every mutant would come out
    build-failed, and none would be judged."""
    ok, _, log = comp.attempt([], const=0)
    if not ok:
        config.die("mutants", f"the files of {comp.part} do not compile with the "
                   f"prelude of a build of its own (N fixed): {error_lines(log)}")


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
    sel, scope = select(muts, args, part)
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
    series = report.merge(files.read_json(os.path.join(report.OUT, "series.json")),
                          part, run)
    report.write(series)
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
    if not args.list:
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
