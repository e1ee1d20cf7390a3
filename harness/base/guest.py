# SPDX-License-Identifier: GPL-2.0-only
"""The guest's /init: a static program built from conformance/guest/.

It mounts what the checks need, runs the checks of its boot mode and
writes one JSON object per line to the second serial port (the results
channel, read by records.py).  The same sources, flags and compiler make
the same /init: a stamp of their hashes beside it lets a warm run skip
the static link.
"""

import glob
import hashlib
import os
import subprocess

from . import config, files, proc

SOURCES = "conformance/guest"
CFLAGS = ["-static", "-O2", "-Wall", "-Wextra", "-Werror"]


# Extra compiler flags by the guest kernel's architecture: a 32-bit x86
# kernel runs a 32-bit /init (gcc-multilib and libc6-dev-i386 give -m32).
# The 64-bit /init links libkcapi statically (Debian libkcapi-dev, the
# second DRBG client of kcapi_drbg.c); Debian has no 32-bit libkcapi.a
# beside the 64-bit one, so the 32-bit /init is built without it and
# reports its libkcapi checks as skipped.
ARCH_FLAGS = {"x86_64": [], "i386": ["-m32", "-DKCAPI_NONE"]}
ARCH_LIBS = {"x86_64": ["-lkcapi"], "i386": []}


def build(outdir=None, arch="x86_64"):
    """Build (or reuse) the static /init for arch; its path."""
    outdir = outdir or config.build("guest" if arch == "x86_64" else f"guest-{arch}")
    os.makedirs(outdir, exist_ok=True)
    init = os.path.join(outdir, "init")
    srcs = sorted(glob.glob(config.top(SOURCES, "*.c")))
    srcs += sorted(glob.glob(config.top(SOURCES, "*.h")))
    cmd = (["gcc"] + CFLAGS + ARCH_FLAGS[arch] + ["-o", init] +
           [c for c in srcs if c.endswith(".c")] + ARCH_LIBS[arch])
    digest = hashlib.sha256("\0".join([files.hash_files(srcs, config.TOP),
                                       proc.gcc_version(), " ".join(cmd)]).encode()
                            ).hexdigest()
    stamp = init + ".sha256"
    if os.path.exists(init) and (files.read_text(stamp) or "").strip() == digest:
        return init
    if os.path.exists(stamp):
        os.unlink(stamp)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        first = (r.stderr.strip().splitlines() or ["?"])[0]
        config.die("conform", f"the guest /init does not build: {first}")
    files.write_text(stamp, digest + "\n")
    return init
