# SPDX-License-Identifier: GPL-2.0-only
"""Write the conformance report as JSON (machines), Markdown (people) and
JUnit XML (CI systems), from one dictionary.

The checks are harness.base.checks.Check objects (or their JSON form,
read back from an earlier report); write_all() stores their JSON form:
{"id", "title", "origin", "boot", "status": "pass" | "fail" | "skip",
"reason" (unless pass), "counts", "details", "requirements"}.
"""

import json
import os
import re
import secrets
import xml.etree.ElementTree as ET

from . import files
from .checks import STATUSES, Check, summarize

NAMES = ("report.json", "report.md", "report.xml")


def new_id(started):
    """A report's id: its start time and six random hex digits, e.g.
    R20261203T164453-3fa9c1 (the book's title page names it)."""
    return "R" + re.sub(r"[^0-9T]", "", started)[:15] + "-" + secrets.token_hex(3)


def write_json(report, path):
    files.write_json(path, report)


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def write_markdown(report, path):
    s = report["summary"]
    rid = f"{report['id']} " if report.get("id") else ""
    out = [f"# Conformance report {rid}({report['started']})", "",
           f"**{s['passed']} passed, {s['failed']} failed, {s['skipped']} skipped** "
           f"of {s['total']} checks.", ""]
    k = report.get("kernel", {})
    out += ["## Build and run", "",
            "| item | value |", "|---|---|",
            f"| kernel release | {_cell(k.get('release', '?'))} |",
            f"| base package | {_cell(k.get('base', '?'))} |",
            f"| series head | {_cell(k.get('series_head', '?'))} |",
            f"| .config sha256 | `{k.get('config_sha256', '?')}` |"]
    for name, ver in sorted(report.get("packages", {}).items()):
        out.append(f"| package {name} | {_cell(ver)} |")
    out.append("")
    out += ["## Boots", "", "| boot | outcome | seconds | accel | CPU | RDRAND | "
            "CRNG ready at /init | QEMU command line |", "|---|---|---|---|---|---|---|---|"]
    for b in report.get("boots", []):
        # (a boot the harness failed to run has no CPU or command line)
        # (a boot kept from an earlier run says which: kept_boots.py)
        kept = f" (kept from {b['kept_from']})" if b.get("kept_from") else ""
        out.append(f"| {b['name']} | {b['outcome']}{kept} | {b.get('seconds')} | "
                   f"{b.get('accel')} | {_cell(b.get('cpu', '-'))} | {b.get('rdrand')} | "
                   f"{b.get('crng_ready_at_init')} | `{_cell(b.get('qemu', '-'))}` |")
    out.append("")
    seeds = report.get("drbg_seed_lengths")
    if seeds:
        paths = ["instantiate", "reseed-explicit", "reseed-pr", "reseed-threshold",
                 "reseed-300s", "reseed-async", "instantiate-nojent", "reseed-nojent",
                 "instantiate-jentfail", "reseed-jentfail"]
        out += ["## DRBG seed lengths (measured / expected)", "",
                "Bytes from get_random_bytes() + bytes from the Jitter RNG, as "
                "measured by the KUnit suites in the kernel, against the host's "
                "own table.", "",
                "| instance | " + " | ".join(paths) + " |",
                "|---|" + "---|" * len(paths)]
        for drv in sorted(seeds):
            cells = []
            for p in paths:
                e = seeds[drv].get(p)
                if not e:
                    cells.append("-")
                    continue
                m, x = e["measured"], e["expected"] or {}
                mark = "" if e["match"] else " **MISMATCH**"
                cells.append(f"{m['grb']}+{m['jent']} / {x.get('grb')}+{x.get('jent')}{mark}")
            out.append(f"| {drv} | " + " | ".join(cells) + " |")
        out.append("")
    h = report.get("hardening")
    if h:
        out += ["## Hardening: faults injected, hostile input, reports", "",
                f"Allocation failures injected (fail-nth): {h['fault_injection_points']}; "
                f"hostile calls made: {h['hostile_calls']}; kernel-log reports (BUG, WARN, "
                f"KASAN, UBSAN, lockdep): {h['kernel_log_reports']}; kmemleak reports "
                f"unexplained: {h['kmemleak_unexplained']} (allowlisted with a reason: "
                f"{h['kmemleak_allowlisted']}).", "",
                "| fault | status | checks |", "|---|---|---|"]
        for f in h["faults"]:
            out.append(f"| {_cell(f['fault'])} | {f['status']} ({f['instances']}) | "
                       f"{', '.join(f['checks'])} |")
        out.append("")
    bad = [c for c in report["checks"] if c["status"] != "pass"]
    if bad:
        out += ["## Failed and skipped", "", "| check | status | reason |",
                "|---|---|---|"]
        for c in bad:
            out.append(f"| {c['id']} | {c['status']} | {_cell(c.get('reason', ''))} |")
        out.append("")
    out += ["## All checks", "", "| check | status | requirements | counts |",
            "|---|---|---|---|"]
    for c in report["checks"]:
        counts = ", ".join(f"{k}={v}" for k, v in c.get("counts", {}).items())
        out.append(f"| {c['id']} | {c['status']} | {', '.join(c.get('requirements', []))} "
                   f"| {_cell(counts)} |")
    out += ["", "## Tangled files", "", "| file | sha256 |", "|---|---|"]
    for f, h in sorted(report.get("tangled", {}).items()):
        out.append(f"| {f} | `{h}` |")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def write_junit(report, path):
    suites = ET.Element("testsuites", name="literate-drbg conformance")
    groups = {}
    for c in report["checks"]:
        group = c["id"].rsplit(".", 1)[0] if "." in c["id"] else c["id"]
        groups.setdefault(group, []).append(c)
    for group, checks in groups.items():
        s = summarize(checks)
        ts = ET.SubElement(suites, "testsuite", name=group, tests=str(s["total"]),
                           failures=str(s["failed"]), skipped=str(s["skipped"]))
        for c in checks:
            tc = ET.SubElement(ts, "testcase", classname=group,
                               name=c["id"].rsplit(".", 1)[-1])
            if c["status"] == "fail":
                ET.SubElement(tc, "failure", message=c.get("reason", "")[:500]).text = \
                    json.dumps(c.get("details", {}), indent=1)[:20000]
            elif c["status"] == "skip":
                ET.SubElement(tc, "skipped", message=c.get("reason", "")[:500])
    ET.ElementTree(suites).write(path, encoding="utf-8", xml_declaration=True)


def as_dicts(checks):
    return [c.to_dict() if isinstance(c, Check) else c for c in checks]


def remove_all(outdir):
    """Remove the report of an earlier run from outdir (a run that ends
    without writing its own leaves none, never the last one's)."""
    for name in NAMES:
        try:
            os.unlink(os.path.join(outdir, name))
        except FileNotFoundError:
            pass


def _known_status(c):
    """c, or a failure in its place when its status is none of the three
    (a guest may send anything): a report counts every check."""
    st = c.get("status")
    if isinstance(st, str) and st in STATUSES:
        return c
    why = f"status {st!r} reported, expected one of {', '.join(STATUSES)}"
    return dict(c, status="fail", reason=why + (f" ({c['reason']})" if c.get("reason")
                                                else ""))


def write_all(report, outdir):
    """report.json, report.md and report.xml in outdir, from one dict whose
    "checks" are Checks or their JSON form; adds the summary.  The earlier
    report goes first: when writing fails, none is left."""
    remove_all(outdir)
    report["checks"] = [_known_status(c) for c in as_dicts(report["checks"])]
    report["summary"] = summarize(report["checks"])
    write_json(report, os.path.join(outdir, "report.json"))
    write_markdown(report, os.path.join(outdir, "report.md"))
    write_junit(report, os.path.join(outdir, "report.xml"))
