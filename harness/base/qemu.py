# SPDX-License-Identifier: GPL-2.0-only
"""Boot a kernel under QEMU, with a timeout, and keep both serial logs.

The guest's console is the first serial port (console.log); the results
channel of /init is the second (results.log).  QEMU runs with -no-reboot,
so the guest ends the run by rebooting, and a panic (panic=-1 reboots at
once) ends it too.  A guest that does neither before the timeout is
killed and reported as hung, with the tail of its console.

Nothing here loads anything into the host's kernel: QEMU is the only
consumer of the kernel image.
"""

import os
import shlex
import subprocess
import threading
import time

QBOOT = "/usr/share/qemu/qboot.rom"
# A CPU model without RDRAND/RDSEED, so that the CRNG's readiness is not
# decided by a trusted CPU instruction (see the blocking API chapter).
CPU_TCG = "qemu64,-rdrand,-rdseed"

# Every QEMU this process started and has not yet reaped: stop_all() ends
# them, so that a harness that stops early leaves no guest running.
_running = set()
_lock = threading.Lock()
# Set by stop_all(close=True): no new guest starts until reopen(), so that
# a boot thread between its preparations and its Popen cannot start a
# guest after the harness has stopped them all.
_closed = threading.Event()


def reopen():
    _closed.clear()


def stop_all(close=False):
    """Kill every guest still running; returns how many there were.
    close: also refuse to start any guest until reopen()."""
    if close:
        _closed.set()
    with _lock:
        procs = list(_running)
    for p in procs:
        if p.poll() is None:
            p.kill()
            p.wait()
    return len(procs)


class Boot:
    """The outcome of one boot."""

    def __init__(self, name, argv, outdir):
        self.name = name
        self.argv = argv
        self.outdir = outdir
        self.console = os.path.join(outdir, "console.log")
        self.results = os.path.join(outdir, "results.log")
        self.outcome = None       # "end", "panic", "hung", "no-end", "qemu-error"
        self.seconds = None
        self.detail = ""

    def command_line(self):
        return " ".join(shlex.quote(a) for a in self.argv)

    def console_tail(self, n=15):
        try:
            with open(self.console, errors="replace") as f:
                return [ln.rstrip("\r\n") for ln in f.readlines()[-n:]]
        except OSError:
            return []


# The QEMU binary and TCG CPU model of each kernel architecture.
MACHINES = {"x86_64": ("qemu-system-x86_64", CPU_TCG),
            "i386": ("qemu-system-i386", "qemu32,-rdrand,-rdseed")}


def build_argv(kernel, initrd, append, console, results, accel="tcg", smp=2,
               mem=1024, cpu=None, arch="x86_64", data=None):
    binary, tcg_cpu = MACHINES[arch]
    if accel == "kvm":
        accel_args = ["-accel", "kvm", "-cpu", cpu or "host,-rdrand,-rdseed"]
    else:
        accel_args = ["-accel", "tcg", "-cpu", cpu or tcg_cpu]
    argv = [binary, "-nodefaults", "-no-user-config",
            "-machine", "pc"] + accel_args + [
        "-smp", str(smp), "-m", str(mem),
        "-display", "none", "-monitor", "none", "-no-reboot",
        "-kernel", kernel, "-initrd", initrd, "-append", append,
        "-serial", f"file:{console}", "-serial", f"file:{results}"]
    if data:
        # Bulk binary data (the entropy boot's raw samples), kept apart from
        # the JSON lines of the results channel: QEMU's debug console on
        # I/O port 0xe9, which /init writes with outsb.  A serial port
        # would do, but QEMU paces it at the line rate (about 11 KB/s).
        argv += ["-chardev", f"file,id=data,path={data}",
                 "-device", "isa-debugcon,iobase=0xe9,chardev=data"]
    if os.path.exists(QBOOT):
        argv[1:1] = ["-bios", QBOOT]
    return argv


def boot(name, kernel, initrd, append, outdir, timeout, accel="tcg", smp=2,
         mem=1024, expect="end", arch="x86_64", data=None):
    """Run one boot; expect is "end" (the guest ends it) or "panic"; data,
    a file for the guest's debug console port 0xe9 (binary data)."""
    os.makedirs(outdir, exist_ok=True)
    b = Boot(name, None, outdir)
    for f in (b.console, b.results, data):
        if f and os.path.exists(f):
            os.unlink(f)
    b.argv = build_argv(kernel, initrd, append, b.console, b.results,
                        accel=accel, smp=smp, mem=mem, arch=arch, data=data)
    t0 = time.time()
    with _lock:
        if _closed.is_set():
            b.outcome = "qemu-error"
            b.detail = "not started: the harness was stopping every guest"
            return b
        try:
            p = subprocess.Popen(b.argv, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True)
        except FileNotFoundError:
            b.outcome = "qemu-error"
            b.detail = f"{b.argv[0]} not found: run 'make deps'"
            return b
        _running.add(p)
    hung = False
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        hung = True
        p.kill()
        out, _ = p.communicate()
    finally:
        if p.poll() is None:        # an exception in this thread: no orphan
            p.kill()
            p.wait()
        with _lock:
            _running.discard(p)
    if hung:
        b.seconds = round(time.time() - t0, 1)
        b.outcome = "hung"
        tail = " | ".join(b.console_tail(5))
        b.detail = (f"guest hung: no end marker and no panic after {timeout} s; "
                    f"QEMU killed; console ends with: {tail[-600:]}")
        return b
    b.seconds = round(time.time() - t0, 1)
    return finish(b, p.returncode, out, expect, "QEMU", "qemu.out")


def finish(b, returncode, out, expect, program, out_name):
    """Decide b's outcome from what the guest left behind, after its
    program (QEMU, or User-Mode Linux's linux) exited with returncode
    and printed out (kept in out_name beside the logs)."""
    with open(os.path.join(b.outdir, out_name), "w") as f:
        f.write(out or "")
    try:
        with open(b.console, errors="replace") as f:
            console = f.read()
    except OSError:
        console = ""
    try:
        with open(b.results, errors="replace") as f:
            results = f.read()
    except OSError:
        results = ""
    panic = next((ln.strip() for ln in console.splitlines()
                  if "Kernel panic - not syncing" in ln), None)
    if returncode != 0 and not console:
        b.outcome = "qemu-error"
        b.detail = f"{program} exited with {returncode}: {(out or '').strip()[:400]}"
    elif panic:
        b.outcome = "panic"
        b.detail = panic[panic.find("Kernel panic"):]
    elif '"type":"end"' in results:
        b.outcome = "end"
    else:
        b.outcome = "no-end"
        tail = " | ".join(b.console_tail(5))
        b.detail = ("guest stopped without its end marker; console ends with: "
                    f"{tail[-600:]}")
    if expect == "panic" and b.outcome == "end":
        b.detail = "expected a panic, but the guest ran to its end"
    return b
