# SPDX-License-Identifier: GPL-2.0-only
"""The generated mutants of the harness's verdict code, run against the
host suite (python3 -m harness mutants-harness --generated).

1. A workspace: a copy of harness/ with the rest of the repository linked
   (workspace()), two of them when two mutants run side by side.
2. The trace: the whole host suite runs once in the workspace under the
   line tracer of hmutants_trace.py, in-process and in every Python child
   a test starts.  It must pass; it says which tests run each line of the
   mutated files, and how long each test takes.
3. Each mutant: its file is edited in a workspace, and the tests that run
   any line of the mutant's span run, fastest first, stopping at the
   first failure; then the file is put back.  A test that never runs the
   mutated line runs the same code as on the unmutated package and passes
   as it did in the trace, so these tests decide as the whole suite
   would.  A mutant is killed when one fails (or all of them together
   overrun their timeout: a verdict that hangs is caught too).  A mutant
   no test runs survives without a run.
4. The fates: every survivor is named in hmutants_fates.txt with why it
   is equivalent (no verdict can tell it from the original), or it counts
   against the score.  With --confirm, every survivor is run against the
   whole suite as well (`python3 -m unittest discover`), which must pass
   on it.

Results: build/mutants/generated.{json,md}; with --json, the checks
host.hmutants.score and host.hmutants.fates.
"""

import concurrent.futures
import contextlib
import glob
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time

from ..base import config, evidence, files
from ..base.checks import Check
from ..base.report import as_dicts
from . import hmutants
from .mutant_space import run_tests, workspace

OUT = config.build("mutants")
FATES = config.top("harness", "stages", "hmutants_fates.txt")


def say(msg):
    config.say("mutants", msg)


def read_fates(path=FATES):
    """{mutant id: reason} of the survivors declared equivalent; a line is
    `<id> <reason>`; # starts a comment."""
    out = {}
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip() if line.lstrip().startswith("#") \
                else line.strip()
            if not line:
                continue
            mid, _, why = line.partition(" ")
            if not why.strip():
                config.die("mutants", f"{config.display(path)}:{n}: expected "
                           "'<mutant id> <why it is equivalent>', got no reason")
            if mid in out:
                config.die("mutants", f"{config.display(path)}:{n}: {mid} declared twice")
            out[mid] = why.strip()
    return out


def trace(top, scope_files, timeout):
    """{(rel, line): [test ids]}, {test id: seconds} of the whole suite in top."""
    d = tempfile.mkdtemp(prefix="hmutants-trace-")
    try:
        return _trace(top, scope_files, timeout, d)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def _trace(top, scope_files, timeout, d):
    # Readable by all: a test runs a child as nobody, which must import
    # the workspace's package (sitecustomize.py included) as it would the
    # repository's.
    os.chmod(d, 0o755)
    site = os.path.join(d, "site")
    os.makedirs(site, mode=0o755)
    src = os.path.join(top, "harness", "stages", "hmutants_trace.py")
    shutil.copy(src, os.path.join(site, "sitecustomize.py"))
    absfiles = [os.path.realpath(os.path.join(top, "harness", f)) for f in scope_files]
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", HMUT_TRACE_DIR=d,
               HMUT_SITE=site, HMUT_TRACE_FILES=os.pathsep.join(absfiles))
    t0 = time.time()
    p = subprocess.Popen([config.PY, src], cwd=top, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        config.die("mutants", f"the traced host suite did not end in {timeout} s")
    try:
        with open(os.path.join(d, "times.json")) as f:
            meta = json.load(f)
    except OSError:
        config.die("mutants", "the traced host suite wrote no times.json: "
                   + " | ".join(out.strip().splitlines()[-3:]))
    if p.returncode != 0 or not meta["ok"]:
        config.die("mutants", "the host suite fails without a mutant: "
                   + ", ".join(meta["failed"][:5]))
    rel = {a: f for a, f in zip(absfiles, scope_files)}
    lines = {}
    for path in glob.glob(os.path.join(d, "*-*.json")):
        with open(path) as f:
            for test, hits in json.load(f).items():
                for a, n in hits:
                    if a in rel:
                        lines.setdefault((rel[a], n), set()).add(test)
    say(f"trace: the host suite ran {len(meta['times'])} tests in "
        f"{time.time() - t0:.0f} s; {len(lines)} lines of the scope ran")
    return {k: sorted(v) for k, v in lines.items()}, meta["times"]


def covering(mutant, lines, times):
    end = mutant["line"] + mutant["old"].count("\n")
    tests = set()
    lines_run = list(range(mutant["line"], end + 1))
    if mutant.get("cover"):
        lines_run.append(mutant["cover"])
    for n in lines_run:
        tests.update(lines.get((mutant["file"], n), ()))
    tests = {t for t in tests if t in times}  # "<import>", "<between>": no test
    return sorted(tests, key=lambda t: (times[t], t))


@contextlib.contextmanager
def mutated(top, mutant):
    """mutant applied in the workspace top, put back on the way out."""
    path = os.path.join(top, "harness", mutant["file"])
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(hmutants.apply(text, mutant))
    try:
        yield
    finally:
        with open(path, "w") as f:
            f.write(text)


def run_one(top, mutant, tests, times):
    budget = int(3 * sum(times[t] for t in tests)) + 60
    with mutated(top, mutant):
        rc, secs, tail = run_tests(top, ["-f"] + tests, budget, keep=400)
    killer = next((ln.split("(")[-1].rstrip(")") for ln in tail
                   if ln.startswith(("FAIL:", "ERROR:"))), None)
    if rc == "timeout":
        killer = "timeout"
    return {"killed": rc != 0, "exit": rc, "seconds": secs, "tests": len(tests),
            "killer": killer, "tail": tail[-3:]}


def run_all(ms, lines, times, tops):
    results = [None] * len(ms)
    free = list(tops)

    def one(i):
        top = free.pop()
        try:
            m = ms[i]
            tests = covering(m, lines, times)
            if not tests:
                r = {"killed": False, "exit": None, "seconds": 0, "tests": 0,
                     "killer": None, "tail": ["no test runs this line"]}
            else:
                r = run_one(top, m, tests, times)
            results[i] = dict({k: m[k] for k in ("id", "file", "function", "op", "line",
                                                  "old", "new", "source")}, **r)
            say(f"{i + 1}/{len(ms)} {m['id']}: "
                f"{'killed' if r['killed'] else 'SURVIVED'} ({r['tests']} tests, "
                f"{r['seconds']} s)")
        finally:
            free.append(top)

    with concurrent.futures.ThreadPoolExecutor(len(tops)) as ex:
        list(ex.map(one, range(len(ms))))
    return results


def confirm(top, ms, results, timeout):
    """Run every survivor of ms against the whole suite; a failure kills it."""
    by_id = {m["id"]: m for m in ms}
    for r in results:
        if r["killed"]:
            continue
        with mutated(top, by_id[r["id"]]):
            rc, secs, tail = run_tests(top, ["discover", "-s", "tests", "-t", "."],
                                               timeout)
        r["whole_suite"] = {"exit": rc, "seconds": secs, "tail": tail}
        if rc != 0:
            r["killed"], r["killer"] = True, "the whole suite"
        say(f"confirm {r['id']}: the whole suite {'fails' if rc else 'passes'} ({secs} s)")


def settle(results, fates):
    """Each survivor's fate: "equivalent: why", or None (counts against)."""
    for r in results:
        r["fate"] = None if r["killed"] else (
            f"equivalent: {fates[r['id']]}" if r["id"] in fates else None)
    stale = sorted(set(fates) - {r["id"] for r in results if not r["killed"]})
    return stale


def score(results):
    killed = sum(r["killed"] for r in results)
    equivalent = sum(1 for r in results if r.get("fate"))
    return {"mutants": len(results), "killed": killed, "equivalent": equivalent,
            "survived": len(results) - killed - equivalent,
            "rate": round(killed / (len(results) - equivalent), 4)
            if len(results) > equivalent else 0.0}


def as_checks(results, stale):
    s = score(results)
    out = [Check.judge("host.hmutants.score",
                       f"generated mutants of the harness's verdict code: {s['killed']} of "
                       f"{s['mutants'] - s['equivalent']} non-equivalent killed "
                       f"({s['equivalent']} equivalent)",
                       [f"{r['id']} survived ({r['file']}:{r['line']}: "
                        f"{r['source'][:60]})" for r in results
                        if not r["killed"] and not r.get("fate")]
                       + ([] if results else ["no mutant ran"]),
                       origin="host", counts=s)]
    out.append(Check.judge("host.hmutants.fates", "every declared equivalent mutant is "
                           "a survivor of this run", [f"{m} is declared equivalent but was "
                                                     "killed or not generated" for m in stale],
                           origin="host"))
    return out


def markdown(results, s):
    lines = ["# Generated mutants of the harness's verdict code", "",
             f"**{s['killed']} of {s['mutants'] - s['equivalent']} non-equivalent mutants "
             f"killed** ({s['mutants']} generated, {s['equivalent']} equivalent, "
             f"{s['survived']} surviving)", "",
             "Every mutant not killed:", "",
             "| mutant | line | change | fate |", "|---|---|---|---|"]
    for r in results:
        if r["killed"]:
            continue
        change = f"`{r['old']}` → `{r['new']}`".replace("|", "\\|").replace("\n", " ")
        lines.append(f"| {r['id']} | {r['file']}:{r['line']} | {change} | "
                     f"{r.get('fate') or '**survives**'} |")
    return "\n".join(lines) + "\n"


def run(args):
    only = set(args.only.split(",")) if args.only else None
    ms = [m for m in hmutants.all_mutants() if not only or m["id"] in only
          or m["file"] in only or m["op"] in only]
    if args.list:
        for m in ms:
            print(f"{m['id']}\t{m['file']}:{m['line']}\t{m['old']!r} -> {m['new']!r}")
        return 0
    fates = read_fates()
    tops = [workspace() for _ in range(max(1, args.jobs))]
    for t in tops:
        os.chmod(t, 0o755)  # as the repository is: a test runs a child as nobody
    try:
        t0 = time.time()
        saved = os.path.join(OUT, "generated-trace.json")
        if args.reuse_trace and os.path.exists(saved):
            with open(saved) as f:
                t = json.load(f)
            lines = {(k.rsplit(":", 1)[0], int(k.rsplit(":", 1)[1])): v
                     for k, v in t["lines"].items()}
            times = t["times"]
            say(f"trace: reused {config.display(saved)} (--reuse-trace)")
        else:
            lines, times = trace(tops[0], sorted(hmutants.SCOPE), args.suite_timeout)
            files.write_json(saved, {"lines": {f"{f}:{n}": v for (f, n), v in lines.items()},
                                     "times": times})
        results = run_all(ms, lines, times, tops)
        if args.confirm:
            confirm(tops[0], ms, results, args.suite_timeout)
    finally:
        for t in tops:
            shutil.rmtree(t, ignore_errors=True)
    stale = settle(results, fates)
    if only:
        stale = []    # a part of the mutants: a fate of another part is not stale
    s = score(results)
    record = {"inputs": {"hmutants": evidence.digest(evidence.RECORDS["hmutants"]["inputs"])},
              "mode": "partial" if only else "full", "score": s,
              "seconds": round(time.time() - t0, 1), "jobs": args.jobs,
              "confirmed": bool(args.confirm), "scope": hmutants.SCOPE,
              "tests": len(times), "results": results}
    files.write_json(os.path.join(OUT, "generated.json"), record)
    files.write_text(os.path.join(OUT, "generated.md"), markdown(results, s))
    checks = as_checks(results, stale)
    if args.json:
        files.write_json(args.json, as_dicts(checks))
    say(f"generated mutants: {s['killed']} of {s['mutants'] - s['equivalent']} "
        f"non-equivalent killed, {s['survived']} surviving "
        f"({config.display(OUT)}/generated.md)")
    return 0 if all(c.ok for c in checks) else 1
