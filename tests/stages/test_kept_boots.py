# SPDX-License-Identifier: GPL-2.0-only
"""Boots kept with the digest of what they ran (kept_boots.py, conform
--keep): a boot that passed is taken again, unbooted, while its image,
initramfs, command line, timeout and QEMU are the same; anything else, a
failure, or FRESH=conform boots it."""

import os
import shutil
import tempfile
import unittest
from unittest import mock

from harness.base import qemu, report
from harness.base.checks import Check
from harness.stages import conform, kept_boots


class KeyTest(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="kept-key-")
        self.addCleanup(shutil.rmtree, self.d)
        self.version = mock.patch.object(kept_boots.proc, "dpkg_version",
                                         return_value="1:7.2+dfsg-7")
        self.version.start()
        self.addCleanup(self.version.stop)

    def file(self, name, data):
        path = os.path.join(self.d, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def key(self, kernel=b"K", initrd=b"I", append="a=1", timeout=300, expect="end",
            accel="tcg", arch="x86_64", where=""):
        return kept_boots.key(self.file(where + "bzImage", kernel),
                              self.file(where + "rd.cpio", initrd), append, timeout,
                              expect, accel, arch)

    def test_the_key_is_of_contents_not_paths(self):
        self.assertEqual(self.key(), self.key(where="elsewhere-"))

    def test_every_input_changes_the_key(self):
        base = self.key()
        for change in ({"kernel": b"K2"}, {"initrd": b"I2"}, {"append": "a=2"},
                       {"timeout": 301}, {"expect": "panic"}, {"accel": "kvm"},
                       {"arch": "i386"}):
            with self.subTest(change=change):
                self.assertNotEqual(self.key(**change), base)
        self.version.stop()
        with mock.patch.object(kept_boots.proc, "dpkg_version", return_value="1:8.0"):
            self.assertNotEqual(self.key(), base)
        self.version.start()


class RunBootTest(unittest.TestCase):
    """conform.run_boot with keep: QEMU and the judges are stand-ins that
    count what they were asked."""

    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="kept-run-")
        self.addCleanup(shutil.rmtree, self.d)
        self.kernel = os.path.join(self.d, "bzImage")
        with open(self.kernel, "w") as f:
            f.write("kernel 1")
        self.boots, self.seen, self.verdict = [], [], "pass"
        for target, attr, fake in ((conform.qemu, "boot", self.fake_boot),
                                   (conform.initramfs, "write", self.fake_initramfs),
                                   (conform, "judge_boot", self.fake_judge),
                                   (kept_boots.proc, "dpkg_version", lambda p: "7.2")):
            patch = mock.patch.object(target, attr, side_effect=fake)
            patch.start()
            self.addCleanup(patch.stop)
        self.spec = {"name": "main", "mode": "checks", "append": "x=1", "timeout": 300,
                     "expect": "end", "title": "t"}

    def fake_initramfs(self, path, init, data, src=None):
        with open(path, "w") as f:
            f.write("initramfs")
        return path

    def fake_boot(self, name, kernel, rd, append, bdir, timeout, **kw):
        self.boots.append(name)
        b = qemu.Boot(name, ["qemu", "-cpu", "max"], bdir)
        with open(b.console, "w") as f:
            f.write(f"console of boot {len(self.boots)}\n")
        with open(b.results, "w") as f:
            f.write('{"type":"end"}\n')
        b.outcome, b.seconds = "end", 12.5
        return b

    def fake_judge(self, spec, b, recs, src):
        with open(b.console) as f:
            self.seen.append(f.read())
        if self.verdict == "fail":
            return [Check.failed("guest.x", "x", "broken")]
        return [Check.passed("guest.x", "x")]

    def run_boot(self, keep="2026-12-07T04:00:00+00:00", spec=None):
        return conform.run_boot(spec or self.spec, "tcg", self.kernel, "/init",
                                "/src", self.d, keep=keep)

    def test_a_passing_boot_is_taken_again_unbooted(self):
        info1, _ = self.run_boot(keep="run-1")
        info2, checks = self.run_boot(keep="run-2")
        self.assertEqual(self.boots, ["main"])
        self.assertNotIn("kept_from", info1)
        self.assertEqual(info2["kept_from"], "run-1")
        self.assertEqual(info2["outcome"], "end")
        self.assertEqual(info2["seconds"], 12.5)
        # The judges read the kept console, copied where the boot leaves it.
        self.assertEqual(self.seen, ["console of boot 1\n"] * 2)
        self.assertEqual(checks[0].details["from_run"], "run-1")

    def test_a_changed_image_boots_again(self):
        self.run_boot()
        with open(self.kernel, "w") as f:
            f.write("kernel 2")
        info, _ = self.run_boot()
        self.assertEqual(self.boots, ["main", "main"])
        self.assertNotIn("kept_from", info)

    def test_a_changed_command_line_boots_again(self):
        self.run_boot()
        self.run_boot(spec=dict(self.spec, append="x=2"))
        self.assertEqual(len(self.boots), 2)

    def test_a_failed_boot_is_not_kept_and_drops_the_old_one(self):
        self.run_boot()
        self.verdict = "fail"
        with open(self.kernel, "w") as f:
            f.write("kernel 2")
        self.run_boot()
        self.assertFalse(os.path.exists(os.path.join(self.d, "kept", "main")))
        with open(self.kernel, "w") as f:
            f.write("kernel 1")
        self.verdict = "pass"
        self.run_boot()
        self.assertEqual(len(self.boots), 3)

    def test_without_keep_nothing_is_kept_or_taken(self):
        self.run_boot(keep=None)
        self.run_boot(keep=None)
        self.assertEqual(len(self.boots), 2)
        self.assertFalse(os.path.exists(os.path.join(self.d, "kept")))

    def test_fresh_conform_or_all_asks_for_boots(self):
        for fresh, want in (("", True), ("acvp", True), ("acvp,conform", False),
                            ("all", False)):
            with self.subTest(fresh=fresh), mock.patch.dict(os.environ, {"FRESH": fresh}):
                self.assertEqual(kept_boots.wanted(), want)


class ReportTest(unittest.TestCase):
    def test_the_report_says_which_boots_were_kept(self):
        d = tempfile.mkdtemp(prefix="kept-report-")
        self.addCleanup(shutil.rmtree, d)
        path = os.path.join(d, "report.md")
        boots = [{"name": "main", "outcome": "end", "seconds": 12.5,
                  "kept_from": "2026-12-07T04:00:00+00:00"},
                 {"name": "drbg", "outcome": "end", "seconds": 30.0}]
        report.write_markdown({"boots": boots, "checks": [], "started": "s",
                              "summary": {"passed": 0, "failed": 0, "skipped": 0,
                                          "total": 0}}, path)
        with open(path) as f:
            rows = [ln for ln in f if ln.startswith(("| main", "| drbg"))]
        self.assertIn("end (kept from 2026-12-07T04:00:00+00:00)", rows[0])
        self.assertNotIn("kept", rows[1])


if __name__ == "__main__":
    unittest.main()
