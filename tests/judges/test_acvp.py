# SPDX-License-Identifier: GPL-2.0-only
"""ACVP on the host: the registration derived from the kernel's sources,
the strict reading of ACVP files, the work the guest gets, the guest's
runner (conformance/guest/acvp.c built with -DACVP_HOST_TEST against a
fake test interface and OpenSSL's SHA3-256), and the judge.

The verbs and the book's part are in tests/stages/test_acvp.py."""

import copy
import errno
import json
import os
import shutil
import struct
import subprocess
import tempfile
import unittest

from harness.judges import (acvp_judge, acvp_kernel, acvp_pack, acvp_parse, acvp_reg,
                            acvp_work, cavs_pack)

from .acvp_files import (ACVP, CONFIG, GUEST, derive, entries_of, fake_results, small_set,
                         tree_copy)

LIMITS = {"max_bits": 65536, "returned_max": 4096, "out_max_bits": 8 * 262144,
          "sha3_max": 65536}


class DerivationTest(unittest.TestCase):
    def test_instances_and_limits_come_from_the_sources(self):
        """22 instances, strengths, the interface's limits, the hash's driver"""
        kernel, reg, der, _ = derive()
        d = kernel["drbg"]
        self.assertEqual(len(d["instances"]), 22)
        self.assertEqual(d["instances"][0], "drbg_pr_ctr_aes128")
        self.assertEqual(d["max_request_bytes"], 65536)
        self.assertEqual(kernel["interface"]["max_out"], 262144)
        self.assertEqual(kernel["interface"]["max_request"], 1 << 20)
        self.assertEqual(kernel["sha3"]["driver"], "sha3-256-generic")
        self.assertEqual(kernel["sha3"]["update_max_bytes"], (1 << 32) - 1)
        self.assertRegex(kernel["sources"]["ctr_df"], r"^crypto/drbg\.c:\d+$")
        algs = {(a["algorithm"], a["revision"]) for a in acvp_reg.algorithms(reg)}
        self.assertEqual(algs, {(a, r) for a in ("hashDRBG", "hmacDRBG", "ctrDRBG")
                                for r in ("1.0", "SP800-90Ar1")} |
                         {("SHA3-256", "1.0"), ("SHA3-256", "2.0")})
        sha3 = acvp_reg.find(reg, "SHA3-256", "2.0")
        self.assertEqual(sha3["performLargeDataTest"], [1, 2])
        self.assertEqual(sha3["messageLength"], [{"min": 0, "max": 65536, "increment": 8}])

    def test_capabilities_follow_the_cores(self):
        """modes, df, counter and lengths of the capabilities"""
        _, reg, der, _ = derive()
        h = acvp_reg.find(reg, "hashDRBG", "1.0")
        self.assertEqual([c["mode"] for c in h["capabilities"]],
                         ["SHA-1", "SHA2-384", "SHA2-512", "SHA2-256"])
        self.assertEqual(h["capabilities"][0]["entropyInputLen"][0]["min"], 128)
        self.assertEqual(h["capabilities"][0]["returnedBitsLen"], 4096)
        c = acvp_reg.find(reg, "ctrDRBG", "SP800-90Ar1")["capabilities"][1]
        self.assertEqual((c["mode"], c["derFuncEnabled"], c["counterFieldLen"]),
                         ("AES-192", True, 128))
        self.assertEqual(c["returnedBitsLen"], [{"min": 128, "max": 4096, "increment": 8}])
        bounds = next(x for x in der["drbg"] if x["core"] == "sha1")["bounds"]
        self.assertEqual(bounds["returnedBitsLen"]["max_by"], "ACVP")
        self.assertEqual(bounds["entropyInputLen"]["min_by"], "both")

    def test_a_core_removed_is_not_registered(self):
        """drop the sha1 core from drbg_cores[]: 20 instances, no SHA-1 mode"""
        with tempfile.TemporaryDirectory() as tmp:
            old = ('\t{\n\t\t.flags = DRBG_HASH | DRBG_STRENGTH128,\n'
                   '\t\t.statelen = 55, /* 440 bits */\n\t\t.blocklen_bytes = 20,\n'
                   '\t\t.cra_name = "sha1",\n\t\t.backend_cra_name = "sha1",\n'
                   '\t}, {\n')
            src = tree_copy(tmp, {"crypto/drbg.c": (old, "\t{\n")})
            kernel, reg, _, _ = derive(src)
        self.assertEqual(len(kernel["drbg"]["instances"]), 20)
        modes = [c["mode"] for c in acvp_reg.find(reg, "hashDRBG", "1.0")["capabilities"]]
        self.assertNotIn("SHA-1", modes)

    def test_hash_named_by_its_driver(self):
        """the glue names sha3-256-generic, as the series does (issue 16,
        item 10): the same hash, the same registration"""
        with tempfile.TemporaryDirectory() as tmp:
            src = tree_copy(tmp, {"crypto/jitterentropy-kcapi.c": (
                '"sha3-256"', '"sha3-256-generic"')})
            kernel, reg, _, _ = derive(src)
        self.assertEqual(kernel["sha3"]["name"], "sha3-256")
        self.assertEqual(kernel["sha3"]["driver"], "sha3-256-generic")
        self.assertIsNotNone(acvp_reg.find(reg, "SHA3-256", "2.0"))

    def test_a_core_not_built_is_not_registered(self):
        """CONFIG_CRYPTO_DRBG_HASH=n: no hashDRBG, 14 instances"""
        kernel, reg, _, _ = derive(cfg=config_without("CONFIG_CRYPTO_DRBG_HASH"))
        self.assertEqual(len(kernel["drbg"]["instances"]), 14)
        self.assertIsNone(acvp_reg.find(reg, "hashDRBG", "1.0"))

    def test_changed_code_stops_the_derivation(self):
        """a CTR_DRBG without drbg_ctr_df() on seeding is not guessed"""
        with tempfile.TemporaryDirectory() as tmp:
            src = tree_copy(tmp, {"crypto/drbg.c": ("ret = drbg_ctr_df(drbg, df_data",
                                                    "ret = drbg_ctr_nodf(drbg, df_data")})
            with self.assertRaisesRegex(acvp_kernel.KernelSourceError,
                                        r"^crypto/drbg\.c: no Block_Cipher_df"):
                derive(src)

    def test_a_strength_acvp_disagrees_with_stops_it(self):
        """a SHA-1 core claiming 256 bits contradicts ACVP's table"""
        with tempfile.TemporaryDirectory() as tmp:
            src = tree_copy(tmp, {"crypto/drbg.c": (
                ".flags = DRBG_HASH | DRBG_STRENGTH128,",
                ".flags = DRBG_HASH | DRBG_STRENGTH256,")})
            with self.assertRaisesRegex(acvp_reg.SpecError, "sha1 has 256 bits"):
                derive(src)

    def test_no_af_alg_hash_no_sha3(self):
        """without CONFIG_CRYPTO_USER_API_HASH the hash is not registered"""
        _, reg, der, _ = derive(cfg=config_without("CONFIG_CRYPTO_USER_API_HASH"))
        self.assertIsNone(acvp_reg.find(reg, "SHA3-256", "2.0"))
        self.assertIn("CONFIG_CRYPTO_USER_API_HASH", der["notes"][0])


def config_without(option):
    return [c for c in CONFIG if not c.startswith(option + "=")] + [f"# {option} is not set"]


class ClaimTest(unittest.TestCase):
    def setUp(self):
        self.kernel, self.reg, self.der, _ = derive()

    def parsed(self, name):
        known = {(a["algorithm"], a["revision"]) for a in acvp_reg.algorithms(self.reg)}
        return acvp_parse.parse_prompt(os.path.join(ACVP, name, "prompt.json"), known,
                                       LIMITS)

    def test_hash_drbg_claims_the_kernels_modes_only(self):
        vs = self.parsed("hashDRBG-1.0")
        obj = acvp_reg.find(self.reg, "hashDRBG", "1.0")
        claimed = {g["mode"] for g in vs["groups"] if acvp_reg.claim_drbg(obj, g) is None}
        self.assertEqual(claimed, {"SHA-1", "SHA2-256", "SHA2-384", "SHA2-512"})
        g = next(g for g in vs["groups"] if g["mode"] == "SHA2-224")
        self.assertIn("drbg_cores[] has no such hashDRBG core", acvp_reg.claim_drbg(obj, g))

    def test_ctr_without_df_and_tdes_are_not_claimed(self):
        vs = self.parsed("ctrDRBG-SP800-90Ar1")
        obj = acvp_reg.find(self.reg, "ctrDRBG", "SP800-90Ar1")
        why = {(g["mode"], g["derFunc"]): acvp_reg.claim_drbg(obj, g) for g in vs["groups"]}
        self.assertIsNone(why[("AES-256", True)])
        self.assertIn("without a derivation function", why[("AES-256", False)])
        self.assertIn("mode TDES", why[("TDES", True)])

    def test_sha3_claims_whole_bytes_and_fitting_ldt(self):
        vs = self.parsed("SHA3-256-2.0")
        obj = acvp_reg.find(self.reg, "SHA3-256", "2.0")
        aft, mct, ldt = vs["groups"]
        ok = [t for t in aft["tests"] if acvp_reg.claim_sha3(obj, "AFT", t) is None]
        self.assertEqual([t["len"] % 8 for t in ok], [0] * len(ok))
        self.assertEqual(len(ok), sum(1 for t in aft["tests"] if t["len"] % 8 == 0))
        self.assertIsNone(acvp_reg.claim_sha3(obj, "MCT", mct["tests"][0], "standard"))
        sizes = {t["largeMsg"]["fullLength"] // 8 >> 30:
                 acvp_reg.claim_sha3(obj, "LDT", t) for t in ldt["tests"]}
        self.assertEqual({k for k, v in sizes.items() if v is None}, {1, 2})
        self.assertIn("unsigned int len", sizes[4])


class ParseErrorTest(unittest.TestCase):
    """Bad input: one line, naming the file and the JSON path."""

    KNOWN = {("hashDRBG", "1.0"), ("SHA3-256", "2.0")}

    def error(self, text_or_obj, expect_where, expect_what):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "prompt.json")
            with open(path, "w") as f:
                f.write(text_or_obj if isinstance(text_or_obj, str) else
                        json.dumps(text_or_obj, indent=1))
            with self.assertRaises(acvp_parse.AcvpError) as cm:
                acvp_parse.parse_prompt(path, self.KNOWN, LIMITS)
        msg = str(cm.exception)
        self.assertNotIn("\n", msg)
        self.assertTrue(msg.startswith(path + ": " + expect_where), msg)
        self.assertIn(expect_what, msg)

    def test_malformed_json(self):
        text = json.dumps(small_set("hashDRBG-1.0", [1], 1), indent=1)
        bad = text.replace('"nonce":', '"nonce"', 1)
        self.error(bad, "$.testGroups[0].tests[0].nonce (line", "malformed JSON")

    def test_truncated_file(self):
        text = json.dumps(small_set("hashDRBG-1.0", [1, 2], 2), indent=1)
        self.error(text[:len(text) // 2], "$.testGroups[", "truncated")

    def test_empty_file(self):
        self.error("", "$", "empty")

    def test_unknown_algorithm_and_revision(self):
        p = small_set("hashDRBG-1.0", [1], 1)
        self.error(dict(p, algorithm="quantumDRBG"), "$.algorithm", "unknown algorithm")
        self.error(dict(p, revision="2.0"), "$.revision", "unknown revision '2.0'")

    def test_missing_field(self):
        p = small_set("hashDRBG-1.0", [1], 2)
        del p["testGroups"][0]["tests"][1]["persoString"]
        self.error(p, "$.testGroups[0].tests[1].persoString", "missing")

    def test_lengths_out_of_bounds(self):
        p = small_set("hashDRBG-1.0", [1], 1)
        p["testGroups"][0]["returnedBitsLen"] = 0
        self.error(p, "$.testGroups[0].returnedBitsLen", "zero-length generate")
        p["testGroups"][0]["returnedBitsLen"] = 8192
        self.error(p, "$.testGroups[0].returnedBitsLen", "ACVP allows 0 to 4096")
        p = small_set("SHA3-256-2.0", [1], 1)
        p["testGroups"][0]["tests"][0]["len"] = 70000
        self.error(p, "$.testGroups[0].tests[0].len", "ACVP allows 0 to 65536")

    def test_value_not_of_its_groups_length(self):
        p = small_set("hashDRBG-1.0", [1], 1)
        p["testGroups"][0]["tests"][0]["nonce"] += "00"
        self.error(p, "$.testGroups[0].tests[0].nonce", "the length says 160 bits")

    def test_other_input_out_of_order(self):
        p = small_set("hashDRBG-1.0", [13], 1)
        oi = p["testGroups"][0]["tests"][0]["otherInput"]
        oi.append(oi.pop(0))
        self.error(p, "$.testGroups[0].tests[0].otherInput", "expects reSeed, generate")

    def test_duplicate_test_case(self):
        p = small_set("hashDRBG-1.0", [1], 2)
        p["testGroups"][0]["tests"][1]["tcId"] = p["testGroups"][0]["tests"][0]["tcId"]
        self.error(p, "$.testGroups[0].tests[1].tcId", "also at")

    def test_nested_deep(self):
        """100,000 arrays deep: one line, not Python's RecursionError"""
        self.error('{"vsId": ' + "[" * 100000 + "]" * 100000 + "}", "line 1",
                   "arrays and objects nested more than 64 deep")

    def test_number_of_thousands_of_digits(self):
        """5,000 digits: one line naming where, not int()'s ValueError"""
        self.error('{\n "vsId": ' + "9" * 5000 + "\n}", "$.vsId (line 2 column 10)",
                   "a number of 5000 digits: expected ACVP's numbers")

    def test_duplicate_key(self):
        text = json.dumps(small_set("hashDRBG-1.0", [1], 2), indent=1)
        at = text.index('"nonce"')
        bad = text[:at] + '"nonce": "00",\n' + text[at:]
        self.error(bad, "$.testGroups[0].tests[0] (line", "the key 'nonce' is given "
                   "twice in this object: expected each key once")

    def test_fifo_and_device_are_refused_unread(self):
        import threading
        with tempfile.TemporaryDirectory() as tmp:
            fifo = os.path.join(tmp, "prompt.json")
            os.mkfifo(fifo)
            out = {}

            def parse(path):
                try:
                    acvp_parse.parse_prompt(path, self.KNOWN, LIMITS)
                except acvp_parse.AcvpError as e:
                    out[path] = str(e)

            for path in (fifo, "/dev/zero"):
                t = threading.Thread(target=parse, args=(path,), daemon=True)
                t.start()
                t.join(30)
                self.assertFalse(t.is_alive(), f"{path}: still reading after 30 s")
            self.assertEqual(out, {
                fifo: f"{fifo}: $: a FIFO: expected a regular JSON file",
                "/dev/zero": "/dev/zero: $: a device: expected a regular JSON file"})

    def test_path_at(self):
        text = '{"a": [1, {"b": {"c": [0, 0, x'
        self.assertEqual(acvp_parse.path_at(text, len(text) - 1), "$.a[1].b.c[2]")


class WorkTest(unittest.TestCase):
    """The guest's work, the host model's answers, and the judge."""

    @classmethod
    def setUpClass(cls):
        cls.kernel, cls.reg, cls.der, _ = derive()
        known = {(a["algorithm"], a["revision"]) for a in acvp_reg.algorithms(cls.reg)}
        cls.vs = acvp_parse.parse_prompt(os.path.join(ACVP, "hashDRBG-1.0", "prompt.json"),
                                         known, LIMITS)
        cls.exp = acvp_parse.parse_expected(
            os.path.join(ACVP, "hashDRBG-1.0", "expectedResults.json"), cls.vs)
        disp, tests = acvp_parse.parse_validation(
            os.path.join(ACVP, "hashDRBG-1.0", "validation.json"))
        cls.work = acvp_work.Work(cls.reg, cls.der, cls.kernel)
        cls.work.add_set(cls.vs, "hashDRBG-1.0", cls.exp,
                         {"disposition": disp, "tests": tests})
        cls.work.add_probes()
        cls.meta = cls.work.meta

    def test_the_model_gives_the_servers_answers(self):
        """every claimed hashDRBG 1.0 test case: model == expectedResults"""
        ids = entries_of(self.meta, set="hashDRBG-1.0")
        self.assertEqual(len(ids), 120)
        bad = [self.meta["entries"][i]["tcId"] for i in ids
               if self.meta["entries"][i]["model"] != self.meta["entries"][i]["expected"]]
        self.assertEqual(bad, [])

    def test_requests_follow_the_groups(self):
        """PR groups use drbg_pr_* and the PR flag, the others an explicit reseed"""
        for i in entries_of(self.meta, set="hashDRBG-1.0")[::15]:
            e = self.meta["entries"][i]
            g = next(g for g in self.vs["groups"] if g["tgId"] == e["tgId"])
            r = cavs_pack.decode_request(self.work.entries[i][1])
            self.assertEqual(r["driver"].startswith("drbg_pr_"), g["predResistance"])
            self.assertEqual(r["flags"], cavs_pack.FLAG_PR if g["predResistance"]
                             else cavs_pack.FLAG_RESEED)
            self.assertEqual(r["out_len"] * 8, g["returnedBitsLen"])

    def test_a_correct_answer_passes_and_agrees_with_the_server(self):
        checks, docs = acvp_judge.judge(self.meta, fake_results(self.meta))
        by = {c.id: c for c in checks}
        self.assertEqual([c.id for c in checks if c.status == "fail"], [])
        self.assertEqual(docs["hashDRBG-1.0"]["validation"]["disposition"], "passed")
        self.assertEqual(by["acvp.hashdrbg-1-0.validation"].details["agrees_with_server"],
                         True)
        self.assertEqual(by["acvp.hashdrbg-1-0.tg2"].status, "skip")
        self.assertIn("no such hashDRBG core", by["acvp.hashdrbg-1-0.tg2"].reason)
        resp = docs["hashDRBG-1.0"]["response"]
        self.assertEqual(resp["testGroups"][0]["tests"][0]["returnedBits"],
                         self.exp[1].hex().upper())
        self.assertEqual(len(resp["testGroups"]), 8)
        self.assertEqual(len([c for c in checks if c.id.startswith("acvp.registration.")]),
                         24)

    def test_a_wrong_answer_fails_the_group_and_the_validation(self):
        i = entries_of(self.meta, set="hashDRBG-1.0")[3]
        checks, docs = acvp_judge.judge(self.meta, fake_results(self.meta, wrong={i}))
        failed = sorted(c.id for c in checks if c.status == "fail")
        self.assertEqual(failed, ["acvp.hashdrbg-1-0.tg1", "acvp.hashdrbg-1-0.validation"])
        val = docs["hashDRBG-1.0"]["validation"]
        self.assertEqual(val["disposition"], "failed")
        self.assertEqual([t["tcId"] for t in val["tests"] if t["result"] == "failed"],
                         [self.meta["entries"][i]["tcId"]])

    def test_a_server_test_case_neither_answered_nor_not_applicable_disagrees(self):
        meta = copy.deepcopy(self.meta)
        s = next(s for s in meta["sets"] if s["name"] == "hashDRBG-1.0")
        s["server"]["tests"][9999] = "passed"
        checks, _ = acvp_judge.judge(meta, fake_results(meta))
        c = next(c for c in checks if c.id == "acvp.hashdrbg-1-0.validation")
        self.assertEqual(c.status, "fail")
        self.assertIn("neither answered nor listed as not applicable (tcId 9999)", c.reason)
        self.assertIs(c.details["agrees_with_server"], False)

    def test_a_missing_answer_writes_no_response(self):
        i = entries_of(self.meta, set="hashDRBG-1.0")[0]
        checks, docs = acvp_judge.judge(self.meta, fake_results(self.meta, missing={i}))
        self.assertIsNone(docs["hashDRBG-1.0"]["response"])
        c = next(c for c in checks if c.id == "acvp.hashdrbg-1-0.tg1")
        self.assertIn("no answer from the guest", c.reason)

    def test_a_probe_the_kernel_takes_wrongly_fails(self):
        p = next(p for p in self.meta["probes"] if p["id"].endswith("out-over"))
        recs = [r for r in fake_results(self.meta) if r.get("i") != p["entry"]]
        recs.append({"type": "acvp", "i": p["entry"], "wrote": 100, "err": 0, "step": 0})
        checks, _ = acvp_judge.judge(self.meta, recs)
        failed = [c for c in checks if c.status == "fail"]
        self.assertEqual([c.id for c in failed], [f"acvp.registration.{p['driver']}"])
        self.assertIn("out-over", failed[0].reason)


@unittest.skipUnless(shutil.which("gcc") and os.path.exists("/usr/include/openssl/evp.h"),
                     "gcc or OpenSSL's headers (libssl-dev) are not installed")
class GuestRunnerTest(unittest.TestCase):
    """conformance/guest/acvp.c on the host, against a fake interface."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.exe = os.path.join(cls.tmp, "acvp")
        r = subprocess.run(["gcc", "-DACVP_HOST_TEST", "-DDRBG_DEV_FAKE", "-DKCAPI_NONE",
                            "-O2", "-Wall",
                            "-Wextra", "-Werror", "-o", cls.exe]
                           + [os.path.join(GUEST, f) for f in
                              ("acvp.c", "drbg_dev.c", "kcapi_drbg.c", "report.c", "util.c")]
                           + ["-lcrypto"], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def run_pack(self, entries):
        pack = acvp_pack.write_pack(os.path.join(self.tmp, "pack"), entries)
        answers = bytearray()
        for kind, payload in entries:
            if kind not in (acvp_pack.DRBG, acvp_pack.DRBG_PROBE):
                continue
            out = struct.unpack_from("<I", payload, 12)[0]
            if len(payload) > cavs_pack.MAX_REQUEST or not 1 <= out <= cavs_pack.MAX_OUT:
                continue
            o1, o2 = cavs_pack.model_for_request(payload) if out <= 4096 else \
                (bytes(out), bytes(out))
            resp = cavs_pack.encode_response(0, 0, out, o1, o2)
            answers += struct.pack("<I", len(payload)) + payload + \
                struct.pack("<I", len(resp)) + resp
        with open(os.path.join(self.tmp, "answers"), "wb") as f:
            f.write(answers)
        r = subprocess.run([self.exe, pack], capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, DRBG_FAKE_ANSWERS=os.path.join(
                               self.tmp, "answers")))
        self.assertEqual(r.returncode, 0, r.stderr)
        return [json.loads(ln) for ln in r.stdout.splitlines()]

    def test_answers_are_the_models(self):
        """DRBG outputs, digests, both MCT versions and a large message"""
        d = "sha3-256-generic"
        drbg = cavs_pack.encode_request("drbg_nopr_hmac_sha256", cavs_pack.FLAG_RESEED, 96,
                                        [bytes([i]) * (i + 16) for i in range(9)])
        entries = [(acvp_pack.DRBG, drbg), acvp_pack.hash_entry(d, b""),
                   acvp_pack.hash_entry(d, bytes(range(256)) * 9),
                   acvp_pack.mct_entry(d, "standard", b"\x01" * 32),
                   acvp_pack.mct_entry(d, "alternate", b"\x02" * 20),
                   acvp_pack.mct_entry(d, "alternate", b"\x03" * 40),
                   acvp_pack.ldt_entry(d, b"\xde\x26\x01", 3 * (1 << 20) + 5)]
        recs = self.run_pack(entries)
        self.assertEqual(recs[-1]["type"], "acvp_done")
        got = {r["i"]: r for r in recs if r.get("type") == "acvp"}
        for i, (kind, payload) in enumerate(entries):
            want = acvp_pack.model_answer(kind, payload)
            key = {acvp_pack.DRBG: "out", acvp_pack.HASH_MCT: "mds"}.get(kind, "md")
            want = b"".join(want).hex() if isinstance(want, list) else want.hex()
            self.assertEqual(got[i].get(key), want, f"entry {i} ({acvp_pack.KINDS[kind]})")

    def test_refused_requests_are_reported(self):
        """a probe the interface refuses: its write() error, not a crash"""
        s = [b"e" * 32, b"n" * 16] + [b""] * 7
        entries = [acvp_pack.drbg_entry("drbg_nopr_sha256", 0, 0, s, probe=True),
                   acvp_pack.drbg_entry("drbg_nopr_sha256", 0, 262145, s, probe=True),
                   acvp_pack.drbg_entry("drbg_nopr_sha256", 0, 64,
                                        s[:2] + [b"p" * (1 << 20)] + s[3:], probe=True),
                   acvp_pack.drbg_entry("drbg_nopr_sha256", 0, 64, s, probe=True)]
        got = {r["i"]: r for r in self.run_pack(entries) if r.get("type") == "acvp"}
        self.assertEqual((got[0]["stage"], got[0]["err"]), ("write", -errno.EINVAL))
        self.assertEqual((got[1]["stage"], got[1]["err"]), ("write", -errno.EINVAL))
        self.assertEqual((got[2]["stage"], got[2]["err"]), ("write", -errno.EMSGSIZE))
        self.assertEqual((got[3]["wrote"], got[3]["err"]), (len(entries[3][1]), 0))

    def test_a_cut_pack_is_refused_whole(self):
        pack = acvp_pack.write_pack(os.path.join(self.tmp, "cut"),
                                    [acvp_pack.hash_entry("sha3-256-generic", b"abc")])
        with open(pack, "rb") as f:
            data = f.read()
        with open(pack, "wb") as f:
            f.write(data[:-3])
        r = subprocess.run([self.exe, pack], capture_output=True, text=True, timeout=60)
        recs = [json.loads(ln) for ln in r.stdout.splitlines()]
        self.assertEqual([(x["id"], x["status"]) for x in recs], [("acvp.pack", "fail")])


class PackTest(unittest.TestCase):
    def test_round_trip(self):
        entries = [acvp_pack.hash_entry("sha3-256-generic", b"xyz"),
                   acvp_pack.ldt_entry("sha3-256-generic", b"ab", 5 << 32)]
        with tempfile.TemporaryDirectory() as tmp:
            path = acvp_pack.write_pack(os.path.join(tmp, "p"), entries)
            with open(path, "rb") as f:
                back = acvp_pack.read_pack(f.read())
        self.assertEqual([(k, p) for k, _, p in back], entries)
        self.assertEqual(acvp_pack.decode_entry(*entries[1])["full"], 5 << 32)

    def test_mct_alternate_pads_and_cuts(self):
        """the alternate MCT hashes seed-length messages"""
        import hashlib
        seed = b"\x07" * 40
        first = acvp_pack.sha3_mct("sha3-256-generic", 1, seed, outer=1, inner=2)[0]
        md1 = hashlib.sha3_256(seed).digest()
        self.assertEqual(first, hashlib.sha3_256(md1 + bytes(8)).digest())


if __name__ == "__main__":
    unittest.main()
