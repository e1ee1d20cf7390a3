# SPDX-License-Identifier: GPL-2.0-only
"""The tangle lint and the edit-script engine catch what they claim to.

Each test builds a small book in a temporary directory and breaks it on
purpose: an undefined chunk, a mistyped root, a literal shift that noweb
would read as a chunk use, trailing blanks; an anchor that matches no
line or two lines.  The tools must fail with a message that names the
cause, and leave no half-written output.
"""

import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tools"))
import nw  # noqa: E402
import nwconf  # noqa: E402
import series  # noqa: E402

CONF = """\
source book.nw
identity Test Identity <test@example.org>
date 2026-12-01T00:00:00+00:00
base linux-source-6.1 6.1.192-3
file out.c = out.c
patch patch one
cover cover letter
"""

GOOD = """\
Prose.
<<out.c>>=
int f(void)
{
	<<body>>
}
@
<<body>>=
return 1 @<< 2;
@
<<patch one>>=
%% subject demo: one
%% write demo.c
<<out.c>>
@
<<cover letter>>=
Subject line
Body.
@
"""


class Book:
    def __init__(self, text, conf=CONF):
        self.dir = tempfile.mkdtemp(prefix="nwtest-")
        with open(os.path.join(self.dir, "tangle.conf"), "w") as f:
            f.write(conf)
        with open(os.path.join(self.dir, "book.nw"), "w") as f:
            f.write(text)

    def lint(self):
        cwd = os.getcwd()
        os.chdir(self.dir)
        try:
            return nw.lint(nwconf.Conf("tangle.conf"))
        finally:
            os.chdir(cwd)

    def tangle(self):
        return subprocess.run([sys.executable, os.path.join(TOP, "tools/nw.py"),
                               "tangle", "out", "edits"], cwd=self.dir,
                              capture_output=True, text=True)


class LintTest(unittest.TestCase):
    def test_good_book_is_clean(self):
        self.assertEqual(Book(GOOD).lint(), [])

    def test_good_book_tangles_with_literal_shift(self):
        b = Book(GOOD)
        r = b.tangle()
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(b.dir, "out", "out.c")) as f:
            self.assertEqual(f.read(), "int f(void)\n{\n\treturn 1 << 2;\n}\n")

    def test_undefined_chunk(self):
        p = Book(GOOD.replace("\t<<body>>", "\t<<bodie>>")).lint()
        self.assertTrue(any("undefined chunk <<bodie>>" in x for x in p), p)

    def test_undefined_chunk_fails_tangle_without_output(self):
        b = Book(GOOD.replace("\t<<body>>", "\t<<bodie>>"))
        r = b.tangle()
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("undefined chunk <<bodie>>", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(b.dir, "out", "out.c")))

    def test_root_typo(self):
        text = GOOD.replace("<<body>>=", "<<body >>=")
        p = Book(text).lint()
        self.assertTrue(any("root chunk <<body >> is not named" in x for x in p), p)
        self.assertTrue(any("undefined chunk <<body>>" in x for x in p), p)

    def test_shift_read_as_chunk_use(self):
        text = GOOD.replace("return 1 @<< 2;", "x = (a << 2) | (b >> 3);")
        p = Book(text).lint()
        self.assertTrue(any("undefined chunk << 2) | (b >>" in x for x in p), p)

    def test_unescaped_shift_without_close(self):
        text = GOOD.replace("return 1 @<< 2;", "return 1 << 2;")
        p = Book(text).lint()
        self.assertTrue(any("write '@<<' for a literal shift" in x for x in p), p)

    def test_trailing_blanks(self):
        text = GOOD.replace("int f(void)\n", "int f(void) \n")
        p = Book(text).lint()
        self.assertTrue(any("book.nw:3: trailing blanks" in x for x in p), p)

    def test_conf_names_missing_chunk(self):
        p = Book(GOOD, CONF.replace("patch patch one", "patch patch two")).lint()
        self.assertTrue(any("names chunk <<patch two>>, which no source defines" in x
                            for x in p), p)


class FakeTree(series.Tree):
    def __init__(self, files):
        self.files = {k: v.splitlines(True) for k, v in files.items()}

    def get(self, path):
        return self.files.get(path)


def ops(text):
    fd, path = tempfile.mkstemp(suffix=".edits")
    with os.fdopen(fd, "w") as f:
        f.write(textwrap.dedent(text))
    return series.parse(path)


class EditScriptTest(unittest.TestCase):
    FILE = "a\nanchor one\nb\nend\nc\n"

    def apply(self, script, files=None):
        t = FakeTree(files or {"f.c": self.FILE})
        subject, message = series.apply_edits(t, ops(script), "patch 1")
        return t, subject, message

    def test_after_before_replace(self):
        t, s, m = self.apply("""\
            %% subject x: y
            %% message
            Body.

            %% edit f.c
            %% after ^anchor one$
            AFTER
            %% before ^a$
            BEFORE
            %% replace ^b$ .. ^end$
            NEW
            """)
        self.assertEqual(s, "x: y")
        self.assertEqual(m, "Body.\n")
        self.assertEqual("".join(t.files["f.c"]),
                         "BEFORE\na\nanchor one\nAFTER\nNEW\nc\n")

    def test_anchor_matching_nothing(self):
        with self.assertRaises(series.EditError) as e:
            self.apply("%% subject s\n%% edit f.c\n%% after ^nowhere$\nX\n")
        self.assertIn("anchor /^nowhere$/ matched 0 lines", str(e.exception))
        self.assertIn("patch 1", str(e.exception))

    def test_anchor_matching_twice(self):
        with self.assertRaises(series.EditError) as e:
            self.apply("%% subject s\n%% edit f.c\n%% before ^[ab]$\nX\n")
        self.assertIn("matched 2 lines", str(e.exception))

    def test_edit_of_missing_file(self):
        with self.assertRaises(series.EditError) as e:
            self.apply("%% subject s\n%% edit nothere.c\n")
        self.assertIn("nothere.c does not exist", str(e.exception))

    def test_write_and_delete(self):
        t, _, _ = self.apply("%% subject s\n%% write new.c\nhello\n%% delete f.c\n")
        self.assertEqual(t.files["new.c"], ["hello\n"])
        self.assertIsNone(t.files["f.c"])

    def test_text_before_first_directive(self):
        with self.assertRaises(series.EditError):
            ops("stray\n%% subject s\n")

    def test_missing_subject(self):
        with self.assertRaises(series.EditError) as e:
            self.apply("%% edit f.c\n")
        self.assertIn("no '%% subject' line", str(e.exception))


if __name__ == "__main__":
    unittest.main()
