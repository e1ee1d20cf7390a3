# SPDX-License-Identifier: GPL-2.0-only
"""The CAVS pack, the guest runner and the checks on the host.

- The request layout is the interface's; the pack round-trips.
- The guest runner (conformance/guest/cavs.c, built with -DCAVS_HOST_TEST
  against drbg_dev.c's fake device) reads a pack made by cavs_pack.prepare(), sends
  exactly the packed requests and reports what the device answers;
  cavs_judge.checks() turns that into the report's checks.
- A copy of a record with one flipped bit of ReturnedBits is caught and
  named by file:line, by the model and through the guest runner.

The parser and the generated vectors are in test_cavs.py.
"""

import json
import os
import shutil
import struct
import subprocess
import tempfile
import unittest

from harness.base import guest
from harness.judges import cavs_judge, cavs_pack, cavs_parse

from .cavs_files import EXTRA, GUEST, NIST, by_id, fake_guest, line_of, nist_head, \
    read_bytes, write_lines


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
            p = cavs_parse.parse_file(os.path.join(NIST, rel))
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
            for r in cavs_parse.parse_file(fpath).records:
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
        checks = by_id(cavs_judge.checks(fake_guest(meta), meta))
        c = checks["cavs.parse.v-hmac_drbg"]
        self.assertEqual(c.status, "fail")
        self.assertRegex(c.reason, r"HMAC_DRBG.rsp:\d+: ReturnedBits of 262145 "
                         r"bytes: the test interface takes 1 to 262144")

    def test_missing_vector_dir(self):
        _, meta = cavs_pack.prepare([os.path.join(self.d, "nope")],
                                    os.path.join(self.d, "o"))
        checks = cavs_judge.checks(fake_guest(meta), meta)
        self.assertTrue(any(c.id.startswith("cavs.parse.") and c.status == "fail"
                            and "no such directory" in c.reason for c in checks))
        self.assertEqual(by_id(checks)["cavs.total"].status, "fail")


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
        checks = cavs_judge.checks(fake_guest(self.meta), self.meta)
        self.assertEqual([c.id for c in checks if c.status == "fail"], [])
        ids = by_id(checks)
        self.assertEqual(ids["cavs.pr_false.hmac-sha1"].counts["passed"], 3)
        # The same kind and section from a later file gets the file's slug.
        self.assertEqual(ids["cavs.pr_false.hmac-sha1.v-b-hmac_drbg"].counts["passed"],
                         2)
        self.assertEqual(ids["cavs.model.pr_false.hmac-sha1"].status, "pass")
        self.assertEqual(ids["cavs.pr_true.ctr-3keytdea-df"].status, "skip")
        self.assertIn("TDEA", ids["cavs.pr_true.ctr-3keytdea-df"].reason)
        self.assertEqual(ids["cavs.selftest.flipped-bit"].status, "pass")
        total = ids["cavs.total"]
        self.assertEqual(total.status, "pass")
        self.assertEqual((total.counts["applicable"], total.counts["passed"],
                          total.counts["skipped_sections"]), (5, 5, 1))
        for c in checks:
            self.assertIn(c.status, ("pass", "fail", "skip"))
            self.assertIn(c.origin, ("guest", "host"))
            self.assertTrue(c.status == "pass" or c.reason, c.id)
            json.dumps(c.to_dict())

    def test_guest_failure_is_named(self):
        ri = 1
        where = self.meta["records"][ri]["where"]
        ids = by_id(cavs_judge.checks(fake_guest(self.meta, {ri}), self.meta))
        c = ids["cavs.pr_false.hmac-sha1"]
        self.assertEqual(c.status, "fail")
        self.assertIn(where, c.reason)
        f = c.details["failures"][0]
        self.assertEqual(f["record"], where)
        self.assertEqual(f["lengths"]["ReturnedBits"], 80)
        self.assertNotEqual(f["expected"], f["got"])
        self.assertEqual(f["model"], "the host model agrees with the file")
        self.assertEqual(ids["cavs.total"].status, "fail")

    def test_interface_missing_fails(self):
        """the test kernel is built with the interface: its absence is a fault"""
        recs = [{"type": "check", "id": "cavs.interface", "status": "skip",
                 "reason": "no /sys/kernel/debug/drbg_cavp/run"}]
        ids = by_id(cavs_judge.checks(recs, self.meta))
        c = ids["cavs.pr_false.hmac-sha1"]
        self.assertEqual(c.status, "fail")
        self.assertIn("no CAVS interface", c.reason)
        self.assertIn("no /sys/kernel/debug/drbg_cavp/run", c.reason)
        self.assertEqual(ids["cavs.selftest.flipped-bit"].status, "fail")
        self.assertEqual(ids["cavs.total"].status, "fail")
        self.assertIn("no CAVS interface", ids["cavs.total"].reason)
        self.assertEqual(ids["cavs.model.pr_false.hmac-sha1"].status, "pass")

    def test_no_guest_output_is_a_failure(self):
        ids = by_id(cavs_judge.checks([], self.meta))
        self.assertEqual(ids["cavs.pr_false.hmac-sha1"].status, "fail")
        self.assertEqual(ids["cavs.total"].status, "fail")

    def test_guest_ran_too_few(self):
        recs = [r for r in fake_guest(self.meta)]
        for r in recs:
            if r.get("type") == "cavs_section" and r["s"] == 0:
                r["passed"] -= 1
        ids = by_id(cavs_judge.checks(recs, self.meta))
        self.assertEqual(ids["cavs.pr_false.hmac-sha1"].status, "fail")
        self.assertIn("ran 2 of 3", ids["cavs.pr_false.hmac-sha1"].reason)

    def test_uncaught_selftest_fails(self):
        recs = [r for r in fake_guest(self.meta)
                if not (r.get("type") == "cavs_fail")]
        for r in recs:
            if r.get("type") == "cavs_section" and r["s"] == len(self.meta["sections"]) - 1:
                r["passed"], r["failed"] = 1, 0
        ids = by_id(cavs_judge.checks(recs, self.meta))
        self.assertEqual(ids["cavs.selftest.flipped-bit"].status, "fail")
        self.assertEqual(ids["cavs.total"].status, "fail")


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
        r = subprocess.run(["gcc", "-DCAVS_HOST_TEST", "-DDRBG_DEV_FAKE", "-DKCAPI_NONE",
                            "-O2", "-Wall",
                            "-Wextra", "-Werror", "-o", cls.exe]
                           + [os.path.join(GUEST, f) for f in
                              ("cavs.c", "drbg_dev.c", "kcapi_drbg.c", "report.c", "util.c")],
                           capture_output=True, text=True)
        if r.returncode:
            raise AssertionError(f"cavs.c does not build for the host: {r.stderr}")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.d)

    def run_guest(self, pack, answers=None):
        env = dict(os.environ)
        env.pop("DRBG_FAKE_ANSWERS", None)
        if answers:
            env["DRBG_FAKE_ANSWERS"] = answers
        r = subprocess.run([self.exe, pack], env=env, capture_output=True, text=True,
                           timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        return [json.loads(ln) for ln in r.stdout.splitlines()]

    def test_guest_init_builds(self):
        """the guest /init (all of conformance/guest) builds as conform does"""
        init = guest.build(os.path.join(self.d, "guest"))
        self.assertTrue(os.access(init, os.X_OK), init)
        self.assertEqual(os.path.dirname(init), os.path.join(self.d, "guest"))

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
        checks = by_id(cavs_judge.checks(recs, meta))
        total = checks["cavs.total"]
        self.assertEqual(total.status, "pass", total.reason)
        nist = sum(s["records"] for s in meta["sections"]
                   if s["path"].startswith("vectors/cavs/"))
        self.assertEqual(nist, 7920)
        self.assertEqual(total.details["by_vector_dir"]["vectors/cavs"],
                         {"applicable": 7920, "passed": 7920, "failed": 0})
        self.assertEqual(total.counts["passed"], total.counts["applicable"])
        self.assertGreater(total.counts["applicable"], 7920)   # + vectors/extra
        self.assertEqual(checks["cavs.selftest.flipped-bit"].status, "pass")
        self.assertEqual(len([c for c in checks.values()
                              if c.id.startswith("cavs.parse.")]),
                         len(cavs_parse.find_files(dirs)))

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
        pre = by_id(cavs_judge.checks([], meta))
        m = pre["cavs.model.pr_true.ctr-aes192-df"]
        self.assertEqual(m.status, "fail")
        self.assertIn(where, m.reason)
        self.assertEqual(m.details["failures"][0]["first_difference_at"], byte)
        # A correct device (the model) through the guest runner.
        answers = os.path.join(self.d, "corrupt.answers")
        fake_answers(answers, records,
                     out2_of=lambda i, req, exp: cavs_pack.model_for_request(req))
        recs = self.run_guest(pack, answers)
        fails = [r for r in recs if r["type"] == "cavs_fail"]
        self.assertEqual(len(fails), 2)     # the corrupted record + the self-test
        checks = by_id(cavs_judge.checks(recs, meta))
        c = checks["cavs.pr_true.ctr-aes192-df"]
        self.assertEqual(c.status, "fail")
        self.assertEqual(c.counts, {"records": 240, "passed": 239, "failed": 1,
                                       "guest_us": c.counts["guest_us"]})
        self.assertIn(where, c.reason)
        f = c.details["failures"][0]
        self.assertEqual(f["record"], where)
        self.assertEqual(f["first_difference_at"], byte)
        self.assertEqual(f["driver"], "drbg_pr_ctr_aes192")
        self.assertEqual(bytes.fromhex(f["expected"])[byte] ^
                         bytes.fromhex(f["got"])[byte], 0x10)
        self.assertEqual(f["model"], "the host model differs from the file too")
        self.assertNotIn("pack_mismatch", f)
        self.assertEqual(checks["cavs.pr_true.ctr-aes128-df"].status, "pass")
        self.assertEqual(checks["cavs.total"].status, "fail")

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
        c = by_id(cavs_judge.checks(recs, meta))["cavs.no_reseed.hmac-sha1"]
        self.assertEqual(c.counts["failed"], 3)
        self.assertIn("error -22 at step generate 1", c.reason)

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


if __name__ == "__main__":
    unittest.main()
