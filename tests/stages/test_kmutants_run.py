# SPDX-License-Identifier: GPL-2.0-only
"""make mutants, the runner and its report: a mutant is killed by the
first covering boot that fails and the later boots are not run, a hang
is a timeout (a kill), a boot that fails without a mutant stops the run,
build-failed / equivalent / not-run mutants are not counted, the book's
table turns a survivor into an equivalent mutant (and a killed one into
a stale row), a malformed row is one clear error, and one part's run
keeps the others' in series.json."""

import os
import tempfile
import types
import unittest
from unittest import mock

from harness.base.checks import Check
from harness.stages import kmutants_report as report
from harness.stages import kmutants_boot as kboot
from harness.stages import kmutants_run as runner


def mutant(n, path="crypto/drbg.c", mid=None):
    return {"id": mid or f"drbg:f:cmp:{n:06x}", "n": n, "file": path, "line": 10 + n,
            "func": "f", "op": "cmp", "what": "`<` -> `>=`"}


class FakeBoots:
    """run_boot() that fails the boots named in fails[n] (or hangs)."""

    def __init__(self, fails=None, hangs=None, silent=()):
        self.fails, self.hangs, self.seen = fails or {}, hangs or {}, []
        self.silent = silent        # mutants whose boots report no check of their own

    def __call__(self, spec, accel, image, init, src, out):
        n = int(spec["append"].split("mutant=")[1].split()[0])
        self.seen.append((spec["name"], n, spec["timeout"]))
        outcome = "hung" if spec["name"] in self.hangs.get(n, ()) else spec["expect"]
        checks = [Check.passed(f"boot.{spec['name']}", "ok")]
        checks += [Check.passed(cid, "ok") for cid in spec.get("checks", ())
                   if n not in self.silent]
        if spec["name"] in self.fails.get(n, ()):
            checks.append(Check.failed(f"kunit.{spec['name']}.x", "t", "failed"))
        return {"outcome": outcome}, checks


def booter(fake):
    b = runner.Booter("drbg", types.SimpleNamespace(accel="tcg", variant="test"), "/src",
                      "img", "init", {})
    return b, mock.patch.object(kboot.conform, "run_boot", fake)


class BooterTest(unittest.TestCase):
    def test_first_failure_kills_and_stops(self):
        fake = FakeBoots(fails={3: ("fips-drbg",)})
        b, patch = booter(fake)
        with patch:
            v = b.judge(mutant(3))
        self.assertEqual((v["status"], v["boot"]), ("killed", "fips-drbg"))
        self.assertEqual(v["failed"], ["kunit.fips-drbg.x"])
        self.assertEqual([s[0] for s in fake.seen], ["drbg", "fips-drbg"])

    def test_survivor_runs_every_boot(self):
        fake = FakeBoots()
        b, patch = booter(fake)
        with patch:
            v = b.judge(mutant(4))
        self.assertEqual(v["status"], "survived")
        self.assertEqual([s[0] for s in fake.seen], kboot.BOOTS["drbg"])

    def test_judge_crash_is_a_failed_check(self):
        def crash(spec, *a):
            raise IndexError("list index out of range")
        b, _ = booter(FakeBoots())
        with mock.patch.object(kboot.conform, "run_boot", crash):
            v = b.judge(mutant(6))
        self.assertEqual((v["status"], v["boot"]), ("killed", "drbg"))
        self.assertIn("harness-error.drbg: IndexError", v["failed"][0])

    def test_hang_is_timeout(self):
        fake = FakeBoots(hangs={5: ("drbg",)})
        b, patch = booter(fake)
        with patch:
            v = b.judge(mutant(5))
        self.assertEqual(v["status"], "timeout")
        self.assertEqual(len(fake.seen), 1)

    def test_baseline_sets_timeouts_and_must_pass(self):
        b, patch = booter(FakeBoots())
        with patch:
            b.baseline()
        self.assertEqual(set(b.timeouts), set(kboot.BOOTS["drbg"]))
        self.assertTrue(all(t >= 30 for t in b.timeouts.values()))
        b, patch = booter(FakeBoots(fails={0: ("fips-drbg",)}))
        with patch, self.assertRaises(SystemExit) as e:
            b.baseline()
        self.assertIn("fips-drbg fails without a mutant", str(e.exception))

    def test_spec_carries_the_selector(self):
        s = kboot.spec_of("drbg", 17, timeout=99)
        self.assertTrue(s["append"].endswith(" mutant=17"))
        self.assertEqual(s["timeout"], 99)
        self.assertIn("kunit.filter_glob=drbg*", s["append"])


class HostJudgeTest(unittest.TestCase):
    """A mutant of the Jitter RNG's core meets the host judge first
    (kmutants_host.py), on the test kernel only; a kill there spares the
    boots, and a build of its own is not even built."""

    CORE, GLUE = "crypto/jitterentropy.c", "crypto/jitterentropy-kcapi.c"

    def setUp(self):
        replay = mock.patch.object(kboot, "replay_checks", return_value=[])
        replay.start()
        self.addCleanup(replay.stop)

    def booter(self, verdicts, variant="test"):
        calls = []

        def judge(part, path, m, texts, out, timeout):
            calls.append((path, m and m["n"], timeout))
            return verdicts.get(m and m["n"], ("passed", [], 1.0))
        b = runner.Booter("jitter", types.SimpleNamespace(accel="tcg", variant=variant),
                          "/src", "img", "init", {})
        return b, calls, mock.patch.object(kboot.host, "judge", judge)

    def test_host_kill_spares_the_boots(self):
        b, calls, patch = self.booter({7: ("killed", ["host.test_jitter.T.t"], 9.0)})
        fake = FakeBoots()
        with patch, mock.patch.object(kboot.conform, "run_boot", fake):
            v = b.judge(mutant(7, self.CORE))
        self.assertEqual((v["status"], v["boot"], v["failed"]),
                         ("killed", "host-core", ["host.test_jitter.T.t"]))
        self.assertEqual(fake.seen, [])
        self.assertEqual([c[:2] for c in calls], [(self.CORE, 7)])

    def test_host_survivor_meets_every_boot_after_it(self):
        b, calls, patch = self.booter({})
        fake = FakeBoots()
        with patch, mock.patch.object(kboot.conform, "run_boot", fake):
            v = b.judge(mutant(8, self.CORE))
        self.assertEqual(v["status"], "survived")
        self.assertEqual([x["boot"] for x in v["boots"]],
                         ["host-core"] + kboot.BOOTS["jitter"])
        self.assertEqual(runner.judges_of("jitter", "test"),
                         ["host-core"] + kboot.BOOTS["jitter"])

    def test_glue_and_stronger_kernels_have_no_host_judge(self):
        for path, variant in ((self.GLUE, "test"), (self.CORE, "debug")):
            b, calls, patch = self.booter({}, variant)
            with patch, mock.patch.object(kboot.conform, "run_boot", FakeBoots()):
                b.judge(mutant(9, path))
            self.assertEqual(calls, [], (path, variant))
        self.assertEqual(runner.judges_of("jitter", "debug"), kboot.DEBUG_BOOTS["jitter"])

    def test_baseline_runs_the_host_judge_on_the_series(self):
        b, calls, patch = self.booter({})
        with patch, mock.patch.object(kboot.conform, "run_boot", FakeBoots()):
            b.baseline()
        self.assertEqual(calls[0], (self.CORE, None, kboot.HOST_TIMEOUT))
        self.assertEqual(b.timeouts["host-core"], 32)
        b, _, patch = self.booter({None: ("killed", ["host.test_jitter.T.t"], 1.0)})
        with patch, self.assertRaises(SystemExit) as e:
            b.baseline()
        self.assertIn("host judge host-core fails on the series", str(e.exception))

    def test_alone_mutant_killed_on_the_host_is_not_built(self):
        b, calls, patch = self.booter({3: ("killed", ["host.x"], 2.0)})
        comp = types.SimpleNamespace(texts={}, attempt=mock.Mock())
        args = types.SimpleNamespace(variant="test", accel="tcg", no_alone=False,
                                     stop=None, minutes=0, t0=0)
        with patch, mock.patch.object(runner.kbuild, "build") as build:
            r = runner.run_alone("jitter", args, "/src", comp, mutant(3, self.CORE),
                                 "init", {})
        self.assertEqual((r["status"], r["build"]), ("killed", "alone"))
        build.assert_not_called()
        comp.attempt.assert_not_called()


class ReplayTest(unittest.TestCase):
    """The main boot's recorded Jitter RNG read is replayed by the model
    as a check of the boot: a mutant whose output the model cannot
    recompute from the kernel's time stamps is killed, and so is one that
    leaves no record."""

    def test_no_record_is_a_failure(self):
        with tempfile.NamedTemporaryFile("w", suffix=".log") as f:
            f.write('{"type": "env"}\n')
            f.flush()
            checks = kboot.replay_checks({"results_log": f.name})
        self.assertEqual([(c.id, c.status) for c in checks],
                         [("jitter.replay.guest", "fail")])
        self.assertIn("0 jitter-record lines", checks[0].reason)

    def test_a_replay_that_differs_kills_in_main_only(self):
        seen = []

        def replay(recs):
            seen.append(recs)
            return None, None, [Check.failed("jitter.replay.guest", "t",
                                             "the model's output differs")]
        b = runner.Booter("jitter", types.SimpleNamespace(accel="tcg", variant="test"),
                          "/src", "img", "init", {})

        def boot(spec, *a):
            return {"outcome": "end", "results_log": os.devnull}, []
        with mock.patch.object(kboot.conform, "run_boot", boot), \
                mock.patch.object(kboot.figures, "guest_replay", replay):
            self.assertEqual(b.boot("jitter", 4)[0], "passed")
            self.assertEqual(seen, [])
            status, failed, _ = b.boot("main", 4)
        self.assertEqual((status, failed), ("killed", ["jitter.replay.guest"]))
        self.assertIn("main", kboot.BOOTS["jitter"])


class OwnBootTest(unittest.TestCase):
    """jitter-raw, a boot of the mutants' own: it reads the raw noise
    interface, and a boot that ends without reporting the check it exists
    for kills the mutant."""

    def test_a_check_not_reported_kills(self):
        b = runner.Booter("jitter", types.SimpleNamespace(accel="tcg", variant="test"),
                          "/src", "img", "init", {})
        fake = FakeBoots(silent=(5,))
        with mock.patch.object(kboot.conform, "run_boot", fake):
            self.assertEqual(b.boot("jitter-raw", 4)[0], "passed")
            status, failed, _ = b.boot("jitter-raw", 5)
        self.assertEqual((status, failed),
                         ("killed", ["boot.jitter-raw.missing.guest.entropy.raw"]))
        spec = kboot.spec_of("jitter-raw", 5)
        self.assertEqual(spec["mode"], "entropy")
        self.assertIn("conform.entropy_samples=2000", spec["append"])
        self.assertTrue(spec["append"].endswith(" mutant=5"))
        self.assertNotIn("jitter-raw", [p["name"] for p in kboot.PLAN])


class FakeCompiler:
    """Mutant 3 is blamed by the compiler; 5 fails unnamed (a macro's
    constant); 2 is blamed too while 3 is there, and fits once 3 is gone;
    9 does not compile even alone."""
    part = "drbg"

    def __init__(self):
        self.runs = 0

    def attempt(self, muts, const=None):
        self.runs += 1
        ns = {m["n"] for m in muts}
        bad = ({3, 2} if 3 in ns else set()) | ({9} & ns)
        ok = not bad and 5 not in ns
        return ok, bad & ns, "" if ok else "x.c:1:1: error: no"


class FitSchemaTest(unittest.TestCase):
    def test_fit(self):
        muts = [mutant(n) for n in range(1, 12)]
        held, dropped = runner.fit_schema(FakeCompiler(), muts)
        self.assertEqual(sorted(m["n"] for m in dropped), [3, 5, 9])
        self.assertEqual([m["n"] for m in held], [1, 2, 4, 6, 7, 8, 10, 11])

    def test_prelude_alone_fails(self):
        class Broken(FakeCompiler):
            def attempt(self, muts, const=None):
                return False, set(), "x.c:1:1: error: prelude"
        with self.assertRaises(SystemExit):
            runner.fit_schema(Broken(), [mutant(1)])


class TimeTest(unittest.TestCase):
    def test_out_of_time(self):
        import time
        args = types.SimpleNamespace(minutes=1, t0=time.time(), stop=None)
        self.assertIsNone(runner.out_of_time(args))
        args.t0 -= 61
        self.assertEqual(runner.out_of_time(args), "the run's 1 minutes were up")
        r = runner.not_run(mutant(2), args.stop)
        self.assertEqual((r["status"], r["reason"]), ("not-run", args.stop))
        args = types.SimpleNamespace(minutes=0, t0=0, stop=None)
        self.assertIsNone(runner.out_of_time(args))


class SelectTest(unittest.TestCase):
    def test_select(self):
        muts = [mutant(n) for n in range(1, 6)]
        args = types.SimpleNamespace(only="", first=2)
        self.assertEqual([m["n"] for m in runner.select(muts, args)[0]], [1, 2])
        args = types.SimpleNamespace(only=muts[3]["id"], first=0)
        self.assertEqual([m["n"] for m in runner.select(muts, args)[0]], [4])
        args = types.SimpleNamespace(only="", first=0)
        self.assertEqual(runner.select(muts, args), (muts, "all"))


class ModulesVariantTest(unittest.TestCase):
    """The modules kernel: the DRBG and the Jitter RNG are modules, which
    do not see the boot parameter mutant=, so no schema is built: every
    mutant is compiled and booted alone, after a baseline of the series."""

    def test_boots_and_schema(self):
        self.assertEqual(runner.boots_of("drbg", "modules"), ["modules"])
        self.assertEqual(runner.boots_of("jitter", "modules"), ["modules"])
        self.assertEqual(runner.boots_of("drbg", "debug"), ["debug-drbg"])
        self.assertEqual(runner.boots_of("drbg", "test"), kboot.BOOTS["drbg"])
        self.assertFalse(runner.schema_holds("modules"))
        self.assertTrue(runner.schema_holds("test") and runner.schema_holds("debug"))

    def test_built_in_part_has_no_boot(self):
        args = types.SimpleNamespace(part="random", variant="modules", settle=False)
        with self.assertRaises(SystemExit) as e:
            runner.run(args)
        self.assertIn("no boot of the modules kernel runs the code of random",
                      str(e.exception))

    def test_the_environment_chooses_the_kernel(self):
        import argparse
        ap = argparse.ArgumentParser()
        sub = ap.add_subparsers()
        with mock.patch.dict(os.environ, {"MUTANTS_VARIANT": "modules"}):
            runner.register(sub)
        self.assertEqual(ap.parse_args(["mutants"]).variant, "modules")

    def test_every_mutant_alone_after_a_baseline(self):
        src = tempfile.mkdtemp()
        os.makedirs(os.path.join(src, "crypto"))
        with open(os.path.join(src, "crypto/drbg.c"), "w") as f:
            f.write("series\n")
        texts = {"crypto/drbg.c": ("pristine\n", "series\n")}
        attempts, builds = [], []

        class Comp:
            def __init__(self, src, build, part, texts):
                self.texts = texts

            def attempt(self, muts, const=None):
                attempts.append(([m["n"] for m in muts], const))
                with open(os.path.join(src, "crypto/drbg.c"), "w") as f:
                    f.write(f"mutant {const}\n")
                return const != 2, set(), "x.c:1:1: error: no"

        def build(variant):
            with open(os.path.join(src, "crypto/drbg.c")) as f:
                builds.append((variant, f.read().strip()))
            return "/b"
        fake = FakeBoots(fails={1: ("modules",)})
        args = types.SimpleNamespace(variant="modules", accel="tcg", no_alone=False,
                                     stop=None, minutes=0, t0=0)
        with mock.patch.object(runner.kcache, "apply_series", return_value=src), \
                mock.patch.object(runner.kbuild, "build", build), \
                mock.patch.object(runner.guest, "build", return_value="init"), \
                mock.patch.object(runner, "build_dir", return_value="/b"), \
                mock.patch.object(runner, "Compiler", Comp), \
                mock.patch.object(runner, "fit_schema", side_effect=AssertionError), \
                mock.patch.object(runner, "restore"), \
                mock.patch.object(kboot.conform, "run_boot", fake):
            results, timeouts = runner.judge_part("drbg", args, texts,
                                                  [mutant(1), mutant(2), mutant(3)])
        got = {r["n"]: (r["status"], r["build"]) for r in results}
        self.assertEqual(got, {1: ("killed", "alone"), 2: ("build-failed", "alone"),
                               3: ("survived", "alone")})
        # the series itself built and booted first (the baseline), then
        # each mutant that compiles in a build of its own, N fixed
        self.assertEqual(builds, [("modules", "series"), ("modules", "series"),
                                  ("modules", "mutant 1"), ("modules", "mutant 3")])
        self.assertEqual([s[:2] for s in fake.seen],
                         [("modules", 0), ("modules", 1), ("modules", 3)])
        self.assertEqual(set(timeouts), {"modules"})
        self.assertTrue(all(c is not None for _, c in attempts))
        # before any mutant: the prelude of a build of its own, no mutant
        self.assertEqual(attempts[0], ([], 0))

    def test_a_prelude_that_does_not_compile_stops_the_run(self):
        """Not every mutant build-failed and none judged: the run stops,
        naming the compiler's error."""
        class Comp:
            part = "drbg"

            def __init__(self, *a):
                pass

            def attempt(self, muts, const=None):
                return False, set(), ("crypto/drbg.c:40:1: error: expected ')' "
                                      "before numeric constant\n")
        args = types.SimpleNamespace(variant="modules", accel="tcg", no_alone=False,
                                     stop=None, minutes=0, t0=0)
        texts = {"crypto/drbg.c": ("pristine\n", "series\n")}
        src = tempfile.mkdtemp()
        os.makedirs(os.path.join(src, "crypto"))
        with open(os.path.join(src, "crypto/drbg.c"), "w") as f:
            f.write("series\n")
        restored = []
        with mock.patch.object(runner.kcache, "apply_series", return_value=src), \
                mock.patch.object(runner.kbuild, "build", return_value="/b"), \
                mock.patch.object(runner.guest, "build", return_value="init"), \
                mock.patch.object(runner, "build_dir", return_value="/b"), \
                mock.patch.object(runner, "Compiler", Comp), \
                mock.patch.object(runner, "restore", lambda *a: restored.append(a)), \
                mock.patch.object(kboot.conform, "run_boot", side_effect=AssertionError):
            with self.assertRaises(SystemExit) as e:
                runner.judge_part("drbg", args, texts, [mutant(1)])
        self.assertIn("do not compile with the prelude of a build of its own", str(e.exception))
        self.assertIn("expected ')' before numeric constant", str(e.exception))
        self.assertEqual(len(restored), 1)


TABLE = """Prose.

<!-- equivalent-mutants -->
| mutant | why no test can tell it from the series |
|---|---|
| `drbg:f:cmp:000001` | the two branches do the same |
| `drbg:f:cmp:000002` | a stale argument |
<!-- /equivalent-mutants -->
"""


class ReportTest(unittest.TestCase):
    def table(self, text):
        d = tempfile.mkdtemp()
        path = os.path.join(d, "ch.nw")
        with open(path, "w") as f:
            f.write(text)
        return path

    def results(self):
        rs = [dict(mutant(n), status=s) for n, s in
              enumerate(["survived", "killed", "timeout", "build-failed", "survived",
                         "not-run"], 1)]
        rs.append(dict(mutant(7, path="crypto/x.c"), status="killed"))
        return rs

    def test_equivalents_and_settle(self):
        eq = report.equivalents(self.table(TABLE))
        self.assertEqual(sorted(eq), ["drbg:f:cmp:000001", "drbg:f:cmp:000002"])
        rs = self.results()
        stale = report.settle(rs, eq)
        self.assertEqual(rs[0]["status"], "equivalent")
        self.assertEqual(rs[0]["reason"], "the two branches do the same")
        self.assertEqual(stale, ["drbg:f:cmp:000002"])

    def test_resettle(self):
        rs = self.results()
        rs[4]["status"] = "equivalent"          # n=5: its row has gone since
        series = {"parts": {"drbg": {"results": rs,
                                     "files": report.per_file(rs, {"crypto/drbg.c": 4})}}}
        report.resettle(series, report.equivalents(self.table(TABLE)))
        run = series["parts"]["drbg"]
        got = {r["n"]: r["status"] for r in run["results"]}
        self.assertEqual((got[1], got[2], got[5]), ("equivalent", "killed", "survived"))
        self.assertEqual(run["files"]["crypto/drbg.c"]["equivalent"], 1)
        self.assertEqual(run["stale_equivalents"], ["drbg:f:cmp:000002"])

    def test_bad_row(self):
        bad = TABLE.replace("| `drbg:f:cmp:000002` | a stale argument |", "| oops |")
        with self.assertRaises(SystemExit) as e:
            report.equivalents(self.table(bad))
        self.assertIn("ch.nw:7:", str(e.exception))

    def test_kill_rate_counts_only_mutants(self):
        rs = self.results()
        report.settle(rs, report.equivalents(self.table(TABLE)))
        f = report.per_file(rs, {"crypto/drbg.c": 40, "crypto/y.c": 3})
        d = f["crypto/drbg.c"]
        # 6 mutants: 1 equivalent, 1 build-failed, 1 not run: 3 counted,
        # killed + timeout = 2
        self.assertEqual((d["mutants"], d["counted"], d["kill_rate"]), (6, 3, 0.6667))
        self.assertEqual(f["crypto/x.c"]["kill_rate"], 1.0)
        self.assertIsNone(f["crypto/y.c"]["kill_rate"])
        self.assertEqual(f["crypto/y.c"]["added_lines"], 3)

    def test_merge_keeps_other_parts(self):
        old = {"schema": 1, "parts": {"random": {"x": 1}, "drbg": {"x": 0}}}
        new = report.merge(old, "drbg", {"x": 2})
        self.assertEqual(new["parts"], {"random": {"x": 1}, "drbg": {"x": 2}})
        self.assertEqual(report.merge(None, "jitter", {})["parts"], {"jitter": {}})

    def test_debug_run_kills_survivors_of_the_part(self):
        rs = self.results()
        base = {"results": rs, "files": report.per_file(rs, {"crypto/drbg.c": 40}),
                "variant": "test"}
        debug = {"variant": "debug", "results": [
            dict(mutant(1), status="killed", boot="debug-drbg", failed=["x"]),
            dict(mutant(5), status="survived", boot=None, failed=[])], "files": {}}
        new = report.merge({"parts": {"drbg": base}}, "drbg", debug)["parts"]["drbg"]
        got = {r["n"]: (r["status"], r.get("kernel")) for r in new["results"]}
        self.assertEqual(got[1], ("killed", "debug"))
        self.assertEqual(got[5], ("survived", None))
        self.assertEqual(new["files"]["crypto/drbg.c"]["killed"], 2)
        self.assertEqual(new["files"]["crypto/drbg.c"]["added_lines"], 40)
        self.assertEqual(len(new["reruns"]), 1)

    def test_modules_run_kills_survivors_of_the_part(self):
        rs = self.results()
        base = {"results": rs, "files": report.per_file(rs, {"crypto/drbg.c": 40}),
                "variant": "test"}
        mods = {"variant": "modules", "started": "t3", "scope": "1 chosen by id",
                "results": [dict(mutant(5), status="timeout", boot="modules",
                                 failed=[])], "files": {}}
        new = report.merge({"parts": {"drbg": base}}, "drbg", mods)["parts"]["drbg"]
        got = {r["n"]: (r["status"], r.get("kernel"), r.get("rerun"))
               for r in new["results"]}
        self.assertEqual(got[5], ("timeout", "modules", "t3"))
        self.assertEqual(got[1], ("survived", None, None))
        self.assertEqual(new["files"]["crypto/drbg.c"]["timeout"], 2)
        self.assertEqual(new["reruns"][0]["variant"], "modules")

    def test_rerun_by_id_updates_verdicts(self):
        rs = self.results()
        base = {"results": rs, "files": report.per_file(rs, {"crypto/drbg.c": 40}),
                "variant": "test", "scope": "all"}
        again = {"variant": "test", "scope": "1 chosen by id", "started": "t2",
                 "results": [dict(mutant(5), status="killed", boot="drbg",
                                  failed=["kunit.x"])], "files": {}}
        new = report.merge({"parts": {"drbg": base}}, "drbg", again)["parts"]["drbg"]
        got = {r["n"]: r["status"] for r in new["results"]}
        self.assertEqual((got[5], got[1], len(got)), ("killed", "survived", 7))
        self.assertEqual(new["reruns"][0]["ids"], [mutant(5)["id"]])
        self.assertEqual(new["files"]["crypto/drbg.c"]["survived"], 1)

    def test_resume_after_a_run_by_id_keeps_every_verdict(self):
        rs = self.results()
        first = {"variant": "test", "scope": "2 chosen by id", "started": "t1",
                 "results": rs[:2], "files": report.per_file(rs[:2], {})}
        series = report.merge(None, "drbg", first)
        rest = {"variant": "test", "scope": f"{len(rs) - 2} not yet judged, chosen by id",
                "started": "t2", "results": rs[2:], "files": {}}
        new = report.merge(series, "drbg", rest)["parts"]["drbg"]
        self.assertEqual([r["n"] for r in new["results"]], [r["n"] for r in rs])
        self.assertEqual(new["files"]["crypto/drbg.c"]["mutants"], 6)
        self.assertEqual(new["reruns"][0]["ids"], sorted(r["id"] for r in rs[2:]))

    def test_markdown_lists_survivors(self):
        rs = self.results()
        run = {"started": "t", "selected": 7, "generated": 9, "scope": "all",
               "wall_s": 5, "boots": ["drbg"], "results": rs,
               "files": report.per_file(rs, {}), "stale_equivalents": []}
        md = report.markdown({"parts": {"drbg": run}})
        self.assertIn("`drbg:f:cmp:000005`", md)
        self.assertIn("`drbg:f:cmp:000006`", md)
        self.assertNotIn("`drbg:f:cmp:000002`", md)
        self.assertIn("| crypto/drbg.c | - | 6 | 1 | 1 | 2 | 0 | 1 | 1 | 50.0% |", md)


if __name__ == "__main__":
    unittest.main()
