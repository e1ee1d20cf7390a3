# SPDX-License-Identifier: GPL-2.0-only
"""The kernel-side tools fail cleanly and never touch the host's kernel.

- A patch that no longer applies stops `git am` with one line naming the
  patch, its subject and the file (on a small repository made here, with
  the same function make kernel uses).
- The initramfs writer (the kernel's own usr/gen_init_cpio, compiled from
  the cached tree) makes a valid newc archive, the same bytes twice.
- No host-side tool invokes a module loader or a kernel-exec loader: the
  mission's rule is that kernel artefacts go only to QEMU.
"""

import concurrent.futures
import os
import re
import shutil
import subprocess
import tempfile
import unittest
from unittest import mock

from harness.base import config, guest, initramfs, kcache

TOP = config.TOP

ENV = {"GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.org",
       "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.org",
       "GIT_AUTHOR_DATE": "2026-12-01T00:00:00+00:00",
       "GIT_COMMITTER_DATE": "2026-12-01T00:00:00+00:00"}


def sh(cwd, *cmd):
    subprocess.run(cmd, cwd=cwd, check=True, capture_output=True,
                   env=dict(os.environ, **ENV))


class GitAmTest(unittest.TestCase):
    def setUp(self):
        self.repo = tempfile.mkdtemp(prefix="amtest-")
        sh(self.repo, "git", "init", "-q")
        with open(os.path.join(self.repo, "drbg.c"), "w") as f:
            f.write("one\ntwo\nthree\n")
        sh(self.repo, "git", "add", "drbg.c")
        sh(self.repo, "git", "commit", "-q", "-m", "base")
        sh(self.repo, "git", "tag", "pristine")
        with open(os.path.join(self.repo, "drbg.c"), "w") as f:
            f.write("one\ntwo and a half\nthree\n")
        sh(self.repo, "git", "commit", "-q", "-am", "crypto: drbg - change two")
        self.patches = tempfile.mkdtemp(prefix="ampatches-")
        sh(self.repo, "git", "format-patch", "-q", "-o", self.patches, "pristine..HEAD")
        self.patch = [os.path.join(self.patches, p) for p in os.listdir(self.patches)]

    def test_applies(self):
        kcache.git_am(self.repo, self.patch, ENV, "found 1", "made 1")
        with open(os.path.join(self.repo, "drbg.c")) as f:
            self.assertIn("two and a half", f.read())

    def test_patch_that_no_longer_applies(self):
        # A new "sublevel": the pristine tree moved under the patch.
        sh(self.repo, "git", "checkout", "-q", "--detach", "pristine")
        with open(os.path.join(self.repo, "drbg.c"), "w") as f:
            f.write("one\nTWO\nthree\n")
        sh(self.repo, "git", "commit", "-q", "-am", "new sublevel")
        sh(self.repo, "git", "tag", "-f", "pristine")
        with self.assertRaises(SystemExit) as e:
            kcache.git_am(self.repo, self.patch, ENV, "linux-source-6.1 9.9",
                          "6.1.192-3")
        msg = str(e.exception)
        self.assertRegex(msg, r"^kernel: patch 0001 \(crypto: drbg - change two\) "
                              r"does not apply to linux-source-6.1 9.9 at drbg.c:1 "
                              r"\(series made for 6.1.192-3\)$")
        self.assertNotIn("\n", msg)
        status = subprocess.run(["git", "status", "--porcelain"], cwd=self.repo,
                                capture_output=True, text=True).stdout
        self.assertEqual(status, "", "a failed git am must leave a clean tree")


class InitramfsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.src = kcache.ensure_pristine()[1]

    def test_valid_and_reproducible(self):
        d = tempfile.mkdtemp(prefix="cpiotest-")
        self.addCleanup(shutil.rmtree, d, True)
        init = os.path.join(d, "init")
        data = os.path.join(d, "v.rsp")
        for p, text in ((init, b"\x7fELF fake"), (data, b"COUNT = 0\r\n")):
            with open(p, "wb") as f:
                f.write(text)
        a = initramfs.write(os.path.join(d, "a.cpio"), init, {"data/cavs/v.rsp": data},
                            src=self.src)
        b = initramfs.write(os.path.join(d, "b.cpio"), init, {"data/cavs/v.rsp": data},
                            src=self.src)
        with open(a, "rb") as fa, open(b, "rb") as fb:
            self.assertEqual(fa.read(), fb.read())
        # A file written again with the same bytes (the CAVS pack, every
        # run) gives the same archive: gen_init_cpio takes a regular
        # file's mtime from the host file, whatever -t says.
        for p in (init, data):
            os.utime(p, (1700000000, 1700000000))
        c = initramfs.write(os.path.join(d, "c.cpio"), init, {"data/cavs/v.rsp": data},
                            src=self.src)
        with open(a, "rb") as fa, open(c, "rb") as fc:
            self.assertEqual(fa.read(), fc.read())
        with open(a, "rb") as fa:
            r = subprocess.run(["cpio", "-it", "--quiet"], stdin=fa,
                               capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        names = r.stdout.split()
        for want in ("init", "dev/console", "data/cavs/v.rsp", "proc", "sys"):
            self.assertIn(want, names)

    def test_tool_is_never_written_in_place(self):
        # make conform --only drbg,fips-drbg on a fresh tree: two boots
        # compiled gen_init_cpio at once and one ran it while the other's
        # linker wrote it (OSError: Text file busy).  The compiler must write
        # a file of its own; side by side, every caller gets a whole tool.
        d = tempfile.mkdtemp(prefix="cpiotool-")
        self.addCleanup(shutil.rmtree, d, True)
        out = os.path.join(d, "guest", "gen_init_cpio")
        real = subprocess.run
        targets = []

        def spy(cmd, *a, **k):
            if cmd and cmd[0] == "gcc":
                targets.append(cmd[cmd.index("-o") + 1])
            return real(cmd, *a, **k)
        with mock.patch.object(initramfs.subprocess, "run", spy):
            with concurrent.futures.ThreadPoolExecutor(4) as ex:
                got = list(ex.map(lambda _: initramfs.tool(self.src, out), range(4)))
        self.assertEqual(set(got), {out})
        self.assertTrue(targets)
        self.assertNotIn(out, targets)
        self.assertEqual(sorted(os.listdir(os.path.dirname(out))),
                         ["gen_init_cpio", "gen_init_cpio.sha256"])
        r = subprocess.run([out, "-t", "0", os.devnull], capture_output=True)
        self.assertEqual(r.returncode, 0, r.stderr)


class NoHostKernelLoadingTest(unittest.TestCase):
    """Host scripts never load anything into the host's kernel."""

    # Spelled in pieces so that this file does not match itself.
    WORDS = ["ins" + "mod", "mod" + "probe", "rm" + "mod", "kex" + "ec",
             "finit_" + "module", "init_" + "module(", "delete_" + "module"]

    def test_no_loader_invocations(self):
        roots = ["harness", "tools", "conformance", "tests", "Makefile", ".ci"]
        # What runs only inside the QEMU guest: the /init sources (the
        # modules boot loads the variant's modules into the guest's kernel)
        # and the guest kernels' config fragments.
        guest_only = [guest.SOURCES, "conformance/kconfig"]
        hits = []
        for root in roots:
            path = os.path.join(TOP, root)
            files = [path] if os.path.isfile(path) else [
                os.path.join(dp, f) for dp, _, fs in os.walk(path) for f in fs
                if not f.endswith((".pyc",))
                and not any(os.path.relpath(dp, TOP) == g
                            or os.path.relpath(dp, TOP).startswith(g + os.sep)
                            for g in guest_only)]
            self.assertTrue(files, f"{root}: nothing to scan (moved?)")
            for fp in files:
                with open(fp, errors="replace") as f:
                    for no, line in enumerate(f, 1):
                        for w in self.WORDS:
                            if re.search(r"(?<![\w.])" + re.escape(w), line):
                                hits.append(f"{os.path.relpath(fp, TOP)}:{no}: {w}")
        self.assertEqual(hits, [], "host-side code must never load kernel code")


if __name__ == "__main__":
    unittest.main()
