# SPDX-License-Identifier: GPL-2.0-only
"""make check keeps a step's run that passed with the digest of its inputs
(check.kept_step, tree_inputs, acvp_inputs): the next run of the same
digest takes its verdicts instead of running the step; any file of the
tree, a package or Python, and for ACVP the test kernel's image or
.config, changes the digest; a failed run, no digest, or FRESH naming
the step (or all) runs it again.  A kept run recorded in evidence/
(check-<step>) is taken by a clone without one of its own while the
step's inputs (evidence.CHECK_STEP) and the packages are the same, and
what the step leaves for the book is put back into build/."""

import os
import shutil
import tempfile
import unittest
from unittest import mock

from harness.base import files
from harness.base.checks import Check
from harness.stages import check, check_kept


class InputsTest(unittest.TestCase):
    """A kernel cache and a repository of their own."""

    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="check-kept-")
        self.addCleanup(shutil.rmtree, self.d)
        self.build = os.path.join(self.d, "cache", "linux-6.1.9", "build-test")
        self.root = os.path.join(self.d, "repo")
        for rel, text in (("build.ok", "{}"), (".config", "CONFIG_X=y\n"),
                          ("arch/x86/boot/bzImage", "image")):
            files.write_text(os.path.join(self.build, rel), text)
        for rel in ("vectors/acvp/set.json", "chapters/a.nw", ".ci/run"):
            files.write_text(os.path.join(self.root, rel), "x")
        for p in (mock.patch.object(check_kept.kcache, "installed_version", return_value="6.1.9"),
                  mock.patch.object(check_kept.kcache, "tree_dir",
                                    side_effect=lambda v: os.path.join(self.d, "cache",
                                                                       f"linux-{v}")),
                  mock.patch.object(check_kept.proc, "dpkg_version", return_value="1.0")):
            p.start()
            self.addCleanup(p.stop)

    def changes(self, digest, paths):
        """Each path appended to in turn: a new digest every time."""
        seen = {digest()}
        for path in paths:
            with open(path, "a") as f:
                f.write("y")
            self.assertNotIn(digest(), seen, path)
            seen.add(digest())
        return seen

    def test_every_file_package_and_python_count_but_build_and_git(self):
        tree = lambda: check_kept.tree_inputs(self.root)     # noqa: E731
        self.assertEqual(tree(), tree())
        seen = self.changes(tree, [os.path.join(self.root, p) for p in (
            "vectors/acvp/set.json", "chapters/a.nw", ".ci/run")])
        for rel in ("build/x", ".git/HEAD"):
            files.write_text(os.path.join(self.root, rel), "z")
            self.assertIn(tree(), seen, rel)
        with mock.patch.object(check_kept.proc, "dpkg_version", return_value="2.0"):
            self.assertNotIn(tree(), seen)
        with mock.patch.object(check_kept.platform, "python_version", return_value="3.99.0"):
            self.assertNotIn(tree(), seen)

    def test_acvp_adds_the_test_kernel(self):
        acvp = lambda: check_kept.acvp_inputs(self.root)     # noqa: E731
        self.assertEqual(len(acvp()), 64)
        self.assertNotEqual(acvp(), check_kept.tree_inputs(self.root))
        self.changes(acvp, [os.path.join(self.build, p) for p in (
            "arch/x86/boot/bzImage", ".config")] + [os.path.join(self.root, "chapters/a.nw")])

    def test_no_finished_test_kernel_no_digest(self):
        os.unlink(os.path.join(self.build, "build.ok"))
        self.assertIsNone(check_kept.acvp_inputs(self.root))
        with mock.patch.object(check_kept.kcache, "installed_version", return_value=None):
            self.assertIsNone(check_kept.acvp_inputs(self.root))


class KeptStepTest(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="check-step-")
        self.addCleanup(shutil.rmtree, self.d)
        self.root = os.path.join(self.d, "repo")
        files.write_text(os.path.join(self.root, "harness/x.py"), "X = 1\n")
        self.status, self.runs = "pass", 0
        for p in (mock.patch.object(check, "OUT", self.d),
                  mock.patch.object(check_kept.proc, "dpkg_version", return_value="1.0"),
                  mock.patch.object(check, "json_step", side_effect=self.ran),
                  mock.patch.object(check, "step"),
                  mock.patch.dict(os.environ, {"FRESH": ""})):
            p.start()
            self.addCleanup(p.stop)

    def ran(self, r, title, key, verb, fallback):
        self.runs += 1
        self.assertEqual((title.split(" (run: ")[0], key, verb, fallback),
                         ("T", "kat", ["entropy-kat"], "kat.x"))
        r.checks += [Check("kat.x", self.status, "t", reason="r", counts={"n": 1})]

    def step(self, digest):
        r = check.Run()
        r.checks.append(Check.passed("host.earlier", "t"))
        check.kept_step(r, "T", "kat", ["entropy-kat"], "kat.x", digest, self.root)
        return r

    def test_the_same_digest_takes_the_kept_verdicts(self):
        first = self.step("d1").checks[1:]
        r = self.step("d1")
        again = r.checks[1:]
        self.assertEqual(self.runs, 1)
        self.assertEqual([(c.id, c.status, c.counts) for c in again],
                         [(c.id, c.status, c.counts) for c in first])
        kept = files.read_json(os.path.join(self.d, "kat-kept.json"))
        self.assertEqual((kept["tree"], again[0].details["from_run"]),
                         ("d1", kept["started"]))
        self.assertEqual(kept["inputs"], {"check-kat": check_kept.evidence.digest(
            check_kept.evidence.CHECK_STEP, self.root)})
        self.assertEqual(kept["packages"]["gcc-12"], "1.0")
        self.assertEqual(r.timings["kat"], 0.0)

    def test_another_digest_none_or_fresh_runs_again(self):
        for fresh, digest in (("", "d2"), ("", None), ("kat", "d1"), ("acvp,all", "d1")):
            with self.subTest(fresh=fresh, digest=digest):
                self.step("d1")
                runs = self.runs
                self.step("d1")
                self.assertEqual(self.runs, runs)       # kept
                with mock.patch.dict(os.environ, {"FRESH": fresh}):
                    self.step(digest)
                self.assertEqual(self.runs, runs + 1)
        with mock.patch.dict(os.environ, {"FRESH": "acvp, mutants"}):
            self.step("d1")
            runs = self.runs
            self.step("d1")
            self.assertEqual(self.runs, runs)   # another step's FRESH

    def test_a_failed_run_is_not_kept(self):
        self.step("d1")
        self.status = "fail"
        self.step("d2")
        self.assertFalse(os.path.exists(os.path.join(self.d, "kat-kept.json")))
        self.status = "pass"
        self.step("d2")
        self.assertEqual(self.runs, 3)


class RecordedStepTest(unittest.TestCase):
    """The kept run of a step in evidence/ (make evidence --only
    check-<step>), taken by a clone that has none of its own."""

    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="check-rec-")
        self.addCleanup(shutil.rmtree, self.d)
        self.root = os.path.join(self.d, "repo")
        self.out = os.path.join(self.root, "build", "check")
        files.write_text(os.path.join(self.root, "harness/x.py"), "X = 1\n")
        files.write_text(os.path.join(self.root, "vectors/v.rsp"), "v\n")
        self.runs, self.version = 0, "1.0"
        key = "check-acvp"
        for p in (mock.patch.object(check, "OUT", self.out),
                  mock.patch.object(check_kept.config, "TOP", self.root),
                  mock.patch.object(check_kept.config, "BUILD", os.path.join(self.root, "build")),
                  mock.patch.object(check, "json_step", side_effect=self.ran),
                  mock.patch.object(check, "step"),
                  mock.patch.object(check_kept.proc, "dpkg_version",
                                    side_effect=lambda pkg: self.version),
                  mock.patch.dict(check_kept.evidence.RECORDS, {key: dict(
                      check_kept.evidence.RECORDS[key], build="build/check/acvp-kept.json")}),
                  mock.patch.dict(os.environ, {"FRESH": ""})):
            p.start()
            self.addCleanup(p.stop)
        self.summary = os.path.join(self.root, "build", "acvp", "summary.json")

    def ran(self, r, title, key, verb, fallback):
        self.runs += 1
        self.title = title
        files.write_json(self.summary, {"sets": self.runs})
        r.checks += [Check("acvp.x", "pass", "t", counts={"answered": 7})]

    def step(self, digest="k1"):
        r = check.Run()
        check.kept_step(r, "T", "acvp", ["acvp"], "acvp.total", digest, self.root)
        return r

    def recorded_clone(self):
        """A run kept in evidence/, then build/ gone (a clean clone)."""
        for d in ("build", "evidence"):
            shutil.rmtree(os.path.join(self.root, d), ignore_errors=True)
        self.step()
        self.assertEqual(check_kept.evidence.record("check-acvp", self.root)["file"],
                         "evidence/check-acvp.json")
        shutil.rmtree(os.path.join(self.root, "build"))

    def test_a_clone_takes_the_recorded_verdicts_and_outputs(self):
        self.recorded_clone()
        r = self.step("another machine's kernel")
        self.assertEqual(self.runs, 1)
        [c] = r.checks
        self.assertEqual((c.id, c.status, c.counts["answered"]), ("acvp.x", "pass", 7))
        self.assertEqual(c.details["from_record"], "evidence/check-acvp.json")
        self.assertEqual(files.read_json(self.summary), {"sets": 1})
        self.assertEqual(r.timings["acvp"], 0.0)

    def test_changed_inputs_packages_or_fresh_run_the_step(self):
        for change in ("input", "package", "fresh", "no outputs"):
            with self.subTest(change=change):
                self.recorded_clone()
                runs = self.runs
                env = {"FRESH": ""}
                if change == "input":
                    files.write_text(os.path.join(self.root, "vectors/v.rsp"), "w\n")
                elif change == "package":
                    self.version = "2.0"
                elif change == "fresh":
                    env = {"FRESH": "acvp"}
                else:
                    path = os.path.join(self.root, "evidence/check-acvp.json")
                    rec = files.read_json(path)
                    files.write_json(path, dict(rec, outputs={}))
                with mock.patch.dict(os.environ, env):
                    self.step()
                self.assertEqual(self.runs, runs + 1)
                why = {"input": "made on other inputs", "package": "other versions of",
                       "fresh": "FRESH=acvp", "no outputs": "lacks build/acvp/summary"}
                self.assertIn(why[change], self.title)
                self.version = "1.0"
                files.write_text(os.path.join(self.root, "vectors/v.rsp"), "v\n")

    def test_no_output_nothing_kept(self):
        """A step that passed but left nothing for the book is not kept:
        a clone taking it would render the book without it."""
        self.ran = lambda r, *a: r.checks.append(Check("acvp.x", "pass", "t"))
        check.json_step.side_effect = self.ran
        self.step()
        self.assertFalse(os.path.exists(os.path.join(self.out, "acvp-kept.json")))


if __name__ == "__main__":
    unittest.main()
