# SPDX-License-Identifier: GPL-2.0-only
"""The static checkers' comparison against pristine 6.1 (issue 37, item 3).

Fed a pristine and a patched warning list, in the words the real tools
print (the lines below were captured from make checkers runs on this
series, some with defects put in on purpose; see the chapter "The
pipeline"): a warning the series adds fails its checker, with file, line
and message; one that the series only moved (its line shifted by lines
added above it) does not; one 6.1 already has does not count; a checker
that could not run fails with the package to install.
"""

import unittest

from harness.base import config, records
from harness.judges import static_warnings as sw

ROOT = "/work/kcache-37/linux-6.1.192-3/checkers-patched"
BUILD = ROOT + ".build"
# Captured from make checkers with two defects put into the chapter of the
# blocking API on purpose (2026-12-06): blocking_random_may_go() without
# its static, and @rw_len of struct random_work documented as @rw_length.
# make C=2 W=1 printed gcc's warning with its source lines, then sparse's:
W1 = (f"{ROOT}/drivers/char/random.c:158:6: warning: no previous prototype for "
      "\u2018blocking_random_may_go\u2019 [-Wmissing-prototypes]\n"
      "  158 | bool blocking_random_may_go(const bool *cancel)\n"
      "      |      ^~~~~~~~~~~~~~~~~~~~~~\n")
SPARSE = (f"  CHECK   {ROOT}/drivers/char/random.c\n"
          f"{ROOT}/drivers/char/random.c:158:6: warning: symbol 'blocking_random_may_go' "
          "was not declared. Should it be static?\n")
MAKE_REAL = W1 + SPARSE
# scripts/kernel-doc -none include/linux/random_blocking.h
KDOC = ("include/linux/random_blocking.h:34: warning: Function parameter or member "
        "'rw_len' not described in 'random_work'\n")
# coccicheck's make compiled the objects again: gcc's line is in its output
COCCI_GCC = (f"{ROOT}/drivers/char/random.c:158:6: warning: no previous prototype for "
             "\u2018blocking_random_may_go\u2019 [-Wmissing-prototypes]\n")
# 6.1's own coccicheck warning, where the series moved it
COCCI = f"{ROOT}/crypto/jitterentropy.c:473:17-18: WARNING opportunity for min()\n"
# make checkers on the series as it was (2026-12-06): two new coccicheck
# warnings in the Jitter RNG core, which the allowlist argues, and one in
# drbg_cavp.c, since fixed
COCCI_REAL = (
    f"{ROOT}/crypto/drbg_cavp.c:355:2-18: WARNING: NULL check before some freeing "
    "functions is not needed.\n"
    "warning: line 134: should no_llseek be a metavariable?\n"
    f"{ROOT}/crypto/jitterentropy.c:323:14-15: WARNING opportunity for max()\n"
    f"{ROOT}/crypto/jitterentropy.c:340:12-13: WARNING opportunity for max()\n")


def warnings(checker, text):
    if checker in ("sparse", "w1"):
        return sw.classify_make(text, (ROOT, BUILD))[checker]
    if checker == "coccicheck":
        return sw.parse_cocci(text, (ROOT, BUILD))
    return sw.parse(checker, text, (ROOT, BUILD))


class ParseTest(unittest.TestCase):
    def test_make_output_split_by_checker(self):
        """sparse's line has no [-W] option; gcc's has; context lines and
        kernel-doc's lines (no column) are neither"""
        got = sw.classify_make(MAKE_REAL + KDOC, (ROOT, BUILD))
        self.assertEqual([str(w) for w in got["sparse"]],
                         ["drivers/char/random.c:158: warning: symbol "
                          "'blocking_random_may_go' was not declared. Should it be static?"])
        self.assertEqual([w.file for w in got["w1"]], ["drivers/char/random.c"])
        self.assertIn("[-Wmissing-prototypes]", got["w1"][0].message)

    def test_kernel_doc_and_coccicheck(self):
        kd = warnings("kernel-doc", KDOC)
        self.assertEqual((kd[0].file, kd[0].line), ("include/linux/random_blocking.h", 34))
        cc = warnings("coccicheck", COCCI)
        self.assertEqual((cc[0].file, cc[0].line, cc[0].severity),
                         ("crypto/jitterentropy.c", 473, "warning"))
        self.assertEqual(cc[0].message, "WARNING opportunity for min()")

    def test_gcc_in_coccicheck_output_is_not_coccicheck(self):
        self.assertEqual(warnings("coccicheck", COCCI_GCC + COCCI),
                         warnings("coccicheck", COCCI))

    def test_a_header_warning_counts_once(self):
        text = (f"{ROOT}/include/linux/random_blocking.h:40:5: warning: x\n") * 3
        self.assertEqual(len(warnings("sparse", text)), 1)

    def test_progress_and_notes_are_not_warnings(self):
        text = (f"  CHECK   {ROOT}/crypto/drbg.c\n"
                f"{ROOT}/crypto/drbg.c:12:3: note: declared here\n"
                "make[1]: Leaving directory '/x'\n")
        self.assertEqual(sw.classify_make(text, (ROOT,)), {"sparse": [], "w1": []})


class CompareTest(unittest.TestCase):
    def test_new_warning_is_new(self):
        self.assertEqual(len(sw.compare([], warnings("sparse", SPARSE))), 1)

    def test_moved_warning_is_not_new(self):
        """6.1's warning at line 100 is at line 130 after the series added
        30 lines above it: the line map takes it back to 100"""
        old = [sw.Warning("sparse", "crypto/drbg.c", 100, "warning", "context imbalance "
                          "in 'f' - unexpected unlock")]
        new = [sw.Warning("sparse", "crypto/drbg.c", 130, "warning", "context imbalance "
                          "in 'f' - unexpected unlock")]
        lines = [f"l{i}" for i in range(200)]
        moved = lines[:50] + [f"added{i}" for i in range(30)] + lines[50:]
        m = sw.line_map(lines, moved)
        self.assertEqual(m[130], 100)
        self.assertNotIn(60, m)
        self.assertEqual(sw.compare(old, new, {"crypto/drbg.c": m}), [])
        # without the map the key alone still matches it
        self.assertEqual(sw.compare(old, new), [])

    def test_a_second_copy_of_an_old_warning_is_new(self):
        w = sw.Warning("w1", "crypto/drbg.c", 10, "warning", "unused variable 'x' "
                       "[-Wunused-variable]")
        again = sw.Warning("w1", "crypto/drbg.c", 80, "warning", w.message)
        self.assertEqual(sw.compare([w], [w, again], {"crypto/drbg.c": {10: 10}}), [again])

    def test_line_numbers_in_the_message_do_not_count(self):
        a = sw.Warning("coccicheck", "f.c", 5, "warning", "ERROR: missing unlock on "
                       "line 20")
        b = sw.Warning("coccicheck", "f.c", 9, "warning", "ERROR: missing unlock on "
                       "line 24")
        self.assertEqual(sw.compare([a], [b]), [])

    def test_same_message_in_another_file_is_new(self):
        a = sw.Warning("sparse", "crypto/drbg.c", 5, "warning", "m")
        b = sw.Warning("sparse", "crypto/drbg_kunit.c", 5, "warning", "m")
        self.assertEqual(sw.compare([a], [b]), [b])


class ChecksTest(unittest.TestCase):
    def by_id(self, out):
        return {c.id: c for c in out}

    def test_new_warning_fails_with_file_line_message(self):
        new = warnings("sparse", SPARSE)
        out = self.by_id(sw.checks({"sparse": ([], new, new)}))
        c = out["host.checkers.sparse"]
        self.assertEqual(c.status, "fail")
        self.assertEqual(c.counts, {"pristine": 0, "patched": 1, "new": 1, "allowed": 0})
        one = out["host.checkers.sparse.drivers-char-random-c.158"]
        self.assertEqual(one.status, "fail")
        self.assertIn("drivers/char/random.c:158", one.reason)
        self.assertIn("Should it be static?", one.reason)

    def test_moved_or_old_warnings_pass_with_counts(self):
        old = warnings("coccicheck", COCCI)
        out = sw.checks({"coccicheck": (old, old, sw.compare(old, old))})
        self.assertEqual([(c.id, c.status, c.counts) for c in out],
                         [("host.checkers.coccicheck", "pass",
                           {"pristine": 1, "patched": 1, "new": 0, "allowed": 0})])

    def test_the_allowlist_allows_what_it_argues_only(self):
        """the two max() suggestions in the Jitter RNG core are allowed with
        their reason; the NULL check in drbg_cavp.c still fails"""
        allow = records.allowlist(config.top("conformance/checkers-allowlist.txt"))
        new = warnings("coccicheck", COCCI_REAL)
        self.assertEqual(len(new), 3)       # spatch's own warning is not one
        out = self.by_id(sw.checks({"coccicheck": ([], new, new)}, allow=allow))
        c = out["host.checkers.coccicheck"]
        self.assertEqual((c.status, c.counts["new"], c.counts["allowed"]), ("fail", 1, 2))
        self.assertIn("drbg_cavp.c:355", c.reason)
        self.assertIn("min() and max() do not exist", c.details["allowed"][0]["reason"])
        self.assertEqual([k for k in out if k.count(".") > 2],
                         ["host.checkers.coccicheck.crypto-drbg-cavp-c.355"])
        # the same message in another file is not allowed
        other = [sw.Warning("coccicheck", "crypto/drbg.c", 9, "warning",
                            "WARNING opportunity for max()")]
        self.assertEqual(sw.allowed(other, allow), (other, []))

    def test_a_checker_that_did_not_run_fails(self):
        out = self.by_id(sw.checks({}, {"sparse": "sparse is not installed: run 'make "
                                        "deps' (Debian package sparse)"}))
        c = out["host.checkers.sparse"]
        self.assertEqual(c.status, "fail")
        self.assertIn("Debian package sparse", c.reason)
        self.assertNotIn("\n", c.reason)


if __name__ == "__main__":
    unittest.main()
