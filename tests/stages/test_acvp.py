# SPDX-License-Identifier: GPL-2.0-only
"""The verbs acvp and acvp-registration, without a kernel: the
registration comes from the kernel excerpts of tests/data/acvp-kernel,
the boot is replaced by a guest that answers as the host model does (or
not).  Bad input stops the run with one line naming the file and the
JSON path, before anything is written and with no QEMU left; a run
writes the whole of build/acvp or nothing; and the book's part shows the
run's own numbers."""

import argparse
import hashlib
import json
import os
import shutil
import tempfile
import unittest
from unittest import mock

from harness.stages import acvp
from harness.stages.book import acvp as book_acvp
from harness.stages.book.md import code, esc

from ..judges.acvp_files import cut_set, derive, fake_results, small_set, write_set


def load(*parts):
    with open(os.path.join(*parts), encoding="utf-8") as f:
        return json.load(f)


def fake_registration(apply=True):
    kernel, reg, der, rules = derive()
    return kernel, reg, der, rules, "src"


def guest(wrong=()):
    """A boot whose guest answers as the model does, except entries wrong."""
    def boot(pack, meta, workdir, accel):
        os.makedirs(os.path.join(workdir, "boots", "acvp"))
        recs = fake_results(meta, wrong=wrong)
        info = {"name": "acvp", "outcome": "end", "seconds": 1.0, "release": "6.1-test",
                "accel": accel, "cpu": "qemu64", "rdrand": False,
                "crng_ready_at_init": False, "qemu": "qemu-system-x86_64 ..."}
        return info, [], recs
    return boot


class VerbTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.vec = os.path.join(self.tmp, "vectors")
        self.out = os.path.join(self.tmp, "build", "acvp")
        write_set(self.vec, "hashDRBG-1.0", *cut_set("hashDRBG-1.0", [1, 2, 12], 3))
        write_set(self.vec, "SHA3-256-2.0", small_set("SHA3-256-2.0", [1, 2], 40))
        write_set(self.vec, "ctrDRBG-SP800-90Ar1", small_set("ctrDRBG-SP800-90Ar1",
                                                             [1, 9], 2))
        self.stop = mock.patch.object(acvp.qemu, "stop_all").start()
        mock.patch.object(acvp, "say").start()
        mock.patch.object(acvp, "registration", fake_registration).start()

    def tearDown(self):
        mock.patch.stopall()
        shutil.rmtree(self.tmp)

    def args(self):
        return argparse.Namespace(dir=self.vec, out=self.out, accel="tcg", json=None)

    def run_with(self, boot):
        with mock.patch.object(acvp, "boot", boot):
            return acvp.run_acvp(self.args())

    def test_a_good_run_writes_everything(self):
        self.assertEqual(self.run_with(guest()), 0)
        resp = load(self.out, "hashDRBG-1.0", "response.json")
        self.assertEqual([g["tgId"] for g in resp["testGroups"]], [1, 12])
        val = load(self.out, "hashDRBG-1.0", "validation.json")
        self.assertEqual(val["disposition"], "passed")
        self.assertEqual(len(val["tests"]), 6)
        self.assertFalse(os.path.exists(os.path.join(self.out, "SHA3-256-2.0",
                                                     "validation.json")))
        rep = load(self.out, "report.json")
        by = {c["id"]: c for c in rep["checks"]}
        self.assertEqual(by["acvp.hashdrbg-1-0.tg2"]["status"], "skip")
        self.assertEqual(by["acvp.ctrdrbg-sp800-90ar1.tg9"]["status"], "skip")
        self.assertIn("without a derivation function",
                      by["acvp.ctrdrbg-sp800-90ar1.tg9"]["reason"])
        aft = by["acvp.sha3-256-2-0.tg1"]
        self.assertEqual(aft["status"], "pass")
        self.assertGreater(aft["counts"]["not_applicable"], 0)
        self.assertIn("whole bytes", aft["details"]["not_applicable"][0]["reason"])
        self.assertEqual(by["acvp.total"]["status"], "pass")
        self.assertEqual(by["acvp.hashdrbg-1-0.validation"]["status"], "pass")
        self.assertIs(by["acvp.hashdrbg-1-0.validation"]["details"]["agrees_with_server"],
                      True)
        summ = load(self.out, "summary.json")
        hs = next(s for s in summ["sets"] if s["name"] == "hashDRBG-1.0")
        self.assertEqual((hs["claimed"], hs["answered"], hs["not_applicable"]), (6, 6, 3))
        self.assertTrue(os.path.exists(os.path.join(self.out, "registration.json")))
        self.assertFalse(os.path.exists(self.out + ".new"))

    def test_a_wrong_answer_fails_the_run(self):
        self.assertEqual(self.run_with(guest(wrong={0})), 1)
        rep = load(self.out, "report.json")
        failed = {c["id"] for c in rep["checks"] if c["status"] == "fail"}
        self.assertIn("acvp.total", failed)

    def test_a_set_of_which_nothing_is_claimed_fails_the_run(self):
        """one set whose every group is not applicable (CTR without a
        derivation function) beside sets that are answered: not a run of
        skips and passes (before, the guard looked at the total only)"""
        write_set(self.vec, "ctrDRBG-SP800-90Ar1", small_set("ctrDRBG-SP800-90Ar1",
                                                             [9], 2))
        self.assertEqual(self.run_with(guest()), 1)
        by = {c["id"]: c for c in load(self.out, "report.json")["checks"]}
        self.assertEqual(by["acvp.ctrdrbg-sp800-90ar1.tg9"]["status"], "skip")
        self.assertEqual(by["acvp.total"]["status"], "fail")
        self.assertIn("ctrDRBG-SP800-90Ar1: the registration claims no test case of this "
                      "set (2 not applicable)", by["acvp.total"]["reason"])
        self.assertGreater(by["acvp.total"]["counts"]["answered"], 0)

    def bad_input(self, name, edit):
        path = os.path.join(self.vec, name, "prompt.json")
        with open(path) as f:
            p = json.load(f)
        edit(p)
        with open(path, "w") as f:
            json.dump(p, f)
        os.makedirs(self.out)
        with open(os.path.join(self.out, "old"), "w") as f:
            f.write("the last run")
        booted = mock.Mock()
        with self.assertRaises(SystemExit) as cm:
            self.run_with(booted)
        msg = str(cm.exception.code)
        self.assertNotIn("\n", msg)
        booted.assert_not_called()
        self.assertTrue(self.stop.called)
        self.assertEqual(os.listdir(self.out), ["old"])
        self.assertFalse(os.path.exists(self.out + ".new"))
        return msg

    def test_a_missing_field_stops_before_anything(self):
        msg = self.bad_input("ctrDRBG-SP800-90Ar1",
                             lambda p: p["testGroups"][1]["tests"][0].pop("nonce"))
        self.assertIn("ctrDRBG-SP800-90Ar1/prompt.json: $.testGroups[1].tests[0].nonce: "
                      "missing", msg)

    def test_an_unknown_revision_stops_before_anything(self):
        msg = self.bad_input("SHA3-256-2.0", lambda p: p.update(revision="3.0"))
        self.assertIn("SHA3-256-2.0/prompt.json: $.revision: unknown revision '3.0'", msg)

    def test_a_boot_that_breaks_keeps_the_last_run(self):
        self.assertEqual(self.run_with(guest()), 0)

        def broken(*a):
            raise RuntimeError("QEMU vanished")
        with self.assertRaises(RuntimeError):
            self.run_with(broken)
        self.assertTrue(os.path.exists(os.path.join(self.out, "summary.json")))
        self.assertFalse(os.path.exists(self.out + ".new"))

    def test_sums_are_checked(self):
        rel = "hashDRBG-1.0/prompt.json"
        with open(os.path.join(self.vec, rel), "rb") as f:
            digest = hashlib.sha256(f.read() + b" ").hexdigest()
        with open(os.path.join(self.vec, "SHA256SUMS"), "w") as f:
            f.write(f"{digest}  {rel}\n")
        with self.assertRaises(SystemExit) as cm:
            acvp.check_sums(self.vec)
        self.assertIn("hashDRBG-1.0/prompt.json: does not match", str(cm.exception.code))

    def test_two_sets_of_one_name_are_refused(self):
        write_set(os.path.join(self.vec, "more"), "hashDRBG-1.0", {"x": 1})
        with self.assertRaises(SystemExit) as cm:
            acvp.find_sets(self.vec)
        self.assertIn("a second vector set named 'hashDRBG-1.0'", str(cm.exception.code))

    def test_a_libkcapi_answer_unlike_the_debugfs_one_fails(self):
        def boot(pack, meta, workdir, accel):
            info, checks, recs = guest()(pack, meta, workdir, accel)
            k = next(r for r in recs if r.get("type") == "acvp_kcapi" and "out" in r)
            k["out"] = ("0" if k["out"][0] != "0" else "1") + k["out"][1:]
            return info, checks, recs
        self.assertEqual(self.run_with(boot), 1)
        rep = load(self.out, "report.json")
        c = next(c for c in rep["checks"] if c["id"] == "acvp.kcapi")
        self.assertEqual(c["status"], "fail")
        self.assertIn("differs from the debugfs interface's", c["reason"])

    def test_the_book_shows_the_runs_numbers(self):
        self.assertEqual(self.run_with(guest()), 0)
        top = os.path.join(self.tmp, "top")
        os.makedirs(os.path.join(top, "build"))
        shutil.copytree(self.out, os.path.join(top, "build", "acvp"))
        md, notes = book_acvp.render({"top": top, "esc": esc, "code": code})
        self.assertEqual(notes, [])
        summ = load(self.out, "summary.json")
        for s in summ["sets"]:
            self.assertIn(f"| {esc(s['name'])} | {s['test_groups']} "
                          f"({s['groups_answered']}) | {s['test_cases']:,} | "
                          f"{s['claimed']:,} | {s['answered']:,} | "
                          f"{s['not_applicable']:,} |", md)
        k = summ["kcapi"]
        self.assertEqual(k["status"], "pass")
        self.assertGreater(k["answered"], 0)
        self.assertIn(f"{k['answered']:,} of {k['test_cases']:,} answered", md)
        self.assertIn("Check `acvp.kcapi` passed", md)
        os.unlink(os.path.join(top, "build", "acvp", "summary.json"))
        md, notes = book_acvp.render({"top": top, "esc": esc, "code": code})
        self.assertIn("does not exist", notes[0])


class RegistrationVerbTest(unittest.TestCase):
    def test_writes_the_registration_and_where_it_came_from(self):
        with tempfile.TemporaryDirectory() as tmp, mock.patch.object(acvp, "say"), \
                mock.patch.object(acvp, "registration", fake_registration):
            self.assertEqual(acvp.run_registration(argparse.Namespace(out=tmp)), 0)
            reg = load(tmp, "registration.json")
            caps = load(tmp, "capabilities.json")
        self.assertEqual(reg[0], {"acvVersion": "1.0"})
        self.assertEqual(len(reg[1]["algorithms"]), 8)
        self.assertEqual(len(caps["kernel"]["drbg"]["instances"]), 22)
        self.assertTrue(all(":" in v for v in caps["kernel"]["sources"].values()))


class InputsOnlyTest(unittest.TestCase):
    """acvp --inputs-only (make check's first step) reads the sets against
    ACVP's specification and nothing in the kernel cache: run as a verb
    whose cache cannot even be made, it passes on the project's sets
    (before, it derived the registration from the cached tree, and ran
    git am on it when the patches had changed) and still refuses a prompt
    for a revision ACVP does not have, in one line."""

    def test_the_projects_sets_without_a_cache(self):
        from harness.base import config

        from ..verbs import run_verb
        rc, out, err = run_verb(self, ["acvp", "--dir", config.top("vectors/acvp"),
                                       "--inputs-only"], timeout=120)
        self.assertEqual((rc, err), (0, ""))
        self.assertRegex(out, r"acvp: \d+ vector sets under vectors/acvp read against "
                         r"ACVP's specification")

    def test_a_fifo_is_refused_not_waited_on(self):
        """a FIFO as prompt.json, or as a file SHA256SUMS lists: one line,
        exit 1, nothing waited on (before, the verb hung)"""
        from ..verbs import run_verb
        for victim in ("prompt.json", "expectedResults.json"):
            d = tempfile.mkdtemp(prefix="acvp-fifo-")
            self.addCleanup(shutil.rmtree, d, True)
            write_set(d, "hashDRBG-1.0", *cut_set("hashDRBG-1.0", [1], 1))
            path = os.path.join(d, "hashDRBG-1.0", victim)
            os.unlink(path)
            os.mkfifo(path)
            if victim != "prompt.json":
                with open(os.path.join(d, "SHA256SUMS"), "w") as f:
                    f.write("0" * 64 + "  hashDRBG-1.0/" + victim + "\n")
            rc, _, err = run_verb(self, ["acvp", "--dir", d, "--inputs-only"], timeout=60)
            self.assertEqual(rc, 1, victim)
            want = {"prompt.json": "$: a FIFO: expected a regular JSON file",
                    "expectedResults.json": "a FIFO: expected a regular file"}[victim]
            self.assertEqual(err, f"acvp: {path}: {want}\n")

    def test_a_revision_acvp_does_not_have(self):
        from ..verbs import run_verb
        d = tempfile.mkdtemp(prefix="acvp-inputs-")
        self.addCleanup(shutil.rmtree, d, True)
        p = small_set("SHA3-256-2.0", [1], 2)
        p["revision"] = "3.0"
        write_set(d, "SHA3-256-2.0", p)
        rc, out, err = run_verb(self, ["acvp", "--dir", d, "--inputs-only"], timeout=120)
        self.assertEqual(rc, 1)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertRegex(err, r"prompt\.json: \$\.revision: unknown revision '3\.0' of "
                         r"SHA3-256")


if __name__ == "__main__":
    unittest.main()
