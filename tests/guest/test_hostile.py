# SPDX-License-Identifier: GPL-2.0-only
"""The guest's hostile-input checks (conformance/guest/hostile.c), built
for the host with stand-ins for the kernel's files.

- Allocation failure at every point: when the write of the fail-nth value
  fails (here /dev/full stands in for /proc/self/fail-nth: every write is
  refused with ENOSPC), nothing was armed, so the point is neither
  injected nor clean: the check fails and says so.  (Before the fix the
  failure was only logged, and each of 399 points counted as injected and
  clean: a pass.)
- The "misaligned buffer" case writes the well-formed request from an odd
  address (before the fix it wrote the request one byte short from
  msg + 1: a request whose magic is "CV1", i.e. another wrong-magic case).
"""

import os
import shutil
import tempfile
import unittest

from harness.judges import cavs_pack

from .build import build, records


class HostileTest(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="guest-hostile-")
        self.addCleanup(shutil.rmtree, self.d)
        self.trace = os.path.join(self.d, "trace")
        self.gfp = os.path.join(self.d, "ignore-gfp-wait")
        for p in (self.trace, self.gfp):
            open(p, "w").close()
        self.exe = build(self, "hostile_main", self.d, {
            "RUN": os.path.join(self.d, "run"), "TRACE": self.trace,
            "ISO": os.path.join(self.d, "iso"), "FAIL_NTH": "/dev/full",
            "FAILSLAB_GFP": self.gfp})

    def test_fail_nth_write_failure_fails_the_check(self):
        recs = records(self, [self.exe, "fail-nth"])
        self.assertEqual(len(recs), 1, recs)
        r = recs[0]
        self.assertEqual((r["id"], r["status"]), ("guest.faults.alloc-every-point", "fail"))
        self.assertRegex(r["reason"], r"^allocation 1: writing /dev/full failed: "
                         r"No space left on device")
        self.assertEqual((r["points"], r["clean"]), (0, 0))

    def test_misaligned_case_is_a_good_request_from_an_odd_address(self):
        r = records(self, [self.exe, "misaligned"])[0]
        self.assertEqual(r["odd"], 1)
        req = cavs_pack.decode_request(bytes.fromhex(r["hex"]))
        self.assertEqual((req["driver"], req["out_len"]), ("drbg_nopr_sha256", 32))
        self.assertEqual(len(bytes.fromhex(r["hex"])), r["len"])


if __name__ == "__main__":
    unittest.main()
