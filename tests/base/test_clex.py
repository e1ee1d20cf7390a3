# SPDX-License-Identifier: GPL-2.0-only
"""The C lexer of make mutants: tokens without comments and strings'
insides, directives marked, brackets matched, function bodies and their
return kinds, statement starts (labels and for heads are not), and a
clear error on what it cannot read."""

import unittest

from harness.base import clex

SRC = """// SPDX
#define X 3 /* < not code */
static int f(int a, const char *s)
{
\tint b = a < 2 ? 1 : 0;
\tstruct x *p = NULL;

\tfor (b = 0; b < 3; b++)
\t\tg("a < b; {", b);
out:
\th(b);
\tif (a)
\t\treturn b;
\telse
\t\tk();
\treturn -1;
}

static struct y *q(void)
{
\treturn NULL;
}

void v(void) { }
static struct z r(void) { struct z w = { 0 }; return w; }
"""


class LexTest(unittest.TestCase):
    def setUp(self):
        self.toks = clex.tokens(SRC)
        self.pairs = clex.match_brackets(self.toks)

    def test_tokens(self):
        texts = [t.text for t in self.toks]
        self.assertNotIn("SPDX", texts)
        self.assertNotIn("not", texts)
        self.assertIn('"a < b; {"', texts)
        define = [t for t in self.toks if t.pp == "define"]
        self.assertEqual([t.text for t in define], ["#", "define", "X", "3"])
        self.assertEqual(next(t for t in self.toks if t.text == "f").line, 3)
        self.assertIn("<", texts)
        self.assertIn("++", texts)

    def test_functions(self):
        fns = clex.functions(self.toks, self.pairs)
        self.assertEqual([(f.name, f.ret) for f in fns],
                         [("f", "int"), ("q", "pointer"), ("v", "void"), ("r", None)])
        self.assertEqual(self.toks[fns[0].close].text, "}")
        self.assertEqual(self.toks[fns[0].close].line, 17)

    def test_statement_starts(self):
        fn = clex.functions(self.toks, self.pairs)[0]
        starts = clex.statement_starts(self.toks, self.pairs, fn)
        first = {(self.toks[k].line, self.toks[k].text) for k in starts}
        self.assertEqual(first, {(5, "int"), (6, "struct"), (8, "for"), (9, "g"),
                                 (11, "h"), (12, "if"), (13, "return"), (15, "k"),
                                 (16, "return")})
        decls = [self.toks[k].line for k in starts if clex.is_declaration(self.toks, k)]
        self.assertEqual(decls, sorted(decls))
        self.assertEqual(sorted(decls), [5, 6])

    def test_errors(self):
        for bad in ("int a = 1; /* never closed", 'char *s = "open;\n', "int a = @;"):
            with self.assertRaises(clex.LexError):
                clex.tokens(bad)
        for bad in ("f(a]", "{ f(a) ", "}"):
            with self.assertRaises(clex.LexError):
                clex.match_brackets(clex.tokens(bad))


if __name__ == "__main__":
    unittest.main()
