# SPDX-License-Identifier: GPL-2.0-only
"""Mutant schemata, compiled and run on the host: one build holds every
mutant of a file, the selector 0 is the program itself, each selector N
behaves as mutant N alone (the same as its build with N fixed at compile
time), a mutant the compiler rejects is found from the compiler's
message and dropped, and wraps that share a span nest."""

import os
import subprocess
import tempfile
import unittest

from harness.stages import kmutants, kmutants_schema as schema

HEAD = """#include <stdio.h>
#include <stdlib.h>
#include <string.h>
unsigned int mutant_selector;
static int calls;
static void g(int a, int b) { calls = a * 10 + b; }
static void memzero_explicit(void *p, int n) { memset(p, 0, n); }
"""
ADDED = """static int added(unsigned char *buf, int len, int n)
{
\tint ret;

\tif (len + 1 <= n * 2)
\t\tret = len - n - 1;
\telse
\t\tret = n;
\tmemzero_explicit(buf, len);
\tg(len, n);
\treturn ret == 0 ? 16 : -1;
}
"""
TAIL = """int main(int argc, char **argv)
{
\tunsigned char b[4] = { 1, 2, 3, 4 };
\tint r;

\tmutant_selector = argc > 1 ? atoi(argv[1]) : 0;
\tr = added(b, 3, 2);
\tprintf("%d %d %d%d%d%d\\n", r, calls, b[0], b[1], b[2], b[3]);
\treturn 0;
}
"""
FINAL = HEAD + ADDED + TAIL
# What each mutant prints (the series: 16 32 0004).
EXPECT = {
    "`<=` -> `>` in `len + 1 <= n * 2`": "-1 32 0004",
    "`==` -> `!=` in `ret == 0`": "-1 32 0004",
    "`16` -> `16+1`": "17 32 0004", "`16` -> `16-1`": "15 32 0004",
    "delete `memzero_explicit(buf, len);`": "16 32 1234",
    "delete `g(len, n);`": "16 0 0004",
    "swap arguments 1 and 2 of `g()`: `len`, `n`": "16 23 0004",
    "`added()` returns at once (`return 0;`)": "0 0 1234",
}


def gcc(d, text, name):
    src = os.path.join(d, "t.c")
    with open(src, "w") as f:
        f.write(text)
    r = subprocess.run(["gcc", "-Wall", "-Werror", "-O1", "-o", os.path.join(d, name),
                        "t.c"], cwd=d, capture_output=True, text=True)
    return r.returncode, r.stderr


def run(d, name, sel=None):
    argv = [os.path.join(d, name)] + ([str(sel)] if sel is not None else [])
    return subprocess.run(argv, capture_output=True, text=True, check=True).stdout.strip()


class SchemaTest(unittest.TestCase):
    def setUp(self):
        self.muts = kmutants.number(kmutants.generate("drbg", "t.c", HEAD + TAIL, FINAL))
        self.dir = tempfile.mkdtemp(prefix="schema-test-")

    def tearDown(self):
        subprocess.run(["rm", "-rf", self.dir])

    def compile_dropping(self):
        """The schema of every mutant, less those the compiler rejects."""
        muts, dropped = list(self.muts), []
        for _ in range(4):
            text, where = schema.schema("drbg", "t.c", FINAL, muts)
            rc, log = gcc(self.dir, text, "all")
            if rc == 0:
                return muts, dropped
            errs = [(ln, col) for ln, col, _, _ in schema.compile_errors(log, "t.c")]
            bad = schema.culprits(text, where, errs)
            self.assertTrue(bad, log)
            dropped += [m for m in muts if m["n"] in bad]
            muts = [m for m in muts if m["n"] not in bad]
        self.fail("the schema never compiled")

    def test_rejected_mutant_is_dropped(self):
        muts, dropped = self.compile_dropping()
        # memzero_explicit(len, buf): a pointer and an int in one ?:
        self.assertEqual([m["what"] for m in dropped],
                         ["swap arguments 1 and 2 of `memzero_explicit()`: `buf`, `len`"])

    def test_each_selector_is_its_mutant(self):
        muts, _ = self.compile_dropping()
        self.assertEqual(run(self.dir, "all", 0), "16 32 0004")
        seen = {m["n"]: (m["what"], run(self.dir, "all", m["n"])) for m in muts}
        for what, out in EXPECT.items():
            self.assertEqual([o for w, o in seen.values() if w == what], [out], what)
        # Every mutant ran.  Four print what the program prints, being
        # equivalent for this input: len + 0 <= 4 and 3 <= n * 3 hold as
        # 3 + 1 <= 4 does, and -1 +- 1 is never returned when ret == 0.
        self.assertEqual(len(seen), len(muts))
        same = sorted(w for w, o in seen.values() if o == "16 32 0004")
        self.assertEqual(same, ["`1` -> `1+1`", "`1` -> `1-1`", "`1` -> `1-1`",
                                "`2` -> `2+1`"])

    def test_compile_time_selector_matches(self):
        muts, _ = self.compile_dropping()
        for m in muts:
            if m["what"] in EXPECT:
                text, _ = schema.schema("drbg", "t.c", FINAL, [m], const=m["n"])
                self.assertEqual(gcc(self.dir, text, "one")[0], 0)
                self.assertEqual(run(self.dir, "one"), EXPECT[m["what"]], m["what"])

    def test_nested_wraps(self):
        text = "int f(int a, int b)\n{\n\treturn h(a < b, 7);\n}\n"
        muts = kmutants.number(kmutants.generate("drbg", "t.c", "", text))
        out, _ = schema.schema("drbg", "t.c", text, muts)
        body = out.split("\n")[-3]
        self.assertEqual(body.count("("), body.count(")"))
        self.assertIn("((a < b) ^ __mut(", body)

    def test_prelude(self):
        self.assertIn("core_param(mutant, mutant_selector, uint, 0444);",
                      " ".join(schema.prelude("drbg", "crypto/drbg.c")))
        self.assertEqual(schema.prelude("jitter", "crypto/jitterentropy.c", const=5),
                         ["extern unsigned int jent_mutant_selector;",
                          "#define __mut(n) ((n) == 5)"])


# The one fact of include/linux/moduleparam.h the prelude depends on:
# core_param() is defined for built-in code only (#ifndef MODULE).
MODULEPARAM = """#ifndef MODULE
#define core_param(name, var, type, perm) \\
\tunsigned int *__core_param_##name = &(var)
#endif
"""


class PreludeCompilesTest(unittest.TestCase):
    """The prelude of each part's host file compiles built in and as a
    module (-DMODULE, the modules kernel), with N a boot parameter or
    fixed; a module build of one mutant failed before the core_param went
    under #ifndef MODULE."""

    def test_built_in_and_module(self):
        d = tempfile.mkdtemp(prefix="prelude-test-")
        self.addCleanup(subprocess.run, ["rm", "-rf", d])
        os.makedirs(os.path.join(d, "linux"))
        with open(os.path.join(d, "linux/moduleparam.h"), "w") as f:
            f.write(MODULEPARAM)
        for part, (host, var) in schema.HOST.items():
            for module in (False, True):
                for const in (None, 3):
                    if module and const is None:
                        continue  # a module never holds a schema
                    pre = schema.prelude(part, host, const)
                    boot = f"\t{var} = 3;\n" if const is None else ""
                    body = "\n".join(pre + ["int main(void)", "{", boot
                                             + "\treturn !(__mut(3) && !__mut(4));", "}", ""])
                    with open(os.path.join(d, "t.c"), "w") as f:
                        f.write(body)
                    cmd = ["gcc", "-Wall", "-Werror", "-I", d, "-o",
                           os.path.join(d, "t"), "t.c"] + (["-DMODULE"] if module else [])
                    r = subprocess.run(cmd, cwd=d, capture_output=True, text=True)
                    what = f"{part} {'module' if module else 'built-in'} N={const}"
                    self.assertEqual(r.returncode, 0, f"{what}: {r.stderr}")
                    self.assertEqual(subprocess.run([os.path.join(d, "t")]).returncode,
                                     0, what)


if __name__ == "__main__":
    unittest.main()
