# SPDX-License-Identifier: GPL-2.0-only
"""The book's sources and tangle.conf: every fault is one line naming the
file and line, in the lint and when tangle.conf is loaded; none reaches a
tangled file, none is a traceback.

Each test breaks the small book of test_tangle.py in one way: a chunk no
'@' closes, a chunk defined twice, a patch or file listed twice, a file
outside tangled/, a CR LF chapter, a byte that is not UTF-8.  The verbs
lint and tangle are run as processes too (TANGLE_CONF points at the small
book's tangle.conf), so that what a user sees is what is tested.
"""

import os
import shutil
import subprocess
import unittest

from harness.base import conf as confmod
from harness.base import config

from .test_tangle import CONF, GOOD, Book


def verb(book, *args):
    """python3 -m harness VERB ... on the small book: a copy of the package
    beside it makes the book's directory the top of the repository (as
    for a clone); (exit status, stderr)."""
    pkg = os.path.join(book.dir, "harness")
    shutil.copytree(config.top("harness"), pkg, ignore=shutil.ignore_patterns("__pycache__"))
    try:
        r = subprocess.run([config.PY, "-m", "harness"] + list(args), cwd=book.dir,
                           capture_output=True, text=True, timeout=120)
    finally:
        shutil.rmtree(pkg)
    return r.returncode, r.stderr


def conf_error(text, book_text=GOOD):
    """The one-line error of loading tangle.conf text, or None."""
    b = Book(book_text, text)
    cwd = os.getcwd()
    os.chdir(b.dir)
    try:
        confmod.load(os.path.join(b.dir, "tangle.conf"))
        return None
    except SystemExit as e:
        return str(e.code)
    finally:
        os.chdir(cwd)


class BookSourceTest(unittest.TestCase):
    def assert_one_line(self, msg, pattern):
        self.assertIsNotNone(msg)
        self.assertNotIn("\n", msg.strip())
        self.assertNotIn("Traceback", msg)
        self.assertRegex(msg.strip(), pattern)

    def test_unterminated_chunk(self):
        text = GOOD.replace("return 1 @<< 2;\n@\n", "return 1 @<< 2;\nProse that is "
                            "not code.\n")
        problems, _ = Book(text).lint()
        self.assertTrue(any(p.startswith("book.nw:8: <<body>> is not closed by an '@' "
                                         "line before the next chunk at line 11")
                            for p in problems), problems)
        problems, _ = Book(GOOD.rstrip("@\n") + "\n").lint()
        self.assertTrue(any("<<cover letter>> is not closed by an '@' line before the "
                            "end of the file" in p for p in problems), problems)

    def test_chunk_defined_twice(self):
        text = GOOD + "<<body>>=\nreturn 2;\n@\n"
        problems, _ = Book(text).lint()
        self.assertIn("book.nw:20: <<body>> is defined again (first at book.nw:8)",
                      "\n".join(problems))
        rc, err = verb(Book(text), "lint")
        self.assertEqual(rc, 1)
        self.assertIn("<<body>> is defined again", err)
        # Listed as continued: allowed.
        self.assertEqual(Book(text, CONF + "continued body\n").lint(), ([], []))

    def test_patch_or_file_listed_twice(self):
        self.assert_one_line(conf_error(CONF + "patch patch one\n"),
                             r"tangle.conf:8: 'patch patch one' is already line 6: "
                             r"expected each patch once$")
        self.assert_one_line(conf_error(CONF + "file out.c = body\n"),
                             r"tangle.conf:8: 'file out.c' is already line 5")
        self.assert_one_line(conf_error(CONF + "source book.nw\n"),
                             r"tangle.conf:8: 'source book.nw' is already line 1")

    def test_file_outside_tangled(self):
        for out in ("../../x", "/etc/x", "a/../../x", "patches/0001-x.patch"):
            self.assert_one_line(conf_error(CONF.replace("file out.c", f"file {out}")),
                                 rf"tangle.conf:5: file {out}: expected a path inside "
                                 r"tangled/")

    def test_crlf_chapter(self):
        b = Book(GOOD.replace("\n", "\r\n"))
        problems, _ = b.lint()
        self.assertEqual(problems, ["book.nw:1: CR LF line end: expected LF alone "
                                    "(convert the file with dos2unix)"])
        rc, err = verb(b, "lint")
        self.assertEqual(rc, 1)
        self.assert_one_line(err, r"^book.nw:1: CR LF line end")
        self.assert_one_line(conf_error(CONF.replace("\n", "\r\n")),
                             r"tangle.conf:1: CR LF line end")

    def test_not_utf8(self):
        b = Book(GOOD)
        with open(os.path.join(b.dir, "book.nw"), "ab") as f:
            f.write(b"caf\xe9 au lait\n")
        problems, _ = b.lint()
        self.assertEqual(problems, ["book.nw:20: not UTF-8 (byte 0xe9 at column 4): "
                                    "expected UTF-8 text"])
        for args in (("lint",), ("tangle",)):
            rc, err = verb(b, *args)
            self.assertEqual(rc, 1, args)
            self.assert_one_line(err, r"^book.nw:20: not UTF-8")
        b = Book(GOOD, CONF)
        with open(os.path.join(b.dir, "tangle.conf"), "ab") as f:
            f.write(b"# \xff\n")
        rc, err = verb(b, "lint")
        self.assert_one_line(err, r"tangle.conf:8: not UTF-8 \(byte 0xff at column 3\)")


if __name__ == "__main__":
    unittest.main()
