# SPDX-License-Identifier: GPL-2.0-only
"""The tangle lint and the edit-script engine catch what they claim to.

Each test builds a small book in a temporary directory and breaks it on
purpose: an undefined chunk, a mistyped root, a literal shift that noweb
would read as a chunk use, trailing blanks; an anchor that matches no
line or two lines.  The tools must fail with a message that names the
cause, and leave no half-written output.  (The tangle stage reads the
book from config.TOP: the tests point it at the small book's directory.
Its series step, which commits into the kernel cache, is replaced by a
recorder: the series from edit scripts is tested on a fake tree below.)
"""

import contextlib
import io
import os
import shutil
import tempfile
import textwrap
import unittest
import weakref
from unittest import mock

from harness.base import conf as confmod
from harness.base import config
from harness.stages import series, tangle

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
        # removed with the object (or at exit): a test keeps no directory
        weakref.finalize(self, shutil.rmtree, self.dir, ignore_errors=True)
        with open(os.path.join(self.dir, "tangle.conf"), "w") as f:
            f.write(conf)
        with open(os.path.join(self.dir, "book.nw"), "w") as f:
            f.write(text)

    @contextlib.contextmanager
    def here(self):
        """The tangle stage's view: TOP and the working directory are the book's."""
        cwd = os.getcwd()
        os.chdir(self.dir)
        try:
            with mock.patch.object(config, "TOP", self.dir):
                yield confmod.Conf("tangle.conf")
        finally:
            os.chdir(cwd)

    def lint(self):
        """(problems, warnings)"""
        with self.here() as conf:
            return tangle.lint(conf)

    def tangle(self):
        """What the tangle verb does after its stamp check: lint, then the
        outputs into out/ and the edit scripts into edits/, then the series
        (recorded, not run).  (exit status, stderr, series.build's calls)"""
        err = io.StringIO()
        with self.here() as conf, mock.patch.object(series, "build") as build, \
                contextlib.redirect_stderr(err):
            try:
                tangle.make(conf, os.path.join(self.dir, "out"),
                            os.path.join(self.dir, "edits"),
                            os.path.join(self.dir, "lines.json"))
                rc = 0
            except SystemExit as e:
                rc = 1
                print(e, file=err)
        return rc, err.getvalue(), build.call_args_list


class LintTest(unittest.TestCase):
    def test_good_book_is_clean(self):
        self.assertEqual(Book(GOOD).lint(), ([], []))

    def test_good_book_tangles_with_literal_shift(self):
        b = Book(GOOD)
        rc, err, calls = b.tangle()
        self.assertEqual(rc, 0, err)
        with open(os.path.join(b.dir, "out", "out.c")) as f:
            self.assertEqual(f.read(), "int f(void)\n{\n\treturn 1 << 2;\n}\n")
        with open(os.path.join(b.dir, "edits", "0001.edits")) as f:
            self.assertEqual(f.read(), "%% subject demo: one\n%% write demo.c\n"
                             "int f(void)\n{\n\treturn 1 << 2;\n}\n")
        with open(os.path.join(b.dir, "edits", "cover.txt")) as f:
            self.assertEqual(f.read(), "Subject line\nBody.\n")
        self.assertEqual(calls, [mock.call(os.path.join(b.dir, "edits"),
                                           os.path.join(b.dir, "out", "patches"),
                                           os.path.join(b.dir, "lines.json"))])

    def test_undefined_chunk(self):
        p, _ = Book(GOOD.replace("\t<<body>>", "\t<<bodie>>")).lint()
        self.assertTrue(any("undefined chunk <<bodie>>" in x for x in p), p)

    def test_undefined_chunk_fails_tangle_without_output(self):
        b = Book(GOOD.replace("\t<<body>>", "\t<<bodie>>"))
        rc, err, calls = b.tangle()
        self.assertNotEqual(rc, 0)
        self.assertIn("undefined chunk <<bodie>>", err)
        self.assertFalse(os.path.exists(os.path.join(b.dir, "out", "out.c")))
        self.assertFalse(os.path.exists(os.path.join(b.dir, "edits")))
        self.assertEqual(calls, [])

    def test_root_typo(self):
        text = GOOD.replace("<<body>>=", "<<body >>=")
        p, _ = Book(text).lint()
        self.assertTrue(any("root chunk <<body >> is not named" in x for x in p), p)
        self.assertTrue(any("undefined chunk <<body>>" in x for x in p), p)

    def test_shift_read_as_chunk_use(self):
        text = GOOD.replace("return 1 @<< 2;", "x = (a << 2) | (b >> 3);")
        p, _ = Book(text).lint()
        self.assertTrue(any("undefined chunk << 2) | (b >>" in x for x in p), p)

    def test_unescaped_shift_without_close(self):
        text = GOOD.replace("return 1 @<< 2;", "return 1 << 2;")
        p, _ = Book(text).lint()
        self.assertTrue(any("write '@<<' for a literal shift" in x for x in p), p)

    def test_trailing_blanks(self):
        text = GOOD.replace("int f(void)\n", "int f(void) \n")
        p, _ = Book(text).lint()
        self.assertTrue(any("book.nw:3: trailing blanks" in x for x in p), p)

    def test_conf_names_missing_chunk(self):
        p, _ = Book(GOOD, CONF.replace("patch patch one", "patch patch two")).lint()
        self.assertTrue(any("names chunk <<patch two>>, which no source defines" in x
                            for x in p), p)


class ChunkRulesTest(unittest.TestCase):
    """Code belongs in named chunks of a readable size."""

    def test_literal_line_in_edit_script_fails(self):
        text = GOOD.replace("%% write demo.c\n<<out.c>>\n",
                            "%% write demo.c\n<<out.c>>\n%% edit MAINTAINERS\n"
                            "%% after ^F:\tcrypto/$\nF:\tcrypto/demo.c\n")
        p, _ = Book(text).lint()
        want = f"edit script <<patch one>> has a literal line {'F:' + chr(9) + 'crypto/demo.c'!r}"
        self.assertTrue(any(want in x for x in p), p)

    def test_blank_line_in_edit_script_fails(self):
        text = GOOD.replace("%% write demo.c\n<<out.c>>\n", "%% write demo.c\n\n<<out.c>>\n")
        p, _ = Book(text).lint()
        self.assertTrue(any("edit script <<patch one>> has a literal line ''" in x
                            for x in p), p)

    def test_long_chunk_warns_but_passes(self):
        body = "".join(f"int x{i};\n" for i in range(41))
        text = GOOD.replace("return 1 @<< 2;\n", "return 1 @<< 2;\n" + body)
        p, w = Book(text).lint()
        self.assertEqual(p, [])
        self.assertTrue(any("<<body>> has 42 lines (more than 40: split it)" in x
                            for x in w), w)

    def test_forty_lines_is_fine(self):
        body = "".join(f"int x{i};\n" for i in range(39))
        text = GOOD.replace("return 1 @<< 2;\n", "return 1 @<< 2;\n" + body)
        self.assertEqual(Book(text).lint(), ([], []))


class FakeTree(series.Tree):
    def __init__(self, files):
        self.files = {k: v.splitlines(True) for k, v in files.items()}
        self.origin = {k: [None] * len(v) for k, v in self.files.items()}

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
        self.assertEqual(s.arg, "x: y")
        self.assertEqual("".join(m.body), "Body.\n")
        self.assertEqual("".join(t.files["f.c"]),
                         "BEFORE\na\nanchor one\nAFTER\nNEW\nc\n")
        # Each line the edits put in remembers its edit-script line.
        self.assertEqual(t.origin["f.c"], [9, None, None, 7, 11, None])
        self.assertEqual((s.no, m.nos), (1, [3]))

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
        self.assertEqual(t.origin["new.c"], [3])
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
