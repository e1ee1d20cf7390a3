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
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(TOP, "tools"))
import cavs_pack  # noqa: E402
import figures_data  # noqa: E402
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
    # "solo": the main boot records the Jitter RNG's time stamps for the
    # book's figures and the isolation latencies: no other guest beside it.
    {"name": "main", "mode": "checks", "timeout": 900, "expect": "end", "solo": True,
     "append": "kunit.filter_glob=random_blocking*",
     "title": "blocking API KUnit suites (CRNG not ready at first), guest checks"},
    {"name": "drbg", "mode": "drbg", "timeout": 900, "expect": "end",
     "append": "kunit.filter_glob=drbg*",
     "title": "DRBG seeding KUnit suites (CRNG not ready at first), guest checks"},
    # FIPS mode (fips=1): the DRBG suites again, where the Jitter RNG's
    # absence or failure at instantiation must be fatal.  Ids: "fips.".
    {"name": "fips-drbg", "prefix": "fips", "mode": "drbg", "timeout": 900,
     "expect": "end", "append": "fips=1 kunit.filter_glob=drbg_seed",
     "title": "FIPS mode: DRBG seeding suite with fips=1"},
    # A self-test of the harness: a guest that never ends must be killed at
    # its timeout and reported as hung, with the tail of its console.  Its
    # guest idles once /init sleeps, so it runs in the background beside
    # the boots that follow (it does not share their timing checks: the
    # bench's boots, which time things, never run beside another guest).
    {"name": "harness-hang", "mode": "hang", "append": "kunit.enable=0", "timeout": 12,
     "expect": "hung", "background": True,
     "title": "harness self-test: a guest that hangs is killed"},
    # CAVS known answers (issue 6): the host packs every record of the .rsp
    # files under $VECTORS (colon-separated dirs; default vectors/cavs and
    # vectors/extra) into data/cavs.pack; cavs_pack.checks() reads the
    # results.  KUnit is off in this boot: the main boot runs the suites.
    {"name": "cavs", "mode": "cavs", "append": "kunit.enable=0", "timeout": 600,
     "expect": "end", "kunit": False, "cavs": True,
     "title": "CAVS known answers through the DRBG test interface"},
    # The Jitter RNG's KUnit suite, in a boot of its own: its test hooks
    # stop the clock the core reads, which must not meet other suites.
    {"name": "jitter", "mode": "idle", "timeout": 900, "expect": "end",
     "append": "kunit.filter_glob=jitterentropy*",
     "title": "Jitter RNG KUnit suite"},
    # The Jitter RNG's failure classes, induced with its test hooks
    # (CONFIG_CRYPTO_JITTERENTROPY_TESTHOOKS; chapter "The CPU Jitter RNG in
    # the kernel").  KUnit is filtered out: its reads would consume a hook
    # armed at load, and its suites run in the main boot.
    {"name": "jitter-absent", "mode": "jitter-absent", "timeout": 300,
     "append": "jitterentropy_rng.testhook_startup_fail=1 kunit.filter_glob=none",
     "expect": "end", "kunit": False, "prefix": "nojent", "jent": False,
     "console_re": [r"DRBG: Continuing without Jitter RNG"],
     "title": "Jitter RNG start-up test made to fail, no FIPS: the RNG is absent, "
              "the DRBG seeds from get_random_bytes() alone and says so"},
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
    # For make teeth only (tools/teeth.py): the seeding suite and the trace
    # check on a deliberately broken build.
    {"name": "teeth", "optional": True, "mode": "drbg", "timeout": 900,
     "expect": "end", "append": "kunit.filter_glob=drbg_seed",
     "title": "teeth: seeding suite and trace check on a mutant"},
    # The debug kernel (KASAN, UBSAN, lockdep, work-object debugging,
    # kmemleak): the same suites and checks; any report fails the boot.
    # Its check ids carry the prefix "debug.".
    {"name": "debug-main", "variant": "debug", "mode": "checks", "timeout": 1800,
     "expect": "end", "append": "kunit.filter_glob=random_blocking* conform.kmemleak=1",
     "title": "debug kernel: blocking API suites and guest checks, kmemleak scan"},
    {"name": "debug-drbg", "variant": "debug", "mode": "drbg", "timeout": 3600,
     "expect": "end", "append": "kunit.filter_glob=drbg* conform.kmemleak=1",
     "title": "debug kernel: DRBG seeding suites and the race, kmemleak scan"},
    # The modules variant (make modules-check only): the Jitter RNG, the DRBG
    # and the Jitter RNG's KUnit suite as modules, loaded by /init.
    {"name": "modules", "variant": "modules", "mode": "modules", "timeout": 900,
     "expect": "end", "modules": True,
     "append": "kunit.filter_glob=jitterentropy*",
     "title": "modules kernel: the Jitter RNG and the DRBG loaded as modules"},
    {"name": "debug-jitter", "variant": "debug", "mode": "idle", "timeout": 1800,
     "expect": "end", "append": "kunit.filter_glob=jitterentropy* conform.kmemleak=1",
     "title": "debug kernel: Jitter RNG KUnit suite, kmemleak scan"},
    {"name": "debug-cavs", "variant": "debug", "mode": "cavs", "timeout": 1800,
     "expect": "end", "kunit": False, "cavs": True,
     "append": "kunit.enable=0 conform.kmemleak=1",
     "title": "debug kernel: CAVS known answers, kmemleak scan"},
]

# What /init prints in boot mode "hang" before it sleeps (checks.c).
HANG_MARK = "init: mode hang: sleeping forever"
SPLAT = re.compile(
    r"(BUG: |WARNING: |KASAN: |UBSAN: |general protection fault|Oops: |"
    r"kernel BUG at|possible circular locking|possible recursive locking|"
    r"INFO: task .* blocked|inconsistent lock state|ODEBUG: |"
    r"Unable to handle kernel)")
# kmemleak's own "N new suspected memory leaks" line is not matched here: the
# guest's explicit scan sends every report, and kmemleak_check() judges them
# against conformance/kmemleak-allowlist.txt.

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
    srcs += sorted(glob.glob(os.path.join(TOP, "conformance/guest/*.h")))
    cmd = ["gcc", "-static", "-O2", "-Wall", "-Wextra", "-Werror", "-o", init] + \
        [c for c in srcs if c.endswith(".c")]
    # The same sources, flags and compiler make the same /init: a stamp of
    # their hashes beside it lets a warm run skip the static link.
    digest = hashlib.sha256("\0".join([kernel.hash_files(srcs, TOP), kernel.gcc_version(),
                                         " ".join(cmd)]).encode()).hexdigest()
    stamp = init + ".sha256"
    if os.path.exists(init) and os.path.exists(stamp) and \
            open(stamp).read().strip() == digest:
        return init
    if os.path.exists(stamp):
        os.unlink(stamp)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        first = (r.stderr.strip().splitlines() or ["?"])[0]
        sys.exit(f"conform: the guest /init does not build: {first}")
    with open(stamp, "w") as f:
        f.write(digest + "\n")
    return init


def kunit_checks(console_path, boot, src):
    """Turn the KTAP output in the console log into checks, with kunit_parser."""
    sys.path.insert(0, os.path.join(src, "tools/testing/kunit"))
    import kunit_parser  # noqa: E402  (the kernel tree's own KTAP parser)
    import kunit_printer  # noqa: E402
    with open(console_path, errors="replace") as f:
        lines = f.readlines()
    kunit_printer.stdout._output = io.StringIO()   # quiet: we print a summary
    # The boot-time executor prints an empty plan when no built-in suite
    # matches kunit.filter_glob; drop it, so that suites of modules loaded
    # later are parsed.
    for i in range(len(lines) - 1):
        if re.match(r"K?TAP version \d", lines[i]) and re.match(r"1\.\.0\s*$", lines[i + 1]):
            lines[i:i + 2] = ["", ""]
    if not any(re.match(r"K?TAP version \d", ln) for ln in lines):
        # Suites run when their module is loaded print no top-level KTAP
        # header; give the parser one, counting the top-level results.
        n = sum(1 for ln in lines if re.match(r"(not )?ok \d+ \S", ln))
        first = next((i for i, ln in enumerate(lines)
                      if re.match(r"\s+(K?TAP version|# Subtest:)", ln)), None)
        if first is not None:
            lines[first:first] = ["KTAP version 1\n", f"1..{n}\n"]
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

    def add(cid, title, t, log):
        st = status_map.get(t.status, "fail")
        diag = [ln.strip() for ln in log if ln.strip().startswith("#")]
        c = {"id": cid, "title": title, "origin": "kunit", "boot": boot,
             "status": st, "details": {"log": diag[-40:]}}
        if st == "skip":
            c["reason"] = skip_reason.get(t.name) or "skipped by KUnit"
        elif st == "fail":
            fails = [d for d in diag if "Expected" in d or "ASSERT" in d or
                     "EXPECT" in d or "failed" in d.lower()]
            c["reason"] = ("; ".join(fails[:3]) or
                           f"KUnit status {t.status.name}")[:1000]
        checks.append(c)

    for suite in test.subtests:
        for case in suite.subtests or [suite]:
            base = f"kunit.{suite.name}.{case.name}" if case is not suite \
                else f"kunit.{suite.name}"
            if case.subtests:
                # A parameterised case: one check per parameter.
                for param in case.subtests:
                    add(f"{base}.{param.name}",
                        f"KUnit {suite.name}: {case.name} [{param.name}]",
                        param, case.log + param.log)
            else:
                add(base, f"KUnit {suite.name}: {case.name}", case, case.log)
    if not checks:
        checks.append({"id": f"kunit.{boot}", "title": "KUnit output", "origin": "kunit",
                       "boot": boot, "status": "fail",
                       "reason": "no KUnit results in the console log"})
    return checks


# Security strength in bytes per DRBG core (SP 800-90A tables 2 and 3),
# and the (get_random_bytes, Jitter RNG) parts of each seed path in units
# of the strength: the book's table of seed paths, restated here so that
# the host checks the kernel's figures against its own expectation.
STRENGTH = {"ctr_aes128": 16, "ctr_aes192": 24, "ctr_aes256": 32, "sha1": 16,
            "sha256": 32, "sha384": 32, "sha512": 32, "hmac_sha1": 16,
            "hmac_sha256": 32, "hmac_sha384": 32, "hmac_sha512": 32}
SEED_PATHS = {
    "instantiate": (1.5, 1.5), "instantiate-unseeded": (1.5, 1.5),
    "reseed-explicit": (1, 1), "reseed-pr": (1, 1), "reseed-threshold": (1, 1),
    "reseed-300s": (1, 0), "reseed-async": (1, 0),
    "instantiate-nojent": (1.5, 0), "reseed-nojent": (1, 0),
    "instantiate-jentfail": (1.5, 0), "reseed-jentfail": (1, 0),
}
SEEDLEN = re.compile(r"seedlen (drbg_(no)?pr_(\S+)) (\S+) total=(\d+) grb=(\d+) "
                     r"jent=(\d+) extra=(\d+) layout=(\w+)")


def seed_lengths(console_paths):
    """The seed lengths the KUnit suites measured, next to the expected ones,
    and a check that every instance has every path it should, as expected."""
    table = {}
    for path in console_paths:
        with open(path, errors="replace") as f:
            for ln in f:
                m = SEEDLEN.search(ln)
                if not m:
                    continue
                driver, nopr, core, sp = m.group(1), m.group(2), m.group(3), m.group(4)
                total, grb, jent, extra = (int(m.group(i)) for i in range(5, 9))
                s = STRENGTH.get(core)
                exp = SEED_PATHS.get(sp)
                want = (int(exp[0] * s), int(exp[1] * s)) if s and exp else None
                table.setdefault(driver, {})[sp] = {
                    "measured": {"total": total, "grb": grb, "jent": jent,
                                 "extra": extra, "layout": m.group(9)},
                    "expected": {"grb": want[0], "jent": want[1]} if want else None,
                    "match": bool(want) and (grb, jent) == want and
                    total == grb + jent + extra and m.group(9) == "ok"}
    problems = []
    for pr in ("pr", "nopr"):
        for core in STRENGTH:
            d = f"drbg_{pr}_{core}"
            need = ["instantiate", "reseed-explicit", "reseed-threshold",
                    "instantiate-nojent", "reseed-nojent", "instantiate-jentfail",
                    "reseed-jentfail", "reseed-pr" if pr == "pr" else "reseed-300s"]
            if pr == "nopr":
                need.append("reseed-async")
            for sp in need:
                e = table.get(d, {}).get(sp)
                if e is None:
                    problems.append(f"{d} {sp}: not measured")
                elif not e["match"]:
                    problems.append(f"{d} {sp}: measured {e['measured']}, "
                                    f"expected {e['expected']}")
    check = {"id": "drbg.seed-lengths", "origin": "harness",
             "title": "seed lengths of every path of all 22 instances, measured "
                      "by KUnit, against the host's own table",
             "status": "pass" if not problems else "fail",
             "counts": {"instances": len(table),
                        "measurements": sum(len(v) for v in table.values()),
                        "mismatches": len(problems)},
             "details": {"problems": problems[:40]}}
    if problems:
        check["reason"] = f"{len(problems)} problem(s), first: {problems[0]}"
    return table, check


def trace_layout_problems(rec, jent=True):
    """Check one trace record of drbg_trace.c against the book's layout;
    jent=False: the Jitter RNG is absent, so each seed is the
    get_random_bytes() part and the string alone."""
    m = re.match(r"drbg_(no)?pr_(\S+)$", rec["driver"])
    s = STRENGTH.get(m.group(2)) if m else None
    if not s:
        return [f"unknown driver {rec['driver']}"]
    pr = m.group(1) is None
    p = s + s // 2
    pers, addtl = bytes.fromhex(rec["pers"]), bytes.fromhex(rec["addtl"])
    seeds = [bytes.fromhex(x["hex"]) for x in rec["seeds"]]
    want = [(False, p, pers), (True, s, addtl)] + ([(True, s, b"")] if pr else [])
    problems = []
    if rec["err"]:
        return [f"kernel error {rec['err']} at step {rec['step']}"]
    if len(seeds) != len(want):
        return [f"{len(seeds)} seedings, expected {len(want)}"]
    nsrc = 2 if jent else 1
    for i, ((reseed, part, extra), x, seed) in enumerate(zip(want, rec["seeds"], seeds)):
        if bool(x["reseed"]) != reseed or x["len"] != nsrc * part + len(extra) \
                or len(seed) != x["len"]:
            problems.append(f"seeding {i}: reseed={x['reseed']} len={x['len']}, "
                            f"expected reseed={int(reseed)} "
                            f"len={nsrc * part + len(extra)}")
            continue
        grb, tail = seed[:part], seed[nsrc * part:]
        if tail != extra:
            problems.append(f"seeding {i}: does not end with the string given")
        if grb == b"\x5a" * part or grb == bytes(part):
            problems.append(f"seeding {i}: the get_random_bytes part is the "
                            "pattern or all zero")
        if not jent:
            continue
        jpart = seed[part:2 * part]
        if rec["pattern"] and jpart != b"\x5a" * part:
            problems.append(f"seeding {i}: bytes {part}..{2 * part} are not the "
                            "Jitter pattern")
        if not rec["pattern"] and jpart == b"\x5a" * part:
            problems.append(f"seeding {i}: real Jitter bytes equal the pattern")
    return problems


def replay_trace(driver, rec):
    """Recompute a trace's output with the host model from its seedings.

    Every seeding's material is the concatenation the update function
    received (entropy input, then the string), and the three mechanisms use
    only that concatenation, so each seeding is replayed as an
    instantiate or reseed whose entropy input is the whole material."""
    import drbg_model
    core, pr = drbg_model.parse_driver(driver)
    mech = drbg_model.CORES[core]()
    seeds = [bytes.fromhex(x["hex"]) for x in rec["seeds"]]
    if any(x["len"] != len(b) for x, b in zip(rec["seeds"], seeds)):
        return None    # a seeding longer than the hook stores
    mech.instantiate(seeds[0], b"", b"")
    for seed in seeds[1:]:
        mech.reseed(seed, b"")
    return mech.generate(len(rec["out"]) // 2, None)


def drbg_trace_checks(recs, jent=True):
    """One check per instance from the guest's trace records: layout, and
    the output recomputed by the host's SP 800-90A model from the seeds."""
    by = {}
    for r in recs:
        if r.get("type") == "trace":
            by.setdefault(r["driver"], []).append(r)
    checks = []
    for drv in sorted(by):
        problems, recomputed = [], 0
        for rec in by[drv]:
            tag = "pattern" if rec["pattern"] else "real"
            problems += [f"{tag}: {x}" for x in trace_layout_problems(rec, jent)]
            if not rec["err"]:
                out = replay_trace(drv, rec)
                recomputed += out is not None
                if out is None:
                    problems.append(f"{tag}: a seeding is longer than the trace stores")
                elif out != bytes.fromhex(rec["out"]):
                    problems.append(f"{tag}: the host model computes "
                                    f"{out.hex()[:32]}... from these seeds, the "
                                    f"kernel gave {rec['out'][:32]}...")
        c = {"id": f"drbg.trace.{drv}", "origin": "host",
             "title": f"{drv}: seed material of real seedings (layout, and the "
                      "output recomputed from it)",
             "status": "fail" if problems else "pass",
             "counts": {"traces": len(by[drv]), "recomputed": recomputed},
             "details": {"problems": problems[:10]}}
        if problems:
            c["reason"] = "; ".join(problems[:3])
        checks.append(c)
    return checks


def kmemleak_check(recs, boot):
    """The guest's kmemleak reports against conformance/kmemleak-allowlist.txt
    (regex TAB reason; a report is allowed when a regex matches its text)."""
    done = [r for r in recs if r.get("type") == "kmemleak-done"]
    err = [r for r in recs if r.get("type") == "kmemleak" and r.get("error")]
    texts = [r["text"] for r in recs if r.get("type") == "kmemleak" and "text" in r]
    allow = read_allowlist("conformance/kmemleak-allowlist.txt")
    bad, allowed = [], []
    for t in texts:
        why = next((w for rx, w in allow if rx.search(t)), None)
        (allowed if why else bad).append({"report": t[:1500], "allowed_because": why})
    c = {"id": f"guest.kmemleak.{boot}", "origin": "guest", "boot": boot,
         "title": "no kmemleak report after an explicit scan (allowlist applied)",
         "counts": {"reports": len(texts), "allowlisted": len(allowed),
                    "unexplained": len(bad)},
         "details": {"unexplained": bad[:10], "allowlisted": allowed[:10]}}
    if err or not done:
        c["status"], c["reason"] = "fail", (err[0]["error"] if err else
                                            "the guest did not finish its kmemleak scan")
    elif bad:
        first = bad[0]["report"].splitlines()
        c["status"] = "fail"
        c["reason"] = f"{len(bad)} unexplained kmemleak report(s): " + " | ".join(first[:6])
    else:
        c["status"] = "pass"
    return c


# The faults of the hardening issue, and the checks that inject each one.
FAULTS = [
    ("Jitter RNG start-up test fails, no FIPS: the DRBG seeds from "
     "get_random_bytes() alone and says so",
     ["nojent.guest.jitter.absent", "boot.jitter-absent.console", "nojent.drbg.trace"]),
    ("Jitter RNG start-up test fails with fips=1: panic with the RNG's message",
     ["boot.jitter-startup-fips.panic-reason"]),
    ("Jitter RNG fails transiently (intermittent health failure) during seeding",
     ["kunit.drbg_seed.jent_runtime_failure_layout",
      "fips.kunit.drbg_seed.jent_runtime_failure_layout",
      "guest.jitter.hooked_read"]),
    ("Jitter RNG fails permanently: -EFAULT outside FIPS, panic with fips=1",
     ["kunit.drbg_seed.jent_runtime_failure_layout",
      "boot.jitter-permanent-fips.panic-reason", "kunit.jitterentropy"]),
    ("Jitter RNG absent at instantiation (test hook), with and without FIPS",
     ["kunit.drbg_seed.jent_absent_layout", "fips.kunit.drbg_seed.jent_absent_layout"]),
    ("Allocation failure at every slab allocation of a DRBG instantiation "
     "(seed_buf, async_buf, the Jitter RNG's collector, ...)",
     ["debug.guest.faults.alloc-every-point"]),
    ("The DRBG update fails: seed_buf is still cleared",
     ["kunit.drbg_seed.seed_buf_zero_on_error"]),
    ("Blocking API request cancelled before queueing, while blocked, after "
     "completion and during teardown",
     ["kunit.random_blocking_unseeded.seed_module_scenario",
      "kunit.random_blocking.async_cancel_before_start",
      "kunit.random_blocking.async_cancel_sync_dequeues",
      "kunit.random_blocking.async_cancel_after_completion",
      "kunit.drbg_seed.async_cancelled_on_uninstantiate"]),
]


def hardening_summary(checks):
    """The faults injected, the hostile calls made and the reports seen."""
    by = {c["id"]: c for c in checks}

    def matching(cid):
        return [c for k, c in by.items() if k == cid or k.startswith(cid + ".")]

    faults = []
    for what, ids in FAULTS:
        found = [c for cid in ids for c in matching(cid)]
        st = ("not run" if not found else "fail" if any(c["status"] == "fail" for c in found)
              else "pass" if all(c["status"] == "pass" for c in found) else "partly skipped")
        faults.append({"fault": what, "checks": ids, "instances": len(found), "status": st})

    def total(prefix_match, key):
        return sum(c.get("counts", {}).get(key, 0) for c in checks if prefix_match(c["id"]))

    return {
        "faults": faults,
        "fault_injection_points": total(lambda i: "faults.alloc-every-point" in i, "points"),
        "hostile_calls": total(lambda i: ".hostile." in "." + i, "calls")
        + total(lambda i: "hostile.fuzz-run" in i, "iterations"),
        "kernel_log_reports": total(lambda i: i.startswith("boot.") and
                                    i.endswith(".kernel-log"), "reports"),
        "kmemleak_unexplained": total(lambda i: "kmemleak" in i, "unexplained"),
        "kmemleak_allowlisted": total(lambda i: "kmemleak" in i, "allowlisted"),
    }


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


def read_allowlist(relpath):
    """[(regex, reason)] from a file of lines 'regex TAB reason' ('#' comments)."""
    allow = []
    path = os.path.join(TOP, relpath)
    if os.path.exists(path):
        with open(path) as f:
            for ln in f:
                if ln.strip() and not ln.startswith("#"):
                    rx, _, why = ln.rstrip("\n").partition("\t")
                    allow.append((re.compile(rx), why))
    return allow


def splat_check(console_path, boot):
    allow = read_allowlist("conformance/splat-allowlist.txt")
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


def module_files(bzimage, bdir):
    """The .ko files of a modules build, and /lib/modules/order (the Jitter
    RNG first, so that the DRBG finds it when its self-tests instantiate)."""
    build = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(bzimage))))
    with open(os.path.join(build, "modules.order")) as f:
        order = [re.sub(r"\.o$", ".ko", ln.strip()) for ln in f if ln.strip()]
    by_name = {os.path.basename(m)[:-3].replace("-", "_"): m for m in order}

    def depends(m):
        with open(os.path.join(build, m), "rb") as f:
            hit = re.search(rb"depends=([^\0]*)\0", f.read())
        return [d for d in (hit.group(1).decode().split(",") if hit else []) if d]

    # The modules under test and what they depend on; nothing else (other
    # modules of the build drive hardware the guest does not have).
    # (hmac and ctr are requested by name at run time, not linked to.)
    wanted, todo = [], ["jitterentropy_rng", "hmac", "ctr", "drbg", "jitterentropy_kunit"]
    while todo:
        name = todo.pop(0).replace("-", "_")
        if name in by_name and by_name[name] not in wanted:
            wanted.append(by_name[name])
            todo += depends(by_name[name])
    order = [m for m in order if m in wanted]
    order.sort(key=lambda m: (0 if "jitterentropy_rng" in m else
                              2 if "kunit" in m else 1))
    files = {f"lib/modules/{os.path.basename(m)}": os.path.join(build, m) for m in order}
    listing = os.path.join(bdir, "modules-order.txt")
    with open(listing, "w") as f:
        f.write("".join(os.path.basename(m) + "\n" for m in order))
    files["lib/modules/order"] = listing
    return files


def run_boot(spec, args, bzimage, init, src, outdir):
    name = spec["name"]
    bdir = os.path.join(outdir, "boots", name)
    os.makedirs(bdir, exist_ok=True)
    if spec.get("modules"):
        spec = dict(spec, files={**spec.get("files", {}),
                                 **module_files(bzimage, bdir)})
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
            "virtio_rng": "virtio-rng" in " ".join(b.argv), "crng_ready_at_init": env.get("crng_ready_at_init"),
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
        # The hang must be the one /init was asked for, not a boot that
        # never got that far: the guest said so before it was killed.
        reached = os.path.exists(b.console) and HANG_MARK in open(
            b.console, errors="replace").read()
        checks.append({"id": f"boot.{name}.reached-init", "origin": "harness",
                       "boot": name, "title": "the hung guest reached /init's hang "
                       "mode before the timeout",
                       "status": "pass" if reached else "fail",
                       **({} if reached else {"reason": f"console has no {HANG_MARK!r}: "
                                              "the boot did not reach /init in time"})})
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
    checks += drbg_trace_checks(recs, spec.get("jent", True))
    for rx in spec.get("console_re", []):
        with open(b.console, errors="replace") as f:
            hit = re.search(rx, f.read())
        checks.append({"id": f"boot.{name}.console", "origin": "harness", "boot": name,
                       "title": f"the kernel log of boot {name} says: {rx}",
                       "status": "pass" if hit else "fail",
                       **({} if hit else {"reason": f"no line matching {rx!r} in the "
                                          "kernel log"})})
    if "conform.kmemleak=1" in append:
        checks.append(kmemleak_check(recs, name))
    if spec.get("checks"):
        for c in spec["checks"](recs):
            c.setdefault("boot", name)
            checks.append(c)
    return info, checks


def prepare_cavs(spec, outdir):
    """Pack the CAVS records for a boot with "cavs": True (see cavs_pack)."""
    dirs = cavs_pack.vector_dirs_from_env()
    say(f"cavs: packing the records under {':'.join(cavs_pack.display(d) for d in dirs)}")
    pack, meta = cavs_pack.prepare(dirs, os.path.join(outdir, "cavs"))
    n = sum(s["records"] for s in meta["sections"] if not s["selftest"])
    say(f"cavs: {n} applicable records, host model {meta['model_seconds']} s, "
        f"pack {meta['pack_bytes']} bytes")
    spec = dict(spec, files={**spec.get("files", {}), "data/cavs.pack": pack},
                checks=lambda recs: cavs_boot_checks(recs, meta))
    return spec


def cavs_boot_checks(recs, meta):
    """cavs_pack's checks, plus one summary per vector directory (the NIST
    set is the issue's acceptance figure), and no skipping for a missing
    interface: the test kernel is built with it, so its absence is a fault."""
    checks = cavs_pack.checks(recs, meta)
    for c in checks:
        if c["id"] == "cavs.interface" and c["status"] == "skip":
            c["status"] = "fail"
            c["reason"] = ("the test kernel has no CAVS interface: "
                           + c.get("reason", ""))
    total = next((c for c in checks if c["id"] == "cavs.total"), None)
    for d, n in ((total or {}).get("details", {}).get("by_vector_dir") or {}).items():
        slug = re.sub(r"[^a-z0-9]+", "-", d.lower()).strip("-")
        ok = n["failed"] == 0 and n["passed"] == n["applicable"] and n["applicable"] > 0
        c = {"id": f"cavs.dir.{slug}", "origin": "guest",
             "title": f"every applicable record under {d} passes in the guest",
             "status": "pass" if ok else "fail",
             "counts": {k: n[k] for k in ("applicable", "passed", "failed")}}
        if not ok:
            c["reason"] = (f"{n['passed']} of {n['applicable']} passed, "
                           f"{n['failed']} failed")
        checks.append(c)
    return checks


def run_plan(plan, jobs, one, prepare):
    """Call one(i, spec) for every boot of plan (spec = prepare(plan[i])).

    Boots run side by side, at most jobs at a time (a guest keeps about
    one host CPU busy on average), started in the plan's order.  A "solo"
    boot runs alone, because its timings are data (the main boot's Jitter
    RNG samples feed the book's figures); a "background" one idles and
    takes no slot.  one() stores its own result, so the plan's order is
    kept whatever ends first.  Returns when every boot has ended."""
    running, background = [], []
    for i, spec in enumerate(plan):
        spec = prepare(spec)
        if spec.get("background"):
            t = threading.Thread(target=one, args=(i, spec), daemon=True)
            t.start()
            background.append(t)
            continue
        solo = spec.get("solo") or jobs <= 1
        while running and (solo or len(running) >= jobs):
            running[0].join(0.05)
            running = [t for t in running if t.is_alive()]
        if solo:
            one(i, spec)
            continue
        t = threading.Thread(target=one, args=(i, spec), daemon=True)
        t.start()
        running.append(t)
    for t in running + background:
        t.join()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--accel", default=os.environ.get("ACCEL", "tcg"),
                    choices=["tcg", "kvm"])
    ap.add_argument("--only", default=os.environ.get("BOOTS", ""))
    ap.add_argument("--out", default=os.path.join(TOP, "build/conformance"))
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("CONFORM_JOBS") or 2),
                    help="guests booted side by side (default 2; 1 boots them one "
                         "after another)")
    ap.add_argument("--variants", default=os.environ.get("VARIANTS", "test"),
                    help="kernel variants to boot, e.g. test,debug")
    args = ap.parse_args()

    t0 = time.time()
    started = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    conf = nwconf.load(os.path.join(TOP, "tangle.conf"))
    version, src = kernel.ensure_pristine(conf=conf)
    variants = [v for v in args.variants.split(",") if v]
    images = {}
    for v in variants:
        b = os.path.join(kernel.tree_dir(version), f"build-{v}")
        img = os.path.join(b, "arch/x86/boot/bzImage")
        if not os.path.exists(os.path.join(b, "build.ok")) or not os.path.exists(img):
            sys.exit(f"conform: no finished {v} kernel in {b}: run 'make kernel'"
                     + (" and tools/kernel.py build debug" if v != "test" else ""))
        images[v] = img
    build = os.path.join(kernel.tree_dir(version), "build-test")
    os.makedirs(args.out, exist_ok=True)
    init = build_guest(os.path.join(TOP, "build/guest"))

    requirement_map = reqs.by_test(reqs.read(conf.sources))
    boots, checks = [], []
    only = [n for n in args.only.split(",") if n]
    plan = [b for b in BOOTS if b.get("variant", "test") in variants and
            (b["name"] in only if only or b.get("optional") else True)]
    results = [None] * len(plan)

    def one(i, spec):
        variant = spec.get("variant", "test")
        info, cs = run_boot(spec, args, images[variant], init, src, args.out)
        info["variant"] = variant
        prefix = spec.get("prefix", variant if variant != "test" else None)
        if prefix:
            for c in cs:
                if not c["id"].startswith("boot."):
                    c["id"] = f"{prefix}.{c['id']}"
        results[i] = (info, cs)

    run_plan(plan, args.jobs, one, lambda spec: prepare_cavs(spec, args.out)
             if spec.get("cavs") else spec)
    for i, r in enumerate(results):
        if r is None:   # a boot whose thread raised: say so, lose nothing
            r = ({"name": plan[i]["name"], "title": plan[i]["title"],
                  "outcome": "harness-error", "accel": args.accel,
                  "expect": plan[i]["expect"], "seconds": None, "variant": "test"},
                 [{"id": f"boot.{plan[i]['name']}", "origin": "harness",
                   "boot": plan[i]["name"], "status": "fail",
                   "title": f"boot {plan[i]['name']} ran",
                   "reason": "the harness failed while running this boot "
                             "(see the traceback above)"}])
        boots.append(r[0])
        checks += r[1]
    consoles = [os.path.join(args.out, "boots", b["name"], "console.log")
                for b in boots if b["name"] == "drbg"]
    seed_table = None
    if consoles and os.path.exists(consoles[0]):
        seed_table, seed_check = seed_lengths(consoles)
        checks.append(seed_check)
    with open(os.path.join(build, "include/config/kernel.release")) as f:
        release = f.read().strip()
    checks += figure_checks(boots, args, started, release)
    for c in checks:
        base = c["id"].split(".", 1)[1] \
            if c["id"].startswith(("debug.", "fips.", "nojent.")) else c["id"]
        c["requirements"] = reqs.for_check(requirement_map, base)
    problems = report.validate(checks)
    for p in problems:
        checks.append({"id": f"harness.report.{len(checks)}", "origin": "harness",
                       "status": "fail", "reason": f"malformed check record: {p}",
                       "requirements": []})

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
        "drbg_seed_lengths": seed_table,
        "hardening": None,
        "checks": checks,
    }
    h = hardening_summary(checks)
    rep["hardening"] = h
    failed = [f["fault"] for f in h["faults"] if f["status"] == "fail"]
    missing = [f["fault"] for f in h["faults"] if f["status"] == "not run"]
    hc = {"id": "hardening.faults", "origin": "harness", "requirements": [],
          "title": "every fault of the hardening plan was injected and handled",
          "counts": {"faults": len(h["faults"]), "failed": len(failed),
                     "not_run": len(missing),
                     "allocation_failures_injected": h["fault_injection_points"],
                     "hostile_calls": h["hostile_calls"],
                     "kernel_log_reports": h["kernel_log_reports"]}}
    if failed:
        hc["status"], hc["reason"] = "fail", "; ".join(failed)
    elif missing:
        hc["status"] = "skip"
        hc["reason"] = ("not every fault was injected in this run (the debug kernel "
                        "was not booted?): " + "; ".join(missing))
    else:
        hc["status"] = "pass"
    checks.append(hc)
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


def figure_checks(boots, args, started, release):
    """The book's figures from this run (conformance/host/figures_data.py):
    the Jitter RNG's time stamps recorded in the main boot, replayed by the
    host model, and the host's own runs.  Runs after every boot, so that
    no host measurement shares the CPUs with QEMU."""
    main = next((b for b in boots if b["name"] == "main"), None)
    if not main:
        return []
    say("figures: replaying the Jitter RNG's recorded read, host runs")
    recs = guest_records(os.path.join(TOP, main["results_log"]))
    run = {"started": started, "kernel": release, "accel": args.accel, "boot": "main",
           "source": "jitterentropy_rng/record in the test kernel, boot main; "
                     "host runs of the tangled core (tests/jitter)"}
    checks, written = figures_data.figure_checks_and_files(
        recs, run, args.out, os.path.join(TOP, "build/figures"))
    for fid, path in written.items():
        say(f"figures: {fid}: {os.path.relpath(path, TOP)}")
    return checks


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
