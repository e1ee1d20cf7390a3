# SPDX-License-Identifier: GPL-2.0-only
"""The user-space entropy collectors of make entropy: build them, run them.

Two programs, made the same way from conformance/entropy/ (collect.c and
zalloc.c at -O2; see collect.h):

  ours-user      tangled/jitterentropy.c with
                 CONFIG_CRYPTO_JITTERENTROPY_TESTINTERFACE; its host
                 ours_host.c (-O2), which hashes with OpenSSL's libcrypto
                 (no recorded delta times that hash)
  pristine-user  6.1's crypto/jitterentropy.c, unmodified, taken from the
                 tag 'pristine' of the kernel cache's tree into
                 build/entropy/pristine-src/ (never into the repository),
                 against include/linux/fips.h; its host pristine_host.c
                 (-O2, 6.1's glue), which hashes with 6.1's own
                 crypto/sha3_generic.c and include/crypto/sha3.h, taken
                 from the same tag: 6.1 times that hash with its noise

Both cores are compiled with the code-generation options of the test
kernel's own crypto/jitterentropy.o, read from kbuild's record of the
command (crypto/.jitterentropy.o.cmd): every option that says how code is
made, where it applies in user space (kernel_object_flags()); 6.1's
sha3_generic.c likewise with those of crypto/sha3_generic.o
(crypto/.sha3_generic.o.cmd), against the small headers of
conformance/entropy/include/ that stand in for the kernel's.  What does
not apply, or applies differently, is listed with the reason (DIFFERS),
and the book prints the list.

Both time their measurements with the CPU's cycle counter (rdtsc), which
is what random_get_entropy() reads on x86.  run() runs one and returns
what it printed; the deltas are in its output directory.
"""

import json
import os
import subprocess

from ..base import config
from . import jitter_model as model

EDIR = "conformance/entropy"
HOST_CFLAGS = ["-O2", "-std=gnu11", "-Wall", "-Wextra", "-Werror",
               "-mincoming-stack-boundary=3"]     # the core keeps 8-byte alignment
CORE_WARNINGS = ["-Wall", "-Wextra", "-Werror"]
KERNEL_CMD = "crypto/.jitterentropy.o.cmd"     # in the test kernel's build directory
SHA3_CMD = "crypto/.sha3_generic.o.cmd"        # the same, for 6.1's SHA-3
# Code-generation options of the kernel object that the user-space core
# cannot have as they are, and why; thunk options are kept, with thunks of
# conformance/entropy/thunks.S.
DIFFERS = {
    "-mcmodel=kernel": "the kernel's code model puts code and data in the top 2 GB of "
                       "the address space; a program uses the default small model",
    "-mindirect-branch=thunk-extern": "kept, with thunks that jump through the register "
                                      "(thunks.S); the kernel patches its own per CPU at "
                                      "boot (retpolines where the CPU needs them)",
    "-mfunction-return=thunk-extern": "kept, with a thunk that returns (thunks.S); the "
                                      "kernel patches its own per CPU at boot (a safe "
                                      "return where the CPU needs one)",
}
DROPPED = {"-mcmodel=kernel"}
SOURCES = ("ours-user", "pristine-user")
# 6.1's files the pristine-user collector is made of, and where
# pristine_sources() puts each (include/ is on the include path).
PRISTINE_FILES = {"crypto/jitterentropy.c": "jitterentropy.c",
                  "crypto/jitterentropy.h": "jitterentropy.h",
                  "crypto/sha3_generic.c": "sha3_generic.c",
                  "include/crypto/sha3.h": "include/crypto/sha3.h"}


class CollectError(RuntimeError):
    """A collector that does not build or does not run; one line."""


class SourceRefused(CollectError):
    """The noise source itself would not deliver: the kernel refused the
    recording because its start-up test or a health test failed.  In an
    environment without a claim that is the measurement, not a fault of
    the harness."""


def _gcc(args, what):
    try:
        r = subprocess.run(["gcc"] + args, capture_output=True, text=True)
    except FileNotFoundError:
        raise CollectError("gcc not found: install it (make deps)") from None
    if r.returncode:
        first = next((ln for ln in r.stderr.splitlines() if "error" in ln),
                     (r.stderr.strip().splitlines() or ["?"])[0])
        raise CollectError(f"{what} does not compile: {first.strip()}")


def kernel_object_flags(cmd_path):
    """The code-generation options of the kernel object whose kbuild
    command record is cmd_path: (options for the user-space core, [(option,
    how it differs)]).  Warnings, include paths, macros and dependency
    output say nothing about the code and are left out; so are the
    options of DROPPED."""
    import shlex
    try:
        with open(cmd_path) as f:
            line = f.readline()
    except OSError as e:
        raise CollectError(f"{cmd_path}: {e.strerror}: the test kernel's object was "
                           "not built (make kernel)") from None
    head, sep, cmd = line.partition(" := ")
    if not sep or not head.startswith("cmd_"):
        raise CollectError(f"{cmd_path}:1: not a kbuild command record (cmd_...: = ...)")
    toks = shlex.split(cmd.split(" ; ")[0])
    if not toks or "-c" not in toks:
        raise CollectError(f"{cmd_path}:1: no compiler command with -c")
    out, skip = [], False
    for t in toks[1:]:
        if skip:
            skip = False
            continue
        if t in ("-include", "-I", "-o", "-isystem"):
            skip = True
            continue
        if t.startswith(("-W", "-I", "-D", "-U", "-fmacro-prefix-map=")) or \
                t in ("-nostdinc", "-c") or not t.startswith("-"):
            continue
        out.append(t)
    differs = [(t, DIFFERS[t]) for t in out if t in DIFFERS]
    return [t for t in out if t not in DROPPED], differs


def kernel_cmd(record=KERNEL_CMD):
    """kbuild's record of the command that compiled an object of the test
    kernel (record: crypto/jitterentropy.o's by default), in the kernel
    cache."""
    from ..base import kcache
    version, _ = kcache.ensure_pristine()
    return os.path.join(kcache.tree_dir(version), "build-test", record)


def sha3_cmd():
    """kbuild's record of the command that compiled the test kernel's
    crypto/sha3_generic.o, in the kernel cache."""
    return kernel_cmd(SHA3_CMD)


def pristine_sources(src, outdir):
    """6.1's files of PRISTINE_FILES from the tag 'pristine' of src, written
    into outdir as that says; their directory."""
    for path, dest in PRISTINE_FILES.items():
        r = subprocess.run(["git", "-C", src, "show", f"pristine:{path}"],
                           capture_output=True)
        if r.returncode:
            raise CollectError(f"{src}: no {path} at the tag 'pristine': "
                               f"{r.stderr.decode(errors='replace').strip()[:200]}")
        out = os.path.join(outdir, dest)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, "wb") as f:
            f.write(r.stdout)
    return outdir


def kconfig_macros(flags):
    """The kernel options a kernel source tests that its .cmd record does
    not carry (kbuild includes autoconf.h in every file): CONFIG_64BIT,
    which sha3_generic.c reads to inline its round, for a -m64 object."""
    return ["-DCONFIG_64BIT=1"] if "-m64" in flags else []


def build(source, bindir, pristine_dir=None, kernel_cmd=None, sha3_cmd=None):
    """Compile the collector of source into bindir, its core with the code
    options of the kernel object whose command record is kernel_cmd, and
    (pristine-user) 6.1's sha3_generic.c with those of the object whose
    record is sha3_cmd; its path."""
    core_flags, _ = kernel_object_flags(kernel_cmd or globals()["kernel_cmd"]())
    os.makedirs(bindir, exist_ok=True)
    edir = config.top(EDIR)
    objs = []

    def obj(name, args, what):
        out = os.path.join(bindir, f"{source}-{name}.o")
        _gcc(args + ["-c", "-o", out], what)
        objs.append(out)
    obj("collect", HOST_CFLAGS + [os.path.join(edir, "collect.c")], "collect.c")
    obj("zalloc", HOST_CFLAGS + [os.path.join(edir, "zalloc.c")], "zalloc.c")
    obj("thunks", [os.path.join(edir, "thunks.S")], "thunks.S")
    if source == "ours-user":
        tangled = config.top("tangled")
        flag = "-DCONFIG_CRYPTO_JITTERENTROPY_TESTINTERFACE"
        obj("core", core_flags + CORE_WARNINGS + [flag, "-I", tangled,
                                                  os.path.join(tangled, "jitterentropy.c")],
            "tangled/jitterentropy.c")
        obj("host", HOST_CFLAGS + [flag, "-I", tangled, "-I", edir,
                                   os.path.join(edir, "ours_host.c")], "ours_host.c")
        libs = ["-lcrypto"]
    elif source == "pristine-user":
        # 6.1's file as it is: no -Werror on code that is not ours.
        shims = ["-I", os.path.join(edir, "include"),
                 "-I", os.path.join(pristine_dir, "include")]
        obj("core", core_flags + shims + [os.path.join(pristine_dir, "jitterentropy.c")],
            "6.1's crypto/jitterentropy.c")
        hash_flags, _ = kernel_object_flags(sha3_cmd or globals()["sha3_cmd"]())
        obj("sha3", hash_flags + kconfig_macros(hash_flags) + shims +
            [os.path.join(pristine_dir, "sha3_generic.c")], "6.1's crypto/sha3_generic.c")
        obj("host", HOST_CFLAGS + ["-I", edir] + shims +
            [os.path.join(edir, "pristine_host.c")], "pristine_host.c")
        libs = []
    else:
        raise ValueError(source)
    exe = os.path.join(bindir, f"collect-{source}")
    _gcc(objs + ["-no-pie", "-o", exe] + libs, f"the {source} collector")
    return exe


# A source named <base>-fixed is <base> recorded with the loop shuffle off:
# every loop count at its minimum (the kernel's raw noise interface with
# loop_shuffle set to N, the user-space collector with "fixed").
FIXED = "-fixed"


def base_of(name):
    """The source a -fixed source is a variant of (the name itself otherwise)."""
    return name.removesuffix(FIXED)


def priming_of(name):
    """The raw samples a new collector of the source makes before its
    first counted one: our core's priming samples (jitter_model.FIRST_PRIMING),
    which the raw noise interface records with the rest; none for 6.1's
    core.  A restart is recorded this many samples longer, and SP 800-90B
    3.1.4's matrix is of the samples after them."""
    return 0 if base_of(name) == "pristine-user" else model.FIRST_PRIMING


def run(exe, outdir, samples, restarts, length, timeout=3600, fixed=False):
    """Run a collector (fixed: with the loop shuffle off); its JSON line as
    a dict."""
    os.makedirs(outdir, exist_ok=True)
    try:
        r = subprocess.run([exe, str(samples), str(restarts), str(length), outdir] +
                           (["fixed"] if fixed else []),
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise CollectError(f"{os.path.basename(exe)} did not finish in {timeout} s") from None
    if r.returncode:
        raise CollectError((r.stderr.strip().splitlines() or
                            [f"{os.path.basename(exe)} exited {r.returncode}"])[-1])
    try:
        return json.loads(r.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise CollectError(f"{os.path.basename(exe)}: its output is not one JSON "
                           f"line: {r.stdout[:200]!r}") from None
