# SPDX-License-Identifier: GPL-2.0-only
"""The production-config check cannot pass on a tree without the series.

"Every test option is off" proves nothing when the options do not exist:
olddefconfig leaves out what no Kconfig defines.  The check requires each
test option to be defined by a Kconfig file of the tree, and applies the
series before it resolves the configuration (make check runs it before
the kernel builds).  Fake trees stand in for the kernel's.

The production-object check (issue 16, item 9): nm of real objects,
compiled here with the host's gcc, one carrying test code the way a
drbg.o built with the test options would, one without.
"""

import os
import shutil
import subprocess
import tempfile
import unittest
from unittest import mock

from harness.stages import prodconfig

SERIES_KCONFIG = "".join(f"config {o[len('CONFIG_'):]}\n\tbool \"test\"\n\n"
                         for o in prodconfig.TEST_OPTIONS)


def tree(kconfig_text):
    d = tempfile.mkdtemp(prefix="prodconfig-tree-")
    os.makedirs(os.path.join(d, "crypto"))
    with open(os.path.join(d, "crypto", "Kconfig"), "w") as f:
        f.write("menuconfig CRYPTO\n\ttristate \"Crypto\"\n\n" + kconfig_text)
    return d


class ProdconfigTest(unittest.TestCase):
    def verdict(self, kconfig_text, have):
        d = tree(kconfig_text)
        self.addCleanup(shutil.rmtree, d)
        defined = prodconfig.defined_symbols(d, prodconfig.TEST_OPTIONS + ["CONFIG_CRYPTO"])
        return prodconfig.options_check(have, defined)

    def test_tree_with_the_series_and_options_off(self):
        c = self.verdict(SERIES_KCONFIG, {"CONFIG_CRYPTO_DRBG": "m"})
        self.assertEqual(c.status, "pass", c.reason)

    def test_tree_without_the_series_fails(self):
        stock = "config CRYPTO_USER_API_RNG_CAVP\n\tbool \"CAVP\"\n"
        c = self.verdict(stock, {})
        self.assertEqual(c.status, "fail")
        self.assertEqual(c.counts["not_in_tree"], len(prodconfig.TEST_OPTIONS) - 1)
        self.assertIn("CONFIG_RANDOM_BLOCKING_KUNIT_TEST is defined by no Kconfig of "
                      "the tree: is the series applied?", c.reason)

    def test_option_on_fails(self):
        c = self.verdict(SERIES_KCONFIG, {"CONFIG_CRYPTO_DRBG_KUNIT_TEST": "y"})
        self.assertEqual(c.status, "fail")
        self.assertIn("CONFIG_CRYPTO_DRBG_KUNIT_TEST=y", c.reason)

    def test_series_applied_before_resolving(self):
        calls = []
        with mock.patch.object(prodconfig.kcache, "apply_series",
                               side_effect=lambda p: calls.append(("apply", p)) or "/src"), \
                mock.patch.object(prodconfig.kcache, "ensure_pristine",
                                  side_effect=lambda **k: calls.append(("pristine",)) or
                                  ("v", "/src")), \
                mock.patch.object(prodconfig.os.path, "exists", return_value=False):
            with self.assertRaises(SystemExit):
                prodconfig.resolve()       # stops at the missing Debian config
        self.assertEqual(calls[0][0], "apply")
        self.assertTrue(calls[0][1].endswith("tangled/patches"))


# An object as drbg.o would be with CONFIG_CRYPTO_DRBG_TEST_HOOKS and the
# debugfs interface compiled in: a hook function, a KUnit suite symbol, a
# call to debugfs, the name of a debugfs directory.
WITH_TEST_CODE = r"""
struct dentry;
extern struct dentry *debugfs_create_dir(const char *name, struct dentry *parent);
int drbg_test_hook_install(void *hook) { return hook != 0; }
int drbg_kunit_suites_marker;
struct dentry *drbg_cavp_init(void) { return debugfs_create_dir("drbg_cavp", 0); }
"""
# An object as the production drbg.o is: the DRBG's own functions only.
WITHOUT = r"""
static int drbg_seed_jent(int x) { return x + 1; }
int drbg_seed(int x) { return drbg_seed_jent(x) * 3; }
const char *drbg_name = "drbg_nopr_hmac_sha256";
"""


@unittest.skipUnless(shutil.which("gcc") and shutil.which("nm"), "needs gcc and nm")
class ProductionObjectTest(unittest.TestCase):
    def compile(self, source):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        c, o = os.path.join(d, "x.c"), os.path.join(d, "x.o")
        with open(c, "w") as f:
            f.write(source)
        subprocess.run(["gcc", "-c", "-O2", "-o", o, c], check=True)
        return o

    def test_test_code_is_found(self):
        problems = prodconfig.test_code_problems(self.compile(WITH_TEST_CODE), "drbg.o")
        text = "\n".join(problems)
        self.assertIn("test symbol drbg_test_hook_install", text)
        self.assertIn("test symbol drbg_kunit_suites_marker", text)
        self.assertIn("test symbol drbg_cavp_init", text)
        self.assertIn("refers to debugfs_create_dir", text)
        self.assertIn("contains the debugfs name drbg_cavp", text)

    def test_production_object_is_clean(self):
        self.assertEqual(prodconfig.test_code_problems(self.compile(WITHOUT)), [])

    def test_file_names_are_not_debugfs_names(self):
        """Debug information names the headers an object includes, and
        random_blocking.h is one: a name followed by more than NUL, or
        preceded by a part of a longer name, is not a debugfs file's."""
        self.assertFalse(prodconfig.c_string_in(
            b"random_blocking", b"\0include/linux/random_blocking.h\0"))
        self.assertFalse(prodconfig.c_string_in(b"drbg_cavp", b"\0my_drbg_cavp\0"))
        self.assertTrue(prodconfig.c_string_in(b"drbg_cavp", b"run\0drbg_cavp\0trace"))

    def test_objects_check_names_the_object(self):
        o = self.compile(WITH_TEST_CODE)
        c = prodconfig.objects_check(os.path.dirname(o), [os.path.basename(o)])
        self.assertEqual(c.status, "fail")
        self.assertIn("x.o", c.reason)
        clean = self.compile(WITHOUT)
        c = prodconfig.objects_check(os.path.dirname(clean), [os.path.basename(clean)])
        self.assertEqual(c.status, "pass", c.reason)


if __name__ == "__main__":
    unittest.main()
