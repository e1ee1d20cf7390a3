# SPDX-License-Identifier: GPL-2.0-only
"""The verbs acvp-registration and acvp (make acvp-registration, make acvp).

acvp-registration derives the ACVP registration of the patched kernel
(judges/acvp_kernel.py reads the cache tree with the series applied and
the test kernel's .config; judges/acvp_reg.py puts it in ACVP's terms with
the rules of ACVP's specification) and writes build/acvp/registration.json
and build/acvp/capabilities.json (every fact with the file and line it
came from, every bound with the side that set it).

acvp [--dir DIR] answers the ACVP vector sets under DIR (default
vectors/acvp): every directory holding a prompt.json is one.  All files
are read and checked first (SHA256SUMS when DIR has one, then every
prompt, expectedResults.json and validation.json): a problem stops the
run with one line naming the file and the JSON path, before anything is
written or booted (--inputs-only stops there, having read the sets
against ACVP's specification alone: nothing in the kernel cache).  Then
the test cases the registration claims, and the probes of the
registration, are packed for one boot of the test kernel in mode "acvp"
(plan.ACVP_BOOT); the answers are judged (acvp_judge.py) against the
host model and the expected results, and the run is written, whole, to
build/acvp/: <set>/response.json, <set>/validation.json (where
the set has expectedResults.json), report.{json,md,xml} with every check
(acvp.<set>.tg<N>, ...), summary.json for the book, the boot's logs.  A
run that stops early leaves the previous build/acvp as it was.  Exit 1
when any check fails.
"""

import datetime
import hashlib
import os
import shutil
import time

from ..base import conf as confmod
from ..base import config, files, guest, kbuild, kcache, qemu, records
from ..base.checks import Check, summarize
from ..base.report import as_dicts, write_all
from ..judges import (acvp_judge, acvp_kernel, acvp_pack, acvp_parse, acvp_reg, acvp_work,
                      kcapi_judge)
from . import conform
from .plan import ACVP_BOOT

OUT = config.build("acvp")
DEFAULT_DIR = "vectors/acvp"
# The guest hashes a large message at no less than this (bytes per second,
# TCG); the boot's timeout allows for it.
LDT_RATE = 4_000_000


def say(msg):
    config.say("acvp", msg)


def die(msg):
    qemu.stop_all()
    config.die("acvp", msg)


def kernel_config(version):
    """The test kernel's .config, or (before the first build) its fragment."""
    build = os.path.join(kcache.tree_dir(version), "build-test")
    if os.path.exists(os.path.join(build, "build.ok")):
        path = os.path.join(build, ".config")
    else:
        path = config.top(kbuild.VARIANTS["test"][0])
    with open(path, encoding="utf-8") as f:
        return path, f.read().splitlines()


def registration(apply=True):
    """(kernel facts, registration, derivation, ACVP rules, src)."""
    version, src = kcache.ensure_pristine(conf=confmod.load())
    if apply:
        kcache.apply_series(config.top("tangled/patches"))
    cfg_path, cfg = kernel_config(version)
    try:
        kernel = acvp_kernel.derive(src, cfg)
        rules = acvp_reg.spec_rules()
        reg, derivation = acvp_reg.registration(kernel, rules)
    except (acvp_kernel.KernelSourceError, acvp_reg.SpecError) as e:
        die(f"cannot derive the registration: {e}")
    kernel["config_file"] = config.display(cfg_path)
    return kernel, reg, derivation, rules, src


def capabilities(kernel, derivation):
    return {"kernel": kernel, "derivation": derivation}


def write_registration(outdir, kernel, reg, derivation):
    files.write_json(os.path.join(outdir, "registration.json"), reg)
    files.write_json(os.path.join(outdir, "capabilities.json"),
                     capabilities(kernel, derivation))


def run_registration(args):
    kernel, reg, derivation, _, _ = registration()
    write_registration(args.out, kernel, reg, derivation)
    algs = acvp_reg.algorithms(reg)
    say(f"{len(algs)} algorithm objects for {len(kernel['drbg']['instances'])} DRBG "
        f"instances and {kernel['sha3']['driver']}: "
        f"{config.display(os.path.join(args.out, 'registration.json'))}")
    for n in derivation["notes"]:
        say(f"note: {n}")
    return 0


# ---------------------------------------------------------------------------
# Reading the vector sets

def find_sets(acvp_dir):
    """[(name, directory)] of the directories under acvp_dir with a prompt.json."""
    if not os.path.isdir(acvp_dir):
        die(f"{config.display(acvp_dir)}: not a directory (ACVP=DIR names the vector sets)")
    out, names = [], {}
    for d, dirs, fs in os.walk(acvp_dir):
        dirs.sort()
        if "prompt.json" in fs:
            name = os.path.basename(os.path.normpath(d))
            if name in names:
                die(f"{config.display(d)}: a second vector set named {name!r} "
                    f"(also {config.display(names[name])}); build/acvp/{name} would "
                    "hold both")
            names[name] = d
            out.append((name, d))
    if not out:
        die(f"{config.display(acvp_dir)}: no directory with a prompt.json")
    return out


def check_sums(acvp_dir):
    path = os.path.join(acvp_dir, "SHA256SUMS")
    if not os.path.exists(path):
        return 0
    n = 0
    for no, ln in enumerate(read_input(path, "SHA256SUMS file").decode(
            "utf-8", "backslashreplace").splitlines(), 1):
        if not ln.strip():
            continue
        digest, _, rel = ln.strip().partition("  ")
        full = os.path.join(acvp_dir, rel)
        if not os.path.lexists(full):
            die(f"{config.display(path)}:{no}: {rel} is missing")
        if hashlib.sha256(read_input(full, "file")).hexdigest() != digest:
            die(f"{config.display(full)}: does not match {config.display(path)}:{no}")
        n += 1
    return n


def read_input(path, what):
    """The bytes of an input file; one line and exit when it is not a
    regular file of plausible size (a FIFO is refused, not waited on)."""
    data, why = files.read_regular(path, acvp_parse.MAX_BYTES, what)
    if why:
        die(f"{config.display(path)}: {why}")
    return data


def limits(rules, kernel=None):
    """The bounds a prompt is read with: ACVP's, and the kernel's output
    limit when kernel is given (else ACVP's returnedBitsLen maximum)."""
    return {"max_bits": max(max(r["max_entropy"], r["max_nonce"], r["max_perso"],
                                r["max_addl"]) for r in rules["drbg"].values()),
            "returned_max": rules["returned_max"],
            "out_max_bits": (8 * kernel["interface"]["max_out"] if kernel
                             else rules["returned_max"]),
            "sha3_max": rules["sha3_max_message"]}


def spec_inputs():
    """(known algorithms, limits) from ACVP's specification alone, for
    --inputs-only: it reads nothing in the kernel cache (the kernel's own
    registration and limits are applied when the run boots)."""
    try:
        rules = acvp_reg.spec_rules()
    except acvp_reg.SpecError as e:
        die(f"cannot read ACVP's specification: {e}")
    return set(rules["drbg_revisions"]) | set(rules["sha3_revisions"]), limits(rules)


def read_sets(sets, known, lim):
    """[(name, prompt, expected, server validation)], every file checked;
    known: {(algorithm, revision)} a prompt may ask for."""
    out = []
    try:
        for name, d in sets:
            vs = acvp_parse.parse_prompt(os.path.join(d, "prompt.json"), known, lim)
            exp = server = None
            if os.path.exists(os.path.join(d, "expectedResults.json")):
                exp = acvp_parse.parse_expected(os.path.join(d, "expectedResults.json"), vs)
            if os.path.exists(os.path.join(d, "validation.json")):
                disp, tests = acvp_parse.parse_validation(os.path.join(d, "validation.json"))
                server = {"disposition": disp, "tests": tests}
            out.append((name, vs, exp, server))
    except acvp_parse.AcvpError as e:
        die(str(e))
    return out


# ---------------------------------------------------------------------------
# The run

def prepare(parsed, reg, derivation, kernel, workdir):
    """The pack and the meta data of the run."""
    t0 = time.time()
    work = acvp_work.Work(reg, derivation, kernel)
    for name, vs, exp, server in parsed:
        s = work.add_set(vs, name, exp, server)
        n = sum(len(g["tests"]) for g in s["groups"])
        na = sum(len(t) for g in s["groups"] for t in g["na"].values())
        say(f"{name}: {vs['algorithm']} {vs['revision']}, {len(s['groups'])} test "
            f"groups: {n} test cases claimed, {na} not applicable")
    work.add_probes()
    pack = acvp_pack.write_pack(os.path.join(workdir, "acvp.pack"), work.entries)
    meta = work.meta
    meta["model_seconds"] = round(time.time() - t0, 1)
    meta["pack_bytes"] = os.path.getsize(pack)
    meta["ldt_bytes"] = sum(acvp_pack.decode_entry(k, p)["full"]
                            for k, p in work.entries if k == acvp_pack.HASH_LDT)
    say(f"{len(work.entries)} entries ({len(meta['probes'])} probes), host model "
        f"{meta['model_seconds']} s, pack {meta['pack_bytes']} bytes")
    return pack, meta


def boot(pack, meta, workdir, accel):
    """Boot the test kernel on the pack; (boot info, checks, guest records)."""
    version, src = kcache.ensure_pristine(conf=confmod.load())
    img = conform.images(version, ["test"])["test"]
    init = guest.build()
    spec = dict(ACVP_BOOT, files={"data/acvp.pack": pack},
                timeout=ACVP_BOOT["timeout"] + meta["ldt_bytes"] // LDT_RATE)
    try:
        info, checks = conform.run_boot(spec, accel, img, init, src, workdir)
    finally:
        qemu.stop_all()
    info["kernel"] = conform.kernel_facts(version, confmod.load(), os.path.join(
        kcache.tree_dir(version), "build-test"))
    return info, checks, records.read(os.path.join(workdir, "boots", "acvp",
                                                   "results.log"))


def set_summary(s, checks, docs):
    """The counts of one vector set, for the report and the book."""
    mine = [c for c in checks if c.id.startswith(f"acvp.{s['slug']}.tg")]
    reasons = {}
    for g in s["groups"]:
        for r, tcs in g["na"].items():
            reasons[r] = reasons.get(r, 0) + len(tcs)
    d = docs[s["name"]]
    return {"name": s["name"], "algorithm": s["algorithm"], "revision": s["revision"],
            "test_groups": len(s["groups"]),
            "groups_answered": sum(1 for g in s["groups"] if g["tests"]),
            "groups_not_applicable": sum(1 for g in s["groups"] if not g["tests"]),
            "test_cases": sum(c.counts.get("test_cases", 0) for c in mine),
            "claimed": sum(len(g["tests"]) for g in s["groups"]),
            "answered": sum(c.counts.get("answered", 0) for c in mine),
            "not_applicable": sum(reasons.values()),
            "reasons": [{"reason": r, "test_cases": n} for r, n in reasons.items()],
            "failed_groups": sum(1 for c in mine if c.status == "fail"),
            "response": d["response"] is not None,
            "validation": (d["validation"] or {}).get("disposition"),
            "agrees_with_server": d["agrees"]}


def total_check(sums, checks, meta, done):
    counts = {k: sum(x[k] for x in sums) for k in ("test_groups", "test_cases",
                                                    "claimed", "answered",
                                                    "not_applicable")}
    counts.update(sets=len(sums), probes=len(meta["probes"]))
    problems = [f"{c.id}: {c.reason}" for c in checks if c.status == "fail"]
    if done is None:
        problems.insert(0, "the guest did not finish the pack")
    if counts["claimed"] == 0:
        problems.append("the registration claims no test case of these sets")
    # A set of which nothing applies would be skips only: a set asked for
    # and not answered.
    problems += [f"{x['name']}: the registration claims no test case of this set "
                 f"({x['not_applicable']} not applicable)" for x in sums
                 if x["claimed"] == 0 and counts["claimed"]]
    return Check.judge("acvp.total", f"ACVP: the kernel answers every test case the "
                       f"registration claims, as the host model says ({counts['answered']} "
                       f"of {counts['claimed']} claimed, {counts['not_applicable']} not "
                       f"applicable, in {counts['sets']} sets)", problems, origin="host",
                       counts=counts)


def summary(meta, sums, checks, done, info, kernel, reg, args, started):
    d = done or {}
    return {"schema": 1, "started": started, "acvp_dir": config.display(args.dir),
            "kernel_release": info.get("release"), "accel": args.accel,
            "registration": {"algorithms": [
                {k: v for k, v in a.items() if k != "capabilities"} |
                ({"modes": [c["mode"] for c in a["capabilities"]]}
                 if "capabilities" in a else {}) for a in acvp_reg.algorithms(reg)],
                "instances": len(kernel["drbg"]["instances"]),
                "hash_driver": kernel["sha3"]["driver"]},
            "sets": sums,
            "probes": {"count": len(meta["probes"]),
                       "failed": sum(1 for c in checks if c.id.startswith(
                           "acvp.registration.") and c.status == "fail")},
            "timings": {"boot_s": info.get("seconds"), "model_s": meta["model_seconds"],
                        **{name: round(d.get(k, 0) / 1e6, 2) for name, k in
                           (("guest_s", "us"), ("drbg_s", "drbg_us"),
                            ("probe_s", "probe_us"), ("hash_s", "hash_us"),
                            ("mct_s", "mct_us"), ("ldt_s", "ldt_us"))}},
            "ldt_bytes": meta["ldt_bytes"],
            "kcapi": kcapi_summary(checks, d),
            "checks": summarize(checks)}


def kcapi_summary(checks, done):
    """acvp.kcapi's counts and the guest's time for them, for the book."""
    c = next((c for c in checks if c.id == "acvp.kcapi"), None)
    if c is None:
        return None
    return {"status": c.status, "reason": c.reason, **c.counts,
            "sets": c.details.get("sets", []),
            "seconds": round(done.get("kcapi_us", 0) / 1e6, 2)}


def write_run(workdir, docs, rep, summ, kernel, reg, derivation):
    for name, d in docs.items():
        if d["response"] is not None:
            files.write_json(os.path.join(workdir, name, "response.json"), d["response"])
        if d["validation"] is not None:
            files.write_json(os.path.join(workdir, name, "validation.json"),
                             d["validation"])
    write_registration(workdir, kernel, reg, derivation)
    write_all(rep, workdir)
    files.write_json(os.path.join(workdir, "summary.json"), summ)


def swap_in(workdir, out):
    """Replace out by workdir in one rename (the old run goes last)."""
    old = out + ".old"
    shutil.rmtree(old, ignore_errors=True)
    if os.path.exists(out):
        os.replace(out, old)
    os.replace(workdir, out)
    shutil.rmtree(old, ignore_errors=True)


def run_acvp(args):
    t0 = time.time()
    started = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    sets = find_sets(args.dir)
    sums_checked = check_sums(args.dir)
    if getattr(args, "inputs_only", False):
        parsed = read_sets(sets, *spec_inputs())
        say(f"{len(parsed)} vector sets under {config.display(args.dir)} read against "
            "ACVP's specification" + (f" ({sums_checked} files match SHA256SUMS)"
                                      if sums_checked else ""))
        return 0
    kernel, reg, derivation, rules, _ = registration()
    parsed = read_sets(sets, {(a["algorithm"], a["revision"]) for a in
                              acvp_reg.algorithms(reg)}, limits(rules, kernel))
    say(f"{len(parsed)} vector sets under {config.display(args.dir)} read"
        + (f" ({sums_checked} files match SHA256SUMS)" if sums_checked else ""))
    workdir = args.out + ".new"
    shutil.rmtree(workdir, ignore_errors=True)
    os.makedirs(workdir)
    try:
        pack, meta = prepare(parsed, reg, derivation, kernel, workdir)
        info, boot_checks, recs = boot(pack, meta, workdir, args.accel)
        checks, docs = acvp_judge.judge(meta, recs)
        checks.append(kcapi_judge.acvp_check(meta, recs))
        done = next((r for r in recs if r.get("type") == "acvp_done"), None)
        sums = [set_summary(s, checks, docs) for s in meta["sets"]]
        checks = boot_checks + checks
        checks.append(total_check(sums, checks, meta, done))
        for c in checks:
            c.boot = c.boot or "acvp"
        conform.tag_requirements(checks, confmod.load())
        rep = {"schema": 1, "started": started, "duration_s": round(time.time() - t0, 1),
               "acvp_dir": config.display(args.dir), "kernel": info.pop("kernel", {}),
               "boots": [info], "sets": sums, "checks": checks}
        summ = summary(meta, sums, checks, done, info, kernel, reg, args, started)
        write_run(workdir, docs, rep, summ, kernel, reg, derivation)
        swap_in(workdir, args.out)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
        qemu.stop_all()
    if args.json:
        files.write_json(args.json, as_dicts(checks))
    for c in rep["checks"]:
        if c["status"] == "fail":
            say(f"FAIL {c['id']}: {c.get('reason', '')[:300]}")
    for x in sums:
        why = "; ".join(f"{r['test_cases']}: {r['reason']}" for r in x["reasons"])
        say(f"{x['name']}: {x['answered']} of {x['claimed']} claimed test cases answered"
            f", {x['not_applicable']} not applicable" + (f" ({why})" if why else "")
            + (f"; validation {x['validation']}" if x["validation"] else ""))
    s = rep["summary"]
    say(f"{s['passed']} passed, {s['failed']} failed, {s['skipped']} skipped; "
        f"{config.display(args.out)}/report.{{json,md,xml}}")
    return 1 if s["failed"] else 0


def register(sub):
    p = sub.add_parser("acvp-registration", help="write the ACVP registration derived "
                       "from the patched kernel (build/acvp/registration.json)")
    p.add_argument("--out", default=OUT)
    p.set_defaults(func=run_registration)
    p = sub.add_parser("acvp", help="answer ACVP vector sets in the test kernel "
                       "(build/acvp/<set>/response.json)")
    p.add_argument("--dir", default=os.environ.get("ACVP") or config.top(DEFAULT_DIR),
                   help="the directory of vector sets (default vectors/acvp)")
    p.add_argument("--out", default=OUT)
    p.add_argument("--accel", default=os.environ.get("ACCEL") or "tcg",
                   choices=["tcg", "kvm"])
    p.add_argument("--json", metavar="OUT", help="also write the checks to OUT")
    p.add_argument("--inputs-only", action="store_true",
                   help="read and check every file of the vector sets against ACVP's "
                   "specification; boot nothing, read nothing in the kernel cache")
    p.set_defaults(func=run_acvp)
