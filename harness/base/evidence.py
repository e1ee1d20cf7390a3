# SPDX-License-Identifier: GPL-2.0-only
"""The recorded runs: evidence/ holds the reports of the runs too long for
make check (make stress, make conform ARCH=i386, make mutants, make
modules-check, the full make entropy, make bench), each with the digest of the inputs its verdicts
depend on.

A run of hours cannot be repeated by every clean clone, and a machine's
build/ does not outlive it; a laboratory keeps such a report with the
version it was made on.  So the run writes its report under build/ as
always, with digests() of this tree in it; `make evidence` copies a report
into evidence/ only if those digests are still this tree's (the run was of
what is committed), and evidence/manifest.json says when and at which
commit.  The book reads build/ first (this tree's own run), then
evidence/, and says which, and whether the inputs have changed since.

    digests()           {record: digest of its inputs, in this tree}
    load(name)          (report, provenance) or (None, None)
    record(name)        copy build/'s report into evidence/ (or die saying why)

A record may keep more than its report: the entropy run keeps, under
evidence/entropy/, every source's assessments and collection account, the
figures' data, the 8-bit sample files the assessor read (xz-compressed),
and the SHA-256 of every raw file it wrote (SHA256SUMS), so that a
laboratory can assess the samples again and check them against the run.

evidence/ holds one thing this module does not manage: evidence/history/,
summaries of make entropy runs of earlier designs of the Jitter RNG's
core, kept by hand because the book cites them.  No record names them,
nothing here reads, replaces or removes them (keep_files() clears only
its record's own directory), and they are never judged again.
"""

import datetime
import glob
import hashlib
import lzma
import os
import subprocess

from . import config, files

# What a verdict depends on: the series, the guest programs and kernel
# fragments, the judges and the boot plan; and each run's own driver.
COMMON = ("tangled/patches", "conformance/guest", "conformance/kconfig",
          "conformance/kmemleak-allowlist.txt", "harness/judges",
          "harness/stages/plan.py")
# The host judge of the mutants of the Jitter RNG's core
# (kmutants_host.py): its tests, their driver and what it is built from.
HOST_JUDGE = ("tests/judges/jitter_driver.py", "tests/judges/test_jitter.py",
              "tests/judges/test_jitter_health.py", "tests/judges/test_jitter_lag.py",
              "conformance/jitter", "conformance/entropy/zalloc.c",
              "conformance/entropy/zalloc.h")
# The entropy run: the samples depend on the series, the core, the guest,
# the kernel fragments and the collectors; the verdicts on the assessor
# and the judges of the entropy stage.
ENTROPY = ("tangled/patches", "tangled/jitterentropy.c", "tangled/jitterentropy.h",
           "tangled/sp800-90b", "conformance/entropy", "conformance/guest",
           "conformance/kconfig", "conformance/uml", "harness/judges/entropy_claim.py",
           "harness/judges/entropy_collect.py", "harness/judges/entropy_data.py",
           "harness/judges/entropy_math.py", "harness/judges/entropy_health.py",
           "harness/judges/entropy_chain.py", "harness/judges/entropy_report.py",
           "harness/judges/entropy_figures.py", "harness/judges/jitter_model.py",
           "harness/judges/entropy_recording.py",
           "harness/stages/entropy.py", "harness/stages/entropy_uml.py",
           "harness/stages/assess.py", "harness/stages/plan.py", "harness/base/uml.py")
# make mutants: its driver, the judges of a mutant and their host tests.
MUTANTS = COMMON + ("harness/stages/kmutants.py", "harness/stages/kmutants_schema.py",
                    "harness/stages/kmutants_run.py", "harness/stages/kmutants_host.py",
                    "harness/stages/kmutants_boot.py", "harness/stages/kmutants_compile.py",
                    "harness/stages/kmutants_shard.py") + HOST_JUDGE
RECORDS = {
    "stress": {"build": "build/stress/report.json", "make": "make stress",
               "inputs": COMMON + ("harness/stages/stress.py",)},
    "i386": {"build": "build/conformance-i386/report.json",
             "make": "make conform ARCH=i386",
             "inputs": COMMON + ("harness/stages/conform.py",)},
    "mutants": {"build": "build/mutants/series.json", "make": "make mutants",
                "inputs": MUTANTS},
    # make shards-demo: make mutants on a few mutants on one machine and in
    # two shards (tools/shards.sh), the merge compared verdict by verdict.
    "shards": {"build": "build/mutants/compare.json", "make": "make shards-demo",
               "inputs": MUTANTS + ("tools/shards.sh", "tools/shards-demo.sh")},
    # make mutants-harness-gen: the generated mutants of the harness's
    # verdict code, judged by the host suite; what kills them is the
    # harness and its tests, so any edit of either makes it stale.
    "hmutants": {"build": "build/mutants/generated.json", "make": "make mutants-harness-gen",
                 "inputs": ("harness", "tests"), "mode": "full"},
    # make modules-check: the modules kernel's boots, whose checks two
    # requirements of the matrix name (modules.*).
    "modules": {"build": "build/modules-check/report.json", "make": "make modules-check",
                "inputs": COMMON + ("harness/stages/conform.py",)},
    # make kconfig-matrix: every combination of the series' options that
    # Kconfig allows, built and linked; only a full run (no --limit) is kept.
    "kconfig": {"build": "build/kconfig-matrix/report.json", "make": "make kconfig-matrix",
                "inputs": ("tangled/patches", "conformance/kconfig/matrix.config",
                           "harness/judges/kconfig_space.py",
                           "harness/stages/kconfig_matrix.py"),
                "mode": "full"},
    # make bench (issue 39): timings and their ratios, side by side in one
    # run.  It times the series and the Jitter RNG's core, the guest
    # programs, the kernel fragments, the assessor and, in its workflow
    # phase, the pipeline itself (make conform, kunit.py): all of them are
    # its inputs.  Only a run with the workflow phase is kept.
    "bench": {"build": "build/bench/bench.json", "make": "make bench",
              "inputs": ("tangled", "conformance", "harness", "Makefile", "tools"),
              "mode": "full"},
    "entropy": {"build": "build/entropy/summary.json", "make": "make entropy",
                "inputs": ENTROPY, "dir": "entropy",
                # Only the full run is kept: make check collects five sources.
                "complete": ("ours-user", "ours-user-fixed", "pristine-user",
                             "ours-kernel", "ours-uml", "ours-uml-fixed", "ours-uml-tsc",
                             "ours-uml-tsc-fixed"),
                # What is kept beside the summary, from build/entropy/: copied,
                # xz-compressed, and only hashed.
                "keep": ("*/assessment.json", "*/blocks-bits.json",
                         "*/collect.json", "figures/*.json"),
                "compress": ("*/raw.bin", "*/restart.bin", "*/blocks.bin"),
                "hash": ("*/*.bin",)},
}
# make check's steps whose verdicts a clean clone may take from evidence/
# instead of running them again (issue 39; check.kept_step): the Kconfig
# builds, the static checkers, the production config, the assessor's
# known answers, the harness's mutants and ACVP.  What such a step builds
# and runs is under these paths: the tangled files, the guest and the
# kernel fragments, the vectors, the harness and its tests, the Makefile,
# tools/ and the pinned kernel version; the Debian packages and Python,
# which no file holds, check.py compares itself.  Not an input: the
# chapters' prose (make drift ties tangled/ to the chapters), the book's
# templates, the README and evidence/.
CHECK_STEP = ("tangled", "conformance", "vectors", "harness", "tests", "Makefile",
              "tools", "tangle.conf")
CHECK_STEPS = ("kconfig", "checkers", "prodconfig", "entropy-kat", "mutants", "acvp")
for _key in CHECK_STEPS:
    RECORDS[f"check-{_key}"] = {"build": f"build/check/{_key}-kept.json",
                                "make": "make check", "inputs": CHECK_STEP}
DIR = "evidence"
MANIFEST = os.path.join(DIR, "manifest.json")


def _skip(name):
    return name == "__pycache__" or name.endswith((".pyc", ".o"))


def digest(paths, root=None):
    """One SHA-256 over the names and contents of every file under paths
    (files or directories, relative to root); a missing path counts as
    missing, so removing an input changes the digest too."""
    root = root or config.TOP
    h = hashlib.sha256()
    for rel in sorted(paths):
        base = os.path.join(root, rel)
        if os.path.isfile(base):
            found = {rel: files.sha256_file(base)}
        elif os.path.isdir(base):
            found = files.tree_hashes(base, root, _skip)
        else:
            h.update(f"{rel}\0missing\n".encode())
            continue
        for p, sha in found.items():
            h.update(f"{p}\0{sha}\n".encode())
    return h.hexdigest()


def digests(root=None):
    return {name: digest(r["inputs"], root) for name, r in RECORDS.items()}


def _inputs_of(rep, name):
    """The digest a report (or each part of the mutants' series) was made
    on; None where it carries none."""
    if name != "mutants":
        return [(rep.get("inputs") or {}).get(name)]
    out = []
    for run in (rep.get("parts") or {}).values():
        out.append((run.get("inputs") or {}).get(name))
        out += [(r.get("inputs") or {}).get(name) for r in run.get("reruns", [])]
    return out


def stale(rep, name, root=None):
    """Why rep's verdicts are not of this tree's inputs (a line), or None
    when every one of them was made on them."""
    rec = RECORDS[name]
    made = _inputs_of(rep, name)
    if not made or None in made:
        return (f"{rec['build']} carries no digest of its inputs (made by an older "
                f"harness): run `{rec['make']}` again")
    now = digest(rec["inputs"], root)
    if any(d != now for d in made):
        return (f"{rec['build']} was made on other inputs than this tree's "
                f"({', '.join(rec['inputs'])} changed since): run `{rec['make']}` again")
    return None


def current(rep, name, root=None):
    """Whether every verdict of rep was made on this tree's inputs."""
    return stale(rep, name, root) is None


def manifest(root=None):
    return files.read_json(os.path.join(root or config.TOP, MANIFEST)) or {}


def load(name, root=None, whole=False):
    """(report, provenance): build/'s report when there is one, else the
    recorded one; provenance says which, and whether it is current.
    whole: build/'s report only if it is of the record's mode (make check's
    kconfig-matrix --short writes the full run's file; a reader of the
    record wants the full run, kept or not)."""
    root = root or config.TOP
    rec = RECORDS[name]
    rep = files.read_json(os.path.join(root, rec["build"]))
    if rep and whole and rec.get("mode") and rep.get("mode") != rec["mode"]:
        rep = None
    if rep:
        return rep, {"source": "build", "path": rec["build"],
                     "current": current(rep, name, root)}
    entry = manifest(root).get(name)
    if not entry:
        return None, None
    rep = files.read_json(os.path.join(root, entry["file"]))
    if not rep:
        config.die("evidence", f"{MANIFEST} names {entry['file']}, which is missing "
                   "or not JSON")
    return rep, dict(entry, source="evidence", path=entry["file"],
                     current=current(rep, name, root))


def _git(root, *args):
    r = subprocess.run(["git", "-C", root, *args], capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else None


def keep_files(rec, root):
    """A record's files besides its report (RECORDS' "keep", "compress",
    "hash"), into evidence/<dir>/; the old ones are removed first, so that
    nothing of an earlier run survives beside this one's."""
    src = os.path.dirname(os.path.join(root, rec["build"]))
    dest = os.path.join(root, DIR, rec["dir"])
    for old in glob.glob(os.path.join(dest, "**", "*"), recursive=True):
        if os.path.isfile(old):
            os.unlink(old)

    def each(patterns):
        return sorted({p for pat in patterns for p in glob.glob(os.path.join(src, pat))})
    for p in each(rec.get("keep", ())) + each(rec.get("compress", ())):
        with open(p, "rb") as f:
            data = f.read()
        rel = os.path.relpath(p, src)
        if p.endswith(".bin"):
            data, rel = lzma.compress(data, preset=9), rel + ".xz"
        files.write_bytes(os.path.join(dest, rel), data)
    sums = "".join(f"{files.sha256_file(p)}  {os.path.relpath(p, src)}\n"
                   for p in each(rec.get("hash", ())))
    files.write_text(os.path.join(dest, "SHA256SUMS"), sums)


def record(name, root=None):
    """Copy build/'s report of name into evidence/ (and the files it keeps
    beside it) and the manifest; die with the reason if there is none or
    it was made on other inputs."""
    root = root or config.TOP
    rec = RECORDS[name]
    src = os.path.join(root, rec["build"])
    rep = files.read_json(src)
    if not rep:
        config.die("evidence", f"{name}: no {rec['build']}: `{rec['make']}` writes it")
    why = stale(rep, name, root)
    if why:
        config.die("evidence", f"{name}: {why}")
    if rec.get("mode") and rep.get("mode") != rec["mode"]:
        config.die("evidence", f"{name}: {rec['build']} is a {rep.get('mode')} run: only "
                   f"a {rec['mode']} `{rec['make']}` is kept")
    missing = [s for s in rec.get("complete", ()) if s not in (rep.get("sources") or {})]
    if missing:
        config.die("evidence", f"{name}: {rec['build']} lacks {', '.join(missing)}: only "
                   f"a full `{rec['make']}` is kept")
    now = digest(rec["inputs"], root)
    dirty = _git(root, "status", "--porcelain", "--", *rec["inputs"])
    if rec.get("dir"):
        keep_files(rec, root)
        path = os.path.join(DIR, rec["dir"], os.path.basename(rec["build"]))
    else:
        path = os.path.join(DIR, f"{name}.json")
    files.write_json(os.path.join(root, path), rep)
    entries = manifest(root)
    entries[name] = {
        "file": path, "from": rec["build"], "make": rec["make"],
        "recorded": datetime.datetime.now(datetime.timezone.utc).isoformat(
            timespec="seconds"),
        "commit": _git(root, "rev-parse", "HEAD"),
        "inputs_committed": dirty == "",
        "inputs": list(rec["inputs"]), "digest": now}
    files.write_json(os.path.join(root, MANIFEST), dict(sorted(entries.items())))
    return entries[name]
