# SPDX-License-Identifier: GPL-2.0-only
"""The hardening appendix's mutation score is drawn from
build/mutants/series.json: its counts and kill rate per file, its
survivors named and noted, the parts not run named with their command,
and without the file a placeholder naming make mutants."""

import json
import os
import tempfile
import unittest

from harness.base import evidence
from harness.stages.book import hardening, mutation
from harness.stages.book.md import code, esc
from harness.stages.book.output import texttt_breaks

# A rerun of more mutants than the book lists for a test-kernel sitting.
RERUNS = mutation.RERUN_LIST_MAX + 5

RUN = {"started": "2026-12-04T01:00:00+00:00", "wall_s": 1234, "generated": 163,
       "selected": 40, "scope": "the first 40 in file order", "accel": "tcg",
       "boots": ["teeth", "drbg"],
       "files": {"crypto/drbg.c": {"added_lines": 326, "mutants": 40, "killed": 20,
                                   "timeout": 2, "survived": 3, "equivalent": 4,
                                   "build-failed": 10, "not-run": 1, "counted": 25,
                                   "kill_rate": 0.88}},
       "results": [{"id": "drbg:f:cmp:abcdef", "file": "crypto/drbg.c", "line": 7,
                    "what": "`<` -> `>=`", "status": "survived", "seconds": 50},
                   {"id": "drbg:f:call:123456", "file": "crypto/drbg.c", "line": 9,
                    "what": "delete `g();`", "status": "killed", "seconds": 30}],
       "stale_equivalents": []}


class MutationSectionTest(unittest.TestCase):
    def render(self, series):
        with tempfile.TemporaryDirectory() as top:
            if series is not None:
                for run in series.get("parts", {}).values():
                    run.setdefault("inputs", evidence.digests(top))
                os.makedirs(os.path.join(top, "build/mutants"))
                with open(os.path.join(top, mutation.PATH), "w") as f:
                    json.dump(series, f)
            return hardening.render({"top": top, "report": None, "esc": esc,
                                     "code": code})

    def test_placeholder_names_the_command(self):
        md, notes = self.render(None)
        sec = md.split("Mutation score of the series")[1]
        self.assertIn("::: placeholder", sec)
        self.assertIn("`make mutants` writes it", sec)
        self.assertEqual(notes, [])

    def test_figures_from_the_run(self):
        md, notes = self.render({"schema": 1, "parts": {"drbg": RUN}})
        self.assertIn("| `crypto/drbg.c` | 326 | 40 | 20 | 2 | 3 | 4 | 10 | 1 | 88.0% |", md)
        self.assertIn("40 of 163 mutants selected (the first 40 in file order), 2 judged "
                      "by a boot, wall time 1234 s", md)
        self.assertIn("`drbg:f:cmp:abcdef`", md)
        self.assertNotIn("`drbg:f:call:123456`", md)
        self.assertIn("Boot time per mutant judged: 40 s on average.", md)
        self.assertIn("`make mutants MUTANTS=random`", md)
        self.assertIn("`make mutants MUTANTS=jitter`", md)
        self.assertEqual(notes, [])  # named in the text, not a build failure

    def test_a_part_not_judged_in_full_says_so(self):
        md, _ = self.render({"schema": 1, "parts": {"drbg": RUN}})
        # 1 stopped by the time box, 123 never chosen (the first 40 of 163)
        self.assertIn("**Not final: 124 mutant(s) not judged yet.**", md)
        self.assertIn("`make mutants MUTANTS=drbg MUTANTS_RESUME=1`", md)
        whole = dict(RUN, generated=40, files={"crypto/drbg.c": dict(
            RUN["files"]["crypto/drbg.c"], **{"not-run": 0})})
        md, _ = self.render({"schema": 1, "parts": {"drbg": whole}})
        self.assertNotIn("Not final", md)

    def test_survivor_code_is_inline_code_that_breaks(self):
        """A survivor's description gives its code as inline code, which
        the PDF can break: the first jitter sitting's survivors were long
        words of text with literal backticks (0x67452301efcdab89ULL+1),
        and ran 54 bp into the margin."""
        what = "`0x67452301efcdab89ULL` -> `0x67452301efcdab89ULL+1`"
        self.assertEqual(mutation.what_md(what, esc, code),
                         f"{code('0x67452301efcdab89ULL')}{esc(' -> ')}"
                         f"{code('0x67452301efcdab89ULL+1')}")
        self.assertEqual(mutation.what_md("a ` b", esc, code), esc("a ` b"))
        res = [dict(RUN["results"][0], what=what)]
        md, _ = self.render({"schema": 1, "parts": {"drbg": dict(RUN, results=res)}})
        self.assertIn("`0x67452301efcdab89ULL+1`", md)
        self.assertNotIn("\\`", md)
        tex = texttt_breaks(r"\texttt{0x67452301efcdab89ULL+1}")
        self.assertEqual(tex, r"\texttt{0x67452301efcdab89ULL+\allowbreak{}1}")

    def test_reruns_are_named(self):
        run = dict(RUN, reruns=[{"started": "t2", "variant": "test", "wall_s": 300,
                                 "ids": ["drbg:f:cmp:abcdef"]}])
        md, _ = self.render({"schema": 1, "parts": {"drbg": run}})
        self.assertIn("Judged again (t2, on the test kernel, 300 s): "
                      "`drbg:f:cmp:abcdef`; killed there: none.", md)

    def test_rerun_names_its_kills(self):
        res = [dict(RUN["results"][0], status="killed", boot="modules", rerun="t3",
                    kernel="modules"),
               dict(RUN["results"][1], rerun="t2")]
        run = dict(RUN, results=res, reruns=[
            {"started": "t2", "variant": "debug", "wall_s": 300,
             "ids": ["drbg:f:call:123456"]},
            {"started": "t3", "variant": "modules", "wall_s": 90,
             "ids": ["drbg:f:cmp:abcdef"]}])
        md, _ = self.render({"schema": 1, "parts": {"drbg": run}})
        self.assertIn("(t2, on the debug kernel, 300 s): `drbg:f:call:123456`; "
                      "killed there: `drbg:f:call:123456` (by `?`).", md)
        self.assertIn("(t3, on the modules kernel, 90 s): `drbg:f:cmp:abcdef`; "
                      "killed there: `drbg:f:cmp:abcdef` (by `modules`).", md)

    def test_a_long_sitting_is_told_by_its_counts(self):
        ids = [f"jitter:f:const:{n:06x}" for n in range(20)]
        res = [{"id": i, "file": "crypto/jitterentropy.c", "line": 3, "what": "x",
                "status": "killed" if n < 15 else "not-run", "rerun": "t4"}
               for n, i in enumerate(ids)]
        run = dict(RUN, results=res, wall_s=1000, reruns=[
            {"started": "t4", "variant": "test", "wall_s": 3600, "ids": ids},
            {"started": "t5", "variant": "debug", "wall_s": 200, "ids": ids[:1]}])
        md, _ = self.render({"schema": 1, "parts": {"jitter": run}})
        self.assertIn("Judged again (t4, on the test kernel, 3600 s): 20 mutants; "
                      "of its verdicts that still stand: 15 killed, 5 not run.", md)
        self.assertNotIn(f"`{ids[7]}`", md)
        self.assertIn("Wall time of the run and its 2 later sitting(s): 4800 s "
                      "(1.3 h).", md)

    def test_a_record_of_sittings_is_not_told_as_its_first(self):
        """A part begun with two mutants chosen by id and judged in later
        sittings: the opening line gave the first sitting's "2 of 673
        selected ... wall time 161 s" as if it were the record's."""
        res = [{"id": f"jitter:-:const:{n:06x}", "file": "crypto/jitterentropy.c",
                "line": 3, "what": "x", "status": "killed", "rerun": "t7"}
               for n in range(3)]
        run = dict(RUN, results=res, generated=3, selected=2, wall_s=161,
                   scope="2 chosen by id", reruns=[
                       {"started": "t7", "variant": "test", "wall_s": 900,
                        "ids": [r["id"] for r in res]}])
        md, _ = self.render({"schema": 1, "parts": {"jitter": run}})
        self.assertIn("The record of the part: 3 of 3 mutants listed, 3 judged by a "
                      "boot, over 2 sittings under tcg.", md)
        self.assertIn(f"The first sitting started {esc(RUN['started'])}: 2 of 3 "
                      "mutants selected (2 chosen by id), wall time 161 s;", md)
        self.assertNotIn("Run started", md)

    def test_a_part_begun_by_id_is_not_final(self):
        res = [{"id": f"jitter:-:const:{n:06x}", "file": "crypto/jitterentropy-kcapi.c",
                "line": 496, "what": "x", "status": "killed", "boot": "main"}
               for n in range(2)]
        run = dict(RUN, results=res, generated=673, selected=2,
                   scope="2 chosen by id", files={"crypto/jitterentropy-kcapi.c": {
                       "mutants": 2, "killed": 2, "counted": 2, "kill_rate": 1.0}})
        md, _ = self.render({"schema": 1, "parts": {"jitter": run}})
        self.assertIn("**Not final: 671 mutant(s) not judged yet.**", md)

    def test_a_long_rerun_on_a_stronger_kernel_names_its_kills(self):
        ids = [f"jitter:f:const:{n:06x}" for n in range(RERUNS)]
        res = [{"id": i, "file": "crypto/jitterentropy.c", "line": 3, "what": "x",
                "status": "killed" if n % 2 == 0 else "survived", "rerun": "t6",
                "boot": "debug-main"} for n, i in enumerate(ids)]
        run = dict(RUN, results=res, wall_s=1000, reruns=[
            {"started": "t6", "variant": "debug", "wall_s": 900, "ids": ids}])
        md, _ = self.render({"schema": 1, "parts": {"jitter": run}})
        self.assertIn("Judged again (t6, on the debug kernel, 900 s): `" + ids[0], md)
        self.assertIn(f"`{ids[RERUNS - 1]}` (by `debug-main`)", md)
        self.assertNotIn(f"`{ids[RERUNS - 2]}` (by", md)

    def test_stale_row_is_noted(self):
        run = dict(RUN, results=[], stale_equivalents=["drbg:f:ret:000000"])
        md, notes = self.render({"schema": 1, "parts": {"drbg": run}})
        self.assertIn("Argued equivalent but killed: `drbg:f:ret:000000`.", md)
        self.assertEqual(notes, ["mutants: 1 row(s) of the equivalence table killed"])


if __name__ == "__main__":
    unittest.main()
