# SPDX-License-Identifier: GPL-2.0-only
"""The mutants of the harness's verdict code, each with its oracle.

A mutant is one text substitution in one file of the package (it must
match exactly once) that makes a verdict wrong: a failure forced to a
pass, a KUnit failure or skip mapped to a pass, a duplicate field
accepted, a run with zero records passed, a bad input booted, a guest
left running.  Its oracle is the host test that must fail on it (run by
mutants.py, the verb mutants-harness); a mutant its oracle does not
catch is a verdict the tests do not pin down.
"""

T = "tests."
CHECKS, KUNIT = T + "base.test_checks.", T + "judges.test_kunit.KunitJudgeTest."
BOOT, KLOG = T + "judges.test_boot.BootOutcomeTest.", T + "judges.test_kernel_log."
KMEM = T + "judges.test_kmemleak.KmemleakJudgeTest."
HARD = T + "judges.test_hardening.HardeningTest."
HOST = T + "stages.test_host_tests."
CAVS = T + "judges.test_cavs_input.HostileFilesTest."
PACK = T + "judges.test_cavs_pack.ChecksTest."
RUNS = T + "stages.test_conform_inputs."
PROC = T + "judges.test_proc_crypto.ProcCryptoTest."
SKIPS = T + "stages.test_skips."


def m(name, path, old, new, oracle, what):
    return {"name": name, "file": path, "old": old, "new": new, "oracle": oracle,
            "what": what}


MUTANTS = [
    m("failed-is-pass", "base/checks.py", 'return cls(cid, "fail", title,',
      'return cls(cid, "pass", title,', CHECKS + "ConstructorTest",
      "force ok: Check.failed() makes a pass"),
    m("judge-always-passes", "base/checks.py", "        if not problems:\n",
      "        if True:\n", CHECKS + "JudgeTest", "Check.judge() ignores its problems"),
    m("summary-drops-failures", "base/checks.py", '"failed": n["fail"]', '"failed": 0',
      CHECKS + "SummarizeValidateTest", "the summary counts no failure"),
    m("kunit-failure-is-pass", "judges/kunit.py", '.get(t.status, "fail")',
      '.get(t.status, "pass")', KUNIT + "test_failed_case",
      "a KUnit failure (or crash) is mapped to a pass"),
    m("kunit-skip-is-pass", "judges/kunit.py", 'parser.TestStatus.SKIPPED: "skip"',
      'parser.TestStatus.SKIPPED: "pass"', KUNIT + "test_skipped_case_is_a_skip_not_a_pass",
      "a KUnit skip is counted as a pass"),
    m("kunit-required-skip-allowed", "judges/kunit.py", 'if c.status == "skip":',
      "if False:", KUNIT + "test_required_scenario_skipped_fails",
      "a skipped CRNG-not-ready scenario is not a failure"),
    m("kunit-no-output-passes", "judges/kunit.py", "    if not out:\n        out.append(",
      "    if False:\n        out.append(", KUNIT + "test_no_kunit_output",
      "a log with no KUnit result passes (zero records)"),
    m("kernel-log-no-rcu-stalls", "judges/kernel_log.py",
      'detected (expedited )?stalls|"\n    r"self-detected stall|rcu: INFO: |debugfs',
      'no-RCU-stalls|debugfs', KLOG + "KernelLogTest.test_every_kind_of_report_fails",
      "RCU stall reports are not matched"),
    m("kernel-log-allows-everything", "judges/kernel_log.py",
      "(allowed if why else hits)", "(allowed if True else hits)",
      KLOG + "KernelLogTest.test_every_kind_of_report_fails",
      "every report is taken as allowlisted"),
    m("boot-any-outcome", "judges/boot.py", 'ok = b.outcome == spec["expect"]', "ok = True",
      BOOT + "test_panic_where_the_end_was_expected", "any ending of a boot passes"),
    m("boot-any-panic-reason", "judges/boot.py",
      'hit = b.outcome == "panic" and re.search(spec["panic_re"], b.detail or "")',
      "hit = True", BOOT + "test_expected_panic_and_its_reason",
      "a panic for another reason passes"),
    m("boot-hang-not-checked", "judges/boot.py", "reached = HANG_MARK in",
      "reached = True or HANG_MARK in", BOOT + "test_hang_is_killed_and_reported",
      "a hang before /init passes as the hang asked for"),
    m("garbled-results-dropped", "judges/boot.py", 'elif r.get("type") == "garbled":',
      "elif False:", BOOT + "test_guest_records",
      "results lines that are not JSON are dropped"),
    m("kmemleak-leaks-pass", "judges/kmemleak.py", "    if bad:\n", "    if False:\n",
      KMEM + "test_leak_of_the_series_fails", "an unexplained leak passes"),
    m("kmemleak-scan-too-soon", "judges/kmemleak.py", "age < MIN_AGE_MS", "age < 0",
      KMEM + "test_scan_too_soon_fails", "a scan within kmemleak's minimum age passes"),
    m("hardening-partial-skip-passes", "judges/hardening.py",
      'return "pass" if all(s == "pass" for s in st) else "partly skipped"',
      'return "pass"', HARD + "test_partly_skipped_fault_fails",
      "a fault partly skipped counts as injected"),
    m("hardening-not-run-in-debug", "judges/hardening.py", "if missing and debug_booted:",
      "if False:", HARD + "test_fault_not_run",
      "a fault not injected in a debug run is a skip"),
    m("subtest-failures-vanish", "stages/host_tests.py",
      "        if err is not None:\n            self._rec(test, \"fail\"",
      "        if False:\n            self._rec(test, \"fail\"",
      HOST + "RecorderTest.test_failing_subtest_fails_the_method",
      "a failing subTest never reaches the count"),
    m("unexpected-success-passes", "stages/host_tests.py",
      'self._rec(test, "fail", "unexpected success of a test marked expectedFailure")',
      'self._rec(test, "pass")', HOST + "RecorderTest.test_unexpected_success_is_a_failure",
      "an unexpected success is a pass"),
    m("host-tests-exit-0", "stages/host_tests.py",
      'return 1 if n["fail"] or not ok else 0', "return 0",
      HOST + "VerbTest", "the host-tests verb exits 0 with failures"),
    m("cavs-duplicate-field-accepted", "judges/cavs_parse.py",
      "elif len(vals) > allowed:", "elif False:", CAVS + "test_duplicate_field_is_refused",
      "a field given twice in a record is accepted"),
    m("cavs-conflicting-parameter", "judges/cavs_parse.py",
      "if name in g.params and g.params[name] != value:", "if False:",
      CAVS + "test_conflicting_duplicate_parameter",
      "a parameter given twice takes the last value"),
    m("cavs-zero-records-pass", "judges/cavs_judge.py",
      '        problems.append("no applicable record to run")', "        pass",
      CAVS + "test_no_applicable_record_fails_the_run",
      "a CAVS run with zero records passes"),
    m("cavs-guest-failures-pass", "judges/cavs_judge.py", '        if counts["failed"]:',
      "        if False:", PACK + "test_guest_failure_is_named",
      "records the guest failed pass"),
    m("cavs-selftest-not-needed", "judges/cavs_judge.py",
      'ok = line.get("failed") == 1 and len(named) == 1', "ok = True",
      PACK + "test_uncaught_selftest_fails", "the flipped-bit self-test need not be caught"),
    m("cavs-fifo-read", "base/files.py", "    if not stat.S_ISREG(st.st_mode):",
      "    if False:", CAVS + "test_fifo_is_refused_not_waited_on",
      "a FIFO named .rsp is read"),
    m("boots-unknown-name", "stages/inputs.py", "    if unknown:\n", "    if False:\n",
      RUNS + "SelectPlanTest.test_unknown_name", "BOOTS=mian runs what it can"),
    m("bad-input-boots-anyway", "stages/conform.py", "    if problems:\n",
      "    if False:\n", RUNS + "ConformRunTest.test_hostile_vector_file_boots_nothing",
      "conform boots guests despite bad input"),
    m("conform-exit-0", "stages/conform.py", 'return 1 if s["failed"] else 0', "return 0",
      RUNS + "ConformRunTest.test_a_boot_that_breaks_the_harness",
      "conform exits 0 with failed checks"),
    m("guests-left-running", "base/qemu.py", "            p.kill()\n            p.wait()\n"
      "    return len(procs)", "            pass\n    return len(procs)",
      RUNS + "ConformRunTest.test_scheduler_crash_stops_every_guest",
      "stop_all() leaves the guests running"),
    m("check-exit-0", "stages/check.py", 'return 1 if total["failed"] else 0', "return 0",
      RUNS + "CheckStopsAtOnceTest", "make check exits 0 with failures"),
    m("stamp-ignores-edits", "base/kbuild.py", "    if diff:\n", "    if False:\n",
      T + "stages.test_stamps.KernelBuildStampTest."
      "test_build_of_an_edited_tree_is_not_the_clean_tree",
      "a kernel built from an edited tree passes for the clean one"),
    m("null-selftest-counted", "judges/proc_crypto.py", "tests.get(d) == NULL_TEST",
      "False", PROC + "test_passed_counts_only_what_testmgr_tested",
      "testmgr's alg_test_null counts as a self-test"),
    m("jitter-priority-unread", "judges/proc_crypto.py", "        if got != want:\n",
      "        if got is None:\n",
      PROC + "test_jitter_priority_and_seed_size_are_the_patchs",
      "the Jitter RNG's priority and seed size are not compared with the patch's"),
    m("skips-undeclared-accepted", "stages/skips.py", "        if not mine:\n",
      "        if False:\n",
      SKIPS + "JudgeTest.test_an_unexpected_skip_fails_named_with_its_reason",
      "a skip that no entry of expected-skips.txt declares passes"),
    m("skips-wildcard-crosses-parts", "stages/skips.py", '"[^.]*" if ch == "*"',
      '".*" if ch == "*"', SKIPS + "MatchTest",
      "a '*' of a declared skip matches across the dots of a check id"),
    m("skips-stale-entry-accepted", "stages/skips.py",
      "stale = ran + ([] if excused else absent)", "stale = []",
      SKIPS + "JudgeTest.test_an_entry_whose_check_ran_fails_even_in_a_restricted_run",
      "a declared skip whose check ran and passed is accepted"),
    m("check-record-any-packages", "stages/check_kept.py", "    if other:\n", "    if False:\n",
      T + "stages.test_check_kept.RecordedStepTest."
      "test_changed_inputs_packages_or_fresh_run_the_step",
      "a step kept in evidence/ is taken where other packages are installed"),
    m("check-record-stale-taken", "stages/check_kept.py",
      "    why = evidence.stale(rec, name, root)\n", "    why = None\n",
      T + "stages.test_check_kept.RecordedStepTest."
      "test_changed_inputs_packages_or_fresh_run_the_step",
      "a step kept in evidence/ is taken after its inputs changed"),
    m("skips-not-judged", "stages/check.py", "        skips_step(r, rep)\n", "",
      T + "stages.test_check.SkipsStepTest.test_an_unexpected_skip_fails_make_check",
      "make check does not judge its skips"),
]
