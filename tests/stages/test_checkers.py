# SPDX-License-Identifier: GPL-2.0-only
"""The verb checkers: what it checks and how it fails (issue 37, item 3).

A checker whose program is missing is one line naming the Debian package,
and a failed check, never a pass; a make or coccicheck that failed in
either tree fails its checkers (their output is partial); the files
checked are every file of the series' diffs.
"""

import unittest
from unittest import mock

from harness.base import config, kcache
from harness.judges import static_warnings as sw
from harness.stages import checkers


def tree_result(which, make_rc=0, cocci_rc=0, make="", cocci=""):
    return {"inputs": {"tree": which}, "make_rc": make_rc, "make": make,
            "cocci_rc": cocci_rc, "cocci": cocci}


class MissingToolTest(unittest.TestCase):
    def test_each_missing_program_names_its_package(self):
        gone = {"sparse", "ocamlopt"}
        with mock.patch("shutil.which", lambda p: None if p in gone else "/usr/bin/" + p):
            m = checkers.missing_tools()
        self.assertEqual(sorted(m), ["coccicheck", "sparse"])
        self.assertEqual(m["sparse"], "sparse is not installed: run 'make deps' "
                         "(Debian package sparse)")
        self.assertIn("(Debian package ocaml)", m["coccicheck"])
        for reason in m.values():
            self.assertNotIn("\n", reason)
        out = {c.id: c for c in sw.checks({}, m)}
        self.assertEqual({out[k].status for k in ("host.checkers.sparse",
                                                  "host.checkers.coccicheck")}, {"fail"})

    def test_nothing_missing_here(self):
        """make deps installs them (tools/deps.sh): on this machine all run"""
        with mock.patch("shutil.which", lambda p: "/usr/bin/" + p):
            self.assertEqual(checkers.missing_tools(), {})


class BrokenRunTest(unittest.TestCase):
    def test_failed_make_fails_sparse_and_w1(self):
        out = checkers.broken(tree_result("pristine"), tree_result(
            "patched", make_rc=2, make="make[2]: *** [scripts/Makefile.build:250: "
            "crypto/drbg.o] Error 1\n"))
        self.assertEqual(sorted(out), ["sparse", "w1"])
        self.assertIn("patched tree (exit 2)", out["sparse"])

    def test_failed_coccicheck_fails_it(self):
        out = checkers.broken(tree_result("pristine", cocci_rc=2, cocci=(
            "No OCaml compiler found! Install either ocamlopt or ocamlopt.opt\n"
            "coccicheck failed\n")), tree_result("patched"))
        self.assertEqual(list(out), ["coccicheck"])
        self.assertIn("No OCaml compiler found", out["coccicheck"])

    def test_clean_runs_break_nothing(self):
        self.assertEqual(checkers.broken(tree_result("pristine"), tree_result("patched")),
                         {})


class TouchedTest(unittest.TestCase):
    def test_every_file_of_the_series(self):
        paths = checkers.touched(kcache.series_patches(config.top("tangled/patches")))
        for p in ("crypto/drbg.c", "drivers/char/random.c", "crypto/jitterentropy.c",
                  "include/linux/random_blocking.h", "crypto/drbg_kunit.c"):
            self.assertIn(p, paths)
        self.assertEqual(paths, sorted(set(paths)))

    def test_new_exports(self):
        text = ("EXPORT_SYMBOL(get_random_bytes);\n"
                "EXPORT_SYMBOL_GPL(get_blocking_random_bytes_cb);\n"
                "/* EXPORT_SYMBOL(not_this) */\n")
        self.assertEqual(checkers.exported(text),
                         {"get_random_bytes", "get_blocking_random_bytes_cb"})


if __name__ == "__main__":
    unittest.main()
