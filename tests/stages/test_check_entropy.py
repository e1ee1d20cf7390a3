# SPDX-License-Identifier: GPL-2.0-only
"""make check's entropy step (check.entropy_step): the kept record's
verdicts on the five sources make check collects are judged again from
its summary when it was made on this tree's inputs; a changed input, a
record that lacks a source or is missing, or FRESH=entropy (or all) collects the
sources again, and says why."""

import json
import os
import shutil
import tempfile
import unittest
from unittest import mock

from harness.base import config, evidence, files
from harness.judges import entropy_report
from harness.stages import check

RECORD = "evidence/entropy/summary.json"


class KeptEntropyTest(unittest.TestCase):
    """A repository of its own: a manifest naming the record, the record's
    summary, and none of the inputs (their digest is of their absence)."""

    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="check-entropy-")
        self.addCleanup(shutil.rmtree, self.root)
        with open(config.top(RECORD)) as f:
            self.summary = json.load(f)
        self.summary["inputs"] = {"entropy": evidence.digest(
            evidence.RECORDS["entropy"]["inputs"], self.root)}
        self.write(self.summary)
        files.write_json(os.path.join(self.root, evidence.MANIFEST),
                         {"entropy": {"file": RECORD}})

    def write(self, summary):
        files.write_json(os.path.join(self.root, RECORD), summary)

    def test_a_current_record_stands_in(self):
        summary, path, why = check.kept_entropy(self.root)
        self.assertEqual((path, why), (RECORD, None))
        self.assertEqual(summary["started"], self.summary["started"])

    def test_a_changed_input_collects_again(self):
        files.write_text(os.path.join(self.root, "tangled", "patches", "0001-x.patch"), "x\n")
        summary, path, why = check.kept_entropy(self.root)
        self.assertEqual((summary, path), (None, None))
        self.assertIn("was made on other inputs than this tree's", why)
        self.assertTrue(why.endswith("run `make entropy` again"), why)

    def test_a_record_without_a_digest_or_a_source_or_at_all(self):
        del self.summary["inputs"]
        self.write(self.summary)
        self.assertIn("carries no digest of its inputs", check.kept_entropy(self.root)[2])
        self.summary["inputs"] = {"entropy": "x"}
        del self.summary["sources"]["ours-uml-tsc-fixed"]
        self.write(self.summary)
        self.assertEqual(check.kept_entropy(self.root),
                         (None, None, f"{RECORD} lacks ours-uml-tsc-fixed"))
        files.write_text(os.path.join(self.root, RECORD), "{not json")
        self.assertEqual(check.kept_entropy(self.root),
                         (None, None, f"{RECORD} is missing or holds no sources"))
        files.write_json(os.path.join(self.root, evidence.MANIFEST), {})
        self.assertEqual(check.kept_entropy(self.root),
                         (None, None, "evidence/ keeps no entropy record"))

    def test_the_five_sources_verdicts_are_the_record_s(self):
        got = check.reused_entropy(self.summary, RECORD)
        every = {c.id: c for c in entropy_report.checks(self.summary)}
        names = {c.id.split(".")[1] for c in got} - {"claim"}
        self.assertEqual(names, set(check.CHECK_SOURCES))
        self.assertLess(len(got), len(every))
        for c in got:
            self.assertEqual((c.status, c.counts), (every[c.id].status, every[c.id].counts))
            self.assertEqual((c.details["from_record"], c.details["recorded"]),
                             (RECORD, self.summary["started"]))
        self.assertIn("entropy.claim.cutoffs", [c.id for c in got])

    def test_the_step_judges_again_or_collects(self):
        for fresh, changed, collects in (("", False, False), ("entropy", False, True),
                                         ("acvp,all", False, True), ("acvp", False, False),
                                         ("", True, True)):
            if changed:
                files.write_text(os.path.join(self.root, "conformance", "entropy", "x"), "")
            r = check.Run()
            with self.subTest(fresh=fresh, changed=changed), \
                    mock.patch.dict(os.environ, {"FRESH": fresh}), \
                    mock.patch.object(check, "json_step") as step, \
                    mock.patch.object(check, "step"):
                check.entropy_step(r, self.root)
                if collects:
                    title, key, verb, fallback = step.call_args.args[1:]
                    self.assertEqual((key, verb, fallback), (
                        "entropy", ["entropy", "--sources", ",".join(check.CHECK_SOURCES)],
                        "entropy.run"))
                    self.assertIn("FRESH=entropy" if fresh else "changed since", title)
                    self.assertEqual(r.checks, [])
                else:
                    step.assert_not_called()
                    self.assertEqual(len(r.checks),
                                     len(check.reused_entropy(self.summary, RECORD)))
                    self.assertIn("entropy", r.timings)


if __name__ == "__main__":
    unittest.main()
