#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The verb prodconfig: Debian's production configuration with the series.

  prodconfig check [--json OUT]   olddefconfig of Debian's amd64 config on
                                  the tree with the series applied (it is
                                  applied first); every test option of the
                                  book must exist in the tree and be off,
                                  also when the same config is given
                                  KUNIT=y and KUNIT_ALL_TESTS=y
  prodconfig build [--json OUT]   also compile the files the series
                                  touches with that configuration, and
                                  prove with nm that the objects carry no
                                  test code: no test symbol, no reference
                                  to debugfs, no debugfs name of the
                                  series' test interfaces
  prodconfig i386                 compile the files the series touches,
                                  and its tests, for 32-bit x86 (the
                                  test fragment without 64BIT)

The configuration is config.amd64_none_amd64.xz of Debian's
linux-config-6.1 package (the same version as the pinned linux-source-6.1).
It is resolved in a scratch build directory of the kernel cache, so the
test kernel's build directory is not touched.
"""

import lzma
import os
import re
import subprocess

from ..base import conf as confmod
from ..base import config, files, kbuild, kcache
from ..base.checks import Check
from ..base.report import as_dicts

DEBIAN_CONFIG = "/usr/src/linux-config-6.1/config.amd64_none_amd64.xz"
# Every option the series adds for testing, and the stock CAVP interface
# of algif_rng, which a production kernel has no business with either.
TEST_OPTIONS = [
    "CONFIG_RANDOM_BLOCKING_KUNIT_TEST",
    "CONFIG_CRYPTO_DRBG_TEST_HOOKS",
    "CONFIG_CRYPTO_DRBG_KUNIT_TEST",
    "CONFIG_CRYPTO_DRBG_CAVP_DEBUGFS",
    "CONFIG_CRYPTO_JITTERENTROPY_TESTHOOKS",
    "CONFIG_CRYPTO_JITTERENTROPY_TESTINTERFACE",
    "CONFIG_CRYPTO_JITTERENTROPY_KUNIT_TEST",
    "CONFIG_CRYPTO_USER_API_RNG_CAVP",
]
# What the production kernel must still have: the DRBG and the Jitter RNG
# (as modules in Debian), FIPS mode available, crypto self-tests on.
REPORTED = ["CONFIG_CRYPTO_DRBG", "CONFIG_CRYPTO_DRBG_HASH", "CONFIG_CRYPTO_DRBG_CTR",
            "CONFIG_CRYPTO_JITTERENTROPY", "CONFIG_CRYPTO_FIPS",
            "CONFIG_CRYPTO_MANAGER_DISABLE_TESTS", "CONFIG_KUNIT", "CONFIG_DEBUG_FS"]


# What a test interface of the series leaves in an object: its symbols
# (the DRBG's hooks and helpers, KUnit, the Jitter RNG's test hooks and its
# raw noise test interface, the debugfs test files' functions), and the
# names of its debugfs files.
TEST_SYMBOL = re.compile(r"kunit|testhook|test_hook|^drbg_test_|^drbg_cavp|"
                         r"^drbg_trace|^blk_(iso|lat|sync|req|gate|probe)|"
                         r"^jent_testing")
DEBUGFS_NAMES = [b"drbg_cavp", b"random_blocking", b"long_wq_latency",
                 b"jitterentropy_testing"]
PROD_OBJECTS = ["drivers/char/random.o", "crypto/drbg.o", "crypto/jitterentropy.o",
                "crypto/jitterentropy-kcapi.o"]


def defined_symbols(src, names):
    """The CONFIG_ names of names that some Kconfig file of the tree src
    defines ("config X" or "menuconfig X")."""
    want = {n[len("CONFIG_"):]: n for n in names}
    rx = re.compile(r"^\s*(?:menu)?config\s+(\w+)\s*$", re.M)
    found = set()
    for d, dirs, fs in os.walk(src):
        dirs[:] = [x for x in dirs if not x.startswith(".")]
        for f in fs:
            if f.startswith("Kconfig"):
                with open(os.path.join(d, f), errors="replace") as fh:
                    found.update(want[m] for m in rx.findall(fh.read()) if m in want)
    return found


def options_check(have, defined):
    """host.prodconfig.test-options-off from the resolved config (have) and
    the options the tree defines: each test option must exist in the tree
    (else "off" proves nothing: the series is not there) and be off."""
    absent = [o for o in TEST_OPTIONS if o not in defined]
    on = [o for o in TEST_OPTIONS if have.get(o, "n") != "n"]
    cid = "host.prodconfig.test-options-off"
    title = "Debian's amd64 production config with the series: every test option off"
    kw = dict(origin="host",
              counts={"test_options_checked": len(TEST_OPTIONS), "on": len(on),
                      "not_in_tree": len(absent)},
              details={"config": DEBIAN_CONFIG,
                       "test_options": {o: have.get(o, "n") for o in TEST_OPTIONS},
                       "production": {o: have.get(o, "n") for o in REPORTED}})
    problems = [f"{o} is defined by no Kconfig of the tree: is the series applied?"
                for o in absent] + [f"{o}={have[o]} in the production config" for o in on]
    return Check.judge(cid, title, problems, **kw)


def resolve(extra=None, name="build-prod"):
    """Debian's config (plus the lines of extra) resolved on the tree with
    the series in a scratch build directory: (src, build, {CONFIG_X: value}).
    The series first: the check is of the tree with the series, whatever
    ran before it (make check runs it before building the kernels)."""
    src = kcache.apply_series(config.top("tangled/patches"))
    version, _ = kcache.ensure_pristine(conf=confmod.load())
    if not os.path.exists(DEBIAN_CONFIG):
        config.die("prodconfig", f"{DEBIAN_CONFIG} missing: run 'make deps' "
                   "(package linux-config-6.1)")
    build = os.path.join(kcache.tree_dir(version), name)
    os.makedirs(build, exist_ok=True)
    with lzma.open(DEBIAN_CONFIG, "rt") as f:
        text = f.read()
    # Debian signs with keys its build system provides; they are not in the
    # source tarball and play no part in what is compiled here.
    text = re.sub(r'^CONFIG_SYSTEM_TRUSTED_KEYS=.*$', 'CONFIG_SYSTEM_TRUSTED_KEYS=""',
                  text, flags=re.M)
    text = re.sub(r'^CONFIG_MODULE_SIG_KEY=.*$', '# CONFIG_MODULE_SIG_KEY is not set',
                  text, flags=re.M)
    for line in extra or []:
        opt = line.split("=")[0]
        text = re.sub(rf'^(# )?{opt}[= ].*$\n?', '', text, flags=re.M) + line + "\n"
    with open(os.path.join(build, ".config"), "w") as f:
        f.write(text)
    kbuild.kmake(src, build, "olddefconfig", log=os.path.join(build, "kconfig.log"))
    return src, build, kbuild.read_config(os.path.join(build, ".config"))


def kunit_all_tests_check():
    """host.prodconfig.kunit-all-tests-off: no test option of the series is
    pulled in by KUNIT_ALL_TESTS (a distribution may build KUnit tests)."""
    _, _, have = resolve(["CONFIG_KUNIT=y", "CONFIG_KUNIT_ALL_TESTS=y"],
                         "build-prod-kunit")
    on = [o for o in TEST_OPTIONS if have.get(o, "n") != "n"]
    cid = "host.prodconfig.kunit-all-tests-off"
    title = ("Debian's config with KUNIT=y and KUNIT_ALL_TESTS=y: every test "
             "option of the series still off")
    kw = dict(origin="host", counts={"on": len(on)},
              details={"test_options": {o: have.get(o, "n") for o in TEST_OPTIONS},
                       "kunit_all_tests": have.get("CONFIG_KUNIT_ALL_TESTS", "n")})
    if have.get("CONFIG_KUNIT_ALL_TESTS") != "y":
        return Check.failed(cid, title, "KUNIT_ALL_TESTS did not survive "
                            "olddefconfig", **kw)
    if on:
        return Check.failed(cid, title, "on through KUNIT_ALL_TESTS: " + ", ".join(on),
                            **kw)
    return Check.passed(cid, title, **kw)


def check(json_out=None):
    src, build, have = resolve()
    c = options_check(have, defined_symbols(src, TEST_OPTIONS))
    print(f"prodconfig: {len(TEST_OPTIONS)} test options checked, "
          f"{c.counts['not_in_tree']} not in the tree, {c.counts['on']} on; production: "
          + ", ".join(f"{k[7:]}={v}" for k, v in c.details["production"].items()))
    if c.status != "pass":
        config.warn("prodconfig", c.reason)
    k = kunit_all_tests_check()
    print(f"prodconfig: with KUNIT_ALL_TESTS=y: {k.status}"
          + (f" ({k.reason})" if k.reason else ""))
    if json_out:
        files.write_json(json_out, as_dicts([c, k]))
    return 0 if c.status == "pass" and k.status == "pass" else 1


def nm_symbols(obj):
    """[(type, name)] of every symbol of an object, defined or not."""
    r = subprocess.run(["nm", obj], capture_output=True, text=True)
    if r.returncode:
        config.die("prodconfig", f"nm {obj}: {r.stderr.strip() or 'failed'}")
    out = []
    for line in r.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 2:
            out.append((parts[-2], parts[-1]))
    return out


def test_code_problems(obj, label=None):
    """What of the series' test code an object carries: test symbols,
    references to debugfs, and the names of the test interfaces' files."""
    label = label or os.path.basename(obj)
    problems = []
    for kind, name in nm_symbols(obj):
        if TEST_SYMBOL.search(name):
            problems.append(f"{label}: test symbol {name} ({kind})")
        elif name.startswith("debugfs_"):
            problems.append(f"{label}: refers to {name}")
    with open(obj, "rb") as f:
        data = f.read()
    problems += [f"{label}: contains the debugfs name {n.decode()}"
                 for n in DEBUGFS_NAMES if c_string_in(n, data)]
    return problems


def c_string_in(name, data):
    """Whether name is in data as a C string of its own: followed by NUL,
    not preceded by a character of a longer name (the debug information
    names files such as random_blocking.h, which is not a debugfs name)."""
    start = 0
    while True:
        i = data.find(name + b"\0", start)
        if i < 0:
            return False
        if i == 0 or not re.match(rb"[A-Za-z0-9_./-]", data[i - 1:i]):
            return True
        start = i + 1


def objects_check(build, objs):
    problems = []
    for o in objs:
        problems += test_code_problems(os.path.join(build, o), o)
    cid = "host.prodconfig.objects-without-test-code"
    title = "the production objects carry no test symbol and no debugfs name (nm)"
    kw = dict(origin="host", counts={"objects": len(objs), "problems": len(problems)},
              details={"objects": objs, "problems": problems[:40]})
    if problems:
        return Check.failed(cid, title, f"{len(problems)} problem(s), first: "
                            f"{problems[0]}", **kw)
    return Check.passed(cid, title, **kw)


def build_objects(json_out=None):
    src, build, have = resolve()
    kcache.say("prodconfig: make prepare with Debian's config (a few minutes)")
    kbuild.kmake(src, build, "prepare", log=os.path.join(build, "build.log"),
                 progress="prepare prod")
    compile_objects(src, build, PROD_OBJECTS, "x86_64", "prodconfig",
                    "with Debian's config")
    c = objects_check(build, PROD_OBJECTS)
    print(f"prodconfig: nm of {len(PROD_OBJECTS)} production objects: {c.status}"
          + (f" ({c.reason})" if c.reason else ""))
    if json_out:
        old = files.read_json(json_out, kind=list) or []
        files.write_json(json_out, old + as_dicts([c]))
    return 0 if c.ok else 1


def compile_objects(src, build, objs, arch, label, how):
    """Compile single objects in a prepared build directory; any warning fails."""
    for o in objs:
        r = subprocess.run(["make", "-C", src, f"O={build}", f"ARCH={arch}", o],
                           capture_output=True, text=True)
        warn = [ln for ln in (r.stdout + r.stderr).splitlines() if "warning:" in ln]
        if r.returncode != 0 or warn:
            config.die(label, f"{o} does not build cleanly {how}: "
                       f"{(warn or (r.stderr.strip().splitlines() or ['?']))[-1]}")
        print(f"{label}: {o} builds without warnings {how}")


SERIES_OBJECTS = ["drivers/char/random.o", "drivers/char/random_blocking_kunit.o",
                  "crypto/drbg.o", "crypto/drbg_kunit.o", "crypto/drbg_cavp.o",
                  "crypto/jitterentropy.o", "crypto/jitterentropy-kcapi.o",
                  "crypto/jitterentropy-testing.o",
                  "crypto/jitterentropy_kunit.o"]


def build_i386():
    version, src = kcache.ensure_pristine(conf=confmod.load())
    build = os.path.join(kcache.tree_dir(version), "build-i386")
    os.makedirs(build, exist_ok=True)
    text = open(config.top("conformance/kconfig/test.config")).read()
    text = text.replace("CONFIG_64BIT=y", "# CONFIG_64BIT is not set")
    with open(os.path.join(build, ".config"), "w") as f:
        f.write(text)
    log = os.path.join(build, "build.log")
    open(log, "w").close()
    kbuild.kmake(src, build, "olddefconfig", log=log, arch="i386")
    have = kbuild.read_config(os.path.join(build, ".config"))
    if have.get("CONFIG_X86_32") != "y":
        config.die("i386", "the configuration is not 32-bit")
    kcache.say("i386: make prepare (a few minutes)")
    kbuild.kmake(src, build, "prepare", log=log, progress="prepare i386", arch="i386")
    compile_objects(src, build, SERIES_OBJECTS, "i386", "i386", "for 32-bit x86")
    return 0


def run(args):
    if args.action == "check":
        return check(args.json)
    if args.action == "build":
        rc = check(args.json)
        return build_objects(args.json) or rc
    return build_i386()


def register(sub):
    p = sub.add_parser("prodconfig", help="Debian's production config with the series")
    p.add_argument("action", choices=["check", "build", "i386"])
    p.add_argument("--json", metavar="OUT", help="write the checks to OUT")
    p.set_defaults(func=run)
