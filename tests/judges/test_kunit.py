# SPDX-License-Identifier: GPL-2.0-only
"""The KUnit judge on recorded console logs, with failures put in.

The judge reads a log with the kernel's own KTAP parser (from the cached
pristine tree: the host tests import it when it is missing).  A recorded
main boot passes every case; the same log with one case "not ok", one
case skipped, the kernel stopped in the middle of a suite, or no KUnit
output at all must fail (a skip is a skip, never a pass), and a case the
boot exists to run (plan.py "requires") that was skipped or did not run
fails.
"""

import unittest

from harness.base import kcache
from harness.judges import kunit

from . import logs

MAIN = "main-console.log"
SCENARIO = "random_blocking_unseeded.seed_module_scenario"


def src():
    return kcache.ensure_pristine()[1]


def statuses(checks):
    return {c.id: c.status for c in checks}


class KunitJudgeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.src = src()

    def judge(self, path, requires=()):
        return kunit.checks(path, "main", self.src, requires)

    def test_recorded_log_passes(self):
        st = statuses(self.judge(logs.path(MAIN), [SCENARIO]))
        self.assertEqual(len(st), 12)
        self.assertEqual(set(st.values()), {"pass"})
        self.assertEqual(st[f"kunit.{SCENARIO}"], "pass")

    def test_failed_case(self):
        p = logs.edited(self, MAIN, "    ok 4 async_many_requests\n",
                        "    # async_many_requests: EXPECTATION FAILED at "
                        "drivers/char/random_blocking_kunit.c:212\n"
                        "    Expected r[i].got == 32, but\n"
                        "    not ok 4 async_many_requests\n")
        cs = {c.id: c for c in self.judge(p)}
        c = cs["kunit.random_blocking.async_many_requests"]
        self.assertEqual(c.status, "fail")
        self.assertIn("EXPECTATION FAILED", c.reason)
        self.assertEqual(sum(x.status == "fail" for x in cs.values()), 1)

    def test_skipped_case_is_a_skip_not_a_pass(self):
        p = logs.edited(self, MAIN, "    ok 9 async_bad_arguments\n",
                        "    ok 9 async_bad_arguments # SKIP no device here\n")
        c = {c.id: c for c in self.judge(p)}["kunit.random_blocking.async_bad_arguments"]
        self.assertEqual((c.status, c.reason), ("skip", "no device here"))

    def test_required_scenario_skipped_fails(self):
        p = logs.edited(self, MAIN, "    ok 1 seed_module_scenario\n",
                        "    ok 1 seed_module_scenario # SKIP CRNG already ready: boot "
                        "with random.trust_cpu=off\n")
        c = {c.id: c for c in self.judge(p, [SCENARIO])}[f"kunit.{SCENARIO}"]
        self.assertEqual(c.status, "fail")
        self.assertIn("exists to run this scenario", c.reason)
        self.assertIn("CRNG already ready", c.reason)
        # Not required in this boot: it stays a skip.
        c = {c.id: c for c in self.judge(p)}[f"kunit.{SCENARIO}"]
        self.assertEqual(c.status, "skip")

    def test_required_scenario_absent_fails(self):
        cs = {c.id: c for c in self.judge(logs.path(MAIN),
                                          ["drbg_unseeded.partial_then_async_full"])}
        c = cs["kunit.drbg_unseeded.partial_then_async_full"]
        self.assertEqual(c.status, "fail")
        self.assertIn("did not run in boot main", c.reason)

    def test_kernel_stopped_mid_suite(self):
        t = logs.text(MAIN)
        cut = t.index("    ok 4 async_many_requests")
        p = logs.written(self, t[:cut] + "Kernel panic - not syncing: Fatal exception\n")
        cs = self.judge(p)
        st = statuses(cs)
        self.assertEqual(st["kunit.random_blocking.sync_bad_arguments"], "pass")
        missing = [c for c in cs if c.id.startswith("kunit.random_blocking.missing-")]
        self.assertEqual(len(missing), 8)
        self.assertTrue(all(c.status == "fail" for c in missing))
        self.assertEqual(len(set(st)), len(cs), "every id once")

    def test_no_kunit_output(self):
        p = logs.written(self, "Linux version 6.1\nKernel panic - not syncing: boom\n")
        cs = self.judge(p)
        self.assertEqual([(c.id, c.status) for c in cs], [("kunit.main", "fail")])


if __name__ == "__main__":
    unittest.main()
