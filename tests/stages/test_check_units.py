# SPDX-License-Identifier: GPL-2.0-only
"""make check's small verdicts, exactly: a step's exit status as a check."""

import unittest

from harness.stages import check


class RcCheckTest(unittest.TestCase):
    def test_zero_passes_and_anything_else_fails_with_its_reason(self):
        c = check.rc_check("host.lint", "lint is clean", 0, "lint failed")
        self.assertEqual((c.id, c.title, c.status, c.reason, c.origin),
                         ("host.lint", "lint is clean", "pass", None, "host"))
        for rc in (1, 2, -9):
            c = check.rc_check("host.lint", "lint is clean", rc, "lint failed")
            self.assertEqual((c.id, c.title, c.status, c.reason, c.origin),
                             ("host.lint", "lint is clean", "fail", "lint failed", "host"))


if __name__ == "__main__":
    unittest.main()
