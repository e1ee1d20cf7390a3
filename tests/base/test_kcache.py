# SPDX-License-Identifier: GPL-2.0-only
"""The kernel cache is never trusted half-made.

With a tiny tarball standing in for Debian's (LITERATE_DRBG_TARBALL) and a
cache directory of its own (KCACHE), the import is run, interrupted at
various points, and run again: a partial tree is detected and redone, a
corrupt tarball stops with one line and leaves nothing behind, and the
pristine commit is the same on every import (fixed identity and date).
"""

import io
import lzma
import os
import shutil
import subprocess
import tarfile
import tempfile
import unittest

from harness.base import config

# About 12 s of the host tests on two CPUs: run before the short modules
# (host_tests.shuffled).
LONG = True

KERNEL_VERB = [config.PY, "-m", "harness", "kernel", "pristine"]


def make_tarball(path, files):
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as t:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo("linux-source-6.1/" + name)
            info.size = len(data)
            info.mtime = 1700000000
            t.addfile(info, io.BytesIO(data))
    with open(path, "wb") as f:
        f.write(lzma.compress(raw.getvalue()))


class KcacheTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="kcache-")
        self.tarball = os.path.join(self.dir, "src.tar.xz")
        make_tarball(self.tarball, {"Makefile": "VERSION = 6\n",
                                    ".gitignore": "/*\n",
                                    "crypto/drbg.c": "int drbg;\n"})
        self.env = dict(os.environ, KCACHE=os.path.join(self.dir, "cache"),
                        LITERATE_DRBG_TARBALL=self.tarball,
                        LITERATE_DRBG_VERSION="6.1.999-1")
        self.tree = os.path.join(self.dir, "cache", "linux-6.1.999-1")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def pristine(self):
        return subprocess.run(KERNEL_VERB, env=self.env, cwd=config.TOP,
                              capture_output=True, text=True)

    def head(self):
        return subprocess.run(["git", "-C", os.path.join(self.tree, "src"), "rev-parse",
                               "pristine"], capture_output=True, text=True).stdout.strip()

    def test_import_then_reuse(self):
        r = self.pristine()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.exists(os.path.join(self.tree, "src.ok")))
        first = self.head()
        files = subprocess.run(["git", "-C", os.path.join(self.tree, "src"), "ls-files"],
                               capture_output=True, text=True).stdout.split()
        self.assertIn("crypto/drbg.c", files, "Debian's /* .gitignore must not hide files")
        r = self.pristine()
        self.assertNotIn("unpacking", r.stdout, "a complete import is reused")
        self.assertEqual(self.head(), first)

    def test_same_commit_on_every_import(self):
        self.assertEqual(self.pristine().returncode, 0)
        first = self.head()
        shutil.rmtree(self.tree)
        self.assertEqual(self.pristine().returncode, 0)
        self.assertEqual(self.head(), first)

    def test_interrupted_import_is_redone(self):
        self.assertEqual(self.pristine().returncode, 0)
        os.unlink(os.path.join(self.tree, "src.ok"))
        with open(os.path.join(self.tree, "src", "crypto", "drbg.c"), "w") as f:
            f.write("half written")
        r = self.pristine()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("removing an incomplete import", r.stdout)
        with open(os.path.join(self.tree, "src", "crypto", "drbg.c")) as f:
            self.assertEqual(f.read(), "int drbg;\n")

    def test_leftover_unpacking_dir_is_cleared(self):
        os.makedirs(os.path.join(self.tree, "src.unpacking", "junk"))
        r = self.pristine()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tree, "src.unpacking")))

    def test_corrupt_tarball(self):
        with open(self.tarball, "r+b") as f:
            f.seek(40)
            f.write(b"\0" * 64)
        r = self.pristine()
        self.assertNotEqual(r.returncode, 0)
        msg = r.stderr.strip()
        self.assertRegex(msg, r"^kernel: unpacking .* failed \(nothing kept\): xz: .*(corrupt|format)")
        self.assertNotIn("\n", msg)
        self.assertFalse(os.path.exists(os.path.join(self.tree, "src")))
        self.assertFalse(os.path.exists(os.path.join(self.tree, "src.ok")))

    def test_missing_package(self):
        env = dict(self.env, LITERATE_DRBG_TARBALL=os.path.join(self.dir, "nope.tar.xz"))
        r = subprocess.run(KERNEL_VERB, env=env, cwd=config.TOP,
                           capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("is not installed", r.stderr)
        self.assertIn("make deps", r.stderr)


if __name__ == "__main__":
    unittest.main()


class BadStampTest(unittest.TestCase):
    """A stamp that is valid JSON but not an object, or empty, is not a
    finished import: the import is redone (as the README promises for an
    interrupted one), never a traceback."""

    setUp, tearDown, pristine = KcacheTest.setUp, KcacheTest.tearDown, KcacheTest.pristine

    def test_stamp_not_an_object_or_empty(self):
        self.assertEqual(self.pristine().returncode, 0)
        for text in ("[1, 2]", "", "null", '"6.1.999-1"', "{\"version\": 7}"):
            with self.subTest(stamp=text):
                with open(os.path.join(self.tree, "src.ok"), "w") as f:
                    f.write(text)
                r = self.pristine()
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertNotIn("Traceback", r.stderr)
                self.assertIn("is not a finished import of this tree: importing again",
                              r.stdout)


class ReadJsonTest(unittest.TestCase):
    def test_only_the_kind_asked_for(self):
        from harness.base import files
        d = tempfile.mkdtemp(prefix="read-json-")
        self.addCleanup(shutil.rmtree, d)
        cases = {"[1]": (None, [1]), "": (None, None), "null": (None, None),
                 "3": (None, None), "{\"a\": 1}": ({"a": 1}, None), "{": (None, None)}
        for text, (as_dict, as_list) in cases.items():
            p = os.path.join(d, "x.json")
            with open(p, "w") as f:
                f.write(text)
            self.assertEqual(files.read_json(p), as_dict, text)
            self.assertEqual(files.read_json(p, kind=list), as_list, text)
        with open(p, "wb") as f:
            f.write(b"\xff\xfe{")
        self.assertIsNone(files.read_json(p))
        self.assertIsNone(files.read_json(os.path.join(d, "missing.json")))

    def test_build_stamp_not_an_object(self):
        from harness.base import kbuild
        d = tempfile.mkdtemp(prefix="build-stamp-")
        self.addCleanup(shutil.rmtree, d)
        os.makedirs(os.path.join(d, "arch/x86/boot"))
        open(os.path.join(d, "arch/x86/boot/bzImage"), "w").close()
        for text in ("[1]", "", "7"):
            with open(os.path.join(d, "build.ok"), "w") as f:
                f.write(text)
            self.assertFalse(kbuild.up_to_date(d, d, os.path.join(d, "build.ok"), {}))


class UnwritableKcacheTest(unittest.TestCase):
    """Every verb that needs the kernel cache says in one line that it
    cannot make it (here KCACHE lies under a regular file, which even root
    cannot write into), instead of a PermissionError traceback.  The verbs
    run in a scratch copy of the repository (links, with a copy of
    tangled/), so that nothing of the real one is written."""

    VERBS = [["tangle"], ["drift"], ["checkpatch"], ["kernel", "apply"],
             ["kernel", "build", "test"], ["prodconfig", "check"], ["conform"]]

    def test_one_line_each(self):
        d = tempfile.mkdtemp(prefix="kcache-unwritable-")
        self.addCleanup(shutil.rmtree, d)
        for name in os.listdir(config.TOP):
            if name == "tangled":
                shutil.copytree(config.top(name), os.path.join(d, name))
            elif name not in ("build", ".git"):
                os.symlink(config.top(name), os.path.join(d, name))
        blocker = os.path.join(d, "a-file")
        open(blocker, "w").close()
        env = dict(os.environ, KCACHE=os.path.join(blocker, "cache"))
        for verb in self.VERBS:
            with self.subTest(verb=" ".join(verb)):
                r = subprocess.run([config.PY, "-m", "harness"] + verb, cwd=d, env=env,
                                   capture_output=True, text=True, timeout=300)
                self.assertNotEqual(r.returncode, 0)
                self.assertNotIn("Traceback", r.stderr)
                self.assertEqual(r.stderr.strip().splitlines(),
                                 [f"kernel: cannot create {blocker}/cache/linux-"
                                  f"{kcache_version()}: Not a directory (set "
                                  "KCACHE=/a/writable/dir)"])


def kcache_version():
    from harness.base import kcache
    return kcache.installed_version()
