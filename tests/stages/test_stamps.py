# SPDX-License-Identifier: GPL-2.0-only
"""The two stamps that let a warm run skip work are never trusted wrongly.

kbuild.up_to_date() skips `make` only for the same tree, fragments,
compiler and image, on a clean source tree; the tangle's stamp
(tangle.fresh()) skips the tangle only when the book, its tools, tangled/
and the series' line map all hash as they did.  Each test changes one of
those and expects the work to be done again.
"""

import json
import os
import shutil
import subprocess
import tempfile
import time
import unittest
from unittest import mock

from harness.base import conf as confmod
from harness.base import config, files, kbuild, kcache
from harness.stages import series, tangle

TOP = config.TOP


def sh(cwd, *args):
    subprocess.run(args, cwd=cwd, check=True, capture_output=True)


class KernelBuildStampTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="stamp-")
        self.src = os.path.join(self.dir, "src")
        self.b = os.path.join(self.dir, "build-test")
        os.makedirs(self.src)
        os.makedirs(os.path.join(self.b, "arch/x86/boot"))
        with open(os.path.join(self.src, "random.c"), "w") as f:
            f.write("int x;\n")
        sh(self.src, "git", "init", "-q")
        sh(self.src, "git", "add", ".")
        sh(self.src, "git", "-c", "user.name=t", "-c", "user.email=t@t", "commit",
           "-qm", "t")
        self.image = os.path.join(self.b, "arch/x86/boot/bzImage")
        with open(self.image, "w") as f:
            f.write("image")
        self.stamp = os.path.join(self.b, "build.ok")
        self.inputs = kbuild.build_inputs(self.src, "test")
        self.write_stamp(self.inputs)

    def tearDown(self):
        shutil.rmtree(self.dir)

    def write_stamp(self, inputs):
        with open(self.stamp, "w") as f:
            json.dump({"inputs": inputs,
                       "image_mtime_ns": os.stat(self.image).st_mtime_ns}, f)

    def fresh(self):
        return kbuild.up_to_date(self.src, self.b, self.stamp,
                                 kbuild.build_inputs(self.src, "test"))

    def test_same_inputs_skip(self):
        self.assertEqual(self.inputs["tree"], kcache.git(
            self.src, "rev-parse", "HEAD^{tree}").stdout.strip())
        self.assertTrue(self.fresh())

    def test_committed_change_rebuilds(self):
        with open(os.path.join(self.src, "random.c"), "w") as f:
            f.write("int y;\n")
        sh(self.src, "git", "-c", "user.name=t", "-c", "user.email=t@t", "commit",
           "-qam", "u")
        self.assertFalse(self.fresh())

    def test_uncommitted_edit_rebuilds(self):
        with open(os.path.join(self.src, "random.c"), "a") as f:
            f.write("int z;\n")
        self.assertFalse(self.fresh())

    def test_build_of_an_edited_tree_is_not_the_clean_tree(self):
        """make teeth: a kernel built from an edit, the edit undone with git
        checkout, must be built again (it was the mutant before)."""
        with open(os.path.join(self.src, "random.c"), "a") as f:
            f.write("int mutant;\n")
        self.write_stamp(kbuild.build_inputs(self.src, "test"))   # the mutant's build
        sh(self.src, "git", "checkout", "-q", "--", "random.c")
        self.assertFalse(self.fresh())
        self.write_stamp(kbuild.build_inputs(self.src, "test"))   # the rebuild
        self.assertTrue(self.fresh())

    def test_other_fragments_or_compiler_rebuild(self):
        self.write_stamp(dict(self.inputs, fragments_sha256="0" * 64))
        self.assertFalse(self.fresh())
        self.write_stamp(dict(self.inputs, gcc="gcc (Debian 1.0) 1.0"))
        self.assertFalse(self.fresh())

    def test_replaced_image_or_missing_stamp_rebuild(self):
        time.sleep(0.01)
        with open(self.image, "w") as f:
            f.write("another image")
        os.utime(self.image, ns=(time.time_ns(), time.time_ns() + 10**9))
        self.assertFalse(self.fresh())
        os.unlink(self.stamp)
        self.assertFalse(self.fresh())


class OlddefconfigStampTest(unittest.TestCase):
    """kbuild.configure() skips olddefconfig only when what it reads is
    the same: the fragments, the architecture, the tools and every file
    but C sources and headers outside scripts/."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="olddefconfig-")
        self.addCleanup(shutil.rmtree, self.dir)
        self.src = os.path.join(self.dir, "src")
        self.scratch = os.path.join(self.dir, "build-test.kconfig")
        for rel, text in (("Kconfig", "config A\n"), ("crypto/drbg.c", "int x;\n"),
                          ("include/linux/a.h", "int a;\n"), ("scripts/k.c", "int k;\n")):
            os.makedirs(os.path.dirname(os.path.join(self.src, rel)), exist_ok=True)
            with open(os.path.join(self.src, rel), "w") as f:
                f.write(text)
        os.makedirs(self.scratch)
        with open(os.path.join(self.scratch, ".config"), "w") as f:
            f.write("CONFIG_A=y\n")
        sh(self.src, "git", "init", "-q")
        self.commit()
        self.last = dict(self.key(), config_sha256=files.sha256_file(
            os.path.join(self.scratch, ".config")))

    def commit(self):
        sh(self.src, "git", "add", "-A")
        sh(self.src, "git", "-c", "user.name=t", "-c", "user.email=t@t", "commit",
           "-qm", "t", "--allow-empty")

    def key(self, seed="CONFIG_A=y\n", arch="x86_64"):
        return kbuild.config_key(self.src, seed, arch)

    def edit(self, rel, commit=True):
        with open(os.path.join(self.src, rel), "a") as f:
            f.write("/* edit */\n")
        if commit:
            self.commit()

    def unchanged(self, **kw):
        return kbuild.config_unchanged(self.src, self.scratch, self.key(**kw), self.last)

    def test_same_tree_and_c_edits_skip(self):
        self.assertTrue(self.unchanged())
        self.edit("crypto/drbg.c")
        self.edit("include/linux/a.h")
        self.assertTrue(self.unchanged(), "a C file and a header: the same .config")

    def test_what_olddefconfig_reads_runs_it(self):
        self.assertFalse(self.unchanged(seed="CONFIG_B=y\n"), "another fragment")
        self.assertFalse(self.unchanged(arch="i386"))
        self.assertFalse(kbuild.config_unchanged(self.src, self.scratch, self.key(),
                                                 dict(self.last, gcc="gcc 1.0")))
        self.assertFalse(kbuild.config_unchanged(self.src, self.scratch, self.key(), None))
        for rel in ("Kconfig", "scripts/k.c"):
            with self.subTest(rel=rel):
                self.edit(rel)
                self.assertFalse(self.unchanged())

    def test_uncommitted_edit_or_changed_config_runs_it(self):
        self.edit("crypto/drbg.c", commit=False)
        self.assertIsNone(self.key())
        self.assertFalse(self.unchanged())
        sh(self.src, "git", "checkout", "-q", "--", "crypto/drbg.c")
        self.assertTrue(self.unchanged())
        with open(os.path.join(self.scratch, ".config"), "a") as f:
            f.write("CONFIG_B=y\n")
        self.assertFalse(self.unchanged(), "the .config is not the one olddefconfig wrote")


class TangleStampTest(unittest.TestCase):
    def setUp(self):
        self.top = tempfile.mkdtemp(prefix="tstamp-")
        for p in ["tangle.conf", "spec.nw", "chapters", "harness", "tangled"]:
            s, d = os.path.join(TOP, p), os.path.join(self.top, p)
            (shutil.copytree if os.path.isdir(s) else shutil.copy)(s, d)
        self.lines = os.path.join(self.top, "build/tangle/lines.json")
        os.makedirs(os.path.dirname(self.lines))
        with open(self.lines, "w") as f:
            f.write('{"patches": []}\n')
        for target, name, value in ((config, "TOP", self.top),
                                    (tangle, "STAMP", os.path.join(
                                        self.top, "build/tangle/stamp.json")),
                                    (series, "LINES", self.lines)):
            patcher = mock.patch.object(target, name, value)
            patcher.start()
            self.addCleanup(patcher.stop)
        self.conf = confmod.load(os.path.join(self.top, "tangle.conf"))
        self.pristine = tangle.stamp_inputs(self.conf)["pristine"]

    def tearDown(self):
        shutil.rmtree(self.top)

    def fresh(self):
        return tangle.fresh(self.conf) is None

    def test_no_stamp_tangles(self):
        self.assertFalse(self.fresh())

    def test_each_change_tangles_again(self):
        if self.pristine is None:
            self.skipTest("no kernel tree in the cache: the stamp is never trusted")
        tangle.write_stamp(self.conf)
        self.assertTrue(self.fresh())
        for rel, text in (("chapters/30-drbg-seeding.nw", "\n"),
                          ("harness/stages/series.py", "\n# changed\n"),
                          ("tangled/jitterentropy.c", "/* hand edit */\n"),
                          ("build/tangle/lines.json", "\n")):
            p = os.path.join(self.top, rel)
            with open(p) as f:
                keep = f.read()
            with open(p, "a") as f:
                f.write(text)
            self.assertFalse(self.fresh(), rel)
            with open(p, "w") as f:
                f.write(keep)
            self.assertTrue(self.fresh(), rel)

    def test_says_why(self):
        """fresh() names what makes the tangle run again, in one line"""
        self.assertEqual(tangle.fresh(self.conf), "no stamp of an earlier tangle")
        if self.pristine is None:
            tangle.write_stamp(self.conf)
            self.assertEqual(tangle.fresh(self.conf),
                             "no kernel tree yet: the tangle imports it")
            return
        tangle.write_stamp(self.conf)
        self.assertIsNone(tangle.fresh(self.conf))
        with open(os.path.join(self.top, "tangle.conf"), "a") as f:
            f.write("# a comment\n")
        self.assertEqual(tangle.fresh(self.conf),
                         "the book or its tools changed since the last tangle")
        tangle.write_stamp(self.conf)
        with open(os.path.join(self.top, "tangled/jitterentropy.c"), "a") as f:
            f.write("\n")
        self.assertEqual(tangle.fresh(self.conf),
                         "tangled/ was changed by hand since the last tangle")
        tangle.write_stamp(self.conf)
        os.unlink(self.lines)
        self.assertEqual(tangle.fresh(self.conf), "the line map of the series is missing")

if __name__ == "__main__":
    unittest.main()
