# SPDX-License-Identifier: GPL-2.0-only
"""make check: every test of the project, one summary line at the end.

Steps (each runs even if an earlier one failed, so the summary is whole;
each is a `python3 -m harness` verb in a process of its own):

  0. what the run is asked to do: BOOTS and VECTORS (inputs.py); a
     problem stops make check at once, before the long steps  host.inputs
  1. the tangle lint                       host.tangle.lint
  2. the drift check: tangled/ == book     host.tangle.drift
  3. checkpatch --strict on each patch     host.checkpatch.<patch>
     sparse (C=2), W=1, kernel-doc and coccicheck on the touched files,
     no warning pristine 6.1 lacks (make checkers)  host.checkers.*
  4. Debian's config: test options off,    host.prodconfig.test-options-off
     also with KUNIT_ALL_TESTS=y; the       host.prodconfig.kunit-all-tests-off
     production objects carry no test code  host.prodconfig.objects-without-test-code
     the series' options at y, m and n on a tinyconfig base: five
     combinations and a randconfig (KCONFIG_SEED printed), each built and
     linked, one refused (make kconfig-matrix --short)  kconfig.*
  5. the SP 800-90B assessor on NIST's eight reference files  entropy.kat.*
     and on four sources of known min-entropy  entropy.synthetic.*
     the host unit tests (tests/), two     host.unit.*
     processes sharing the modules
     the mutants of the harness's verdicts, each caught by its oracle
                                           host.mutants.*
  6. the test kernel and the debug kernel, then conform on both
     ACVP: the project's vector sets (vectors/acvp) in the test kernel  acvp.*
     The static checkers, the production config, the Kconfig builds,
     the assessor, the harness's mutants and ACVP keep a run that passed
     with the digest of the whole tree (and of the test kernel, for
     ACVP); the next make check of the same digest takes their verdicts
     instead of running them.  make evidence keeps such a run in
     evidence/check-<step>.json with the digest of the step's inputs
     (evidence.CHECK_STEP) and the packages' versions, and a clean
     clone's make check takes it while both are the same: the steps
     that build kernel trees of their own (checkers, Kconfig) then cost
     a newcomer nothing (FRESH=acvp,... or FRESH=all runs them anyway)
     (make teeth, four more builds and boots of the test kernel, is a
     target of its own: about 10 minutes, which would triple a warm
     make check)
  7. make entropy: raw noise of five sources, assessed      entropy.*
     (CHECK_SOURCES; make entropy alone runs all eight)
     (after the kernels: its guest needs the test kernel, and nothing
     else may load the CPU while it times the noise).  When the kept
     record (evidence/entropy) was made on this tree's inputs, its
     verdicts on the five sources are judged again from its summary
     instead (FRESH=entropy collects anyway)
  8. the rendered book (HTML, PDF, links, traceability, Chromium)  book.*
  9. every skip of the run against the declared ones (skips.py,
     conformance/expected-skips.txt): a skip declared nowhere fails
     check.skips.expected, a declared one that did not occur in a full
     run fails check.skips.declared    check.skips.*
                                           everything in report.json

The host results are merged into build/conformance/report.json, and the
last line printed is "N passed, N failed, N skipped", summed over all.
The skips are judged by make check only: make conform alone runs a part
of the plan (its test kernel, often BOOTS), whose skips are a subset.
"""

import datetime
import os
import subprocess
import time

from ..base import conf as confmod
from ..base import config, evidence, files
from ..base import reqs as reqsmod
from ..base.checks import Check
from ..base.report import as_dicts, new_id, remove_all, write_all
from ..judges import entropy_report
from . import check_kept, inputs, skips
from .check_kept import acvp_inputs, tree_inputs

OUT = config.build("check")
# make entropy's sources that make check collects: our core and 6.1's in
# user space, the test kernel under TCG, and the kernel's own object on the
# real CPU with x86-64's timer (User-Mode Linux, the credited environment).
# The -fixed variants and UML's coarse clocksource are make entropy's, kept
# in evidence/.
CHECK_SOURCES = ("ours-user", "pristine-user", "ours-kernel", "ours-uml-tsc",
                 "ours-uml-tsc-fixed")
REPORT = config.build("conformance/report.json")
EXPECTED_SKIPS = config.top(skips.LIST)


def step(title):
    print(f"\n== check: {title}", flush=True)


def harness(*args):
    return [config.PY, "-m", "harness"] + list(args)


def run(cmd):
    t0 = time.time()
    r = subprocess.run(cmd, cwd=config.TOP)
    return r.returncode, round(time.time() - t0, 1)


def rc_check(cid, title, rc, reason):
    if rc == 0:
        return Check.passed(cid, title, origin="host")
    return Check.failed(cid, title, reason, origin="host")


def json_checks(path, what, fallback_id):
    """The checks a step wrote to path, or one failure saying it did not
    (none at all is no result: nothing counts as a pass)."""
    data = files.read_json(path, kind=list)
    if not data or not all(isinstance(d, dict) and "id" in d and "status" in d
                           for d in data):
        return [Check.failed(fallback_id, f"{what} ran", f"{what} did not run or "
                             f"wrote no results ({config.display(path)})", origin="host")]
    return [Check.from_dict(d) for d in data]


def fresh_json(name):
    path = os.path.join(OUT, name)
    if os.path.exists(path):
        os.unlink(path)
    return path


class Run:
    def __init__(self):
        self.checks, self.timings = [], {}
        self.t0 = time.time()
        self.started = datetime.datetime.now(datetime.timezone.utc).isoformat(
            timespec="seconds")

    def timed(self, key, cmd):
        rc, self.timings[key] = run(cmd)
        return rc


def input_step(r):
    """What make check was asked to run (BOOTS, VECTORS), before anything
    long: True when it can be done; else the problems are one line each
    and the run stops at once."""
    step("inputs: BOOTS, VECTORS and the ACVP vector sets")
    _, _, problems, checks = inputs.check(os.environ.get("BOOTS", ""), ["test", "debug"],
                                          os.path.join(OUT, "inputs"))
    if not problems and run(harness("acvp", "--dir", config.top("vectors/acvp"),
                                    "--inputs-only"))[0]:
        problems = ["vectors/acvp: the ACVP vector sets cannot be read (the line above "
                    "names the file)"]
        checks[-1] = Check.failed(checks[-1].id, checks[-1].title, problems[0])
    for p in problems:
        config.warn("check", p)
    c = checks[-1]
    c.id, c.origin = "host.inputs", "host"
    r.checks.append(c)
    return not problems


def host_steps(r):
    step("tangle lint")
    r.checks.append(rc_check("host.tangle.lint", "noweb lint: roots, undefined chunks, "
                             "literal <<, trailing blanks, literal lines in edit scripts",
                             r.timed("lint", harness("lint")), "the lint found problems "
                             "(see above)"))
    step("drift: tangled/ is what the book makes")
    r.checks.append(rc_check("host.tangle.drift", "tangled/ equals a fresh tangle, byte "
                             "for byte", r.timed("drift", harness("drift")),
                             "tangled/ differs from the book (build/drift/diff.txt)"))
    json_step(r, "checkpatch --strict", "checkpatch", ["checkpatch"], "host.checkpatch")
    tree = tree_inputs()
    kept_step(r, "static checkers against pristine 6.1: sparse, W=1, kernel-doc, coccicheck",
              "checkers", ["checkers"], "host.checkers.run", tree)
    kept_step(r, "production config: test options off, objects without test code",
              "prodconfig", ["prodconfig", "build"], "host.prodconfig.test-options-off", tree)
    kept_step(r, "Kconfig: the series' options at y, m and n, five combinations and a "
              "randconfig, built and linked", "kconfig", ["kconfig-matrix", "--short"],
              "kconfig.build", tree)
    kept_step(r, "SP 800-90B assessor against NIST's reference results", "entropy-kat",
              ["entropy-kat"], "entropy.kat", tree)
    json_step(r, "host unit tests", "host-tests", ["host-tests"], "host.unit")
    kept_step(r, "mutants of the harness's verdict code, each caught by its oracle",
              "mutants", ["mutants-harness"], "host.mutants.score", tree)


def json_step(r, title, key, verb, fallback_id):
    """A verb that writes its checks to --json; a failure if it wrote none,
    and one if it failed without a failed check among them."""
    step(title)
    path = fresh_json(f"{key}.json")
    rc = r.timed(key, harness(*verb, "--json", path))
    checks = json_checks(path, key, fallback_id)
    r.checks += checks
    if rc and not any(c.status == "fail" for c in checks):
        r.checks.append(Check.failed(f"host.{key}.exit", f"{key} exits as its checks say",
                                     f"{' '.join(verb)} exited {rc} without a failed "
                                     "check (see above)", origin="host"))


def kernel_steps(r):
    """Both kernels and conform on them; the report of conform, or None."""
    step("kernels: the test kernel (make kernel) and the debug kernel")
    t0 = time.time()
    failed = (run(harness("tangle"))[0] or run(harness("kernel", "apply"))[0] or
              run(harness("kernel", "build", "test"))[0])
    r.timings["kernel-test"] = round(time.time() - t0, 1)
    if failed:
        r.checks.append(Check.failed("host.kernel.test", "the test kernel builds",
                                     "the test kernel did not build (see above)",
                                     origin="host"))
    rc_dbg = r.timed("kernel-debug", harness("kernel", "build", "debug"))
    if rc_dbg:
        r.checks.append(Check.failed("host.kernel.debug", "the debug kernel builds",
                                     "the debug kernel did not build (see above)",
                                     origin="host"))
    step("conform on both kernels")
    variants = "test" + (",debug" if rc_dbg == 0 else "")
    rc = r.timed("conform", harness("conform", "--keep", "--variants", variants))
    rep = files.read_json(REPORT)
    if rep is None or os.path.getmtime(REPORT) < r.t0 or \
            not isinstance(rep.get("summary"), dict) or not isinstance(rep.get("checks"), list):
        r.checks.append(Check.failed("host.conform", "conform writes its report",
                                     f"conform wrote no report this run; exit {rc}",
                                     origin="host"))
        return None
    if rc != 0 and rep["summary"]["failed"] == 0:
        r.checks.append(Check.failed("host.conform", "conform exits as its report says",
                                     f"conform exited {rc} without a failed check",
                                     origin="host"))
    return rep


fresh = config.fresh


def kept_step(r, title, key, verb, fallback_id, digest, root=None):
    """check_kept.kept_step() with this module's OUT, json_step and step."""
    check_kept.kept_step(r, title, key, verb, fallback_id, digest, root, out=OUT,
                         run_step=json_step, say=step)


def acvp_step(r, root=None):
    """make acvp on the project's copy of NIST's samples (its own boot),
    kept with the digest of the tree and the test kernel."""
    kept_step(r, "ACVP: the vector sets of vectors/acvp in the test kernel", "acvp",
              ["acvp", "--dir", config.top("vectors/acvp")], "acvp.total",
              None if fresh("acvp") else acvp_inputs(root), root)


def kept_entropy(root=None):
    """(summary, its file, None) when the kept entropy record (make
    entropy's full run, in evidence/) was made on this tree's inputs and
    holds every source make check collects; else (None, None, why not)."""
    root = root or config.TOP
    entry = evidence.manifest(root).get("entropy")
    if not entry:
        return None, None, "evidence/ keeps no entropy record"
    summary = files.read_json(os.path.join(root, entry["file"]))
    if not summary or not isinstance(summary.get("sources"), dict):
        return None, None, f"{entry['file']} is missing or holds no sources"
    missing = [n for n in CHECK_SOURCES if n not in summary["sources"]]
    if missing:
        return None, None, f"{entry['file']} lacks {', '.join(missing)}"
    why = evidence.stale(summary, "entropy", root)
    return (None, None, why) if why else (summary, entry["file"], None)


def reused_entropy(summary, path):
    """make entropy's verdicts on CHECK_SOURCES, judged again from a kept
    summary; each check names the record it comes from."""
    sub = dict(summary, sources={n: summary["sources"][n] for n in CHECK_SOURCES})
    checks = entropy_report.checks(sub)
    for c in checks:
        c.details = dict(c.details, from_record=path, recorded=summary.get("started"))
    return checks


def entropy_step(r, root=None):
    """The entropy evidence of CHECK_SOURCES.  The same inputs (the series,
    the core, the collectors, the assessor and the entropy judges) collect
    and judge the same noise source, so when the kept record was made on
    this tree's inputs its verdicts are judged again from its summary,
    instead of timing the noise for some nine minutes on a machine that
    make check keeps busy.  FRESH=entropy, or any changed input, collects
    the sources again."""
    title = "entropy evidence: raw noise of five sources, SP 800-90B assessed"
    summary, path, why = kept_entropy(root)
    if fresh("entropy"):
        summary, why = None, "FRESH=entropy"
    if summary is None:
        json_step(r, f"{title} (collected: {why})", "entropy",
                  ["entropy", "--sources", ",".join(CHECK_SOURCES)], "entropy.run")
        return
    step(f"{title}: judged again from {path} (make entropy of {summary.get('started')}, "
         "made on this tree's inputs; FRESH=entropy collects again)")
    t0 = time.time()
    r.checks += reused_entropy(summary, path)
    r.timings["entropy"] = round(time.time() - t0, 1)


def merge(r, rep):
    """Fold the host-side checks into report.json (rewriting .md, .xml);
    the summary over everything.  Without conform's report (make check
    stopped at its inputs, conform wrote none), report.json holds the host
    checks alone: never the report of an earlier run."""
    req_map = reqsmod.by_test(reqsmod.read(confmod.load().sources))
    for c in r.checks:
        c.requirements = reqsmod.for_check(req_map, c.id)
    files.write_json(os.path.join(OUT, "host-checks.json"), as_dicts(r.checks))
    ids = {c.id for c in r.checks}
    if rep is None:
        rep = {"schema": 1, "id": new_id(r.started), "started": r.started, "boots": [],
               "checks": as_dicts(r.checks)}
    else:
        rep["checks"] = [c for c in rep["checks"] if c["id"] not in ids] + \
            as_dicts(r.checks)
        # The book's title page and matrix: this report holds a full run.
        rep["full_run"] = {"by": "make check", "started": r.started,
                           "host_checks": len(r.checks)}
    rep["check_timings_s"] = r.timings
    rep["check_duration_s"] = round(time.time() - r.t0, 1)
    for c in rep["checks"]:
        c.setdefault("requirements", [])
    write_all(rep, os.path.dirname(REPORT))
    return rep["summary"]


def book_step(r, rep):
    # The book is rendered after everything else has reported, so that its
    # traceability matrix shows this run; its own checks are merged last.
    merge(r, rep)
    step("the rendered book: build, links, chunks, traceability, browser")
    r.timed("book-deps", ["tools/deps.sh", "book"])
    if r.timed("examples", harness("examples")):
        r.checks.append(Check.failed("host.examples", "the worked example's data is "
                                     "computed", "python3 -m harness examples failed "
                                     "(see above)", origin="host"))
    path = fresh_json("book-checks.json")
    r.timed("book", harness("book-check", "--json", path))
    r.checks += json_checks(path, "the book checks", "book.check")


def skips_step(r, rep):
    """Every skip of the run (conform's, the host steps', the book's)
    against the declared list; BOOTS or VECTORS leave checks out on
    purpose, so a declared skip that is not in such a run is a note (as
    in a run that failed elsewhere)."""
    step(f"skips: each one declared in {skips.LIST}")
    ids = {c.id for c in r.checks}
    every = ([c for c in rep["checks"] if c["id"] not in ids] if rep else []) + \
        as_dicts(r.checks)
    restricted = [f"{v}={os.environ[v]}" for v in ("BOOTS", "VECTORS") if os.environ.get(v)]
    verdicts = skips.verdicts(every, EXPECTED_SKIPS, restricted)
    for c in verdicts:
        if c.status == "fail":
            config.warn("check", c.reason)
        elif c.details.get("not_in_this_run"):
            config.say("check", f"note: {len(c.details['not_in_this_run'])} declared "
                       f"skip(s) not in this run ({', '.join(c.details['excused_by'])})")
    r.checks += verdicts


def check(args):
    r = Run()
    os.makedirs(OUT, exist_ok=True)
    remove_all(os.path.dirname(REPORT))
    rep = None
    if input_step(r):
        host_steps(r)
        rep = kernel_steps(r)
        acvp_step(r)
        entropy_step(r)
        book_step(r, rep)
        skips_step(r, rep)
    total = merge(r, rep)
    print(f"\ncheck: {round(time.time() - r.t0)} s "
          f"({', '.join(f'{k} {v} s' for k, v in r.timings.items())})")
    for c in (rep["checks"] if rep else as_dicts(r.checks)):
        if c["status"] == "fail":
            print(f"FAIL {c['id']}: {c.get('reason', '')[:200]}")
    print(f"{total['passed']} passed, {total['failed']} failed, "
          f"{total['skipped']} skipped")
    return 1 if total["failed"] else 0


def judge_skips(args):
    """The verb skips: a report's skips against the declared list, as
    make check judges them, without running anything."""
    rep = files.read_json(args.report)
    if not isinstance(rep, dict) or not isinstance(rep.get("checks"), list):
        config.die("skips", f"{config.display(args.report)}: no report with checks")
    restricted = [x for x in args.restricted.split(",") if x]
    checks = [c for c in rep["checks"] if not c["id"].startswith("check.skips.")]
    verdicts = skips.verdicts(checks, args.list, restricted)
    for c in verdicts:
        print(f"{c.status.upper()} {c.id}: " + (c.reason or ", ".join(
            f"{k} {v}" for k, v in c.counts.items())))
    return 1 if any(c.status == "fail" for c in verdicts) else 0


def register(sub):
    p = sub.add_parser("check", help="every test; ends with 'N passed, N failed, N skipped'")
    p.set_defaults(func=check)
    p = sub.add_parser("skips", help=f"a report's skips against {skips.LIST}, as make "
                       "check judges them")
    p.add_argument("--report", default=REPORT, help="the report (default: %(default)s)")
    p.add_argument("--list", default=EXPECTED_SKIPS, help="the declared skips")
    p.add_argument("--restricted", default="", help="what the run left out on purpose "
                   "(e.g. BOOTS=main): a declared skip not in the report is then a note")
    p.set_defaults(func=judge_skips)
