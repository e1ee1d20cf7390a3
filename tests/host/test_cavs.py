# SPDX-License-Identifier: GPL-2.0-only
"""The CAVS harness on the host: parser, pack, guest runner, checks.

- Every class of malformed input (truncated file, bad hex digit, odd-length
  hex, a [..Len] line that disagrees with a value, a missing field, an
  unknown section) gives an error naming file:line and what was expected,
  the good records still parse, and the run is marked failed; CRLF and LF
  files read the same.
- Kinds come from the content, not the directory; sections Linux 6.1 lacks
  are skipped with a reason and counted.
- The pack round-trips, and the guest runner (conformance/guest/cavs.c,
  built with -DCAVS_HOST_TEST against a fake device) reads a pack made by
  cavs_pack.py, sends exactly the packed requests and reports what the
  device answers; cavs_pack.checks() turns that into the report's checks.
- A copy of a record with one flipped bit of ReturnedBits is caught and
  named by file:line, by the model and through the guest runner.
- vectors/extra is exactly what gen_vectors.py makes.
"""

import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "conformance/host"))
import cavs  # noqa: E402
import cavs_pack  # noqa: E402
import drbg_model  # noqa: E402
import gen_vectors  # noqa: E402

NIST = os.path.join(TOP, "vectors/cavs")
EXTRA = os.path.join(TOP, "vectors/extra")
GUEST = os.path.join(TOP, "conformance/guest")


def nist_head(rel="pr_false/HMAC_DRBG.rsp", nrec=3):
    """The comments, first group and first nrec records of a NIST file,
    as a list of lines without line ends."""
    with open(os.path.join(NIST, rel), "rb") as f:
        lines = f.read().decode("ascii").split("\r\n")
    counts = [i for i, ln in enumerate(lines) if ln.startswith("COUNT = ")]
    return lines[:counts[nrec]]


def write_lines(d, name, lines, eol="\r\n", final_eol=True):
    path = os.path.join(d, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write((eol.join(lines) + (eol if final_eol else "")).encode())
    return path


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def line_of(lines, prefix, nth=0):
    """1-based line number of the nth line starting with prefix."""
    hits = [i + 1 for i, ln in enumerate(lines) if ln.startswith(prefix)]
    return hits[nth]


def fake_guest(meta, failing=()):
    """Result lines a guest would send if the records at indices `failing`
    (into meta["records"]) failed and everything else passed."""
    out = [{"type": "check", "id": "cavs.interface", "status": "pass"}]
    per = {}
    for ri, r in enumerate(meta["records"]):
        p = per.setdefault(r["section"], [0, 0])
        sel = meta["sections"][r["section"]]["selftest"]
        bad = (ri in failing) != sel
        p[1 if bad else 0] += 1
        if bad:
            exp = bytes.fromhex(r["expected"])
            got = bytearray(exp)
            got[-1] ^= 1
            out.append({"type": "cavs_fail", "f": r["file"], "line": r["line"],
                        "s": r["section"], "len": len(exp), "err": 0, "step": 0,
                        "at": len(exp) - 1, "from": 0, "expected": exp.hex()[:512],
                        "got": bytes(got).hex()[:512]})
    for si, (p, f) in per.items():
        out.append({"type": "cavs_section", "s": si, "passed": p, "failed": f, "us": 1})
    out.append({"type": "cavs_done", "records": len(meta["records"]), "us": 5,
                "passed": sum(p for p, _ in per.values()),
                "failed": sum(f for _, f in per.values())})
    return out


def by_id(checks):
    return {c["id"]: c for c in checks}


class ParserTest(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="cavs-parse-")
        self.addCleanup(shutil.rmtree, self.d)
        self.lines = nist_head()

    def parse(self, lines, name="pr_false/HMAC_DRBG.rsp", **kw):
        return cavs.parse_file(write_lines(self.d, name, lines, **kw))

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
        self.assertTrue(any(re.search(rf":{line_of(lines, 'COUNT = 2')}: record cut "
                                      r"off by the end of the file.*missing ReturnedBits",
                                      m) for m in msgs), msgs)
        self.assertEqual([r.count for r in p.records], [0, 1])

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
        nr = cavs.parse_bytes("x", "\r\n".join(nist_head("no_reseed/CTR_DRBG.rsp"))
                              .encode(), mechanism=None)
        self.assertEqual(nr.kinds, ["no_reseed"])
        pr = cavs.parse_file(os.path.join(NIST, "pr_true/Hash_DRBG.rsp"))
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
        for path, _, _ in cavs.find_files([NIST]):
            p = cavs.parse_file(path)
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
        p = cavs.parse_file(path, intermediate=True)
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
        checks = by_id(cavs_pack.checks(fake_guest(meta), meta))
        base = os.path.basename(d)
        for name in list(variants) + ["trunc"]:
            c = checks[f"cavs.parse.{base}-{name}-hmac_drbg"]
            self.assertEqual(c["status"], "fail", name)
            self.assertRegex(c["details"]["errors"][0],
                             rf"^{re.escape(d)}/{name}/HMAC_DRBG.rsp:\d+: ")
        self.assertEqual(checks[f"cavs.parse.{base}-ok-hmac_drbg"]["status"], "pass")
        total = checks["cavs.total"]
        self.assertEqual(total["status"], "fail")
        self.assertIn("parse error", total["reason"])
        # The good records of the bad files still ran.
        self.assertEqual(total["counts"]["passed"], total["counts"]["applicable"])
        # 3 records in each file; one spoilt in each bad file but "unknown",
        # whose bad group is a fourth to sixth record.
        self.assertEqual(total["counts"]["applicable"], 3 + 5 * 2 + 3)


class RequestTest(unittest.TestCase):
    def test_request_layout(self):
        """the request matches the interface's byte layout"""
        strings = [bytes([i]) * (i + 1) for i in range(9)]
        msg = cavs_pack.encode_request("drbg_pr_hmac_sha512", 3, 1000, strings)
        self.assertEqual(msg[:4], b"DCV1")
        self.assertEqual(int.from_bytes(msg[4:8], "little"), len(msg))
        self.assertEqual(len(msg), 116 + sum(range(1, 10)))
        self.assertEqual(int.from_bytes(msg[8:12], "little"), 3)
        self.assertEqual(int.from_bytes(msg[12:16], "little"), 1000)
        self.assertEqual(msg[16:80], b"drbg_pr_hmac_sha512".ljust(64, b"\0"))
        self.assertEqual([int.from_bytes(msg[80 + 4 * i:84 + 4 * i], "little")
                          for i in range(9)], list(range(1, 10)))
        self.assertEqual(msg[116:], b"".join(strings))
        self.assertEqual(list(cavs_pack.decode_request(msg)["strings"].values()),
                         strings)

    def test_bad_requests_are_refused(self):
        good = cavs_pack.encode_request("drbg_nopr_sha1", 0, 10, [b"a"] * 9)
        bad = {"magic": b"XCV1" + good[4:],
               "total": good[:4] + struct.pack("<I", len(good) + 1) + good[8:],
               "short": good[:-1],
               "flags": good[:8] + struct.pack("<I", 4) + good[12:],
               "out_len": good[:12] + struct.pack("<I", 0) + good[16:],
               "driver": good[:16] + b"x" * 64 + good[80:]}
        for name, msg in bad.items():
            with self.assertRaises(ValueError, msg=name):
                cavs_pack.decode_request(msg)

    def test_record_requests(self):
        """flags and driver follow the record's kind"""
        for rel, flags, prefix in (("no_reseed/CTR_DRBG.rsp", 0, "drbg_nopr_"),
                                   ("pr_false/Hash_DRBG.rsp", 1, "drbg_nopr_"),
                                   ("pr_true/HMAC_DRBG.rsp", 2, "drbg_pr_")):
            p = cavs.parse_file(os.path.join(NIST, rel))
            r = next(r for r in p.records if r.section.applicable and r.pers)
            q = cavs_pack.decode_request(cavs_pack.request_for(r))
            self.assertEqual(q["flags"], flags)
            self.assertTrue(q["driver"].startswith(prefix))
            s = q["strings"]
            self.assertEqual(s["EntropyInput"] + s["Nonce"], r.entropy + r.nonce)
            self.assertEqual(s["PersonalizationString"], r.pers)
            self.assertEqual((s["AdditionalInput1"], s["AdditionalInput2"]), r.addtl)
            self.assertEqual(s["EntropyInputReseed"], r.entropy_reseed)
            self.assertEqual((s["EntropyInputPR1"], s["EntropyInputPR2"]),
                             r.entropy_pr)
            self.assertEqual(cavs_pack.model_for_request(cavs_pack.request_for(r))[1],
                             r.returned)


class PackTest(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="cavs-pack-")
        self.addCleanup(shutil.rmtree, self.d)

    def test_round_trip(self):
        """every record comes back from the pack as it went in"""
        src = os.path.join(self.d, "v")
        write_lines(src, "pr_true/Hash_DRBG.rsp", nist_head("pr_true/Hash_DRBG.rsp", 4))
        write_lines(src, "x/CTR_DRBG.rsp", nist_head("no_reseed/CTR_DRBG.rsp", 2))
        shutil.copy(os.path.join(EXTRA, "long/pr_true_CTR_DRBG.rsp"), src)
        pack, meta = cavs_pack.prepare([src], os.path.join(self.d, "out"))
        with open(pack, "rb") as f:
            files, sections, records = cavs_pack.read_pack(f.read())
        self.assertEqual(len(records), len(meta["records"]))
        self.assertEqual(files[:3], [f["path"] for f in meta["files"]])
        self.assertTrue(files[3].startswith("selftest: "))
        self.assertEqual(sorted(s for _, s in sections[:-1]),
                         ["pr_true.ctr-aes128-df", "pr_true.hash-sha1"])
        self.assertEqual(sections[-1], (3, "selftest.flipped-bit"))
        parsed = {}
        for fpath in files[:3]:
            for r in cavs.parse_file(fpath).records:
                parsed[(fpath, r.line)] = r
        tdea = 0
        for (fi, line, si, req, exp), m in zip(records, meta["records"]):
            self.assertEqual((fi, line, si), (m["file"], m["line"], m["section"]))
            if sections[si][1].startswith("selftest"):
                continue
            r = parsed[(files[fi], line)]
            self.assertEqual(req, cavs_pack.request_for(r))
            self.assertEqual(exp, r.returned)
        for r in parsed.values():
            tdea += not r.section.applicable
        self.assertEqual(tdea, 2, "the TDEA records are skipped, not packed")
        self.assertEqual(meta["skipped"][0]["records"], 2)
        self.assertEqual(len(records), 4 + 1 + 1)
        # A pack cut short is refused.
        with open(pack, "rb") as f:
            data = f.read()
        for cut in (10, len(data) // 2, len(data) - 1):
            with self.assertRaises((ValueError, struct.error)):
                cavs_pack.read_pack(data[:cut])

    def test_unrunnable_records_are_errors(self):
        lines = nist_head("no_reseed/HMAC_DRBG.rsp", 1)
        big = "ab" * (cavs_pack.MAX_OUT + 1)
        lines = [f"[ReturnedBitsLen = {8 * (cavs_pack.MAX_OUT + 1)}]"
                 if ln.startswith("[ReturnedBitsLen") else
                 (f"ReturnedBits = {big}" if ln.startswith("ReturnedBits") else ln)
                 for ln in lines]
        path = write_lines(self.d, "v/HMAC_DRBG.rsp", lines)
        _, meta = cavs_pack.prepare([os.path.dirname(path)], os.path.join(self.d, "o"))
        checks = by_id(cavs_pack.checks(fake_guest(meta), meta))
        c = checks["cavs.parse.v-hmac_drbg"]
        self.assertEqual(c["status"], "fail")
        self.assertRegex(c["reason"], r"HMAC_DRBG.rsp:\d+: ReturnedBits of 262145 "
                         r"bytes: the test interface takes 1 to 262144")

    def test_missing_vector_dir(self):
        _, meta = cavs_pack.prepare([os.path.join(self.d, "nope")],
                                    os.path.join(self.d, "o"))
        checks = cavs_pack.checks(fake_guest(meta), meta)
        self.assertTrue(any(c["id"].startswith("cavs.parse.") and c["status"] == "fail"
                            and "no such directory" in c["reason"] for c in checks))
        self.assertEqual(by_id(checks)["cavs.total"]["status"], "fail")


class ChecksTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.d = tempfile.mkdtemp(prefix="cavs-checks-")
        src = os.path.join(cls.d, "v")
        write_lines(src, "a/HMAC_DRBG.rsp", nist_head("pr_false/HMAC_DRBG.rsp", 3))
        write_lines(src, "b/HMAC_DRBG.rsp", nist_head("pr_false/HMAC_DRBG.rsp", 2))
        write_lines(src, "c/CTR_DRBG.rsp", nist_head("pr_true/CTR_DRBG.rsp", 2))
        cls.pack, cls.meta = cavs_pack.prepare([src], os.path.join(cls.d, "out"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.d)

    def test_all_pass(self):
        checks = cavs_pack.checks(fake_guest(self.meta), self.meta)
        self.assertEqual([c["id"] for c in checks if c["status"] == "fail"], [])
        ids = by_id(checks)
        self.assertEqual(ids["cavs.pr_false.hmac-sha1"]["counts"]["passed"], 3)
        # The same kind and section from a later file gets the file's slug.
        self.assertEqual(ids["cavs.pr_false.hmac-sha1.v-b-hmac_drbg"]["counts"]["passed"],
                         2)
        self.assertEqual(ids["cavs.model.pr_false.hmac-sha1"]["status"], "pass")
        self.assertEqual(ids["cavs.pr_true.ctr-3keytdea-df"]["status"], "skip")
        self.assertIn("TDEA", ids["cavs.pr_true.ctr-3keytdea-df"]["reason"])
        self.assertEqual(ids["cavs.selftest.flipped-bit"]["status"], "pass")
        total = ids["cavs.total"]
        self.assertEqual(total["status"], "pass")
        self.assertEqual((total["counts"]["applicable"], total["counts"]["passed"],
                          total["counts"]["skipped_sections"]), (5, 5, 1))
        for c in checks:
            self.assertIn(c["status"], ("pass", "fail", "skip"))
            self.assertIn(c["origin"], ("guest", "host"))
            self.assertTrue(c["status"] == "pass" or c.get("reason"), c["id"])
            json.dumps(c)

    def test_guest_failure_is_named(self):
        ri = 1
        where = self.meta["records"][ri]["where"]
        ids = by_id(cavs_pack.checks(fake_guest(self.meta, {ri}), self.meta))
        c = ids["cavs.pr_false.hmac-sha1"]
        self.assertEqual(c["status"], "fail")
        self.assertIn(where, c["reason"])
        f = c["details"]["failures"][0]
        self.assertEqual(f["record"], where)
        self.assertEqual(f["lengths"]["ReturnedBits"], 80)
        self.assertNotEqual(f["expected"], f["got"])
        self.assertEqual(f["model"], "the host model agrees with the file")
        self.assertEqual(ids["cavs.total"]["status"], "fail")

    def test_interface_missing_is_a_skip(self):
        recs = [{"type": "check", "id": "cavs.interface", "status": "skip",
                 "reason": "no /sys/kernel/debug/drbg_cavp/run"}]
        ids = by_id(cavs_pack.checks(recs, self.meta))
        self.assertEqual(ids["cavs.pr_false.hmac-sha1"]["status"], "skip")
        self.assertIn("no test interface", ids["cavs.pr_false.hmac-sha1"]["reason"])
        self.assertEqual(ids["cavs.total"]["status"], "skip")
        self.assertEqual(ids["cavs.model.pr_false.hmac-sha1"]["status"], "pass")

    def test_no_guest_output_is_a_failure(self):
        ids = by_id(cavs_pack.checks([], self.meta))
        self.assertEqual(ids["cavs.pr_false.hmac-sha1"]["status"], "fail")
        self.assertEqual(ids["cavs.total"]["status"], "fail")

    def test_guest_ran_too_few(self):
        recs = [r for r in fake_guest(self.meta)]
        for r in recs:
            if r.get("type") == "cavs_section" and r["s"] == 0:
                r["passed"] -= 1
        ids = by_id(cavs_pack.checks(recs, self.meta))
        self.assertEqual(ids["cavs.pr_false.hmac-sha1"]["status"], "fail")
        self.assertIn("ran 2 of 3", ids["cavs.pr_false.hmac-sha1"]["reason"])

    def test_uncaught_selftest_fails(self):
        recs = [r for r in fake_guest(self.meta)
                if not (r.get("type") == "cavs_fail")]
        for r in recs:
            if r.get("type") == "cavs_section" and r["s"] == len(self.meta["sections"]) - 1:
                r["passed"], r["failed"] = 1, 0
        ids = by_id(cavs_pack.checks(recs, self.meta))
        self.assertEqual(ids["cavs.selftest.flipped-bit"]["status"], "fail")
        self.assertEqual(ids["cavs.total"]["status"], "fail")


def fake_answers(path, records, out2_of=None, override=None):
    """The fake device's answers file (see cavs.c) for the pack's records.
    out2_of(i, req, exp) gives (out1, out2); default: zeros and expected."""
    with open(path, "wb") as f:
        for i, (_, _, _, req, exp) in enumerate(records):
            if override and i in override:
                resp = override[i]
            else:
                o1, o2 = out2_of(i, req, exp) if out2_of else (bytes(len(exp)), exp)
                resp = cavs_pack.encode_response(0, 0, len(exp), o1, o2)
            f.write(struct.pack("<I", len(req)) + req + struct.pack("<I", len(resp)) + resp)


@unittest.skipUnless(shutil.which("gcc"), "gcc is not installed")
class GuestRunnerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.d = tempfile.mkdtemp(prefix="cavs-guest-")
        cls.exe = os.path.join(cls.d, "cavs-host")
        r = subprocess.run(["gcc", "-DCAVS_HOST_TEST", "-O2", "-Wall", "-Wextra",
                            "-Werror", "-o", cls.exe, os.path.join(GUEST, "cavs.c"),
                            os.path.join(GUEST, "report.c")],
                           capture_output=True, text=True)
        if r.returncode:
            raise AssertionError(f"cavs.c does not build for the host: {r.stderr}")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.d)

    def run_guest(self, pack, answers=None):
        env = dict(os.environ)
        env.pop("CAVS_FAKE_ANSWERS", None)
        if answers:
            env["CAVS_FAKE_ANSWERS"] = answers
        r = subprocess.run([self.exe, pack], env=env, capture_output=True, text=True,
                           timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        return [json.loads(ln) for ln in r.stdout.splitlines()]

    def test_guest_init_builds(self):
        """the guest /init (all of conformance/guest) builds as conform does"""
        srcs = sorted(os.path.join(GUEST, f) for f in os.listdir(GUEST)
                      if f.endswith(".c"))
        r = subprocess.run(["gcc", "-static", "-O2", "-Wall", "-Wextra", "-Werror",
                            "-o", os.path.join(self.d, "init")] + srcs,
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_whole_default_set(self):
        """the runner reads the whole default pack and sends every request"""
        dirs = cavs_pack.vector_dirs_from_env("")
        pack, meta = cavs_pack.prepare(dirs, os.path.join(self.d, "all"))
        with open(pack, "rb") as f:
            _, _, records = cavs_pack.read_pack(f.read())
        answers = os.path.join(self.d, "all.answers")
        # A perfect device answers the expected values; for the self-test
        # copy, the value of the record it copies.
        truth = {}
        for _, _, si, req, exp in records[:-1]:
            truth.setdefault(req, exp)
        fake_answers(answers, records,
                     out2_of=lambda i, req, exp: (bytes(len(exp)), truth[req]))
        recs = self.run_guest(pack, answers)
        done = next(r for r in recs if r["type"] == "cavs_done")
        self.assertEqual(done["records"], len(records))
        # Only the self-test's flipped bit fails.
        fails = [r for r in recs if r["type"] == "cavs_fail"]
        self.assertEqual(len(fails), 1)
        checks = by_id(cavs_pack.checks(recs, meta))
        total = checks["cavs.total"]
        self.assertEqual(total["status"], "pass", total.get("reason"))
        nist = sum(s["records"] for s in meta["sections"]
                   if s["path"].startswith("vectors/cavs/"))
        self.assertEqual(nist, 7920)
        self.assertEqual(total["details"]["by_vector_dir"]["vectors/cavs"],
                         {"applicable": 7920, "passed": 7920, "failed": 0})
        self.assertEqual(total["counts"]["passed"], total["counts"]["applicable"])
        self.assertGreater(total["counts"]["applicable"], 7920)   # + vectors/extra
        self.assertEqual(checks["cavs.selftest.flipped-bit"]["status"], "pass")
        self.assertEqual(len([c for c in checks.values()
                              if c["id"].startswith("cavs.parse.")]),
                         len(cavs.find_files(dirs)))

    def _corrupted_copy(self):
        """A pack of a copy of a NIST file with one bit of one ReturnedBits
        flipped; returns (pack, meta, records, where, byte)."""
        text = read_bytes(os.path.join(NIST, "pr_true/CTR_DRBG.rsp")).decode()
        lines = text.split("\r\n")
        no = line_of(lines, "[AES-192 use df]")
        no = line_of(lines[no:], "ReturnedBits = ", 7) + no
        value = lines[no - 1].split(" = ")[1]
        byte = 5
        flipped = bytearray(bytes.fromhex(value))
        flipped[byte] ^= 0x10
        lines[no - 1] = "ReturnedBits = " + flipped.hex()
        src = os.path.join(self.d, "corrupt")
        path = write_lines(src, "pr_true/CTR_DRBG.rsp", lines[:-1])
        count_line = max(i + 1 for i, ln in enumerate(lines[:no]) if ln.startswith("COUNT"))
        pack, meta = cavs_pack.prepare([src], os.path.join(self.d, "corrupt-out"))
        with open(pack, "rb") as f:
            _, _, records = cavs_pack.read_pack(f.read())
        return pack, meta, records, f"{path}:{count_line}", byte

    def test_flipped_bit_is_caught_and_named(self):
        """a copy with one flipped bit of ReturnedBits is named by file:line"""
        pack, meta, records, where, byte = self._corrupted_copy()
        # The model already disagrees, and says where.
        pre = by_id(cavs_pack.checks([], meta))
        m = pre["cavs.model.pr_true.ctr-aes192-df"]
        self.assertEqual(m["status"], "fail")
        self.assertIn(where, m["reason"])
        self.assertEqual(m["details"]["failures"][0]["first_difference_at"], byte)
        # A correct device (the model) through the guest runner.
        answers = os.path.join(self.d, "corrupt.answers")
        fake_answers(answers, records,
                     out2_of=lambda i, req, exp: cavs_pack.model_for_request(req))
        recs = self.run_guest(pack, answers)
        fails = [r for r in recs if r["type"] == "cavs_fail"]
        self.assertEqual(len(fails), 2)     # the corrupted record + the self-test
        checks = by_id(cavs_pack.checks(recs, meta))
        c = checks["cavs.pr_true.ctr-aes192-df"]
        self.assertEqual(c["status"], "fail")
        self.assertEqual(c["counts"], {"records": 240, "passed": 239, "failed": 1,
                                       "guest_us": c["counts"]["guest_us"]})
        self.assertIn(where, c["reason"])
        f = c["details"]["failures"][0]
        self.assertEqual(f["record"], where)
        self.assertEqual(f["first_difference_at"], byte)
        self.assertEqual(f["driver"], "drbg_pr_ctr_aes192")
        self.assertEqual(bytes.fromhex(f["expected"])[byte] ^
                         bytes.fromhex(f["got"])[byte], 0x10)
        self.assertEqual(f["model"], "the host model differs from the file too")
        self.assertNotIn("pack_mismatch", f)
        self.assertEqual(checks["cavs.pr_true.ctr-aes128-df"]["status"], "pass")
        self.assertEqual(checks["cavs.total"]["status"], "fail")

    def test_kernel_errors_and_bad_responses(self):
        src = os.path.join(self.d, "err")
        write_lines(src, "HMAC_DRBG.rsp", nist_head("no_reseed/HMAC_DRBG.rsp", 4))
        pack, meta = cavs_pack.prepare([src], os.path.join(self.d, "err-out"))
        with open(pack, "rb") as f:
            _, _, records = cavs_pack.read_pack(f.read())
        answers = os.path.join(self.d, "err.answers")
        n = len(records[1][4])
        fake_answers(answers, records, override={
            1: cavs_pack.encode_response(-22, 4, n),
            2: b"DCR0" + bytes(12),
            3: cavs_pack.encode_response(0, 0, n, bytes(n), bytes(n - 1))})
        recs = self.run_guest(pack, answers)
        fails = {r["line"]: r for r in recs if r["type"] == "cavs_fail" and r["s"] == 0}
        lines = [records[i][1] for i in (1, 2, 3)]
        self.assertEqual(sorted(fails), sorted(lines))
        self.assertEqual((fails[lines[0]]["err"], fails[lines[0]]["step"]), (-22, 4))
        self.assertEqual(fails[lines[1]]["stage"], "response")
        self.assertEqual(fails[lines[2]]["stage"], "response")
        c = by_id(cavs_pack.checks(recs, meta))["cavs.no_reseed.hmac-sha1"]
        self.assertEqual(c["counts"]["failed"], 3)
        self.assertIn("error -22 at step generate 1", c["reason"])

    def test_request_mismatch_is_reported(self):
        """the fake refuses a request other than the packed one"""
        src = os.path.join(self.d, "mm")
        write_lines(src, "HMAC_DRBG.rsp", nist_head("no_reseed/HMAC_DRBG.rsp", 2))
        pack, meta = cavs_pack.prepare([src], os.path.join(self.d, "mm-out"))
        with open(pack, "rb") as f:
            _, _, records = cavs_pack.read_pack(f.read())
        fi, line, si, req, exp = records[0]
        records[0] = (fi, line, si, req[:-1] + bytes([req[-1] ^ 1]), exp)
        answers = os.path.join(self.d, "mm.answers")
        fake_answers(answers, records)
        recs = self.run_guest(pack, answers)
        bad = [r for r in recs if r["type"] == "cavs_fail" and r.get("stage")]
        self.assertEqual([(r["line"], r["stage"], r["err"]) for r in bad],
                         [(line, "write", -22)])

    def test_missing_interface_and_bad_pack(self):
        src = os.path.join(self.d, "mi")
        write_lines(src, "HMAC_DRBG.rsp", nist_head("no_reseed/HMAC_DRBG.rsp", 1))
        pack, meta = cavs_pack.prepare([src], os.path.join(self.d, "mi-out"))
        recs = self.run_guest(pack)             # no answers: no device
        self.assertEqual([(r["id"], r["status"]) for r in recs],
                         [("cavs.interface", "skip")])
        self.assertIn("drbg_cavp/run", recs[0]["reason"])
        with open(pack, "rb") as f:
            data = f.read()
        for cut, why in ((len(data) - 3, "trailer"), (100, "cut off"),
                         (3, "not a CAVS pack")):
            bad = os.path.join(self.d, f"cut{cut}.pack")
            with open(bad, "wb") as f:
                f.write(data[:cut])
            recs = self.run_guest(bad)
            self.assertEqual([(r["id"], r["status"]) for r in recs],
                             [("cavs.pack", "fail")], cut)
            self.assertIn(why, recs[0]["reason"])
        recs = self.run_guest(os.path.join(self.d, "absent.pack"))
        self.assertIn("cannot read", recs[0]["reason"])


class GenVectorsTest(unittest.TestCase):
    def test_committed_extra_vectors_are_reproducible(self):
        """vectors/extra is byte for byte what gen_vectors.py makes"""
        d = tempfile.mkdtemp(prefix="cavs-gen-")
        self.addCleanup(shutil.rmtree, d)
        made = gen_vectors.generate(d)
        committed = sorted(os.path.relpath(p, EXTRA) for p, _, _ in
                           cavs.find_files([EXTRA]))
        self.assertEqual(sorted(os.path.relpath(p, d) for p in made), committed)
        for rel in committed:
            with open(os.path.join(d, rel), "rb") as a, \
                    open(os.path.join(EXTRA, rel), "rb") as b:
                self.assertEqual(a.read(), b.read(), f"vectors/extra/{rel} differs: "
                                 "run conformance/host/gen_vectors.py vectors/extra")
        size = sum(os.path.getsize(os.path.join(EXTRA, r)) for r in committed)
        self.assertLess(size, 1 << 20)

    def test_extra_vectors_cover_the_lengths(self):
        outs, empties, kinds, cores = set(), set(), set(), set()
        for path, _, _ in cavs.find_files([EXTRA]):
            p = cavs.parse_file(path)
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
        self.assertEqual(kinds, set(cavs.KINDS))
        self.assertEqual(cores, set(drbg_model.CORES))
        self.assertLessEqual({"EntropyInput", "Nonce", "PersonalizationString",
                              "AdditionalInput"}, empties)


if __name__ == "__main__":
    unittest.main()
