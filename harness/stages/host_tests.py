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
test that passes only after another has run fails in some order.  A
module that takes ten seconds or more says so (LONG = True) and runs
before the others, in shuffled order among the long ones: when a 50 s
module came last, one process ran 47 s after the other had ended (make
bench's cold make check of 0f07c47, 208 s against 161 s); the short
modules that come after the long ones let the processes end together.

With --jobs N (default 2) N processes share the work: each walks the
same shuffled list of modules and runs a module only when it is the
first to claim it (a file created with O_EXCL in a directory of the
run), so a module runs once, in one process, whichever is free first.
The records of all of them are the run's; a test that was discovered
but ran in no process (one that died) is a failure that names it.
"""

import argparse
import contextlib
import os
import random
import shutil
import subprocess
import sys
import tempfile
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


def claim(claims, name):
    """Whether this process is the first to claim name in claims."""
    try:
        os.close(os.open(os.path.join(claims, name), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return False
    return True


class ModuleSuite(unittest.TestSuite):
    """The tests of one module; with a claims directory, run only by the
    process that claims the module first."""

    def __init__(self, name, tests, claims=None):
        super().__init__(tests)
        self.name, self.claims = name, claims

    def run(self, result, debug=False):
        if self.claims and not claim(self.claims, self.name):
            return result
        return super().run(result, debug)


def shuffled(suite, seed, claims=None):
    """suite's tests in an order drawn from seed, a suite per module:
    modules, the classes of a module and the methods of a class shuffled;
    each class kept together.  The modules that say they are long (LONG =
    True) come first, shuffled among themselves."""
    rng, by_module = random.Random(seed), {}
    for t in flatten(suite):
        by_module.setdefault(type(t).__module__, {}).setdefault(type(t), []).append(t)
    modules = list(by_module.items())
    rng.shuffle(modules)
    modules.sort(key=lambda m: not getattr(sys.modules.get(m[0]), "LONG", False))
    out = unittest.TestSuite()
    for name, classes in modules:
        groups = list(classes.values())
        rng.shuffle(groups)
        for tests in groups:
            rng.shuffle(tests)
        out.addTest(ModuleSuite(name, [t for tests in groups for t in tests], claims))
    return out


def discover(pattern):
    return unittest.defaultTestLoader.discover(TESTS, pattern=pattern,
                                               top_level_dir=config.TOP)


def run_tests(pattern="test*.py", stream=None, seed=None, claims=None):
    """(records, unittest result) of the tests under tests/; in discovery
    order when seed is None, else shuffled from seed (and with claims,
    only the modules this process claims)."""
    suite = discover(pattern)
    if seed is not None:
        suite = shuffled(suite, seed, claims)
    runner = unittest.TextTestRunner(resultclass=Recorder, verbosity=1,
                                     stream=stream or sys.stderr)
    result = runner.run(suite)
    return list(result.records.values()), result


def run_shared(pattern, seed, jobs):
    """(records, every process ended 0) of jobs processes sharing the
    shuffled modules; a discovered test no process ran is a failure."""
    d = tempfile.mkdtemp(prefix="host-tests-")
    try:
        claims = os.path.join(d, "claims")
        os.mkdir(claims)
        outs = [os.path.join(d, f"worker-{i}.json") for i in range(jobs)]
        procs = [subprocess.Popen([config.PY, "-m", "harness", "host-tests", "--seed",
                                   str(seed), "--pattern", pattern, "--claims", claims,
                                   "--json", out], cwd=config.TOP) for out in outs]
        rcs = [p.wait() for p in procs]
        records = [r for out in outs for r in files.read_json(out, kind=list) or []]
    finally:
        shutil.rmtree(d, ignore_errors=True)
    ran = {r["id"] for r in records}
    lost = sorted({check_id(t) for t in flatten(discover(pattern))} - ran)
    if lost:
        records.append({"id": "host.unit.workers", "title": "every test ran in one of "
                        f"the {jobs} processes", "origin": "host", "status": "fail",
                        "reason": f"{len(lost)} test(s) ran in no process (exits "
                                  f"{rcs}): {', '.join(lost[:5])}"})
    return records, not any(rcs)


@contextlib.contextmanager
def own_tmpdir():
    """A TMPDIR of the run's own for its tests, removed after them, so that
    what a test leaves behind does not pile up in /tmp; sticky and open
    to all as /tmp is (a test runs a child as nobody).  Yields a list
    that gets the names left in it."""
    d, left = tempfile.mkdtemp(prefix="host-tests-tmp-"), []
    os.chmod(d, 0o1777)
    old = os.environ.get("TMPDIR")
    os.environ["TMPDIR"], tempfile.tempdir = d, None
    try:
        yield left
    finally:
        if old is None:
            del os.environ["TMPDIR"]
        else:
            os.environ["TMPDIR"] = old
        tempfile.tempdir = None
        left += sorted(os.listdir(d))
        shutil.rmtree(d, ignore_errors=True)


def run(args):
    if args.claims:
        return run_here(args)
    with own_tmpdir() as left:
        rc = run_here(args)
    if left:
        print(f"host tests: {len(left)} temporary file(s) the tests left, removed with "
              f"their TMPDIR: {', '.join(left[:8])}")
    return rc


def run_here(args):
    t0 = time.time()
    os.chdir(config.TOP)
    seed = args.seed
    if seed is None:
        seed = random.SystemRandom().randrange(1 << 32)
    if not args.claims:     # (a process of a shared run: its parent says it)
        print(f"host tests: shuffled with seed {seed} (--seed {seed} repeats the order)",
              flush=True)
    if args.claims or args.jobs <= 1:
        records, result = run_tests(args.pattern, seed=seed, claims=args.claims)
        ok = result.wasSuccessful()
    else:
        records, ok = run_shared(args.pattern, seed, args.jobs)
    if not records and not args.claims:
        # Nothing ran: never a pass ("0 passed, 0 failed" with exit 0).
        records = [{"id": "host.unit.none", "title": "the host tests ran",
                    "origin": "host", "status": "fail",
                    "reason": f"no test under tests/ matches --pattern {args.pattern}: "
                              "expected at least one"}]
    if args.json:
        files.write_json(args.json, records)
    n = {s: sum(1 for r in records if r["status"] == s) for s in ("pass", "fail", "skip")}
    print(f"host tests: {'this process: ' if args.claims else ''}{n['pass']} passed, "
          f"{n['fail']} failed, {n['skip']} skipped in {time.time() - t0:.1f} s")
    return 1 if n["fail"] or not ok else 0


def register(sub):
    p = sub.add_parser("host-tests", help="the unit tests of tests/")
    p.add_argument("--json", metavar="OUT", help="write one check per test to OUT")
    p.add_argument("--pattern", default="test*.py", help="test files to run")
    p.add_argument("--seed", type=int, help="the seed of the order (default: a new one, "
                   "printed)")
    p.add_argument("--jobs", type=int, default=2, help="processes that share the "
                   "modules (default 2; 1 runs them in this one)")
    p.add_argument("--claims", metavar="DIR", help=argparse.SUPPRESS)
    p.set_defaults(func=run)
