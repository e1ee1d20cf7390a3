# SPDX-License-Identifier: GPL-2.0-only
"""Where things are, and how the harness speaks.

Every path the harness uses is relative to the top of the repository
(TOP) or under build/; the kernel cache is elsewhere (kcache.py).  The
host tests that run a verb in a process of its own point HARNESS_BUILD
(and KCACHE) at a directory of their own, so that the verb leaves the
reports of build/ (and the cache) as they were.
"""

import os
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("HARNESS_BUILD") or os.path.join(TOP, "build")
# Host tools run with Debian's interpreter and its python3-* packages.
PY = "/usr/bin/python3"


def top(*parts):
    return os.path.join(TOP, *parts)


def build(*parts):
    return os.path.join(BUILD, *parts)


def display(path):
    """A path as reports show it: relative to the repository when inside it."""
    ap = os.path.abspath(path)
    if ap.startswith(TOP + os.sep):
        return os.path.relpath(ap, TOP)
    return path


def say(tag, msg):
    """One line of progress, prefixed with the stage's name."""
    print(f"{tag}: {msg}", flush=True)


def warn(tag, msg):
    print(f"{tag}: {msg}", file=sys.stderr, flush=True)


def die(tag, msg):
    """Stop with one line that says what is wrong (exit status 1)."""
    raise SystemExit(f"{tag}: {msg}")


def fresh(step):
    """Whether FRESH (a comma-separated list of make check's steps, or
    all) asks step to run again instead of taking a kept run's result
    (kept verdicts of check.py, kept boots of kept_boots.py)."""
    asked = [x.strip() for x in os.environ.get("FRESH", "").split(",")]
    return step in asked or "all" in asked
