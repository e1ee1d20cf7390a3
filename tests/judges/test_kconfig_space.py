# SPDX-License-Identifier: GPL-2.0-only
"""The rules that narrow make kconfig-matrix (harness/judges/kconfig_space.py).

- Kconfig's tristate logic: && is the minimum, || the maximum, ! is 2 - x,
  a comparison is y or n; a symbol no one set is n.
- The options are read from the series itself: every option a patch adds,
  with its type and `depends on` lines (so a new option is never left
  out of the matrix).
- The rules: a tristate option is not above its dependency, a bool needs
  its dependency at m or y, the DRBG selects the Jitter RNG.  Each rule
  removed lets through a combination Kconfig refuses.
"""

import unittest

from harness.base import config
from harness.judges import kconfig_space as ks

PATCH = """\
diff --git a/crypto/Kconfig b/crypto/Kconfig
+config FOO_TEST
+\ttristate "foo's test"
+\tdepends on KUNIT && FOO
+\tdepends on FOO_HOOKS
+\thelp
+\t  A test.
+
+config FOO_HOOKS
+\tbool "hooks"
+\tdepends on FOO
 config UNRELATED
 \tbool "not added by the patch"
"""


class EvaluateTest(unittest.TestCase):
    def test_tristate_logic(self):
        v = {"A": "y", "B": "m", "C": "n"}
        self.assertEqual(ks.evaluate("A && B", v), 1)
        self.assertEqual(ks.evaluate("A || C", v), 2)
        self.assertEqual(ks.evaluate("!B", v), 1)
        self.assertEqual(ks.evaluate("!(A && C)", v), 2)
        self.assertEqual(ks.evaluate("B=y", v), 0)
        self.assertEqual(ks.evaluate("B=m && A", v), 2)
        self.assertEqual(ks.evaluate("B != n", v), 2)
        self.assertEqual(ks.evaluate("UNSET", v), 0)
        self.assertEqual(ks.evaluate("A >= B", v), 2)
        self.assertEqual(ks.evaluate("C >= B", v), 0)

    def test_the_drbg_is_its_menu(self):
        self.assertEqual(ks.evaluate("CRYPTO_DRBG=y", {"CRYPTO_DRBG_MENU": "y"}), 2)
        self.assertEqual(ks.evaluate("CRYPTO_DRBG=y", {"CRYPTO_DRBG_MENU": "m"}), 0)

    def test_bad_expressions(self):
        for e in ("A &&", "(A", "A B", "A & B"):
            with self.assertRaises(ks.ExprError, msg=e):
                ks.evaluate(e, {})


class OptionsTest(unittest.TestCase):
    def test_read_from_the_patch(self):
        got = ks.series_options([PATCH])
        self.assertEqual(got, {"FOO_TEST": ("tristate", ["KUNIT && FOO", "FOO_HOOKS"]),
                               "FOO_HOOKS": ("bool", ["FOO"])})

    def test_the_series_options(self):
        opts = ks.options(ks.read_patches(config.top("tangled/patches")))
        names = [n for n, _, _ in opts]
        self.assertEqual(names[:4], list(ks.USED))
        for added in ("RANDOM_BLOCKING_KUNIT_TEST", "CRYPTO_JITTERENTROPY_TESTHOOKS",
                      "CRYPTO_JITTERENTROPY_KUNIT_TEST", "CRYPTO_DRBG_TEST_HOOKS",
                      "CRYPTO_DRBG_KUNIT_TEST", "CRYPTO_DRBG_CAVP_DEBUGFS"):
            self.assertIn(added, names)
        typ = {n: t for n, t, _ in opts}
        self.assertEqual(typ["CRYPTO_JITTERENTROPY_KUNIT_TEST"], "tristate")
        # Every patch's `+config` is in the matrix: none left out.
        text = "".join(ks.read_patches(config.top("tangled/patches")))
        self.assertEqual(text.count("\n+config "), len(names) - len(ks.USED))


class RulesTest(unittest.TestCase):
    def setUp(self):
        self.opts = [("KUNIT", "tristate", []), ("FOO", "tristate", []),
                     ("FOO_HOOKS", "bool", [("FOO", "")]),
                     ("FOO_TEST", "tristate", [("KUNIT && FOO", ""), ("FOO_HOOKS", "")])]

    def allowed(self, **v):
        return ks.allowed_by_rules(self.opts, v) is None

    def test_tristate_not_above_its_dependency(self):
        self.assertTrue(self.allowed(KUNIT="y", FOO="m", FOO_HOOKS="y", FOO_TEST="m"))
        self.assertFalse(self.allowed(KUNIT="y", FOO="m", FOO_HOOKS="y", FOO_TEST="y"))

    def test_bool_at_y_under_a_module(self):
        self.assertTrue(self.allowed(KUNIT="n", FOO="m", FOO_HOOKS="y", FOO_TEST="n"))
        self.assertFalse(self.allowed(KUNIT="n", FOO="n", FOO_HOOKS="y", FOO_TEST="n"))

    def test_select_holds_whatever_the_value(self):
        opts = ks.options([])
        v = {n: "n" for n, _, _ in opts}
        v["CRYPTO_DRBG_MENU"] = "y"
        self.assertEqual(ks.allowed_by_rules(opts, v)[0], "CRYPTO_JITTERENTROPY")
        v["CRYPTO_JITTERENTROPY"] = "m"
        self.assertIsNotNone(ks.allowed_by_rules(opts, v))
        v["CRYPTO_JITTERENTROPY"] = "y"
        self.assertIsNone(ks.allowed_by_rules(opts, v))

    def test_the_series_space(self):
        opts = ks.options(ks.read_patches(config.top("tangled/patches")))
        kept, dropped = ks.space(opts)
        total = 1
        for _, t, _ in opts:
            total *= len(ks.DOMAIN[t])
        self.assertEqual(len(kept) + len(dropped), total)
        self.assertGreater(len(kept), 0)
        # The shape of issue 37's defect (the Jitter RNG a module, its
        # KUnit test built in) is dropped; its module test is kept.
        base = {n: "n" for n, _, _ in opts}
        bad = dict(base, KUNIT="y", CRYPTO_JITTERENTROPY="m",
                   CRYPTO_JITTERENTROPY_TESTHOOKS="y", CRYPTO_JITTERENTROPY_KUNIT_TEST="y")
        self.assertNotIn(bad, kept)
        self.assertIn(dict(bad, CRYPTO_JITTERENTROPY_KUNIT_TEST="m"), kept)


if __name__ == "__main__":
    unittest.main()
