# SPDX-License-Identifier: GPL-2.0-only
"""The CAVS files on the host: the parser, and the vectors we generate.

- Every class of malformed input (truncated file, bad hex digit, odd-length
  hex, a [..Len] line that disagrees with a value, a missing field, an
  unknown section) gives an error naming file:line and what was expected,
  the good records still parse, and the run is marked failed; CRLF and LF
  files read the same.
- Kinds come from the content, not the directory; sections Linux 6.1 lacks
  are skipped with a reason and counted.
- vectors/extra is exactly what `python3 -m harness gen-vectors` makes.

The pack, the guest runner and the checks are in test_cavs_pack.py.
"""

import os
import re
import shutil
import tempfile
import unittest

from harness.judges import cavs_judge, cavs_pack, cavs_parse, cavs_records, drbg_model
from harness.stages import gen_vectors

from .cavs_files import EXTRA, NIST, TOP, by_id, fake_guest, line_of, nist_head, \
    read_bytes, write_lines


class ParserTest(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="cavs-parse-")
        self.addCleanup(shutil.rmtree, self.d)
        self.lines = nist_head()

    def parse(self, lines, name="pr_false/HMAC_DRBG.rsp", **kw):
        return cavs_parse.parse_file(write_lines(self.d, name, lines, **kw))

    def assert_one_error(self, parsed, line, pattern):
        msgs = [str(e) for e in parsed.errors]
        self.assertTrue(msgs, "no error reported")
        self.assertRegex(msgs[0], rf"^{re.escape(parsed.path)}:{line}: ")
        self.assertRegex(msgs[0], pattern)
        return msgs

    def test_good_head_parses(self):
        p = self.parse(self.lines)
        self.assertEqual(p.errors, [])
        self.assertEqual([r.count for r in p.records], [0, 1, 2])
        self.assertEqual({r.kind for r in p.records}, {"pr_false"})
        self.assertEqual(p.records[0].line, line_of(self.lines, "COUNT = 0"))

    def test_crlf_and_lf_read_the_same(self):
        a = self.parse(self.lines, eol="\r\n")
        b = self.parse(self.lines, name="lf/HMAC_DRBG.rsp", eol="\n")
        self.assertEqual(a.errors + b.errors, [])
        self.assertEqual([r.values for r in a.records], [r.values for r in b.records])
        self.assertEqual([r.line for r in a.records], [r.line for r in b.records])

    def test_truncated_file(self):
        """a record cut off by the end of the file is named, the rest parse"""
        cut = line_of(self.lines, "ReturnedBits", 2)
        lines = self.lines[:cut]
        lines[-1] = lines[-1][:len(lines[-1]) // 2 + 1]   # mid-value, even or odd
        lines[-1] = lines[-1][:len("ReturnedBits = ") + 40]
        p = self.parse(lines, final_eol=False)
        msgs = self.assert_one_error(p, cut, r"ReturnedBits is 160 bits but "
                                     r"\[ReturnedBitsLen = 640\].*truncated")
        # The rejected value is the one error: not also "cut off".
        self.assertEqual(len(msgs), 1, msgs)
        self.assertEqual([r.count for r in p.records], [0, 1])
        # A record that really stops before its last field is cut off.
        p = self.parse(self.lines[:cut - 1], final_eol=False)
        msgs = [str(e) for e in p.errors]
        self.assertEqual(len(msgs), 1, msgs)
        self.assertRegex(msgs[0], rf":{line_of(lines, 'COUNT = 2')}: record cut "
                         r"off by the end of the file.*missing ReturnedBits")

    def test_truncated_between_fields(self):
        cut = line_of(self.lines, "AdditionalInput = ", 5)
        p = self.parse(self.lines[:cut])
        self.assert_one_error(p, line_of(self.lines, "COUNT = 2"),
                              r"record cut off by the end of the file at line "
                              rf"{cut} \(truncated\?\): missing ReturnedBits")
        self.assertEqual(len(p.records), 2)

    def test_truncated_after_a_group_header(self):
        first = line_of(self.lines, "[SHA-1]")
        lines = self.lines + self.lines[first - 1:line_of(self.lines, "COUNT = 0") - 1]
        p = self.parse(lines[:-1], final_eol=False)
        self.assert_one_error(p, len(self.lines) + 1, r"the group \[SHA-1\] has no "
                              r"records.*\(truncated\?\)")
        self.assertEqual(len(p.records), 3)

    def test_empty_file(self):
        p = self.parse(["# nothing here"])
        self.assert_one_error(p, 1, r"no \[section\] and no records")

    def test_bad_hex_digit(self):
        no = line_of(self.lines, "EntropyInput = ", 1)
        lines = list(self.lines)
        lines[no - 1] = lines[no - 1][:-3] + "g" + lines[no - 1][-2:]
        p = self.parse(lines)
        self.assert_one_error(p, no, r"EntropyInput: bad hex digit 'g' at position "
                              r"\d+: expected 0-9 or a-f")
        self.assertEqual([r.count for r in p.records], [0, 2])

    def test_odd_length_hex(self):
        no = line_of(self.lines, "Nonce = ", 2)
        lines = list(self.lines)
        lines[no - 1] = lines[no - 1][:-1]
        p = self.parse(lines)
        self.assert_one_error(p, no, r"Nonce: odd number of hex digits \(15\): "
                              r"expected whole bytes")
        self.assertEqual([r.count for r in p.records], [0, 1])

    def test_length_line_disagrees(self):
        no = line_of(self.lines, "EntropyInputReseed = ", 0)
        lines = list(self.lines)
        lines[no - 1] += "00"
        p = self.parse(lines)
        self.assert_one_error(p, no, r"EntropyInputReseed is 136 bits but "
                              rf"\[EntropyInputLen = 128\] \(line "
                              rf"{line_of(lines, '[EntropyInputLen')}\) says 128")
        self.assertEqual([r.count for r in p.records], [1, 2])

    def test_missing_field(self):
        no = line_of(self.lines, "EntropyInputReseed = ", 1)
        lines = self.lines[:no - 1] + self.lines[no:]
        p = self.parse(lines)
        self.assert_one_error(p, line_of(lines, "COUNT = 1"),
                              r"incomplete record: missing EntropyInputReseed "
                              r"\(a pr_false record needs .*EntropyInputReseed")
        self.assertEqual([r.count for r in p.records], [0, 2])

    def test_missing_second_additional_input(self):
        no = line_of(self.lines, "AdditionalInput = ", 1)
        lines = self.lines[:no - 1] + self.lines[no:]
        p = self.parse(lines)
        self.assert_one_error(p, line_of(lines, "COUNT = 0"),
                              r"missing AdditionalInput \(x2, found 1\)")
        self.assertEqual([r.count for r in p.records], [1, 2])

    def test_unknown_section(self):
        """an unknown section is named; the records of known ones still run"""
        first = line_of(self.lines, "[SHA-1]")
        group = self.lines[first - 1:]
        bogus = ["[SHA3-256]" if ln == "[SHA-1]" else ln for ln in group]
        lines = self.lines + bogus
        p = self.parse(lines)
        self.assert_one_error(p, len(self.lines) + 1,
                              r"unknown section \[SHA3-256\] for HMAC_DRBG: "
                              r"expected one of \[SHA-1\]")
        self.assertEqual(len(p.errors), 1, "one error for the group, not per record")
        self.assertEqual(len(p.records), 3)
        self.assertEqual(p.bad_records, 3)

    def test_missing_prediction_resistance_line(self):
        lines = [ln for ln in self.lines if not ln.startswith("[PredictionResistance")]
        p = self.parse(lines)
        self.assert_one_error(p, line_of(lines, "[SHA-1]"),
                              r"no \[PredictionResistance = True\|False\] line")
        self.assertEqual(p.records, [])

    def test_unknown_field(self):
        no = line_of(self.lines, "Nonce = ", 0)
        lines = list(self.lines)
        lines.insert(no, "Noncee = 00")
        p = self.parse(lines)
        self.assert_one_error(p, no + 1, r"unknown field 'Noncee': expected one of")
        self.assertEqual([r.count for r in p.records], [1, 2])

    def test_kind_from_content_not_directory(self):
        """pr_false content in a directory called pr_true is pr_false"""
        p = self.parse(self.lines, name="pr_true/HMAC_DRBG.rsp")
        self.assertEqual(p.kinds, ["pr_false"])
        nr = cavs_parse.parse_bytes("x", "\r\n".join(nist_head("no_reseed/CTR_DRBG.rsp"))
                              .encode(), mechanism=None)
        self.assertEqual(nr.kinds, ["no_reseed"])
        pr = cavs_parse.parse_file(os.path.join(NIST, "pr_true/Hash_DRBG.rsp"))
        self.assertEqual(pr.kinds, ["pr_true"])

    def test_mechanism_needed_for_sha_sections(self):
        lines = [ln for ln in self.lines if "options:" not in ln]
        p = self.parse(lines, name="some/vectors.rsp")
        self.assert_one_error(p, line_of(lines, "[SHA-1]"),
                              r"cannot tell which mechanism")
        q = self.parse(lines, name="some/HMAC_DRBG.rsp")   # from the name
        self.assertEqual(q.errors, [])
        self.assertEqual(q.mechanism, "HMAC_DRBG")

    def test_classification_of_the_nist_files(self):
        """7920 applicable records; the rest skipped by section, with reasons"""
        applicable, skipped = 0, {}
        for path, _, _ in cavs_parse.find_files([NIST]):
            p = cavs_parse.parse_file(path)
            self.assertEqual(p.errors, [], path)
            for r in p.records:
                if r.section.applicable:
                    applicable += 1
                    self.assertRegex(r.driver, r"^drbg_(pr|nopr)_(ctr_aes(128|192|256)|"
                                     r"(hmac_)?sha(1|256|384|512))$")
                    self.assertEqual(r.driver.startswith("drbg_pr_"),
                                     r.kind == "pr_true")
                else:
                    skipped.setdefault(r.section.name, set()).add(
                        (r.section.mechanism, r.section.skip_reason))
        self.assertEqual(applicable, 7920)
        self.assertEqual(sorted(skipped), sorted([
            "SHA-224", "SHA-512/224", "SHA-512/256", "3KeyTDEA use df",
            "3KeyTDEA no df", "AES-128 no df", "AES-192 no df", "AES-256 no df"]))
        for name, reasons in skipped.items():
            mechs = [m for m, _ in reasons]
            self.assertEqual(len(mechs), len(set(mechs)), "one reason per section")
            for _, why in reasons:
                self.assertIn("Linux 6.1", why)

    def test_intermediate_files_parse(self):
        path = os.path.join(TOP, "vectors/cavs-intermediate/pr_false/CTR_DRBG.txt")
        p = cavs_parse.parse_file(path, intermediate=True)
        self.assertEqual(p.errors, [])
        r = next(r for r in p.records if r.section.name == "AES-256 use df")
        self.assertEqual([s for s, _ in r.steps],
                         ["INSTANTIATE", "RESEED", "GENERATE (FIRST CALL)",
                          "GENERATE (SECOND CALL)"])
        self.assertEqual(len(r.steps[0][1]["Key"]), 32)


class MalformedRunFailsTest(unittest.TestCase):
    def test_every_malformed_class_fails_the_run(self):
        """each malformed file fails its cavs.parse check and cavs.total"""
        d = tempfile.mkdtemp(prefix="cavs-bad-")
        self.addCleanup(shutil.rmtree, d)
        good = nist_head()
        variants = {}
        no = line_of(good, "Nonce = ", 1)
        variants["badhex"] = good[:no - 1] + [good[no - 1][:-1] + "x"] + good[no:]
        variants["odd"] = good[:no - 1] + [good[no - 1][:-1]] + good[no:]
        variants["len"] = good[:no - 1] + [good[no - 1] + "aa"] + good[no:]
        variants["missing"] = good[:no - 1] + good[no:]
        variants["unknown"] = good + ["[SHA-3]" if ln == "[SHA-1]" else ln
                                      for ln in good[line_of(good, "[SHA-1]") - 1:]]
        for name, lines in variants.items():
            write_lines(d, f"{name}/HMAC_DRBG.rsp", lines)
        write_lines(d, "trunc/HMAC_DRBG.rsp", good[:-3], final_eol=False)
        write_lines(d, "ok/HMAC_DRBG.rsp", good, eol="\n")
        _, meta = cavs_pack.prepare([d], os.path.join(d, "out"))
        checks = by_id(cavs_judge.checks(fake_guest(meta), meta))
        base = os.path.basename(d)
        for name in list(variants) + ["trunc"]:
            c = checks[f"cavs.parse.{base}-{name}-hmac_drbg"]
            self.assertEqual(c.status, "fail", name)
            self.assertRegex(c.details["errors"][0],
                             rf"^{re.escape(d)}/{name}/HMAC_DRBG.rsp:\d+: ")
        self.assertEqual(checks[f"cavs.parse.{base}-ok-hmac_drbg"].status, "pass")
        total = checks["cavs.total"]
        self.assertEqual(total.status, "fail")
        self.assertIn("parse error", total.reason)
        # The good records of the bad files still ran.
        self.assertEqual(total.counts["passed"], total.counts["applicable"])
        # 3 records in each file; one spoilt in each bad file but "unknown",
        # whose bad group is a fourth to sixth record.
        self.assertEqual(total.counts["applicable"], 3 + 5 * 2 + 3)


class GenVectorsTest(unittest.TestCase):
    def test_committed_extra_vectors_are_reproducible(self):
        """vectors/extra is byte for byte what the gen-vectors verb makes"""
        d = tempfile.mkdtemp(prefix="cavs-gen-")
        self.addCleanup(shutil.rmtree, d)
        made = gen_vectors.generate(d)
        committed = sorted(os.path.relpath(p, EXTRA) for p, _, _ in
                           cavs_parse.find_files([EXTRA]))
        self.assertEqual(sorted(os.path.relpath(p, d) for p in made), committed)
        for rel in committed:
            with open(os.path.join(d, rel), "rb") as a, \
                    open(os.path.join(EXTRA, rel), "rb") as b:
                self.assertEqual(a.read(), b.read(), f"vectors/extra/{rel} differs: "
                                 "run python3 -m harness gen-vectors vectors/extra")
        size = sum(os.path.getsize(os.path.join(EXTRA, r)) for r in committed)
        self.assertLess(size, 1 << 20)

    def test_extra_vectors_cover_the_lengths(self):
        outs, empties, kinds, cores = set(), set(), set(), set()
        for path, _, _ in cavs_parse.find_files([EXTRA]):
            p = cavs_parse.parse_file(path)
            self.assertEqual(p.errors, [], path)
            self.assertNotIn(b"\r", read_bytes(path))
            for r in p.records:
                outs.add(r.out_len)
                kinds.add(r.kind)
                cores.add(r.section.core)
                empties |= {k for k, v in r.values.items() if not any(v)}
        self.assertIn(1, outs)
        self.assertIn(65536, outs)
        self.assertTrue(any(n > 65536 for n in outs))
        self.assertEqual(kinds, set(cavs_records.KINDS))
        self.assertEqual(cores, set(drbg_model.CORES))
        self.assertLessEqual({"EntropyInput", "Nonce", "PersonalizationString",
                              "AdditionalInput"}, empties)


if __name__ == "__main__":
    unittest.main()
