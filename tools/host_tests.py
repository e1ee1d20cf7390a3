#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Run the host-side unit tests (tests/host) and record each as a check.

  host_tests.py [--json OUT]

Each test method becomes a check host.unit.<module>.<Class>.<method>.
"""

import json
import os
import sys
import time
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Recorder(unittest.TextTestResult):
    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.records = []

    def _rec(self, test, status, reason=None):
        tid = test.id()
        if tid.startswith("test_"):
            tid = tid[len("test_"):]
        r = {"id": "host.unit." + tid, "title": (test.shortDescription() or test.id()),
             "origin": "host", "status": status}
        if reason:
            r["reason"] = reason[-1500:]
        self.records.append(r)

    def addSuccess(self, test):
        super().addSuccess(test)
        self._rec(test, "pass")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._rec(test, "fail", self._exc_info_to_string(err, test))

    def addError(self, test, err):
        super().addError(test, err)
        self._rec(test, "fail", self._exc_info_to_string(err, test))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._rec(test, "skip", reason)


def main(argv):
    t0 = time.time()
    suite = unittest.defaultTestLoader.discover(os.path.join(TOP, "tests/host"),
                                                top_level_dir=os.path.join(TOP, "tests/host"))
    runner = unittest.TextTestRunner(resultclass=Recorder, verbosity=1, stream=sys.stderr)
    result = runner.run(suite)
    records = result.records
    if "--json" in argv:
        out = argv[argv.index("--json") + 1]
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, "w") as f:
            json.dump(records, f, indent=1)
    n = {s: sum(1 for r in records if r["status"] == s) for s in ("pass", "fail", "skip")}
    print(f"host tests: {n['pass']} passed, {n['fail']} failed, {n['skip']} skipped "
          f"in {time.time() - t0:.1f} s")
    return 1 if n["fail"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
