# SPDX-License-Identifier: GPL-2.0-only
"""The production-config check cannot pass on a tree without the series.

"Every test option is off" proves nothing when the options do not exist:
olddefconfig leaves out what no Kconfig defines.  The check requires each
test option to be defined by a Kconfig file of the tree, and applies the
series before it resolves the configuration (make check runs it before
the kernel builds).  Fake trees stand in for the kernel's.
"""

import os
import shutil
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


if __name__ == "__main__":
    unittest.main()
