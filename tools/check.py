#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""make check: every test of the project, one summary line at the end.

Steps (each runs even if an earlier one failed, so the summary is whole):
  1. the tangle lint                       host.tangle.lint
  2. the drift check: tangled/ == book     host.tangle.drift
  3. checkpatch --strict on each patch     host.checkpatch.<patch>
  4. Debian's config: test options off     host.prodconfig.test-options-off
  5. the host unit tests (tests/host)      host.unit.*
  6. the test and the debug kernel, then make conform on both
  7. the rendered book (HTML, PDF, links, traceability, Chromium)  book.*
                                           everything in report.json
The host results are merged into build/conformance/report.json, and the
last line printed is "N passed, N failed, N skipped", summed over all.
"""

import json
import os
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "conformance/host"))
sys.path.insert(0, os.path.join(TOP, "tools"))
import nwconf  # noqa: E402
import report  # noqa: E402
import reqs  # noqa: E402

PY = "/usr/bin/python3"
OUT = os.path.join(TOP, "build/check")


def step(title):
    print(f"\n== check: {title}", flush=True)


def run(cmd):
    t0 = time.time()
    r = subprocess.run(cmd, cwd=TOP)
    return r.returncode, round(time.time() - t0, 1)


def main():
    os.makedirs(OUT, exist_ok=True)
    t_start = time.time()
    checks, timings = [], {}

    step("tangle lint")
    rc, timings["lint"] = run([PY, "tools/nw.py", "lint"])
    checks.append({"id": "host.tangle.lint", "origin": "host",
                   "title": "noweb lint: roots, undefined chunks, literal <<, trailing blanks",
                   "status": "pass" if rc == 0 else "fail",
                   **({} if rc == 0 else {"reason": "the lint found problems (see above)"})})

    step("drift: tangled/ is what the book makes")
    rc, timings["drift"] = run(["make", "drift"])
    checks.append({"id": "host.tangle.drift", "origin": "host",
                   "title": "tangled/ equals a fresh tangle, byte for byte",
                   "status": "pass" if rc == 0 else "fail",
                   **({} if rc == 0 else {"reason": "tangled/ differs from the book "
                                          "(build/drift/diff.txt)"})})

    step("checkpatch --strict")
    cp_json = os.path.join(OUT, "checkpatch.json")
    rc, timings["checkpatch"] = run([PY, "tools/checkpatch.py", "tangled/patches",
                                     "--json", cp_json])
    try:
        with open(cp_json) as f:
            for r in json.load(f):
                clean = not (r["errors"] or r["warnings"] or r["checks"])
                c = {"id": f"host.checkpatch.{r['patch'][:4]}", "origin": "host",
                     "title": f"checkpatch --strict {r['patch']}",
                     "status": "pass" if clean else "fail",
                     "counts": {k: r[k] for k in ("errors", "warnings", "checks")}}
                if not clean:
                    c["reason"] = "; ".join(r["findings"][:3]) or "not clean"
                checks.append(c)
    except (OSError, ValueError) as e:
        checks.append({"id": "host.checkpatch", "origin": "host", "status": "fail",
                       "reason": f"checkpatch did not run: {e}"})

    step("production config: test options off")
    pc_json = os.path.join(OUT, "prodconfig.json")
    if os.path.exists(pc_json):
        os.unlink(pc_json)
    rc, timings["prodconfig"] = run([PY, "tools/prodconfig.py", "check", "--json",
                                     pc_json])
    try:
        with open(pc_json) as f:
            checks += json.load(f)
    except (OSError, ValueError) as e:
        checks.append({"id": "host.prodconfig.test-options-off", "origin": "host",
                       "status": "fail", "reason": f"prodconfig did not run: {e}"})

    step("host unit tests")
    ht_json = os.path.join(OUT, "host-tests.json")
    rc, timings["host-tests"] = run([PY, "tools/host_tests.py", "--json", ht_json])
    try:
        with open(ht_json) as f:
            checks += json.load(f)
    except (OSError, ValueError) as e:
        checks.append({"id": "host.unit", "origin": "host", "status": "fail",
                       "reason": f"host tests did not run: {e}"})

    step("kernels: the test kernel (make kernel) and the debug kernel")
    rc, timings["kernel-test"] = run(["make", "kernel"])
    if rc != 0:
        checks.append({"id": "host.kernel.test", "origin": "host", "status": "fail",
                       "reason": "the test kernel did not build (see above)"})
    rc_dbg, timings["kernel-debug"] = run([PY, "tools/kernel.py", "build", "debug"])
    if rc_dbg != 0:
        checks.append({"id": "host.kernel.debug", "origin": "host", "status": "fail",
                       "reason": "the debug kernel did not build (see above)"})

    step("make conform on both kernels")
    variants = "test" + (",debug" if rc_dbg == 0 else "")
    rc, timings["conform"] = run([PY, "conformance/host/conform.py",
                                  "--variants", variants])
    rep_path = os.path.join(TOP, "build/conformance/report.json")
    rep = None
    try:
        with open(rep_path) as f:
            rep = json.load(f)
        if os.path.getmtime(rep_path) < t_start:
            raise ValueError("report.json is older than this run")
    except (OSError, ValueError) as e:
        checks.append({"id": "host.conform", "origin": "host", "status": "fail",
                       "reason": f"make conform wrote no report ({e}); exit {rc}"})
        rep = None
    if rep is not None and rc != 0 and rep["summary"]["failed"] == 0:
        checks.append({"id": "host.conform", "origin": "host", "status": "fail",
                       "reason": f"make conform exited {rc} without a failed check"})

    req_map = reqs.by_test(reqs.read(nwconf.load(os.path.join(TOP, "tangle.conf")).sources))

    def merge():
        """Fold the host-side checks into report.json (rewriting .md, .xml)."""
        for c in checks:
            c["requirements"] = reqs.for_check(req_map, c["id"])
        with open(os.path.join(OUT, "host-checks.json"), "w") as f:
            json.dump(checks, f, indent=1)
        if rep is None:
            return report.summarize(checks)
        ids = {c["id"] for c in checks}
        rep["checks"] = [c for c in rep["checks"] if c["id"] not in ids] + checks
        rep["check_timings_s"] = timings
        rep["check_duration_s"] = round(time.time() - t_start, 1)
        for c in rep["checks"]:
            c.setdefault("requirements", [])
        report.write_all(rep, os.path.dirname(rep_path))
        return rep["summary"]

    # The book is rendered after everything else has reported, so that its
    # traceability matrix shows this run; its own checks are merged last.
    merge()
    step("the rendered book: build, links, chunks, traceability, browser")
    rc, timings["book-deps"] = run(["tools/deps.sh", "book"])
    bk_json = os.path.join(OUT, "book-checks.json")
    if os.path.exists(bk_json):
        os.unlink(bk_json)
    rc, timings["book"] = run([PY, "tools/book_check.py", "--json", bk_json])
    try:
        with open(bk_json) as f:
            checks.extend(json.load(f))
    except (OSError, ValueError) as e:
        checks.append({"id": "book.check", "origin": "host", "status": "fail",
                       "reason": f"the book checks did not run: {e}"})
    total = merge()
    print(f"\ncheck: {round(time.time() - t_start)} s "
          f"({', '.join(f'{k} {v} s' for k, v in timings.items())})")
    for c in (rep["checks"] if rep else checks):
        if c["status"] == "fail":
            print(f"FAIL {c['id']}: {c.get('reason', '')[:200]}")
    print(f"{total['passed']} passed, {total['failed']} failed, "
          f"{total['skipped']} skipped")
    return 1 if total["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
