# SPDX-License-Identifier: GPL-2.0-only
"""Boot a User-Mode Linux kernel (ARCH=um) as a host process, with a
timeout, and keep its logs as qemu.py keeps a QEMU guest's.

UML is the kernel compiled as an ordinary program (`linux`), whose
"hardware" is the host's system calls: it runs on the real CPU, so the
time stamps its Jitter RNG reads are the host's, not an emulator's.
Nothing is loaded into the host's kernel: the host runs a program, as it
runs the compiler.

The console (UML's con0, and the stderr console every printk also goes
to) is kept in console.log; the results channel of /init is the second
virtual serial line, ttyS1, whose host side is a file descriptor open on
results.log (its number is in the command line).  /init ends the run by
powering off (conform.end=poweroff; a reboot would start the kernel again
in the same process).  A kernel that does not end before the timeout is
killed, with every process it started (UML runs its user space in
processes of its own).
"""

import os
import signal
import subprocess
import tempfile
import time

from . import qemu

MEM = "512M"            # a recording of 6,000,000 samples holds 48 MB twice


def build_argv(linux, initrd, append, results_fd):
    return [linux, f"mem={MEM}", f"initrd={initrd}", "con=null", "con0=null,fd:2",
            "ssl=null", f"ssl1=null,fd:{results_fd}"] + append.split()


def boot(name, linux, initrd, append, outdir, timeout, expect="end"):
    """Run one UML boot; returns a qemu.Boot with its outcome."""
    os.makedirs(outdir, exist_ok=True)
    b = qemu.Boot(name, None, outdir)
    for f in (b.console, b.results):
        if os.path.exists(f):
            os.unlink(f)
    t0 = time.time()
    hung = False
    # UML keeps its memory in a file under TMPDIR: a directory of its own,
    # removed with everything in it whatever happens.  Its standard output
    # goes to a file, so that no process it leaves behind can hold a pipe.
    outfile = os.path.join(outdir, "uml.out")
    with tempfile.TemporaryDirectory(prefix="uml-") as tmp, \
            open(b.console, "wb") as con, open(b.results, "wb") as res, \
            open(outfile, "wb") as out:
        env = dict(os.environ, TMPDIR=tmp)
        b.argv = build_argv(linux, initrd, append, res.fileno())
        try:
            p = subprocess.Popen(b.argv, stdin=subprocess.DEVNULL, stdout=out,
                                 stderr=con, pass_fds=(res.fileno(),), env=env,
                                 start_new_session=True)
        except OSError as e:
            b.outcome = "qemu-error"
            b.detail = f"{linux} does not start: {e}"
            return b
        try:
            p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            hung = True
        finally:
            kill_group(p)
    b.seconds = round(time.time() - t0, 1)
    if hung:
        b.outcome = "hung"
        tail = " | ".join(b.console_tail(5))
        b.detail = (f"guest hung: no end marker and no panic after {timeout} s; "
                    f"UML killed; console ends with: {tail[-600:]}")
        return b
    with open(outfile, errors="replace") as f:
        text = f.read()
    return qemu.finish(b, p.returncode, text, expect, "UML", "uml.out")


def kill_group(p):
    """Kill the UML process group (the kernel and its user-space
    processes) and reap the kernel."""
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    p.wait()
