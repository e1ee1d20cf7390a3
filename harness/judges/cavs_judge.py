# SPDX-License-Identifier: GPL-2.0-only
"""The CAVS checks of a boot: the guest's result lines (cavs_pack.py says
what they are), the parse errors and the host model's results.

- cavs.parse.<file>: each .rsp file parses;
- cavs.<kind>.<section> (guest) and cavs.model.<kind>.<section> (host
  model): every record of the section gives the file's ReturnedBits;
- cavs.<kind>.<section> for sections Linux 6.1 cannot run: skipped, with
  the reason (never dropped);
- cavs.selftest.flipped-bit: a copy of a record with one flipped bit is
  caught and named;
- cavs.total, and cavs.dir.<dir> per vector directory.
"""

import re

from ..base.checks import Check
from .cavs_pack import STEPS, WINDOW


def _guest_failure(meta, index, g):
    """A failure entry from one cavs_fail line of the guest; index maps
    (file, line) to the record's position in meta["records"]."""
    ri = index.get((g.get("f"), g.get("line")))
    if ri is None:
        return {"record": f"file #{g.get('f')} line {g.get('line')} (not in the pack?)",
                "guest": g}
    r = meta["records"][ri]
    sec = meta["sections"][r["section"]]
    f = {"record": r["where"], "section": sec["title"], "driver": sec["driver"],
         "lengths": r["lengths"]}
    if "stage" in g:
        f["harness_error"] = f"{g['stage']} failed: error {g.get('err')}"
    elif g.get("err"):
        f["kernel_error"] = (f"error {g['err']} at step "
                             f"{STEPS.get(g.get('step'), g.get('step'))}")
    else:
        f.update(first_difference_at=g.get("at"), shown_from=g.get("from", 0),
                 expected=g.get("expected"), got=g.get("got"))
        want = bytes.fromhex(r["expected"])[g.get("from", 0):][:WINDOW].hex()
        if g.get("expected") != want:
            f["pack_mismatch"] = ("the guest's expected value is not the "
                                  "file's: the pack or its reader is wrong")
    f["model"] = ("the host model agrees with the file" if r["model_ok"] else
                  "the host model differs from the file too")
    return f


def _fail_summary(fails, total):
    first = fails[0]
    what = (first.get("kernel_error") or first.get("harness_error") or
            (f"output differs from byte {first.get('first_difference_at')}"))
    return f"{len(fails)} of {total} records failed; first {first['record']}: {what}"


def _verdict(cid, title, status, reason=None, **kw):
    if status == "pass":
        return Check.passed(cid, title, **kw)
    if status == "skip":
        return Check.skipped(cid, title, reason, **kw)
    return Check.failed(cid, title, reason, **kw)


class _Run:
    """The guest's CAVS lines, indexed."""

    def __init__(self, recs, meta):
        self.meta = meta
        guest_checks = {r.get("id"): r for r in recs if r.get("type") == "check"}
        self.done = next((r for r in recs if r.get("type") == "cavs_done"), None)
        self.sections = {r.get("s"): r for r in recs if r.get("type") == "cavs_section"}
        self.index = {(r["file"], r["line"]): ri for ri, r in enumerate(meta["records"])}
        self.fails = {}
        for g in recs:
            if g.get("type") == "cavs_fail":
                self.fails.setdefault(g.get("s"), []).append(g)
        iface = guest_checks.get("cavs.interface")
        packchk = guest_checks.get("cavs.pack")
        self.no_guest = None
        if packchk and packchk.get("status") != "pass":
            self.no_guest = ("fail", "the guest could not read the pack: "
                             f"{packchk.get('reason')}")
        elif iface and iface.get("status") == "skip":
            self.no_guest = ("fail", "the test kernel has no CAVS interface: "
                             f"{iface.get('reason')}")
        elif self.done is None:
            self.no_guest = ("fail", "no CAVS result from the guest (the boot ended "
                             "early, or the cavs mode did not run)")
        self.guest = {"passed": 0, "failed": 0}
        self.by_dir = {}
        self.model_failed = self.applicable = 0
        self.selftest_ok = None


def parse_checks(meta):
    out = []
    for f in meta["files"]:
        errs = f["errors"]
        counts = {k: f[k] for k in ("records", "applicable", "skipped", "bad_records")}
        counts["errors"] = len(errs)
        kw = dict(origin="host", counts=counts,
                  details={"errors": errs[:200], "kinds": f["kinds"]})
        title = f"CAVS file {f['path']} parses"
        out.append(Check.failed(f"cavs.parse.{f['slug']}", title,
                                f"{len(errs)} error(s); {f['bad_records']} record(s) "
                                f"not run; first: {errs[0]}", **kw) if errs
                   else Check.passed(f"cavs.parse.{f['slug']}", title, **kw))
    return out


def section_check(run, si, sec):
    """The guest's check of one section."""
    n = sec["records"]
    line = run.sections.get(si)
    fails = [_guest_failure(run.meta, run.index, g) for g in run.fails.get(si, [])]
    counts = {"records": n, "passed": 0, "failed": 0}
    details = {"file": sec["path"], "driver": sec["driver"]}
    status, reason = "pass", None
    if run.no_guest:
        status, reason = run.no_guest
    elif line is None:
        status, reason = "fail", "the guest reported nothing for this section"
    else:
        counts.update(passed=line.get("passed", 0), failed=line.get("failed", 0),
                      guest_us=line.get("us", 0))
        run.guest["passed"] += counts["passed"]
        run.guest["failed"] += counts["failed"]
        if counts["failed"]:
            status = "fail"
            reason = (_fail_summary(fails, n) if fails else
                      f"{counts['failed']} of {n} records failed (no detail lines)")
            if len(fails) < counts["failed"]:
                reason += f" ({counts['failed'] - len(fails)} not itemised)"
        elif counts["passed"] != n:
            status, reason = "fail", f"the guest ran {counts['passed']} of {n} records"
    d = run.by_dir.setdefault(sec["vector_dir"], {"applicable": 0, "passed": 0,
                                                  "failed": 0})
    for k, v in (("applicable", n), ("passed", counts["passed"]),
                 ("failed", counts["failed"])):
        d[k] += v
    if fails:
        details["failures"] = fails[:50]
    return _verdict(sec["id"], sec["title"], status, reason, origin="guest",
                    counts=counts, details=details)


def model_check(sec):
    n, mf = sec["records"], sec["model_failures"]
    kw = dict(origin="host", counts={"records": n, "passed": n - len(mf),
                                     "failed": len(mf)},
              details={"file": sec["path"], "failures": mf[:50]} if mf
              else {"file": sec["path"]})
    title = f"host model: {sec['title']}"
    if mf:
        return Check.failed(sec["model_id"], title, _fail_summary(mf, n), **kw)
    return Check.passed(sec["model_id"], title, **kw)


def selftest_check(run, si, sec):
    title = f"{sec['title']} ({sec['source']})"
    line, raw = run.sections.get(si), run.fails.get(si, [])
    if run.no_guest:
        return _verdict(sec["id"], title, *run.no_guest, origin="guest")
    if line is None:
        return Check.failed(sec["id"], title, "the guest reported nothing for it",
                            origin="guest")
    named = [g for g in raw if g.get("at") == sec["flipped_byte"]
             and not g.get("err") and "stage" not in g]
    ok = line.get("failed") == 1 and len(named) == 1
    kw = dict(origin="guest", counts={"failed": line.get("failed", 0)},
              details={"source": sec["source"], "flipped_byte": sec["flipped_byte"],
                       "guest_lines": raw[:2]})
    if ok:
        return Check.passed(sec["id"], title, **kw)
    return Check.failed(sec["id"], title, f"the guest reported {line.get('failed')} "
                        f"failure(s), {len(named)} naming byte {sec['flipped_byte']} "
                        f"of the copy of {sec['source']}", **kw)


def total_check(run):
    meta, guest = run.meta, run.guest
    parse_errors = sum(len(f["errors"]) for f in meta["files"])
    counts = {"applicable": run.applicable, "passed": guest["passed"],
              "failed": guest["failed"], "model_failed": run.model_failed,
              "parse_errors": parse_errors, "skipped_sections": len(meta["skipped"]),
              "skipped_records": sum(s["records"] for s in meta["skipped"]),
              "model_seconds": meta.get("model_seconds", 0)}
    if run.done:
        counts["guest_seconds"] = round(run.done.get("us", 0) / 1e6, 2)
    problems = []
    if parse_errors:
        problems.append(f"{parse_errors} parse error(s)")
    if run.model_failed:
        problems.append(f"{run.model_failed} record(s) where the host model differs")
    if run.no_guest:
        problems.append(run.no_guest[1])
    else:
        if guest["failed"]:
            problems.append(f"{guest['failed']} record(s) failed in the guest")
        if guest["passed"] + guest["failed"] != run.applicable:
            problems.append(f"the guest ran {guest['passed'] + guest['failed']} of "
                            f"{run.applicable} records")
        if run.selftest_ok is False:
            problems.append("the flipped-bit self-test was not caught")
    if run.applicable == 0:
        problems.append("no applicable record to run")
    per = ", ".join(f"{d} {v['applicable']}" for d, v in run.by_dir.items())
    return Check.judge(
        "cavs.total", f"CAVS known answers in the guest: {run.applicable} applicable "
        f"records ({per})", problems, shown=len(problems) or 1, origin="host",
        counts=counts,
        details={"vector_dirs": meta["vector_dirs"], "by_vector_dir": run.by_dir,
                 "skipped": [f"{s['title']}: {s['records']} records: {s['reason']}"
                             for s in meta["skipped"]],
                 "pack_bytes": meta.get("pack_bytes")})


def dir_checks(by_dir):
    """One summary per vector directory (the NIST set is the acceptance figure)."""
    out = []
    for d, n in by_dir.items():
        slug = re.sub(r"[^a-z0-9]+", "-", d.lower()).strip("-")
        ok = n["failed"] == 0 and n["passed"] == n["applicable"] and n["applicable"] > 0
        out.append(Check.judge(
            f"cavs.dir.{slug}", f"every applicable record under {d} passes in the guest",
            [] if ok else [f"{n['passed']} of {n['applicable']} passed, "
                           f"{n['failed']} failed"], origin="guest",
            counts={k: n[k] for k in ("applicable", "passed", "failed")}))
    return out


def checks(recs, meta):
    """Every CAVS check of a boot, from its guest records and prepare()'s meta."""
    run = _Run(recs, meta)
    out = parse_checks(meta)
    for si, sec in enumerate(meta["sections"]):
        if sec["selftest"]:
            out.append(selftest_check(run, si, sec))
            run.selftest_ok = out[-1].status == "pass"
            continue
        run.applicable += sec["records"]
        out.append(section_check(run, si, sec))
        out.append(model_check(sec))
        run.model_failed += len(sec["model_failures"])
    out += [Check.skipped(s["id"], s["title"], s["reason"], origin="host",
                          counts={"records": s["records"]}, details={"file": s["path"]})
            for s in meta["skipped"]]
    out.append(total_check(run))
    return out + dir_checks(run.by_dir)
