# SPDX-License-Identifier: GPL-2.0-only
"""The verb mutants-harness: the mutation score of the harness's verdicts.

  python3 -m harness mutants-harness [--only NAME,...] [--json OUT]

Each mutant of harness_mutants.py is applied to a copy of the package (in
a scratch directory where everything else of the repository is a link,
so the copy is the top of the repository for its tests), and its oracle,
the host test that must catch it, is run there.  The mutant is killed
when the oracle fails (or does not end within --timeout s: a verdict
that hangs is caught too).  Before any mutant, every oracle must pass on
the unmutated copy, or a failing oracle would kill every mutant.

The score is killed / mutants; every mutant must be killed.  Results:
build/mutants/harness.{json,md}, and with --json one check per mutant
(host.mutants.<name>) and host.mutants.score for make check.
"""

import os
import shutil

from ..base import config, files
from ..base.checks import Check
from ..base.report import as_dicts
from . import hmutants_run
from .harness_mutants import MUTANTS
from .mutant_space import run_tests, workspace

OUT = config.build("mutants")


def say(msg):
    config.say("mutants", msg)


def mutate(top, mutant):
    """Apply mutant in top; the file's original text (to put back)."""
    path = os.path.join(top, "harness", mutant["file"])
    with open(path) as f:
        text = f.read()
    if text.count(mutant["old"]) != 1:
        config.die("mutants", f"harness/{mutant['file']}: mutant {mutant['name']} "
                   f"matches {text.count(mutant['old'])} times (expected 1): the code "
                   "moved; update harness/stages/harness_mutants.py")
    with open(path, "w") as f:
        f.write(text.replace(mutant["old"], mutant["new"]))
    return text


def restore(top, mutant, text):
    with open(os.path.join(top, "harness", mutant["file"]), "w") as f:
        f.write(text)


def run_all(mutants, timeout):
    top = workspace()
    try:
        oracles = sorted({m["oracle"] for m in mutants})
        say(f"baseline: the {len(oracles)} oracles on the unmutated package")
        rc, secs, tail = run_tests(top, oracles, timeout)
        if rc != 0:
            config.die("mutants", f"the oracles fail without a mutant ({rc}): "
                       + " | ".join(tail))
        results = []
        for mu in mutants:
            text = mutate(top, mu)
            try:
                rc, secs, tail = run_tests(top, [mu["oracle"]], timeout)
            finally:
                restore(top, mu, text)
            killed = rc != 0
            results.append({"mutant": mu["name"], "file": f"harness/{mu['file']}",
                            "what": mu["what"], "oracle": mu["oracle"], "killed": killed,
                            "oracle_exit": rc, "seconds": secs, "tail": tail})
            say(f"{mu['name']}: {'killed' if killed else 'SURVIVED'} by "
                f"{mu['oracle']} ({secs} s)")
        return results
    finally:
        shutil.rmtree(top, ignore_errors=True)


def as_checks(results):
    out = [Check.judge(f"host.mutants.{r['mutant']}", f"mutant of harness/"
                       f"{r['file'][8:]} ({r['what']}) is caught by {r['oracle']}",
                       [] if r["killed"] else [f"{r['oracle']} passes on the mutant"],
                       origin="host", counts={"seconds": r["seconds"]})
           for r in results]
    killed = sum(r["killed"] for r in results)
    out.append(Check.judge("host.mutants.score", "mutation score of the harness's "
                           f"verdict code: {killed}/{len(results)} mutants killed",
                           [r["mutant"] + " survived" for r in results if not r["killed"]]
                           + ([] if results else ["no mutant ran"]),
                           origin="host", counts={"mutants": len(results),
                                                  "killed": killed}))
    return out


def write(results):
    files.write_json(os.path.join(OUT, "harness.json"), results)
    killed = sum(r["killed"] for r in results)
    lines = ["# Mutation score of the harness's verdict code", "",
             f"**{killed}/{len(results)} mutants killed**", "",
             "| mutant | file | defect | oracle | killed | s |", "|---|---|---|---|---|---|"]
    lines += [f"| {r['mutant']} | {r['file']} | {r['what']} | {r['oracle']} | "
              f"{'yes' if r['killed'] else '**no**'} | {r['seconds']} |" for r in results]
    files.write_text(os.path.join(OUT, "harness.md"), "\n".join(lines) + "\n")
    return killed


def run(args):
    if args.generated:
        return hmutants_run.run(args)
    only = set(args.only.split(",")) if args.only else None
    unknown = (only or set()) - {m["name"] for m in MUTANTS}
    if unknown:
        config.die("mutants", f"no mutant {', '.join(sorted(unknown))} "
                   "(see harness/stages/harness_mutants.py)")
    mutants = [m for m in MUTANTS if not only or m["name"] in only]
    results = run_all(mutants, args.timeout)
    killed = write(results)
    if args.json:
        files.write_json(args.json, as_dicts(as_checks(results)))
    say(f"mutation score: {killed}/{len(results)} mutants killed "
        f"({config.display(OUT)}/harness.md)")
    return 0 if results and killed == len(results) else 1


def register(sub):
    p = sub.add_parser("mutants-harness", help="mutation score of the harness's verdicts")
    p.add_argument("--only", help="comma-separated mutant names")
    p.add_argument("--json", metavar="OUT", help="write one check per mutant to OUT")
    p.add_argument("--timeout", type=int, default=300,
                   help="seconds an oracle may take before the mutant counts as caught")
    p.add_argument("--generated", action="store_true",
                   help="the generated mutants (hmutants.py) against the host suite; "
                        "--only then takes ids, files or operators")
    p.add_argument("--list", action="store_true", help="with --generated: list them")
    p.add_argument("--confirm", action="store_true",
                   help="with --generated: run every survivor against the whole suite")
    p.add_argument("--reuse-trace", action="store_true",
                   help="with --generated: the last run's trace, not a new one")
    p.add_argument("--jobs", type=int, default=2, help="with --generated: mutants at once")
    p.add_argument("--suite-timeout", type=int, default=3600,
                   help="with --generated: seconds the whole host suite may take (the "
                        "trace, and each survivor with --confirm)")
    p.set_defaults(func=run)
