# SPDX-License-Identifier: GPL-2.0-only
"""The guest's isolation check (conformance/guest/blocking.c), built for
the host with stand-ins for its devices and its debugfs trigger.

Its premise is that four readers of /dev/random and /dev/urandom load the
system while the kernel runs its requests.  A reader that cannot open its
device, or reads nothing from it, breaks the premise: the check fails and
names the reader and the device.  (Before the fix such a reader exited
unseen: the check went on, and its verdict did not say that nothing had
been read.)
"""

import os
import shutil
import tempfile
import unittest

from .build import build, records


class IsolationReadersTest(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="guest-blocking-")
        self.addCleanup(shutil.rmtree, self.d)
        self.iso = os.path.join(self.d, "isolation")
        open(self.iso, "w").close()

    def run_check(self, random_dev, urandom_dev="/dev/urandom"):
        exe = build(self, "blocking_main", self.d, {
            "ISO_PATH": self.iso, "RANDOM_DEV": random_dev, "URANDOM_DEV": urandom_dev})
        recs = records(self, [exe])
        self.assertEqual([r["id"] for r in recs], ["guest.blocking.isolation"])
        return recs[0]

    def test_reader_that_cannot_open_its_device(self):
        missing = os.path.join(self.d, "no-such-random")
        r = self.run_check(missing)
        self.assertEqual(r["status"], "fail")
        self.assertEqual(r["reason"], f"reader 0 could not open {missing}: "
                         "No such file or directory")

    def test_reader_that_reads_nothing(self):
        r = self.run_check("/dev/urandom", "/dev/null")
        self.assertEqual(r["status"], "fail")
        self.assertEqual(r["reason"], "reader 1 read nothing from /dev/null")

    def test_readers_that_read_reach_the_kernel_verdict(self):
        # Both devices read: the verdict is the kernel's (here a stand-in
        # file that says nothing, so the requests did not all complete).
        r = self.run_check("/dev/urandom")
        self.assertEqual(r["status"], "fail")
        self.assertRegex(r["reason"], r"^kernel requests did not all complete")


if __name__ == "__main__":
    unittest.main()
