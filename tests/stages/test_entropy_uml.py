# SPDX-License-Identifier: GPL-2.0-only
"""User-Mode Linux boots (harness/base/uml.py) and the UML sources of make
entropy (harness/stages/entropy_uml.py), with a stand-in for the `linux`
program: a script that reads the command line as UML would, writes a
console to its stderr, the results channel to the descriptor named by
ssl1=null,fd:N and the raw samples to data.bin in conform.hostfs=DIR, and
then exits, fails or hangs (with a child process of its own, as UML has).
"""

import json
import os
import shutil
import stat
import struct
import tempfile
import time
import unittest
from unittest import mock

from harness.base import uml
from harness.judges import entropy_collect as ec
from harness.stages import entropy, entropy_uml

FAKE = r"""#!/usr/bin/python3
import os, struct, subprocess, sys, time
args = dict(a.split("=", 1) for a in sys.argv[1:] if "=" in a)
env = os.environ
fd = int(args["ssl1"].split("fd:")[1])
res = os.fdopen(fd, "w")
sys.stderr.write(env.get("FAKE_CONSOLE", "Linux version 6.1.192\n"))
sys.stderr.flush()
if env.get("FAKE_HANG"):
    child = subprocess.Popen(["sleep", "600"])
    with open(env["FAKE_HANG"], "w") as f:
        f.write(str(child.pid))
    time.sleep(600)
n = int(args.get("conform.entropy_len", "0")) * int(args.get("conform.entropy_restarts", "0"))
seq = int(args.get("conform.entropy_samples", "0"))
def part(name, count, start):
    data = b"".join(struct.pack("<Q", start + i) for i in range(count))
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    if env.get("FAKE_BADHASH"):
        h ^= 1
    res.write('{"type":"entropy-part","part":"%s","rows":1,"len":%d,"bytes":%d,'
              '"fnv64":"%016x","blocks":3,"intermittent":0,"us":10,"ok":true}\n'
              % (name, count, len(data), h))
    return data
res.write('{"type":"begin"}\n')
data = part("seq", seq, 1000) if seq else b""
data += part("restart", n, 7)
if "conform.entropy_words" in args:
    raise SystemExit("conform.entropy_words: no such part any more")
if int(args.get("conform.entropy_blocks", "0")):
    data += part("blocks", int(args["conform.entropy_blocks"]), 6000)
rows = int(args.get("conform.entropy_strides", "0"))
if rows:
    data += part("strides", rows * int(args["conform.entropy_stride_len"]), 9000)
if "conform.hostfs" in args:
    with open(os.path.join(args["conform.hostfs"], "data.bin"), "wb") as f:
        f.write(data[:len(data) - int(env.get("FAKE_SHORT", "0"))])
res.write('{"type":"check","id":"guest.entropy.raw","status":"%s","reason":"%s"}\n'
          % (env.get("FAKE_STATUS", "pass"), env.get("FAKE_REASON", "")))
res.write('{"type":"end"}\n')
res.close()
sys.exit(int(env.get("FAKE_RC", "0")))
"""
STARTED = ("jitterentropy: start-up test passed (0): 1024 samples, delta 2..8, "
           "sum |d2| 1433, stuck 324\n")
FAILED = "jitterentropy: start-up test failed (9): 1024 samples, delta 2..8\n"


class Fake(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="uml-test-")
        self.addCleanup(shutil.rmtree, self.d)
        self.linux = os.path.join(self.d, "linux")
        with open(self.linux, "w") as f:
            f.write(FAKE)
        os.chmod(self.linux, stat.S_IRWXU)

    def env(self, **kw):
        e = {"FAKE_CONSOLE": STARTED}
        e.update({f"FAKE_{k.upper()}": str(v) for k, v in kw.items()})
        return mock.patch.dict(os.environ, e)


class BootTest(Fake):
    def boot(self, append="conform.entropy_restarts=1 conform.entropy_len=2", timeout=30,
             **kw):
        with self.env(**kw):
            return uml.boot("t", self.linux, "rd.cpio", append,
                            os.path.join(self.d, "boot"), timeout)

    def test_a_boot_that_ends(self):
        b = self.boot()
        self.assertEqual(b.outcome, "end")
        self.assertIn(f"mem={uml.MEM}", b.argv)
        self.assertIn("initrd=rd.cpio", b.argv)
        with open(b.results) as f:
            self.assertIn('"type":"end"', f.read())
        with open(b.console) as f:
            self.assertIn("start-up test passed", f.read())

    def test_a_panic_is_a_panic(self):
        b = self.boot(console="Kernel panic - not syncing: jitterentropy: oops\n")
        self.assertEqual(b.outcome, "panic")
        self.assertIn("jitterentropy: oops", b.detail)

    def test_a_failing_program_without_a_console(self):
        b = self.boot(console="", rc=3)
        self.assertEqual(b.outcome, "qemu-error")
        self.assertIn("UML exited with 3", b.detail)

    def test_a_hang_kills_the_whole_group(self):
        pidfile = os.path.join(self.d, "child.pid")
        t0 = time.time()
        b = self.boot(timeout=3, hang=pidfile)
        self.assertEqual(b.outcome, "hung")
        self.assertLess(time.time() - t0, 30)
        with open(pidfile) as f:
            child = int(f.read())
        for _ in range(50):         # the child must be gone (killed, reaped by init)
            try:
                os.kill(child, 0)
            except ProcessLookupError:
                break
            with open(f"/proc/{child}/stat") as f:
                if f.read().split(")")[1].split()[0] == "Z":
                    break
            time.sleep(0.1)
        else:
            self.fail(f"the hung kernel's child {child} is still running")

    def test_a_missing_program(self):
        with self.env():
            b = uml.boot("t", os.path.join(self.d, "nope"), "rd", "", os.path.join(
                self.d, "boot"), 5)
        self.assertEqual(b.outcome, "qemu-error")


class CollectTest(Fake):
    def one(self, **kw):
        with self.env(**kw):
            return entropy_uml.one_boot(self.linux, "rd", os.path.join(self.d, "b"),
                                        "conform.entropy_restarts=1 conform.entropy_len=4",
                                        30)

    def test_a_boot_gives_its_samples_and_start_up(self):
        parts, data, start, _ = self.one()
        self.assertEqual(start, (True, 0))
        self.assertEqual(struct.unpack("<4Q", data["restart"]), (7, 8, 9, 10))
        self.assertEqual(parts["restart"]["bytes"], 32)

    def test_a_failed_start_up_is_named(self):
        with self.assertRaisesRegex(ec.CollectError, "start-up test failed at boot "
                                    "with error 9"):
            self.one(console=FAILED)

    def test_data_that_does_not_match_its_hash(self):
        with self.assertRaisesRegex(ec.CollectError, "does not match its hash"):
            self.one(badhash=1)

    def test_short_data(self):
        with self.assertRaisesRegex(ec.CollectError, "24 bytes, the guest announced 32"):
            self.one(short=8)

    def test_a_failed_guest_check(self):
        with self.assertRaisesRegex(ec.CollectError, "guest.entropy.raw"):
            self.one(status="fail")

    def test_a_kernel_that_refuses_is_told_from_a_fault(self):
        """The guest's words for the interface's own verdict (EIO, EFAULT)
        make SourceRefused; any other failure stays a CollectError."""
        with self.assertRaises(ec.SourceRefused):
            self.one(status="fail", reason=entropy_uml.REFUSED + ": its start-up test "
                     "failed (EIO)")
        with self.assertRaises(ec.CollectError) as cm:
            self.one(status="fail", reason="writing the sample count failed")
        self.assertNotIsInstance(cm.exception, ec.SourceRefused)

    def test_a_boot_without_its_end(self):
        with self.assertRaisesRegex(ec.CollectError, "qemu-error"):
            self.one(console="", rc=1)

    def test_collect_restarts_by_reboot(self):
        class Args:
            samples, restarts, len = 5, 3, 4
        sdir = os.path.join(self.d, "ours-uml-fixed")
        os.makedirs(sdir)
        with self.env(), \
                mock.patch.object(entropy_uml, "image", return_value=(self.linux, "6.1")), \
                mock.patch.object(entropy_uml.kcache, "ensure_pristine",
                                  return_value=("v", "src")), \
                mock.patch.object(entropy_uml.guest, "build", return_value="init"), \
                mock.patch.object(entropy_uml.initramfs, "write", return_value="rd"):
            meta = entropy_uml.collect("ours-uml-fixed", Args, sdir)
        with open(os.path.join(sdir, "deltas.bin"), "rb") as f:
            self.assertEqual(struct.unpack("<5Q", f.read()), (1000, 1001, 1002, 1003, 1004))
        # each reboot records the 64 priming samples and the 4 of the row
        row = tuple(range(7, 7 + 64 + 4))
        with open(os.path.join(sdir, "restart-deltas.bin"), "rb") as f:
            self.assertEqual(struct.unpack(f"<{3 * 68}Q", f.read()), row * 3)
        self.assertEqual((meta["restart"]["len"], meta["restart"]["priming"]), (68, 64))
        self.assertEqual(meta["restart"]["by"], "reboot")
        self.assertEqual(meta["startup_at_boot"], {"boots": 4, "passed": 4,
                                                   "without_line": 0})
        self.assertTrue(meta["fixed_loops"])
        self.assertEqual(meta["seq"]["samples"], 5)
        with open(os.path.join(sdir, "boots", "r0002", "uml.out")):
            pass                    # every boot's logs are kept
        with open(os.path.join(sdir, "boots", "seq", "console.log")) as f:
            self.assertIn("start-up", f.read())
        json.dumps(meta)

    def test_the_tsc_source_records_the_conditioning(self):
        """The source of the time stamp counter as shipped makes one boot
        more: output blocks and the rows of the two-sample test, each part
        in its own file; its -fixed twin and the other sources make none
        (there are no pool words to record any more)."""
        class Args:
            samples, restarts, len = 5, 2, 4
        for name, want in (("ours-uml-tsc", ("blocks", "strides")),
                           ("ours-uml-tsc-fixed", ()), ("ours-uml", ())):
            sdir = os.path.join(self.d, name)
            os.makedirs(sdir)
            with self.env(), \
                    mock.patch.object(entropy_uml, "image",
                                      return_value=(self.linux, "6.1")), \
                    mock.patch.object(entropy_uml.kcache, "ensure_pristine",
                                      return_value=("v", "src")), \
                    mock.patch.object(entropy_uml.guest, "build", return_value="init"), \
                    mock.patch.object(entropy_uml.initramfs, "write", return_value="rd"), \
                    mock.patch.multiple(entropy_uml, BLOCKS=2, STRIDE_ROWS=2,
                                        STRIDE_LEN=5):
                meta = entropy_uml.collect(name, Args, sdir)
            for part in ("words", "blocks", "strides"):
                self.assertEqual(os.path.exists(os.path.join(sdir, f"{part}.bin")),
                                 part in want, (name, part))
            self.assertEqual(meta["startup_at_boot"]["boots"], 3 + bool(want), name)
            self.assertEqual(os.path.isdir(os.path.join(sdir, "boots", "cond")),
                             bool(want), name)
            self.assertEqual(bool(meta["conditioning"]), bool(want), name)
        with open(os.path.join(self.d, "ours-uml-tsc", "blocks.bin"), "rb") as f:
            self.assertEqual(struct.unpack("<8Q", f.read()), tuple(range(6000, 6008)))
        with open(os.path.join(self.d, "ours-uml-tsc", "strides.bin"), "rb") as f:
            self.assertEqual(len(f.read()), 8 * 2 * 5)
        self.assertNotIn("words", entropy_uml.PARTS)

    def test_sources_are_known_to_the_stage(self):
        for name in ("ours-uml", "ours-uml-fixed", "ours-uml-tsc", "ours-uml-tsc-fixed"):
            self.assertIn(name, entropy.SOURCES)
            self.assertIn(ec.base_of(name), entropy_uml.VARIANT)


if __name__ == "__main__":
    unittest.main()
