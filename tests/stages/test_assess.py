# SPDX-License-Identifier: GPL-2.0-only
"""make assess (the verb assess) on hostile sample files: a FIFO as DATA
or RESTART, a device, a file larger than the assessor takes.  Each is one
line on stderr naming the file, exit status 2, and nothing is read: the
file is looked at, not opened (before, a FIFO hung the assessor and
/dev/zero was read until memory ran out).  The verb runs in a process of
its own (tests/verbs.py), killed at its time limit."""

import os
import shutil
import tempfile
import unittest

from harness.stages import assess

from ..verbs import run_verb


class HostileSampleFilesTest(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="assess-hostile-")
        self.addCleanup(shutil.rmtree, self.d, True)
        self.good = os.path.join(self.d, "good.bin")
        with open(self.good, "wb") as f:
            f.write(bytes(range(2)) * 500)
        self.fifo = os.path.join(self.d, "pipe.bin")
        os.mkfifo(self.fifo)

    def sparse(self, name, size):
        path = os.path.join(self.d, name)
        with open(path, "wb") as f:
            f.truncate(size)
        return path

    def assess(self, *args):
        rc, out, err = run_verb(self, ["assess", "--allow-short", "--out",
                                       os.path.join(self.d, "out")] + list(args),
                                timeout=60)
        return rc, err

    def test_fifo_as_data(self):
        self.assertEqual(self.assess("--data", self.fifo),
                         (2, f"assess: {self.fifo}: a FIFO: expected a regular sample "
                          "file\n"))

    def test_fifo_as_restart(self):
        self.assertEqual(self.assess("--data", self.good, "--restart", self.fifo),
                         (2, f"assess: {self.fifo}: a FIFO: expected a regular restart "
                          "matrix file\n"))

    def test_device_as_data(self):
        self.assertEqual(self.assess("--data", "/dev/zero"),
                         (2, "assess: /dev/zero: a device: expected a regular sample "
                          "file\n"))

    def test_files_larger_than_the_assessor_takes(self):
        big = self.sparse("big.bin", assess.MAX_SAMPLES + 1)
        self.assertEqual(self.assess("--data", big),
                         (2, f"assess: {big}: {assess.MAX_SAMPLES + 1} bytes: expected "
                          f"at most {assess.MAX_SAMPLES} (the assessor's bound)\n"))
        restart = self.sparse("restart.bin", 1000 * 1000 + 1)
        self.assertEqual(self.assess("--data", self.good, "--restart", restart),
                         (2, f"assess: {restart}: 1000001 bytes: expected at most "
                          "1000000 (the assessor's bound)\n"))

    def test_a_missing_file(self):
        gone = os.path.join(self.d, "gone.bin")
        self.assertEqual(self.assess("--data", gone),
                         (2, f"assess: {gone}: cannot open it (No such file or "
                          "directory): expected a readable sample file\n"))


if __name__ == "__main__":
    unittest.main()
