# SPDX-License-Identifier: GPL-2.0-only
"""The harness's own judgement of the seed material, on synthetic input.

The guest reports seed material and KUnit measurements; the judges
(harness/judges/seed_trace.py, seeds.py, kmemleak.py) decide whether they
match the book.  These tests feed them right and wrong records, so that a
harness that approves everything cannot pass.  Also the conform stage's
boot scheduling (run_plan) and the guest /init's build cache
(harness/base/guest.py).
"""

import os
import shutil
import tempfile
import unittest
from unittest import mock

from harness.base import config, guest
from harness.judges import drbg_model, kmemleak, seed_trace
from harness.judges.seeds import SEED_PATHS, STRENGTH, seed_lengths
from harness.stages import conform

TOP = config.TOP

PERS, ADDTL = b"trace pers", b"trace addtl"


def kernel_state(core, mech):
    """V and C as the kernel keeps them after instantiation (drbg_cavp.c's
    trace): Hash_DRBG V and C, HMAC_DRBG V and Key, CTR_DRBG V one ahead and
    the all-zero key it started from (the new Key is in the cipher)."""
    st = mech.state()
    if "C" in st:
        return st["V"], st["C"]
    if core.startswith("ctr_"):
        v = ((int.from_bytes(st["V"], "big") + 1) % (1 << 128)).to_bytes(16, "big")
        n = len(st["Key"]) + 16
        return v + bytes(n - 16), bytes(n)
    return st["V"], st["Key"]


def make_trace(driver, pattern=True, swap=False, nonce=True, corrupt_out=False,
               jent_present=True, state=True, jent_unread=False):
    """A trace record as drbg_trace.c prints it, computed with the model."""
    core, pr = drbg_model.parse_driver(driver)
    s = STRENGTH[core]
    p = s + s // 2 if nonce else s
    grb = lambda n, seed: bytes((seed * 31 + i * 7 + 1) % 251 + 1 for i in range(n))  # noqa: E731
    jent = (lambda n, seed: b"\x5a" * n) if pattern else \
        (lambda n, seed: bytes((seed * 17 + i * 3) % 200 + 3 for i in range(n)))
    if jent_unread:         # the cleared buffer handed over unread
        jent = lambda n, seed: bytes(n)  # noqa: E731

    def seed(part, idx, extra):
        a, b = grb(part, idx), jent(part, idx) if jent_present else b""
        return (b + a if swap else a + b) + extra

    seeds = [(False, seed(p, 1, PERS)), (True, seed(s, 2, ADDTL))]
    if pr:
        seeds.append((True, seed(s, 3, b"")))
    mech = drbg_model.CORES[core]()
    mech.instantiate(seeds[0][1], b"", b"")
    v, c = kernel_state(core, mech)
    for _, m in seeds[1:]:
        mech.reseed(m, b"")
    out = mech.generate(64, None)
    if corrupt_out:
        out = bytes([out[0] ^ 1]) + out[1:]
    rec = {"type": "trace", "driver": driver, "pattern": pattern, "err": 0, "step": 0,
           "pers": PERS.hex(), "addtl": ADDTL.hex(),
           "seeds": [{"reseed": int(r), "len": len(m), "hex": m.hex()} for r, m in seeds],
           "out": out.hex()}
    if state:
        rec.update(v=v.hex(), c=c.hex())
    return rec


class TraceTest(unittest.TestCase):
    def test_good_traces_pass(self):
        for drv in ("drbg_nopr_hmac_sha256", "drbg_pr_ctr_aes192", "drbg_nopr_sha1"):
            recs = [make_trace(drv, True), make_trace(drv, False)]
            c = seed_trace.checks(recs)
            self.assertEqual([x.status for x in c], ["pass"], c)
            self.assertEqual(c[0].counts["recomputed"], 2)

    def test_state_after_instantiation_is_compared(self):
        for drv in ("drbg_nopr_sha384", "drbg_pr_hmac_sha512", "drbg_nopr_ctr_aes256"):
            c = seed_trace.checks([make_trace(drv)])
            self.assertEqual(c[0].status, "pass", c[0].reason)
            self.assertEqual(c[0].counts["states_compared"], 1)
        c = seed_trace.checks([make_trace("drbg_nopr_hmac_sha256", state=False)])
        self.assertEqual((c[0].status, c[0].counts["states_compared"]), ("pass", 0))

    def test_state_not_from_the_first_seeding_fails(self):
        rec = make_trace("drbg_nopr_hmac_sha256")
        rec["c"] = ("%02x" % (int(rec["c"][:2], 16) ^ 1)) + rec["c"][2:]
        c = seed_trace.checks([rec])
        self.assertEqual(c[0].status, "fail")
        self.assertIn("Key after instantiation", c[0].reason)
        rec = make_trace("drbg_pr_ctr_aes128")
        core, _ = drbg_model.parse_driver("drbg_pr_ctr_aes128")
        mech = drbg_model.CORES[core]()
        mech.instantiate(bytes.fromhex(rec["seeds"][0]["hex"]), b"", b"")
        rec["v"] = mech.state()["V"].hex() + rec["v"][32:]     # not one ahead
        c = seed_trace.checks([rec])
        self.assertIn("V + 1 after instantiation", c[0].reason)

    def test_swapped_sources_fail(self):
        c = seed_trace.checks([make_trace("drbg_nopr_sha256", swap=True)])
        self.assertEqual(c[0].status, "fail")
        self.assertIn("not the Jitter pattern", c[0].reason)

    def test_dropped_nonce_fails(self):
        c = seed_trace.checks([make_trace("drbg_pr_hmac_sha1", nonce=False)])
        self.assertEqual(c[0].status, "fail")
        self.assertIn("expected reseed=0 len=", c[0].reason)

    def test_output_not_from_these_seeds_fails(self):
        c = seed_trace.checks([make_trace("drbg_nopr_ctr_aes128",
                                                  corrupt_out=True)])
        self.assertEqual(c[0].status, "fail")
        self.assertIn("the host model computes", c[0].reason)

    def test_real_jitter_part_all_zero_fails(self):
        # make mutants: drbg_jent_read() returning 0 without reading the
        # Jitter RNG hands over the cleared buffer, consistently traced.
        c = seed_trace.checks([make_trace("drbg_nopr_hmac_sha256", pattern=False,
                                          jent_unread=True)])
        self.assertEqual(c[0].status, "fail")
        self.assertIn("real Jitter part is all zero", c[0].reason)

    def test_missing_pr_reseed_fails(self):
        rec = make_trace("drbg_pr_sha512")
        rec["seeds"] = rec["seeds"][:2]
        c = seed_trace.checks([rec])
        self.assertIn("2 seedings, expected 3", c[0].reason)

    def test_malformed_trace_is_a_failed_check_not_a_crash(self):
        # make mutants: a mutant's trace with no seeding crashed the replay
        # (IndexError); bad hex and a missing field must not crash either.
        empty = make_trace("drbg_nopr_sha256")
        empty["seeds"] = []
        badhex = make_trace("drbg_nopr_sha256")
        badhex["seeds"][0]["hex"] = "zz"
        nokey = make_trace("drbg_pr_sha1")
        del nokey["out"]
        for rec, why in ((empty, "0 seedings, expected 2"),
                         (badhex, "malformed trace record (ValueError"),
                         (nokey, "malformed trace record (KeyError")):
            c = seed_trace.checks([rec])
            self.assertEqual(c[0].status, "fail", why)
            self.assertIn(why, c[0].reason)
            self.assertNotIn("\n", c[0].reason)


class NoJitterTraceTest(unittest.TestCase):
    """A boot whose Jitter RNG is absent: seeds are get_random_bytes() alone."""

    def test_grb_only_passes_when_absent(self):
        c = seed_trace.checks([make_trace("drbg_pr_sha256", jent_present=False)],
                                      jent=False)
        self.assertEqual(c[0].status, "pass", c[0].reason)

    def test_jitter_part_present_fails_when_absent(self):
        c = seed_trace.checks([make_trace("drbg_nopr_ctr_aes256")], jent=False)
        self.assertEqual(c[0].status, "fail")

    def test_grb_only_fails_when_present(self):
        c = seed_trace.checks([make_trace("drbg_nopr_sha1", jent_present=False)])
        self.assertEqual(c[0].status, "fail")


class SeedLengthTest(unittest.TestCase):
    def console(self, lines):
        fd, path = tempfile.mkstemp(suffix=".log")
        with os.fdopen(fd, "w") as f:
            f.write("".join(f"    # case: {ln}\n" for ln in lines))
        return path

    def full(self, bad=None):
        lines = []
        for pr in ("pr", "nopr"):
            for core, s in STRENGTH.items():
                d = f"drbg_{pr}_{core}"
                paths = ["instantiate", "reseed-explicit", "reseed-threshold",
                         "instantiate-nojent", "reseed-nojent", "instantiate-jentfail",
                         "reseed-async"]
                if pr == "pr":
                    paths.append("reseed-pr")
                else:
                    paths += ["reseed-300s", "reseed-jentfail", "reseed-crng-ready",
                              "reseed-threshold-jentfail"]
                for sp in paths:
                    g, j = SEED_PATHS[sp]
                    g, j = int(g * s), int(j * s)
                    if bad == (d, sp):
                        g = s
                    lines.append(f"seedlen {d} {sp} total={g + j + 5} grb={g} jent={j} "
                                 "extra=5 layout=ok")
        return lines

    def test_all_as_expected(self):
        table, c = seed_lengths([self.console(self.full())])
        self.assertEqual(c.status, "pass", c.reason)
        self.assertEqual(c.counts["instances"], 22)

    def test_short_nonce_is_caught(self):
        _, c = seed_lengths([self.console(self.full(("drbg_pr_sha384",
                                                              "instantiate")))])
        self.assertEqual(c.status, "fail")
        self.assertIn("drbg_pr_sha384 instantiate", c.reason)

    def test_missing_path_is_caught(self):
        lines = [ln for ln in self.full() if "drbg_nopr_sha1 reseed-async" not in ln]
        _, c = seed_lengths([self.console(lines)])
        self.assertIn("drbg_nopr_sha1 reseed-async: not measured", c.reason)

    def test_synchronous_reseed_of_partial_is_required(self):
        """The guarantee of the synchronous reseed (issue 16, item 1) is a
        path of its own: a console without it fails."""
        lines = [ln for ln in self.full()
                 if "drbg_nopr_ctr_aes192 reseed-crng-ready" not in ln]
        _, c = seed_lengths([self.console(lines)])
        self.assertEqual(c.status, "fail")
        self.assertIn("drbg_nopr_ctr_aes192 reseed-crng-ready: not measured",
                      c.details["problems"])

    def test_async_reseed_takes_no_jitter_bytes(self):
        lines = [ln.replace("grb=16 jent=0", "grb=16 jent=16")
                 if "drbg_pr_sha1 reseed-async" in ln else ln for ln in self.full()]
        _, c = seed_lengths([self.console(lines)])
        self.assertEqual(c.status, "fail")
        self.assertTrue(any("drbg_pr_sha1 reseed-async" in p
                            for p in c.details["problems"]))


class KmemleakTest(unittest.TestCase):
    def test_report_fails_and_allowlist_applies(self):
        recs = [{"type": "kmemleak", "text": "unreferenced object 0xffff (size 64):\n"
                 "  backtrace:\n    drbg_alloc_state+0x10\n"},
                {"type": "kmemleak-done", "reports": 1}]
        c = kmemleak.check(recs, "b")
        self.assertEqual(c.status, "fail")
        self.assertEqual(kmemleak.check([{"type": "kmemleak-done", "reports": 0,
                                          "age_ms": 6000}],
                                                "b").status, "pass")
        self.assertEqual(kmemleak.check([], "b").status, "fail")


class RunPlanTest(unittest.TestCase):
    """Boots side by side: never more than jobs at once, a solo boot alone,
    a background boot beside the others without a slot, every boot run."""

    def run_plan(self, plan, jobs):
        import threading
        import time
        lock, live, log, done = threading.Lock(), set(), [], {}

        self.starts = []

        def one(i, spec):
            with lock:
                live.add(spec["name"])
                log.append(frozenset(live))
                self.starts.append(spec["name"])
            time.sleep(spec.get("t", 0.05))
            with lock:
                live.discard(spec["name"])
                done[i] = spec["name"]

        conform.run_plan(plan, jobs, one, lambda s: dict(s, prepared=True))
        return log, done

    def test_at_most_jobs_and_solo_alone(self):
        plan = [{"name": "main", "solo": True}] + \
            [{"name": f"b{i}"} for i in range(6)] + \
            [{"name": "hang", "background": True, "t": 0.4}] + \
            [{"name": f"c{i}"} for i in range(3)]
        log, done = self.run_plan(plan, 2)
        self.assertEqual(sorted(done), list(range(len(plan))))
        self.assertEqual(log[0], {"main"})          # nothing beside the solo boot
        self.assertTrue(all(len(s - {"hang"}) <= 2 for s in log))
        self.assertTrue(any(len(s - {"hang"}) == 2 for s in log))   # side by side
        self.assertTrue(any("hang" in s and len(s) > 1 for s in log))

    def test_one_job_is_one_after_another(self):
        log, done = self.run_plan([{"name": f"b{i}"} for i in range(4)], 1)
        self.assertEqual(len(done), 4)
        self.assertTrue(all(len(s) == 1 for s in log))

    def test_longest_first_after_solo_and_background(self):
        """The debug kernel's long boots start first (beside each other),
        not last, where the two longest would end the run one after the
        other; the solo boot still runs first and alone."""
        plan = [{"name": "main", "solo": True}, {"name": "drbg"},
                {"name": "hang", "background": True}, {"name": "cavs"},
                {"name": "debug-jitter"}, {"name": "debug-cavs"}, {"name": "debug-main"}]
        names = [plan[i]["name"] for i in conform.order(plan)]
        self.assertEqual(names, ["main", "hang", "debug-main", "debug-cavs", "debug-jitter",
                                 "drbg", "cavs"])
        self.assertEqual(sorted(conform.COST, key=conform.COST.get)[-2:],
                         ["debug-drbg", "debug-main"])
        log, done = self.run_plan([dict(b, t=0.02) for b in plan], 2)
        self.assertEqual(sorted(done), list(range(len(plan))))
        self.assertEqual(log[0], {"main"})
        self.assertEqual(self.starts, names)

    def test_solo_waits_for_running_boots(self):
        log, _ = self.run_plan([{"name": "a", "t": 0.2}, {"name": "s", "solo": True},
                                {"name": "b"}], 2)
        self.assertIn(frozenset({"s"}), log)
        self.assertFalse(any("s" in x and len(x) > 1 for x in log))


class GuestBuildCacheTest(unittest.TestCase):
    """The guest /init is linked again when a source changes, not otherwise."""

    def test_relinks_only_on_change(self):
        top = tempfile.mkdtemp(prefix="guest-")
        try:
            shutil.copytree(os.path.join(TOP, guest.SOURCES),
                            os.path.join(top, guest.SOURCES))
            with mock.patch.object(config, "TOP", top):
                out = os.path.join(top, "out")
                init = guest.build(out)
                first = os.stat(init).st_mtime_ns
                self.assertEqual(os.stat(guest.build(out)).st_mtime_ns, first)
                with open(os.path.join(top, guest.SOURCES, "report.h"), "a") as f:
                    f.write("/* changed */\n")
                os.utime(init, ns=(first - 10**9, first - 10**9))
                self.assertGreater(os.stat(guest.build(out)).st_mtime_ns,
                                   first - 10**9)
        finally:
            shutil.rmtree(top)

if __name__ == "__main__":
    unittest.main()
