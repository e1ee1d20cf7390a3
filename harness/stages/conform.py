# SPDX-License-Identifier: GPL-2.0-only
"""make conform, after the kernel is built: boot it, judge, report.

Builds the guest's static /init, packs an initramfs per boot, boots the
kernel under QEMU once per entry of the boot plan (plan.py), hands what
each boot left behind (console log, results channel) to the judges, and
writes build/conformance/report.{json,md,xml}.  Exits 1 when any check
fails.  Never loads anything into the host's kernel.
"""

import datetime
import os
import platform
import re
import threading
import time
import traceback

from ..base import conf as confmod
from ..base import config, evidence, files, guest, initramfs, kbuild, kcache, proc, qemu, records
from ..base import reqs as reqsmod
from ..base.checks import Check, validate
from ..base.report import new_id, remove_all, write_all
from ..judges import boot as boot_judge
from ..judges import (cavs_judge, figures, hardening, kcapi_judge, kernel_log, kmemleak,
                      kunit, proc_crypto, seed_trace, seeds)
from . import inputs, kept_boots
from .plan import BASE_APPEND

PACKAGES = ["linux-source-6.1", "linux-config-6.1", "qemu-system-x86", "noweb",
            "pandoc", "gcc-12", "git", "libkcapi-dev"]
PREFIXES = ("debug.", "fips.", "nojent.", "i386.")


def say(msg):
    config.say("conform", msg)


def module_files(build, bdir):
    """The .ko files of a modules build, and /lib/modules/order (the Jitter
    RNG first, so that the DRBG finds it when its self-tests instantiate)."""
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
    out = {f"lib/modules/{os.path.basename(m)}": os.path.join(build, m) for m in order}
    listing = os.path.join(bdir, "modules-order.txt")
    files.write_text(listing, "".join(os.path.basename(m) + "\n" for m in order))
    out["lib/modules/order"] = listing
    return out


def boot_info(spec, b, recs, accel, append):
    """What report.json says about one boot."""
    env = next((r for r in recs if r.get("type") == "env"), {})
    return {"name": spec["name"], "title": spec["title"], "outcome": b.outcome,
            "expect": spec["expect"], "seconds": b.seconds, "accel": accel,
            "cpu": b.argv[b.argv.index("-cpu") + 1] if "-cpu" in (b.argv or []) else "?",
            "smp": 2, "qemu": b.command_line() if b.argv else "",
            "append": append, "rdrand": env.get("rdrand"), "rdseed": env.get("rdseed"),
            "virtio_rng": "virtio-rng" in " ".join(b.argv or []),
            "crng_ready_at_init": env.get("crng_ready_at_init"),
            "crng_ready_at_end": next((r.get("ready") for r in recs
                                       if r.get("type") == "crng"), None),
            "release": env.get("release"),
            "console_log": config.display(b.console),
            "results_log": config.display(b.results)}


def judge_boot(spec, b, recs, src):
    """Every check of one finished boot."""
    name = spec["name"]
    checks = boot_judge.outcome(b, spec)
    if spec["expect"] == "hung":
        return checks
    if os.path.exists(b.console):
        checks.append(kernel_log.check(b.console, name))
        if spec["expect"] == "end" and spec.get("kunit", True):
            checks += kunit.checks(b.console, name, src, spec.get("requires", ()))
    else:
        checks.append(Check.failed(f"boot.{name}.console-log", f"boot {name} left its "
                                   "console log", f"no {config.display(b.console)}: no "
                                   "kernel log, no KUnit result to judge", boot=name))
    checks += boot_judge.guest(recs, name)
    checks += proc_crypto.checks(recs, name, src)
    checks += seed_trace.checks(recs, spec.get("jent", True))
    checks += boot_judge.console(b.console, name, spec.get("console_re", []))
    if "conform.kmemleak=1" in spec["append"]:
        checks.append(kmemleak.check(recs, name))
    if spec.get("cavs_meta") is not None:
        checks += cavs_judge.checks(recs, spec["cavs_meta"])
        if "conform.kcapi=1" in spec["append"]:
            checks += kcapi_judge.cavs_checks(recs, spec["cavs_meta"])
    checks += boot_judge.produced(checks, spec)
    for c in checks:
        c.boot = c.boot or name
    return checks


def run_boot(spec, accel, bzimage, init, src, outdir, arch="x86_64", keep=None):
    """Boot one plan entry; (info for report.json, [Check]).  keep, the
    run's start: a boot kept with the same key is taken instead of booted,
    and a boot that passes is kept (kept_boots.py)."""
    name = spec["name"]
    bdir = os.path.join(outdir, "boots", name)
    os.makedirs(bdir, exist_ok=True)
    data = dict(spec.get("files", {}))
    if spec.get("modules"):
        data.update(module_files(os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.dirname(bzimage)))), bdir))
    rd = initramfs.write(os.path.join(bdir, "initramfs.cpio"), init, data, src=src)
    append = f"{BASE_APPEND} conform.mode={spec['mode']} {spec['append']}".strip()
    k = b = None
    if keep:
        k = kept_boots.key(bzimage, rd, append, spec["timeout"], spec["expect"], accel, arch)
        b = kept_boots.take(outdir, name, k, bdir)
    if b:
        kept_boots.say_kept(b)
    else:
        say(f"boot {name}: {spec['title']} (timeout {spec['timeout']} s, {accel})")
        b = qemu.boot(name, bzimage, rd, append, bdir, spec["timeout"], accel=accel,
                      expect=spec["expect"], arch=arch)
        say(f"boot {name}: {b.outcome} after {b.seconds} s"
            + (f": {b.detail}" if b.detail else ""))
    recs = records.read(b.results)
    info, checks = boot_info(spec, b, recs, accel, append), judge_boot(spec, b, recs, src)
    if getattr(b, "kept_from", None):
        info["kept_from"] = b.kept_from
        for c in checks:
            c.details = dict(c.details, from_run=b.kept_from)
    elif keep and all(c.status != "fail" for c in checks):
        kept_boots.store(outdir, name, k, b, keep)
    elif keep:
        kept_boots.drop(outdir, name)
    return info, checks


def run_plan(plan, jobs, one, prepare, stop=None):
    """Call one(i, spec) for every boot of plan (spec = prepare(plan[i])).

    Boots run side by side, at most jobs at a time (a guest keeps about
    one host CPU busy on average), started in order()'s order.  A "solo"
    boot runs alone, because its timings are data (the main boot's Jitter
    RNG samples feed the book's figures); a "background" one idles and
    takes no slot.  one() stores its own result, so the plan's order is
    kept whatever ends first.  Returns when every boot has ended.  When
    prepare() or one() raises here, stop() is called and every boot
    thread is waited for before the exception goes on."""
    running, background = [], []
    try:
        _schedule(plan, jobs, one, prepare, running, background)
    except BaseException:
        if stop:
            stop()
        for t in running + background:
            t.join()
        raise
    for t in running + background:
        t.join()


# The seconds the debug kernel's boots took in make check on two CPUs (CI
# run of 2026-12-07, the hashed-delta core); every other boot took under
# 15 s there.  order() starts the longest first, so that they share the
# two CPUs instead of the last two ending the run one after the other.
COST = {"debug-main": 181, "debug-drbg": 168, "debug-cavs": 160, "debug-jitter": 74}


def order(plan):
    """The indexes of plan in the order its boots start: the solo ones
    first (the main boot's timings are data), then the background ones
    (they idle, and the run waits for them at its end), then the longest
    first (COST; a boot it does not name is short), in the plan's order
    where they tie."""
    return sorted(range(len(plan)), key=lambda i: (not plan[i].get("solo"),
                                                   not plan[i].get("background"),
                                                   -COST.get(plan[i]["name"], 0)))


def _schedule(plan, jobs, one, prepare, running, background):
    """run_plan()'s loop; running and background are its lists of threads."""
    for i in order(plan):
        spec = prepare(plan[i])
        if spec.get("background"):
            t = threading.Thread(target=one, args=(i, spec), daemon=True)
            t.start()
            background.append(t)
            continue
        solo = spec.get("solo") or jobs <= 1
        while running and (solo or len(running) >= jobs):
            running[0].join(0.05)
            running[:] = [t for t in running if t.is_alive()]
        if solo:
            one(i, spec)
            continue
        t = threading.Thread(target=one, args=(i, spec), daemon=True)
        t.start()
        running.append(t)


def images(version, variants):
    out = {}
    for v in variants:
        b = os.path.join(kcache.tree_dir(version), f"build-{v}")
        img = os.path.join(b, "arch/x86/boot/bzImage")
        if not os.path.exists(os.path.join(b, "build.ok")) or not os.path.exists(img):
            config.die("conform", f"no finished {v} kernel in {b}: run 'make kernel'"
                       + (f" and 'python3 -m harness kernel build {v}'" if v != "test" else ""))
        out[v] = img
    return out


def harness_error(spec, accel, why=None):
    name = spec["name"]
    return ({"name": name, "title": spec["title"], "outcome": "harness-error",
             "accel": accel, "expect": spec["expect"], "seconds": None,
             "variant": spec.get("variant", "test")},
            [Check.failed(f"boot.{name}", f"boot {name} ran", "the harness failed "
                          "while running this boot" + (f": {why}" if why else
                                                       " (see the traceback above)"),
                          boot=name)])


def boot_all(plan, args, imgs, inits, src, cavs_meta=None):
    """Run the plan; [(info, [Check])] in plan order.  Whatever fails in
    one boot (an exception, a one-line error) is that boot's harness
    error; whatever fails in the scheduler ends the boots still running
    and leaves the rest as harness errors: never an exception, never a
    guest left running."""
    results, errors = [None] * len(plan), {}

    def one(i, spec):
        try:
            variant = spec.get("variant", "test")
            arch = kbuild.arch_of(variant)
            info, cs = run_boot(spec, args.accel, imgs[variant], inits[arch], src, args.out,
                                arch=arch, keep=getattr(args, "keep_from", None))
            info["variant"] = variant
            prefix = spec.get("prefix", variant if variant != "test" else None)
            if prefix:
                for c in cs:
                    if not c.id.startswith("boot."):
                        c.id = f"{prefix}.{c.id}"
            results[i] = (info, cs)
        except (Exception, SystemExit) as e:
            errors[i] = (str(e) if isinstance(e, SystemExit)
                         else traceback.format_exception_only(e)[-1].strip())
            traceback.print_exc()
            say(f"boot {spec['name']}: the harness failed: {errors[i]}")

    def prepare(spec):
        if spec.get("cavs"):
            return dict(spec, files={**spec.get("files", {}),
                                     "data/cavs.pack": cavs_meta["pack"]},
                        cavs_meta=cavs_meta)
        return spec

    qemu.reopen()
    try:
        run_plan(plan, args.jobs, one, prepare, stop=lambda: qemu.stop_all(close=True))
    except (Exception, SystemExit) as e:
        traceback.print_exc()
        say(f"the boot scheduler failed ({e!r}): every guest stopped")
    finally:
        qemu.stop_all(close=True)
    # Every boot thread has been joined: the next run of this process may
    # boot again (a closed gate left behind made its boots qemu errors).
    qemu.reopen()
    return [r if r is not None else harness_error(plan[i], args.accel, errors.get(i))
            for i, r in enumerate(results)]


def figure_checks(boots, args, started, release):
    """The book's figures from this run (judges/figures.py): the Jitter
    RNG's time stamps recorded in the main boot, replayed by the host
    model, and the host's own runs.  Runs after every boot, so that no
    host measurement shares the CPUs with QEMU."""
    main = next((b for b in boots if b["name"] == "main"), None)
    if not main:
        return []
    say("figures: replaying the Jitter RNG's recorded read, host runs")
    recs = records.read(config.top(main["results_log"]))
    run = {"started": started, "kernel": release, "accel": args.accel, "boot": "main",
           "source": "jitterentropy_rng/record in the test kernel, boot main; "
                     "host runs of the tangled core (conformance/jitter)"}
    checks, written = figures.figure_checks_and_files(recs, run, args.out,
                                                      config.build("figures"))
    for fid, path in written.items():
        say(f"figures: {fid}: {config.display(path)}")
    return checks


def tag_requirements(checks, conf):
    req_map = reqsmod.by_test(reqsmod.read(conf.sources))
    for c in checks:
        c.requirements = reqsmod.for_check(req_map, reqsmod.split_prefix(c.id)[1])
    for p in validate(checks):
        checks.append(Check.failed(f"harness.report.{len(checks)}", "a check record "
                                   "of this run is well formed",
                                   f"malformed check record: {p}"))


def kernel_facts(version, conf, build):
    with open(os.path.join(build, "include/config/kernel.release")) as f:
        release = f.read().strip()
    built = files.read_json(os.path.join(build, "build.ok")) or {}
    return {"release": release, "base": f"linux-source-6.1 {version}",
            "pinned_base": conf.base_version, "series_head": built.get("head"),
            "config_sha256": files.sha256_file(os.path.join(build, ".config")),
            "build_dir": build}


def report(args, started, t0, boots, checks, **facts):
    """Write report.{json,md,xml}; print the failures and the summary."""
    rep = {"schema": 1, "id": new_id(started), "started": started,
           "duration_s": round(time.time() - t0, 1),
           "host": {"nproc": os.cpu_count(), "machine": platform.machine(),
                    "cpu_model": proc.cpu_model(), "python": platform.python_version()},
           "packages": {p: proc.dpkg_version(p) for p in PACKAGES},
           "tangled": files.tree_hashes(config.top("tangled"), config.TOP),
           "inputs": facts.pop("inputs", None) or evidence.digests(),
           "boots": boots, "checks": checks}
    rep.update(facts)
    os.makedirs(args.out, exist_ok=True)
    write_all(rep, args.out)
    s = rep["summary"]
    for c in rep["checks"]:
        if c["status"] == "fail":
            say(f"FAIL {c['id']}: {c.get('reason', '')[:300]}")
    say(f"{s['passed']} passed, {s['failed']} failed, {s['skipped']} skipped "
        f"({len(boots)} boot(s), {rep['duration_s']} s); report: "
        f"{config.display(args.out)}/report.{{json,md,xml}}")
    return 1 if s["failed"] else 0


def after_boots(results, args, variants, version, conf, started):
    """The checks of the whole run, once every boot has ended: the seed
    table, the figures, the hardening summary; (checks, report facts).  A
    judge that fails is a failed check, and the report is still written."""
    boots = [info for info, _ in results]
    checks = [c for _, cs in results for c in cs]
    facts = {"drbg_seed_lengths": None}
    try:
        console = os.path.join(args.out, "boots", "drbg", "console.log")
        if any(b["name"] == "drbg" for b in boots) and os.path.exists(console):
            facts["drbg_seed_lengths"], seed_check = seeds.seed_lengths([console])
            checks.append(seed_check)
        build = os.path.join(kcache.tree_dir(version), f"build-{variants[0]}")
        facts["kernel"] = kernel_facts(version, conf, build)
        checks += figure_checks(boots, args, started, facts["kernel"]["release"])
        facts["hardening"] = h = hardening.summary(checks)
        checks.append(hardening.check(h, "debug" in variants))
        tag_requirements(checks, conf)
    except (Exception, SystemExit) as e:
        traceback.print_exc()
        checks.append(Check.failed("harness.judges", "every judge of the run finished",
                                   f"a judge failed: {e!r}"[:500]))
    return checks, facts


def conform(args):
    t0 = time.time()
    # The last run's report goes first: a run that stops before its own
    # (no kernel, a cache that cannot be made) leaves none, not a stale one.
    remove_all(args.out)
    started = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    digests = evidence.digests()
    conf = confmod.load()
    version, src = kcache.ensure_pristine(conf=conf)
    variants = [v for v in args.variants.split(",") if v]
    os.makedirs(args.out, exist_ok=True)
    plan, meta, problems, input_checks = inputs.check(args.only, variants, args.out)
    if problems:
        for p in problems:
            config.warn("conform", p)
        say(f"{len(problems)} problem(s) with what this run was asked to do: "
            "no guest booted")
        return report(args, started, t0, [], input_checks, inputs=digests)
    args.keep_from = started if getattr(args, "keep", False) and kept_boots.wanted() else None
    imgs = images(version, variants)
    inits = {a: guest.build(arch=a) for a in {kbuild.arch_of(v) for v in variants}}
    results = boot_all(plan, args, imgs, inits, src, meta)
    checks, facts = after_boots(results, args, variants, version, conf, started)
    return report(args, started, t0, [info for info, _ in results],
                  checks + input_checks[-1:], inputs=digests, **facts)


def add_arguments(p):
    p.add_argument("--accel", default=os.environ.get("ACCEL") or "tcg",
                   choices=["tcg", "kvm"])
    p.add_argument("--only", default=os.environ.get("BOOTS", ""),
                   help="boot only these plan entries (comma-separated names)")
    p.add_argument("--out", default=config.build("conformance"))
    p.add_argument("--jobs", type=int, default=int(os.environ.get("CONFORM_JOBS") or 2),
                   help="guests booted side by side (default 2; 1 boots them one "
                        "after another)")
    p.add_argument("--keep", action="store_true",
                   help="take a boot kept from an earlier run with the same key instead "
                        "of booting, and keep each boot that passes (kept_boots.py; "
                        "FRESH=conform boots everything)")
    p.add_argument("--variants", default=os.environ.get("VARIANTS") or "test",
                   help="kernel variants to boot, e.g. test,debug")


def register(sub):
    p = sub.add_parser("conform", help="boot the built kernel(s) and write the report")
    add_arguments(p)
    p.set_defaults(func=conform)
