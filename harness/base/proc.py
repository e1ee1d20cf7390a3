# SPDX-License-Identifier: GPL-2.0-only
"""Facts about the host: package versions, the compiler, the CPU."""

import subprocess


def dpkg_version(pkg):
    """The installed version of a Debian package, or "not installed"."""
    try:
        r = subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg],
                           capture_output=True, text=True)
    except OSError:
        return "unknown"
    return r.stdout.strip() if r.returncode == 0 and r.stdout.strip() else "not installed"


def first_line(cmd):
    """The first line a command prints about itself, or "not found"."""
    try:
        r = subprocess.run(cmd, capture_output=True, text=True)
        return (r.stdout or r.stderr).strip().splitlines()[0]
    except (OSError, IndexError):
        return "not found"


def gcc_version():
    """The first line of gcc --version: part of what a build is made from."""
    return first_line(["gcc", "--version"])


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for ln in f:
                if ln.startswith("model name"):
                    return ln.split(":", 1)[1].strip()
    except OSError:
        pass
    return "?"
