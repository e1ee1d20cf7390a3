# SPDX-License-Identifier: GPL-2.0-only
"""The verb kconfig-matrix: the series' options at y, m and n, each
combination Kconfig allows built and linked, as the kernel test robot
would (issue 37, item 2).

  python3 -m harness kconfig-matrix [--short] [--limit N] [--seeds N]
                                    [--json OUT]

The options are the DRBG, the Jitter RNG, KUnit, debugfs and every
option a patch of the series adds (harness/judges/kconfig_space.py reads
them and their rules from tangled/patches).  Each combination is set on
a small base, the kernel's tinyconfig with conformance/kconfig/matrix.config,
in one build directory, $KCACHE/linux-<version>/build-matrix/, one after
the other: kbuild rebuilds only what a changed option touches (7 to 12 s
a combination on two CPUs, after a first cold build), and the order
changes KUnit and debugfs least often, because a change of either
rebuilds much of the kernel.  --short's combinations differ in those
two, so each has a build directory of its own, build-matrix-<name>, and
a warm make check rebuilds nothing (in one directory, CI run ci31 took
177 s and 219 s for its second and third combinations).

  1. olddefconfig; a combination whose values Kconfig does not keep is
     "refused" (the rules let it through; Kconfig has the last word);
  2. make vmlinux modules: vmlinux links (no built-in code may call a
     module's symbol) and modpost finds every symbol a module uses.

Full run (the record `make evidence` keeps): every combination the rules
allow, a seeded sample of those they drop asked of Kconfig (each must be
refused, or the rules drop something Kconfig allows), and --seeds
randconfig builds: `make randconfig` with every symbol of the base
pinned (KCONFIG_ALLCONFIG) except the matrix's, KCONFIG_SEED printed.
--short (make check): the five combinations of SHORT and one randconfig
whose seed is KCONFIG_SEED from the environment, or one derived from the
series (printed, so that a failure can be built again).

Writes build/kconfig-matrix/report.json; checks kconfig.build.<name> per
combination of --short (kconfig.refuse.<name> for the one Kconfig must
refuse), kconfig.matrix and kconfig.rules of a full run,
kconfig.randconfig.<seed>.
"""

import datetime
import hashlib
import os
import random
import re
import subprocess
import time

from ..base import config, evidence, files, kbuild, kcache, proc
from ..base.checks import Check
from ..base.report import as_dicts
from ..judges import kconfig_space as ks

OUT = config.build("kconfig-matrix")
BASE = "conformance/kconfig/matrix.config"
PATCHES = "tangled/patches"
DROPPED_SAMPLE = 24
# A line of a .config that sets an option (to a value, or to n).
SETS = re.compile(r"^(# )?(CONFIG_\w+)[= ]")
# --short: a shape each of the test kernel, Debian's modules, the Jitter
# RNG a module under built-in KUnit (its KUnit test a module), and all
# off.  "refuse" is the shape of the Kconfig defect of issue 37: the test
# built in while the Jitter RNG is a module, which vmlinux cannot link;
# Kconfig must refuse it (were it kept, it is built, and the check fails).
SHORT = {
    "test-kernel": {"KUNIT": "y", "DEBUG_FS": "y", "CRYPTO_DRBG_MENU": "y",
                    "CRYPTO_JITTERENTROPY": "y", "*": "y"},
    "debian-modules": {"KUNIT": "m", "DEBUG_FS": "y", "CRYPTO_DRBG_MENU": "m",
                       "CRYPTO_JITTERENTROPY": "m", "CRYPTO_JITTERENTROPY_TESTHOOKS": "y",
                       "CRYPTO_JITTERENTROPY_TESTINTERFACE": "y",
                       "CRYPTO_JITTERENTROPY_KUNIT_TEST": "m", "*": "n"},
    "jitter-module-kunit-builtin": {"KUNIT": "y", "DEBUG_FS": "n",
                                    "CRYPTO_DRBG_MENU": "m", "CRYPTO_JITTERENTROPY": "m",
                                    "RANDOM_BLOCKING_KUNIT_TEST": "y",
                                    "CRYPTO_JITTERENTROPY_TESTHOOKS": "y",
                                    "CRYPTO_JITTERENTROPY_KUNIT_TEST": "m", "*": "n"},
    "jitter-module-kunit-test-builtin": {"KUNIT": "y", "DEBUG_FS": "n",
                                         "CRYPTO_DRBG_MENU": "n", "CRYPTO_JITTERENTROPY": "m",
                                         "CRYPTO_JITTERENTROPY_TESTHOOKS": "y",
                                         "CRYPTO_JITTERENTROPY_KUNIT_TEST": "y", "*": "n",
                                         "refuse": True},
    "all-off": {"*": "n"},
}


def say(msg):
    config.say("kconfig-matrix", msg)


def expand(spec, opts):
    """A SHORT entry as a full combination ("*" for every other option)."""
    return {n: spec.get(n, spec["*"]) for n, _, _ in opts}


def refused_check(rec, title):
    """A combination Kconfig must refuse (SHORT's "refuse")."""
    cid = f"kconfig.refuse.{rec['name']}"
    kw = dict(origin="host", details={"values": rec["values"]})
    if rec.get("refused"):
        return Check.passed(cid, title, **kw, counts={"not_kept": len(rec["refused"])})
    what = ("it builds and links" if rec.get("built") else
            f"and it does not build: {rec.get('error')}")
    return Check.failed(cid, title, f"Kconfig keeps it, {what}", **kw)


def line_of(name, value):
    return f"# CONFIG_{name} is not set" if value == "n" else f"CONFIG_{name}={value}"


class Tree:
    """The build directory of the matrix and its base .config."""

    def __init__(self, src, build, base=None):
        self.src, self.build = src, build
        self.log = os.path.join(build, "matrix.log")
        self.base = base or os.path.join(build, "base.config")
        kcache.make_dirs(build)
        open(self.log, "w").close()

    def twin(self, name):
        """A build directory of its own for one combination, on this base
        (--short: each combination keeps its objects, so that a warm run
        with nothing changed rebuilds nothing)."""
        return Tree(self.src, f"{self.build}-{name}", self.base)

    def make(self, *args, env=None):
        """make -C src O=build args; (exit status, the error lines)."""
        cmd = ["make", "-C", self.src, f"O={self.build}", "ARCH=x86_64",
               f"-j{os.cpu_count() or 2}"] + list(args)
        with open(self.log, "a") as lf:
            lf.write(f"\n### {' '.join(args)}\n")
            lf.flush()
            r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, env=dict(os.environ, **(env or {})))
            lf.write(r.stdout)
        lines = r.stdout.splitlines()
        errs = [x for x in lines if re.search(r"error:|undefined reference|ERROR:|"
                                              r"\*\*\*", x)]
        return r.returncode, errs or lines[-3:]

    def prepare_base(self):
        """tinyconfig plus matrix.config, kept whole (checked with the DRBG
        on, so that its cores count too); the base's symbols, all of them."""
        kcache.make_dirs(self.build)
        rc, errs = self.make("tinyconfig")
        if rc:
            config.die("kconfig-matrix", f"make tinyconfig failed: {errs[0][:200]}")
        want = kbuild.fragment_lines([BASE])
        with open(os.path.join(self.build, ".config"), "a") as f:
            for k, v in list(want.items()) + [("CONFIG_CRYPTO_DRBG_MENU", "y")]:
                f.write(line_of(k[len("CONFIG_"):], v) + "\n")
        rc, errs = self.make("olddefconfig")
        have = kbuild.read_config(os.path.join(self.build, ".config"))
        lost = [f"{k}={v} (got {have.get(k, 'n')})" for k, v in want.items()
                if have.get(k, "n") != v]
        if rc or lost:
            config.die("kconfig-matrix", f"{BASE}: Kconfig did not keep "
                       f"{'; '.join(lost) or errs[0][:200]}")
        os.replace(os.path.join(self.build, ".config"), self.base)

    def configure(self, values):
        """Write the base with values and run olddefconfig; the options
        whose value Kconfig did not keep, as 'NAME=want (got have)'."""
        with open(os.path.join(self.build, ".config"), "w") as f:
            f.writelines(self.base_without(values) +
                         [line_of(n, v) + "\n" for n, v in values.items()])
        rc, errs = self.make("olddefconfig")
        if rc:
            return [f"olddefconfig failed: {errs[0][:200]}"]
        have = kbuild.read_config(os.path.join(self.build, ".config"))
        return [f"{n}={v} (got {have.get('CONFIG_' + n, 'n')})" for n, v in values.items()
                if have.get(f"CONFIG_{n}", "n") != v]

    def base_without(self, names):
        """The base .config's lines, less those that set an option of names
        (given without the CONFIG_ prefix)."""
        drop = {f"CONFIG_{n}" for n in names}
        with open(self.base) as f:
            return [x for x in f if (m := SETS.match(x)) is None or m.group(2) not in drop]

    def build_all(self):
        """make vmlinux modules; (seconds, None) or (seconds, first error)."""
        t0 = time.time()
        rc, errs = self.make("vmlinux", "modules")
        return round(time.time() - t0, 1), (errs[0][:300] if rc else None)


def one(tree, name, values):
    """Configure and build one combination; its record."""
    refused = tree.configure(values)
    rec = {"name": name, "values": values}
    if refused:
        rec.update(refused=refused)
        say(f"{name}: refused by Kconfig: {'; '.join(refused[:3])}")
        return rec
    secs, err = tree.build_all()
    rec.update(seconds=secs, built=err is None, error=err)
    say(f"{name}: {'built and linked' if err is None else 'FAILED: ' + err} ({secs} s)")
    return rec


def randconfig(tree, seed, opts):
    """make randconfig with every base symbol pinned but the matrix's; the
    values it chose, and the build's record."""
    pinned = os.path.join(tree.build, "pinned.config")
    with open(pinned, "w") as out:
        out.writelines(tree.base_without([n for n, _, _ in opts]))
    rc, errs = tree.make("randconfig", env={"KCONFIG_ALLCONFIG": pinned,
                                            "KCONFIG_SEED": seed})
    name = f"randconfig-{seed}"
    if rc:
        return {"name": name, "seed": seed, "built": False,
                "error": f"make randconfig failed: {errs[0][:200]}"}
    have = kbuild.read_config(os.path.join(tree.build, ".config"))
    values = {n: have.get(f"CONFIG_{n}", "n") for n, _, _ in opts}
    secs, err = tree.build_all()
    say(f"{name} (KCONFIG_SEED={seed}): {ks.label(values, opts)}: "
        f"{'built and linked' if err is None else 'FAILED: ' + err} ({secs} s)")
    return {"name": name, "seed": seed, "values": values, "seconds": secs,
            "built": err is None, "error": err}


def default_seed():
    """KCONFIG_SEED from the environment, or one derived from the series."""
    env = os.environ.get("KCONFIG_SEED")
    if env:
        return env
    h = hashlib.sha256()
    for p in sorted(os.listdir(config.top(PATCHES))):
        h.update(files.read_text(config.top(PATCHES, p)).encode())
    return "0x" + h.hexdigest()[:8]


def build_check(rec, title):
    cid = f"kconfig.build.{rec['name']}"
    if rec.get("refused"):
        return Check.failed(cid, title, "Kconfig refused it: " + "; ".join(rec["refused"]),
                            origin="host", details={"values": rec["values"]})
    kw = dict(origin="host", counts={"seconds": rec["seconds"]},
              details={"values": rec["values"]})
    if rec["built"]:
        return Check.passed(cid, title, **kw)
    return Check.failed(cid, title, rec["error"], **kw)


def full_checks(recs, sample, opts):
    built = [r for r in recs if r.get("built")]
    failed = [r for r in recs if "built" in r and not r["built"]]
    refused = [r for r in recs if r.get("refused")]
    out = [Check.judge(
        "kconfig.matrix", f"every combination of the {len(opts)} options Kconfig allows "
        "builds and links (vmlinux, modules)",
        [f"{r['name']}: {r['error']}" for r in failed], shown=5, origin="host",
        counts={"combinations": len(recs), "built": len(built), "failed": len(failed),
                "refused_by_kconfig": len(refused)})]
    wrong = [r for r in sample if not r.get("refused")]
    out.append(Check.judge(
        "kconfig.rules", "the rules that narrow the matrix drop nothing Kconfig allows "
        f"(a seeded sample of {len(sample)} dropped combinations asked of Kconfig)",
        [f"{r['name']}: Kconfig keeps it, the rules dropped it ({r['rule']})"
         for r in wrong], origin="host",
        counts={"asked": len(sample), "kept_by_kconfig": len(wrong)}))
    return out


def run(args):
    t0 = time.time()
    started = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    opts = ks.options(ks.read_patches(config.top(PATCHES)))
    kept, dropped = ks.space(opts)
    src = kcache.apply_series(config.top(PATCHES))
    version, _ = kcache.ensure_pristine()
    tree = Tree(src, os.path.join(kcache.tree_dir(version), "build-matrix"))
    say(f"{len(opts)} options ({', '.join(n for n, _, _ in opts)}): "
        f"{len(kept)} combinations allowed by their rules, {len(dropped)} dropped")
    tree.prepare_base()
    checks, recs, sample = [], [], []
    seeds = [default_seed()] if args.short else [
        f"0x{random.Random(default_seed()).getrandbits(32) ^ i:08x}"
        for i in range(args.seeds)]
    if args.short:
        for name, spec in SHORT.items():
            rec = one(tree.twin(name), name, expand(spec, opts))
            recs.append(rec)
            lab = ks.label(rec["values"], opts)
            checks.append(refused_check(rec, f"{name}: {lab} is refused by Kconfig")
                          if spec.get("refuse") else
                          build_check(rec, f"{name}: {lab} builds and links"))
    else:
        todo = kept[:args.limit] if args.limit else kept
        for i, values in enumerate(todo):
            recs.append(one(tree, f"{i + 1:03d}-{ks.label(values, opts)}", values))
        rnd = random.Random(default_seed())
        for values, why in rnd.sample(dropped, min(DROPPED_SAMPLE, len(dropped))):
            r = {"name": ks.label(values, opts), "values": values,
                 "rule": f"{why[0]}: {why[1]}", "refused": tree.configure(values)}
            sample.append(r)
        checks += full_checks(recs, sample, opts)
    rand = [randconfig(tree.twin("randconfig") if args.short else tree, s, opts)
            for s in seeds]
    for r in rand:
        title = f"randconfig of the series' options, KCONFIG_SEED={r['seed']}, builds"
        checks.append(Check.judge(f"kconfig.randconfig.{r['seed']}", title,
                                  [r["error"]] if not r["built"] else [], origin="host",
                                  details={"values": r.get("values")}))
    mode = "short" if args.short else "partial" if args.limit else "full"
    rep = {"schema": 1, "mode": mode, "started": started, "kernel": version,
           "host": {"nproc": os.cpu_count(), "cpu_model": proc.cpu_model()},
           "inputs": {"kconfig": evidence.digest(evidence.RECORDS["kconfig"]["inputs"])},
           "options": [{"name": n, "type": t, "rules": [e for e, _ in rules]}
                       for n, t, rules in opts],
           "allowed_by_rules": len(kept), "dropped_by_rules": len(dropped),
           "combinations": recs, "dropped_sample": sample, "randconfig": rand,
           "seconds": round(time.time() - t0, 1), "checks": as_dicts(checks)}
    files.write_json(os.path.join(OUT, "report.json"), rep)
    if args.json:
        files.write_json(args.json, as_dicts(checks))
    bad = [c for c in checks if c.status == "fail"]
    for c in bad:
        say(f"FAIL {c.id}: {c.reason}")
    say(f"{len(checks) - len(bad)} passed, {len(bad)} failed in {rep['seconds']} s; "
        f"{config.display(OUT)}/report.json")
    return 1 if bad else 0


def register(sub):
    p = sub.add_parser("kconfig-matrix", help="the series' options at y, m and n: every "
                       "combination Kconfig allows built and linked, and randconfig")
    p.add_argument("--short", action="store_true", help="five combinations and one "
                   "randconfig (make check)")
    p.add_argument("--limit", type=int, default=0, help="build only the first N "
                   "combinations of the full matrix")
    p.add_argument("--seeds", type=int, default=8, help="randconfig builds of a full run")
    p.add_argument("--json", metavar="OUT", help="also write the checks to OUT")
    p.set_defaults(func=run)
