# SPDX-License-Identifier: GPL-2.0-only
"""The SP 800-90B assessor's verbs.

  assess --data FILE [--restart FILE] [--hi X] [--bits N] [--out DIR]
        assess one sample file (NIST's format: one sample per byte);
        writes DIR/<data file stem>.json (default build/entropy/assess)
  entropy-kat [--json FILE]
        run NIST's eight reference files (vectors/sp800-90b), compare
        every value with NIST's output, write the checks (a JSON list)
        to FILE and the book's table data to build/entropy/kat/summary.json;
        then assess the four synthetic sources of known min-entropy
        (judges/synthetic.py) into build/entropy/synthetic/, one check
        each; exit 1 on any disagreement

Both compile tangled/sp800-90b/assess.c (the chapter "SP 800-90B entropy
assessment") into build/entropy/bin/assess with the host's gcc when the
binary is missing or older than the source.
"""

import json
import os
import subprocess
import sys
import time

from ..base import config, files
from ..base.checks import Check, summarize
from ..judges import sp80090b, synthetic

TOP = config.TOP
SOURCE = "tangled/sp800-90b/assess.c"
BINARY = "build/entropy/bin/assess"
CFLAGS = ["-std=c99", "-O2", "-Wall", "-Wextra", "-Werror"]
VECTORS = "vectors/sp800-90b"
ASSESS_OUT = "build/entropy/assess"
KAT_OUT = "build/entropy/kat"
SYNTHETIC_OUT = "build/entropy/synthetic"
SUMMARY = "build/entropy/kat/summary.json"


# The assessor's own bounds (assess.c): at most INT32_MAX / 8 samples of
# one byte each, and a restart matrix of exactly 1000 x 1000 samples.  A
# larger file, or one that is not a regular file (a FIFO, a device such as
# /dev/zero), is refused before the assessor opens it.
MAX_SAMPLES = (2 ** 31 - 1) // 8
RESTART_SAMPLES = 1000 * 1000


class BuildError(RuntimeError):
    """The assessor could not be compiled; the message is one line."""


def build(top=TOP):
    """Path of the assessor binary, compiled first when it is missing or
    older than the tangled source."""
    src = os.path.join(top, SOURCE)
    out = os.path.join(top, BINARY)
    if not os.path.exists(src):
        raise BuildError(f"{SOURCE} is missing: run make tangle")
    if os.path.exists(out) and os.path.getmtime(out) >= os.path.getmtime(src):
        return out
    os.makedirs(os.path.dirname(out), exist_ok=True)
    tmp = out + ".tmp"
    try:
        r = subprocess.run(["gcc"] + CFLAGS + ["-o", tmp, src, "-lm"],
                           capture_output=True, text=True)
    except FileNotFoundError:
        raise BuildError("gcc not found: install it (make deps)") from None
    if r.returncode != 0:
        first = next((ln for ln in r.stderr.splitlines() if "error" in ln),
                     r.stderr.strip().splitlines()[0] if r.stderr.strip() else
                     f"exit status {r.returncode}")
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise BuildError(f"gcc failed on {SOURCE}: {first.strip()}")
    os.replace(tmp, out)
    return out


def run_assessor(binary, data, json_out, bits=None, restart=None, hi=None,
                 allow_short=False, submitter=None):
    """Run the assessor; return (exit status, stdout, stderr, seconds).
    submitter: the claimed H_submitter (H_I = min(claim, assessed))."""
    cmd = [binary]
    if submitter is not None:
        cmd += ["--submitter", str(submitter)]
    if bits is not None:
        cmd += ["--bits", str(bits)]
    if allow_short:
        cmd.append("--allow-short")
    if restart:
        cmd += ["--restart", restart]
    if hi is not None:
        cmd += ["--hi", str(hi)]
    cmd += ["--json", json_out, data]
    t0 = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr, time.monotonic() - t0


def stem_of(path):
    base = os.path.basename(path)
    return os.path.splitext(base)[0] or base


# --------------------------------------------------------------------- assess

def input_problem(data, restart=None):
    """Why the sample files cannot be assessed (one line), or None."""
    for path, most, what in ((data, MAX_SAMPLES, "sample file"),
                             (restart, RESTART_SAMPLES, "restart matrix file")):
        why = path and files.stat_problem(path, most, what, "(the assessor's bound)")
        if why:
            return f"{path}: {why}"
    return None


def run_assess(args):
    why = input_problem(args.data, args.restart)
    if why:
        print(f"assess: {why}", file=sys.stderr)
        return 2
    try:
        binary = build()
    except BuildError as e:
        print(f"assess: {e}", file=sys.stderr)
        return 2
    out_dir = (os.path.join(TOP, ASSESS_OUT) if args.out == ASSESS_OUT
               else os.path.abspath(args.out))
    os.makedirs(out_dir, exist_ok=True)
    json_out = os.path.join(out_dir, stem_of(args.data) + ".json")
    rc, out, err, secs = run_assessor(binary, args.data, json_out, bits=args.bits,
                                      restart=args.restart, hi=args.hi,
                                      allow_short=args.allow_short)
    sys.stdout.write(out)
    sys.stderr.write(err)
    if rc in (0, 1):
        print(f"wrote {os.path.relpath(json_out)} ({secs:.1f} s)")
    return rc


# ---------------------------------------------------------------- entropy-kat

def pinned(top=TOP):
    """{relative path: sha256} from vectors/sp800-90b/SHA256SUMS."""
    out = {}
    path = os.path.join(top, VECTORS, "SHA256SUMS")
    with open(path, encoding="ascii") as f:
        for no, line in enumerate(f, 1):
            if not line.strip():
                continue
            parts = line.split()
            if len(parts) != 2 or len(parts[0]) != 64:
                raise ValueError(f"{path}:{no}: expected '<sha256>  <file>'")
            out[parts[1].lstrip("*")] = parts[0]
    return out


def kat_stems(top=TOP):
    """The reference files' stems: every data/*.bin with a reference .res."""
    data = os.path.join(top, VECTORS, "data")
    ref = os.path.join(top, VECTORS, "reference")
    return sorted(stem_of(f) for f in os.listdir(data)
                  if f.endswith(".bin") and os.path.exists(os.path.join(ref, stem_of(f) + ".res")))


def kat_one(binary, stem, top=TOP, out_dir=None):
    """Assess one reference file and judge it: (Check, summary entry or
    None)."""
    out_dir = out_dir or os.path.join(top, KAT_OUT)
    data = os.path.join(top, VECTORS, "data", stem + ".bin")
    ref = os.path.join(top, VECTORS, "reference", stem + ".res")
    json_out = os.path.join(out_dir, stem + ".json")
    if os.path.exists(json_out):
        os.unlink(json_out)
    rc, _, err, secs = run_assessor(binary, data, json_out, allow_short=True)
    if rc != 0:
        ours = (err.strip().splitlines() or [f"exit status {rc}"])[0]
        return sp80090b.judge(stem, ours, ref), None
    with open(json_out, encoding="utf-8") as f:
        ours = json.load(f)
    check = sp80090b.judge(stem, ours, ref)
    check.counts["seconds"] = round(secs, 2)
    check.details["cpu_seconds"] = ours.get("cpu_seconds")
    try:
        entry = sp80090b.summary_entry(stem, ours, ref, seconds=round(secs, 2))
    except sp80090b.ResError:
        entry = None
    return check, entry


def synthetic_one(binary, name, top=TOP):
    """Assess one synthetic source of known min-entropy: its Check."""
    out_dir = os.path.join(top, SYNTHETIC_OUT)
    os.makedirs(out_dir, exist_ok=True)
    data = os.path.join(out_dir, name + ".bin")
    json_out = os.path.join(out_dir, name + ".json")
    with open(data, "wb") as f:
        f.write(synthetic.samples(name))
    if os.path.exists(json_out):
        os.unlink(json_out)
    rc, _, err, secs = run_assessor(binary, data, json_out)
    if rc not in (0, 1) or not os.path.exists(json_out):
        return synthetic.judge(name, (err.strip().splitlines() or
                                      [f"the assessor's exit status {rc}"])[0])
    with open(json_out, encoding="utf-8") as f:
        return synthetic.judge(name, json.load(f), secs)


def pin_problems(top=TOP):
    """Files of vectors/sp800-90b that differ from SHA256SUMS."""
    problems = []
    for rel, want in sorted(pinned(top).items()):
        path = os.path.join(top, VECTORS, rel)
        if not os.path.exists(path):
            problems.append(f"{VECTORS}/{rel} is missing")
        elif files.sha256_file(path) != want:
            problems.append(f"{VECTORS}/{rel} does not match SHA256SUMS")
    return problems


def run_entropy_kat(args):
    out_dir = os.path.join(TOP, KAT_OUT)
    os.makedirs(out_dir, exist_ok=True)
    checks, entries = [], []
    try:
        problems = pin_problems()
    except (OSError, ValueError) as e:
        problems = [str(e)]
    checks.append(Check.judge("entropy.kat.pinned",
                              "NIST's SP 800-90B reference files match SHA256SUMS",
                              problems, origin="host"))
    try:
        binary = build()
    except BuildError as e:
        print(f"entropy-kat: {e}", file=sys.stderr)
        binary = None
        checks.append(Check.failed("entropy.kat.build", "the assessor compiles",
                                   str(e), origin="host"))
    for stem in kat_stems() if binary else []:
        check, entry = kat_one(binary, stem, out_dir=out_dir)
        checks.append(check)
        if entry:
            entries.append(entry)
        line = f"{check.id}: {check.status}"
        c = check.counts
        if c:
            line += (f" ({c.get('integers', 0)} integers, {c.get('reals', 0)} reals, "
                     f"worst relative difference {c.get('worst_rel_diff', 0):.2g}, "
                     f"{c.get('seconds', 0):.1f} s)")
        if check.reason:
            line += f": {check.reason}"
        print(line)
    for name in synthetic.SOURCES if binary else []:
        check = synthetic_one(binary, name)
        checks.append(check)
        print(f"{check.id}: {check.status} (assessed {check.counts.get('assessed')}, "
              f"{check.counts.get('seconds', 0):.1f} s)"
              + (f": {check.reason}" if check.reason else ""))
    if entries:
        sp80090b.write_summary(os.path.join(TOP, SUMMARY), entries)
    json_path = args.json or os.path.join(out_dir, "checks.json")
    files.write_json(os.path.abspath(json_path), [c.to_dict() for c in checks])
    n = summarize(checks)
    print(f"entropy-kat: {n['passed']} passed, {n['failed']} failed, "
          f"{n['skipped']} skipped")
    return 1 if n["failed"] else 0


# ------------------------------------------------------------------- register

def register(subparsers):
    p = subparsers.add_parser(
        "assess", help="SP 800-90B non-IID assessment of a sample file",
        description="Assess a file of samples (one per byte) with the "
                    "book's SP 800-90B assessor; writes OUT/<stem>.json.")
    p.add_argument("--data", required=True, help="the sample file")
    p.add_argument("--restart", help="a 1000 x 1000 restart matrix (3.1.4)")
    p.add_argument("--hi", type=float,
                   help="the claimed H_I for the restart tests (default: the assessed value)")
    p.add_argument("--bits", type=int, help="bits per sample (default: from the data)")
    p.add_argument("--allow-short", action="store_true",
                   help="assess fewer than 1,000,000 samples (SP 800-90B 3.1.1)")
    p.add_argument("--out", default=ASSESS_OUT, help="output directory")
    p.set_defaults(func=run_assess)

    k = subparsers.add_parser(
        "entropy-kat", help="the assessor against NIST's reference results",
        description="Run the assessor on NIST's SP 800-90B sample files and "
                    "compare every value with NIST's reference output.")
    k.add_argument("--json", help="write the checks here (a JSON list)")
    k.set_defaults(func=run_entropy_kat)
