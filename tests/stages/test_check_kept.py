# SPDX-License-Identifier: GPL-2.0-only
"""make check keeps a step's run that passed with the digest of its inputs
(check.kept_step, tree_inputs, acvp_inputs): the next run of the same
digest takes its verdicts instead of running the step; any file of the
tree, a package or Python, and for ACVP the test kernel's image or
.config, changes the digest; a failed run, no digest, or FRESH naming
the step (or all) runs it again."""

import os
import shutil
import tempfile
import unittest
from unittest import mock

from harness.base import files
from harness.base.checks import Check
from harness.stages import check


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
        for p in (mock.patch.object(check.kcache, "installed_version", return_value="6.1.9"),
                  mock.patch.object(check.kcache, "tree_dir",
                                    side_effect=lambda v: os.path.join(self.d, "cache",
                                                                       f"linux-{v}")),
                  mock.patch.object(check.proc, "dpkg_version", return_value="1.0")):
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
        tree = lambda: check.tree_inputs(self.root)     # noqa: E731
        self.assertEqual(tree(), tree())
        seen = self.changes(tree, [os.path.join(self.root, p) for p in (
            "vectors/acvp/set.json", "chapters/a.nw", ".ci/run")])
        for rel in ("build/x", ".git/HEAD"):
            files.write_text(os.path.join(self.root, rel), "z")
            self.assertIn(tree(), seen, rel)
        with mock.patch.object(check.proc, "dpkg_version", return_value="2.0"):
            self.assertNotIn(tree(), seen)
        with mock.patch.object(check.platform, "python_version", return_value="3.99.0"):
            self.assertNotIn(tree(), seen)

    def test_acvp_adds_the_test_kernel(self):
        acvp = lambda: check.acvp_inputs(self.root)     # noqa: E731
        self.assertEqual(len(acvp()), 64)
        self.assertNotEqual(acvp(), check.tree_inputs(self.root))
        self.changes(acvp, [os.path.join(self.build, p) for p in (
            "arch/x86/boot/bzImage", ".config")] + [os.path.join(self.root, "chapters/a.nw")])

    def test_no_finished_test_kernel_no_digest(self):
        os.unlink(os.path.join(self.build, "build.ok"))
        self.assertIsNone(check.acvp_inputs(self.root))
        with mock.patch.object(check.kcache, "installed_version", return_value=None):
            self.assertIsNone(check.acvp_inputs(self.root))


class KeptStepTest(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="check-step-")
        self.addCleanup(shutil.rmtree, self.d)
        self.status, self.runs = "pass", 0
        for p in (mock.patch.object(check, "OUT", self.d),
                  mock.patch.object(check, "json_step", side_effect=self.ran),
                  mock.patch.object(check, "step"),
                  mock.patch.dict(os.environ, {"FRESH": ""})):
            p.start()
            self.addCleanup(p.stop)

    def ran(self, r, title, key, verb, fallback):
        self.runs += 1
        self.assertEqual((title, key, verb, fallback), ("T", "kat", ["entropy-kat"], "kat.x"))
        r.checks += [Check("kat.x", self.status, "t", reason="r", counts={"n": 1})]

    def step(self, digest):
        r = check.Run()
        r.checks.append(Check.passed("host.earlier", "t"))
        check.kept_step(r, "T", "kat", ["entropy-kat"], "kat.x", digest)
        return r

    def test_the_same_digest_takes_the_kept_verdicts(self):
        first = self.step("d1").checks[1:]
        r = self.step("d1")
        again = r.checks[1:]
        self.assertEqual(self.runs, 1)
        self.assertEqual([(c.id, c.status, c.counts) for c in again],
                         [(c.id, c.status, c.counts) for c in first])
        kept = files.read_json(os.path.join(self.d, "kat-kept.json"))
        self.assertEqual((kept["inputs"], again[0].details["from_run"]),
                         ("d1", kept["started"]))
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


if __name__ == "__main__":
    unittest.main()
