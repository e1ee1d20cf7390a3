# SPDX-License-Identifier: GPL-2.0-only
"""The recorded runs: evidence/ holds the reports of the runs too long for
make check (make stress, make conform ARCH=i386, make mutants), each with
the digest of the inputs its verdicts depend on.

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
"""

import datetime
import hashlib
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
              "conformance/jitter", "conformance/entropy/sha3.c",
              "conformance/entropy/sha3.h", "conformance/entropy/zalloc.c",
              "conformance/entropy/zalloc.h")
RECORDS = {
    "stress": {"build": "build/stress/report.json", "make": "make stress",
               "inputs": COMMON + ("harness/stages/stress.py",)},
    "i386": {"build": "build/conformance-i386/report.json",
             "make": "make conform ARCH=i386",
             "inputs": COMMON + ("harness/stages/conform.py",)},
    "mutants": {"build": "build/mutants/series.json", "make": "make mutants",
                "inputs": COMMON + ("harness/stages/kmutants.py",
                                    "harness/stages/kmutants_schema.py",
                                    "harness/stages/kmutants_run.py",
                                    "harness/stages/kmutants_host.py")
                + HOST_JUDGE},
}
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


def load(name, root=None):
    """(report, provenance): build/'s report when there is one, else the
    recorded one; provenance says which, and whether it is current."""
    root = root or config.TOP
    rec = RECORDS[name]
    rep = files.read_json(os.path.join(root, rec["build"]))
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


def record(name, root=None):
    """Copy build/'s report of name into evidence/ and the manifest; die
    with the reason if there is none or it was made on other inputs."""
    root = root or config.TOP
    rec = RECORDS[name]
    src = os.path.join(root, rec["build"])
    rep = files.read_json(src)
    if not rep:
        config.die("evidence", f"{name}: no {rec['build']}: `{rec['make']}` writes it")
    why = stale(rep, name, root)
    if why:
        config.die("evidence", f"{name}: {why}")
    now = digest(rec["inputs"], root)
    dirty = _git(root, "status", "--porcelain", "--", *rec["inputs"])
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
