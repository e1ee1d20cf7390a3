# SPDX-License-Identifier: GPL-2.0-only
"""The host tools under fault: each fault is one line naming the cause,
and nothing half-made is trusted by the next run.

- a full disk in the kernel cache (a small tmpfs as KCACHE when the test
  may mount one, and the free-space guard itself);
- a kernel build killed halfway (a make that dies of SIGKILL): one line,
  no build stamp, so the next run builds again;
- a QEMU killed in the middle of a boot: the boot is reported as ended
  without its end marker, with the console's last lines;
- a truncated results log: the cut line is a failure of its own, the
  lines before it are kept;
- a missing program is tests/stages/test_main.py's.
"""

import os
import shutil
import stat
import subprocess
import tempfile
import unittest
from unittest import mock

from harness.base import kbuild, kcache, qemu, records
from harness.judges import boot as boot_judge

from .test_kcache import make_tarball


def script(path, text):
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)


class FullDiskTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="faults-")
        self.tarball = os.path.join(self.dir, "src.tar.xz")
        make_tarball(self.tarball, {"Makefile": "VERSION = 6\n"})

    def tearDown(self):
        subprocess.run(["umount", os.path.join(self.dir, "cache")], capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)

    def run_pristine(self, env):
        return subprocess.run(["/usr/bin/python3", "-m", "harness", "kernel", "pristine"],
                              env=dict(os.environ, **env), capture_output=True, text=True,
                              cwd=os.path.dirname(os.path.dirname(os.path.dirname(
                                  os.path.abspath(__file__)))))

    def test_guard_refuses_a_nearly_full_cache(self):
        with mock.patch.object(kcache, "disk_free_mb", return_value=100), \
                mock.patch.object(kcache, "TARBALL", self.tarball), \
                mock.patch.dict(os.environ, {"KCACHE": os.path.join(self.dir, "c"),
                                             "LITERATE_DRBG_VERSION": "6.1.999-1"}):
            with self.assertRaises(SystemExit) as e:
                kcache.ensure_pristine(conf=mock.Mock(base_version="6.1.999-1"))
        self.assertRegex(str(e.exception), r"^kernel: less than 4 GiB free under \S+: "
                                           r"the tree and its builds need about 6 GiB$")
        self.assertFalse(os.path.exists(os.path.join(self.dir, "c", "linux-6.1.999-1",
                                                     "src.ok")))

    def test_a_real_full_disk(self):
        cache = os.path.join(self.dir, "cache")
        os.makedirs(cache)
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", cache],
                           capture_output=True, text=True)
        if r.returncode != 0:
            self.skipTest(f"cannot mount a small tmpfs here: {r.stderr.strip()}")
        r = self.run_pristine({"KCACHE": cache, "LITERATE_DRBG_TARBALL": self.tarball,
                               "LITERATE_DRBG_VERSION": "6.1.999-1"})
        self.assertNotEqual(r.returncode, 0)
        self.assertNotIn("Traceback", r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertIn("free under", r.stderr)


class KilledBuildTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="faults-")
        self.bin = os.path.join(self.dir, "bin")
        os.makedirs(self.bin)
        # A make that starts compiling, then is killed.
        script(os.path.join(self.bin, "make"),
               'echo "  CC      init/main.o"\necho "  CC      kernel/fork.o"\nkill -9 $$\n')

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_killed_make_is_one_line(self):
        build = os.path.join(self.dir, "build")
        os.makedirs(build)
        log = os.path.join(build, "build.log")
        with mock.patch.dict(os.environ, {"PATH": self.bin + ":" + os.environ["PATH"]}):
            with self.assertRaises(SystemExit) as e:
                kbuild.kmake(self.dir, build, "bzImage", log=log)
        msg = str(e.exception)
        self.assertTrue(msg.startswith("kernel: make bzImage failed"), msg)
        self.assertIn(f"(log: {log})", msg)
        self.assertNotIn("\n", msg)
        with open(log) as f:
            self.assertIn("kernel/fork.o", f.read())

    def test_link_failure_names_the_symbol(self):
        """A link that fails names the undefined symbol, not make's own
        line after it (the i386 build's __umoddi3 was only in the log)."""
        script(os.path.join(self.bin, "make"),
               'echo "  LD      .tmp_vmlinux.kallsyms1"\n'
               'echo "ld: drivers/char/x.o: in function \\`f\'\':"\n'
               'echo "x.c:(.text+0x18a0): undefined reference to \\`__umoddi3\'\'"\n'
               'echo "make[3]: *** [scripts/Makefile.vmlinux:34: vmlinux] Error 1"\n'
               'exit 2\n')
        build = os.path.join(self.dir, "build")
        os.makedirs(build)
        with mock.patch.dict(os.environ, {"PATH": self.bin + ":" + os.environ["PATH"]}):
            with self.assertRaises(SystemExit) as e:
                kbuild.kmake(self.dir, build, "bzImage", log=os.path.join(build, "l"))
        self.assertIn("undefined reference to `__umoddi3'", str(e.exception))

    def test_no_stamp_after_a_killed_build(self):
        b = os.path.join(self.dir, "b")
        os.makedirs(os.path.join(b, "arch/x86/boot"))
        with open(os.path.join(b, "arch/x86/boot/bzImage"), "w") as f:
            f.write("half an image")
        # No build.ok: the image is not trusted whatever the inputs.
        self.assertFalse(kbuild.up_to_date("/nonexistent", b, os.path.join(b, "build.ok"),
                                           {"tree": "x"}))


class KilledQemuTest(unittest.TestCase):
    def test_guest_killed_mid_boot(self):
        d = tempfile.mkdtemp(prefix="faults-")
        try:
            bin_ = os.path.join(d, "bin")
            os.makedirs(bin_)
            # Writes half a boot to the console file given by -serial file:X,
            # then dies of SIGKILL.
            script(os.path.join(bin_, "qemu-system-x86_64"),
                   'for a in "$@"; do case "$a" in file:*) f="${a#file:}"; '
                   '[ -z "$c" ] && c="$f";; esac; done\n'
                   'printf "Linux version 6.1\\nRun /init as init process\\n" > "$c"\n'
                   'kill -9 $$\n')
            with mock.patch.dict(os.environ, {"PATH": bin_ + ":" + os.environ["PATH"]}):
                b = qemu.boot("main", "bzImage", "rd", "console=ttyS0",
                              os.path.join(d, "out"), 30)
            self.assertEqual(b.outcome, "no-end")
            self.assertIn("Run /init as init process", b.detail)
            checks = boot_judge.outcome(b, {"name": "main", "expect": "end"})
            self.assertEqual(checks[0].status, "fail")
            self.assertEqual(qemu.stop_all(), 0, "no QEMU left behind")
        finally:
            shutil.rmtree(d, ignore_errors=True)


class TruncatedLogTest(unittest.TestCase):
    def test_cut_line_fails_and_earlier_lines_stay(self):
        d = tempfile.mkdtemp(prefix="faults-")
        try:
            p = os.path.join(d, "results.log")
            with open(p, "w") as f:
                f.write('{"type":"begin"}\n{"type":"check","id":"guest.a","status":"pass"}\n'
                        '{"type":"check","id":"guest.b","sta')
            recs = records.read(p)
            self.assertEqual([r["type"] for r in recs], ["begin", "check", "garbled"])
            checks = boot_judge.guest(recs, "main")
            self.assertEqual([(c.id, c.status) for c in checks],
                             [("guest.a", "pass"), ("boot.main.results-line-3", "fail")])
            self.assertIn("unreadable results line", checks[1].reason)
        finally:
            shutil.rmtree(d, ignore_errors=True)
