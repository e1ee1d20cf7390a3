# SPDX-License-Identifier: GPL-2.0-only
"""The production-config check knows every test option of the book: a
Kconfig entry the book adds whose help says it is test only must be in
prodconfig's list, or make check could call a production config clean
while the option is on in it."""

import re
import unittest

from harness.base import conf as confmod
from harness.base import config
from harness.stages import prodconfig


def book_kconfig_entries():
    """{option: help text} of every config entry in a code chunk of the book."""
    out = {}
    for src in confmod.load().sources:
        with open(config.top(src), encoding="utf-8") as f:
            text = f.read()
        for m in re.finditer(r"^config (\w+)\n(.*?)(?=^config |^@)", text, re.M | re.S):
            out["CONFIG_" + m.group(1)] = m.group(2)
    return out


class ProdconfigTest(unittest.TestCase):

    def test_every_test_option_of_the_book_is_checked(self):
        entries = book_kconfig_entries()
        self.assertIn("CONFIG_CRYPTO_JITTERENTROPY_TESTINTERFACE", entries)
        test_only = {k for k, v in entries.items()
                     if re.search(r"Test only|Never enable this on a production", v)
                     or "KUNIT" in k}
        self.assertGreaterEqual(len(test_only), 5)
        missing = sorted(test_only - set(prodconfig.TEST_OPTIONS))
        self.assertEqual(missing, [], "test-only options prodconfig does not check")


if __name__ == "__main__":
    unittest.main()
