# SPDX-License-Identifier: GPL-2.0-only
"""The book's hardening appendix: what the fault and hostile-input boots
did, and the series on a 32-bit machine.

    render(ctx) -> (markdown, notes)

ctx is the dict the other generated parts take ("top", "esc", "code").
The data are the reports that the harness writes: the hardening summary
of build/conformance/report.json (`make conform`, run by `make check`),
build/stress/report.json (`make stress`, the debug kernel at large
figures; stress.py), build/conformance-i386/report.json (`make
conform ARCH=i386`, a kernel build of its own and not part of `make
check`), and build/mutants/series.json (`make mutants`, mutation.py), and
build/kconfig-matrix/report.json of the full `make kconfig-matrix`
(kconfig.py; make check's short run writes the same file, and is passed
over).
The last four are read from evidence/ (base/evidence.py) when build/
has none, and each section says which it used and whether the run was
made on this tree's inputs.  Where a report is missing the section says
so and names the command; a note (a build warning) is given when a
report shows a failure.  A report of other inputs is said so in bold,
not noted: make check must not fail because a long run is out of date.
"""

import collections

from ...base import evidence
from . import hmutation, kconfig, mutation, shards, stress
from .md import small_table, when

MAIN = "build/conformance/report.json"
I386 = "build/conformance-i386/report.json"
HEAD = "# Hardening {- #hardening}"
INTRO = ("The conformance boots check what the series does when it works; "
         "the hardening boots check what it does when something fails or "
         "someone calls it badly: faults injected into the Jitter RNG, the "
         "allocators and the blocking API, and hostile arguments through "
         "every interface the series adds.  Every figure below is read from "
         "the report of the run named under it.  The runs too long for "
         "`make check` are kept in `evidence/` with the digest of the inputs "
         "their verdicts depend on (`make evidence`), and each section says "
         "whether its figures are of this tree.")

# The families of the i386 run's checks, as the reader knows them.
FAMILIES = (("kunit", "KUnit cases"), ("fips", "KUnit cases and checks with fips=1"),
            ("cavs", "CAVS sections"), ("drbg", "seed lengths and seeding trace"),
            ("nojent", "checks with the Jitter RNG made absent"),
            ("guest", "guest checks"), ("jitter", "Jitter RNG records"),
            ("figures", "figures' data"), ("boot", "boots"))


def _table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return small_table(out)


def _run_line(rep, path, code):
    k = rep.get("kernel") or {}
    return (f"From {code(path)}: kernel {code(k.get('release', '?'))}, "
            f"started {when(rep.get('started'))}, "
            f"{rep.get('duration_s', '?')} s, on {rep.get('host', {}).get('cpu_model', '?')} "
            f"({rep.get('host', {}).get('nproc', '?')} CPUs).")


def faults_md(rep, esc, code, notes):
    h = rep.get("hardening")
    if not h:
        return ["::: placeholder", f"The report {code(MAIN)} has no hardening summary.",
                ":::", ""]
    out = ["## Faults and hostile calls {- #hardening-faults}", "",
           _run_line(rep, MAIN, code), ""]
    rows = []
    for f in h.get("faults", []):
        if f.get("status") == "fail":
            notes.append(f"hardening: fault failed: {f.get('fault')}")
        rows.append([esc(f.get("fault", "")), f.get("instances", 0),
                     "**" + f.get("status", "?") + "**" if f.get("status") != "pass"
                     else "pass"])
    out += _table(["fault", "checks run", "verdict"], rows)
    out += [f"Fault-injection points reached: {h.get('fault_injection_points', 0)}; "
            f"hostile calls made: {h.get('hostile_calls', 0)}; reports in the "
            f"kernel log: {h.get('kernel_log_reports', 0)}; kmemleak reports "
            f"not explained: {h.get('kmemleak_unexplained', 0)} "
            f"({h.get('kmemleak_allowlisted', 0)} explained by the allow list).", ""]
    return out


def provenance_md(name, prov, esc, code):
    """Where a long run's report came from (base/evidence.py): this tree's
    build/, or evidence/ as recorded; and whether it was made on this
    tree's inputs."""
    if prov is None:
        return []
    rec = evidence.RECORDS[name]
    if prov["source"] == "build":
        line = f"This tree's own run ({code(prov['path'])})"
    else:
        line = (f"The recorded run {code(prov['path'])} (kept by `make evidence` on "
                f"{when(prov.get('recorded'))}, at commit "
                f"{code((prov.get('commit') or '?')[:12])}"
                + ("" if prov.get("inputs_committed", True) else
                   ", with uncommitted changes to its inputs") + ")")
    if prov["current"]:
        line += (": made on this tree's inputs (" + ", ".join(code(i) for i in rec["inputs"])
                 + " have the digest the run recorded).")
    else:
        line += (": **not made on this tree's inputs** (" + ", ".join(
            code(i) for i in rec["inputs"]) + " differ from the run's, or it recorded "
                 f"none): its figures are of an earlier version; `{esc(rec['make'])}` "
                 "and `make evidence` bring them up to date.")
    return [line, ""]


def _with(section, prov_lines):
    """A section's lines with the provenance after its heading."""
    return section[:2] + prov_lines + section[2:]


def i386_md(rep, esc, code, notes, path=I386):
    out = ["## On a 32-bit machine {- #hardening-i386}", "",
           "The 2015 code took care over 64-bit arithmetic on 32-bit machines "
           "(the Jitter RNG's time stamps and deltas are 64-bit; the DRBG's "
           "reseed counter and lengths are `size_t`).  The series is built for "
           "i386 (`conformance/kconfig/i386.config` on top of the test "
           "kernel's fragment) and the test kernel's boots run again on "
           "`qemu-system-i386` with a 32-bit /init.", ""]
    if rep is None:
        return out + ["::: placeholder",
                      f"**Not run for this book.** There is no {code(I386)}: "
                      f"`make conform ARCH=i386` writes it (a kernel build of its "
                      f"own; not part of `make check`).", ":::", ""]
    out += [_run_line(rep, path, code), ""]
    count = collections.defaultdict(collections.Counter)
    bad = []
    for c in rep.get("checks", []):
        parts = c["id"].split(".")
        fam = parts[1] if parts[0] == "i386" and len(parts) > 1 else parts[0]
        count[fam][c["status"]] += 1
        if c["status"] == "fail":
            bad.append(c["id"])
    rows = []
    for fam, title in FAMILIES:
        n = count.pop(fam, collections.Counter())
        rows.append([esc(title), n["pass"], n["fail"], n["skip"]])
    rest = collections.Counter()
    for n in count.values():
        rest.update(n)
    if rest:
        rows.append(["other", rest["pass"], rest["fail"], rest["skip"]])
    out += _table(["checks", "passed", "failed", "skipped"], rows)
    total = next((c for c in rep.get("checks", []) if c["id"] == "i386.cavs.total"), None)
    if total:
        n = total.get("counts", {})
        out += [f"CAVS records: {n.get('passed', 0)} of {n.get('applicable', 0)} "
                f"applicable records answered as NIST's files say "
                f"({n.get('skipped_sections', 0)} sections, {n.get('skipped_records', 0)} "
                f"records, of algorithms 6.1 does not have).", ""]
    boots = rep.get("boots", [])
    out += [f"Boots: {len(boots)}, of which ended as expected: "
            f"{sum(1 for b in boots if b.get('outcome') == b.get('expect'))}.", ""]
    if bad:
        notes.append(f"i386: {len(bad)} check(s) failed: {', '.join(bad[:5])}")
        out += ["Failed: " + ", ".join(code(b) for b in bad[:20]) + ".", ""]
    return out


def render(ctx):
    esc, code, top = ctx["esc"], ctx["code"], ctx["top"]
    notes = []
    out = [HEAD, "", INTRO, ""]
    main = ctx.get("report")
    if main is None:
        out += ["::: placeholder", f"There is no {code(MAIN)}: `make conform` writes it.",
                ":::", ""]
    else:
        out += faults_md(main, esc, code, notes)
    rep, prov = evidence.load("stress", top)
    out += _with(stress.stress_md(rep, esc, code, notes, (prov or {}).get("path")),
                 provenance_md("stress", prov, esc, code))
    rep, prov = evidence.load("i386", top)
    out += _with(i386_md(rep, esc, code, notes, (prov or {}).get("path") or I386),
                 provenance_md("i386", prov, esc, code))
    rep, prov = evidence.load("mutants", top)
    out += _with(mutation.section(rep, esc, code, notes),
                 provenance_md("mutants", prov, esc, code))
    rep, prov = evidence.load("hmutants", top)
    out += _with(hmutation.section(rep, esc, code, notes),
                 provenance_md("hmutants", prov, esc, code))
    rep, prov = evidence.load("kconfig", top, whole=True)
    out += _with(kconfig.section(rep, esc, code, notes),
                 provenance_md("kconfig", prov, esc, code))
    rep, prov = evidence.load("shards", top)
    out += _with(shards.section(rep, esc, code, notes),
                 provenance_md("shards", prov, esc, code))
    return "\n".join(out) + "\n", notes
