# SPDX-License-Identifier: GPL-2.0-only
"""make check and its ACVP step: check() runs the verb acvp on the
project's copy of NIST's samples (vectors/acvp), and what that verb
judges decides make check's outcome.  The verbs are run in this process
instead of a subprocess each: every verb but acvp succeeds with no checks
of its own; acvp parses check's own command line, runs on a cut of the
project's samples (the whole copy takes the host model some 20 s) with a
guest that answers as the host model does, or with one answer flipped,
and no kernel.  A flipped answer, or a flipped expected result, must fail
make check; the step cannot pass when the verb wrote nothing.  The
skips are judged against a list of the run's own (the cut's one group
Linux 6.1 cannot run): a skip it does not declare fails make check, one
it declares does not, and the closing line sums every check."""

import contextlib
import io
import os
import shutil
import tempfile
import unittest
from unittest import mock

from harness import __main__ as cli
from harness.base import config, files
from harness.stages import acvp, check, inputs

from ..judges.acvp_files import cut_set, entries_of, flip, small_set, write_set
from .test_acvp import fake_registration, guest

# About 14 s of the host tests: run before the short modules
# (host_tests.shuffled).
LONG = True

SET = "hashDRBG-1.0"
# The cut's groups 1 and 12 are SHA-1, group 2 SHA2-224: no such core.
DECLARED = "acvp.hashdrbg-1-0.tg2\tHash_DRBG with SHA2-224: no such core in drbg_cores[]\n"
# make check's CAVS pack of the project's vectors (some 3 s of the host
# model): made by the first test and taken by the others from one
# directory, as inputs.packed() lets one make check take the last one's.
PACKS = None


def packs():
    """That directory: made on first use, and removed when the tests of
    the module using it (this one, or one that imports CheckRun) end."""
    global PACKS
    if PACKS is None:
        PACKS = tempfile.mkdtemp(prefix="check-packs-")
        unittest.addModuleCleanup(drop_packs)
    return PACKS


def drop_packs():
    global PACKS
    shutil.rmtree(PACKS, ignore_errors=True)
    PACKS = None


class CheckRun(unittest.TestCase):
    """check() in this process, its verbs as stand-ins (no test of its own)."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.vec = os.path.join(self.tmp, "vectors")
        self.prompt, self.exp, self.val = cut_set(SET, [1, 2, 12], 3)
        write_set(self.vec, SET, self.prompt, self.exp, self.val)
        write_set(self.vec, "SHA3-256-2.0", small_set("SHA3-256-2.0", [1, 2], 20))
        self.report = os.path.join(self.tmp, "conformance", "report.json")
        self.skips = os.path.join(self.tmp, "expected-skips.txt")
        self.declare(DECLARED)
        for name, value in (("OUT", os.path.join(self.tmp, "check")),
                            ("REPORT", self.report), ("EXPECTED_SKIPS", self.skips)):
            mock.patch.object(check, name, value).start()
        mock.patch.object(check, "run", self.run_verb).start()
        prepare, kept = inputs.prepare_vectors, packs()
        mock.patch.object(inputs, "prepare_vectors",
                          lambda outdir, dirs=None: prepare(kept, dirs)).start()
        # Every step as a verb of its own (not kept verdicts, which
        # test_check_entropy.py and test_check_kept.py test; nothing of
        # the kernel cache is read).
        mock.patch.dict(os.environ, {"FRESH": "all"}).start()
        mock.patch.object(acvp, "say").start()
        mock.patch.object(acvp.qemu, "stop_all").start()
        mock.patch.object(acvp, "registration", fake_registration).start()
        self.boot, self.acvp_argv = guest(), []
        self.written, self.exits = {}, {}

    def tearDown(self):
        mock.patch.stopall()
        shutil.rmtree(self.tmp)

    def run_verb(self, cmd):
        """A verb of check's, as its process would run it: (exit status, s)."""
        if cmd[:3] != [config.PY, "-m", "harness"]:
            return 0, 0.0
        args = cli.parser().parse_args(cmd[3:])
        if args.verb == "conform":
            os.makedirs(os.path.dirname(self.report), exist_ok=True)
            files.write_json(self.report, {"schema": 1, "started": "now", "checks": [],
                                           "summary": {}})
        elif args.verb == "acvp":
            if not args.inputs_only:
                self.acvp_argv.append(cmd[3:])
            else:
                self.inputs_read = True
            args.dir, args.out = self.vec, os.path.join(self.tmp, "acvp")
            with mock.patch.object(acvp, "boot", self.boot):
                try:
                    return args.func(args), 0.0
                except SystemExit:
                    return 1, 0.0
        elif getattr(args, "json", None):
            files.write_json(args.json, self.written.get(args.verb, [
                {"id": f"host.{args.verb}.stand-in", "status": "pass"}]))
            return self.exits.get(args.verb, 0), 0.0
        return 0, 0.0

    def declare(self, text):
        with open(self.skips, "w") as f:
            f.write(text)

    def make_check(self):
        """check()'s exit status and its failed check ids."""
        with contextlib.redirect_stdout(io.StringIO()) as self.out:
            rc = check.check(None)
        rep = files.read_json(self.report)
        return rc, sorted(c["id"] for c in rep["checks"] if c["status"] == "fail")

    def check_of(self, cid):
        return next(c for c in files.read_json(self.report)["checks"] if c["id"] == cid)


class AcvpStepTest(CheckRun):
    def test_make_check_runs_acvp_on_the_projects_copy(self):
        rc, failed = self.make_check()
        self.assertEqual((rc, failed), (0, []))
        self.assertEqual(len(self.acvp_argv), 1)
        argv = self.acvp_argv[0]
        self.assertEqual(argv[:3], ["acvp", "--dir", config.top("vectors/acvp")])
        self.assertIn("--json", argv)
        rep = files.read_json(self.report)
        total = next(c for c in rep["checks"] if c["id"] == "acvp.total")
        self.assertEqual(total["status"], "pass")
        self.assertGreater(total["counts"]["answered"], 0)

    def test_a_flipped_answer_fails_make_check(self):
        def flipping(pack, meta, workdir, accel):
            i = entries_of(meta, set=SET, kind="drbg")[1]
            self.flipped = meta["entries"][i]
            return guest(wrong={i})(pack, meta, workdir, accel)
        self.boot = flipping
        rc, failed = self.make_check()
        self.assertEqual(rc, 1)
        # The same kernel through libkcapi gives the same wrong answer,
        # which differs from the expected result too.
        self.assertEqual(failed, ["acvp.hashdrbg-1-0.tg" + str(self.flipped["tgId"]),
                                  "acvp.hashdrbg-1-0.validation", "acvp.kcapi",
                                  "acvp.total"])

    def test_a_flipped_expected_result_fails_make_check(self):
        t = self.exp["testGroups"][0]["tests"][0]
        t["returnedBits"] = flip(t["returnedBits"])
        write_set(self.vec, SET, self.prompt, self.exp, self.val)
        rc, failed = self.make_check()
        self.assertEqual(rc, 1)
        self.assertIn("acvp.hashdrbg-1-0.validation", failed)
        self.assertIn("acvp.total", failed)

    def test_a_hostile_acvp_file_stops_make_check_at_once(self):
        with open(os.path.join(self.vec, SET, "prompt.json"), "a") as f:
            f.write("{")
        self.boot = None          # no boot may start
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = check.check(None)
        self.assertEqual(rc, 1)
        self.assertEqual(out.getvalue().rstrip().splitlines()[-1],
                         "0 passed, 1 failed, 0 skipped")
        self.assertEqual(self.acvp_argv, [])
        # The report is this run's: its input step alone (conform never ran).
        self.assertEqual([c["id"] for c in files.read_json(self.report)["checks"]],
                         ["host.inputs"])

    def test_the_sets_are_read_before_anything_long(self):
        self.inputs_read = False
        self.make_check()
        self.assertTrue(self.inputs_read)

    def test_a_verb_that_writes_nothing_fails_the_step(self):
        def broken(*a):
            raise SystemExit("acvp: the guest did not boot")
        self.boot = broken
        rc, failed = self.make_check()
        self.assertEqual((rc, failed), (1, ["acvp.total"]))


class JsonStepTest(CheckRun):
    """A step whose verb writes its checks as JSON: an empty list is no
    result, and the verb's exit status counts (before, both passed)."""

    def test_a_verb_that_writes_an_empty_list_fails_its_step(self):
        self.written["host-tests"] = []
        rc, failed = self.make_check()
        self.assertEqual((rc, failed), (1, ["host.unit"]))

    def test_a_verb_that_fails_with_only_passes_fails_its_step(self):
        self.exits["checkpatch"] = 2
        rc, failed = self.make_check()
        self.assertEqual((rc, failed), (1, ["host.checkpatch.exit"]))
        rep = files.read_json(self.report)
        c = next(c for c in rep["checks"] if c["id"] == "host.checkpatch.exit")
        self.assertEqual(c["reason"], "checkpatch exited 2 without a failed check "
                         "(see above)")

    def test_a_failing_verb_with_its_failure_adds_nothing(self):
        self.written["checkpatch"] = [{"id": "host.checkpatch.0001", "status": "fail",
                                       "reason": "a warning"}]
        self.exits["checkpatch"] = 1
        rc, failed = self.make_check()
        self.assertEqual((rc, failed), (1, ["host.checkpatch.0001"]))


class SkipsStepTest(CheckRun):
    """Every skip of make check against the declared ones (before, a skip
    never reached the exit status, and no list said which were meant)."""

    NEW_SKIP = {"id": "host.unit.jitter.Lag.test_i386", "status": "skip",
                "reason": "qemu-i386 is not installed"}

    def test_a_declared_skip_passes_and_the_closing_line_sums(self):
        rc, failed = self.make_check()
        self.assertEqual((rc, failed), (0, []))
        self.assertEqual(self.check_of("acvp.hashdrbg-1-0.tg2")["status"], "skip")
        self.assertEqual(self.check_of("check.skips.expected")["counts"],
                         {"skips": 1, "declared": 1, "unexpected": 0})
        self.assertEqual(self.check_of("check.skips.declared")["status"], "pass")
        rep = files.read_json(self.report)
        s = rep["summary"]
        self.assertEqual(s["passed"] + s["failed"] + s["skipped"], len(rep["checks"]))
        self.assertEqual(self.out.getvalue().rstrip().splitlines()[-1],
                         f"{s['passed']} passed, 0 failed, 1 skipped")

    def test_an_unexpected_skip_fails_make_check(self):
        self.written["host-tests"] = [self.NEW_SKIP]
        rc, failed = self.make_check()
        self.assertEqual((rc, failed), (1, ["check.skips.expected"]))
        self.assertEqual(self.check_of("check.skips.expected")["reason"],
                         "1 skip(s) declared nowhere in conformance/expected-skips.txt: "
                         "host.unit.jitter.Lag.test_i386 (qemu-i386 is not installed)")
        self.assertIn("FAIL check.skips.expected: 1 skip(s) declared nowhere",
                      self.out.getvalue())
        self.assertTrue(self.out.getvalue().rstrip().endswith("1 failed, 2 skipped"))

    def test_a_declared_skip_that_did_not_occur_fails_a_full_run(self):
        self.declare(DECLARED + "guest.faults.alloc-every-point\tno fault injection\n")
        rc, failed = self.make_check()
        self.assertEqual((rc, failed), (1, ["check.skips.declared"]))
        self.assertIn("guest.faults.alloc-every-point (line 2: not in the run)",
                      self.check_of("check.skips.declared")["reason"])

    def test_a_run_restricted_by_boots_notes_it(self):
        self.declare(DECLARED + "guest.faults.alloc-every-point\tno fault injection\n")
        with mock.patch.dict(os.environ, {"BOOTS": "main"}), \
                mock.patch.object(check.inputs, "check", self.inputs_ok):
            rc, failed = self.make_check()
        self.assertEqual((rc, failed), (0, []))
        self.assertIn("note: 1 declared skip(s) not in this run (BOOTS=main)",
                      self.out.getvalue())

    def inputs_ok(self, boots, variants, out):
        return None, None, [], [check.Check.passed("inputs", "the inputs")]

    def test_a_malformed_list_fails_naming_its_line(self):
        self.declare("# the list\n" + DECLARED.replace("\t", " "))
        rc, failed = self.make_check()
        self.assertEqual((rc, failed), (1, ["check.skips.expected"]))
        self.assertEqual(self.check_of("check.skips.expected")["reason"],
                         f"{self.skips}:2: no TAB: a line is a check-id pattern, a TAB, "
                         "the reason")


if __name__ == "__main__":
    unittest.main()
