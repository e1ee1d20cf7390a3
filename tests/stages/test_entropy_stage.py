# SPDX-License-Identifier: GPL-2.0-only
"""The verb entropy (harness/stages/entropy.py): the guest's data channel
is split by the sizes and FNV-1a hashes the guest announced, or refused;
files are not rewritten when they hold the same bytes; a source that
cannot be collected is a failed check naming why, not a crash; the verb
(which make check runs) exits 1 when our core's assessed H_I is below
what the code credits or its restart sanity check fails.
"""

import argparse
import array
import json
import os
import random
import shutil
import tempfile
import unittest
from unittest import mock

from harness.judges import entropy_collect as ec
from harness.judges import entropy_report as er
from harness.stages import check, entropy


def fnv_reference(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) % 2 ** 64
    return h


class DataChannelTest(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="entropy-stage-")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def parts(self, seq, rs):
        return {"seq": {"part": "seq", "bytes": len(seq), "ok": True,
                        "fnv64": f"{fnv_reference(seq):016x}"},
                "restart": {"part": "restart", "bytes": len(rs), "ok": True,
                            "fnv64": f"{fnv_reference(rs):016x}"}}

    def write(self, data):
        path = os.path.join(self.tmp, "data.bin")
        with open(path, "wb") as f:
            f.write(data)
        return path

    def test_fnv1a_is_fnv1a(self):
        self.assertEqual(entropy.fnv1a(b""), 0xcbf29ce484222325)
        self.assertEqual(entropy.fnv1a(b"a"), 0xaf63dc4c8601ec8c)
        data = os.urandom(200000)
        self.assertEqual(entropy.fnv1a(data), fnv_reference(data))

    def test_split_as_announced(self):
        seq, rs = os.urandom(800), os.urandom(1600)
        self.assertEqual(entropy.verified_parts(self.write(seq + rs), self.parts(seq, rs)),
                         {"seq": seq, "restart": rs})

    def test_corrupt_short_or_long_data_is_refused(self):
        seq, rs = os.urandom(800), os.urandom(1600)
        parts = self.parts(seq, rs)
        bad = bytearray(seq + rs)
        bad[900] ^= 1
        for data, why in ((bytes(bad), "the restart part does not match its hash"),
                          (seq + rs[:-8], "2392 bytes, the guest announced 2400"),
                          (seq + rs + b"x", "2401 bytes, the guest announced 2400")):
            with self.assertRaisesRegex(ec.CollectError, why):
                entropy.verified_parts(self.write(data), parts)
        del parts["restart"]
        with self.assertRaisesRegex(ec.CollectError, "did not send its restart part"):
            entropy.verified_parts(self.write(seq + rs), parts)

    def test_same_bytes_are_not_rewritten(self):
        p = os.path.join(self.tmp, "x.bin")
        entropy.write_bytes(p, b"abc")
        os.utime(p, (1, 1))
        entropy.write_bytes(p, b"abc")
        self.assertEqual(os.path.getmtime(p), 1)
        entropy.write_bytes(p, b"abd")
        self.assertNotEqual(os.path.getmtime(p), 1)


class FakeBoot:
    """qemu.boot for mode entropy: the guest's parts as the append asks,
    the samples of restart i counting from 1000 i."""
    boots = []

    def __init__(self, name, img, rd, append, bdir, timeout, accel="tcg", data=None):
        args = dict(a.split("=", 1) for a in append.split() if "=" in a)
        seq = int(args["conform.entropy_samples"])
        rows = int(args["conform.entropy_restarts"])
        n = int(args["conform.entropy_len"])
        FakeBoot.boots.append((bdir, seq, rows, accel))
        os.makedirs(bdir, exist_ok=True)
        start = 1000 * len(FakeBoot.boots)
        out, recs = b"", [{"type": "entropy-env", "hypervisor": "KVMKVMKVM"}]
        for part, count in (("seq", seq), ("restart", rows * n)):
            if part == "seq" and not seq:
                continue
            chunk = array.array("Q", range(start, start + count)).tobytes()
            out += chunk
            recs.append({"type": "entropy-part", "part": part, "rows": rows or 1,
                         "len": count if part == "seq" else n, "bytes": len(chunk),
                         "fnv64": f"{fnv_reference(chunk):016x}", "blocks": 1,
                         "intermittent": 0, "us": 5, "ok": True})
        with open(data, "wb") as f:
            f.write(out)
        self.results = os.path.join(bdir, "results.log")
        with open(self.results, "w") as f:
            f.write("".join(json.dumps(r) + "\n" for r in recs))
        self.outcome, self.seconds, self.detail = "end", 0.1, ""

    def command_line(self):
        return "qemu"


class KernelRestartsTest(unittest.TestCase):
    """Under KVM the kernel source's restarts are reboots, one boot each;
    under TCG they are made in the boot of the consecutive samples."""

    def collect(self, accel):
        tmp = tempfile.mkdtemp(prefix="entropy-kernel-")
        self.addCleanup(shutil.rmtree, tmp)
        FakeBoot.boots = []
        args = argparse.Namespace(samples=5, restarts=3, len=4, accel=accel)
        with mock.patch.object(entropy, "kernel_image", return_value=("img", "src", "6.1")), \
                mock.patch.object(entropy.guest, "build", return_value="init"), \
                mock.patch.object(entropy.initramfs, "write", return_value="rd"), \
                mock.patch.object(entropy.qemu, "boot", FakeBoot):
            meta = entropy.collect_kernel(args, tmp)
        with open(os.path.join(tmp, "restart-deltas.bin"), "rb") as f:
            rows = array.array("Q", f.read()).tolist()
        with open(os.path.join(tmp, "deltas.bin"), "rb") as f:
            seq = array.array("Q", f.read()).tolist()
        return meta, seq, rows

    def test_kvm_restarts_are_reboots(self):
        meta, seq, rows = self.collect("kvm")
        n = 4 + ec.priming_of("ours-kernel")        # each row with its priming samples
        self.assertEqual([b[1:3] for b in FakeBoot.boots], [(5, 0)] + [(0, 1)] * 3)
        self.assertEqual(seq, list(range(1000, 1005)))
        self.assertEqual(rows, [x for i in (2, 3, 4) for x in range(1000 * i, 1000 * i + n)])
        self.assertEqual(meta["restart"]["by"], "reboot")
        self.assertEqual(meta["restart"]["restarts"], 3)
        self.assertEqual((meta["restart"]["len"], meta["restart"]["priming"]), (n, 64))

    def test_tcg_restarts_are_in_the_boot(self):
        meta, seq, rows = self.collect("tcg")
        self.assertEqual([b[1:3] for b in FakeBoot.boots], [(5, 3)])
        self.assertEqual(len(rows), 3 * (4 + 64))
        self.assertEqual(meta["restart"]["by"], "new instance")


class RestartMatrixTest(unittest.TestCase):
    """The restart matrix of SP 800-90B 3.1.4 is of the samples after each
    restart's priming samples (our core: 64; 6.1's: none); the priming
    columns are counted beside it; a collection made with another number
    of priming samples is refused, not misread."""

    def derive(self, name, priming, rows=3, length=5):
        sdir = tempfile.mkdtemp(prefix="entropy-derive-")
        self.addCleanup(shutil.rmtree, sdir)
        rnd = random.Random(5)
        seq = array.array("Q", (rnd.randrange(900, 1100) for _ in range(400)))
        width = length + priming
        # row r: sample c is 256 * c + r % 2 (low byte r % 2): columns repeat
        # one of two symbols, so each column's count is known
        rst = array.array("Q", (256 * c + r % 2 for r in range(rows) for c in range(width)))
        with open(os.path.join(sdir, "deltas.bin"), "wb") as f:
            f.write(seq.tobytes())
        with open(os.path.join(sdir, "restart-deltas.bin"), "wb") as f:
            f.write(rst.tobytes())
        meta = {"design": "pristine" if name == "pristine-user" else "ours",
                "restart": {"restarts": rows, "len": width, "priming": priming}}
        args = argparse.Namespace(samples=400, restarts=rows, len=length)
        entropy.derive(name, meta, args, sdir)
        with open(os.path.join(sdir, "restart.bin"), "rb") as f:
            return meta, f.read()

    def test_ours_leaves_out_the_priming_samples(self):
        meta, matrix = self.derive("ours-uml-tsc-fixed", 64)
        # the symbols of columns 64..68 of each row: 256 c + r % 2 -> r % 2
        self.assertEqual(matrix, bytes([0] * 5 + [1] * 5 + [0] * 5))
        cols = meta["restart"]["first_columns"]
        self.assertEqual(len(cols), 64 + 5)
        self.assertEqual(set(cols), {2})

    def test_pristine_keeps_every_sample(self):
        meta, matrix = self.derive("pristine-user", 0)
        self.assertEqual(len(matrix), 15)

    def test_a_collection_with_other_priming_is_refused(self):
        for name, priming in (("ours-user", 0), ("ours-user", 32), ("pristine-user", 64)):
            with self.subTest(name=name, priming=priming), \
                    self.assertRaisesRegex(entropy.ed.DataError, "priming samples"):
                self.derive(name, priming)

    def test_drop_columns_refuses_a_ragged_matrix(self):
        for d, w, n in ((range(10), 3, 1), (range(9), 3, 3)):
            with self.assertRaises(entropy.ed.DataError):
                entropy.ed.drop_columns(array.array("Q", d), w, n)


class RunTest(unittest.TestCase):

    def test_a_source_that_fails_is_a_failed_check(self):
        """A kernel that is not built: the source is reported with its
        reason, the other sources are not affected, the exit status is 1."""
        tmp = tempfile.mkdtemp(prefix="entropy-run-")
        try:
            args = argparse.Namespace(sources="ours-kernel", samples=1000, restarts=1,
                                      len=1000, accel="tcg", json=os.path.join(tmp, "c.json"),
                                      reuse=False)
            with mock.patch.object(entropy, "OUT", tmp), \
                    mock.patch.object(entropy, "collect_kernel",
                                      side_effect=ec.CollectError("no finished test kernel")):
                rc = entropy.run(args)
            self.assertEqual(rc, 1)
            with open(args.json) as f:
                text = f.read()
            self.assertIn('"entropy.ours-kernel.collected"', text)
            self.assertIn("no finished test kernel", text)
            with open(os.path.join(tmp, "summary.json")) as f:
                summary = json.load(f)
            self.assertIsNone(summary["drbg_from"])
            self.assertTrue(summary["drbg"])
            self.assertEqual({(r["instantiate_bits"], r["reseed_bits"])
                              for r in summary["drbg"]}, {(0, 0)})
        finally:
            shutil.rmtree(tmp)

    def test_our_core_collects_the_samples_asked_for(self):
        """1,000,000 consecutive samples by default for our core, in user
        space and in UML, as for every source: nothing is derived from the
        deltas that would need more (the design with von Neumann collected
        6,000,000 for its unbiased bits)."""
        tmp = tempfile.mkdtemp(prefix="entropy-samples-")
        self.addCleanup(shutil.rmtree, tmp)
        args = argparse.Namespace(sources="ours-user,ours-uml-tsc", samples=1000000,
                                  restarts=1000, len=1000, accel="tcg", json=None,
                                  reuse=False)
        stop = ec.CollectError("stop here")
        with mock.patch.object(entropy, "OUT", tmp), \
                mock.patch.object(entropy.ec, "kernel_cmd", return_value="cmd"), \
                mock.patch.object(entropy.ec, "sha3_cmd", return_value="cmd"), \
                mock.patch.object(entropy.ec, "build", return_value="exe"), \
                mock.patch.object(entropy.ec, "kernel_object_flags", return_value=([], [])), \
                mock.patch.object(entropy.ec, "run", side_effect=stop) as user, \
                mock.patch.object(entropy.entropy_uml, "collect", side_effect=stop) as uml, \
                mock.patch("sys.stdout"):
            self.assertEqual(entropy.run(args), 1)
        self.assertEqual(user.call_args.args[2], 1000000)
        self.assertEqual(len(uml.call_args.args), 3)
        self.assertEqual(uml.call_args.args[1].samples, 1000000)

    def test_unknown_source_is_one_line(self):
        args = argparse.Namespace(sources="theirs", samples=1, restarts=1, len=1,
                                  accel="tcg", json=None, reuse=False)
        with self.assertRaisesRegex(SystemExit, "unknown source 'theirs'"):
            entropy.run(args)


def fake_assessment(h, sanity=True, h_r=None, claim=None):
    """The parts of the assessor's JSON that make entropy reads, as the
    assessor writes them for a claim (--submitter): H_I = min(claim, h),
    the restart tests at H_I; h_r: the row assessment of the restart
    matrix (h when not given)."""
    h_r = h if h_r is None else h_r
    h_i = h if claim is None else min(claim, h)
    valid = sanity and h_r >= h_i / 2
    return {"assessed": h, "H_original": h, "H_bitstring": h, "samples": 1000000,
            "H_submitter": claim, "H_I": h_i,
            "bits_per_symbol": 8, "literal": {}, "bitstring": {},
            "restart": {"H_I": h_i, "sanity": {"pass": sanity, "cutoff": 48, "x_max": 40},
                        "H_r": h_r if sanity else None, "H_c": h if sanity else None,
                        "H_validated": min(h_i, h_r) if valid else None,
                        "verdict": "pass" if valid else "fail",
                        "reason": "sanity check (3.1.4.3) passed" if sanity else
                        "sanity check (3.1.4.3) failed: a value occurs 60 times"}}


class VerdictTest(unittest.TestCase):
    """The whole verb on ours-user, the collector and the assessor replaced
    by their outputs: what make check gets for an assessment."""

    N, R, L = 20000, 1000, 1000

    def collect(self, name, args, sdir):
        rnd = random.Random(5)
        p = ec.priming_of(name)
        for out, n in (("deltas.bin", self.N), ("restart-deltas.bin", self.R * (self.L + p))):
            with open(os.path.join(sdir, out), "wb") as f:
                f.write(array.array("Q", (rnd.randrange(900, 1900) for _ in range(n)))
                        .tobytes())
        return {"design": "ours", "where": "user space", "emulated": False,
                "clock": "rdtsc", "seq": {"samples": self.N, "blocks": self.N // 2000,
                                          "cpu_s": 0.1, "intermittent": 0},
                "restart": {"restarts": self.R, "len": self.L + p, "priming": p,
                            "intermittent": 0}}

    def verdict(self, h_i, sanity=True, json_out=None, h_r=None):
        tmp = self.out = tempfile.mkdtemp(prefix="entropy-verdict-")
        self.addCleanup(shutil.rmtree, tmp)
        args = argparse.Namespace(sources="ours-user", samples=self.N, restarts=self.R,
                                  len=self.L, accel="tcg", reuse=False,
                                  json=json_out or os.path.join(tmp, "checks.json"))
        claim = er.claims.claim_of("ours-user")
        results = {("ours-user", "raw"): fake_assessment(h_i, sanity, h_r, claim)}
        with mock.patch.object(entropy, "OUT", tmp), \
                mock.patch.object(entropy, "collect_user", side_effect=self.collect), \
                mock.patch.object(entropy, "assess_all", return_value=results) as self.jobs, \
                mock.patch("sys.stdout"):
            rc = entropy.run(args)
        with open(args.json) as f:
            return rc, {c["id"]: c["status"] for c in json.load(f)}

    def test_good_evidence_exits_0(self):
        rc, v = self.verdict(5.0)
        self.assertEqual(rc, 0, v)
        self.assertEqual(v["entropy.ours-user.h-i"], "pass")
        self.assertEqual(v["entropy.ours-user.restart"], "pass")

    def test_h_i_below_the_codes_claim_exits_1(self):
        """H_I just below the 1 bit per raw sample the cutoffs rest on."""
        claim = er.code_claims()["h_claim"]
        rc, v = self.verdict(claim - 0.01)
        self.assertEqual(rc, 1)
        self.assertEqual(v["entropy.ours-user.h-i"], "fail")
        self.assertEqual(v["entropy.ours-user.restart"], "pass")

    def test_validated_h_below_the_claim_exits_1(self):
        """H_I is well above the claim, but the restart rows show less:
        SP 800-90B 3.1.4.2 credits min(H_r, H_c, H_I), and that decides."""
        rc, v = self.verdict(1.9, h_r=0.96)
        self.assertEqual(rc, 1)
        self.assertEqual(v["entropy.ours-user.h-i"], "fail")
        self.assertEqual(v["entropy.ours-user.restart"], "pass")

    def test_failed_restart_validation_exits_1(self):
        """H_I is the claim, 1 bit; rows of 0.4 bit are below H_I / 2."""
        rc, v = self.verdict(5.0, h_r=0.4)
        self.assertEqual(rc, 1)
        self.assertEqual(v["entropy.ours-user.restart"], "fail")

    def test_failed_restart_sanity_check_credits_nothing(self):
        """SP 800-90B 3.1.4: a source whose restart tests fail is credited
        nothing, whatever its sequential data shows."""
        rc, v = self.verdict(5.0, sanity=False)
        self.assertEqual(rc, 1)
        self.assertEqual(v["entropy.ours-user.restart"], "fail")
        self.assertEqual(v["entropy.ours-user.h-i"], "fail")
        self.assertEqual(v["entropy.ours-user.credit"], "fail")

    def test_h_i_is_the_claim_when_the_data_shows_more(self):
        """One claim: with 5 bits assessed, H_I and the validated H are the
        claimed 1 bit, and the chain carries 1 bit per raw sample."""
        rc, _ = self.verdict(5.0)
        self.assertEqual(rc, 0)
        with open(os.path.join(self.out, "summary.json")) as f:
            src = json.load(f)["sources"]["ours-user"]
        self.assertEqual((src["claim"], src["h_i"], src["h"]), (1.0, 1.0, 1.0))
        self.assertEqual(src["chain"]["steps"][0]["h_out"], 1.0)

    def test_what_is_assessed_and_where_the_figures_go(self):
        """The raw samples are assessed as 8-bit symbols against the
        source's claim, and nothing else of a source without recorded
        output blocks (no bits are derived from the deltas); the chain
        credits 320 counted samples at the validated H; the DRBG's seed
        is credited from the user-space environment; the figures are
        written under figures/."""
        rc, _ = self.verdict(5.0)
        self.assertEqual(rc, 0)
        jobs, reuse = self.jobs.call_args.args
        sdir = os.path.join(self.out, "ours-user")
        self.assertIs(reuse, False)
        self.assertEqual(jobs, [(sdir, "raw", 8, er.claims.claim_of("ours-user"))])
        self.assertEqual(sorted(n for n in os.listdir(sdir) if n.endswith(".bin")),
                         ["deltas.bin", "raw.bin", "restart-deltas.bin", "restart.bin"])
        with open(os.path.join(self.out, "summary.json")) as f:
            summary = json.load(f)
        chain = summary["sources"]["ours-user"]["chain"]["summary"]
        self.assertEqual((chain["counted"], chain["h_sample"], chain["h_in_block"],
                          chain["full_entropy"]), (320, 1.0, 320, True))
        self.assertEqual(summary["drbg_from"], "x86-64-user")
        self.assertGreater(summary["drbg"][0]["instantiate_bits"], 0)
        self.assertTrue(summary["figures"])
        for fid in summary["figures"]:
            self.assertTrue(os.path.exists(os.path.join(self.out, "figures", f"{fid}.json")),
                            fid)
        self.assertFalse([n for n in os.listdir(self.out) if n.startswith("entropy-")])

    def test_the_record_wants_every_source(self):
        self.assertEqual(entropy.evidence.RECORDS["entropy"]["complete"], entropy.SOURCES)

    def test_the_claim_is_passed_to_the_assessor(self):
        seen = []
        with mock.patch.object(entropy.assess, "build", return_value="assess"), \
                mock.patch.object(entropy.assess, "run_assessor",
                                  side_effect=lambda *a, **k: seen.append(k) or (2, "", "x",
                                                                               0.0)):
            tmp = tempfile.mkdtemp(prefix="entropy-claim-")
            self.addCleanup(shutil.rmtree, tmp)
            with open(os.path.join(tmp, "raw.bin"), "wb") as f:
                f.write(b"\x01\x02" * 10)
            with self.assertRaises(entropy.ed.DataError):
                entropy.assess_all([(tmp, "raw", 8, 1.0)])
        self.assertEqual(seen[0]["submitter"], 1.0)


class CheckStepTest(unittest.TestCase):
    """make check (harness/stages/check.py) runs the verb entropy after the
    kernels, and its summary counts the verb's failures: the other steps
    replaced, the verb run in this process on an H_I below the claim."""

    def test_make_check_fails_on_the_entropy_verdict(self):
        tmp = tempfile.mkdtemp(prefix="entropy-check-")
        self.addCleanup(shutil.rmtree, tmp)
        verbs, verdict = [], VerdictTest("test_good_evidence_exits_0")

        def fake_run(cmd):
            verbs.append(cmd[3:])
            if cmd[3] == "entropy":
                verdict.verdict(0.5, json_out=cmd[cmd.index("--json") + 1])
            return 1, 0.0
        with mock.patch.object(check, "OUT", tmp), \
                mock.patch.object(check, "REPORT", os.path.join(tmp, "conformance",
                                                                "report.json")), \
                mock.patch.object(check, "input_step", return_value=True), \
                mock.patch.object(check, "acvp_step"), \
                mock.patch.object(check, "host_steps"), \
                mock.patch.object(check, "kernel_steps", return_value=None), \
                mock.patch.object(check, "book_step"), \
                mock.patch.object(check, "run", side_effect=fake_run), \
                mock.patch.dict(os.environ, {"FRESH": "entropy"}), \
                mock.patch("sys.stdout"):
            rc = check.check(None)
        self.assertEqual([v[0] for v in verbs], ["entropy"])
        self.assertEqual(rc, 1)
        with open(os.path.join(tmp, "host-checks.json")) as f:
            status = {c["id"]: c["status"] for c in json.load(f)}
        self.assertEqual(status["entropy.ours-user.h-i"], "fail")
        self.assertEqual(status["entropy.ours-user.restart"], "pass")


if __name__ == "__main__":
    unittest.main()
