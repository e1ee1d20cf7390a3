# SPDX-License-Identifier: GPL-2.0-only
"""KUnit results in a boot's console log, parsed by the kernel's own KTAP
parser (tools/testing/kunit/kunit_parser.py of the cached tree).

The parser is loaded from the tree by file path (importlib), so nothing
is added to the module search path.  Each test case becomes a check
kunit.<suite>.<case> (a parameterised case one per parameter:
kunit.<suite>.<case>.<param>).  A case KUnit skipped is a skip with
KUnit's reason, never a pass; a crashed, failed or unknown status is a
failure; a log with no KUnit result at all is a failure of kunit.<boot>.

A boot may require cases (its plan entry's "requires": the scenarios with
the CRNG not ready that the series exists for): such a case that KUnit
skipped, or that did not run at all, is a failure, whose reason quotes
KUnit's.
"""

import contextlib
import importlib.util
import io
import os
import re
import sys

from ..base.checks import Check

_loaded = {}


def load_parser(src):
    """(kunit_parser, kunit_printer) of the kernel tree src."""
    if src in _loaded:
        return _loaded[src]
    d = os.path.join(src, "tools/testing/kunit")
    mods = []
    for name in ("kunit_printer", "kunit_parser"):
        spec = importlib.util.spec_from_file_location(name, os.path.join(d, name + ".py"))
        mod = importlib.util.module_from_spec(spec)
        # kunit_parser does "from kunit_printer import stdout": it must find
        # the printer under its own name.
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
        mods.append(mod)
    _loaded[src] = (mods[1], mods[0])
    return _loaded[src]


def ktap_lines(console_path):
    """The console's lines, made parseable: the empty plan the boot-time
    executor prints when no built-in suite matches kunit.filter_glob is
    dropped (suites of modules loaded later follow it), and suites run
    at module load, which print no top-level header, are given one."""
    with open(console_path, errors="replace") as f:
        lines = f.readlines()
    for i in range(len(lines) - 1):
        if re.match(r"K?TAP version \d", lines[i]) and re.match(r"1\.\.0\s*$", lines[i + 1]):
            lines[i:i + 2] = ["", ""]
    if not any(re.match(r"K?TAP version \d", ln) for ln in lines):
        n = sum(1 for ln in lines if re.match(r"(not )?ok \d+ \S", ln))
        first = next((i for i, ln in enumerate(lines)
                      if re.match(r"\s+(K?TAP version|# Subtest:)", ln)), None)
        if first is not None:
            lines[first:first] = ["KTAP version 1\n", f"1..{n}\n"]
    return lines


def skip_reasons(lines):
    out = {}
    for ln in lines:
        m = re.search(r"\bok \d+ (?:- )?(\S+) # SKIP ?(.*)$", ln)
        if m:
            out[m.group(1)] = m.group(2).strip()
    return out


def case_check(parser, cid, title, t, log, boot, reasons):
    """One KUnit case (or parameter) as a Check."""
    status = {parser.TestStatus.SUCCESS: "pass",
              parser.TestStatus.SKIPPED: "skip"}.get(t.status, "fail")
    diag = [ln.strip() for ln in log if ln.strip().startswith("#")]
    kw = dict(origin="kunit", boot=boot, details={"log": diag[-40:]})
    if status == "pass":
        return Check.passed(cid, title, **kw)
    if status == "skip":
        return Check.skipped(cid, title, reasons.get(t.name) or "skipped by KUnit", **kw)
    fails = [d for d in diag if "Expected" in d or "ASSERT" in d or
             "EXPECT" in d or "failed" in d.lower()]
    return Check.failed(cid, title, ("; ".join(fails[:3]) or
                                     f"KUnit status {t.status.name}")[:1000], **kw)


def required(out, boot, requires):
    """Fail each required case (suite.case) that was skipped or not run."""
    for req in requires:
        cid = f"kunit.{req}"
        found = [c for c in out if c.id == cid or c.id.startswith(cid + ".")]
        for c in found:
            if c.status == "skip":
                c.status = "fail"
                c.reason = (f"skipped, but boot {boot} exists to run this scenario "
                            f"(the CRNG not ready): KUnit says: {c.reason}")
        if not found:
            out.append(Check.failed(cid, f"KUnit {req}", f"did not run in boot {boot}, "
                                    "which exists to run it (the CRNG not ready)",
                                    origin="kunit", boot=boot))
    return out


def checks(console_path, boot, src, requires=()):
    """The KUnit checks of one boot's console log; requires: cases
    (suite.case) that must have run and not been skipped."""
    parser, printer = load_parser(src)
    lines = ktap_lines(console_path)
    printer.stdout._output = io.StringIO()   # quiet: we print a summary
    with contextlib.redirect_stdout(io.StringIO()):
        test = parser.parse_run_tests(parser.extract_tap_lines(lines))
    reasons = skip_reasons(lines)
    out = []
    for si, suite in enumerate(test.subtests, 1):
        # A suite or case the log never reported (the kernel stopped first)
        # has no name: it is named by its place in the plan.
        sname = suite.name or f"missing-{si}"
        for ci, case in enumerate(suite.subtests or [suite], 1):
            base = (f"kunit.{sname}.{case.name or f'missing-{ci}'}" if case is not suite
                    else f"kunit.{sname}")
            if case.subtests:          # a parameterised case: one per parameter
                out += [case_check(parser, f"{base}.{p.name or f'missing-{pi}'}",
                                   f"KUnit {suite.name}: {case.name} [{p.name}]",
                                   p, case.log + p.log, boot, reasons)
                        for pi, p in enumerate(case.subtests, 1)]
            else:
                out.append(case_check(parser, base, f"KUnit {suite.name}: {case.name}",
                                      case, case.log, boot, reasons))
    if not out:
        out.append(Check.failed(f"kunit.{boot}", "KUnit output",
                                "no KUnit results in the console log",
                                origin="kunit", boot=boot))
    return required(out, boot, requires)
