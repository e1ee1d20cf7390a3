# SPDX-License-Identifier: GPL-2.0-only
"""The verb host-tests: the unit tests of tests/, each recorded as a check.

Each test method becomes a check host.unit.<module>.<Class>.<method>,
where <module> is the test file's name without "test_" (tests/ mirrors
the package, so the directory adds nothing to the id).  Every outcome
reaches the count and the exit status: a failing or erroring subTest
fails its test (once, with every failing subcase in the reason), and an
unexpected success is a failure too.

The tests run in an order drawn from a seed (printed; --seed repeats it):
the modules shuffled, the classes of each module and the methods of each
class, a class's methods kept together (its setUpClass runs once).  A
test that passes only after another has run fails in some order.
"""

import os
import random
import sys
import time
import unittest

from ..base import config, files

TESTS = config.top("tests")


def check_id(test):
    parts = test.id().split(".")
    # tests.<layer>.test_<module>.<Class>.<method>
    while parts and not parts[0].startswith("test_"):
        parts.pop(0)
    if parts and parts[0].startswith("test_"):
        parts[0] = parts[0][len("test_"):]
    return "host.unit." + ".".join(parts)


class Recorder(unittest.TextTestResult):
    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.records = {}

    def _rec(self, test, status, reason=None):
        cid = check_id(test)
        old = self.records.get(cid)
        if old and old["status"] == "fail" and status != "fail":
            return      # a failed subTest stays a failure
        r = {"id": cid, "title": (test.shortDescription() or test.id()),
             "origin": "host", "status": status}
        if reason:
            prev = old.get("reason", "") + "\n" if old and status == "fail" else ""
            r["reason"] = (prev + reason)[-1500:]
        self.records[cid] = r

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

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            self._rec(test, "fail", f"{subtest.id()}: "
                      + self._exc_info_to_string(err, test))

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._rec(test, "fail", "unexpected success of a test marked expectedFailure")

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._rec(test, "pass")


def flatten(suite):
    """The test cases of a suite of suites, in order."""
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from flatten(t)
        else:
            yield t


def shuffled(suite, seed):
    """suite's tests in an order drawn from seed: modules, the classes of a
    module and the methods of a class shuffled; each class kept together."""
    rng, by_module = random.Random(seed), {}
    for t in flatten(suite):
        by_module.setdefault(type(t).__module__, {}).setdefault(type(t), []).append(t)
    modules = list(by_module.values())
    rng.shuffle(modules)
    out = unittest.TestSuite()
    for classes in modules:
        groups = list(classes.values())
        rng.shuffle(groups)
        for tests in groups:
            rng.shuffle(tests)
            out.addTests(tests)
    return out


def run_tests(pattern="test*.py", stream=None, seed=None):
    """(records, unittest result) of the tests under tests/; in discovery
    order when seed is None, else shuffled from seed."""
    suite = unittest.defaultTestLoader.discover(TESTS, pattern=pattern,
                                                top_level_dir=config.TOP)
    if seed is not None:
        suite = shuffled(suite, seed)
    runner = unittest.TextTestRunner(resultclass=Recorder, verbosity=1,
                                     stream=stream or sys.stderr)
    result = runner.run(suite)
    return list(result.records.values()), result


def run(args):
    t0 = time.time()
    os.chdir(config.TOP)
    seed = args.seed
    if seed is None:
        seed = random.SystemRandom().randrange(1 << 32)
    print(f"host tests: shuffled with seed {seed} (--seed {seed} repeats the order)",
          flush=True)
    records, result = run_tests(args.pattern, seed=seed)
    if not records:
        # Nothing ran: never a pass ("0 passed, 0 failed" with exit 0).
        records = [{"id": "host.unit.none", "title": "the host tests ran",
                    "origin": "host", "status": "fail",
                    "reason": f"no test under tests/ matches --pattern {args.pattern}: "
                              "expected at least one"}]
    if args.json:
        files.write_json(args.json, records)
    n = {s: sum(1 for r in records if r["status"] == s) for s in ("pass", "fail", "skip")}
    print(f"host tests: {n['pass']} passed, {n['fail']} failed, {n['skip']} skipped "
          f"in {time.time() - t0:.1f} s")
    return 1 if n["fail"] or not result.wasSuccessful() else 0


def register(sub):
    p = sub.add_parser("host-tests", help="the unit tests of tests/")
    p.add_argument("--json", metavar="OUT", help="write one check per test to OUT")
    p.add_argument("--pattern", default="test*.py", help="test files to run")
    p.add_argument("--seed", type=int, help="the seed of the order (default: a new one, "
                   "printed)")
    p.set_defaults(func=run)
