# SPDX-License-Identifier: GPL-2.0-only
"""Where a mutant of the harness runs: a scratch repository whose harness/
is a copy (the mutant is edited there) and whose other entries are links
to the repository, so the copy is the top for its tests; and unittest
run in it with a timeout that kills the whole process group.  Shared by
the hand-written mutants (mutants.py) and the generated ones
(hmutants_run.py)."""

import os
import shutil
import signal
import subprocess
import tempfile
import time

from ..base import config


def workspace():
    """A scratch repository: a copy of harness/, links to the rest."""
    d = tempfile.mkdtemp(prefix="harness-mutants-")
    shutil.copytree(config.top("harness"), os.path.join(d, "harness"),
                    ignore=shutil.ignore_patterns("__pycache__"))
    for name in os.listdir(config.TOP):
        if name not in ("harness", "build", ".git"):
            os.symlink(config.top(name), os.path.join(d, name))
    return d


def run_tests(top, tests, timeout, keep=3):
    """(exit status or "timeout", seconds, last lines) of unittest on tests,
    run in top; the process group is killed at the timeout."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    t0 = time.time()
    p = subprocess.Popen([config.PY, "-m", "unittest"] + tests, cwd=top, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        rc = "timeout"
    return rc, round(time.time() - t0, 1), (out or "").strip().splitlines()[-keep:]
