# SPDX-License-Identifier: GPL-2.0-only
"""Recorded logs of real boots (tests/data/logs/, from a make check of
this series under QEMU TCG), and copies of them with one failure put in:
what the judges of test_kunit, test_kernel_log, test_boot and
test_kmemleak are fed."""

import os
import tempfile

from harness.base import config

LOGS = config.top("tests/data/logs")


def path(name):
    return os.path.join(LOGS, name)


def text(name):
    with open(path(name), errors="replace") as f:
        return f.read()


def written(test, content, suffix=".log"):
    """content in a temporary file removed after the test; its path."""
    fd, p = tempfile.mkstemp(suffix=suffix, prefix="recorded-")
    with os.fdopen(fd, "w") as f:
        f.write(content)
    test.addCleanup(os.unlink, p)
    return p


def edited(test, name, old, new, count=1):
    """A copy of recorded log name with old replaced by new (old must be
    there count times)."""
    t = text(name)
    test.assertEqual(t.count(old), count, f"{old!r} in {name}")
    return written(test, t.replace(old, new))
