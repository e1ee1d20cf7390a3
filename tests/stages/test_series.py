# SPDX-License-Identifier: GPL-2.0-only
"""The series as a maintainer wants it (issue 16, items 9 and 10), read from
the committed tangled/ (which the drift check keeps equal to the book):
the fix for 6.1 first and alone, with its Fixes: tags; <linux/random.h>
left alone; no .c file included into another; no test option pulled in by
KUNIT_ALL_TESTS; the Jitter RNG's conditioning named and self-tested."""

import glob
import os
import re
import shutil
import subprocess
import tempfile
import unittest
from types import SimpleNamespace

from harness.base import config
from harness.stages import series

PATCHES = config.top("tangled/patches")


def patches():
    """[(file name, text)] of the series, in order."""
    with open(os.path.join(PATCHES, "series")) as f:
        names = [ln.strip() for ln in f if ln.strip()]
    out = []
    for n in names:
        with open(os.path.join(PATCHES, n)) as f:
            out.append((n, f.read()))
    return out


def touched(text):
    return re.findall(r"^diff --git a/(\S+) b/", text, flags=re.M)


def added(text):
    return [ln[1:] for ln in text.splitlines() if ln.startswith("+")
            and not ln.startswith("+++")]


class SeriesTest(unittest.TestCase):
    def test_first_patch_is_the_jitter_fix(self):
        name, text = patches()[0]
        self.assertEqual(touched(text), ["crypto/drbg.c"], name)
        self.assertIn("Fixes: 97f2650e5040 (\"crypto: drbg - always seeded with "
                      "SP800-90B compliant noise source\")", text)
        self.assertIn("Fixes: 8f7977284331 (\"crypto: drbg - ignore jitterentropy "
                      "errors if not in FIPS mode\")", text)
        self.assertTrue(any("ret ? entropylen : entropylen * 2" in ln
                            for ln in added(text)), "the fix itself is not in it")
        # Nothing of the rest of the series: it must apply to 6.1 alone.
        self.assertFalse(any("seed_buf" in ln or "random_work" in ln
                             for ln in added(text)))

    def test_random_h_untouched(self):
        for name, text in patches():
            self.assertNotIn("include/linux/random.h", touched(text), name)
        header = [t for _, t in patches() if "include/linux/random_blocking.h"
                  in touched(t)]
        self.assertEqual(len(header), 1)
        self.assertTrue(any(ln == "#include <linux/workqueue.h>" for ln in
                            added(header[0])))

    def test_no_c_file_included(self):
        for name, text in patches():
            bad = [ln for ln in added(text) if re.match(r'\s*#\s*include\s+"[^"]+\.c"', ln)]
            self.assertEqual(bad, [], name)

    def test_no_test_option_defaults_to_kunit_all_tests(self):
        rx = re.compile(r"^\s*(default\s+KUNIT_ALL_TESTS\b|.*\bif\s+!KUNIT_ALL_TESTS\b)")
        for name, text in patches():
            self.assertEqual([ln for ln in added(text) if rx.match(ln)], [], name)

    def test_jitter_conditioning_is_named_and_tested(self):
        with open(config.top("tangled/jitterentropy-kcapi.c")) as f:
            src = f.read()
        self.assertIn('#define JENT_CONDITIONING_HASH\t"sha3-256-generic"', src)
        init = src[src.index("static int __init jent_mod_init("):]
        init = init[:init.index("\n}\n")]
        self.assertLess(init.index("jent_hash_kat()"), init.index("jent_entropy_init("))
        self.assertIn("version 1.1.0 of 2015", src[:src.index("#include")])

    def test_every_patch_file_is_listed(self):
        listed = {n for n, _ in patches()}
        on_disk = {os.path.basename(p) for p in glob.glob(os.path.join(PATCHES, "0*.patch"))
                   if not p.endswith("0000-cover-letter.patch")}
        self.assertEqual(listed - {"0000-cover-letter.patch"}, on_disk)


if __name__ == "__main__":
    unittest.main()


class CommitTest(unittest.TestCase):
    """series.write_commits() writes only the directories a patch changed:
    a file changed, one added in a new directory, one deleted (and with it
    the directory it emptied), an executable keeps its mode, and the
    trees are the ones git's own index makes of the same files."""

    def test_changed_added_deleted_and_mode_kept(self):
        top = tempfile.mkdtemp(prefix="series-commit-")
        self.addCleanup(shutil.rmtree, top)
        repo = os.path.join(top, "repo")
        env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
               "GIT_COMMITTER_EMAIL": "t@t", "GIT_INDEX_FILE": os.path.join(top, "index")}
        subprocess.run(["git", "init", "-q", repo], check=True)
        for name, text in (("a.c", "a\n"), ("gone.c", "g\n"), ("run.sh", "x\n"),
                           ("lib/x/only.c", "o\n"), ("lib/keep.c", "k\n")):
            os.makedirs(os.path.dirname(os.path.join(repo, name)), exist_ok=True)
            with open(os.path.join(repo, name), "w") as f:
                f.write(text)
        os.chmod(os.path.join(repo, "run.sh"), 0o755)
        series.git(repo, "add", ".", env=env)
        tree_id = series.git(repo, "write-tree", env=env).strip()
        parent = series.git(repo, "commit-tree", tree_id, "-m", "pristine", env=env).strip()
        objects = series.Objects(repo, env)
        self.addCleanup(objects.close)
        first = series.Tree(lambda p: objects.blob(f"{parent}:{p}"))
        first.files = {"a.c": ["a2\n"], "new/dir/n.c": ["n\n"], "gone.c": None,
                       "run.sh": ["y\n"], "lib/x/only.c": None}
        second = series.Tree(lambda p: objects.blob(f"{parent}:{p}"))
        second.files = {"new/dir/n.c": ["n2\n"]}
        c = series.write_commits(repo, env, parent,
                                 [(first, SimpleNamespace(arg="one"), None),
                                  (second, SimpleNamespace(arg="two"), None)],
                                 SimpleNamespace(identity="t <t@t>"), objects)
        ls = [ln.split() for ln in series.git(repo, "ls-tree", "-r", c).splitlines()]
        self.assertEqual([(mode, path) for mode, _, _, path in ls],
                         [("100644", "a.c"), ("100644", "lib/keep.c"),
                          ("100644", "new/dir/n.c"), ("100755", "run.sh")])
        self.assertEqual(series.git(repo, "show", f"{c}:a.c"), "a2\n")
        self.assertEqual(series.git(repo, "show", f"{c}:run.sh"), "y\n")
        self.assertEqual(series.git(repo, "show", f"{c}:new/dir/n.c"), "n2\n")
        self.assertIn("Signed-off-by: t <t@t>", series.git(repo, "log", "-1", "--format=%B", c))
        self.assertEqual(series.git(repo, "log", "--format=%s", c).split(),
                         ["two", "one", "pristine"])
        # git's index makes the same tree of the same files.
        series.git(repo, "read-tree", parent, env=env)
        for path in ("gone.c", "lib/x/only.c"):
            series.git(repo, "rm", "-q", "--cached", path, env=env)
        info = "".join(f"{mode} {series.git(repo, 'rev-parse', f'{c}:{p}').strip()}\t{p}\n"
                       for mode, _, _, p in ls)
        series.git(repo, "update-index", "--add", "--index-info", inp=info.encode(), env=env)
        self.assertEqual(series.git(repo, "write-tree", env=env).strip(),
                         series.git(repo, "rev-parse", f"{c}^{{tree}}").strip())
