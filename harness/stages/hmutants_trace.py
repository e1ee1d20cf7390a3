# SPDX-License-Identifier: GPL-2.0-only
"""Which host test runs which line of the mutated files (a line tracer).

Self-contained on purpose: the runner of the generated harness mutants
(hmutants_run.py) copies this file as sitecustomize.py into a directory
it puts first on PYTHONPATH, so every Python process the tests start (a
verb run as `python3 -m harness ...` in a child) traces itself too, and
writes what it ran under the test that started it ($HMUT_TEST) when it
exits.  Run as a program in the runner's workspace, it runs the whole
host suite in discovery order, one test at a time, and records the lines
each test ran, in-process and in its children, and how long it took:

  HMUT_TRACE_FILES=a.py:b.py HMUT_TRACE_DIR=D python3 hmutants_trace.py

Only the files named in HMUT_TRACE_FILES (absolute paths) are traced:
a frame of any other file gets no line tracer, which keeps the suite
at about the speed it runs without one.
"""

import atexit
import json
import os
import sys
import threading
import time

_FILES = {os.path.realpath(p) for p in os.environ.get("HMUT_TRACE_FILES", "").split(
    os.pathsep) if p}
_DIR = os.environ.get("HMUT_TRACE_DIR")
_hits = {}
_current = [os.environ.get("HMUT_TEST", "<import>")]
_known = {}


def _target(filename):
    t = _known.get(filename)
    if t is None:
        t = _known[filename] = os.path.realpath(filename) in _FILES
    return t


def _line(frame, event, arg):
    if event == "line":
        _hits.setdefault(_current[0], set()).add(
            (os.path.realpath(frame.f_code.co_filename), frame.f_lineno))
    return _line


def _call(frame, event, arg):
    if event == "call" and _target(frame.f_code.co_filename):
        return _line
    return None


def _dump():
    if not _DIR or not _hits:
        return
    path = os.path.join(_DIR, f"{os.getpid()}-{time.monotonic_ns()}.json")
    try:
        with open(path, "w") as f:
            json.dump({t: sorted(h) for t, h in _hits.items()}, f)
    except OSError:
        pass    # a child run as another user (as nobody) cannot write here


def start():
    if not _FILES or not _DIR:
        return
    sys.settrace(_call)
    threading.settrace(_call)
    atexit.register(_dump)


def main():
    import unittest

    times = {}
    site = os.environ.get("HMUT_SITE")
    if site:    # the children trace themselves; this process already does
        os.environ["PYTHONPATH"] = os.pathsep.join(
            [site] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])

    class Result(unittest.TextTestResult):
        def startTest(self, test):
            _current[0] = os.environ["HMUT_TEST"] = test.id()
            times[test.id()] = time.monotonic()
            super().startTest(test)

        def stopTest(self, test):
            super().stopTest(test)
            times[test.id()] = round(time.monotonic() - times[test.id()], 3)
            _current[0] = os.environ["HMUT_TEST"] = "<between>"

    suite = unittest.defaultTestLoader.discover("tests", top_level_dir=".")
    result = unittest.TextTestRunner(resultclass=Result, verbosity=0,
                                     stream=sys.stderr).run(suite)
    with open(os.path.join(_DIR, "times.json"), "w") as f:
        json.dump({"times": times, "ok": result.wasSuccessful(),
                   "failed": [t.id() for t, _ in result.failures + result.errors]}, f)
    return 0 if result.wasSuccessful() else 1


start()
if __name__ == "__main__":
    sys.exit(main())
