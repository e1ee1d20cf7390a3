# SPDX-License-Identifier: GPL-2.0-only
"""A sample suite for test_host_tests.py, never discovered by the host
tests' own pattern (test*.py): the method of Second passes only when
First's has run before it, in the same process (as test_boot passed only
after test_conform_inputs had not closed QEMU's gate)."""

import unittest

SEEN = []


class First(unittest.TestCase):
    def test_leaves_state(self):
        SEEN.append("first")


class Second(unittest.TestCase):
    def test_needs_the_state(self):
        self.assertIn("first", SEEN)

    def test_alone(self):
        self.assertTrue(True)

    def test_alone_too(self):
        self.assertTrue(True)
