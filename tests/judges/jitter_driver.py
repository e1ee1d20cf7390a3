# SPDX-License-Identifier: GPL-2.0-only
"""What the Jitter RNG tests share (test_jitter.py, test_jitter_health.py):
the driver of conformance/jitter built with the tangled core for x86-64
or i386, and the comparison of its reads with the model
(harness/judges/jitter_model.py).

An i386 driver runs directly where the host can execute it, and under
qemu-i386 (Debian's qemu-user) where it cannot."""

import os
import random
import re
import shutil
import subprocess
import tempfile

from harness.base import config
from harness.judges import jitter_model as model
from harness.judges.jitter_replay import timer_lines  # the figures' encoder

JDIR = config.top("conformance/jitter")
EDIR = config.top("conformance/entropy")     # zalloc.c, shared with the collectors
# The driver's SHA3-256 (shim.c): OpenSSL's libcrypto on x86-64; the
# book's small Keccak (sha3.c beside the driver) on i386, where Debian's
# gcc-multilib has no libcrypto.
SHA3 = {"64": ["-lcrypto"],
        "32": ["-DSHIM_OWN_SHA3", os.path.join(JDIR, "sha3.c")]}
# The core's directory: tangled/, or the directory make mutants puts a
# mutant of the core in (harness/stages/kmutants_host.py).
TANGLED = os.environ.get("JENT_CORE_DIR") or config.top("tangled")

M64 = model.M64
BUILD = {}          # arch -> path of the driver, or None when it cannot be built
BUILD_ERR = {}


def build(arch):
    """Compile the driver with the tangled core for arch ('64' or '32')."""
    if arch in BUILD:
        return BUILD[arch]
    out = os.path.join(tempfile.mkdtemp(prefix="jent-host-"), f"driver{arch}")
    cmd = ["gcc", f"-m{arch}", "-O0", "-std=gnu11", "-g", "-Wall", "-Wextra", "-Werror",
           "-I", JDIR, "-I", EDIR, "-I", TANGLED, "-o", out,
           os.path.join(JDIR, "driver.c"), os.path.join(JDIR, "shim.c"),
           os.path.join(EDIR, "zalloc.c")] + SHA3[arch]
    r = subprocess.run(cmd, capture_output=True, text=True)
    BUILD[arch] = out if r.returncode == 0 else None
    BUILD_ERR[arch] = r.stderr[-2000:]
    return BUILD[arch]


def need(test, arch="64"):
    path = build(arch)
    if path is None:
        if arch == "32" and ("gnu/stubs-32.h" in BUILD_ERR[arch]
                             or "cannot find" in BUILD_ERR[arch]):
            # make check installs gcc-multilib first (tools/deps.sh): the
            # 32-bit check runs wherever make check runs, never a skip.
            test.fail("no i386 toolchain (make deps installs gcc-multilib): "
                      + BUILD_ERR[arch].strip().splitlines()[0])
        test.fail(f"the driver does not build for -m{arch}:\n{BUILD_ERR[arch]}")
    return path


I386 = {}          # "runner" -> [] or ["qemu-i386"]; "err" -> why neither works


def i386_runner(test):
    """The command prefix that runs an i386 binary here: [] when the host
    executes it, ["qemu-i386"] when it cannot ("Exec format error": no
    32-bit support in the kernel).  Found once, by running a tiny -m32
    program; never a reason to skip."""
    if "runner" not in I386:
        I386["runner"], I386["err"] = _find_i386_runner()
    if I386["runner"] is None:
        test.fail(I386["err"])
    return I386["runner"]


def _find_i386_runner():
    d = tempfile.mkdtemp(prefix="jent-i386-")
    try:
        src, exe = os.path.join(d, "t.c"), os.path.join(d, "t")
        with open(src, "w") as f:
            f.write("int main(void) { return sizeof(void *) == 4 ? 0 : 3; }\n")
        r = subprocess.run(["gcc", "-m32", "-o", exe, src], capture_output=True, text=True)
        if r.returncode:
            return None, f"gcc -m32 cannot build a tiny program: {r.stderr.strip()}"
        try:
            r = subprocess.run([exe], capture_output=True, timeout=60)
            if r.returncode == 0:
                return [], None
            why = f"exit status {r.returncode}"
        except OSError as e:
            why = e.strerror
        qemu = shutil.which("qemu-i386")
        if qemu is None:
            return None, (f"this host cannot run i386 binaries ({why}) and qemu-i386 "
                          "is not installed: apt-get install qemu-user "
                          "(tools/deps.sh build installs it)")
        r = subprocess.run([qemu, exe], capture_output=True, timeout=60)
        if r.returncode:
            return None, (f"this host cannot run i386 binaries ({why}), nor can "
                          f"qemu-i386 (exit status {r.returncode})")
        return [qemu], None
    finally:
        shutil.rmtree(d, ignore_errors=True)


def drive(test, cmds, arch="64"):
    exe = need(test, arch)
    argv = (i386_runner(test) if arch == "32" else []) + [exe]
    r = subprocess.run(argv, input="\n".join(cmds) + "\n",
                       capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        test.fail(f"driver exited {r.returncode}: {r.stdout[-500:]} {r.stderr[-500:]}")
    return r.stdout.splitlines()


def parse_state(line):
    assert line.startswith("state "), line
    out = {}
    for kv in line.split()[1:]:
        k, v = kv.split("=", 1)
        out[k] = v if k in ("block", "mem", "lag", "in") else int(v)
    return out


def traces(lines):
    return [tuple(int(x) for x in ln.split()[1:]) for ln in lines if ln.startswith("m ")]


def jittery(seed, base=None, spread=None):
    """A plausible timer: each read adds base + (pseudo-random % spread)."""
    rnd = random.Random(seed)
    base = base if base is not None else rnd.randrange(50, 3000)
    spread = spread if spread is not None else rnd.randrange(20, 5000)
    return rnd.getrandbits(40) + 1, [("rand", rnd.getrandbits(63) | 1, base, spread, 0)]


def priming_deltas(n=model.FIRST_PRIMING):
    """Deltas for a new collector's priming samples, which the health
    tests and the stuck test see but which are not counted: all distinct,
    none stuck (the second difference is 26), and far above the deltas the
    tests choose, so that they start no repetition, no APT match and no
    lag match of a test's own deltas."""
    return [1000003 + 13 * i * i + 5 * i for i in range(n)]


def deltas_timer(deltas, t0=1000, priming=1, prime=True):
    """A timer on which the samples of a read of a new collector have the
    deltas deltas[i], after the block's priming measurement and (prime)
    the collector's priming samples, priming_deltas().  The start-up test
    makes one priming measurement and no priming samples (prime=False).
    A measurement reads the timer three times (memory loop count, time
    stamp, fold loop count); the delta is the distance between two time
    stamps, so it spans the 3rd read of one measurement and the 1st and
    2nd of the next: here +0, +1 and +(delta - 1)."""
    incs = [1, 1, 0] * priming
    for d in (priming_deltas() if prime else []) + list(deltas):
        incs += [1, d - 1, 0] if d else [0, 0, 0]
    return t0, [("inc", x & M64) for x in incs]


def compare_read(test, t0, segs, lengths, osr=1, flags=0, arch="64", trace=True,
                 after_read=None):
    """Run reads of the given lengths in the C and the model; compare all
    (after_read(i, ec, c_state) is called after read i, once the model's
    state was found equal to the C's)."""
    cmds = timer_lines(t0, segs) + [f"trace {int(trace)}", f"new {osr} {flags}"]
    for n in lengths:
        cmds += [f"read {n}", "state"]
    out = drive(test, cmds, arch)
    ec = model.Collector(model.Timer(t0, segs), osr, flags)
    reads = [ln for ln in out if ln.startswith("read ")]
    states = [parse_state(ln) for ln in out if ln.startswith("state ")]
    test.assertEqual(out[0], "new ok")
    results = []
    for i, n in enumerate(lengths):
        ret, data = ec.read(n)
        m = re.fullmatch(r"read (-?\d+) ([0-9a-f]*) (guard=[0-9a-f]+)", reads[i])
        test.assertIsNotNone(m, reads[i])
        cret, chex, guard = m.groups()
        test.assertEqual(int(cret), ret, f"read {i} ({n} bytes): return code")
        test.assertEqual(chex, data.hex(), f"read {i} ({n} bytes): output")
        test.assertEqual(guard, "guard=a5", "the core wrote past the buffer")
        test.assertEqual(states[i], ec.state(), f"state after read {i}")
        if after_read:
            after_read(i, ec, states[i])
        results.append((ret, data))
    if trace:
        test.assertEqual(traces(out), ec.trace, "measurements differ")
    return results, ec
