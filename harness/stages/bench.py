# SPDX-License-Identifier: GPL-2.0-only
"""The verb bench (make bench): side-by-side timings in one run.  Not part of
make check.

  python3 -m harness bench [--reps N] [--cavs-reps N] [--no-workflow] [--no-check]
           [--cache DIR]
           [--accel tcg|kvm] [--reads N] [--max BYTES] [--drbg N] [--out DIR]

Writes build/bench/bench.json (for machines and the book's performance
appendix, stages/book/performance.py) and build/bench/bench.md (for people).  In order:

1. workflow (host): a copy of this working tree in build/bench/repo runs
   `make conform` with an empty kernel cache (cold: import + build + boots),
   again with nothing changed (warm: its boots are kept ones, kept_boots.py),
   and again after a one-line change of a kernel message in a code chunk
   of chapters/30-drbg-seeding.nw, a line that reaches the kernel tree
   (reverted, and the series rebuilt, afterwards); then the kernel tree's own
   `tools/testing/kunit/kunit.py run --arch=x86_64` with the same config
   fragment as its .kunitconfig and a build directory outside the tree,
   cold and warm; then (unless --no-check) `make check` in the copy, its
   first run (cold: the debug kernel built, nothing kept) and again (warm).
   Each once: a cold run cannot be repeated cheaply.
2. builds: the test kernel by the normal path (`make kernel` in the
   copy, which a run without the workflow phase makes here), and the
   pristine 6.1 kernel from a `git worktree` of the tag 'pristine' in the
   bench's cache, with the same fragment (options the pristine tree does
   not define are dropped by olddefconfig and listed).
3. guest (after every build, never beside one): the two kernels booted
   alternately (ABBA order) N times in boot mode "bench"
   (conformance/guest/bench.c): Jitter RNG read latency and throughput by
   size, its start-up (initcall_debug), and the instantiation of each of
   the 22 DRBGs; then the test kernel's CAVS runner on a quarter, a half
   and all of the default CAVS records, M times each.

The bench's kernel cache is its own (default $KCACHE/bench), emptied at
the start of a run with the workflow phase: the cold figures need it.
Timings are never judged in a test; the targets of issue 9 are stated,
with the measured ratio and whether it was met, in bench.md.
"""

import datetime
import os
import platform
import re
import resource
import shutil
import subprocess
import time

from ..base import (config, evidence, files, guest, initramfs, kbuild, kcache, proc, qemu,
                    records)
from ..judges import cavs_pack
from ..judges import entropy_collect as ec
from ..judges import entropy_data as ed
from . import assess
from . import bench_stats as st
from .bench_report import markdown
from .conform import PACKAGES
from .plan import BASE_APPEND

TOP = config.TOP
DRBG_CHAPTER = "chapters/30-drbg-seeding.nw"
CAVS_FRACTIONS = (0.25, 0.5, 1.0)


def say(msg):
    config.say("bench", msg)


# ---------------------------------------------------------------------------
# Running things

def loadavg():
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def run_logged(cmd, log, cwd=None, env=None, echo=r"^(kernel|conform|kunit|deps)\b|"
               r"^\[\d\d:\d\d:\d\d\] (Elapsed|Testing complete|Configuring|Building)"):
    """Run cmd; every output line is written to log with its time.  Returns
    {"seconds", "cpu_s", "rc", "lines": [(t, text)], "load": [before, after]}:
    cpu_s is the user + system time of cmd and everything it waited for,
    which other work on a shared host changes much less than the wall clock."""
    os.makedirs(os.path.dirname(log), exist_ok=True)
    load0 = loadavg()
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.time()
    lines = []
    with open(log, "w") as lf:
        lf.write(f"# {' '.join(cmd)} (cwd {cwd or os.getcwd()})\n")
        p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, errors="replace")
        for ln in p.stdout:
            t = time.time() - t0
            ln = ln.rstrip("\n")
            lines.append((round(t, 2), ln))
            lf.write(f"{t:8.2f} {ln}\n")
            if echo and re.search(echo, ln):
                print(f"   {t:7.1f} s  {ln[:160]}", flush=True)
        rc = p.wait()
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
    return {"seconds": round(time.time() - t0, 1), "cpu_s": round(cpu, 1), "rc": rc,
            "lines": lines, "load": [load0, loadavg()]}


def copy_tree(dst):
    """The working tree's files (tracked and untracked, not ignored) into dst."""
    r = subprocess.run(["git", "-C", TOP, "ls-files", "-z", "--cached", "--others",
                        "--exclude-standard"], capture_output=True, check=True)
    if os.path.exists(dst):
        shutil.rmtree(dst)
    n = 0
    for rel in r.stdout.decode().split("\0"):
        if not rel or rel.startswith("build/"):
            continue
        src = os.path.join(TOP, rel)
        if not os.path.isfile(src):
            continue
        d = os.path.join(dst, rel)
        os.makedirs(os.path.dirname(d), exist_ok=True)
        shutil.copy2(src, d)
        n += 1
    return n


def series_lines(src):
    """The lines the applied series adds to 6.1 in the kernel tree src
    (git diff pristine HEAD), each stripped of its indentation."""
    r = subprocess.run(["git", "-C", src, "diff", "--no-color", "-U0", "pristine", "HEAD"],
                       capture_output=True, text=True, check=True)
    return {ln[1:].strip() for ln in r.stdout.splitlines()
            if ln.startswith("+") and not ln.startswith("+++")}


LOG_CALL = re.compile(r'\bpr_(?:emerg|alert|crit|err|warn|notice|info)\w*\(\s*".*\\n"')


def one_chunk_edit(path, final):
    """Change the message of one kernel log call (pr_*) in one code chunk of
    path: the first such line that reaches the kernel tree, i.e. whose text
    is among final (series_lines()) and occurs in no other code line of the
    chapter.  A line a later patch rewrites is not in final, and an edit of
    it would leave the tree, the image and every kept boot as they were.
    The message gains " (bench)", so the object changes.  Return the
    original text and the line's number."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    lines = text.split("\n")
    code, in_code = [], False
    for i, ln in enumerate(lines):
        if re.match(r"^<<.*>>=\s*$", ln):
            in_code = True
        elif ln.startswith("@"):
            in_code = False
        elif in_code:
            code.append(i)
    count = {}
    for i in code:
        count[lines[i].strip()] = count.get(lines[i].strip(), 0) + 1
    for i in code:
        ln = lines[i]
        if LOG_CALL.search(ln) and count[ln.strip()] == 1 and ln.strip() in final:
            cut = ln.rindex('\\n"')
            lines[i] = ln[:cut] + " (bench)" + ln[cut:]
            with open(path, "w", encoding="utf-8") as f:
                f.write("\n".join(lines))
            return text, i + 1
    raise SystemExit(f"bench: {path}: no pr_*() message in a code chunk that reaches the "
                     "kernel tree (its text unique in the chapter and added by the series)")


def tool_versions():
    first = proc.first_line
    return {"gcc": first(["gcc", "--version"]), "make": first(["make", "--version"]),
            "qemu": first(["qemu-system-x86_64", "--version"]),
            "git": first(["git", "--version"]), "python": platform.python_version()}

class Bench:
    def __init__(self, args):
        self.args = args
        self.out = os.path.abspath(args.out)
        self.cache = os.path.abspath(os.path.expanduser(args.cache))
        self.repo = os.path.join(self.out, "repo")
        self.env = dict(os.environ, KCACHE=self.cache, ACCEL=args.accel,
                        BOOTS="", VECTORS="")
        self.copied = False         # the working tree copied to repo by this run
        os.environ["KCACHE"] = self.cache   # for kcache's functions here

    # -- 1. workflow ---------------------------------------------------------

    def make(self, target, log):
        return run_logged(["make", "-C", self.repo, target], log, env=self.env)

    def workflow(self):
        wf = {"repetitions": 1}
        n = copy_tree(self.repo)
        self.copied = True
        say(f"workflow: copied {n} files of the working tree to "
            f"{os.path.relpath(self.repo, TOP)}")
        if os.path.exists(self.cache):
            say(f"workflow: emptying the bench's kernel cache {self.cache}")
            shutil.rmtree(self.cache)
        self.timed_runs(wf, "conform", st.parse_conform_log, (
            ("conform_cold", "make conform, empty kernel cache"),
            ("conform_warm", "make conform again, nothing changed")))
        version, src = kcache.ensure_pristine()
        chapter = os.path.join(self.repo, DRBG_CHAPTER)
        original, line = one_chunk_edit(chapter, series_lines(src))
        what = f"make conform after changing one kernel message ({DRBG_CHAPTER}:{line})"
        say(f"workflow: {what}")
        try:
            r = self.make("conform", os.path.join(self.out, "logs", "conform_chunk.log"))
        finally:
            with open(chapter, "w", encoding="utf-8") as f:
                f.write(original)
        chunk = wf["conform_chunk"] = {"what": what, "seconds": r["seconds"],
                                       "cpu_s": r["cpu_s"], "rc": r["rc"], "load": r["load"],
                                       "line": line, **st.parse_conform_log(r["lines"])}
        say(f"workflow: one-chunk change: {r['seconds']} s (exit {r['rc']}), "
            f"{chunk['changed_files']} kernel file(s) changed, built in {chunk['build_s']} s, "
            f"{chunk['kept_boots']} boot(s) kept; reverting and rebuilding the series "
            "(not timed)")
        if not st.chunk_reached(chunk):
            say("workflow: the one-chunk change did NOT reach the kernel: its figure is "
                "not a measurement and its target is not met")
        r = self.make("kernel", os.path.join(self.out, "logs", "restore.log"))
        if r["rc"]:
            raise SystemExit("bench: make kernel failed after the revert; see "
                             "build/bench/logs/restore.log")
        wf["restore_s"] = r["seconds"]

        kdir = os.path.join(kcache.tree_dir(version), "build-kunit")
        kconf_dir = os.path.join(self.out, "kunit")
        os.makedirs(kconf_dir, exist_ok=True)
        kconf = os.path.join(kconf_dir, ".kunitconfig")
        shutil.copy(os.path.join(TOP, "conformance/kconfig/test.config"), kconf)
        if os.path.exists(kdir):
            shutil.rmtree(kdir)
        cmd = ["/usr/bin/python3", "tools/testing/kunit/kunit.py", "run",
               "--arch=x86_64", f"--build_dir={kdir}", f"--kunitconfig={kconf}"]
        for key, what in (("kunit_cold", "kunit.py run, empty build directory"),
                          ("kunit_warm", "kunit.py run again, nothing changed")):
            say(f"workflow: {what}")
            r = run_logged(cmd, os.path.join(self.out, "logs", f"{key}.log"), cwd=src,
                           env=dict(os.environ))
            wf[key] = {"what": what, "seconds": r["seconds"], "cpu_s": r["cpu_s"],
                       "rc": r["rc"], "load": r["load"], "command": " ".join(cmd), "cwd": src,
                       **st.parse_kunit_log(r["lines"])}
            say(f"workflow: {what}: {r['seconds']} s (exit {r['rc']})")
        if not self.args.no_check:
            self.check_runs(wf)
        cold = wf["conform_cold"]
        known = sum(cold.get(k) or 0 for k in ("import_s", "build_s", "boots_s"))
        cold["other_s"] = round(cold["seconds"] - known, 1)
        wf["targets"] = st.workflow_targets(wf)
        return wf

    def check_runs(self, wf):
        """make check in the copy, twice: "cold" is its first run there (no
        build/ of its own: no kept verdicts, no kept boots; the test kernel
        is in the bench's cache from the runs above, the debug kernel is
        not), "warm" the same again with nothing changed."""
        self.timed_runs(wf, "check", st.parse_check_log, (
            ("check_cold", "make check, no build/, debug kernel not built"),
            ("check_warm", "make check again, nothing changed")))

    def timed_runs(self, wf, target, parse, runs):
        """make target in the copy once per (key, what) of runs, each timed
        into wf[key] with what parse() reads from its log."""
        for key, what in runs:
            say(f"workflow: {what}")
            r = self.make(target, os.path.join(self.out, "logs", f"{key}.log"))
            wf[key] = {"what": what, "seconds": r["seconds"], "cpu_s": r["cpu_s"],
                       "rc": r["rc"], "load": r["load"], **parse(r["lines"])}
            say(f"workflow: {what}: {r['seconds']} s (exit {r['rc']})")

    # -- 2. builds -----------------------------------------------------------

    def builds(self):
        """The test kernel, by make kernel in the copy, and the pristine one.
        A run without the workflow phase copies the working tree here: the
        copy an earlier run left is of that run's tree (until 2026-12-07 a
        partial run built the series its last full run had copied)."""
        if not self.copied:
            n = copy_tree(self.repo)
            self.copied = True
            say(f"build: copied {n} files of the working tree to "
                f"{os.path.relpath(self.repo, TOP)}")
        say("build: the test kernel (make kernel)")
        r = self.make("kernel", os.path.join(self.out, "logs", "kernel-test.log"))
        if r["rc"]:
            raise SystemExit("bench: make kernel failed; see build/bench/logs/kernel-test.log")
        version, src = kcache.ensure_pristine()
        base = kcache.tree_dir(version)
        psrc = os.path.join(base, "src-pristine")
        pcommit = kcache.git(src, "rev-parse", "pristine^{commit}").stdout.strip()
        if not os.path.isdir(psrc):
            kcache.git(src, "worktree", "prune")
            kcache.git(src, "worktree", "add", "-q", "--detach", psrc, "pristine")
        if kcache.git(psrc, "rev-parse", "HEAD").stdout.strip() != pcommit or \
                kcache.git(psrc, "status", "--porcelain").stdout.strip():
            kcache.git(psrc, "checkout", "-q", "-f", "--detach", "pristine")
        pbuild = os.path.join(base, "build-pristine")
        say(f"build: the pristine kernel ({psrc} -> {pbuild})")
        dropped = kbuild.configure(psrc, pbuild, "test", strict=False)
        t0 = time.time()
        log = os.path.join(pbuild, "build.log")
        open(log, "w").close()
        kbuild.kmake(psrc, pbuild, "bzImage", log=log, progress="build pristine")
        say(f"build: pristine kernel built in {time.time() - t0:.0f} s")
        test = os.path.join(base, "build-test")

        def info(b, head):
            with open(os.path.join(b, "include/config/kernel.release")) as f:
                rel = f.read().strip()
            return {"release": rel, "build_dir": b, "head": head,
                    "config_sha256": files.sha256_file(os.path.join(b, ".config")),
                    "bzimage": os.path.join(b, "arch/x86/boot/bzImage")}
        head = (files.read_json(os.path.join(test, "build.ok")) or {}).get("head")
        return {"base": f"linux-source-6.1 {version}",
                "ours": info(test, head),
                "pristine": dict(info(pbuild, pcommit), worktree=psrc,
                                 dropped_options=dropped)}

    # -- 3. guest ------------------------------------------------------------

    def boot(self, name, bzimage, rd, append, timeout):
        bdir = os.path.join(self.out, "boots", name)
        full = f"{BASE_APPEND} {append}"
        load0 = loadavg()
        b = qemu.boot(name, bzimage, rd, full, bdir, timeout, accel=self.args.accel)
        recs = records.read(b.results)
        say(f"boot {name}: {b.outcome} after {b.seconds} s"
            + (f": {b.detail[:200]}" if b.detail else ""))
        return {"name": name, "outcome": b.outcome, "seconds": b.seconds,
                "load": [load0, loadavg()], "append": full, "qemu": b.command_line(),
                "console_log": os.path.relpath(b.console, TOP),
                "results_log": os.path.relpath(b.results, TOP)}, recs

    def guest(self, kernels):
        a = self.args
        init = guest.build(os.path.join(self.out, "guest"))
        src = kcache.ensure_pristine()[1]
        rd = initramfs.write(os.path.join(self.out, "guest", "bench.cpio"), init, src=src)
        append = (f"conform.mode=bench kunit.enable=0 initcall_debug log_buf_len=4M "
                  f"bench.reads={a.reads} bench.max={a.max} bench.drbg={a.drbg}")
        boots, results = [], []
        for rep in range(a.reps):
            order = ("ours", "pristine") if rep % 2 == 0 else ("pristine", "ours")
            for kname in order:
                info, recs = self.boot(f"bench-{kname}-{rep + 1}",
                                       kernels[kname]["bzimage"], rd, append, 1800)
                info.update(kernel=kname, rep=rep)
                boots.append(info)
                if info["outcome"] == "end":
                    results.append({"kernel": kname, "rep": rep, "recs": recs})
        agg = st.aggregate_guest(results)
        agg["settings"] = {"reads_32B": a.reads, "max_bytes": a.max,
                             "drbg_reps_per_boot": a.drbg, "pairs_requested": a.reps}

        # CAVS: the test kernel only (the pristine one has no test interface).
        say("cavs: packing the default CAVS records (host model included)")
        pack, meta = cavs_pack.prepare(cavs_pack.vector_dirs_from_env(""),
                                       os.path.join(self.out, "cavs"))
        with open(pack, "rb") as f:
            files, sections, records = cavs_pack.read_pack(f.read())
        selftest = {i for i, n in enumerate(files) if n.startswith("selftest")}
        records = [r for r in records if r[0] not in selftest]
        packs = {}
        for frac in CAVS_FRACTIONS:
            step = round(1 / frac)
            p = os.path.join(self.out, "cavs", f"bench-{frac}.pack")
            cavs_pack.write_pack(p, files, sections, records[::step])
            packs[frac] = initramfs.write(
                os.path.join(self.out, "cavs", f"bench-{frac}.cpio"), init,
                {"data/cavs.pack": p}, src=src)
        runs = []
        for rep in range(a.cavs_reps):
            fracs = CAVS_FRACTIONS if rep % 2 == 0 else tuple(reversed(CAVS_FRACTIONS))
            for frac in fracs:
                info, recs = self.boot(f"cavs-{frac}-{rep + 1}", kernels["ours"]["bzimage"],
                                       packs[frac], "conform.mode=cavs kunit.enable=0", 1800)
                info.update(kernel="ours", rep=rep, fraction=frac)
                boots.append(info)
                done = next((r for r in recs if r.get("type") == "cavs_done"), None)
                runs.append({"fraction": frac, "rep": rep, "done": done})
        cavs = {"vector_dirs": meta["vector_dirs"], "records_all": len(records),
                "subsets": st.aggregate_cavs(runs), "repetitions": a.cavs_reps,
                "how": "every 4th, every 2nd and every record of the pack of the "
                       "default VECTORS set, self-test record left out"}
        return agg, cavs, boots

    # -- 4. entropy rate -----------------------------------------------------

    def entropy_rate(self):
        """Our core and 6.1's in user space, the collectors of make entropy,
        one after the other with nothing else running: 1,000,000 raw
        samples each, timed in CPU seconds, and their assessed H_I."""
        base = os.path.join(self.out, "entropy")
        pdir = ec.pristine_sources(kcache.ensure_pristine()[1],
                                   os.path.join(base, "pristine-src"))
        binary, out = assess.build(), {}
        for name in ec.SOURCES:
            sdir = os.path.join(base, name)
            meta = ec.run(ec.build(name, os.path.join(base, "bin"), pdir), sdir,
                          1000000, 0, 1000)
            with open(os.path.join(sdir, "raw.bin"), "wb") as f:
                f.write(ed.symbols(ed.read_deltas(os.path.join(sdir, "deltas.bin"))))
            rc, _, err, _ = assess.run_assessor(binary, os.path.join(sdir, "raw.bin"),
                                                os.path.join(sdir, "assessment.json"), bits=8)
            a = files.read_json(os.path.join(sdir, "assessment.json"))
            if rc or not a:
                raise SystemExit(f"bench: the assessor failed on {name}: {err.strip()[:200]}")
            seq = meta["seq"]
            per_s = seq["samples"] / seq["cpu_s"]
            out[name] = {"samples": seq["samples"], "cpu_s": seq["cpu_s"],
                         "wall_s": seq["wall_s"], "blocks": seq["blocks"],
                         "blocks_per_cpu_s": seq["blocks"] / seq["cpu_s"],
                         "samples_per_block": seq["samples"] / max(seq["blocks"], 1),
                         "samples_per_cpu_s": per_s, "h_i": a["assessed"],
                         "bits_per_cpu_s": per_s * a["assessed"], "load": loadavg()}
            say(f"entropy: {name}: H_I {a['assessed']:.3f} x {per_s:,.0f} samples/s = "
                f"{per_s * a['assessed']:,.0f} bits per CPU second")
        out["ratio"] = out["ours-user"]["bits_per_cpu_s"] / out["pristine-user"]["bits_per_cpu_s"]
        out["blocks_ratio"] = (out["ours-user"]["blocks_per_cpu_s"] /
                               out["pristine-user"]["blocks_per_cpu_s"])
        return out

    # -- the whole run -------------------------------------------------------

    def run(self):
        a = self.args
        t0 = time.time()
        started = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        os.makedirs(self.out, exist_ok=True)
        # The digests of the inputs (base/evidence.py), before anything
        # runs: make evidence keeps a full run made on this tree's.
        res = {"schema": 1, "started": started, "accel": a.accel,
               "mode": "partial" if a.no_workflow else "full",
               "inputs": evidence.digests(),
               "emulated": a.accel == "tcg",
               "host": {"nproc": os.cpu_count(), "cpu_model": proc.cpu_model(),
                        "machine": platform.machine(), "load_start": loadavg()},
               "packages": {p: proc.dpkg_version(p) for p in PACKAGES},
               "tools": tool_versions(),
               "cache": self.cache, "phases": {}}
        if not a.no_workflow:
            t = time.time()
            res["workflow"] = self.workflow()
            res["phases"]["workflow_s"] = round(time.time() - t, 1)
        t = time.time()
        kernels = self.builds()
        res["kernels"] = kernels
        res["phases"]["builds_s"] = round(time.time() - t, 1)
        t = time.time()
        res["guest"], res["cavs"], res["boots"] = self.guest(kernels)
        res["phases"]["guest_s"] = round(time.time() - t, 1)
        t = time.time()
        res["entropy_rate"] = self.entropy_rate()
        res["phases"]["entropy_s"] = round(time.time() - t, 1)
        res["targets"] = (res.get("workflow", {}).get("targets", []) +
                          st.guest_targets(res["guest"]) +
                          st.entropy_targets(res["entropy_rate"]))
        res["host"]["load_end"] = loadavg()
        res["duration_s"] = round(time.time() - t0, 1)
        files.write_json(os.path.join(self.out, "bench.json"), res)
        files.write_text(os.path.join(self.out, "bench.md"), markdown(res))
        say(f"done in {res['duration_s']:.0f} s: build/bench/bench.json, bench.md")
        for tg in res["targets"]:
            say(f"target {tg['id']}: {'met' if tg['met'] else 'NOT met'} "
                f"({tg['measured']} {tg['unit']}; {tg['target']})")
        return 0



def register(sub):
    ap = sub.add_parser("bench", help="side-by-side timings in one run (not in check)")
    ap.add_argument("--reps", type=int, default=int(os.environ.get("BENCH_REPS", 5)),
                    help="boots of each kernel in the guest phase (default 5)")
    ap.add_argument("--cavs-reps", type=int,
                    default=int(os.environ.get("BENCH_CAVS_REPS", 5)))
    ap.add_argument("--no-workflow", action="store_true",
                    default=os.environ.get("BENCH_NO_WORKFLOW") == "1",
                    help="skip the host workflow phase (keeps the cache)")
    ap.add_argument("--no-check", action="store_true",
                    default=os.environ.get("BENCH_NO_CHECK") == "1",
                    help="leave make check (cold and warm) out of the workflow phase")
    ap.add_argument("--cache", default=os.environ.get("BENCH_CACHE") or os.path.join(
        os.path.expanduser(os.environ.get("KCACHE") or "~/.cache/literate-drbg"), "bench"))
    ap.add_argument("--accel", default=os.environ.get("ACCEL") or "tcg",
                    choices=["tcg", "kvm"])
    ap.add_argument("--reads", type=int, default=32, help="32-byte reads per boot")
    ap.add_argument("--max", type=int, default=65536, help="largest Jitter request")
    ap.add_argument("--drbg", type=int, default=3, help="instantiations per DRBG per boot")
    ap.add_argument("--out", default=config.build("bench"))
    ap.set_defaults(func=lambda args: Bench(args).run())
