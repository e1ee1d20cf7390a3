# SPDX-License-Identifier: GPL-2.0-only
"""The i386 host tests of the Jitter core run wherever make check runs.

A host whose kernel cannot execute 32-bit binaries (IA32 emulation off)
answers "Exec format error"; there the i386 driver runs under qemu-i386
(Debian's qemu-user, installed by make deps).  Nothing about the host is a
reason to skip: without qemu-i386, or without the i386 toolchain, the
i386 tests fail with one line saying what to install.  (Before the runner,
test_reads_match_model_i386 and test_passes_i386 died with "Exec format
error" on such a host: "1474 passed, 2 failed".)
"""

import errno
import hashlib
import io
import os
import shutil
import subprocess
import tempfile
import unittest
from unittest import mock

from harness.stages import host_tests

from . import jitter_driver

TINY = "int main(void) { return sizeof(void *) == 4 ? 0 : 3; }\n"


def tiny_i386(test):
    """A tiny -m32 program (exit 0 only as a 32-bit process)."""
    d = tempfile.mkdtemp(prefix="i386-test-")
    test.addCleanup(shutil.rmtree, d, True)
    src, exe = os.path.join(d, "t.c"), os.path.join(d, "t")
    with open(src, "w") as f:
        f.write(TINY)
    r = subprocess.run(["gcc", "-m32", "-o", exe, src], capture_output=True, text=True)
    test.assertEqual(r.returncode, 0, "gcc -m32 (make deps installs gcc-multilib): "
                     + r.stderr)
    return exe


def host_refuses_i386():
    """subprocess.run as on a host without IA32 emulation: a program gcc
    just built under /tmp fails to execute with ENOEXEC."""
    real = subprocess.run

    def run(argv, *a, **k):
        if argv and argv[0].startswith(tempfile.gettempdir()):
            raise OSError(errno.ENOEXEC, "Exec format error")
        return real(argv, *a, **k)
    return mock.patch.object(jitter_driver.subprocess, "run", run)


def record_of(method):
    """The host-tests record of one test method (as make check counts it)."""
    cls = type("Sample", (unittest.TestCase,), {"test_it": method,
                                                "__module__": __name__})
    runner = unittest.TextTestRunner(resultclass=host_tests.Recorder,
                                     stream=io.StringIO(), verbosity=0)
    result = runner.run(unittest.TestSuite([cls("test_it")]))
    (rec,) = result.records.values()
    return rec


class I386RunnerTest(unittest.TestCase):
    def test_this_host_runs_i386(self):
        """the runner found here runs a 32-bit program, directly when the
        host can, else under qemu-i386"""
        exe = tiny_i386(self)
        try:
            direct = subprocess.run([exe], capture_output=True).returncode == 0
        except OSError as e:
            self.assertEqual(e.errno, errno.ENOEXEC, e)
            direct = False
        runner, err = jitter_driver._find_i386_runner()
        self.assertIsNone(err)
        self.assertEqual(runner, [] if direct else [shutil.which("qemu-i386")])
        r = subprocess.run(runner + [exe], capture_output=True)
        self.assertEqual(r.returncode, 0, "not a 32-bit process")

    def test_exec_format_error_means_qemu(self):
        self.assertIsNotNone(shutil.which("qemu-i386"),
                             "qemu-i386 is missing (make deps installs qemu-user)")
        with host_refuses_i386():
            runner, err = jitter_driver._find_i386_runner()
        self.assertIsNone(err)
        self.assertEqual(runner, [shutil.which("qemu-i386")])

    def test_no_qemu_is_a_failure_not_a_skip(self):
        with host_refuses_i386(), \
                mock.patch.object(jitter_driver.shutil, "which", return_value=None):
            runner, err = jitter_driver._find_i386_runner()
        self.assertIsNone(runner)
        self.assertRegex(err, r"^this host cannot run i386 binaries \(Exec format "
                         r"error\) and qemu-i386 is not installed: apt-get install "
                         r"qemu-user")
        with mock.patch.dict(jitter_driver.I386, {"runner": None, "err": err}):
            rec = record_of(lambda t: jitter_driver.i386_runner(t))
        self.assertEqual(rec["status"], "fail")
        self.assertIn("qemu-user", rec["reason"])

    def test_no_i386_toolchain_is_a_failure_not_a_skip(self):
        err = "t.c:1:10: fatal error: gnu/stubs-32.h: No such file or directory\n"
        with mock.patch.dict(jitter_driver.BUILD, {"32": None}), \
                mock.patch.dict(jitter_driver.BUILD_ERR, {"32": err}):
            rec = record_of(lambda t: jitter_driver.need(t, "32"))
        self.assertEqual(rec["status"], "fail")
        self.assertIn("gcc-multilib", rec["reason"])

    def test_i386_reads_run_here(self):
        """the i386 driver answers here (the runner of the two i386 tests)"""
        out = jitter_driver.drive(self, ["sha3 616263"], arch="32")
        self.assertEqual(out, ["sha3 " + hashlib.sha3_256(b"abc").hexdigest()])


if __name__ == "__main__":
    unittest.main()
