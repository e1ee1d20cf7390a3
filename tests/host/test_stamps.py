# SPDX-License-Identifier: GPL-2.0-only
"""The two stamps that let a warm run skip work are never trusted wrongly.

kernel.up_to_date() skips `make` only for the same tree, fragments,
compiler and image, on a clean source tree; tangle_stamp skips the tangle
only when the book, its tools and tangled/ all hash as they did.  Each
test changes one of those and expects the work to be done again.
"""

import contextlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tools"))
import kernel  # noqa: E402
import tangle_stamp  # noqa: E402


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
        self.inputs = kernel.build_inputs(self.src, "test")
        self.write_stamp(self.inputs)

    def tearDown(self):
        shutil.rmtree(self.dir)

    def write_stamp(self, inputs):
        import json
        with open(self.stamp, "w") as f:
            json.dump({"inputs": inputs,
                       "image_mtime_ns": os.stat(self.image).st_mtime_ns}, f)

    def fresh(self):
        return kernel.up_to_date(self.src, self.b, self.stamp,
                                 kernel.build_inputs(self.src, "test"))

    def test_same_inputs_skip(self):
        self.assertEqual(self.inputs["tree"], kernel.git(
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


class TangleStampTest(unittest.TestCase):
    def setUp(self):
        self.top = tempfile.mkdtemp(prefix="tstamp-")
        for p in ["tangle.conf", "spec.nw", "chapters", "tools", "tangled"]:
            s, d = os.path.join(TOP, p), os.path.join(self.top, p)
            (shutil.copytree if os.path.isdir(s) else shutil.copy)(s, d)
        self.saved = (tangle_stamp.TOP, tangle_stamp.STAMP)
        tangle_stamp.TOP = self.top
        tangle_stamp.STAMP = os.path.join(self.top, "build/tangle/stamp.json")
        self.pristine = tangle_stamp.inputs()["pristine"]

    def tearDown(self):
        tangle_stamp.TOP, tangle_stamp.STAMP = self.saved
        shutil.rmtree(self.top)

    def fresh(self):
        with contextlib.redirect_stdout(io.StringIO()):
            return tangle_stamp.main(["tangle_stamp.py", "fresh"]) == 0

    def test_no_stamp_tangles(self):
        self.assertFalse(self.fresh())

    def test_each_change_tangles_again(self):
        if self.pristine is None:
            self.skipTest("no kernel tree in the cache: the stamp is never trusted")
        self.assertEqual(tangle_stamp.main(["tangle_stamp.py", "write"]), 0)
        self.assertTrue(self.fresh())
        for rel, text in (("chapters/30-drbg-seeding.nw", "\n"),
                          ("tools/series.py", "\n# changed\n"),
                          ("tangled/jitterentropy.c", "/* hand edit */\n")):
            p = os.path.join(self.top, rel)
            with open(p) as f:
                keep = f.read()
            with open(p, "a") as f:
                f.write(text)
            self.assertFalse(self.fresh(), rel)
            with open(p, "w") as f:
                f.write(keep)
            self.assertTrue(self.fresh(), rel)

    def test_usage(self):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertEqual(tangle_stamp.main(["tangle_stamp.py"]), 2)
        self.assertIn("tangle_stamp.py fresh", err.getvalue())


if __name__ == "__main__":
    unittest.main()
