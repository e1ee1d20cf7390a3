# SPDX-License-Identifier: GPL-2.0-only
"""The host judge of make mutants: the Jitter RNG's core, tested in user
space on the mutated file.

crypto/jitterentropy.c includes no kernel header, so that the very file
the kernel compiles is also compiled in user space for its tests
(chapter 40; conformance/jitter/driver.c includes it).  Those tests
(tests/judges/test_jitter*.py) script the timer, compare every read and
every counter with the independent model (harness/judges/jitter_model.py)
and put each health test at its cutoff, which no boot can: a guest's
timer is not under the test's control.  So a mutant of that file that
survives the boots is judged once more, by the host tests run on the
mutant: its file as a build of its own makes it (N fixed at compile
time, kmutants_schema.prelude), next to the series' header and glue, in
a directory the tests are pointed at ($JENT_CORE_DIR,
tests/judges/jitter_driver.py).

    JUDGES              {kernel file: the judge's name and test modules}
    judge(part, m, texts, timeout)   {"status", "failed", "seconds"}
"""

import os
import re
import shutil
import signal
import subprocess
import sys
import time

from ..base import config, files
from . import kmutants_schema as schema

JUDGES = {
    "crypto/jitterentropy.c": {
        "name": "host-core",
        # cheapest first: test_jitter takes about 4 s, _health 2 s, _lag 8 s
        "modules": ["tests.judges.test_jitter", "tests.judges.test_jitter_health",
                    "tests.judges.test_jitter_lag"],
        # what else the tests read from the core's directory, as the
        # series makes it (tangled/ is the series' copy of these files)
        "beside": ["jitterentropy.h", "jitterentropy-kcapi.c"],
    },
}
# A test that failed, as unittest's text runner reports it.
FAILED = re.compile(r"^(?:FAIL|ERROR): (\w+) \(([\w.]+)\)", re.M)


def judged(path):
    """The host judge of a kernel file, or None."""
    return JUDGES.get(path)


def core_dir(part, path, text, m, out):
    """Write the file of mutant m (None: the series) and the files beside
    it into a directory of its own under out; its path."""
    d = os.path.join(out, f"host-{m['n'] if m else 0}")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    muts, n = ([m], m["n"]) if m else ([], 0)
    body, _ = schema.schema(part, path, text, muts, const=n)
    files.write_text(os.path.join(d, os.path.basename(path)), body)
    for name in JUDGES[path]["beside"]:
        shutil.copyfile(config.top("tangled", name), os.path.join(d, name))
    return d


def test_id(test, where):
    """host.<module>.<Class>.<test> of a failure line's test and the
    place in parentheses (module.Class, or module.Class.test since
    Python 3.11)."""
    where = where.removeprefix("tests.judges.")
    if not where.endswith("." + test):
        where += "." + test
    return "host." + where


def run_tests(path, d, timeout):
    """(status, failed test ids, seconds) of the judge's modules on the
    core in d: passed, killed (a test failed; the first failure ends the
    run) or timeout (killed as a hang, with every process the tests
    started)."""
    env = dict(os.environ, JENT_CORE_DIR=d, TMPDIR=d)
    # -f: the first failure ends the run, as the first failed boot does
    cmd = [sys.executable, "-m", "unittest", "-f"] + JUDGES[path]["modules"]
    t0 = time.time()
    p = subprocess.Popen(cmd, cwd=config.TOP, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return "timeout", [], round(time.time() - t0, 1)
    secs = round(time.time() - t0, 1)
    failed = list(dict.fromkeys(test_id(test, where)
                                for test, where in FAILED.findall(out)))
    if p.returncode == 0:
        return "passed", [], secs
    if not failed:
        tail = (out.strip().splitlines() or ["no output"])[-1]
        failed = [f"host.{JUDGES[path]['name']}: exit {p.returncode}: {tail}"[:200]]
    return "killed", failed, secs


def judge(part, path, m, texts, out, timeout):
    """The host judge's verdict on mutant m of path (None: the series
    itself)."""
    d = core_dir(part, path, texts[path][1], m, out)
    try:
        return run_tests(path, d, timeout)
    finally:
        shutil.rmtree(d, ignore_errors=True)
