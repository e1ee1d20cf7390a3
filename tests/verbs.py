# SPDX-License-Identifier: GPL-2.0-only
"""A verb of the harness run by a test in a process of its own, as make
runs it, without touching what the user has: the kernel cache (KCACHE)
and the build directory (HARNESS_BUILD) are the test's own, where no
cache can be made (under a regular file: a verb that reaches for the
cache fails at once instead of importing a kernel tree); the verb runs
in a process group of its own, killed whole when it overruns its time
(a nested make check would otherwise outlive its direct child)."""

import os
import shutil
import signal
import subprocess
import tempfile

from harness.base import config


def run_verb(test, args, env=None, timeout=300):
    """(exit status, stdout, stderr) of python3 -m harness args; test is
    the TestCase (its cleanup removes the directories, and it fails when
    the verb runs over timeout)."""
    d = tempfile.mkdtemp(prefix="verb-")
    test.addCleanup(shutil.rmtree, d, True)
    blocker = os.path.join(d, "no-cache")
    open(blocker, "w").close()
    e = dict(os.environ, KCACHE=os.path.join(blocker, "kcache"),
             HARNESS_BUILD=os.path.join(d, "build"))
    e.update(env or {})
    p = subprocess.Popen([config.PY, "-m", "harness"] + list(args), cwd=config.TOP, env=e,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        test.fail(f"harness {' '.join(args)} ran over {timeout} s: its process group "
                  "was killed")
    return p.returncode, out, err
