# SPDX-License-Identifier: GPL-2.0-only
"""make bench's arithmetic, on result lines recorded from real bench boots.

The bench verb (harness/stages/bench.py, with its arithmetic in
bench_stats.py and its bench.md in bench_report.py) turns the guest's
bench lines (conformance/guest/bench.c) and the logs of `make conform`
and `kunit.py run` into bench.json and bench.md; the book's performance
hook (harness/stages/book/performance.py) draws the appendix from
bench.json.  These tests check the aggregation, the log parsing, the
target verdicts and the appendix on recorded data.  They never time
anything: no timing is judged in a test (issue 9).
"""

import json
import os
import shutil
import subprocess
import tempfile
import unittest
from unittest import mock

from harness.base import evidence
from harness.stages import bench
from harness.stages import bench_stats as stats
from harness.stages.bench_report import markdown
from harness.stages.book import md as bookmd
from harness.stages.book import performance

# Recorded from a TCG bench boot of each kernel (bench.reads=4
# bench.max=512 bench.drbg=1), cut to three DRBG instances.
OURS = """\
{"type":"begin"}
{"type":"bench_initcall","fn":"jent_mod_init","ret":0,"us":18976}
{"type":"bench_initcall","fn":"drbg_init","ret":0,"us":0}
{"type":"bench_crng","ready_before":false,"wait_us":1254311}
{"type":"bench_jent_read","bytes":32,"us":[25146,16266,14511,16734]}
{"type":"bench_jent_size","bytes":32,"reads":1,"us":15364}
{"type":"bench_jent_size","bytes":128,"reads":1,"us":74724}
{"type":"bench_jent_size","bytes":512,"reads":4,"us":350790}
{"type":"bench_drbg","driver":"drbg_pr_ctr_aes128","err":0,"us":[29455]}
{"type":"bench_drbg","driver":"drbg_pr_sha1","err":0,"us":[17658]}
{"type":"bench_drbg","driver":"drbg_nopr_hmac_sha256","err":0,"us":[77040]}
{"type":"end","guest_us":5000000}
"""
PRISTINE = """\
{"type":"begin"}
{"type":"bench_initcall","fn":"jent_mod_init","ret":0,"us":174248}
{"type":"bench_initcall","fn":"drbg_init","ret":0,"us":0}
{"type":"bench_crng","ready_before":false,"wait_us":1647271}
{"type":"bench_jent_read","bytes":32,"us":[13900,18657,20257,15217]}
{"type":"bench_jent_size","bytes":32,"reads":1,"us":15401}
{"type":"bench_jent_size","bytes":128,"reads":1,"us":72817}
{"type":"bench_jent_size","bytes":512,"reads":4,"us":374099}
{"type":"bench_drbg","driver":"drbg_pr_ctr_aes128","err":0,"us":[38703]}
{"type":"bench_drbg","driver":"drbg_pr_sha1","err":0,"us":[47368]}
{"type":"bench_drbg","driver":"drbg_nopr_hmac_sha256","err":0,"us":[35914]}
{"type":"end","guest_us":6000000}
"""


def recs(text):
    return [json.loads(ln) for ln in text.splitlines() if ln.strip()]


class StatsTest(unittest.TestCase):
    def test_stats(self):
        self.assertEqual(stats.stats([3, 1, 2]), {"n": 3, "min": 1, "median": 2, "max": 3})
        self.assertEqual(stats.stats([4, 1, 2, 3])["median"], 2.5)
        self.assertEqual(stats.stats([None, 5])["n"], 1)
        self.assertIsNone(stats.stats([]))

    def test_paired_ratios_skip_missing_pairs(self):
        self.assertEqual(stats.paired_ratios([2, None, 3, 4], [1, 2, 0, 8]), [2.0, 0.5])


class GuestTest(unittest.TestCase):
    def test_one_boot(self):
        m = stats.guest_metrics(recs(OURS))
        self.assertEqual(m["initcall_us"], {"jent_mod_init": 18976, "drbg_init": 0})
        self.assertEqual(m["jent_read32_us"], [25146, 16266, 14511, 16734])
        self.assertEqual(m["jent_sizes"], {32: 15364, 128: 74724, 512: 350790})
        self.assertEqual(m["drbg_us"]["drbg_pr_sha1"], [17658])
        self.assertEqual(m["errors"], [])
        # Throughput: the largest request, bytes over seconds.
        self.assertAlmostEqual(stats.throughput(m["jent_sizes"]), 512 / 0.350790)

    def test_missing_initcall_and_errors(self):
        m = stats.guest_metrics([
            {"type": "bench_initcall", "fn": "jent_mod_init", "missing": True},
            {"type": "bench_error", "what": "bind jitterentropy_rng", "errno": 2},
            {"type": "bench_drbg", "driver": "drbg_pr_sha1", "err": 97, "us": []}])
        self.assertEqual(m["initcall_us"], {})
        self.assertEqual(m["errors"], ["bind jitterentropy_rng: errno 2"])
        self.assertEqual(m["drbg_err"], {"drbg_pr_sha1": 97})
        self.assertIsNone(stats.throughput({}))

    def test_recorded_pair(self):
        g = stats.aggregate_guest([{"kernel": "ours", "rep": 0, "recs": recs(OURS)},
                                   {"kernel": "pristine", "rep": 0, "recs": recs(PRISTINE)}])
        self.assertEqual(g["pairs"], 1)
        j = g["jitter"]
        # Per boot, the median of the four 32-byte reads.
        self.assertEqual(j["read32_us"]["ours"]["median"], (16266 + 16734) / 2)
        self.assertEqual(j["read32_us"]["pristine"]["median"], (15217 + 18657) / 2)
        self.assertAlmostEqual(j["read32_us"]["ratio"]["median"],
                               ((16266 + 16734) / 2) / ((15217 + 18657) / 2))
        self.assertAlmostEqual(j["throughput_Bps"]["ratio"]["median"], 374099 / 350790)
        self.assertTrue(j["throughput_Bps"]["higher_is_better"])
        self.assertAlmostEqual(j["startup_us"]["ratio"]["median"], 18976 / 174248)
        self.assertEqual(sorted(j["sizes_us"]), ["128", "32", "512"])
        self.assertAlmostEqual(g["drbg"]["drbg_pr_sha1"]["ratio"]["median"], 17658 / 47368)
        self.assertEqual(list(g["drbg"]), ["drbg_pr_ctr_aes128", "drbg_pr_sha1",
                                           "drbg_nopr_hmac_sha256"])

    def test_pairs_are_matched_by_repetition(self):
        def boot(kernel, rep, us):
            return {"kernel": kernel, "rep": rep, "recs": [
                {"type": "bench_drbg", "driver": "d", "err": 0, "us": [us, us + 2, us + 1]}]}
        # Repetition 2 of pristine failed (no record): it and its pair drop out.
        g = stats.aggregate_guest([boot("ours", 0, 10), boot("pristine", 0, 20),
                                   boot("pristine", 1, 10), boot("ours", 1, 30),
                                   boot("ours", 2, 99)])
        self.assertEqual(g["pairs"], 2)
        d = g["drbg"]["d"]
        self.assertEqual(d["ours"], {"n": 2, "min": 11, "median": 21, "max": 31})
        self.assertEqual(d["ratio"]["min"], 11 / 21)
        self.assertEqual(d["ratio"]["max"], 31 / 11)

    def test_targets(self):
        g = stats.aggregate_guest([{"kernel": "ours", "rep": 0, "recs": recs(OURS)},
                                   {"kernel": "pristine", "rep": 0, "recs": recs(PRISTINE)}])
        t = {x["id"]: x for x in stats.guest_targets(g)}
        self.assertTrue(t["jitter.throughput"]["met"])
        # drbg_nopr_hmac_sha256 was slower in the recorded pair.
        self.assertFalse(t["drbg.instantiate"]["met"])
        self.assertEqual(t["drbg.instantiate"]["slower"], ["drbg_nopr_hmac_sha256"])

    def test_cavs(self):
        runs = [{"fraction": 1.0, "rep": 0, "done": {"records": 8070, "us": 2100000,
                                                      "failed": 0}},
                {"fraction": 1.0, "rep": 1, "done": None},
                {"fraction": 0.25, "rep": 0, "done": {"records": 2018, "us": 570000,
                                                       "failed": 1}}]
        c = stats.aggregate_cavs(runs)
        self.assertEqual([x["fraction"] for x in c], [0.25, 1.0])
        self.assertEqual(c[1]["runs"], 2)
        self.assertEqual(c[1]["completed"], 1)
        self.assertAlmostEqual(c[1]["records_per_s"]["median"], 8070 / 2.1)
        self.assertEqual(c[0]["failed_records"], 1)


class WorkflowTest(unittest.TestCase):
    def test_conform_log(self):
        lines = [(0.3, "deps (build): all present"),
                 (80.0, "kernel: pristine tree ready in 74 s (commit cbb91e27e1b2)"),
                 (900.0, "kernel: test kernel built: 1649 build steps in 883 s"),
                 (1200.0, "conform: 150 passed, 1 failed, 2 skipped (10 boot(s), "
                          "290.5 s); report: build/conformance/report.{json,md,xml}")]
        p = stats.parse_conform_log(lines)
        self.assertEqual(p["import_s"], 74.0)
        self.assertEqual((p["build_steps"], p["build_s"]), (1649, 883.0))
        self.assertEqual(p["boots_s"], 290.5)
        self.assertEqual(p["summary"], {"passed": 150, "failed": 1, "skipped": 2,
                                        "boots": 10})
        self.assertIsNone(stats.parse_conform_log([(1.0, "kernel: applied")])["import_s"])
        self.assertIsNone(p["changed_files"])
        p = stats.parse_conform_log([(2.0, "kernel: applied 11 patches with git am onto "
                                     "linux-source-6.1 6.1.192-3; 1 file(s) changed since "
                                     "the last build, 17 kept their mtime")])
        self.assertEqual(p["changed_files"], 1)

    def test_kunit_log(self):
        lines = [(700.0, "[08:40:01] Elapsed time: 712.345s total, 2.100s configuring, "
                         "650.000s building, 60.245s running"),
                 (700.1, "[08:40:01] Testing complete. Ran 40 tests: passed: 38, "
                         "skipped: 2")]
        p = stats.parse_kunit_log(lines)
        self.assertEqual(p["total_s"], 712.345)
        self.assertEqual(p["building_s"], 650.0)
        self.assertEqual(p["summary"], "Ran 40 tests: passed: 38, skipped: 2")

    def test_conform_log_first_boot_and_kept_boots(self):
        """The one-chunk target times the first boot's result; the warm
        run counts the boots it took kept."""
        lines = [(20.0, "conform: boot main: blocking API KUnit suites (timeout 900 s, tcg)"),
                 (75.5, "conform: boot main: end after 55.1 s"),
                 (90.0, "conform: boot drbg: kept from the run of 2026-12-07T04:00:00+00:00, "
                        "same key (end after 30.0 s then; FRESH=conform boots it)"),
                 (91.0, "conform: boot cavs: kept from the run of x, same key (end after "
                        "1 s then; FRESH=conform boots it)")]
        p = stats.parse_conform_log(lines)
        self.assertEqual(p["first_boot_s"], 75.5)
        self.assertEqual(p["kept_boots"], 2)
        p = stats.parse_conform_log(lines[2:])
        self.assertEqual(p["first_boot_s"], 90.0)
        self.assertIsNone(stats.parse_conform_log(lines[:1])["first_boot_s"])

    def test_check_log(self):
        lines = [(5.0, "== check: tangle lint"),
                 (700.0, "check: 701 s (lint 1.2 s, host-tests 159.0 s, conform 419.3 s, "
                         "kconfig 0.0 s)"),
                 (701.0, "2932 passed, 0 failed, 175 skipped")]
        p = stats.parse_check_log(lines)
        self.assertEqual(p["summary"], {"passed": 2932, "failed": 0, "skipped": 175})
        self.assertEqual(p["steps_s"], {"lint": 1.2, "host-tests": 159.0, "conform": 419.3,
                                        "kconfig": 0.0})
        self.assertEqual(stats.parse_check_log([(1.0, "3 passed, 1 failed")])["summary"],
                         {"passed": 3, "failed": 1, "skipped": 0})

    def test_issue_39_targets(self):
        wf = {"conform_warm": {"seconds": 18.0, "kept_boots": 17},
              "kunit_warm": {"seconds": 18.2},
              "conform_chunk": {"seconds": 200.0, "first_boot_s": 31.0, "rc": 0,
                                "changed_files": 1, "build_s": 14.0},
              "check_cold": {"seconds": 1199.0, "rc": 0},
              "check_warm": {"seconds": 481.0, "rc": 0}}
        t = {x["id"]: x for x in stats.workflow_targets(wf)}
        self.assertEqual(t["workflow.warm"]["measured"], 0.99)
        self.assertTrue(t["workflow.warm"]["met"])
        self.assertEqual(t["workflow.warm"]["kept_boots"], 17)
        self.assertEqual((t["workflow.chunk"]["measured"], t["workflow.chunk"]["met"]),
                         (31.0, False))
        self.assertTrue(t["workflow.check.cold"]["met"])
        self.assertFalse(t["workflow.check.warm"]["met"])
        # A make check that failed meets no time target.
        wf["check_cold"]["rc"] = 1
        wf["conform_warm"]["seconds"] = 18.3
        wf["conform_chunk"]["first_boot_s"] = None
        t = {x["id"]: x for x in stats.workflow_targets(wf)}
        self.assertFalse(t["workflow.check.cold"]["met"])
        self.assertFalse(t["workflow.warm"]["met"])
        self.assertFalse(t["workflow.chunk"]["met"])

    def test_a_partial_run_builds_this_tree_not_the_last_copy(self):
        """builds() copies the working tree first unless the workflow phase
        of this run did: a copy left by an earlier run is of its tree (a
        partial run measured the previous Jitter RNG core that way)."""
        for copied, want in ((False, ["copy", "kernel"]), (True, ["kernel"])):
            b = bench.Bench.__new__(bench.Bench)
            b.out, b.repo, b.copied = "/nonexistent", tempfile.mkdtemp(), copied
            self.addCleanup(shutil.rmtree, b.repo)      # a copy an earlier run left
            done = []

            def make(target, log):
                done.append(target)
                return {"seconds": 1.0, "cpu_s": 1.0, "rc": 1, "load": None, "lines": []}
            b.make = make
            with self.subTest(copied=copied), \
                    mock.patch.object(bench, "copy_tree",
                                      side_effect=lambda d: done.append("copy") or 0), \
                    mock.patch("sys.stdout"), self.assertRaises(SystemExit):
                b.builds()
            self.assertEqual(done, want)
            self.assertTrue(b.copied)

    def test_make_check_runs_twice_in_the_copy(self):
        """The workflow's check phase: make check cold, then warm, each
        timed with its closing line and step times from its log."""
        b = bench.Bench.__new__(bench.Bench)
        b.out = "/nonexistent"
        logs = {"check_cold.log": [(1200.0, "check: 1200 s (kernel-debug 880.0 s, conform "
                                            "300.5 s)"), (1199.9, "2932 passed, 0 failed, "
                                                                  "175 skipped")],
                "check_warm.log": [(300.0, "check: 300 s (conform 20.0 s)"),
                                   (300.1, "2932 passed, 0 failed, 175 skipped")]}
        made = []

        def make(target, log):
            made.append((target, os.path.basename(log)))
            lines = logs[os.path.basename(log)]
            return {"seconds": lines[-1][0], "cpu_s": 1.0, "rc": 0, "load": None,
                    "lines": lines}
        b.make = make
        wf = {}
        b.check_runs(wf)
        self.assertEqual(made, [("check", "check_cold.log"), ("check", "check_warm.log")])
        self.assertEqual(wf["check_cold"]["steps_s"], {"kernel-debug": 880.0,
                                                       "conform": 300.5})
        self.assertEqual(wf["check_warm"]["summary"]["passed"], 2932)
        t = {x["id"]: x for x in stats.workflow_targets(wf)}
        self.assertEqual((t["workflow.check.cold"]["met"], t["workflow.check.warm"]["met"]),
                         (True, True))

    def test_user_space_output_target(self):
        e = {"ours-user": {"samples_per_block": 1806.0},
             "pristine-user": {"samples_per_block": 258.3}, "blocks_ratio": 0.62}
        (t,) = stats.entropy_targets(e)
        self.assertEqual((t["id"], t["measured"], t["met"]), ("jitter.user_output", 0.62,
                                                              False))
        self.assertIn("1806 against 258 raw samples per block", t["unit"])
        self.assertTrue(stats.entropy_targets(dict(e, blocks_ratio=1.0))[0]["met"])
        self.assertEqual(stats.entropy_targets({"ratio": 1.0}), [])

    def test_targets_met_or_not(self):
        wf = {"conform_cold": {"seconds": 1300.0}, "kunit_cold": {"seconds": 1000.0}}
        t = {x["id"]: x for x in stats.workflow_targets(wf)}
        self.assertEqual(t["workflow.cold"]["measured"], 1.3)
        self.assertFalse(t["workflow.cold"]["met"])
        self.assertNotIn("cpu_ratio", t["workflow.cold"])
        wf["conform_cold"]["seconds"] = 1200.0
        self.assertTrue(stats.workflow_targets(wf)[0]["met"])
        # The CPU time ratio is stated beside the wall clock, never instead.
        wf["conform_cold"]["cpu_s"], wf["kunit_cold"]["cpu_s"] = 1100.0, 1000.0
        cold = stats.workflow_targets(wf)[0]
        self.assertEqual((cold["measured"], cold["cpu_ratio"]), (1.2, 1.1))
        self.assertIn("CPU time (user + system) ratio 1.10", cold["note"])
        self.assertNotIn("ratio_without_import", cold)
        # The cache import is stated beside the ratio, and the ratio without it.
        wf["conform_cold"]["import_s"] = 100.0
        cold = stats.workflow_targets(wf)[0]
        self.assertEqual((cold["measured"], cold["ratio_without_import"]), (1.2, 1.1))
        self.assertFalse(stats.workflow_targets(dict(
            wf, conform_cold=dict(wf["conform_cold"], seconds=1250.0)))[0]["met"])
        self.assertTrue(cold["note"].startswith("1.10 without the one-time kernel "
                                                "cache import (100 s); CPU time"))

    CHAPTER = ("Prose with a line\n * that looks like a comment.\n\n"
               "<<function [[f]]>>=\n"
               "/*\n * A comment.\n */\n"                          # 6: never compiled
               "\tpr_devel(\"f: debug only\\n\");\n"            # 8: compiled out
               "\tpr_info(\"f: rewritten later\\n\");\n"        # 9: not in the tree
               "\tpr_warn(\"f: twice\\n\");\n"                  # 10: twice below
               "int f(void);\n@\n"
               "<<function [[g]]>>=\n"
               "\tpr_warn(\"f: twice\\n\");\n"                  # 14
               "\t\tpr_err_ratelimited(\"g: failed %d\\n\",\n"  # 15: the one
               "\t\t\t\t   ret);\n@\n")
    FINAL = {"pr_devel(\"f: debug only\\n\");", "pr_warn(\"f: twice\\n\");",
             "pr_err_ratelimited(\"g: failed %d\\n\",", "int f(void);", "/*",
             "* A comment.", "*/"}

    def test_one_chunk_edit_reaches_the_kernel_tree(self):
        """The edit is a compiled kernel message on a line the kernel tree
        has and no other code line of the chapter has.  The bench of
        9fe07e4 edited the first comment line of a chunk that a later patch
        rewrites: the kernel tree stayed as it was, and this test failed on
        that one_chunk_edit() (line 6 instead of 15)."""
        d = tempfile.mkdtemp(prefix="bench-")
        self.addCleanup(shutil.rmtree, d)
        p = os.path.join(d, "c.nw")
        with open(p, "w") as f:
            f.write(self.CHAPTER)
        original, line = bench.one_chunk_edit(p, self.FINAL)
        self.assertEqual((original, line), (self.CHAPTER, 15))
        with open(p) as f:
            new = f.read().split("\n")
        old = self.CHAPTER.split("\n")
        self.assertEqual([i for i in range(len(old)) if old[i] != new[i]], [14])
        self.assertEqual(new[14], "\t\tpr_err_ratelimited(\"g: failed %d (bench)\\n\",")
        # No such line: a clear stop, the chapter untouched.
        with open(p, "w") as f:
            f.write(self.CHAPTER)
        with self.assertRaises(SystemExit) as e:
            bench.one_chunk_edit(p, self.FINAL - {"pr_err_ratelimited(\"g: failed %d\\n\","})
        self.assertIn("no pr_*() message in a code chunk that reaches the kernel", str(e.exception))
        with open(p) as f:
            self.assertEqual(f.read(), self.CHAPTER)

    def test_series_lines_are_what_the_series_adds(self):
        d = tempfile.mkdtemp(prefix="bench-git-")
        self.addCleanup(shutil.rmtree, d)
        git = ["git", "-C", d, "-c", "user.name=t", "-c", "user.email=t@t"]
        subprocess.run(["git", "init", "-q", d], check=True)
        with open(os.path.join(d, "a.c"), "w") as f:
            f.write("int a;\nint b;\n")
        subprocess.run(git + ["add", "a.c"], check=True)
        subprocess.run(git + ["commit", "-qm", "pristine"], check=True)
        subprocess.run(git + ["tag", "pristine"], check=True)
        with open(os.path.join(d, "a.c"), "w") as f:
            f.write("int a;\n\tint c;\n")
        subprocess.run(git + ["commit", "-qam", "series"], check=True)
        self.assertEqual(bench.series_lines(d), {"int c;"})

    def test_an_edit_that_built_nothing_is_not_measured(self):
        """The record of 9fe07e4: 0 files changed, nothing built, 12 boots
        kept, 13.8 s.  Its target is not met and says why; the appendix
        says the edit did not reach the kernel."""
        hollow = {"what": "w", "seconds": 15.9, "rc": 0, "line": 298, "changed_files": 0,
                  "build_s": None, "first_boot_s": 13.75, "kept_boots": 12,
                  "summary": {"boots": 12}}
        real = dict(hollow, changed_files=1, build_s=13.0, first_boot_s=27.5, kept_boots=0)
        self.assertFalse(stats.chunk_reached(hollow))
        self.assertFalse(stats.chunk_reached(dict(real, build_s=None)))
        self.assertTrue(stats.chunk_reached(real))
        t = stats.workflow_targets({"conform_chunk": hollow})[0]
        self.assertEqual((t["measured"], t["met"]), (None, False))
        self.assertIn("changed 0 file(s) of the kernel tree and built nothing", t["note"])
        t = stats.workflow_targets({"conform_chunk": real})[0]
        self.assertEqual((t["measured"], t["met"]), (27.5, True))
        self.assertFalse(stats.workflow_targets({"conform_chunk": dict(real, rc=1)})[0]["met"])
        md = "\n".join(performance.chunk_md(hollow))
        self.assertIn("did not reach the kernel", md)
        self.assertNotIn("booted again", md)
        md = "\n".join(performance.chunk_md(real))
        self.assertIn("changed 1 file(s) of the kernel tree; the kernel was built again "
                      "in 13 s, and every boot of that run was booted again.", md)
        self.assertIn("5 of its 12 boots were kept",
                      "\n".join(performance.chunk_md(dict(real, kept_boots=5))))


class MarkdownAndAppendixTest(unittest.TestCase):
    def result(self):
        g = stats.aggregate_guest([{"kernel": "ours", "rep": 0, "recs": recs(OURS)},
                                   {"kernel": "pristine", "rep": 0, "recs": recs(PRISTINE)}])
        g["settings"] = {"reads_32B": 4, "max_bytes": 512, "drbg_reps_per_boot": 1}
        cavs = stats.aggregate_cavs([{"fraction": 1.0, "rep": 0, "done": {
            "records": 8070, "us": 2100000, "failed": 0}}])
        wf = {"conform_cold": {"what": "cold", "seconds": 1300.0, "rc": 0, "import_s": 74.0,
                               "build_s": 883.0, "boots_s": 290.5, "other_s": 52.5,
                               "cpu_s": 1500.0, "load": [[5.27, 4.5, 4.4], [6.18, 6.4, 5.9]]},
              "kunit_cold": {"what": "kunit cold", "seconds": 1000.0, "rc": 0,
                             "cpu_s": 1400.0}}
        res = {"started": "2026-12-03T07:56:34+00:00", "duration_s": 700.0, "accel": "tcg",
               "host": {"nproc": 2, "cpu_model": "AMD EPYC"}, "guest": g,
               "cavs": {"subsets": cavs, "repetitions": 1, "how": "all records"},
               "workflow": wf}
        res["targets"] = stats.workflow_targets(wf) + stats.guest_targets(g)
        return res

    def test_bench_md(self):
        md = markdown(self.result())
        self.assertIn("emulated", md)
        self.assertIn("| drbg_pr_sha1 | 17,658 (17,658–17,658) | 47,368 (47,368–47,368) "
                      "| 0.373 (0.373–0.373) |", md)
        self.assertIn("import 74 s + build 883 s of 1,300 s", md)
        self.assertIn("| **no** |", md)
        self.assertIn("| cold | 1,300 | 1,500 | import 74 s, build 883 s, boots 290 s, "
                      "other 52 s | 5.3, 6.2 | 0 |", md)
        self.assertIn("1.3 ratio (wall clock) (1.23 without the one-time kernel cache "
                      "import (74 s); CPU time (user + system) ratio 1.07;", md)

    def test_entropy_rate(self):
        """The entropy rate's rows and the ratio, in bench.md and the
        appendix, from bench.json's numbers (not recomputed)."""
        res = self.result()
        res["entropy_rate"] = {
            "ours-user": {"samples": 1000000, "cpu_s": 0.77, "samples_per_cpu_s": 1298701.3,
                          "h_i": 5.30624, "bits_per_cpu_s": 6891220.8},
            "pristine-user": {"samples": 1000000, "cpu_s": 4.65, "samples_per_cpu_s": 215053.8,
                              "h_i": 5.58490, "bits_per_cpu_s": 1201064.9},
            "ratio": 5.7376}
        res["entropy_rate"]["ours-user"].update(blocks=2879, samples_per_block=1806.2,
                                                blocks_per_cpu_s=347.2)
        res["entropy_rate"]["pristine-user"].update(blocks=3871, samples_per_block=258.3,
                                                    blocks_per_cpu_s=561.8)
        res["entropy_rate"]["blocks_ratio"] = 0.618
        md = markdown(res)
        self.assertIn("| ours-user | 1000000 | 0.77 | 1,298,701 | 5.3062 | 6,891,221 | 2879 "
                      "| 1,806 | 347 |", md)
        self.assertIn("Ours / 6.1's: 5.74 in assessed bits per CPU second, 0.62 in output "
                      "blocks per CPU second.", md)
        top = tempfile.mkdtemp(prefix="bench-book-")
        self.addCleanup(shutil.rmtree, top)
        ctx = {"top": top, "outdir": os.path.join(top, "out"), "report": None,
               "esc": bookmd.esc, "code": bookmd.code}
        os.makedirs(os.path.join(top, "build/bench"))
        with open(os.path.join(top, "build/bench/bench.json"), "w") as f:
            json.dump(res, f)
        md, _ = performance.render(ctx)
        self.assertIn("{- #perf-entropy-rate}", md)
        self.assertIn("| `pristine-user` | 1,000,000 | 4.65 | 215,054 | 5.5849 | 1,201,065 |",
                      md)
        self.assertIn("| `pristine-user` | 3871 | 258 | 562 |", md)
        self.assertIn("Ours / 6.1's: 5.74 in assessed bits per CPU second, 0.62 in output "
                      "blocks per CPU second.", md)

    def test_appendix_placeholder_and_from_data(self):
        top = tempfile.mkdtemp(prefix="bench-book-")
        ctx = {"top": top, "outdir": os.path.join(top, "out"), "report": None,
               "esc": bookmd.esc, "code": bookmd.code}
        try:
            md, notes = performance.render(ctx)
            self.assertIn("No bench run yet", md)
            self.assertIn("{- #performance}", md)
            self.assertEqual(notes, [])
            os.makedirs(os.path.join(top, "build/bench"))
            with open(os.path.join(top, "build/bench/bench.json"), "w") as f:
                json.dump(self.result(), f)
            md, notes = performance.render(ctx)
            self.assertEqual(notes, [])
            self.assertNotIn("No bench run yet", md)
            self.assertIn("Emulated timer, not evidence.", md)
            self.assertIn("`drbg_pr_sha1`", md)
            self.assertNotIn("boots the guest", md)
            res = self.result()
            res["workflow"]["conform_warm"] = {
                "what": "warm", "seconds": 36.3, "rc": 0, "boots_s": 35.3,
                "summary": {"passed": 778, "failed": 0, "skipped": 35, "boots": 10}}
            with open(os.path.join(top, "build/bench/bench.json"), "w") as f:
                json.dump(res, f)
            md, notes = performance.render(ctx)
            self.assertIn("boots the guest 10 times", md)
            self.assertIn("35 s of the warm run", md)
            for png in ("perf-jitter-bytes.png", "perf-cavs-records.png"):
                self.assertTrue(os.path.getsize(os.path.join(top, "out/figures", png)))
        finally:
            shutil.rmtree(top)


class RecordTest(unittest.TestCase):
    """make evidence keeps a full bench run; the appendix, from a clean
    clone, draws the kept one and says whether its inputs changed since."""

    def setUp(self):
        self.top = tempfile.mkdtemp(prefix="bench-record-")
        self.addCleanup(shutil.rmtree, self.top)
        os.makedirs(os.path.join(self.top, "harness"))
        self.write("harness/x.py", "x = 1\n")
        self.res = MarkdownAndAppendixTest.result(None)
        self.res["mode"] = "full"
        self.res["inputs"] = evidence.digests(self.top)
        self.write("build/bench/bench.json", json.dumps(self.res))
        self.ctx = {"top": self.top, "outdir": os.path.join(self.top, "out"), "report": None,
                    "esc": bookmd.esc, "code": bookmd.code}

    def write(self, rel, text):
        path = os.path.join(self.top, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def test_kept_and_drawn_from_evidence(self):
        entry = evidence.record("bench", self.top)
        self.assertEqual(entry["file"], "evidence/bench.json")
        shutil.rmtree(os.path.join(self.top, "build"))
        md, _ = performance.render(self.ctx)
        self.assertIn("The recorded run `evidence/bench.json`", md)
        self.assertIn("made on this tree's inputs", md)
        self.assertNotIn("No bench run yet", md)
        self.write("harness/x.py", "x = 2\n")
        md, _ = performance.render(self.ctx)
        self.assertIn("**not made on this tree's inputs**", md)

    def test_a_run_without_the_workflow_is_not_kept(self):
        self.res["mode"] = "partial"
        self.write("build/bench/bench.json", json.dumps(self.res))
        with self.assertRaises(SystemExit):
            evidence.record("bench", self.top)
        self.assertFalse(os.path.exists(os.path.join(self.top, "evidence/bench.json")))


if __name__ == "__main__":
    unittest.main()
