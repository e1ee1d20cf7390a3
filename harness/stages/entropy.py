# SPDX-License-Identifier: GPL-2.0-only
"""The verb entropy (make entropy): raw noise from three sources, assessed
by SP 800-90B, and what follows from it.

  python3 -m harness entropy [--sources ours-user,pristine-user,ours-kernel]
        [--samples N] [--restarts R] [--len L] [--accel tcg|kvm] [--json OUT]

Sources (chapter "The CPU Jitter RNG: entropy evidence"):

  ours-user      the tangled core in user space, the kernel object's code options
  pristine-user  6.1's crypto/jitterentropy.c, the same harness, the same run
  ours-kernel    the test kernel's own collector through its raw noise test
                 interface, read by the guest in boot mode "entropy" and
                 sent through QEMU's debug console port 0xe9; under
                 TCG the data is emulated and no check rests on it

For each, build/entropy/<source>/ gets deltas.bin (N consecutive raw
samples, 64-bit little-endian), raw.bin (their low 8 bits, one per byte:
NIST's format), restart-deltas.bin and restart.bin (R restarts x L
samples, row after row), collect.json, assessment.json (the assessor on
raw.bin with restart.bin, against the claim of the source's environment);
where the kernel's output blocks were recorded (entropy_uml), also
blocks-bits.bin and blocks-bits.json.  Then build/entropy/summary.json (the book and
make check read it), build/entropy/figures/*.json, and the checks (--json,
a JSON list).  User-space collectors run one at a time and before
anything else, so that nothing else loads the CPU while they time it.
"""

import datetime
import os
import platform
import shutil
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from ..base import config, evidence, files, guest, initramfs, kcache, proc, qemu, records
from ..base.checks import summarize
from ..base.report import as_dicts
from ..judges import entropy_claim as claims
from ..judges import entropy_collect as ec
from ..judges import entropy_data as ed
from ..judges import entropy_figures as ef
from ..judges import entropy_health as eh
from ..judges import entropy_recording as erec
from ..judges import entropy_report as er
from . import assess, entropy_uml
from .plan import BASE_APPEND

OUT = config.build("entropy")
SOURCES = ("ours-user", "ours-user-fixed", "pristine-user", "ours-kernel", "ours-uml",
           "ours-uml-fixed", "ours-uml-tsc", "ours-uml-tsc-fixed")
PAST_PRIMING = 64           # restart columns after the priming ones shown with them
GUEST_TIMEOUT = 3600
REBOOT_TIMEOUT = 600        # a KVM boot that records one restart


def say(msg):
    config.say("entropy", msg)


# --------------------------------------------------------------- collecting

def collect_user(name, args, sdir):
    """Run one user-space collector; its collect.json."""
    bindir = os.path.join(OUT, "bin")
    pdir = None
    if name == "pristine-user":
        version, src = kcache.ensure_pristine()
        pdir = ec.pristine_sources(src, os.path.join(OUT, "pristine-src"))
    cmd, hcmd = ec.kernel_cmd(), ec.sha3_cmd()
    exe = ec.build(ec.base_of(name), bindir, pdir, kernel_cmd=cmd, sha3_cmd=hcmd)
    flags, differs = ec.kernel_object_flags(cmd)
    n = args.samples
    p = ec.priming_of(name)
    say(f"{name}: {n:,} consecutive raw samples, then {args.restarts} restarts x "
        f"{p} + {args.len} ({os.path.relpath(exe, config.TOP)})")
    t0 = time.time()
    meta = ec.run(exe, sdir, n, args.restarts, args.len + p, fixed=name.endswith(ec.FIXED))
    meta["restart"]["priming"] = p
    if name == "pristine-user" and (meta["seq"]["intermittent"] or
                                    meta["restart"]["intermittent"]):
        # 6.1 reruns its start-up test after an intermittent failure, whose
        # hashed time stamps the host would record as raw samples.
        raise ec.CollectError("6.1's core failed a health test while it was "
                              "recorded; its samples are not one stream")
    meta.update(design="pristine" if name == "pristine-user" else "ours",
                where="user space", emulated=False, wall_total_s=round(time.time() - t0, 2),
                cpu_model=proc.cpu_model(),
                core_flags={"from": config.display(cmd), "applied": flags,
                            "differs": [{"flag": f, "how": h} for f, h in differs]})
    if name == "pristine-user":
        # 6.1's sha3_generic.c, which its core times, with its own object's options
        hflags, hdiffers = ec.kernel_object_flags(hcmd)
        meta["hash_flags"] = {"from": config.display(hcmd),
                              "applied": hflags + ec.kconfig_macros(hflags),
                              "differs": [{"flag": f, "how": h} for f, h in hdiffers]}
    say(f"{name}: collected in {meta['wall_total_s']} s")
    return meta


def kernel_image():
    version, src = kcache.ensure_pristine()
    b = os.path.join(kcache.tree_dir(version), "build-test")
    img = os.path.join(b, "arch/x86/boot/bzImage")
    if not os.path.exists(os.path.join(b, "build.ok")) or not os.path.exists(img):
        raise ec.CollectError(f"no finished test kernel in {b}: run 'make kernel'")
    with open(os.path.join(b, "include/config/kernel.release")) as f:
        return img, src, f.read().strip()


def kernel_boot(img, rd, append, bdir, args, timeout, names):
    """One boot of the test kernel in mode "entropy"; its parts names
    written into bdir (OUTS); (the boot, its results, its parts)."""
    data = os.path.join(bdir, "data.bin")
    b = qemu.boot("entropy", img, rd, append, bdir, timeout, accel=args.accel, data=data)
    recs, parts, pieces = boot_parts(b, bdir, data, names)
    for name, chunk in pieces.items():
        with open(os.path.join(bdir, OUTS[name]), "wb") as f:
            f.write(chunk)
    return b, recs, parts


def collect_kernel(args, sdir):
    """Boot the test kernel in mode "entropy"; split its data channel.
    Under KVM the restarts are reboots, one boot each, as for the UML
    sources; under TCG, where a boot takes seconds of emulation and 1000
    of them hours, they are new instances in the boot of the consecutive
    samples (the source carries no claim there)."""
    img, src, release = kernel_image()
    init = guest.build()
    rd = initramfs.write(os.path.join(sdir, "initramfs.cpio"), init, src=src)
    by_reboot = args.accel == "kvm"
    prim = ec.priming_of("ours-kernel")
    base = (f"{BASE_APPEND} conform.mode=entropy kunit.enable=0 "
            f"conform.entropy_len={args.len + prim}")
    say(f"ours-kernel: booting {release} ({args.accel}) in mode entropy")
    b, recs, parts = kernel_boot(
        img, rd, f"{base} conform.entropy_samples={args.samples} "
        f"conform.entropy_restarts={0 if by_reboot else args.restarts}",
        os.path.join(sdir, "boot"), args, GUEST_TIMEOUT, ("seq", "restart"))
    say(f"ours-kernel: {b.outcome} after {b.seconds} s")
    for f in ("deltas.bin", "restart-deltas.bin"):
        shutil.move(os.path.join(sdir, "boot", f), os.path.join(sdir, f))
    env = next((r for r in recs if r.get("type") == "entropy-env"), {})
    seq, rs = parts["seq"], dict(parts["restart"])
    if by_reboot:
        rows, rs = [], {"rows": args.restarts, "len": args.len + prim, "blocks": 0,
                        "intermittent": 0, "us": 0}
        say(f"ours-kernel: {args.restarts} reboots x {prim} + {args.len} samples "
            "(SP 800-90B 3.1.4)")
        for i in range(args.restarts):
            bdir = os.path.join(sdir, "boots", f"r{i:04d}")
            _, _, p = kernel_boot(img, rd, f"{base} conform.entropy_samples=0 "
                                  "conform.entropy_restarts=1", bdir, args,
                                  REBOOT_TIMEOUT, ("restart",))
            with open(os.path.join(bdir, "restart-deltas.bin"), "rb") as f:
                rows.append(f.read())
            for k in ("blocks", "intermittent", "us"):
                rs[k] += p["restart"][k]
        files.write_bytes(os.path.join(sdir, "restart-deltas.bin"), b"".join(rows))
    emulated = env.get("hypervisor", "").startswith("TCG") or args.accel == "tcg"
    return {"source": "ours-kernel", "clock": "random_get_entropy()", "design": "ours",
            "where": f"the test kernel {release} under QEMU ({args.accel})",
            "emulated": emulated, "hypervisor": env.get("hypervisor"),
            "kernel": release, "boot_s": b.seconds, "qemu": b.command_line(),
            "seq": {"samples": seq["len"], "blocks": seq["blocks"],
                    "intermittent": seq["intermittent"], "kernel_s": seq["us"] / 1e6},
            "restart": {"restarts": rs["rows"], "len": rs["len"], "priming": prim,
                        "blocks": rs["blocks"], "intermittent": rs["intermittent"],
                        "wall_s": rs["us"] / 1e6,
                        "by": "reboot" if by_reboot else "new instance"}}


OUTS = {"seq": "deltas.bin", "restart": "restart-deltas.bin"}


def boot_parts(b, bdir, path, names=None, refused=None):
    """What an entropy boot b (qemu.boot() or uml.boot(), its directory
    bdir) sent: (its results, its "entropy-part" records by name, the data
    of each part by name).  The boot must have ended and every guest check
    passed (a failure whose reason starts with refused raises
    SourceRefused); the data channel at path holds the parts names in that
    order (None: those the guest announced, in entropy_uml.PARTS order),
    each announced, of its announced size and FNV-1a hash (verified_parts)."""
    if b.outcome != "end":
        raise ec.CollectError(f"{bdir}: the entropy boot ended with {b.outcome}: "
                              f"{b.detail[:300]}")
    recs = records.read(b.results)
    bad = next((r for r in recs if r.get("type") == "check" and r.get("status") != "pass"),
               None)
    if bad and refused and str(bad.get("reason", "")).startswith(refused):
        raise ec.SourceRefused(f"{bdir}: {bad.get('reason')}")
    if bad:
        raise ec.CollectError(f"{bdir}: {bad.get('id')}: {bad.get('reason')}")
    parts = {r.get("part"): r for r in recs if r.get("type") == "entropy-part"}
    if names is None:
        names = [n for n in entropy_uml.PARTS if n in parts]
    return recs, parts, verified_parts(path, parts, names)


def verified_parts(path, parts, names=("seq", "restart")):
    """The data channel at path holds the parts names, in that order; each
    must have been announced (parts: the "entropy-part" records by name),
    the data their sizes together, and each part its FNV-1a hash.  The
    data of each part by name."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        data = b""
    for name in names:
        if not parts.get(name, {}).get("ok"):
            raise ec.CollectError(f"the guest did not send its {name} part")
    want = sum(parts[n]["bytes"] for n in names)
    if len(data) != want:
        raise ec.CollectError(f"{path}: {len(data)} bytes, the guest announced {want}")
    off, pieces = 0, {}
    for name in names:
        pieces[name] = data[off:off + parts[name]["bytes"]]
        off += parts[name]["bytes"]
        if fnv1a(pieces[name]) != int(parts[name]["fnv64"], 16):
            raise ec.CollectError(f"{path}: the {name} part does not match its hash")
    return pieces


def fnv1a(data):
    import numpy as np     # a plain loop over 16 MB would take a minute
    h = 0xcbf29ce484222325
    step = 1 << 16
    for i in range(0, len(data), step):
        for b in np.frombuffer(data[i:i + step], dtype=np.uint8).tolist():
            h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


# ------------------------------------------------------------------ deriving

def write_bytes(path, data):
    """Write data to path, leaving the file (and its time) alone when it
    already holds exactly that."""
    try:
        if os.path.getsize(path) == len(data):
            with open(path, "rb") as f:
                if f.read() == data:
                    return
    except OSError:
        pass
    files.write_bytes(path, data)


def derive(name, meta, args, sdir):
    """raw.bin, restart.bin and, where the kernel's output blocks were
    recorded, blocks-bits.bin; the deltas described.  deltas.bin keeps the
    first N samples only."""
    path = os.path.join(sdir, "deltas.bin")
    d = ed.read_deltas(path)
    if len(d) < args.samples:
        raise ed.DataError(f"{path}: {len(d)} deltas, expected {args.samples}")
    jobs = []
    src = os.path.join(sdir, "blocks.bin")  # the conditioning's output, recorded
    if os.path.exists(src):
        with open(src, "rb") as f:
            write_bytes(os.path.join(sdir, "blocks-bits.bin"), ed.item_bits(f.read()))
        jobs.append(("blocks-bits", 1))
    rec = (meta.get("conditioning") or {}).get("strides")
    if rec:
        with open(os.path.join(sdir, "strides.bin"), "rb") as f:
            try:
                meta["recording"] = erec.two_sample(f.read(), rec["rows"], rec["len"],
                                                    rec["stride"])
            except ValueError as e:
                raise ed.DataError(f"{sdir}/strides.bin: {e}")
    if len(d) > args.samples:
        d = d[:args.samples]
        write_bytes(path, d.tobytes())
    write_bytes(os.path.join(sdir, "raw.bin"), ed.symbols(d))
    # Each restart's row starts with the new collector's priming samples,
    # which are not counted: SP 800-90B 3.1.4's matrix is of the samples after
    # them (the chapter "entropy evidence" argues it).
    p = ec.priming_of(name)
    if (meta.get("restart") or {}).get("priming", 0) != p:
        raise ed.DataError(f"{sdir}/collect.json: restarts recorded with "
                           f"{(meta.get('restart') or {}).get('priming', 0)} priming "
                           f"samples, this core makes {p}: collect again")
    r = ed.read_deltas(os.path.join(sdir, "restart-deltas.bin"),
                       args.restarts * (args.len + p))
    write_bytes(os.path.join(sdir, "restart.bin"),
                ed.symbols(ed.drop_columns(r, args.len + p, p)))
    meta["restart"]["first_columns"] = ed.first_columns(r, args.len + p, p + PAST_PRIMING)
    files.write_json(os.path.join(sdir, "collect.json"), meta)
    return d, jobs


def assess_all(jobs, reuse=False):
    """Run the assessor on every (source dir, stem, bits, claim) job, two at
    a time (the assessor is single-threaded; nothing is timed any more);
    claim: the source's H_submitter for its raw samples, or None.
    reuse: keep an assessment newer than its sample files and of the same
    claim."""
    binary = assess.build()

    def one(job):
        sdir, stem, bits, claim = job
        restart = os.path.join(sdir, "restart.bin") if stem == "raw" else None
        out = os.path.join(sdir, "assessment.json" if stem == "raw" else f"{stem}.json")
        ins = [os.path.join(sdir, f"{stem}.bin")] + ([restart] if restart else [])
        if reuse and os.path.exists(out) and all(
                os.path.getmtime(out) >= os.path.getmtime(i) for i in ins) and \
                (files.read_json(out) or {}).get("H_submitter") == claim:
            return job, files.read_json(out)
        if os.path.exists(out):
            os.unlink(out)
        n = os.path.getsize(os.path.join(sdir, f"{stem}.bin"))
        rc, _, err, secs = assess.run_assessor(
            binary, os.path.join(sdir, f"{stem}.bin"), out, bits=bits, restart=restart,
            allow_short=n < 1000000, submitter=claim)
        if not os.path.exists(out):
            raise ed.DataError(f"the assessor failed on {sdir}/{stem}.bin: "
                               f"{(err.strip().splitlines() or [f'exit {rc}'])[0]}")
        say(f"assessed {os.path.basename(sdir)}/{stem}.bin in {secs:.1f} s")
        return job, files.read_json(out)
    with ThreadPoolExecutor(max_workers=2) as pool:
        return {(os.path.basename(j[0]), j[1]): a for j, a in pool.map(one, jobs)}


# ------------------------------------------------------------------- the run

def run(args):
    t0 = time.time()
    started = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    names = [s for s in args.sources.split(",") if s]
    for s in names:
        if s not in SOURCES:
            config.die("entropy", f"unknown source {s!r} (known: {', '.join(SOURCES)})")
    os.makedirs(OUT, exist_ok=True)
    # The digest of the inputs, taken before anything is collected, so that
    # make evidence keeps only a run of this tree (base/evidence.py).
    inputs = {"entropy": evidence.digest(evidence.RECORDS["entropy"]["inputs"])}
    metas, errors, timings, refused = {}, {}, {}, set()
    for name in names:                      # collection: one at a time
        sdir = os.path.join(OUT, name)
        t = time.time()
        if args.reuse and files.read_json(os.path.join(sdir, "collect.json")):
            metas[name] = files.read_json(os.path.join(sdir, "collect.json"))
            say(f"{name}: reusing the samples collected at {metas[name].get('when', '?')}")
            continue
        if os.path.exists(sdir):
            shutil.rmtree(sdir)
        os.makedirs(sdir)
        try:
            if name == "ours-kernel":
                metas[name] = collect_kernel(args, sdir)
            elif ec.base_of(name) in entropy_uml.VARIANT:
                metas[name] = entropy_uml.collect(name, args, sdir)
            else:
                metas[name] = collect_user(name, args, sdir)
            metas[name]["when"] = datetime.datetime.now(
                datetime.timezone.utc).isoformat(timespec="seconds")
            metas[name]["inputs"] = inputs
        except (ec.CollectError, ed.DataError, SystemExit) as e:
            errors[name] = str(e)
            if isinstance(e, ec.SourceRefused):
                refused.add(name)
            say(f"{name}: {e}")
        timings[f"{name}_collect_s"] = round(time.time() - t, 1)
    # Samples reused from an earlier collection keep that collection's
    # digest: a summary is of this tree's inputs only if all of them are.
    inputs = next((m.get("inputs") for m in metas.values()
                   if m.get("inputs") != inputs), inputs) or {}
    t = time.time()
    summary = analyse(names, metas, errors, args, started)
    for name in refused:
        summary["sources"][name]["refused"] = True
    timings["analysis_s"] = round(time.time() - t, 1)
    summary.update(duration_s=round(time.time() - t0, 1), timings=timings, inputs=inputs,
                   accel=args.accel,
                   host={"cpu_model": proc.cpu_model(), "nproc": os.cpu_count(),
                         "machine": platform.machine(), "load_end": load()})
    files.write_json(os.path.join(OUT, "summary.json"), summary)
    checks = er.checks(summary)
    if args.json:
        files.write_json(os.path.abspath(args.json), as_dicts(checks))
    report(summary, checks)
    return 1 if summarize(checks)["failed"] else 0


def load():
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def analyse(names, metas, errors, args, started):
    """Derive, assess, judge; the summary."""
    arrays, jobs = {}, []
    for name in names:
        if name in errors:
            continue
        sdir = os.path.join(OUT, name)
        try:
            arrays[name], extra = derive(name, metas[name], args, sdir)
        except ed.DataError as e:
            errors[name] = str(e)
            continue
        jobs += [(sdir, "raw", 8, claims.claim_of(name))] + [
            (sdir, stem, bits, None) for stem, bits in extra]
    results = assess_all(jobs, args.reuse) if jobs else {}
    sources = {}
    for name in names:
        if name in errors:
            sources[name] = {"name": name, "error": errors[name]}
            continue
        say(f"{name}: health tests over {args.samples:,} samples")
        health = eh.false_positives(arrays[name])
        sources[name] = er.source_summary(
            name, metas[name], ed.describe(arrays[name]), results.get((name, "raw")),
            health, {"blocks": results.get((name, "blocks-bits"))})
    summary = {"schema": 1, "started": started, "code": er.code_claims(),
               "sources": sources,
               "params": {"samples": args.samples, "restarts": args.restarts,
                          "len": args.len}}
    summary["claims"] = claims.credit(sources)
    kernel = summary["claims"].get("x86-64") or summary["claims"].get("x86-64-user") or {}
    summary["drbg"] = er.chain.drbg_claims(kernel.get("credited_bits", 0),
                                           kernel.get("full_entropy"))
    summary["drbg_from"] = next((k for k in ("x86-64", "x86-64-user")
                                 if k in summary["claims"]), None)
    summary["figures"] = ef.write_all(os.path.join(OUT, "figures"), summary, arrays, OUT)
    return summary


def report(summary, checks):
    for name, s in summary["sources"].items():
        if s.get("error"):
            print(f"entropy: {name}: ERROR {s['error']}")
            continue
        rs = (s["assessment"] or {}).get("restart") or {}
        print(f"entropy: {name}{' (emulated)' if s['emulated'] else ''}: H_I = "
              f"{s['h_i']:.4f}, H = {s['h']:.4f} bits per raw sample; restart sanity "
              f"{'passed' if rs.get('sanity') else 'FAILED'}, validation "
              f"{'passed' if rs.get('pass') else 'FAILED'}")
    for c in checks:
        if c.status != "pass":
            print(f"entropy: {c.status.upper()} {c.id}: {c.reason}")
    n = summarize(checks)
    print(f"entropy: {n['passed']} passed, {n['failed']} failed, {n['skipped']} skipped "
          f"in {summary['duration_s']:.0f} s; summary: "
          f"{config.display(os.path.join(OUT, 'summary.json'))}")
    sys.stdout.flush()


def register(sub):
    p = sub.add_parser("entropy", help="raw noise of three sources, SP 800-90B assessed",
                       description="Collect, assess and judge the raw noise of our "
                                   "Jitter RNG (user space and kernel) and 6.1's.")
    p.add_argument("--sources", default=",".join(SOURCES))
    p.add_argument("--samples", type=int, default=1000000,
                   help="consecutive raw samples per source (SP 800-90B 3.1.1)")
    p.add_argument("--restarts", type=int, default=1000)
    p.add_argument("--len", type=int, default=1000, help="samples per restart")
    p.add_argument("--accel", default=os.environ.get("ACCEL") or "tcg",
                   choices=["tcg", "kvm"])
    p.add_argument("--json", help="write the checks here (a JSON list)")
    p.add_argument("--reuse", action="store_true",
                   help="assess the samples of the last collection again, collecting "
                        "only the sources that have none")
    p.set_defaults(func=run)
