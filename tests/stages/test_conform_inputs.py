# SPDX-License-Identifier: GPL-2.0-only
"""conform checks what it is asked to do before the first guest boots,
and whatever goes wrong, writes its report and leaves no guest running.

The boots are real processes: a stand-in for qemu-system-x86_64 (first
on PATH) writes the serial logs a guest would and, for the hang mode,
sleeps until it is killed; every one records its process id, so that the
test can see that none is left.  The kernel cache, the images and the
initramfs are stand-ins too (nothing here needs a kernel).
"""

import argparse
import json
import os
import shutil
import stat
import tempfile
import time
import unittest
from unittest import mock

from harness.base import config
from harness.stages import conform, inputs

from ..verbs import run_verb

# About 24 s of the host tests on two CPUs: run before the short modules
# (host_tests.shuffled).
LONG = True

FAKE_QEMU = r"""#!/bin/bash
echo $$ >> "$FAKE_QEMU_PIDS"
con= res= app=
while [ $# -gt 0 ]; do
	case "$1" in
	-serial) if [ -z "$con" ]; then con=${2#file:}; else res=${2#file:}; fi; shift ;;
	-append) app=$2; shift ;;
	esac
	shift
done
[ -z "$FAKE_QEMU_NO_CONSOLE" ] && echo "Linux version 6.1.0-fake" > "$con"
case "$app" in
*conform.mode=hang*) echo "init: mode hang: sleeping forever" >> "$con"; exec sleep 600 ;;
esac
sleep 0.5
echo '{"type":"begin"}' > "$res"
[ -n "$FAKE_QEMU_RESULT" ] && echo "$FAKE_QEMU_RESULT" >> "$res"
echo '{"type":"end"}' >> "$res"
"""


def entry(name, **kw):
    e = {"name": name, "mode": "idle", "append": "", "timeout": 60, "expect": "end",
         "kunit": False, "title": f"stand-in boot {name}"}
    e.update(kw)
    return e


PLAN = [entry("hang", mode="hang", timeout=4, expect="hung", background=True),
        entry("a"), entry("b"), entry("c"), entry("d"), entry("cavs", cavs=True)]


class ConformRunTest(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="conform-run-")
        self.addCleanup(shutil.rmtree, self.d, True)
        bindir = os.path.join(self.d, "bin")
        os.makedirs(bindir)
        qemu = os.path.join(bindir, "qemu-system-x86_64")
        with open(qemu, "w") as f:
            f.write(FAKE_QEMU)
        os.chmod(qemu, stat.S_IRWXU)
        self.pids = os.path.join(self.d, "pids")
        self.out = os.path.join(self.d, "out")
        self.dummy = os.path.join(self.d, "dummy")
        open(self.dummy, "w").close()
        env = {"PATH": bindir + os.pathsep + os.environ["PATH"],
               "FAKE_QEMU_PIDS": self.pids,
               "VECTORS": os.path.join(config.TOP, "vectors/extra/no_reseed")}
        for p in (mock.patch.dict(os.environ, env),
                  mock.patch.object(inputs, "BOOTS", PLAN),
                  mock.patch.object(conform.kcache, "ensure_pristine",
                                    return_value=("6.1.0-fake", self.d)),
                  mock.patch.object(conform, "images", return_value={"test": self.dummy}),
                  mock.patch.object(conform.guest, "build", return_value=self.dummy),
                  mock.patch.object(conform.initramfs, "write", side_effect=self.initramfs),
                  mock.patch.object(conform, "kernel_facts",
                                    return_value={"release": "6.1.0-fake"})):
            p.start()
            self.addCleanup(p.stop)
        self.boom = None

    def initramfs(self, path, init, data=None, src=None):
        if self.boom and f"/boots/{self.boom}/" in path:
            raise RuntimeError(f"stand-in failure while packing {self.boom}")
        open(path, "wb").close()
        return path

    def run_conform(self, only=""):
        args = argparse.Namespace(accel="tcg", only=only, out=self.out, jobs=2,
                                  variants="test")
        rc = conform.conform(args)
        with open(os.path.join(self.out, "report.json")) as f:
            rep = json.load(f)
        return rc, rep, {c["id"]: c for c in rep["checks"]}

    def started(self):
        try:
            with open(self.pids) as f:
                return [int(x) for x in f.read().split()]
        except FileNotFoundError:
            return []

    def assert_none_running(self):
        for pid in self.started():
            with self.assertRaises(ProcessLookupError, msg=f"QEMU {pid} still runs"):
                os.kill(pid, 0)

    def test_good_run(self):
        rc, rep, checks = self.run_conform("hang,a,b")
        self.assertEqual(rc, 0, [c for c in checks.values() if c["status"] == "fail"])
        self.assertEqual([b["outcome"] for b in rep["boots"]], ["hung", "end", "end"])
        self.assertEqual(checks["conform.inputs"]["status"], "pass")
        self.assert_none_running()

    def test_a_boot_after_the_run_starts(self):
        """conform closes QEMU's gate while it stops its guests; once they
        are stopped it opens it again, so that a later boot of the same
        process (another test module, in any order) is not refused."""
        self.run_conform("a")
        b = conform.qemu.boot("later", "bzImage", "initrd", "conform.mode=idle",
                              os.path.join(self.d, "later"), 30)
        self.assertEqual(b.outcome, "end", b.detail)

    def test_a_status_the_report_does_not_know(self):
        """a guest check with status "ok": the report is still written, with
        that check failed and counted (before, summarize() raised KeyError
        'ok' and the last run's report stayed)"""
        self.stale_report()
        rec = json.dumps({"type": "check", "id": "guest.odd", "status": "ok"})
        with mock.patch.dict(os.environ, {"FAKE_QEMU_RESULT": rec}):
            rc, rep, checks = self.run_conform("a")
        self.assertEqual(rc, 1)
        self.assertEqual(checks["guest.odd"]["status"], "fail")
        self.assertIn("status 'ok' reported", checks["guest.odd"]["reason"])
        self.assertNotIn("stale", checks)
        self.assertEqual(rep["summary"]["failed"],
                         sum(1 for c in checks.values() if c["status"] == "fail"))

    def test_a_guest_that_sends_nothing_fails_its_boot(self):
        """a boot that declares its checks, whose guest writes only its begin
        and end markers, fails (before, it passed); one without a console
        log fails too (before, its KUnit checks were left out)"""
        plan = [entry("a", produces=["guest.x", "kunit.suite"]),
                entry("b", produces=["guest.x"])]
        rec = json.dumps({"type": "check", "id": "guest.x", "status": "pass"})
        with mock.patch.object(inputs, "BOOTS", plan):
            rc, _, checks = self.run_conform("a")
            self.assertEqual(rc, 1)
            self.assertEqual(checks["boot.a.produced"]["reason"],
                             "guest.x not reported; kunit.suite not reported")
            with mock.patch.dict(os.environ, {"FAKE_QEMU_RESULT": rec}):
                rc, _, checks = self.run_conform("b")
            self.assertEqual(rc, 0, checks)
            self.assertEqual(checks["boot.b.produced"]["status"], "pass")
            with mock.patch.dict(os.environ, {"FAKE_QEMU_RESULT": rec,
                                              "FAKE_QEMU_NO_CONSOLE": "1"}):
                rc, _, checks = self.run_conform("b")
        self.assertEqual(rc, 1)
        self.assertEqual(checks["boot.b.console-log"]["status"], "fail")
        self.assertRegex(checks["boot.b.console-log"]["reason"], r"^no .*/boots/b/console"
                         r"\.log: no kernel log, no KUnit result to judge$")

    def test_a_run_that_stops_leaves_no_report(self):
        """conform stops before its report (no kernel image): the last run's
        report is gone, not left for a reader to take as this run's"""
        self.stale_report()
        with mock.patch.object(conform, "images", side_effect=SystemExit("no kernel")):
            with self.assertRaises(SystemExit):
                self.run_conform("a")
        for name in ("report.json", "report.md", "report.xml"):
            self.assertFalse(os.path.exists(os.path.join(self.out, name)), name)

    def stale_report(self):
        from harness.base import report
        from harness.base.checks import Check
        os.makedirs(self.out, exist_ok=True)
        report.write_all({"started": "2026-01-01T00:00:00+00:00",
                          "checks": [Check.passed("stale", "an earlier run")]}, self.out)

    def test_unknown_boot_boots_nothing(self):
        with mock.patch.object(conform.config, "warn") as warn:
            rc, rep, checks = self.run_conform("mian")
        self.assertEqual(rc, 1)
        self.assertEqual(rep["boots"], [])
        self.assertEqual(self.started(), [])
        self.assertRegex(checks["conform.inputs"]["reason"], r"BOOTS names no boot 'mian'")
        lines = [c.args[1] for c in warn.call_args_list]
        self.assertEqual(len(lines), 1)
        self.assertNotIn("\n", lines[0])

    def test_hostile_vector_file_boots_nothing(self):
        vec = os.path.join(self.d, "vec")
        os.makedirs(vec)
        shutil.copy(os.path.join(config.TOP, "vectors/cavs/no_reseed/HMAC_DRBG.rsp"), vec)
        os.mkfifo(os.path.join(vec, "pipe.rsp"))
        os.symlink(os.path.join(vec, "gone.rsp"), os.path.join(vec, "dangling.rsp"))
        with mock.patch.dict(os.environ, {"VECTORS": vec}):
            rc, rep, checks = self.run_conform()
        self.assertEqual(rc, 1)
        self.assertEqual(self.started(), [], "no guest may start on bad input")
        reason = checks["conform.inputs"]["reason"]
        self.assertIn(f"{vec}/pipe.rsp: a FIFO", reason)
        self.assertIn(f"{vec}/dangling.rsp: a dangling symbolic link", reason)
        bad = [c for c in checks.values() if c["id"].startswith("cavs.parse.")
               and c["status"] == "fail"]
        self.assertEqual(len(bad), 2)

    def test_a_boot_that_breaks_the_harness(self):
        """a failure while preparing one boot: that boot is a harness error,
        the others are judged, the report is written, no guest is left"""
        self.boom = "c"
        rc, rep, checks = self.run_conform("hang,a,b,c,d")
        self.assertEqual(rc, 1)
        outcome = {b["name"]: b["outcome"] for b in rep["boots"]}
        self.assertEqual(outcome, {"hang": "hung", "a": "end", "b": "end",
                                   "c": "harness-error", "d": "end"})
        self.assertIn("stand-in failure while packing c", checks["boot.c"]["reason"])
        self.assertEqual(checks["boot.d"]["status"], "pass")
        self.assertGreaterEqual(len(self.started()), 4)
        self.assert_none_running()

    def test_scheduler_crash_stops_every_guest(self):
        """the scheduler itself fails after four guests started (the crash of
        the issue): the background guest is stopped and the report written"""
        real = conform.run_plan

        def crashing(plan, jobs, one, prepare, **kw):
            def prep(spec):
                if spec["name"] == "cavs":
                    deadline = time.time() + 10
                    while len(self.started()) < 4 and time.time() < deadline:
                        time.sleep(0.05)
                    raise KeyError("stand-in crash in the scheduler")
                return prepare(spec)
            return real(plan, jobs, one, prep, **kw)

        # The hung guest would end at its timeout on its own: it must be
        # stopped long before.
        plan = [dict(PLAN[0], timeout=40)] + PLAN[1:]
        t0 = time.time()
        with mock.patch.object(conform, "run_plan", crashing), \
                mock.patch.object(inputs, "BOOTS", plan):
            rc, rep, checks = self.run_conform()
        self.assertLess(time.time() - t0, 20, "the guests were not stopped")
        self.assertEqual(rc, 1)
        self.assertEqual(checks["boot.cavs"]["status"], "fail")
        self.assertEqual(rep["boots"][-1]["outcome"], "harness-error")
        self.assertGreaterEqual(len(self.started()), 4)
        self.assert_none_running()


class CheckStopsAtOnceTest(unittest.TestCase):
    """make check (the verb check) fails at once, before the lint and the
    kernel builds, when BOOTS names nothing or a vector file is hostile;
    the report it writes is its own, not the last run's.  The verb runs
    with a build directory and a kernel cache of the test's own (the
    cache cannot be made: the input step needs none)."""

    def setUp(self):
        self.build = tempfile.mkdtemp(prefix="check-build-")
        self.addCleanup(shutil.rmtree, self.build, True)

    def check(self, **env):
        rc, out, err = run_verb(self, ["check"], dict(env, HARNESS_BUILD=self.build))
        return rc, out.strip().splitlines(), err.strip().splitlines()

    def test_the_last_runs_report_does_not_survive(self):
        """a green report.{json,md,xml} of an earlier run is replaced by this
        run's, which stopped at its inputs (before, it stayed: a CI system
        reading report.xml saw green)"""
        from harness.base import report
        from harness.base.checks import Check
        rep_dir = os.path.join(self.build, "conformance")
        os.makedirs(rep_dir)
        report.write_all({"started": "2026-01-01T00:00:00+00:00",
                          "checks": [Check.passed("boot.main", "green")]}, rep_dir)
        rc, out, _ = self.check(BOOTS="mian")
        self.assertEqual(rc, 1)
        self.assertEqual(out[-1], "0 passed, 1 failed, 0 skipped")
        with open(os.path.join(rep_dir, "report.json")) as f:
            rep = json.load(f)
        self.assertEqual(rep["summary"], {"passed": 0, "failed": 1, "skipped": 0,
                                          "total": 1})
        self.assertEqual([c["id"] for c in rep["checks"]], ["host.inputs"])
        with open(os.path.join(rep_dir, "report.xml")) as f:
            self.assertIn('failures="1"', f.read())
        with open(os.path.join(rep_dir, "report.md")) as f:
            self.assertIn("**0 passed, 1 failed, 0 skipped**", f.read())

    def test_boots_names_nothing(self):
        for boots in ("mian", ",", "main,mian"):
            rc, out, err = self.check(BOOTS=boots)
            self.assertEqual(rc, 1, boots)
            self.assertEqual(out[-1], "0 passed, 1 failed, 0 skipped", boots)
            self.assertEqual(len(err), 1, err)
            self.assertRegex(err[0], r"^check: BOOTS")
            self.assertNotIn("== check: tangle lint", "\n".join(out))

    def test_hostile_vector_file(self):
        d = tempfile.mkdtemp(prefix="check-vectors-")
        self.addCleanup(shutil.rmtree, d)
        shutil.copy(os.path.join(config.TOP, "vectors/cavs/no_reseed/HMAC_DRBG.rsp"), d)
        os.mkfifo(os.path.join(d, "x.rsp"))
        rc, out, err = self.check(VECTORS=d, BOOTS="")
        self.assertEqual(rc, 1)
        self.assertEqual(out[-1], "0 passed, 1 failed, 0 skipped")
        self.assertEqual(err, [f"check: {d}/x.rsp: a FIFO: expected a regular .rsp file"])


class KeptPackTest(unittest.TestCase):
    """The CAVS pack and the host model's answers are made once for the
    same vector files and harness: they took 2.4 s before the first boot
    of every run.  A changed vector file, a pack changed since, or a
    directory with anything but plain files makes them again."""

    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="kept-pack-")
        self.addCleanup(shutil.rmtree, self.d)
        self.vec = os.path.join(self.d, "vec")
        os.makedirs(self.vec)
        shutil.copy(os.path.join(config.TOP, "vectors/cavs/no_reseed/HMAC_DRBG.rsp"), self.vec)
        self.out = os.path.join(self.d, "out")

    def prepare(self):
        """(meta, checks' ids and statuses, whether cavs_pack.prepare ran)."""
        real = inputs.cavs_pack.prepare
        with mock.patch.object(inputs.cavs_pack, "prepare", side_effect=real) as made, \
                mock.patch.object(inputs.config, "say"):
            meta, problems, checks = inputs.prepare_vectors(self.out, [self.vec])
        return meta, [(c.id, c.status) for c in checks], made.called

    def test_kept_until_an_input_changes(self):
        meta, checks, made = self.prepare()
        self.assertTrue(made)
        again, checks2, made = self.prepare()
        self.assertFalse(made, "the same vectors and harness: the pack is kept")
        self.assertEqual((again, checks2), (meta, checks))
        with open(os.path.join(self.vec, "HMAC_DRBG.rsp"), "a") as f:
            f.write("\n")
        self.assertTrue(self.prepare()[2], "a vector file changed")
        self.assertFalse(self.prepare()[2])
        with open(meta["pack"], "r+b") as f:
            f.write(b"\0")
        self.assertTrue(self.prepare()[2], "the pack changed since it was made")

    def test_not_kept_beside_a_fifo(self):
        os.mkfifo(os.path.join(self.vec, "pipe.rsp"))
        self.assertIsNone(inputs.vectors_key([self.vec], self.out))
        self.assertTrue(self.prepare()[2])
        self.assertTrue(self.prepare()[2], "a FIFO: prepare() says what is wrong each time")


class SelectPlanTest(unittest.TestCase):
    """BOOTS: a name the plan does not have is an error, one line naming
    it; so is a value that names nothing (","); empty (or blank) is the
    whole plan.  (Before the restructure BOOTS=mian booted nothing and
    passed: "0 passed, 0 failed, 1 skipped".)"""

    def test_unknown_name(self):
        with self.assertRaises(inputs.InputError) as e:
            inputs.select_plan(inputs.boot_names("mian"), ["test"])
        self.assertRegex(str(e.exception), r"^BOOTS names no boot 'mian' of "
                         r"harness/stages/plan.py \(known: .*main.*\)$")

    def test_names_nothing(self):
        for text in (",", " , ", ",,"):
            with self.assertRaises(inputs.InputError, msg=repr(text)):
                inputs.boot_names(text)
        self.assertEqual(inputs.boot_names(""), [])
        self.assertEqual(inputs.boot_names("  "), [])       # unset, as make passes it
        self.assertEqual(inputs.boot_names("main, drbg"), ["main", "drbg"])

    def test_no_boot_of_the_variant(self):
        with self.assertRaises(inputs.InputError):
            inputs.select_plan(["debug-main"], ["test"])
        plan = inputs.select_plan([], ["test"])
        self.assertNotIn("teeth", [b["name"] for b in plan])
        self.assertEqual([b["name"] for b in inputs.select_plan(["teeth"], ["test"])],
                         ["teeth"])


if __name__ == "__main__":
    unittest.main()
