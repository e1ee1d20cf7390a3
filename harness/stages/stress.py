# SPDX-License-Identifier: GPL-2.0-only
"""make stress: the debug kernel at large figures (issue 20), outside
make check.

The boots are plan.STRESS_BOOTS, whose figures are this verb's options
put on the kernel command line (--calls, --seed, --seconds: the seeded
hostile calls of conformance/guest/stress.c; --race-rounds: the DRBG
life-cycle race's rounds per thread; --module-rounds: the DRBG and Jitter
RNG modules removed and loaded again, on the modules kernel, a debug
kernel too), and plan.STRESS_AGAIN, the FIPS and
Jitter RNG failure boots of the test kernel's plan, again on the debug
kernel.  Each boot is judged as make conform judges it (kernel log,
kmemleak, KUnit, the guest's checks); judges/stress.py adds what each
figure reached.  Writes build/stress/report.{json,md,xml}, whose "stress"
section the book's hardening appendix reads.  Exits 1 when a check fails.
"""

import datetime
import os
import time

from ..base import conf as confmod
from ..base import config, evidence, files, guest, kcache
from ..base.checks import Check
from ..base.report import write_all
from ..judges import stress as judge
from . import conform, plan

DEFAULTS = {"calls": 100000, "seed": 20, "seconds": 3600, "race_rounds": 5000,
            "module_rounds": 1000}


def say(msg):
    config.say("stress", msg)


def _again(spec):
    """A boot of the test kernel's plan, on the debug kernel."""
    name = f"stress-{spec['name']}"
    extra = " conform.kmemleak=1" if spec["expect"] == "end" else ""
    return dict(spec, name=name, prefix=name, variant="debug",
                timeout=max(1200, 4 * spec["timeout"]),
                append=f"{spec['append']} watchdog_thresh=60{extra}",
                title=f"debug kernel: {spec['title']}")


def stress_plan(figures, only=()):
    """The stress boots with figures in their command lines, in order; only
    (names) picks some.  An unknown name is a one-line error."""
    out = []
    for spec in plan.STRESS_BOOTS:
        s = dict(spec, prefix=spec["name"], append=spec["append"].format(**figures))
        key, per = s.pop("timeout_per")
        s["timeout"] = int(spec["timeout"] + per * figures[key])
        out.append(s)
    by_name = {b["name"]: b for b in plan.BOOTS}
    out += [_again(by_name[n]) for n in plan.STRESS_AGAIN]
    if only:
        unknown = sorted(set(only) - {s["name"] for s in out})
        if unknown:
            config.die("stress", f"--only names no stress boot {', '.join(unknown)}: "
                       f"expected some of {', '.join(s['name'] for s in out)}")
        out = [s for s in out if s["name"] in only]
    return out


def figures_of(args):
    """The figures asked for; a negative or zero one is a one-line error."""
    fig = {k: getattr(args, k) for k in DEFAULTS}
    bad = [k for k in ("calls", "seconds", "race_rounds", "module_rounds") if fig[k] <= 0]
    if bad or fig["seed"] < 0:
        config.die("stress", f"--{(bad or ['seed'])[0].replace('_', '-')} must be "
                   "positive")
    return fig


def rejudge(args):
    """--rejudge: the judges of this module again on the boots and checks of
    an earlier run's report (args.out), without booting; the report is
    rewritten.  For a judge fixed after a long run."""
    path = os.path.join(args.out, "report.json")
    rep = files.read_json(path)
    if not rep or "stress" not in rep:
        config.die("stress", f"--rejudge: no stress report {config.display(path)}")
    checks = [Check.from_dict(c) for c in rep["checks"]
              if c["id"] not in ("stress.figures", "stress.targets")]
    summary = judge.summary(rep["boots"], checks, rep["stress"]["figures"])
    rep.update(stress=summary, checks=checks + [judge.check(summary),
                                               judge.targets(summary)],
               rejudged=datetime.datetime.now(datetime.timezone.utc).isoformat(
                   timespec="seconds"))
    write_all(rep, args.out)
    s = rep["summary"]
    say(f"rejudged {config.display(path)}: {s['passed']} passed, {s['failed']} failed, "
        f"{s['skipped']} skipped")
    return 1 if s["failed"] else 0


def stress(args):
    if args.rejudge:
        return rejudge(args)
    t0 = time.time()
    started = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    inputs = evidence.digests()
    fig = figures_of(args)
    boots = stress_plan(fig, [n for n in args.only.split(",") if n])
    conf = confmod.load()
    version, src = kcache.ensure_pristine(conf=conf)
    os.makedirs(args.out, exist_ok=True)
    variants = sorted({b["variant"] for b in boots})
    imgs = conform.images(version, variants)
    inits = {"x86_64": guest.build()}
    say(f"{len(boots)} boot(s) on the {' and '.join(variants)} kernel(s); figures {fig}")
    results = conform.boot_all(boots, args, imgs, inits, src)
    infos = [info for info, _ in results]
    checks = [c for _, cs in results for c in cs]
    build = os.path.join(kcache.tree_dir(version), "build-debug")
    summary = judge.summary(infos, checks, fig)
    checks += [judge.check(summary), judge.targets(summary)]
    say(f"calls made {summary['calls']}, race life cycles {summary['race_cycles']}, "
        f"kernel-log reports {summary['kernel_log_reports']}, unexplained kmemleak "
        f"reports {summary['kmemleak_unexplained']}")
    return conform.report(args, started, t0, infos, checks, stress=summary, inputs=inputs,
                          kernel=conform.kernel_facts(version, conf, build))


def register(sub):
    p = sub.add_parser("stress", help="the debug kernel at large figures: seeded "
                       "hostile calls, the DRBG life-cycle race, the FIPS and Jitter "
                       "RNG failure boots (build/stress/report.json)")
    p.add_argument("--calls", type=int, default=DEFAULTS["calls"],
                   help="seeded hostile calls (default %(default)s)")
    p.add_argument("--seed", type=int, default=DEFAULTS["seed"],
                   help="the seed of the calls' generator (default %(default)s)")
    p.add_argument("--seconds", type=int, default=DEFAULTS["seconds"],
                   help="the calls' time bound in the guest (default %(default)s)")
    p.add_argument("--race-rounds", dest="race_rounds", type=int,
                   default=DEFAULTS["race_rounds"],
                   help="rounds of each of the race's two threads (default "
                        "%(default)s: 10,000 life cycles)")
    p.add_argument("--module-rounds", dest="module_rounds", type=int,
                   default=DEFAULTS["module_rounds"],
                   help="removals and loads of the DRBG and Jitter RNG modules "
                        "(modules kernel; default %(default)s)")
    p.add_argument("--only", default=os.environ.get("BOOTS", ""),
                   help="run only these stress boots (comma-separated names)")
    p.add_argument("--out", default=config.build("stress"))
    p.add_argument("--rejudge", action="store_true",
                   help="judge the boots of the report in --out again, booting "
                        "nothing (after a fix to the judge)")
    p.add_argument("--accel", default=os.environ.get("ACCEL") or "tcg",
                   choices=["tcg", "kvm"])
    p.add_argument("--jobs", type=int, default=int(os.environ.get("CONFORM_JOBS") or 2),
                   help="guests booted side by side (default 2)")
    p.set_defaults(func=stress)
