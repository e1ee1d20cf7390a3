# SPDX-License-Identifier: GPL-2.0-only
"""Progress says how far along a step is: a total and the time left when
the total is known, plain lines off a terminal, one rewritten line on one."""

import io
import unittest

from harness.base.progress import Progress


class Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


class Tty(io.StringIO):
    def isatty(self):
        return True


class ProgressTest(unittest.TestCase):
    def test_total_and_time_left(self):
        clock, out = Clock(), io.StringIO()
        p = Progress("build test", total=1000, stream=out, every=15, clock=clock)
        clock.t = 16
        p.update(400)
        self.assertEqual(out.getvalue(),
                         "build test: 400/1000 steps (40%), 16 s, about 24 s left\n")

    def test_no_total(self):
        clock, out = Clock(), io.StringIO()
        p = Progress("build test", stream=out, every=15, clock=clock)
        clock.t = 20
        p.update(33)
        self.assertEqual(out.getvalue(), "build test: 33 steps, 20 s\n")

    def test_plain_lines_only_every_so_often(self):
        clock, out = Clock(), io.StringIO()
        p = Progress("x", total=10, stream=out, every=15, clock=clock)
        for i in range(1, 10):
            clock.t = i
            p.update(i)
        self.assertEqual(out.getvalue(), "")
        clock.t = 15
        p.update(9)
        self.assertEqual(out.getvalue().count("\n"), 1)

    def test_terminal_rewrites_one_line(self):
        clock, out = Clock(), Tty()
        p = Progress("x", total=100, stream=out, clock=clock)
        for i in range(1, 6):
            clock.t = i
            p.update(i * 10)
        text = out.getvalue()
        self.assertNotIn("\n", text)
        self.assertEqual(text.count("\r"), 5)
        self.assertTrue(text.rstrip().endswith("x: 50/100 steps (50%), 5 s"), text)
        p.done("built")
        self.assertTrue(out.getvalue().endswith("\rx: built\n"))

    def test_long_times_in_minutes(self):
        clock, out = Clock(), io.StringIO()
        p = Progress("b", total=1000, stream=out, every=15, clock=clock)
        clock.t = 300
        p.update(250)
        self.assertIn("5 min 00 s, about 15 min 00 s left", out.getvalue())
