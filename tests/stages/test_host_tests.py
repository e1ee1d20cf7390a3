# SPDX-License-Identifier: GPL-2.0-only
"""The host-tests verb counts every outcome of a test method.

A tiny suite, made here and never discovered on its own, runs through
host_tests.Recorder: each method gives one record with the id
host.unit.<file stem without test_>.<Class>.<method>; a failing subTest
fails its method (once, naming every failing subcase), even when other
subcases pass; an unexpected success is a failure; an error is a failure;
a skip is a skip, not a pass.
"""

import io
import sys
import types
import unittest

from harness.stages import host_tests


class _Cases:
    """The methods of the sample suite (a TestCase only inside sample())."""

    def test_passes(self):
        self.assertTrue(True)

    def test_fails(self):
        self.assertEqual(1, 2)

    def test_errors(self):
        raise RuntimeError("boom")

    def test_skips(self):
        self.skipTest("no device")

    def test_one_subtest_fails(self):
        for i in range(4):
            with self.subTest(i=i):
                self.assertNotEqual(i, 2)

    def test_two_subtests_fail(self):
        for i in range(4):
            with self.subTest(i=i):
                self.assertLess(i, 2)

    def test_subtest_errors(self):
        for i in range(2):
            with self.subTest(i=i):
                if i:
                    raise KeyError("missing")

    @unittest.expectedFailure
    def test_unexpected_success(self):
        self.assertTrue(True)


def sample():
    """The sample TestCase class, named as if written in this file."""
    return type("Sample", (_Cases, unittest.TestCase), {"__module__": __name__})


def run(*names):
    cls = sample()
    names = names or sorted(n for n in dir(_Cases) if n.startswith("test_"))
    suite = unittest.TestSuite(cls(n) for n in names)
    runner = unittest.TextTestRunner(resultclass=host_tests.Recorder, stream=io.StringIO(),
                                     verbosity=0)
    result = runner.run(suite)
    return {r["id"].rsplit(".", 1)[1]: r for r in result.records.values()}, result


def counts(records):
    # As the verb counts them for its summary line and exit status.
    return {s: sum(1 for r in records.values() if r["status"] == s)
            for s in ("pass", "fail", "skip")}


class RecorderTest(unittest.TestCase):
    def test_check_ids(self):
        records, _ = run()
        self.assertEqual(sorted(r["id"] for r in records.values()),
                         sorted(f"host.unit.host_tests.Sample.{n}"
                                for n in dir(_Cases) if n.startswith("test_")))
        for r in records.values():
            self.assertEqual(r["origin"], "host")
            self.assertTrue(r["title"])

    def test_every_outcome(self):
        records, result = run()
        self.assertEqual({m: r["status"] for m, r in records.items()}, {
            "test_passes": "pass", "test_fails": "fail", "test_errors": "fail",
            "test_skips": "skip", "test_one_subtest_fails": "fail",
            "test_two_subtests_fail": "fail", "test_subtest_errors": "fail",
            "test_unexpected_success": "fail"})
        self.assertEqual(counts(records), {"pass": 1, "fail": 6, "skip": 1})
        self.assertFalse(result.wasSuccessful())
        for r in records.values():
            self.assertEqual(r["status"] == "pass", "reason" not in r, r)
        self.assertIn("no device", records["test_skips"]["reason"])
        self.assertIn("RuntimeError: boom", records["test_errors"]["reason"])

    def test_failing_subtest_fails_the_method(self):
        """one failing subcase of four fails its method, once"""
        records, result = run("test_one_subtest_fails")
        self.assertEqual(list(records), ["test_one_subtest_fails"])
        r = records["test_one_subtest_fails"]
        self.assertEqual(r["status"], "fail")
        self.assertIn("(i=2)", r["reason"])
        self.assertNotIn("(i=1)", r["reason"])
        self.assertEqual(counts(records), {"pass": 0, "fail": 1, "skip": 0})
        self.assertFalse(result.wasSuccessful())

    def test_every_failing_subtest_is_named(self):
        records, _ = run("test_two_subtests_fail", "test_subtest_errors")
        self.assertEqual(counts(records), {"pass": 0, "fail": 2, "skip": 0})
        reason = records["test_two_subtests_fail"]["reason"]
        self.assertIn("(i=2)", reason)
        self.assertIn("(i=3)", reason)
        self.assertIn("KeyError", records["test_subtest_errors"]["reason"])

    def test_unexpected_success_is_a_failure(self):
        records, result = run("test_unexpected_success")
        r = records["test_unexpected_success"]
        self.assertEqual(r["status"], "fail")
        self.assertIn("unexpected success", r["reason"])
        self.assertEqual(counts(records), {"pass": 0, "fail": 1, "skip": 0})
        self.assertFalse(result.wasSuccessful())


class OrderTest(unittest.TestCase):
    """The host tests run in an order drawn from a seed: a test that passes
    only after another one has run fails in some order, the same seed
    gives the same order, and a class's methods stay together."""

    def run_order(self, seed):
        from . import sample_order
        sample_order.SEEN.clear()
        records, _ = host_tests.run_tests("sample_order.py", stream=io.StringIO(),
                                          seed=seed)
        # (ids as check_id() gives them for a file not named test_*)
        return {r["id"]: r["status"] for r in records}

    def test_an_order_dependence_fails_in_some_order(self):
        self.assertEqual(self.run_order(None)["host.unit.needs_the_state"], "pass")
        seen = {self.run_order(seed)["host.unit.needs_the_state"] for seed in range(12)}
        self.assertEqual(seen, {"pass", "fail"})

    def test_the_seed_repeats_the_order_and_keeps_classes_together(self):
        loader = unittest.defaultTestLoader
        suite = loader.discover(host_tests.TESTS, pattern="sample_order.py",
                                top_level_dir=host_tests.config.TOP)
        orders = set()
        for seed in range(12):
            ids = [t.id() for t in host_tests.flatten(host_tests.shuffled(suite, seed))]
            self.assertEqual(ids, [t.id() for t in host_tests.flatten(
                host_tests.shuffled(suite, seed))])
            every = sorted(t.id() for t in host_tests.flatten(suite))
            self.assertEqual(sorted(ids), every)
            classes = [i.rsplit(".", 1)[0] for i in ids]
            runs = [c for n, c in enumerate(classes) if n == 0 or classes[n - 1] != c]
            self.assertEqual(len(runs), len(set(runs)), ids)
            orders.add(tuple(ids))
        self.assertGreater(len(orders), 2)


class LongFirstTest(unittest.TestCase):
    """The modules that say they are long (LONG = True) run first, so that
    the two processes of make check end together; among themselves, and
    the short ones among themselves, they stay shuffled."""

    def test_long_modules_first_and_still_shuffled(self):
        suite, long = unittest.TestSuite(), set()
        for i in range(6):
            name = f"tests.stages._long_first_{i}"
            mod = types.ModuleType(name)
            if i in (2, 4):
                mod.LONG = True
                long.add(name)
            sys.modules[name] = mod
            self.addCleanup(sys.modules.pop, name)
            cls = type(f"T{i}", (unittest.TestCase,),
                       {"__module__": name, "test_a": lambda self: None})
            suite.addTest(cls("test_a"))
        firsts, rests = set(), set()
        for seed in range(16):
            mods = [type(t).__module__ for t in
                    host_tests.flatten(host_tests.shuffled(suite, seed))]
            self.assertEqual(set(mods[:2]), long, mods)
            firsts.add(tuple(mods[:2]))
            rests.add(tuple(mods[2:]))
        self.assertEqual(len(firsts), 2)
        self.assertGreater(len(rests), 2)


class VerbTest(unittest.TestCase):
    """The verb host-tests, as make check runs it, on a suite with a
    failing subTest: exit status 1, the failure in its JSON and its
    summary line, and make check's merge counts it as a failed check."""

    def test_failing_subtest_fails_the_verb_and_make_check(self):
        import json
        import os
        import tempfile

        from harness.stages import check

        from ..verbs import run_verb
        out = os.path.join(tempfile.mkdtemp(prefix="host-tests-verb-"), "h.json")
        rc, stdout, stderr = run_verb(self, ["host-tests", "--pattern", "sample_suite.py",
                                             "--json", out])
        self.assertEqual(rc, 1, stdout + stderr)
        self.assertIn("host tests: 1 passed, 1 failed, 0 skipped", stdout)
        self.assertRegex(stdout, r"host tests: shuffled with seed \d+ \(--seed \d+ "
                         r"repeats the order\)")
        with open(out) as f:
            recs = {x["id"]: x["status"] for x in json.load(f)}
        # (ids as check_id() gives them for a file not named test_*)
        self.assertEqual(recs, {"host.unit.passes": "pass",
                                "host.unit.one_subcase_of_three_fails": "fail"})
        checks = check.json_checks(out, "the host tests", "host.unit")
        self.assertEqual(sorted(c.status for c in checks), ["fail", "pass"])
        os.unlink(out)
        os.rmdir(os.path.dirname(out))

    def test_no_test_is_a_failure(self):
        """a pattern that matches no test: not "0 passed, 0 failed" and exit 0"""
        import json
        import os
        import tempfile

        from ..verbs import run_verb
        d = tempfile.mkdtemp(prefix="host-tests-none-")
        self.addCleanup(__import__("shutil").rmtree, d, True)
        out = os.path.join(d, "h.json")
        rc, stdout, stderr = run_verb(self, ["host-tests", "--pattern", "no_such_*.py",
                                             "--json", out])
        self.assertEqual(rc, 1, stdout + stderr)
        self.assertIn("host tests: 0 passed, 1 failed, 0 skipped", stdout)
        with open(out) as f:
            (rec,) = json.load(f)
        self.assertEqual((rec["id"], rec["status"]), ("host.unit.none", "fail"))
        self.assertIn("no test under tests/ matches --pattern no_such_*.py",
                      rec["reason"])


if __name__ == "__main__":
    unittest.main()
