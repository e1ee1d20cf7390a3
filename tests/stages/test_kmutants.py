# SPDX-License-Identifier: GPL-2.0-only
"""The generator of make mutants: only added lines are mutated, each
operator where it applies and nowhere else, the extent of a comparison
is the comparison, ids do not move when lines do, and a file it cannot
read stops it with the file named."""

import unittest

from harness.stages import kmutants

PRISTINE = """#include <linux/x.h>

static int old(int a)
{
\treturn a < 1;
}
"""

FINAL = """#include <linux/x.h>
#define LIMIT 16

static int old(int a)
{
\treturn a < 1;
}

static int added(u8 *buf, int len, int n)
{
\tint ret;

\tif (len + 1 <= n * 2 && buf)
\t\tret = f(buf, len);
\telse
\t\tret = f(buf, n);
\tmemzero_explicit(buf, len);
\tpr_devel("n %d\\n", n);
\tg(len, len);
out:
\tkfree_sensitive(buf);
\treturn ret == 0 ? LIMIT : -1;
}
"""


def gen(final=FINAL, pristine=PRISTINE):
    return kmutants.number(kmutants.generate("drbg", "crypto/x.c", pristine, final))


def by(muts, op):
    return [m for m in muts if m["op"] == op]


class AddedLinesTest(unittest.TestCase):
    def test_added(self):
        self.assertEqual(kmutants.added_lines(PRISTINE, FINAL),
                         {2} | set(range(8, 24)))   # as git diff aligns them

    def test_nothing_added(self):
        self.assertEqual(kmutants.added_lines(FINAL, FINAL), set())


class OperatorTest(unittest.TestCase):
    def setUp(self):
        self.muts = gen()

    def test_only_added_lines(self):
        self.assertTrue(self.muts)
        self.assertFalse([m for m in self.muts if m["func"] == "old"])
        self.assertEqual(sorted({m["line"] for m in self.muts}),
                         [2, 9, 13, 14, 16, 17, 19, 21, 22])

    def test_cmp_extent(self):
        got = {m["what"] for m in by(self.muts, "cmp")}
        self.assertEqual(got, {"`<=` -> `>` in `len + 1 <= n * 2`",
                               "`==` -> `!=` in `ret == 0`"})

    def test_const(self):
        got = sorted(m["what"] for m in by(self.muts, "const"))
        # 16 in the #define's body; 1 twice (len + 1, and -1), 2, 0
        self.assertEqual(got, sorted(["`0` -> `0+1`", "`0` -> `0-1`", "`16` -> `16+1`",
                                      "`16` -> `16-1`", "`1` -> `1+1`", "`1` -> `1-1`",
                                      "`1` -> `1+1`", "`1` -> `1-1`", "`2` -> `2+1`",
                                      "`2` -> `2-1`"]))

    def test_calls(self):
        self.assertEqual([m["what"] for m in by(self.muts, "call")], ["delete `g(len, len);`"])
        self.assertEqual([m["what"] for m in by(self.muts, "zero")],
                         ["delete `memzero_explicit(buf, len);`",
                          "delete `kfree_sensitive(buf);`"])

    def test_swap(self):
        got = [m["what"] for m in by(self.muts, "swap")]
        self.assertEqual(got, ["swap arguments 1 and 2 of `f()`: `buf`, `len`",
                               "swap arguments 1 and 2 of `f()`: `buf`, `n`",
                               "swap arguments 1 and 2 of `memzero_explicit()`: "
                               "`buf`, `len`"])

    def test_return_early_after_declarations(self):
        (ret,) = by(self.muts, "ret")
        self.assertEqual(ret["func"], "added")
        (s, e, before, _), = ret["wraps"]
        self.assertEqual(s, e)
        self.assertTrue(FINAL[s:].startswith("if (len + 1"))
        self.assertEqual(before, "{ if (__mut(N)) return 0; } ")

    def test_no_return_early_mutant_of_a_stub(self):
        # make mutants on drbg.c: the production stubs (`return NULL;`,
        # `return false;`, an empty void body) each got a "returns at once"
        # mutant identical to the series, which survived every boot.
        stubs = FINAL + ("\nstatic inline bool s1(int a)\n{\n\treturn false;\n}\n"
                         "\nstatic void *s2(int a)\n{\n\treturn NULL;\n}\n"
                         "\nstatic void s3(int a)\n{\n}\n"
                         "\nstatic int s4(int a)\n{\n\treturn 1;\n}\n")
        got = {m["func"] for m in by(gen(stubs), "ret")}
        self.assertEqual(got, {"added", "s4"})

    def test_ids_stable_and_unique(self):
        ids = [m["id"] for m in self.muts]
        self.assertEqual(len(ids), len(set(ids)))
        moved = gen(FINAL.replace("#define LIMIT 16\n", "#define LIMIT 16\n\n\n"))
        self.assertEqual(sorted(ids), sorted(m["id"] for m in moved))
        self.assertEqual([m["n"] for m in self.muts], list(range(1, len(ids) + 1)))
        changed = gen(FINAL.replace("g(len, len)", "g(len, len + 0)"))
        self.assertNotEqual(sorted(ids), sorted(m["id"] for m in changed))

    def test_unreadable_file(self):
        with self.assertRaises(SystemExit) as e:
            gen(FINAL + "int z = 1; /* unterminated\n")
        self.assertIn("crypto/x.c", str(e.exception))


if __name__ == "__main__":
    unittest.main()
