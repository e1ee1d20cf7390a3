#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""make conform, after the kernel is built: boot it, collect, report.

  conform.py [--accel tcg|kvm] [--only BOOT,...] [--out DIR]

Builds the guest's static /init, packs an initramfs per boot, boots the
test kernel under QEMU once per entry of the boot plan (BOOTS below),
turns the KUnit output of the console and the guest's results channel
into checks, and writes build/conformance/report.{json,md,xml}.  Exits 1
when any check fails.  Never loads anything into the host's kernel.
"""

import argparse
import contextlib
import datetime
import glob
import hashlib
import io
import json
import os
import platform
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(TOP, "tools"))
import initramfs  # noqa: E402
import kernel  # noqa: E402
import nwconf  # noqa: E402
import qemu  # noqa: E402
import report  # noqa: E402
import reqs  # noqa: E402

# The kernel command line every boot starts from.  panic=-1 makes a panic
# end QEMU at once (it runs with -no-reboot); oops=panic turns any oops
# into one, so that it cannot go unnoticed.  The random.* options keep the
# CRNG from being declared ready by the CPU or the boot loader, so that a
# boot starts with the CRNG not ready (see the blocking API chapter).
BASE_APPEND = ("console=ttyS0 panic=-1 oops=panic random.trust_cpu=off "
               "random.trust_bootloader=off")

# The boot plan.  Each boot: a name, the guest mode (conform.mode=), extra
# kernel parameters, a timeout in seconds, and what ends it ("end": the
# guest's own end marker; "panic": an expected panic).
BOOTS = [
    {"name": "main", "mode": "checks", "append": "", "timeout": 900,
     "expect": "end",
     "title": "KUnit suites at boot (CRNG not ready), then the guest checks"},
    # The Jitter RNG's failure classes, induced with its test hooks
    # (CONFIG_CRYPTO_JITTERENTROPY_TESTHOOKS; chapter "The CPU Jitter RNG in
    # the kernel").  KUnit is filtered out: its reads would consume a hook
    # armed at load, and its suites run in the main boot.
    {"name": "jitter-absent", "mode": "jitter-absent", "timeout": 300,
     "append": "jitterentropy_rng.testhook_startup_fail=1 kunit.filter_glob=none",
     "expect": "end", "kunit": False,
     "title": "Jitter RNG start-up test made to fail, no FIPS: the RNG is absent"},
    {"name": "jitter-startup-fips", "mode": "idle", "timeout": 300,
     "append": "fips=1 jitterentropy_rng.testhook_startup_fail=1 kunit.filter_glob=none",
     "expect": "panic", "panic_re": r"jitterentropy: start-up test failed with error 2",
     "title": "Jitter RNG start-up test made to fail with fips=1: panic"},
    {"name": "jitter-intermittent-fips", "mode": "jitter-hooked-read", "timeout": 300,
     "append": "fips=1 jitterentropy_rng.testhook_next_read=1 kunit.filter_glob=none",
     "expect": "end", "kunit": False,
     "title": "Jitter RNG intermittent failure with fips=1: -EAGAIN, no panic"},
    {"name": "jitter-permanent-fips", "mode": "jitter-hooked-read", "timeout": 300,
     "append": "fips=1 jitterentropy_rng.testhook_next_read=2 kunit.filter_glob=none",
     "expect": "panic", "panic_re": r"jitterentropy: permanent health test failure",
     "title": "Jitter RNG permanent failure with fips=1: panic"},
    # A self-test of the harness: a guest that never ends must be killed at
    # its timeout and reported as hung, with the tail of its console.
    {"name": "harness-hang", "mode": "hang", "append": "", "timeout": 20,
     "expect": "hung", "title": "harness self-test: a guest that hangs is killed"},
]

SPLAT = re.compile(
    r"(BUG: |WARNING: |KASAN: |UBSAN: |general protection fault|Oops: |"
    r"kernel BUG at|possible circular locking|possible recursive locking|"
    r"INFO: task .* blocked|inconsistent lock state|ODEBUG: |"
    r"kmemleak: [1-9]\d* new suspected|Unable to handle kernel)")

PACKAGES = ["linux-source-6.1", "linux-config-6.1", "qemu-system-x86", "noweb",
            "pandoc", "gcc-12", "git", "libkcapi-dev"]


def say(msg):
    print(f"conform: {msg}", flush=True)


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        h.update(f.read())
    return h.hexdigest()


def package_versions():
    out = {}
    for p in PACKAGES:
        r = subprocess.run(["dpkg-query", "-W", "-f=${Version}", p],
                           capture_output=True, text=True)
        out[p] = r.stdout.strip() if r.returncode == 0 and r.stdout.strip() else "not installed"
    return out


def build_guest(outdir):
    os.makedirs(outdir, exist_ok=True)
    init = os.path.join(outdir, "init")
    srcs = sorted(glob.glob(os.path.join(TOP, "conformance/guest/*.c")))
    cmd = ["gcc", "-static", "-O2", "-Wall", "-Wextra", "-Werror", "-o", init] + srcs
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        first = (r.stderr.strip().splitlines() or ["?"])[0]
        sys.exit(f"conform: the guest /init does not build: {first}")
    return init


def kunit_checks(console_path, boot, src):
    """Turn the KTAP output in the console log into checks, with kunit_parser."""
    sys.path.insert(0, os.path.join(src, "tools/testing/kunit"))
    import kunit_parser  # noqa: E402  (the kernel tree's own KTAP parser)
    import kunit_printer  # noqa: E402
    with open(console_path, errors="replace") as f:
        lines = f.readlines()
    kunit_printer.stdout._output = io.StringIO()   # quiet: we print a summary
    with contextlib.redirect_stdout(io.StringIO()):
        test = kunit_parser.parse_run_tests(kunit_parser.extract_tap_lines(lines))
    skip_reason = {}
    for ln in lines:
        m = re.search(r"\bok \d+ (?:- )?(\S+) # SKIP ?(.*)$", ln)
        if m:
            skip_reason[m.group(1)] = m.group(2).strip()
    status_map = {kunit_parser.TestStatus.SUCCESS: "pass",
                  kunit_parser.TestStatus.SKIPPED: "skip"}
    checks = []
    for suite in test.subtests:
        cases = suite.subtests or [suite]
        for case in cases:
            cid = f"kunit.{suite.name}.{case.name}" if case is not suite else \
                f"kunit.{suite.name}"
            st = status_map.get(case.status, "fail")
            diag = [ln.strip() for ln in case.log if ln.strip().startswith("#")]
            c = {"id": cid, "title": f"KUnit {suite.name}: {case.name}",
                 "origin": "kunit", "boot": boot, "status": st,
                 "details": {"log": diag[-40:]}}
            if st == "skip":
                c["reason"] = skip_reason.get(case.name) or "skipped by KUnit"
            elif st == "fail":
                fails = [d for d in diag if "Expected" in d or "ASSERT" in d or
                         "EXPECT" in d or "failed" in d.lower()]
                c["reason"] = ("; ".join(fails[:3]) or
                               f"KUnit status {case.status.name}")[:1000]
            checks.append(c)
    if not checks:
        checks.append({"id": f"kunit.{boot}", "title": "KUnit output", "origin": "kunit",
                       "boot": boot, "status": "fail",
                       "reason": "no KUnit results in the console log"})
    return checks


def guest_records(results_path):
    recs = []
    try:
        with open(results_path, errors="replace") as f:
            for no, ln in enumerate(f, 1):
                ln = ln.strip()
                if not ln:
                    continue
                try:
                    recs.append(json.loads(ln))
                except json.JSONDecodeError:
                    recs.append({"type": "garbled", "line": no, "text": ln[:200]})
    except OSError:
        pass
    return recs


def splat_check(console_path, boot):
    allow = []
    allow_file = os.path.join(TOP, "conformance/splat-allowlist.txt")
    if os.path.exists(allow_file):
        with open(allow_file) as f:
            for ln in f:
                if ln.strip() and not ln.startswith("#"):
                    rx, _, why = ln.rstrip("\n").partition("\t")
                    allow.append((re.compile(rx), why))
    hits, allowed = [], []
    with open(console_path, errors="replace") as f:
        for ln in f:
            if SPLAT.search(ln):
                why = next((w for rx, w in allow if rx.search(ln)), None)
                (allowed if why else hits).append(ln.strip()[:300])
    c = {"id": f"boot.{boot}.kernel-log", "origin": "harness", "boot": boot,
         "title": "no BUG, WARN, KASAN, UBSAN, lockdep or kmemleak report",
         "status": "fail" if hits else "pass",
         "counts": {"reports": len(hits), "allowlisted": len(allowed)},
         "details": {"reports": hits[:20], "allowlisted": allowed[:20]}}
    if hits:
        c["reason"] = f"{len(hits)} report(s) in the kernel log, first: {hits[0]}"
    return c


def run_boot(spec, args, bzimage, init, src, outdir):
    name = spec["name"]
    bdir = os.path.join(outdir, "boots", name)
    os.makedirs(bdir, exist_ok=True)
    rd = initramfs.write(os.path.join(bdir, "initramfs.cpio"), init,
                         spec.get("files"))
    append = f"{BASE_APPEND} conform.mode={spec['mode']} {spec['append']}".strip()
    say(f"boot {name}: {spec['title']} (timeout {spec['timeout']} s, {args.accel})")
    b = qemu.boot(name, bzimage, rd, append, bdir, spec["timeout"],
                  accel=args.accel, expect=spec["expect"])
    say(f"boot {name}: {b.outcome} after {b.seconds} s"
        + (f": {b.detail}" if b.detail else ""))
    recs = guest_records(b.results)
    env = next((r for r in recs if r.get("type") == "env"), {})
    crng_end = next((r.get("ready") for r in recs if r.get("type") == "crng"), None)
    info = {"name": name, "title": spec["title"], "outcome": b.outcome,
            "expect": spec["expect"], "seconds": b.seconds, "accel": args.accel,
            "cpu": b.argv[b.argv.index("-cpu") + 1] if "-cpu" in b.argv else "?",
            "smp": 2, "qemu": b.command_line(), "append": append,
            "rdrand": env.get("rdrand"), "rdseed": env.get("rdseed"),
            "virtio_rng": False, "crng_ready_at_init": env.get("crng_ready_at_init"),
            "crng_ready_at_end": crng_end, "release": env.get("release"),
            "console_log": os.path.relpath(b.console, TOP),
            "results_log": os.path.relpath(b.results, TOP)}
    ok = b.outcome == spec["expect"]
    checks = [{"id": f"boot.{name}", "origin": "harness", "boot": name,
               "title": f"boot {name} ends as expected ({spec['expect']})",
               "status": "pass" if ok else "fail",
               "counts": {"seconds": b.seconds},
               **({} if ok else {"reason": b.detail or f"outcome {b.outcome}",
                                 "details": {"console_tail": b.console_tail(30)}})}]
    if spec["expect"] == "hung":
        checks[0]["title"] = "a hung guest is killed at its timeout and reported"
        checks[0]["details"] = {"detail": b.detail}
        return info, checks
    if spec.get("panic_re"):
        hit = b.outcome == "panic" and re.search(spec["panic_re"], b.detail or "")
        checks.append({"id": f"boot.{name}.panic-reason", "origin": "harness",
                       "boot": name, "title": f"boot {name} panics for the expected reason",
                       "status": "pass" if hit else "fail",
                       **({} if hit else {"reason": f"panic line {b.detail!r} does not match "
                                          f"{spec['panic_re']!r}"})})
    if os.path.exists(b.console):
        checks.append(splat_check(b.console, name))
        if spec["expect"] == "end" and spec.get("kunit", True):
            checks += kunit_checks(b.console, name, src)
    for r in recs:
        if r.get("type") == "check":
            c = {k: v for k, v in r.items() if k not in ("type",)}
            c.setdefault("title", c["id"])
            c["origin"], c["boot"] = "guest", name
            counts = {k: v for k, v in c.items()
                      if isinstance(v, (int, float)) and not isinstance(v, bool)}
            c = {k: v for k, v in c.items() if k not in counts}
            c["counts"] = counts
            checks.append(c)
        elif r.get("type") == "garbled":
            checks.append({"id": f"boot.{name}.results-line-{r['line']}",
                           "origin": "harness", "boot": name, "status": "fail",
                           "reason": f"unreadable results line: {r['text']}"})
    return info, checks


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--accel", default=os.environ.get("ACCEL", "tcg"),
                    choices=["tcg", "kvm"])
    ap.add_argument("--only", default=os.environ.get("BOOTS", ""))
    ap.add_argument("--out", default=os.path.join(TOP, "build/conformance"))
    args = ap.parse_args()

    t0 = time.time()
    started = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    conf = nwconf.load(os.path.join(TOP, "tangle.conf"))
    version, src = kernel.ensure_pristine(conf=conf)
    build = os.path.join(kernel.tree_dir(version), "build-test")
    bzimage = os.path.join(build, "arch/x86/boot/bzImage")
    if not os.path.exists(os.path.join(build, "build.ok")) or not os.path.exists(bzimage):
        sys.exit(f"conform: no finished test kernel in {build}: run 'make kernel'")
    os.makedirs(args.out, exist_ok=True)
    init = build_guest(os.path.join(TOP, "build/guest"))

    requirement_map = reqs.by_test(reqs.read(conf.sources))
    boots, checks = [], []
    plan = [b for b in BOOTS if not args.only or b["name"] in args.only.split(",")]
    for spec in plan:
        info, cs = run_boot(spec, args, bzimage, init, src, args.out)
        boots.append(info)
        checks += cs
    for c in checks:
        c["requirements"] = requirement_map.get(c["id"], [])
    problems = report.validate(checks)
    for p in problems:
        checks.append({"id": f"harness.report.{len(checks)}", "origin": "harness",
                       "status": "fail", "reason": f"malformed check record: {p}",
                       "requirements": []})

    with open(os.path.join(build, "include/config/kernel.release")) as f:
        release = f.read().strip()
    tangled = {os.path.relpath(p, TOP): sha256(p)
               for p in sorted(glob.glob(os.path.join(TOP, "tangled/**"), recursive=True))
               if os.path.isfile(p)}
    with open(os.path.join(build, "build.ok")) as f:
        built = json.load(f)
    rep = {
        "schema": 1,
        "started": started,
        "duration_s": None,
        "host": {"nproc": os.cpu_count(), "machine": platform.machine(),
                 "cpu_model": cpu_model(), "python": platform.python_version()},
        "packages": package_versions(),
        "kernel": {"release": release, "base": f"linux-source-6.1 {version}",
                   "pinned_base": conf.base_version,
                   "series_head": built.get("head"),
                   "config_sha256": sha256(os.path.join(build, ".config")),
                   "build_dir": build},
        "tangled": tangled,
        "boots": boots,
        "checks": checks,
    }
    rep["duration_s"] = round(time.time() - t0, 1)
    report.write_all(rep, args.out)
    s = rep["summary"]
    for c in checks:
        if c["status"] == "fail":
            say(f"FAIL {c['id']}: {c.get('reason', '')[:300]}")
    say(f"{s['passed']} passed, {s['failed']} failed, {s['skipped']} skipped "
        f"({len(boots)} boot(s), {rep['duration_s']} s); report: "
        f"{os.path.relpath(args.out, TOP)}/report.{{json,md,xml}}")
    return 1 if s["failed"] else 0


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for ln in f:
                if ln.startswith("model name"):
                    return ln.split(":", 1)[1].strip()
    except OSError:
        pass
    return "?"


if __name__ == "__main__":
    sys.exit(main())
