# SPDX-License-Identifier: GPL-2.0-only
"""Applying a new series to the cached tree (kcache.am_keeping_mtimes):
the files whose text did not change keep their modification time, the
one that changed is named, and the work is a fixed number of git calls
in a tree with the split index on, however many files the series
touches.  A small git repository stands in for the kernel's."""

import os
import shutil
import subprocess
import tempfile
import unittest
from unittest import mock

from harness.base import kcache

IDENT = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
         "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org",
         "GIT_AUTHOR_DATE": "2015-01-01T00:00:00Z",
         "GIT_COMMITTER_DATE": "2015-01-01T00:00:00Z"}
FILES = [f"crypto/f{i:02d}.c" for i in range(12)]
OLD = 1_500_000_000 * 10**9


class AmKeepingMtimesTest(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="kcache-am-")
        self.addCleanup(shutil.rmtree, self.d)
        self.src = os.path.join(self.d, "src")
        os.makedirs(os.path.join(self.src, "crypto"))
        self.git("init", "-q")
        for path in FILES + ["Makefile"]:
            self.write(path, f"/* {path} */\n")
        self.git("add", "-A")
        self.git("commit", "-q", "-m", "pristine")
        self.git("tag", "pristine")

    def git(self, *args):
        r = subprocess.run(["git", "-C", self.src] + list(args), capture_output=True,
                           text=True, env=dict(os.environ, **IDENT))
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout

    def write(self, path, text):
        with open(os.path.join(self.src, path), "w") as f:
            f.write(text)

    def series(self, name, last):
        """A patch that edits every file of FILES; the last one's new
        line is last.  Returns the patch's path (the tree is back at
        pristine afterwards)."""
        self.git("checkout", "-q", "-f", "--detach", "pristine")
        for path in FILES:
            self.write(path, f"/* {path} */\nint x;\n" + (last if path == FILES[-1] else ""))
        self.git("commit", "-q", "-a", "-m", f"series {name}")
        out = os.path.join(self.d, name)
        self.git("format-patch", "-q", "-o", out, "pristine..HEAD")
        self.git("checkout", "-q", "-f", "--detach", "pristine")
        return [os.path.join(out, n) for n in sorted(os.listdir(out))]

    def test_unchanged_files_keep_their_time(self):
        first, second = self.series("one", "int a;\n"), self.series("two", "int b;\n")
        kcache.am_keeping_mtimes(self.src, first, IDENT, "test", "test")
        for path in FILES:
            os.utime(os.path.join(self.src, path), ns=(OLD, OLD))
        calls = []
        real = kcache.git

        def counted(repo, *args, **kw):
            calls.append(args[0])
            return real(repo, *args, **kw)
        with mock.patch.object(kcache, "git", counted):
            changed, kept = kcache.am_keeping_mtimes(self.src, second, IDENT, "test", "test")
        self.assertEqual(changed, [FILES[-1]])
        self.assertEqual(kept, len(FILES) - 1)
        for path in FILES[:-1]:
            self.assertEqual(os.stat(os.path.join(self.src, path)).st_mtime_ns, OLD, path)
        self.assertGreater(os.stat(os.path.join(self.src, FILES[-1])).st_mtime_ns, OLD)
        with open(os.path.join(self.src, FILES[-1])) as f:
            self.assertTrue(f.read().endswith("int b;\n"))
        # touched_paths twice, ls-tree twice, the split index's check,
        # am --abort, checkout, am: not a call per file.
        self.assertLessEqual(len(calls), 9, calls)
        self.assertEqual(self.git("config", "--get", "core.splitIndex").strip(), "true")


if __name__ == "__main__":
    unittest.main()
