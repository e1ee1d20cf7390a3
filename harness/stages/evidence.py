# SPDX-License-Identifier: GPL-2.0-only
"""The verb evidence (make evidence): keep the reports of the long runs.

  python3 -m harness evidence [--only NAME,...]   (the names: base/evidence.py's RECORDS)

Copies build/stress/report.json, build/conformance-i386/report.json,
build/mutants/series.json, build/modules-check/report.json and the full
make entropy run (its summary, the
sources' assessments, the figures' data, the 8-bit sample files and the
SHA-256 of every raw file, into evidence/entropy/) into evidence/
(base/evidence.py), each only if it was made on this tree's inputs, and
writes evidence/manifest.json.  The kept verdicts of make check's long
host steps and of ACVP (build/check/<step>-kept.json, written by a make
check where the step ran and passed) are kept as check-<step>, so that a
clean clone's make check takes them while their inputs are the same.
Without --only a report that is not there is passed over (said); with
--only it is an error.  Commit evidence/ afterwards: the book of a clean
clone then has the figures.
"""

from ..base import config, evidence, files


def run(args):
    names = [n for n in (args.only or "").split(",") if n]
    unknown = [n for n in names if n not in evidence.RECORDS]
    if unknown:
        config.die("evidence", f"no record {', '.join(unknown)} (known: "
                   f"{', '.join(evidence.RECORDS)})")
    failed = 0
    for name in names or list(evidence.RECORDS):
        rec = evidence.RECORDS[name]
        if not names and files.read_json(config.top(rec["build"])) is None:
            config.say("evidence", f"{name}: no {rec['build']} (`{rec['make']}` writes "
                       "it): passed over")
            continue
        try:
            e = evidence.record(name)
        except SystemExit as err:
            config.warn("evidence", str(err).removeprefix("evidence: "))
            failed += 1
            continue
        config.say("evidence", f"{name}: {rec['build']} -> {e['file']} (inputs "
                   f"{e['digest'][:12]}, commit {(e['commit'] or '?')[:12]}"
                   + ("" if e["inputs_committed"] else ", inputs NOT committed") + ")")
    return 1 if failed else 0


def register(sub):
    p = sub.add_parser("evidence", help="keep the reports of make stress, make conform "
                       "ARCH=i386, make mutants, make modules-check, make kconfig-matrix and "
                       "make entropy in "
                       "evidence/ (if made on this tree)")
    p.add_argument("--only", default="",
                   help=f"comma-separated: {', '.join(evidence.RECORDS)}")
    p.set_defaults(func=run)
