# SPDX-License-Identifier: GPL-2.0-only
"""Boots kept with the digest of what they ran (make conform --keep, and
make check's conform step; issue 39).

A boot of the plan is a function of what QEMU is given: the kernel image,
the initramfs (the guest's /init and its data: the CAVS pack, modules),
the command line, the machine, the timeout and the outcome it must reach,
and QEMU itself.  The key of a boot is one digest of all of them: QEMU's
argument vector with every file it names replaced by the digest of the
file's bytes, the timeout, the expected end, and the installed version of
qemu-system-x86.  A boot that passed every check is kept, with its key,
in <out>/kept/<name>/: its console log, its results channel, what QEMU
printed, and its outcome and time.  The next run of the same boot with
the same key takes those files instead of booting, and the judges read
them again as if the guest had just left them, so that a changed judge
judges the kept boot anew.  A boot with a failed check is never kept (its
next run boots again), and a changed image or initramfs changes the key.

What keeping gives up is a second sample of a boot whose outcome could
vary with timing (the DRBG race, the hang detectors): FRESH=conform (or
FRESH=all) boots everything, and a clean clone, which has no build/,
always does.  Records for evidence/ are never made from kept boots: only
make conform on x86_64 and make check's conform step ask for them.
"""

import hashlib
import json
import os
import shutil

from ..base import config, files, proc, qemu

DIR = "kept"
LOGS = ("console.log", "results.log", "qemu.out")
# The placeholders of the console and results files in the key's argument
# vector (their paths differ from run to run; their contents are outputs).
CONSOLE, RESULTS = "<console>", "<results>"


def key(kernel, initrd, append, timeout, expect, accel, arch):
    """The digest of what a boot runs (see the module's text)."""
    argv = qemu.build_argv(kernel, initrd, append, CONSOLE, RESULTS, accel=accel,
                           arch=arch)
    h = hashlib.sha256(b"kept-boot 1\n")
    for a in argv:
        if os.path.isfile(a):
            a = f"file\0{files.sha256_file(a)}"
        h.update(f"{a}\n".encode())
    h.update(f"timeout\0{timeout}\nexpect\0{expect}\n".encode())
    h.update(f"qemu\0{proc.dpkg_version('qemu-system-x86')}\n".encode())
    return h.hexdigest()


def _dir(outdir, name):
    return os.path.join(outdir, DIR, name)


def take(outdir, name, k, bdir):
    """The kept boot of this name and key, its logs copied into bdir, as
    a qemu.Boot with its kept outcome and time and the run it comes from
    (b.kept_from); None when there is none with this key."""
    kdir = _dir(outdir, name)
    meta = files.read_json(os.path.join(kdir, "boot.json"), kind=dict)
    if not meta or meta.get("key") != k:
        return None
    if not all(os.path.exists(os.path.join(kdir, f)) for f in LOGS):
        return None
    b = qemu.Boot(name, meta.get("argv"), bdir)
    os.makedirs(bdir, exist_ok=True)
    for f in LOGS:
        shutil.copyfile(os.path.join(kdir, f), os.path.join(bdir, f))
    b.outcome, b.seconds = meta["outcome"], meta["seconds"]
    b.detail = meta.get("detail", "")
    b.kept_from = meta["started"]
    return b


def store(outdir, name, k, b, started):
    """Keep a boot that passed: its logs and outcome under its key."""
    kdir = _dir(outdir, name)
    drop(outdir, name)
    os.makedirs(kdir)
    for f in LOGS:
        src = os.path.join(b.outdir, f)
        if os.path.exists(src):
            shutil.copyfile(src, os.path.join(kdir, f))
        else:
            files.write_text(os.path.join(kdir, f), "")
    with open(os.path.join(kdir, "boot.json"), "w") as f:
        json.dump({"key": k, "started": started, "outcome": b.outcome,
                   "seconds": b.seconds, "detail": b.detail, "argv": b.argv}, f)


def drop(outdir, name):
    shutil.rmtree(_dir(outdir, name), ignore_errors=True)


def wanted():
    """Whether FRESH leaves kept boots to be taken (FRESH=conform or all
    boots everything)."""
    return not config.fresh("conform")


def say_kept(b):
    config.say("conform", f"boot {b.name}: kept from the run of {b.kept_from}, same "
               f"key ({b.outcome} after {b.seconds} s then; FRESH=conform boots it)")
