# SPDX-License-Identifier: GPL-2.0-only
"""Every option the series adds links in every configuration Kconfig
allows (issue 37, item 2), proved with Kconfig itself.

A tristate option built in (=y) that calls a symbol of a module (=m), or
of something not built at all, leaves vmlinux with an undefined
reference; the Kconfig dependencies must make that configuration
impossible.  The test makes a tree of 6.1's Kconfig files, Makefiles and
the sources of the objects involved (git archive of the cache's tag
'pristine'), applies tangled/patches to it with git apply, and runs
`make ARCH=x86_64 O=<tmp> olddefconfig` (Kconfig only: its host program
is the only thing compiled) on configurations that ask for every option
of the series at y while one provider is m or n.  In each result, the
linking unit of every option that is on must be no stronger than each
provider it uses (n < m < y).

USES below names, for each option the series adds, the unit that holds
its code (its own object, or the module it is compiled into) and the
options whose symbols that code uses; a test derives what it can of that
from the sources (calls of exported functions, through the inline
functions and macros of the headers) and fails when USES misses one, or
when the series adds an option USES does not have.

Before the fix, asking for CRYPTO_JITTERENTROPY=m (or for CRYPTO_RNG2=m,
through the same options) gave CRYPTO_JITTERENTROPY_KUNIT_TEST=y: the
tristate test depended only on the bool CRYPTO_JITTERENTROPY_TESTHOOKS,
which is y whenever the module is on, so vmlinux would have called
jent_testhook_*() of the module and crypto_alloc_rng() of another; the
last test failed with those four findings.  Every other option and
provider, at m and at n, was already bounded.
"""

import os
import re
import shutil
import subprocess
import tempfile
import unittest

from harness.base import config, kcache

# About 20 s of the host tests on two CPUs: run before the short modules
# (host_tests.shuffled).
LONG = True

PATCHES = config.top("tangled/patches")

# option -> (the option whose object holds its code, the options whose
# symbols that code calls).  Options that add code to another object
# (#ifdef in it, or an object of its composite module) are linked with
# that object, so a bool option at y beside its module at m is fine.
USES = {
    # drivers/char/random_blocking_kunit.o (obj-y when y): kunit_*();
    # get_blocking_random_bytes*() are in random.c, always built in.
    "RANDOM_BLOCKING_KUNIT_TEST": ("RANDOM_BLOCKING_KUNIT_TEST", {"KUNIT"}),
    # #ifdef code of jitterentropy-kcapi.c, in the jitterentropy_rng module.
    "CRYPTO_JITTERENTROPY_TESTHOOKS": ("CRYPTO_JITTERENTROPY", set()),
    # jitterentropy-testing.o, an object of the jitterentropy_rng module:
    # crypto_alloc_rng() (rng.c) and crypto_free_rng() (api.c).
    "CRYPTO_JITTERENTROPY_TESTINTERFACE": ("CRYPTO_JITTERENTROPY",
                                           {"CRYPTO_RNG2", "CRYPTO"}),
    # crypto/jitterentropy_kunit.o: jent_testhook_*() of the module,
    # kunit_*(), crypto_alloc_rng(), crypto_free_rng().
    "CRYPTO_JITTERENTROPY_KUNIT_TEST": ("CRYPTO_JITTERENTROPY_KUNIT_TEST",
                                        {"KUNIT", "CRYPTO_JITTERENTROPY",
                                         "CRYPTO_RNG2", "CRYPTO"}),
    # #ifdef code of drbg.c.
    "CRYPTO_DRBG_TEST_HOOKS": ("CRYPTO_DRBG", set()),
    # crypto/drbg_kunit.o (obj-y): drbg_test_*() of drbg.c (not
    # exported), kunit_*(), the crypto rng API.
    "CRYPTO_DRBG_KUNIT_TEST": ("CRYPTO_DRBG_KUNIT_TEST",
                               {"KUNIT", "CRYPTO_DRBG", "CRYPTO_RNG2", "CRYPTO"}),
    # crypto/drbg_cavp.o (obj-y): drbg_test_hook_*() of drbg.c, the
    # crypto rng API.
    "CRYPTO_DRBG_CAVP_DEBUGFS": ("CRYPTO_DRBG_CAVP_DEBUGFS",
                                 {"CRYPTO_DRBG", "CRYPTO_RNG2", "CRYPTO"}),
}

# Where the providers' exported (or, for the DRBG's test hooks, declared)
# functions are, for the derivation of USES from the sources.
PROVIDER_FILES = {
    "crypto/jitterentropy-kcapi.c": "CRYPTO_JITTERENTROPY",
    "crypto/rng.c": "CRYPTO_RNG2",
    "crypto/api.c": "CRYPTO",
    "crypto/drbg_test.h": "CRYPTO_DRBG",
    "lib/kunit/test.c": "KUNIT",
    "lib/kunit/resource.c": "KUNIT",
    "lib/kunit/assert.c": "KUNIT",
    "lib/kunit/executor.c": "KUNIT",
    "lib/kunit/try-catch.c": "KUNIT",
    "lib/kunit/string-stream.c": "KUNIT",
}
# Headers whose inline functions and macros stand between a caller and
# an exported function (crypto_free_rng() calls crypto_destroy_tfm()).
HEADERS = ("include/crypto/rng.h", "include/crypto/internal/rng.h",
           "include/kunit/test.h", "include/kunit/resource.h",
           "include/kunit/assert.h", "include/kunit/try-catch.h")

# What a configuration must give to switch a provider down to v (an
# invisible tristate such as CRYPTO_RNG2 takes the value of what selects
# it; the DRBG selects the Jitter RNG).
LOWER = {
    "KUNIT": ("KUNIT",),
    "CRYPTO": ("CRYPTO",),
    "CRYPTO_DRBG": ("CRYPTO_DRBG_MENU",),
    "CRYPTO_JITTERENTROPY": ("CRYPTO_DRBG_MENU", "CRYPTO_JITTERENTROPY"),
    "CRYPTO_RNG2": ("CRYPTO_DRBG_MENU", "CRYPTO_JITTERENTROPY"),
}
BASE = {"MODULES": "y", "KUNIT": "y", "DEBUG_FS": "y", "CRYPTO": "y",
        "CRYPTO_DRBG_MENU": "y", "CRYPTO_JITTERENTROPY": "y"}
RANK = {"n": 0, "m": 1, "y": 2}


def series():
    with open(os.path.join(PATCHES, "series")) as f:
        names = [ln.strip() for ln in f if ln.strip()]
    return [os.path.join(PATCHES, n) for n in names if not n.startswith("0000-")]


def added_lines(path):
    """[(file, added line)] of one patch."""
    out, cur = [], None
    with open(path) as f:
        for ln in f:
            m = re.match(r"^\+\+\+ b/(\S+)", ln)
            if m:
                cur = m.group(1)
            elif ln.startswith("+") and not ln.startswith("+++") and cur:
                out.append((cur, ln[1:].rstrip("\n")))
    return out


def added_options():
    return {m.group(1) for p in series() for f, ln in added_lines(p)
            if os.path.basename(f).startswith("Kconfig")
            for m in [re.match(r"^config (\w+)$", ln)] if m}


def added_objects():
    """{option: [source file]} of the objects the series' Makefile lines
    build under an option of its own."""
    out = {}
    for p in series():
        for f, ln in added_lines(p):
            m = re.match(r"^(?:obj|\w+)-\$\(CONFIG_(\w+)\)\s*\+=\s*(\S+)\.o$", ln)
            if m and os.path.basename(f) == "Makefile":
                out.setdefault(m.group(1), []).append(
                    os.path.join(os.path.dirname(f), m.group(2) + ".c"))
    return out


def value(cfg, opt):
    return cfg.get(opt, "n")


def broken(cfg):
    """[text] of the options whose unit is stronger than a provider."""
    out = []
    for opt, (unit, uses) in USES.items():
        if value(cfg, opt) == "n":
            continue
        for prov in sorted(uses):
            if RANK[value(cfg, unit)] > RANK[value(cfg, prov)]:
                out.append(f"{opt}={value(cfg, opt)} (in {unit}={value(cfg, unit)}) "
                           f"uses {prov}={value(cfg, prov)}")
    return out


def calls(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", text))


def inline_bodies(text):
    """{name: identifiers called} of a header's static inline functions
    and function-like macros."""
    out = {}
    for m in re.finditer(r"static inline[^;{(]*?\b(\w+)\s*\([^)]*\)\s*\{", text):
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        out[m.group(1)] = calls(text[m.end():i])
    for m in re.finditer(r"^#define\s+(\w+)\((?:[^\n\\]|\\\n)*?\)((?:[^\n\\]|\\\n)*)",
                         text, flags=re.M):
        out.setdefault(m.group(1), set()).update(calls(m.group(2)))
    return out


class KconfigRulesTest(unittest.TestCase):
    def test_broken_reads_units_and_providers(self):
        cfg = {"CRYPTO": "y", "KUNIT": "y", "CRYPTO_RNG2": "m",
               "CRYPTO_JITTERENTROPY": "m", "CRYPTO_JITTERENTROPY_TESTHOOKS": "y",
               "CRYPTO_JITTERENTROPY_KUNIT_TEST": "y"}
        self.assertEqual(broken(cfg), [
            "CRYPTO_JITTERENTROPY_KUNIT_TEST=y (in CRYPTO_JITTERENTROPY_KUNIT_TEST=y) "
            "uses CRYPTO_JITTERENTROPY=m",
            "CRYPTO_JITTERENTROPY_KUNIT_TEST=y (in CRYPTO_JITTERENTROPY_KUNIT_TEST=y) "
            "uses CRYPTO_RNG2=m"])
        cfg["CRYPTO_JITTERENTROPY_KUNIT_TEST"] = "m"
        self.assertEqual(broken(cfg), [])   # the hooks at y live in the module

    def test_inline_bodies(self):
        text = ("static inline void crypto_free_rng(struct crypto_rng *tfm)\n"
                "{\n\tcrypto_destroy_tfm(tfm, crypto_rng_tfm(tfm));\n}\n"
                "#define kunit_skip(test, fmt, ...) \\\n\tkunit_mark_skipped(test)\n")
        got = inline_bodies(text)
        self.assertIn("crypto_destroy_tfm", got["crypto_free_rng"])
        self.assertIn("kunit_mark_skipped", got["kunit_skip"])


class SeriesKconfigTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        src = kcache.ensure_pristine()[1]
        cls.tmp = tempfile.mkdtemp(prefix="kconfig-")
        cls.tree = os.path.join(cls.tmp, "tree")
        cls.out = os.path.join(cls.tmp, "out")
        os.makedirs(cls.tree)
        os.makedirs(cls.out)
        names = subprocess.run(["git", "-C", src, "ls-tree", "-r", "--name-only", "pristine"],
                               capture_output=True, text=True, check=True).stdout.split("\n")
        kconfigs = [n for n in names if re.search(r"(^|/)Kconfig[^/]*$", n)
                    and not n.startswith(("arch/x86/", "crypto/", "drivers/char/", "lib/kunit/"))]
        want = ["Makefile", "MAINTAINERS", "scripts", "arch/x86", "crypto", "lib/kunit",
                "drivers/char", "include/crypto", "include/kunit"] + kconfigs
        arch = subprocess.Popen(["git", "-C", src, "archive", "pristine", "--"] + want,
                                stdout=subprocess.PIPE)
        subprocess.run(["tar", "-x", "-C", cls.tree], stdin=arch.stdout, check=True)
        arch.stdout.close()
        if arch.wait() != 0:
            raise AssertionError("git archive of the pristine tree failed")
        env = dict(os.environ, GIT_CEILING_DIRECTORIES=cls.tmp)
        for p in series():
            r = subprocess.run(["git", "apply", "--whitespace=nowarn", p], cwd=cls.tree,
                               capture_output=True, text=True, env=env)
            if r.returncode != 0:
                raise AssertionError(f"{os.path.basename(p)} does not apply: {r.stderr[-400:]}")
        cls.runs = {}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def olddefconfig(self, ask):
        """The .config Kconfig makes of the options asked for."""
        key = tuple(sorted(ask.items()))
        if key in self.runs:
            return self.runs[key]
        with open(os.path.join(self.out, ".config"), "w") as f:
            for opt, v in ask.items():
                f.write(f"CONFIG_{opt}={v}\n" if v != "n" else f"# CONFIG_{opt} is not set\n")
        r = subprocess.run(["nice", "-n", "19", "make", "-s", "-C", self.tree, "ARCH=x86_64",
                            f"O={self.out}", "olddefconfig"], capture_output=True, text=True)
        if r.returncode != 0:
            raise AssertionError(f"olddefconfig failed: {(r.stderr or r.stdout)[-600:]}")
        cfg = {}
        with open(os.path.join(self.out, ".config")) as f:
            for ln in f:
                m = re.match(r"^CONFIG_(\w+)=([ym])$", ln.strip())
                if m:
                    cfg[m.group(1)] = m.group(2)
        self.runs[key] = cfg
        return cfg

    def everything(self):
        return dict(BASE, **{opt: "y" for opt in USES})

    def test_every_added_option_has_a_row(self):
        self.assertEqual(added_options(), set(USES))

    def test_uses_cover_what_the_sources_call(self):
        """The providers of each new object in USES are those of the
        exported functions it calls (directly or through a header's inline
        function or macro)."""
        exports = {}
        for f, opt in PROVIDER_FILES.items():
            with open(os.path.join(self.tree, f)) as fh:
                text = fh.read()
            names = (re.findall(r"EXPORT_SYMBOL(?:_GPL)?\((\w+)\)", text) if f.endswith(".c")
                     else re.findall(r"^\w[\w\s\*]*?\b(\w+)\(", text, flags=re.M))
            for name in names:
                exports[name] = opt
        inline = {}
        for h in HEADERS:
            with open(os.path.join(self.tree, h)) as fh:
                inline.update(inline_bodies(fh.read()))
        missing = []
        objects = added_objects()
        self.assertTrue(objects, "no object found in the series' Makefile lines")
        for opt, sources in objects.items():
            unit, uses = USES[opt]
            seen = set()
            for s in sources:
                with open(os.path.join(self.tree, s)) as fh:
                    todo = calls(fh.read())
                while todo:
                    name = todo.pop()
                    if name in seen:
                        continue
                    seen.add(name)
                    todo |= inline.get(name, set())
            derived = {exports[n] for n in seen if n in exports} - {unit}
            missing += [f"{opt} calls a function of {p}, USES does not say so"
                        for p in sorted(derived - uses)]
            missing += [f"USES says {opt} calls a function of {p}: none found"
                        for p in sorted(uses - derived)]
        self.assertEqual(missing, [])

    def test_everything_at_y_is_possible(self):
        """Asked for every option at y, Kconfig gives it: the runs below are
        not made vacuous by a dependency of their own."""
        cfg = self.olddefconfig(self.everything())
        self.assertEqual({opt: value(cfg, opt) for opt in USES},
                         {opt: "y" for opt in USES})
        self.assertEqual(broken(cfg), [])

    def test_no_option_outlinks_a_provider(self):
        """Each provider at m, then at n, everything else asked for at y:
        no option's unit is stronger than what it uses."""
        bad = []
        for prov in sorted({p for _, uses in USES.values() for p in uses}):
            for v in ("m", "n"):
                ask = self.everything()
                ask.update({o: v for o in LOWER[prov]})
                cfg = self.olddefconfig(ask)
                with self.subTest(provider=prov, value=v):
                    self.assertEqual(value(cfg, prov), v,
                                     f"asked for {prov}={v} through {LOWER[prov]}: "
                                     "the run tests nothing")
                bad += [f"{prov}={v}: {b}" for b in broken(cfg)]
        self.assertEqual(bad, [])


if __name__ == "__main__":
    unittest.main()
