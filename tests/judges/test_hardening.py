# SPDX-License-Identifier: GPL-2.0-only
"""hardening.faults: every fault of the plan injected and handled.

A fault passes only when every check that injects it ran and passed: one
failed check fails it, and so does one skipped check beside passing ones
(a skip is never a pass).  A fault none of whose checks ran is "not run",
one some of whose checks were not reported at all is "partly run": each a
skip of hardening.faults when the debug kernel was not booted, a failure
when it was.
"""

import glob
import re
import unittest

from harness.base import config
from harness.base.checks import Check
from harness.judges import hardening


def every_check(status="pass", but=None):
    """One check for every id the plan names (with a parameter suffix for
    one of them, as KUnit gives), all with status; but: {id: status}."""
    out = []
    for _, ids in hardening.FAULTS:
        for cid in ids:
            if any(c.id == cid for c in out):
                continue
            st = (but or {}).get(cid, status)
            if st is None:
                continue
            out.append(Check(cid, st, cid, reason=None if st == "pass" else "why",
                             counts={"points": 12} if "alloc-every" in cid else {}))
    return out


class HardeningTest(unittest.TestCase):
    def verdict(self, checks, debug=True):
        h = hardening.summary(checks)
        return h, hardening.check(h, debug)

    def test_all_injected_and_handled(self):
        h, c = self.verdict(every_check())
        self.assertEqual(c.status, "pass", c.reason)
        self.assertEqual(c.counts["allocation_failures_injected"], 12)
        self.assertTrue(all(f["status"] == "pass" for f in h["faults"]))

    def test_partly_skipped_fault_fails(self):
        h, c = self.verdict(every_check(but={"fips.kunit.drbg_seed.jent_absent_layout":
                                             "skip"}))
        self.assertEqual(c.status, "fail")
        self.assertIn("partly skipped", c.reason)
        self.assertIn("fips.kunit.drbg_seed.jent_absent_layout", c.reason)
        st = {f["fault"][:40]: f["status"] for f in h["faults"]}
        self.assertIn("partly skipped", st.values())

    def test_one_failed_check_fails(self):
        _, c = self.verdict(every_check(but={"debug.guest.faults.alloc-every-point":
                                             "fail"}))
        self.assertEqual(c.status, "fail")
        self.assertIn("Allocation failure", c.reason)

    def test_parameterised_instances_count(self):
        checks = every_check(but={"kunit.jitterentropy": None})
        checks += [Check("kunit.jitterentropy.health.rct", "pass", "t"),
                   Check("kunit.jitterentropy.health.apt", "skip", "t", reason="r")]
        _, c = self.verdict(checks)
        self.assertEqual(c.status, "fail")
        self.assertIn("kunit.jitterentropy.health.apt", c.reason)

    def test_fault_not_run(self):
        checks = every_check(but={"boot.jitter-startup-fips.panic-reason": None})
        _, c = self.verdict(checks, debug=False)
        self.assertEqual(c.status, "skip")
        self.assertIn("start-up test fails with fips=1", c.reason)
        _, c = self.verdict(checks, debug=True)
        self.assertEqual(c.status, "fail")

    def test_fault_partly_run(self):
        """one check of a fault not reported at all, its others passing: the
        fault was not injected whole (before, any one check sufficed)"""
        checks = every_check(but={"guest.jitter.hooked_read": None})
        h, c = self.verdict(checks, debug=True)
        self.assertEqual(c.status, "fail")
        self.assertIn("partly run: guest.jitter.hooked_read not reported", c.reason)
        self.assertIn("intermittent health failure", c.reason)
        f = next(f for f in h["faults"] if "intermittent" in f["fault"])
        self.assertEqual((f["status"], f["absent"]), ("partly run",
                                                      ["guest.jitter.hooked_read"]))
        _, c = self.verdict(checks, debug=False)
        self.assertEqual(c.status, "skip")
        self.assertIn("partly run: guest.jitter.hooked_read not reported", c.reason)



class FaultIdsTest(unittest.TestCase):
    """Every KUnit case the hardening plan names is a case of a suite of
    the series: a renamed case (async_cancelled_on_uninstantiate became
    async_withdrawn_on_uninstantiate) made its fault "partly run" in every
    debug run, and, before a partial fault failed, silently passed."""

    def test_each_kunit_case_named_exists(self):
        text = ""
        for path in sorted(glob.glob(config.top("tangled/patches/*.patch"))):
            with open(path, errors="replace") as f:
                text += f.read()
        suites = set(re.findall(r'\.name = "(\w+)"', text))
        cases = set(re.findall(r"KUNIT_CASE(?:_PARAM)?\((\w+)", text))
        for _, ids in hardening.FAULTS:
            for cid in ids:
                parts = cid.split(".")
                if "kunit" not in parts:
                    continue
                named = parts[parts.index("kunit") + 1:]
                self.assertIn(named[0], suites, cid)
                if len(named) > 1:
                    self.assertIn(named[1], cases, cid)


if __name__ == "__main__":
    unittest.main()
