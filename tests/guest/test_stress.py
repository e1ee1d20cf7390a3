# SPDX-License-Identifier: GPL-2.0-only
"""make stress's guest calls (conformance/guest/stress.c, stress_blk.c),
built for the host with regular files standing in for the kernel's.

- The plan of the calls comes from the seed alone: the same seed makes the
  same sequence (its FNV-1a hash, which the guest reports), another seed
  another, and every interface gets calls.
- A call whose result is not the expected one is counted and named: here
  the files accept every write, so the malformed requests the kernel must
  refuse are "accepted", as a kernel that lost a check would do.
- The blocking API's result line is read back as the kernel writes it,
  and its error count reaches the caller (a run with errors fails).
- Allocation failure at every point: a path whose run without a fault
  does not give the interface's reply fails and says so (here a regular
  file echoes the request back); a fail-nth whose counter never reaches 0
  injects nothing, and no point is counted.
"""

import os
import shutil
import tempfile
import unittest

from .build import build, records

LINE = ("ops=16 queued=5 busy=2 cancels=1 cancel_syncs=3 syncs=2 sync_skipped=0 "
        "pauses=4 callbacks=4 errors={errors} ready_at_start=0 ready_at_end=1\n")
IFACES = 10


class StressTest(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="guest-stress-")
        self.addCleanup(shutil.rmtree, self.d)
        self.paths = {k: os.path.join(self.d, k.lower()) for k in
                      ("STRESS_RUN", "STRESS_TRACE", "STRESS_BLK", "STRESS_ISO",
                       "STRESS_RAW")}
        self.paths.update({
            "FAULT_NTH": os.path.join(self.d, "fail-nth"),
            "FAULT_SLAB": os.path.join(self.d, "failslab") + "/",
            "FAULT_PAGE": os.path.join(self.d, "no-page-alloc") + "/",
            "FAULT_RUN": self.paths["STRESS_RUN"],
            "FAULT_TRACE": self.paths["STRESS_TRACE"]})
        os.mkdir(self.paths["FAULT_SLAB"])
        for k, p in self.paths.items():
            if not p.endswith("/"):
                open(p, "w").close()
        open(self.paths["FAULT_SLAB"] + "ignore-gfp-wait", "w").close()
        self.exe = build(self, "stress_main", self.d, self.paths)

    def blk_file(self, errors):
        # (the guest writes its command over the start: room for it first)
        with open(self.paths["STRESS_BLK"], "w") as f:
            f.write(" " * 64 + LINE.format(errors=errors))

    def test_same_seed_same_sequence(self):
        a = records(self, [self.exe, "plan", "20", "5000"])[0]
        b = records(self, [self.exe, "plan", "20", "5000"])[0]
        c = records(self, [self.exe, "plan", "21", "5000"])[0]
        self.assertEqual(a, b)
        self.assertNotEqual(a["fnv"], c["fnv"])
        self.assertEqual(len(a["counts"]), IFACES)
        self.assertTrue(all(n > 0 for n in a["counts"]), a["counts"])
        self.assertEqual(sum(a["counts"]), 5000)

    def test_a_longer_plan_starts_as_the_shorter(self):
        short = records(self, [self.exe, "plan", "7", "100"])[0]
        long = records(self, [self.exe, "plan", "7", "200"])[0]
        self.assertNotEqual(short["fnv"], long["fnv"])
        self.assertTrue(all(s <= n for s, n in zip(short["counts"], long["counts"])))

    def test_accepted_malformed_requests_are_unexpected(self):
        self.blk_file(0)
        r = records(self, [self.exe, "calls", "20", "300"])[0]
        self.assertGreater(r["calls"], 300)
        self.assertGreater(r["unexpected"], 0)
        self.assertRegex(r["first"], r"^call \d+ \(\w+, [^)]*\): got -?\d+, expected -?\d+$")

    def test_blocking_result_line_read_back(self):
        self.blk_file(0)
        r = records(self, [self.exe, "blk", "5"])[0]
        self.assertEqual((r["result"], r["queued"], r["callbacks"], r["errors"]),
                         (0, 5, 4, 0))
        self.assertEqual((r["ready_at_start"], r["ready_at_end"]), (0, 1))
        self.blk_file(2)
        self.assertEqual(records(self, [self.exe, "blk", "5"])[0]["errors"], 2)

    def test_blocking_without_a_result_line_is_an_error(self):
        r = records(self, [self.exe, "blk", "5"])[0]
        self.assertEqual(r["errors"], -1)

    def test_fault_paths_that_do_not_answer_fail(self):
        recs = records(self, [self.exe, "faults"])
        self.assertEqual([r["id"] for r in recs],
                         ["guest.stress.faults.run.drbg_pr_ctr_aes128",
                          "guest.stress.faults.trace.drbg_nopr_ctr_aes128"])
        self.assertEqual(recs[0]["status"], "fail")
        self.assertEqual(recs[0]["reason"], "without a fault: result -5")
        self.assertEqual(recs[1]["reason"], "without a fault: result 1")
        self.assertEqual([r["points"] for r in recs], [0, 0])

    def test_no_fault_injection_is_a_skip(self):
        os.unlink(self.paths["FAULT_NTH"])
        self.assertEqual(records(self, [self.exe, "faults"]), [{"skip": 1}])



SLABINFO = """slabinfo - version: 2.1
# name            <active_objs> <num_objs> <objsize> <objperslab> <pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : slabdata <active_slabs> <num_slabs> <sharedavail>
kmalloc-64          {k64}   {k64}     64   64    1 : tunables    0    0    0 : slabdata     {s64}     {s64}      0
kmalloc-4k           16     16   4096    8    8 : tunables    0    0    0 : slabdata      {s4k}      {s4k}      0
a-cache-name-of-more-than-sixty-three-characters-which-the-parser-must-skip 1 1 8 1 1 : tunables 0 0 0 : slabdata 1 1 0
dentry              300    300    192   21    1 : tunables    0    0    0 : slabdata     15     15      0
"""


class SlabinfoTest(unittest.TestCase):
    """guest.stress.memory names the caches that grew: each cache's slab is
    num_slabs x pagesperslab x 4 KiB, the largest growths come first, a
    cache that shrank or held is not named, and a line it cannot read is
    left out rather than misread."""

    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="guest-slabinfo-")
        self.addCleanup(shutil.rmtree, self.d)
        self.exe = build(self, "stress_main", self.d, {})

    def slabinfo(self, name, **kw):
        p = os.path.join(self.d, name)
        with open(p, "w") as f:
            f.write(SLABINFO.format(**kw))
        return p

    def test_growth_per_cache(self):
        a = self.slabinfo("a", k64=640, s64=10, s4k=2)
        b = self.slabinfo("b", k64=6400, s64=100, s4k=3)
        r = records(self, [self.exe, "slabtop", a, b])[0]
        self.assertEqual((r["caches_a"], r["caches_b"]), (3, 3))
        # kmalloc-64: 90 more one-page slabs; kmalloc-4k: one more 8-page slab
        self.assertEqual(r["top"], "kmalloc-64 +360, kmalloc-4k +32")

    def test_nothing_grew(self):
        a = self.slabinfo("a", k64=640, s64=10, s4k=3)
        b = self.slabinfo("b", k64=64, s64=1, s4k=3)
        self.assertEqual(records(self, [self.exe, "slabtop", a, b])[0]["top"], "")

    def test_missing_file_reads_no_cache(self):
        a = self.slabinfo("a", k64=640, s64=10, s4k=3)
        r = records(self, [self.exe, "slabtop", os.path.join(self.d, "none"), a])[0]
        self.assertEqual((r["caches_a"], r["caches_b"]), (0, 3))
        self.assertEqual(r["top"], "kmalloc-4k +96, dentry +60, kmalloc-64 +40")

    def test_every_cache_is_shrunk(self):
        """Each /sys/kernel/slab/<cache>/shrink gets "1" (kmem_cache_shrink():
        KASAN's quarantine emptied, empty slabs given back); an entry with no
        shrink file is passed over, and a missing directory is -1."""
        sys_slab = os.path.join(self.d, "slab")
        for name in ("kmalloc-64", "dentry", "no-shrink-file"):
            os.makedirs(os.path.join(sys_slab, name))
            if name != "no-shrink-file":
                open(os.path.join(sys_slab, name, "shrink"), "w").close()
        r = records(self, [self.exe, "shrink", sys_slab])[0]
        self.assertEqual(r["shrunk"], 2)
        for name in ("kmalloc-64", "dentry"):
            with open(os.path.join(sys_slab, name, "shrink")) as f:
                self.assertEqual(f.read(), "1")
        self.assertEqual(records(self, [self.exe, "shrink", sys_slab + "-none"])[0]["shrunk"], -1)


if __name__ == "__main__":
    unittest.main()
