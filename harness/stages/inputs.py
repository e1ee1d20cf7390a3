# SPDX-License-Identifier: GPL-2.0-only
"""What a conform run is asked to do, checked before the first guest boots.

  BOOTS     names of boots of the plan (plan.py); a name the plan does not
            have, or a value that names no boot at all, is an error
  VECTORS   the CAVS directories of the cavs boots: every file under them
            is found, read and parsed here (cavs_input.py, cavs_parse.py),
            once, before any guest starts; a directory that is missing or
            unreadable, a file that cannot be read (dangling link, FIFO,
            no permission, a name that is not UTF-8) or does not parse is
            an error

(There are no ACVP sets in this project yet; when there are, they are
checked here too.)  Every problem is one line naming the file (and line)
and what was expected.  conform writes its report with these problems as
failed checks and boots nothing; check stops before the long steps.
"""

import os

from ..base import config
from ..base.checks import Check
from ..judges import cavs_judge, cavs_pack
from .plan import BOOTS


class InputError(Exception):
    """A request the run cannot carry out: one line, file (and line) first."""


def boot_names(text):
    """The boot names of a BOOTS value: "" means the whole plan, and a
    value with no name in it (",", " ") is an error, not the whole plan."""
    names = [n.strip() for n in (text or "").split(",") if n.strip()]
    if (text or "").strip() and not names:
        raise InputError(f"BOOTS={text!r} names no boot: expected names of the plan "
                         "separated by commas (harness/stages/plan.py), or nothing "
                         "for the whole plan")
    return names


def select_plan(only, variants, boots=None):
    """The plan entries to boot: those of the variants (optional ones only
    when named), or exactly those named; an unknown name is an error."""
    boots = BOOTS if boots is None else boots
    known = {b["name"] for b in boots}
    unknown = [n for n in only if n not in known]
    if unknown:
        raise InputError(f"BOOTS names no boot {', '.join(map(repr, unknown))} of "
                         f"harness/stages/plan.py (known: {', '.join(sorted(known))})")
    plan = [b for b in boots if b.get("variant", "test") in variants and
            (b["name"] in only if only or b.get("optional") else True)]
    if not plan:
        raise InputError(f"no boot of {', '.join(only) or 'the plan'} runs on the kernel "
                         f"variant(s) {', '.join(variants)}")
    return plan


def vector_problems(meta):
    """One line per problem of the vector files: file (and line) first."""
    return [e for f in meta["files"] for e in f["errors"]]


def prepare_vectors(outdir, dirs=None):
    """Parse every vector file and pack the records, once for every cavs
    boot of the run: (meta, [problem line], [Check of each file])."""
    dirs = dirs or cavs_pack.vector_dirs_from_env()
    config.say("conform", "cavs: packing the records under "
               + ":".join(config.display(d) for d in dirs))
    _, meta = cavs_pack.prepare(dirs, os.path.join(outdir, "cavs"))
    problems = vector_problems(meta)
    applicable = sum(s["records"] for s in meta["sections"] if not s["selftest"])
    if not problems and applicable == 0:
        problems.append(f"VECTORS={':'.join(meta['vector_dirs'])}: no record Linux 6.1 "
                        "can run: expected .rsp files with applicable records")
    config.say("conform", f"cavs: {applicable} applicable records, host model "
               f"{meta['model_seconds']} s, pack {meta['pack_bytes']} bytes")
    return meta, problems, cavs_judge.parse_checks(meta)


def check(only_text, variants, outdir):
    """Everything a run was asked to do: (plan, cavs meta or None,
    [problem line], [Check]).  The checks are the inputs' own (one per
    vector file, and conform.inputs)."""
    problems, checks, plan, meta = [], [], [], None
    try:
        plan = select_plan(boot_names(only_text), variants)
    except InputError as e:
        problems.append(str(e))
    if any(spec.get("cavs") for spec in plan):
        meta, vp, checks = prepare_vectors(outdir)
        problems += vp
    title = "what the run was asked to do (BOOTS, VECTORS) can be done"
    checks.append(Check.judge("conform.inputs", title, problems, shown=5, sep=" | ",
                              counts={"problems": len(problems)},
                              details={"problems": problems[:200]}))
    return plan, meta, problems, checks
