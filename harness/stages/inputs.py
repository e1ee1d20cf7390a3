# SPDX-License-Identifier: GPL-2.0-only
"""What a conform run is asked to do, checked before the first guest boots.

  BOOTS     names of boots of the plan (plan.py); a name the plan does not
            have, or a value that names no boot at all, is an error
  VECTORS   the CAVS directories of the cavs boots: every file under them
            is found, read and parsed here (cavs_input.py, cavs_parse.py),
            once, before any guest starts; a directory that is missing or
            unreadable, a file that cannot be read (dangling link, FIFO,
            no permission, a name that is not UTF-8) or does not parse is
            an error; the records packed for the guests are kept (in
            cavs/prepared.json of the run's directory) until a vector
            file or the harness changes (packed())

The ACVP vector sets (vectors/acvp) are read by the acvp verb itself
(`python3 -m harness acvp --inputs-only`), which make check runs in the
same first step.  Every problem is one line naming the file (and line)
and what was expected.  conform writes its report with these problems as
failed checks and boots nothing; check stops before the long steps.
"""

import hashlib
import os
import stat

from ..base import config, evidence, files
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


# Variants whose boots are the test kernel's plan entries again, on
# another architecture (make conform ARCH=i386); their ids get the prefix.
REPLAYED = ("i386",)


def replayed(spec, variant):
    """A test-kernel plan entry booted on another variant (architecture)."""
    prefix = variant + (f".{spec['prefix']}" if spec.get("prefix") else "")
    return dict(spec, variant=variant, prefix=prefix, title=f"{variant}: {spec['title']}")


def select_plan(only, variants, boots=None):
    """The plan entries to boot: those of the variants (optional ones only
    when named), or exactly those named; an unknown name is an error.  A
    replayed variant (i386) boots the test kernel's entries, alone."""
    boots = BOOTS if boots is None else boots
    again = [v for v in variants if v in REPLAYED]
    if again and len(variants) > 1:
        raise InputError(f"the {', '.join(again)} kernel is booted alone (its boots "
                         "have the test kernel's names): give it --variants of its own "
                         "and an --out of its own")
    known = {b["name"] for b in boots}
    unknown = [n for n in only if n not in known]
    if unknown:
        raise InputError(f"BOOTS names no boot {', '.join(map(repr, unknown))} of "
                         f"harness/stages/plan.py (known: {', '.join(sorted(known))})")
    plan = [b for b in boots if b.get("variant", "test") in variants and
            (b["name"] in only if only or b.get("optional") else True)]
    for v in again:
        plan += [replayed(b, v) for b in boots
                 if b.get("variant", "test") == "test" and not b.get("optional")
                 and (b["name"] in only if only else True)]
    if not plan:
        raise InputError(f"no boot of {', '.join(only) or 'the plan'} runs on the kernel "
                         f"variant(s) {', '.join(variants)}")
    return plan


def vector_problems(meta):
    """One line per problem of the vector files: file (and line) first."""
    return [e for f in meta["files"] for e in f["errors"]]


def vectors_key(dirs, outdir):
    """The digest of what a pack is made from: every file under dirs (name
    and bytes), the harness's files (evidence.digest) and where the pack
    goes.  None when anything under dirs is not a plain file or directory
    (a link, a FIFO, an unreadable file): prepare() reports those, so such
    a run is never served from a kept pack."""
    h = hashlib.sha256(f"out\0{os.path.abspath(outdir)}\n".encode())
    for d in dirs:
        h.update(f"dir\0{os.path.abspath(d)}\n".encode())
        if not os.path.isdir(d) or os.path.islink(d):
            return None
        for root, subdirs, names in os.walk(d):
            subdirs.sort()
            for n in sorted(subdirs + names):
                path = os.path.join(root, n)
                st = os.lstat(path)
                if stat.S_ISDIR(st.st_mode):
                    continue
                if not stat.S_ISREG(st.st_mode) or not os.access(path, os.R_OK):
                    return None
                h.update(f"file\0{os.path.relpath(path, d)}\0"
                         f"{files.sha256_file(path)}\n".encode())
    h.update(f"code\0{evidence.digest(('harness',))}\n".encode())
    return h.hexdigest()


def packed(dirs, outdir):
    """(key, meta) of the pack in outdir when it was made from the same
    inputs (vectors_key) and is still the file that was made; meta None
    otherwise.  The pack and the host model's answers take seconds
    before the first boot, on every run."""
    key = vectors_key(dirs, outdir)
    kept = files.read_json(os.path.join(outdir, "prepared.json")) or {}
    meta = kept.get("meta")
    if key is None or kept.get("key") != key or not isinstance(meta, dict):
        return key, None
    pack = meta.get("pack") or ""
    if not os.path.isfile(pack) or files.sha256_file(pack) != kept.get("pack_sha256"):
        return key, None
    return key, meta


def prepare_vectors(outdir, dirs=None):
    """Parse every vector file and pack the records, once for every cavs
    boot of the run, or take the pack the last run made from the same
    inputs: (meta, [problem line], [Check of each file])."""
    dirs = dirs or cavs_pack.vector_dirs_from_env()
    where = ":".join(config.display(d) for d in dirs)
    cavs_out = os.path.join(outdir, "cavs")
    key, meta = packed(dirs, cavs_out)
    if meta is not None:
        config.say("conform", f"cavs: the records under {where} are packed already "
                   "(the same files and harness as the last run)")
    else:
        config.say("conform", f"cavs: packing the records under {where}")
        _, meta = cavs_pack.prepare(dirs, cavs_out)
        if key is not None:
            files.write_json(os.path.join(cavs_out, "prepared.json"),
                             {"key": key, "pack_sha256": files.sha256_file(meta["pack"]),
                              "meta": meta})
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
