# SPDX-License-Identifier: GPL-2.0-only
"""No check is reported twice in one run of make conform.

Each boot's check ids are prefixed by the boot's prefix (its variant's
name for the debug and modules kernels; "fips", "nojent" where set), and
report.json refuses an id reported twice.  Two boots with one prefix must
therefore not run the same guest check function.  The functions a boot
mode runs are read from run_checks() in conformance/guest/checks.c; a
boot whose command line carries conform.record=0 leaves the record's
checks out.  A boot expected to panic reports no guest check and is not
counted.  The debug kernel's boots once both ran the record's checks
(debug-main in mode checks, debug-jitter in mode jitter-record): only the
full make check saw it, after 12 minutes.
"""

import os
import re
import unittest

from harness.base import config
from harness.stages import plan

CHECKS_C = "conformance/guest/checks.c"


def mode_functions(text):
    """{mode: [check_* or run_* functions it calls]} from run_checks()."""
    out = {}
    for m in re.finditer(r'if \(!strcmp\(mode, "([^"]+)"\)\) \{(.*?)\n\t\}', text, re.S):
        out[m.group(1)] = re.findall(r"\b((?:check|run)_\w+)\(", m.group(2))
    return out


def boot_functions(spec, modes):
    fns = set(modes.get(spec["mode"], []))
    if re.search(r"(^|\s)conform\.record=0(\s|$)", spec.get("append", "")):
        fns.discard("check_jitter_record")
    return fns


class PlanIdsTest(unittest.TestCase):
    def setUp(self):
        with open(os.path.join(config.top(), CHECKS_C)) as f:
            self.modes = mode_functions(f.read())

    def test_the_modes_are_read(self):
        self.assertIn("check_jitter_record", self.modes["checks"])
        self.assertEqual(self.modes["jitter-record"], ["check_jitter_record"])
        for spec in plan.BOOTS:
            if spec["mode"] not in ("idle", "hang"):
                self.assertIn(spec["mode"], self.modes, spec["name"])

    def test_no_guest_check_in_two_boots_of_one_prefix(self):
        for plans in (plan.BOOTS, plan.STRESS_BOOTS):
            seen = {}
            for spec in plans:
                if spec.get("optional") or spec.get("expect") != "end":
                    continue
                variant = spec.get("variant", "test")
                prefix = spec.get("prefix", variant if variant != "test" else None)
                for fn in boot_functions(spec, self.modes):
                    other = seen.setdefault((prefix, fn), spec["name"])
                    self.assertEqual(other, spec["name"],
                                     f"{fn} runs in boots {other} and {spec['name']}, "
                                     f"both with prefix {prefix}")

    def test_the_duplicate_is_seen(self):
        """Without conform.record=0 the debug-main boot repeats debug-jitter's checks."""
        main = next(s for s in plan.BOOTS if s["name"] == "debug-main")
        bare = dict(main, append=main["append"].replace("conform.record=0", ""))
        self.assertIn("check_jitter_record", boot_functions(bare, self.modes))
        self.assertNotIn("check_jitter_record", boot_functions(main, self.modes))


class ProducesTest(unittest.TestCase):
    """Every boot that ends on its own declares what it must report
    ("produces", issue 38: a guest that sent only its markers passed), and
    each id declared is one the project can report: a guest check named
    in conformance/guest/, a host judge's id, a KUnit suite of the
    series."""

    def sources(self, *globs):
        import glob
        text = ""
        for g in globs:
            for path in sorted(glob.glob(config.top(g))):
                with open(path, errors="replace") as f:
                    text += f.read()
        return text

    def test_every_boot_that_ends_declares_its_checks(self):
        for spec in plan.BOOTS:
            if spec["expect"] == "end":
                self.assertTrue(spec.get("produces"), spec["name"])
            elif spec["expect"] == "panic":
                self.assertEqual(spec.get("produces"), [], spec["name"])

    def test_each_declared_id_can_be_reported(self):
        guest = self.sources("conformance/guest/*.c")
        judges = self.sources("harness/judges/*.py")
        patches = self.sources("tangled/patches/*.patch")
        suites = set(re.findall(r'\.name = "(\w+)"', patches))
        # An id the guest formats ("guest.kcapi.%s" for each driver).
        formats = set(re.findall(r'"([\w.-]+\.)%s"', guest))
        for spec in plan.BOOTS:
            for cid in spec.get("produces", []):
                if cid.startswith("kunit."):
                    self.assertIn(cid[len("kunit."):], suites, (spec["name"], cid))
                else:
                    self.assertTrue(f'"{cid}"' in guest or f'"{cid}' in judges
                                    or any(cid.startswith(f) for f in formats),
                                    (spec["name"], cid))


if __name__ == "__main__":
    unittest.main()
