# SPDX-License-Identifier: GPL-2.0-only
"""Build a driver of tests/guest/ with one file of the guest /init for
the host (the guest's own flags, without -static), with the paths of the
kernel interfaces it uses replaced by the test's."""

import json
import os
import subprocess

from harness.base import config, guest

HERE = os.path.dirname(os.path.abspath(__file__))
GUEST = config.top(guest.SOURCES)


def build(test, driver, outdir, paths):
    """Compile tests/guest/<driver>.c with -D NAME="path" for paths; the
    executable's path.  A build failure fails the test with gcc's message."""
    exe = os.path.join(outdir, driver)
    defs = [f'-D{k}="{v}"' for k, v in paths.items()]
    cmd = (["gcc"] + [f for f in guest.CFLAGS if f != "-static"] + defs +
           ["-I", GUEST, "-o", exe, os.path.join(HERE, driver + ".c"),
            os.path.join(GUEST, "report.c"), os.path.join(GUEST, "util.c")])
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        test.fail(f"{driver}.c does not build: {r.stderr.strip()[:2000]}")
    return exe


def records(test, argv, timeout=120):
    """The JSON records an executable writes on stdout."""
    r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    test.assertEqual(r.returncode, 0, r.stderr)
    return [json.loads(ln) for ln in r.stdout.splitlines() if ln.startswith("{")]
