# SPDX-License-Identifier: GPL-2.0-only
"""The recorded runs (harness/base/evidence.py): a report is kept only if
it was made on this tree's inputs, the digest moves with any input and
with nothing else, the book says where its figures came from and whether
they are current, and make mutants goes on from a recorded run of the
same inputs (and only of the same inputs)."""

import contextlib
import io
import json
import os
import tempfile
import types
import unittest
from unittest import mock

from harness.base import config, evidence
from harness.stages import kmutants_run as runner
from harness.stages import kmutants_report as kreport
from harness.stages.book import hardening
from harness.stages.book.md import code, esc


def write(top, rel, text):
    path = os.path.join(top, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def tree(top):
    write(top, "tangled/patches/0001-a.patch", "patch one\n")
    write(top, "conformance/guest/main.c", "int main(void) { return 0; }\n")
    write(top, "harness/judges/x.py", "X = 1\n")
    write(top, "harness/stages/stress.py", "S = 1\n")


def stress_report(top):
    return {"started": "2026-12-04T17:00:00+00:00", "duration_s": 1300,
            "inputs": evidence.digests(top), "checks": [],
            "stress": {"figures": {"calls": 100000, "seed": 20, "seconds": 3600,
                                   "race_rounds": 5000, "module_rounds": 1000},
                       "targets": {"calls": 100000, "race_cycles": 10000,
                                   "module_cycles": 1000},
                       "boots": [], "calls": 100009, "race_cycles": 10000,
                       "module_cycles": 2000, "fault_points": 591,
                       "kernel_log_reports": 0, "kmemleak_unexplained": 0}}


class DigestTest(unittest.TestCase):
    def test_moves_with_inputs_only(self):
        with tempfile.TemporaryDirectory() as top:
            tree(top)
            d0 = evidence.digests(top)
            write(top, "harness/stages/book/render.py", "not an input\n")
            write(top, "conformance/guest/__pycache__/x.pyc", "bytes\n")
            d = evidence.digests(top)
            # The harness's generated mutants are judged by the whole
            # harness and its tests, the bench times the pipeline itself,
            # and make check's kept steps run it: any file of the harness
            # is their input.
            whole = ("hmutants", "bench") + tuple(f"check-{k}" for k in evidence.CHECK_STEPS)
            for n in whole:
                self.assertNotEqual(d.pop(n), d0[n], n)
            self.assertEqual(d, {n: v for n, v in d0.items() if n not in whole})
            self.assertEqual(len(d), 7)
            # A chapter's prose, the book and evidence/ are no step's input.
            d1 = evidence.digests(top)
            for rel in ("chapters/10-x.nw", "book/t.html", "evidence/x.json", "README.md"):
                write(top, rel, "prose\n")
            self.assertEqual(evidence.digests(top), d1)
            d0 = evidence.digests(top)
            write(top, "conformance/guest/main.c", "int main(void) { return 1; }\n")
            d1 = evidence.digests(top)
            self.assertTrue(all(d1[n] != d0[n] for n in evidence.RECORDS
                                if n not in ("kconfig", "hmutants")))
            # The Kconfig matrix builds no guest: the guest is not its input.
            self.assertEqual(d1["kconfig"], d0["kconfig"])
            self.assertEqual(d1["hmutants"], d0["hmutants"])
            write(top, "harness/stages/stress.py", "S = 2\n")
            d2 = evidence.digests(top)
            self.assertNotEqual(d2["stress"], d1["stress"])
            self.assertEqual(d2["mutants"], d1["mutants"])
            os.remove(os.path.join(top, "tangled/patches/0001-a.patch"))
            self.assertNotEqual(evidence.digests(top)["i386"], d2["i386"])
            self.assertNotEqual(evidence.digests(top)["kconfig"], d2["kconfig"])

    def test_a_renamed_input_moves_it(self):
        with tempfile.TemporaryDirectory() as top:
            tree(top)
            d0 = evidence.digests(top)["mutants"]
            os.rename(os.path.join(top, "tangled/patches/0001-a.patch"),
                      os.path.join(top, "tangled/patches/0002-a.patch"))
            self.assertNotEqual(evidence.digests(top)["mutants"], d0)


class RecordTest(unittest.TestCase):
    def test_missing_report(self):
        with tempfile.TemporaryDirectory() as top:
            tree(top)
            with self.assertRaises(SystemExit) as e:
                evidence.record("stress", top)
            self.assertIn("no build/stress/report.json", str(e.exception))
            self.assertIn("make stress", str(e.exception))

    def refused(self, spoil, reason):
        """The report spoiled so is not kept, and the error says why."""
        with tempfile.TemporaryDirectory() as top:
            tree(top)
            rep = stress_report(top)
            spoil(top, rep)
            write(top, "build/stress/report.json", json.dumps(rep))
            with self.assertRaises(SystemExit) as e:
                evidence.record("stress", top)
            self.assertIn(reason, str(e.exception))
            self.assertFalse(os.path.exists(os.path.join(top, "evidence")))

    def test_report_without_digest_is_refused(self):
        self.refused(lambda top, rep: rep.pop("inputs"), "carries no digest")

    def test_report_of_other_inputs_is_refused(self):
        self.refused(lambda top, rep: write(top, "harness/judges/x.py", "X = 2\n"),
                     "other inputs")

    def test_recorded_and_read_back(self):
        with tempfile.TemporaryDirectory() as top:
            tree(top)
            rep = stress_report(top)
            write(top, "build/stress/report.json", json.dumps(rep))
            entry = evidence.record("stress", top)
            self.assertEqual(entry["file"], "evidence/stress.json")
            self.assertEqual(entry["digest"], rep["inputs"]["stress"])
            self.assertIsNone(entry["commit"])  # not a git tree
            man = evidence.manifest(top)
            self.assertEqual(list(man), ["stress"])
            os.remove(os.path.join(top, "build/stress/report.json"))
            got, prov = evidence.load("stress", top)
            self.assertEqual(got, rep)
            self.assertEqual((prov["source"], prov["current"]), ("evidence", True))
            write(top, "tangled/patches/0001-a.patch", "patch one, mended\n")
            self.assertFalse(evidence.load("stress", top)[1]["current"])

    def test_build_comes_first(self):
        with tempfile.TemporaryDirectory() as top:
            tree(top)
            write(top, "build/stress/report.json", json.dumps(stress_report(top)))
            evidence.record("stress", top)
            newer = dict(stress_report(top), duration_s=1)
            write(top, "build/stress/report.json", json.dumps(newer))
            rep, prov = evidence.load("stress", top)
            self.assertEqual((rep["duration_s"], prov["source"]), (1, "build"))

    def test_mutants_every_run_and_rerun_counts(self):
        with tempfile.TemporaryDirectory() as top:
            tree(top)
            now = evidence.digests(top)
            series = {"parts": {"drbg": {"inputs": now, "results": [],
                                         "reruns": [{"inputs": {"mutants": "old"}}]}}}
            self.assertFalse(evidence.current(series, "mutants", top))
            series["parts"]["drbg"]["reruns"][0]["inputs"] = now
            self.assertTrue(evidence.current(series, "mutants", top))
            self.assertFalse(evidence.current({"parts": {}}, "mutants", top))


class VerbTest(unittest.TestCase):
    def test_passes_over_what_is_missing_and_fails_on_a_stale_report(self):
        from harness.stages import evidence as verb
        with tempfile.TemporaryDirectory() as top, mock.patch.object(config, "TOP", top):
            tree(top)
            write(top, "build/stress/report.json", json.dumps(stress_report(top)))
            self.assertEqual(verb.run(types.SimpleNamespace(only="")), 0)
            self.assertEqual(list(evidence.manifest(top)), ["stress"])
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                self.assertEqual(verb.run(types.SimpleNamespace(only="i386")), 1)
            self.assertIn("no build/conformance-i386/report.json", err.getvalue())
            write(top, "harness/judges/x.py", "X = 3\n")
            with contextlib.redirect_stderr(err):
                self.assertEqual(verb.run(types.SimpleNamespace(only="stress")), 1)
            self.assertIn("other inputs", err.getvalue())
            with self.assertRaises(SystemExit) as e:
                verb.run(types.SimpleNamespace(only="arm"))
            self.assertIn("no record arm", str(e.exception))


class BookTest(unittest.TestCase):
    def render(self, top):
        return hardening.render({"top": top, "report": None, "esc": esc, "code": code})

    def test_the_book_names_the_recorded_run(self):
        with tempfile.TemporaryDirectory() as top:
            tree(top)
            write(top, "build/stress/report.json", json.dumps(stress_report(top)))
            evidence.record("stress", top)
            os.remove(os.path.join(top, "build/stress/report.json"))
            md, notes = self.render(top)
            section = md.split("#hardening-stress")[1].split("#hardening-i386")[0]
            self.assertIn("The recorded run `evidence/stress.json`", section)
            self.assertIn("From `evidence/stress.json`", section)
            self.assertIn("made on this tree's inputs", section)
            self.assertIn("100009 calls", section)
            self.assertEqual([n for n in notes if "stress" in n], [])
            write(top, "harness/stages/stress.py", "S = 3\n")
            md, notes = self.render(top)
            self.assertIn("**not made on this tree's inputs**", md)
            self.assertEqual([n for n in notes if "stress" in n], [])


class ResumeTest(unittest.TestCase):
    def series(self, top, inputs):
        res = [{"id": "drbg:f:cmp:aaaaaa", "file": "crypto/drbg.c", "line": 3, "what": "x",
                "status": "killed"},
               {"id": "drbg:f:cmp:bbbbbb", "file": "crypto/drbg.c", "line": 4, "what": "y",
                "status": "not-run"}]
        return {"schema": 1, "parts": {"drbg": {
            "inputs": inputs, "results": res, "files": {}, "started": "s",
            "selected": 2, "generated": 2, "scope": "all", "wall_s": 9, "boots": ["drbg"]}}}

    def test_adopted_only_if_current(self):
        with tempfile.TemporaryDirectory() as top:
            tree(top)
            out = os.path.join(top, "build/mutants")
            with mock.patch.object(config, "TOP", top), \
                    mock.patch.object(kreport, "OUT", out):
                write(top, "build/mutants/series.json",
                      json.dumps(self.series(top, evidence.digests(top))))
                evidence.record("mutants", top)
                os.remove(os.path.join(out, "series.json"))
                write(top, "harness/judges/x.py", "X = 9\n")
                runner.adopt_evidence()
                self.assertFalse(os.path.exists(os.path.join(out, "series.json")))
                write(top, "harness/judges/x.py", "X = 1\n")
                runner.adopt_evidence()
                with open(os.path.join(out, "series.json")) as f:
                    got = json.load(f)
                self.assertEqual(got["parts"]["drbg"]["results"][1]["status"], "not-run")

    def test_resume_selects_what_is_not_judged(self):
        with tempfile.TemporaryDirectory() as top:
            out = os.path.join(top, "build/mutants")
            muts = [{"id": i, "n": n} for n, i in enumerate(
                ["drbg:f:cmp:aaaaaa", "drbg:f:cmp:bbbbbb", "drbg:f:cmp:cccccc"], 1)]
            args = types.SimpleNamespace(resume=True, only="", first=0)
            with mock.patch.object(kreport, "OUT", out):
                self.assertEqual(runner.select(muts, args, "drbg"), (muts, "all"))
                write(top, "build/mutants/series.json", json.dumps(self.series(top, {})))
                sel, scope = runner.select(muts, args, "drbg")
            self.assertEqual([m["n"] for m in sel], [2, 3])
            self.assertTrue(scope.endswith("chosen by id"))
            run = {"started": "t", "scope": scope, "results": [
                {"id": "drbg:f:cmp:bbbbbb", "file": "crypto/drbg.c", "status": "survived"},
                {"id": "drbg:f:cmp:cccccc", "file": "crypto/drbg.c", "status": "killed"}]}
            merged = kreport.merge(self.series(top, {}), "drbg", run)
            got = {r["id"]: r["status"] for r in merged["parts"]["drbg"]["results"]}
            self.assertEqual(got["drbg:f:cmp:bbbbbb"], "survived")


class EntropyRecordTest(unittest.TestCase):
    """make evidence keeps the entropy run whole: its summary, each source's
    assessments, the figures' data, the 8-bit sample files (xz) and the
    SHA-256 of every raw file; nothing of an earlier record survives; a
    run of other inputs is refused."""

    def run_dir(self, top, raw=b"\x01\x02\x03" * 1000):
        write(top, "conformance/entropy/collect.c", "int x;\n")
        b = os.path.join(top, "build/entropy")
        summary = {"inputs": evidence.digests(top),
                   "sources": {n: {} for n in evidence.RECORDS["entropy"]["complete"]}}
        write(top, "build/entropy/summary.json", json.dumps(summary))
        write(top, "build/entropy/ours-uml-tsc/assessment.json", '{"H_I": 1.0}')
        write(top, "build/entropy/figures/entropy-deltas.json", "{}")
        for name in ("raw.bin", "restart.bin", "deltas.bin"):
            with open(os.path.join(b, "ours-uml-tsc", name), "wb") as f:
                f.write(raw)
        return b

    def test_the_run_is_kept_with_its_samples(self):
        import hashlib
        import lzma
        with tempfile.TemporaryDirectory() as top:
            tree(top)
            self.run_dir(top)
            write(top, "evidence/entropy/old-source/raw.bin.xz", "stale")
            e = evidence.record("entropy", top)
            self.assertEqual(e["file"], "evidence/entropy/summary.json")
            d = os.path.join(top, "evidence/entropy")
            self.assertFalse(os.path.exists(os.path.join(d, "old-source/raw.bin.xz")))
            with open(os.path.join(d, "ours-uml-tsc/raw.bin.xz"), "rb") as f:
                self.assertEqual(lzma.decompress(f.read()), b"\x01\x02\x03" * 1000)
            self.assertTrue(os.path.exists(os.path.join(d, "ours-uml-tsc/restart.bin.xz")))
            self.assertFalse(os.path.exists(os.path.join(d, "ours-uml-tsc/deltas.bin.xz")))
            self.assertTrue(os.path.exists(os.path.join(d, "ours-uml-tsc/assessment.json")))
            self.assertTrue(os.path.exists(os.path.join(d, "figures/entropy-deltas.json")))
            with open(os.path.join(d, "SHA256SUMS")) as f:
                sums = dict(reversed(ln.split("  ")) for ln in f.read().splitlines())
            want = hashlib.sha256(b"\x01\x02\x03" * 1000).hexdigest()
            self.assertEqual(sums, {f"ours-uml-tsc/{n}": want
                                    for n in ("deltas.bin", "raw.bin", "restart.bin")})
            rep, prov = evidence.load("entropy", top)
            self.assertEqual(prov["source"], "build")
            os.rename(os.path.join(top, "build"), os.path.join(top, "build.away"))
            rep, prov = evidence.load("entropy", top)
            self.assertEqual((prov["source"], prov["current"]), ("evidence", True))

    def test_the_history_of_earlier_designs_is_left_alone(self):
        """evidence/history/ (kept by hand: runs of earlier designs of the
        core) is no record's: keeping the entropy run neither removes nor
        changes it, and the manifest does not name it."""
        with tempfile.TemporaryDirectory() as top:
            tree(top)
            self.run_dir(top)
            write(top, "evidence/history/von-neumann-2026-12-06.json", '{"code": {}}')
            evidence.record("entropy", top)
            with open(os.path.join(top, "evidence/history/von-neumann-2026-12-06.json")) as f:
                self.assertEqual(f.read(), '{"code": {}}')
            self.assertFalse(any("history" in json.dumps(e)
                                 for e in evidence.manifest(top).values()))
        for rec in evidence.RECORDS.values():
            self.assertNotIn("history", json.dumps(rec))

    def test_no_pool_words_or_unbiased_bits_are_kept(self):
        """The record keeps the raw samples' and the output blocks' files;
        the earlier design's derived bits (fold, vn, words) are gone."""
        rec = json.dumps(evidence.RECORDS["entropy"])
        for gone in ("fold", "vn.", "words"):
            self.assertNotIn(gone, rec)
        self.assertIn("*/blocks-bits.json", evidence.RECORDS["entropy"]["keep"])

    def test_a_partial_run_is_refused(self):
        """make check's four sources are not the record of make entropy."""
        with tempfile.TemporaryDirectory() as top:
            tree(top)
            self.run_dir(top)
            path = os.path.join(top, "build/entropy/summary.json")
            with open(path) as f:
                rep = json.load(f)
            del rep["sources"]["ours-uml"]
            write(top, "build/entropy/summary.json", json.dumps(rep))
            with self.assertRaisesRegex(SystemExit, "lacks ours-uml: only a full"):
                evidence.record("entropy", top)

    def test_a_run_of_other_inputs_is_refused(self):
        with tempfile.TemporaryDirectory() as top:
            tree(top)
            self.run_dir(top)
            write(top, "harness/judges/entropy_report.py", "changed = 1\n")
            with self.assertRaisesRegex(SystemExit, "other inputs"):
                evidence.record("entropy", top)
            self.assertFalse(os.path.exists(os.path.join(top, "evidence/entropy")))


if __name__ == "__main__":
    unittest.main()
