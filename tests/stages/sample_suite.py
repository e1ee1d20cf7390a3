# SPDX-License-Identifier: GPL-2.0-only
"""A sample suite for test_host_tests.py, never discovered by the host
tests' own pattern (test*.py): one method passes, one has a failing
subTest among passing ones."""

import unittest


class Sample(unittest.TestCase):
    def test_passes(self):
        self.assertTrue(True)

    def test_one_subcase_of_three_fails(self):
        for i in range(3):
            with self.subTest(i=i):
                self.assertNotEqual(i, 1)
