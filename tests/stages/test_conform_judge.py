# SPDX-License-Identifier: GPL-2.0-only
"""conform's verdict over one finished boot (judge_boot) and the tagging
of a run's checks (tag_requirements): the kernel log is always judged,
KUnit only for a boot that is to end, kmemleak where the boot asked
for a scan; every check carries its boot; and a malformed check record
becomes a failure while every check gets its requirements."""

import json
import os
import shutil
import tempfile
import unittest
from types import SimpleNamespace as NS
from unittest import mock

from harness.base import conf as confmod
from harness.base.checks import Check
from harness.stages import conform

CLEAN = "[    0.000000] Linux version 6.1\n[    1.000000] Run /init as init process\n"
SPLAT = CLEAN + "[    2.000000] BUG: kernel NULL pointer dereference, address: 0000000000000008\n"


class JudgeBootTest(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="judge-boot-")
        self.addCleanup(shutil.rmtree, self.d)
        kunit = mock.patch.object(conform.kunit, "checks",
                                  return_value=[Check.passed("kunit.fake.case", "t")])
        self.kunit = kunit.start()
        self.addCleanup(kunit.stop)

    def boot(self, log, outcome="end"):
        path = os.path.join(self.d, "console.log")
        with open(path, "w") as f:
            f.write(log)
        return NS(outcome=outcome, seconds=1.0, detail=None, console=path,
                  console_tail=lambda n: log)

    def judge(self, log, outcome="end", **spec):
        spec = dict({"name": "b1", "expect": outcome, "append": ""}, **spec)
        checks = conform.judge_boot(spec, self.boot(log, outcome), [], "/nonexistent")
        return {c.id: c for c in checks}

    def test_a_kernel_bug_fails_the_boot(self):
        got = self.judge(SPLAT)
        self.assertEqual(got["boot.b1.kernel-log"].status, "fail")
        self.assertIn("BUG: kernel NULL pointer", got["boot.b1.kernel-log"].reason)
        self.assertEqual(self.judge(CLEAN)["boot.b1.kernel-log"].status, "pass")

    def test_kunit_is_judged_only_for_a_boot_that_ends(self):
        self.assertIn("kunit.fake.case", self.judge(CLEAN))
        self.assertEqual(self.kunit.call_count, 1)
        got = self.judge(CLEAN, outcome="panic", panic_re="x")
        self.assertNotIn("kunit.fake.case", got)
        self.assertNotIn("kunit.fake.case", self.judge(CLEAN, kunit=False))
        self.assertEqual(self.kunit.call_count, 1)

    def test_kunit_and_the_console_patterns_get_the_boot_s_own(self):
        got = self.judge(CLEAN, console_re=["Linux version", "no such line"],
                         requires=("drbg_seed.case",))
        self.kunit.assert_called_once_with(os.path.join(self.d, "console.log"), "b1",
                                           "/nonexistent", ("drbg_seed.case",))
        self.assertEqual((got["boot.b1.console"].status, got["boot.b1.console-2"].status),
                         ("pass", "fail"))
        self.assertEqual(sorted(got), ["boot.b1", "boot.b1.console", "boot.b1.console-2",
                                       "boot.b1.kernel-log", "kunit.fake.case"])

    def test_kmemleak_only_where_the_boot_asked_for_a_scan(self):
        self.assertNotIn("guest.kmemleak.b1", self.judge(CLEAN))
        got = self.judge(CLEAN, append="quiet conform.kmemleak=1")
        self.assertIn("guest.kmemleak.b1", got)

    def test_every_check_carries_its_boot(self):
        got = self.judge(SPLAT, append="conform.kmemleak=1")
        self.assertGreater(len(got), 3)
        self.assertEqual({c.boot for c in got.values()}, {"b1"})

    def test_each_judge_gets_the_boot_s_own(self):
        """proc_crypto gets the boot's name and the kernel source, seed_trace
        whether the boot has a Jitter RNG, the CAVS judges the boot's
        vector meta; the second client's judge only where the boot ran it."""
        recs, meta, other = [{"type": "x"}], {"sections": 3}, {"sections": 4}
        seen = {}

        def spy(key):
            return lambda *a: seen.setdefault(key, []).append(a) or []
        with mock.patch.object(conform.proc_crypto, "checks", spy("proc")), \
                mock.patch.object(conform.seed_trace, "checks", spy("trace")), \
                mock.patch.object(conform.cavs_judge, "checks", spy("cavs")), \
                mock.patch.object(conform.kcapi_judge, "cavs_checks", spy("kcapi")):
            for spec in ({"jent": False, "cavs_meta": meta, "append": "conform.kcapi=1"},
                         {"cavs_meta": other}, {}):
                spec = dict({"name": "b1", "expect": "end", "append": ""}, **spec)
                conform.judge_boot(spec, self.boot(CLEAN), recs, "/src")
        self.assertEqual(seen["proc"], [(recs, "b1", "/src")] * 3)
        self.assertEqual(seen["trace"], [(recs, False), (recs, True), (recs, True)])
        self.assertEqual(seen["cavs"], [(recs, meta), (recs, other)])
        self.assertEqual(seen["kcapi"], [(recs, meta)])

    def test_no_console_log_is_a_failure(self):
        b = self.boot(CLEAN)
        os.unlink(b.console)
        checks = conform.judge_boot({"name": "b1", "expect": "end", "append": ""}, b, [],
                                    "/nonexistent")
        c = {c.id: c for c in checks}["boot.b1.console-log"]
        self.assertEqual((c.status, c.title), ("fail", "boot b1 left its console log"))
        self.assertTrue(c.reason.endswith("no kernel log, no KUnit result to judge"))


class TagRequirementsTest(unittest.TestCase):
    def test_requirements_through_a_prefix_and_malformed_records_fail(self):
        conf = confmod.load()
        checks = [Check.passed("cavs.kcapi", "t"), Check.passed("debug.cavs.kcapi", "t"),
                  Check("guest.odd", "maybe", "t"), Check.passed("cavs.kcapi", "t")]
        conform.tag_requirements(checks, conf)
        self.assertIn("cavs-second-client", checks[0].requirements)
        self.assertEqual(checks[1].requirements, checks[0].requirements)
        bad = checks[4:]
        self.assertEqual([c.id for c in bad], ["harness.report.4", "harness.report.5",
                                               "harness.report.6"])
        self.assertEqual({c.status for c in bad}, {"fail"})
        self.assertEqual(bad[0].title, "a check record of this run is well formed")
        self.assertEqual(bad[0].reason, "malformed check record: guest.odd: status 'maybe'")
        self.assertEqual([c.reason for c in bad[1:]],
                         ["malformed check record: guest.odd: maybe without a reason",
                          "malformed check record: cavs.kcapi: reported twice"])



class AfterBootsTest(unittest.TestCase):
    """The run's own checks once every boot has ended: the seed table from
    the drbg boot's log, the figures, the hardening verdict (with the debug
    kernel or not), the requirements; a judge that raises is a failure."""

    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="after-boots-")
        self.addCleanup(shutil.rmtree, self.d)
        self.console = os.path.join(self.d, "boots", "drbg", "console.log")
        os.makedirs(os.path.dirname(self.console))
        open(self.console, "w").close()
        self.mocks = {}
        for obj, name, value in (
                (conform.seeds, "seed_lengths", ({"rows": 22}, Check.passed("drbg.seed", "t"))),
                (conform, "kernel_facts", {"release": "6.1.0-test"}),
                (conform, "figure_checks", [Check.passed("figures.x", "t")]),
                (conform.hardening, "check", Check.passed("hardening.summary", "t"))):
            p = mock.patch.object(obj, name, return_value=value)
            self.mocks[name] = p.start()
            self.addCleanup(p.stop)

    def run_after(self, names, variants=("test",)):
        results = [({"name": n}, [Check.passed("cavs.kcapi", "t")] if n == "cavs" else [])
                   for n in names]
        return conform.after_boots(results, NS(out=self.d), list(variants), "6.1.192-3",
                                   confmod.load(), "2026-12-06T00:00:00")

    def test_the_run_s_checks(self):
        checks, facts = self.run_after(["drbg", "cavs"])
        ids = [c.id for c in checks]
        self.assertEqual(ids, ["cavs.kcapi", "drbg.seed", "figures.x", "hardening.summary"])
        self.mocks["seed_lengths"].assert_called_once_with([self.console])
        self.assertEqual(facts["drbg_seed_lengths"], {"rows": 22})
        build = self.mocks["kernel_facts"].call_args.args
        self.assertEqual(build[0], "6.1.192-3")
        self.assertTrue(build[2].endswith("/build-test"), build)
        fig = self.mocks["figure_checks"].call_args.args
        self.assertEqual((fig[0], fig[1].out, fig[2], fig[3]),
                         ([{"name": "drbg"}, {"name": "cavs"}], self.d,
                          "2026-12-06T00:00:00", "6.1.0-test"))
        self.assertFalse(self.mocks["check"].call_args.args[1])
        self.assertIn("cavs-second-client", checks[0].requirements)

    def test_no_drbg_boot_no_seed_table_and_debug_is_told(self):
        checks, facts = self.run_after(["cavs"], variants=("test", "debug"))
        self.assertNotIn("drbg.seed", [c.id for c in checks])
        self.assertIsNone(facts["drbg_seed_lengths"])
        self.assertTrue(self.mocks["check"].call_args.args[1])

    def test_a_judge_that_raises_is_a_failure(self):
        self.mocks["kernel_facts"].side_effect = RuntimeError("x" * 600)
        with mock.patch.object(conform.traceback, "print_exc") as tb:
            checks, _ = self.run_after(["drbg"])
        tb.assert_called_once_with()
        c = checks[-1]
        self.assertEqual((c.id, c.status, c.title), ("harness.judges", "fail",
                                                    "every judge of the run finished"))
        self.assertEqual(c.reason, ("a judge failed: RuntimeError('" + "x" * 600)[:500])


class ReportTest(unittest.TestCase):
    """conform's report: the run's facts beside the checks, the inputs'
    digests as the run measured them (else as they are now), the hashes
    of tangled/ by path from the top, written to a directory not yet made."""

    def write(self, status="pass", **facts):
        d = tempfile.mkdtemp(prefix="conform-report-")
        self.addCleanup(shutil.rmtree, d)
        out = os.path.join(d, "new", "conformance")
        with mock.patch.object(conform.evidence, "digests", return_value={"now": "1"}), \
                mock.patch("sys.stdout"):
            rc = conform.report(NS(out=out), "2026-12-07T01:00:00+00:00", 0.0, [],
                                [Check("guest.x", status, "t", reason="r")], **facts)
        with open(os.path.join(out, "report.json")) as f:
            return rc, json.load(f)

    def test_facts_inputs_and_tangled(self):
        rc, rep = self.write(inputs={"then": "2"}, kernel={"release": "6.1.0-test"})
        self.assertEqual(rc, 0)
        self.assertEqual(rep["inputs"], {"then": "2"})
        self.assertEqual(rep["kernel"], {"release": "6.1.0-test"})
        self.assertEqual(rep["summary"]["passed"], 1)
        self.assertIn("tangled/jitterentropy.c", rep["tangled"])
        self.assertTrue(all(p.startswith("tangled/") for p in rep["tangled"]))
        self.assertEqual(self.write()[1]["inputs"], {"now": "1"})
        rc, rep = self.write("fail")
        self.assertEqual((rc, rep["summary"]["failed"]), (1, 1))


if __name__ == "__main__":
    unittest.main()
