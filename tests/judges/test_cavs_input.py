# SPDX-License-Identifier: GPL-2.0-only
"""Hostile vector files: every one is one error naming the file (and
line), none raises, none blocks, nothing under VECTORS is skipped in
silence.

Each test builds a directory of vector files with one hostile entry
beside a good file and asks cavs_pack.prepare() (what conform runs
before the first boot) and the parser for their verdict: a dangling
symbolic link, a FIFO, a file and a directory that cannot be read (run as
an unprivileged user, since root reads everything), a name that is not
UTF-8, a symbolic link to a directory, a length or COUNT of thousands of
digits, a parameter given twice with two values, and a value rejected at
the end of the file (which is that one error, not also "record cut off").
"""

import os
import re
import shutil
import subprocess
import tempfile
import threading
import unittest

from harness.base import config
from harness.judges import cavs_pack, cavs_parse

from .cavs_files import line_of, nist_head, write_lines

NOBODY = 65534


def prepare(d):
    """(meta, [error line]) of prepare() on d, within 60 s (a FIFO must not
    block it)."""
    out = {}

    def run():
        out["meta"] = cavs_pack.prepare([d], os.path.join(d + ".out"))

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(60)
    if t.is_alive():
        raise AssertionError(f"prepare() on {d} still running after 60 s (blocked?)")
    meta = out["meta"][1]
    return meta, [e for f in meta["files"] for e in f["errors"]]


class HostileFilesTest(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="cavs-hostile-")
        os.chmod(self.d, 0o755)
        self.addCleanup(shutil.rmtree, self.d, True)
        self.addCleanup(shutil.rmtree, self.d + ".out", True)
        self.good = write_lines(self.d, "good/HMAC_DRBG.rsp", nist_head())

    def assert_one_error(self, errors, path, pattern):
        mine = [e for e in errors if e.startswith(path + ":")]
        self.assertEqual(len(mine), 1, errors)
        self.assertNotIn("\n", mine[0])
        self.assertRegex(mine[0], pattern)

    def assert_good_still_parsed(self, meta):
        good = [f for f in meta["files"] if f["path"].endswith("good/HMAC_DRBG.rsp")]
        self.assertEqual([(f["records"], f["errors"]) for f in good], [(3, [])])

    def test_dangling_symlink(self):
        link = os.path.join(self.d, "dangling.rsp")
        os.symlink(os.path.join(self.d, "gone.rsp"), link)
        meta, errors = prepare(self.d)
        self.assert_one_error(errors, link, r"dangling symbolic link .*gone\.rsp")
        self.assert_good_still_parsed(meta)

    def test_fifo_is_refused_not_waited_on(self):
        fifo = os.path.join(self.d, "pipe.rsp")
        os.mkfifo(fifo)
        meta, errors = prepare(self.d)
        self.assert_one_error(errors, fifo, r": a FIFO: expected a regular \.rsp file")
        self.assert_good_still_parsed(meta)

    def test_directory_named_rsp_is_walked_not_read(self):
        write_lines(self.d, "odd.rsp/HMAC_DRBG.rsp", nist_head())
        meta, errors = prepare(self.d)
        self.assertEqual(errors, [])
        self.assertEqual(sum(f["records"] for f in meta["files"]), 6)

    def test_name_not_utf8(self):
        raw = os.path.join(os.fsencode(self.d), b"bad\xff.rsp")
        with open(raw, "wb") as f:
            f.write(b"")
        meta, errors = prepare(self.d)
        self.assert_one_error(errors, os.path.join(self.d, "bad\\xff.rsp"),
                              r"name is not UTF-8")
        self.assert_good_still_parsed(meta)

    def test_symlinked_subdirectory_is_named(self):
        other = tempfile.mkdtemp(prefix="cavs-elsewhere-")
        self.addCleanup(shutil.rmtree, other)
        write_lines(other, "HMAC_DRBG.rsp", nist_head())
        link = os.path.join(self.d, "linked")
        os.symlink(other, link)
        meta, errors = prepare(self.d)
        self.assert_one_error(errors, link, r"symbolic link to a directory, not followed")
        self.assert_good_still_parsed(meta)

    def test_missing_and_dangling_vector_dir(self):
        link = os.path.join(self.d, "dir-link")
        os.symlink(os.path.join(self.d, "gone"), link)
        _, meta = cavs_pack.prepare([link], self.d + ".out")
        errors = [e for f in meta["files"] for e in f["errors"]]
        self.assertEqual(len(errors), 1)
        self.assertRegex(errors[0], rf"^{re.escape(link)}: a dangling symbolic link")

    def test_thousands_of_digits(self):
        lines = nist_head()
        big = "9" * 5000
        lines[line_of(lines, "[EntropyInputLen")  - 1] = f"[EntropyInputLen = {big}]"
        path = write_lines(self.d, "len/HMAC_DRBG.rsp", lines)
        lines = nist_head()
        lines[line_of(lines, "COUNT = 1") - 1] = f"COUNT = {big}"
        path2 = write_lines(self.d, "count/HMAC_DRBG.rsp", lines)
        meta, errors = prepare(self.d)
        mine = [e for e in errors if e.startswith(path + ":")]
        self.assertTrue(mine, errors)
        self.assertRegex(mine[0], r"\[EntropyInputLen = 9{24}\.\.\. \(5000 characters\)\]: "
                         r"a number of 5000 digits: expected at most 9")
        self.assertTrue(all(len(e) < 400 for e in errors))
        self.assert_one_error(errors, path2, r"COUNT = 9{24}\.\.\. \(5000 characters\): "
                              r"a number of 5000 digits")
        self.assert_good_still_parsed(meta)

    def test_conflicting_duplicate_parameter(self):
        lines = nist_head()
        at = line_of(lines, "[EntropyInputLen")
        first = int(re.search(r"\d+", lines[at - 1]).group())
        lines.insert(at, f"[EntropyInputLen = {first + 8}]")
        path = write_lines(self.d, "dup/HMAC_DRBG.rsp", lines)
        p = cavs_parse.parse_file(path)
        self.assertEqual(p.records, [])
        self.assertRegex(str(p.errors[0]), rf"^{re.escape(path)}:{at + 1}: "
                         rf"\[EntropyInputLen = {first + 8}\] contradicts line {at} ")
        same = nist_head()
        same.insert(at, same[at - 1])
        self.assertEqual(cavs_parse.parse_file(
            write_lines(self.d, "same/HMAC_DRBG.rsp", same)).errors, [])

    def test_rejected_value_is_one_error_not_cut_off(self):
        lines = nist_head()
        no = line_of(lines, "ReturnedBits", 2)
        lines[no - 1] = lines[no - 1][:-1] + "x"
        p = cavs_parse.parse_file(write_lines(self.d, "x/HMAC_DRBG.rsp",
                                              lines[:no]))
        msgs = [str(e) for e in p.errors]
        self.assertEqual(len(msgs), 1, msgs)
        self.assertIn(f":{no}: ReturnedBits: bad hex digit 'x'", msgs[0])
        self.assertNotIn("cut off", " ".join(msgs))

    def test_duplicate_field_is_refused(self):
        lines = nist_head()
        no = line_of(lines, "Nonce = ", 1)
        lines.insert(no, lines[no - 1])
        path = write_lines(self.d, "dupfield/HMAC_DRBG.rsp", lines)
        p = cavs_parse.parse_file(path)
        self.assertEqual([str(e) for e in p.errors],
                         [f"{path}:{no + 1}: Nonce appears 2 times, expected 1"])
        self.assertEqual([r.count for r in p.records], [0, 2])

    def test_repeated_count_is_refused(self):
        """a second COUNT = 0 in one group (a record given twice, or two
        files pasted together) is refused, naming the first"""
        lines = nist_head()
        first = line_of(lines, "COUNT = 0")
        second = line_of(lines, "COUNT = 2")
        lines[second - 1] = "COUNT = 0"
        path = write_lines(self.d, "dupcount/HMAC_DRBG.rsp", lines)
        p = cavs_parse.parse_file(path)
        self.assertEqual([str(e) for e in p.errors],
                         [f"{path}:{second}: COUNT = 0 again in the group [SHA-1] (first "
                          f"at line {first}): expected each COUNT once in a group"])
        self.assertEqual([r.count for r in p.records], [0, 1])

    def test_no_applicable_record_fails_the_run(self):
        from harness.judges import cavs_judge

        from .cavs_files import fake_guest
        lines = ["[SHA-224]" if ln == "[SHA-1]" else ln for ln in nist_head()]
        write_lines(self.d, "only224/HMAC_DRBG.rsp", lines)
        os.unlink(self.good)
        _, meta = cavs_pack.prepare([self.d], self.d + ".out")
        total = {c.id: c for c in cavs_judge.checks(fake_guest(meta), meta)}["cavs.total"]
        self.assertEqual(total.status, "fail")
        self.assertIn("no applicable record to run", total.reason)

    def test_unreadable_file_and_directory(self):
        """as an unprivileged user: a file and a directory it cannot read"""
        bad_file = write_lines(self.d, "locked/HMAC_DRBG.rsp", nist_head())
        os.chmod(bad_file, 0)
        bad_dir = os.path.join(self.d, "closed")
        write_lines(self.d, "closed/HMAC_DRBG.rsp", nist_head())
        os.chmod(bad_dir, 0)
        for p in (self.good, os.path.dirname(self.good), os.path.dirname(bad_file)):
            os.chmod(p, 0o755 if os.path.isdir(p) else 0o644)
        code = ("import json, sys\nfrom harness.judges import cavs_parse as c\n"
                "out = [[n, w] for _, n, w in c.find_files([sys.argv[1]])]\n"
                "out += [[n, c.read_file(p)[1]] for p, n, w in c.find_files([sys.argv[1]])"
                " if w is None]\nprint(json.dumps(out))\n")
        r = subprocess.run([config.PY, "-c", code, self.d], cwd=config.TOP,
                           capture_output=True, text=True, user=NOBODY, group=NOBODY,
                           timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        import json
        found = {n: w for n, w in json.loads(r.stdout) if w}
        self.assertRegex(found.get(bad_dir, ""), r"cannot read this directory "
                         r"\(Permission denied\)")
        self.assertRegex(found.get(bad_file, ""), r"cannot open it \(Permission denied\)")
        self.assertEqual(len(found), 2, found)


if __name__ == "__main__":
    unittest.main()
