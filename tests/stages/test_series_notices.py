# SPDX-License-Identifier: GPL-2.0-only
"""The series keeps every copyright and licence notice of 6.1 (issue 37,
item 1).

Each file the series changes is taken from the pristine tree (the kernel
cache's tag 'pristine'), and the patches of tangled/patches are applied
to it one after another with `git apply` (no kernel tree is checked out,
nothing is built).  After every patch, each notice the pristine file
carries must still be there: a line naming a copyright, an
SPDX-License-Identifier, MODULE_AUTHOR and MODULE_LICENSE, anywhere in
the file, and each paragraph of the file's leading comment that is
licence text (the BSD conditions, the GPL alternative, the disclaimer),
line for line and contiguous, since the BSD licence's first condition
asks for "the entire permission notice in its entirety".

A file the series rewrites (most of its pristine lines gone) must also
carry a copyright line of the project's identity (tangle.conf), so that
what is ours is said beside what is not.

Before the fix, patch 4 dropped Mueller's copyright, the dual licence and
MODULE_AUTHOR from crypto/jitterentropy.c and crypto/jitterentropy-kcapi.c
and narrowed the SPDX line of crypto/jitterentropy.h: the first test
failed on those 18 notices (a paragraph of licence text counted once),
naming the patch, and the second on the glue, which named only Mueller.
"""

import difflib
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from harness.base import conf as confmod
from harness.base import config, kcache

PATCHES = config.top("tangled/patches")

ONE_LINE = re.compile(r"SPDX-License-Identifier:|\bcopyright\b|^\s*MODULE_(AUTHOR|LICENSE)\s*\(",
                      re.I)
LICENCE_WORDS = re.compile(r"licen[cs]e|redistribut|warrant|\bGPL|copyright|permission|"
                           r"disclaim|merchantab|liabil|all rights reserved", re.I)


def series():
    """[(file name, path)] of the series' patches, in order, no cover letter."""
    with open(os.path.join(PATCHES, "series")) as f:
        names = [ln.strip() for ln in f if ln.strip()]
    return [(n, os.path.join(PATCHES, n)) for n in names if not n.startswith("0000-")]


def touched(path):
    with open(path) as f:
        return re.findall(r"^diff --git a/(\S+) b/", f.read(), flags=re.M)


def comment_text(line):
    """A line of a comment without its markers ('/*', ' *', '*/', '//', '#')."""
    s = line.strip()
    if s.endswith("*/"):
        s = s[:-2]
    s = re.sub(r"^(/\*|//|\*|#)", "", s)
    return s.strip()


def leading_comment(lines):
    """The file's leading comment lines: a C block comment (after an
    optional // SPDX line), or the run of '#' lines of a Makefile or
    Kconfig."""
    i = 0
    while i < len(lines) and (not lines[i].strip() or lines[i].lstrip().startswith("//")):
        i += 1
    if i < len(lines) and lines[i].lstrip().startswith("/*"):
        j = i
        while j < len(lines) and "*/" not in lines[j]:
            j += 1
        return lines[i:j + 1]
    if lines and lines[0].startswith("#"):
        j = 0
        while j < len(lines) and lines[j].startswith("#"):
            j += 1
        return lines[:j]
    return []


def notices(text):
    """The notices of a file, each a tuple of lines that must survive
    together and in order."""
    lines = text.splitlines()
    out = [(ln,) for ln in lines if ONE_LINE.search(ln)]
    para = []
    for ln in leading_comment(lines) + [""]:
        if comment_text(ln):
            para.append(ln)
            continue
        if any(LICENCE_WORDS.search(p) for p in para) and tuple(para) not in out:
            out.append(tuple(para))
        para = []
    return out


def contains(lines, block):
    n = len(block)
    return any(tuple(lines[i:i + n]) == block for i in range(len(lines) - n + 1))


class NoticeRulesTest(unittest.TestCase):
    """The reading of a notice, on a small file."""

    def test_bsd_paragraphs_and_single_lines(self):
        text = ("/*\n * A thing.\n *\n * Copyright A <a@b>, 2015\n *\n"
                " * Redistribution and use in source and binary forms, with or\n"
                " * without modification, are permitted.\n *\n"
                " * Design notes, not a notice.\n */\n\nint x;\n"
                "MODULE_LICENSE(\"Dual BSD/GPL\");\nMODULE_AUTHOR(\"A <a@b>\");\n"
                "MODULE_DESCRIPTION(\"not a notice\");\n")
        got = notices(text)
        self.assertIn((" * Copyright A <a@b>, 2015",), got)
        self.assertIn((" * Redistribution and use in source and binary forms, with or",
                       " * without modification, are permitted."), got)
        self.assertIn(("MODULE_AUTHOR(\"A <a@b>\");",), got)
        self.assertIn(("MODULE_LICENSE(\"Dual BSD/GPL\");",), got)
        self.assertFalse(any("Design" in ln or "MODULE_DESCRIPTION" in ln
                             for b in got for ln in b))

    def test_spdx_and_make_comments(self):
        self.assertEqual(notices("# SPDX-License-Identifier: GPL-2.0\n#\n# Crypto\n#\n"),
                         [("# SPDX-License-Identifier: GPL-2.0",)])
        self.assertEqual(notices("// SPDX-License-Identifier: GPL-2.0-or-later\n\nint x;\n"),
                         [("// SPDX-License-Identifier: GPL-2.0-or-later",)])

    def test_a_paragraph_cut_short_is_gone(self):
        block = (" * 1. Redistributions of source code must retain the above copyright",
                 " *    notice.")
        self.assertTrue(contains(["/*", *block, " */"], block))
        self.assertFalse(contains(["/*", block[0], " */"], block))


class SeriesNoticesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.src = kcache.ensure_pristine()[1]
        cls.tmp = tempfile.mkdtemp(prefix="notices-")
        cls.pristine = {}
        for _, path in series():
            for f in touched(path):
                if f in cls.pristine:
                    continue
                r = subprocess.run(["git", "-C", cls.src, "show", f"pristine:{f}"],
                                   capture_output=True, text=True)
                cls.pristine[f] = r.stdout if r.returncode == 0 else None
        for f, text in cls.pristine.items():
            if text is not None:
                os.makedirs(os.path.dirname(os.path.join(cls.tmp, f)) or cls.tmp,
                            exist_ok=True)
                with open(os.path.join(cls.tmp, f), "w") as out:
                    out.write(text)
        # Each state of the tree, after each patch: {patch: {file: text}}.
        cls.states = []
        env = dict(os.environ, GIT_CEILING_DIRECTORIES=os.path.dirname(cls.tmp))
        for name, path in series():
            r = subprocess.run(["git", "apply", "--whitespace=nowarn", path],
                               cwd=cls.tmp, capture_output=True, text=True, env=env)
            if r.returncode != 0:
                raise AssertionError(f"{name} does not apply to the files of 6.1: "
                                     f"{r.stderr.strip()[-500:]}")
            state = {}
            for f in cls.pristine:
                p = os.path.join(cls.tmp, f)
                state[f] = open(p).read() if os.path.exists(p) else None
            cls.states.append((name, touched(path), state))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_files_of_6_1_are_read(self):
        """The files the series changes that 6.1 has are found, and the
        Jitter RNG's and the DRBG's carry notices (else the test sees
        nothing)."""
        for f in ("crypto/jitterentropy.c", "crypto/jitterentropy-kcapi.c",
                  "crypto/jitterentropy.h", "crypto/drbg.c", "include/crypto/drbg.h",
                  "drivers/char/random.c", "crypto/Kconfig", "crypto/Makefile"):
            self.assertIsNotNone(self.pristine.get(f), f)
            self.assertTrue(notices(self.pristine[f]), f)

    def test_no_patch_removes_a_notice_of_6_1(self):
        """Every notice of a 6.1 file the series changes survives every patch."""
        missing = []
        for name, files, state in self.states:
            for f in files:
                text = self.pristine.get(f)
                if text is None:
                    continue
                now = (state[f] or "").splitlines()
                for block in notices(text):
                    if not contains(now, block):
                        missing.append(f"{name}: {f}: {block[0].strip()!r}"
                                       + (f" (+{len(block) - 1} lines)" if len(block) > 1
                                          else ""))
        self.assertEqual(missing, [], f"{len(missing)} notice(s) of 6.1 removed:\n"
                         + "\n".join(missing))

    def test_a_rewritten_file_says_what_is_ours(self):
        """A 6.1 file of which the series replaces most lines carries a
        copyright line of the project's identity, and no real person is
        named as the author of our part."""
        who = confmod.load().author_name
        final = self.states[-1][2]
        rewritten = []
        for f, text in self.pristine.items():
            if text is None or final[f] is None:
                continue
            old = text.splitlines()
            match = difflib.SequenceMatcher(None, old, final[f].splitlines(),
                                            autojunk=False)
            if sum(m.size for m in match.get_matching_blocks()) * 2 < len(old):
                rewritten.append(f)
                ours = [ln for ln in final[f].splitlines()
                        if re.search(r"\bcopyright\b", ln, re.I) and who in ln]
                self.assertTrue(ours, f"{f} is rewritten but has no copyright line "
                                f"naming {who}")
        self.assertEqual(sorted(rewritten), ["crypto/jitterentropy-kcapi.c",
                                             "crypto/jitterentropy.c",
                                             "crypto/jitterentropy.h"])


if __name__ == "__main__":
    unittest.main()
