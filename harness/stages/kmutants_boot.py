# SPDX-License-Identifier: GPL-2.0-only
"""The judges of make mutants (kmutants_run.py): the covering boots of each
part, cheapest first, and the host judge of a file the host tests compile
(kmutants_host.py), run on one mutant until one of them kills it; and
the baseline (mutant=0), which must pass and sets each boot's timeout.
"""

import os
import time

from ..base import config, records
from ..base.checks import Check
from ..judges import figures
from . import conform, kmutants
from . import kmutants_host as host
from . import kmutants_report as report
from .plan import BOOTS as PLAN


def say(msg):
    config.say("mutants", msg)


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


def spec_of(name, n, timeout=None):
    spec = dict(next(b for b in PLAN + OWN_BOOTS if b["name"] == name))
    spec["append"] = f"{spec['append']} mutant={n}".strip()
    spec.pop("solo", None)
    if timeout:
        spec["timeout"] = timeout
    return spec


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
