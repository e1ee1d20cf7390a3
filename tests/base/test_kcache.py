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
