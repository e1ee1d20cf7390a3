# SPDX-License-Identifier: GPL-2.0-only
"""The kept runs of make check's steps (issue 39): a step that passed is
kept with the digest of its inputs, and the next run on the same inputs
takes its verdicts instead of running it.

  tree_inputs(), acvp_inputs()   the digests of this machine's kept runs
                                  (build/check/<step>-kept.json)
  recorded(key)                  a run kept in evidence/check-<step>.json
                                  that holds for this tree and its packages
  kept_step(...)                 run the step, or take a kept run

Split from check.py, which calls kept_step() with its own step runner.
"""

import hashlib
import os
import platform

from ..base import config, evidence, files, kcache, proc
from ..base.checks import Check
from ..base.report import as_dicts

# The packages whose versions a kept verdict of a step depends on (kept_step).
KEPT_PACKAGES = ("linux-source-6.1", "qemu-system-x86", "gcc-12", "libkcapi-dev",
                 "noweb", "sparse", "coccinelle")

fresh = config.fresh


def tree_inputs(root=None):
    """The digest of every file of the tree (all but build/ and .git), of
    the packages that build and run what make check runs, and of Python:
    what a kept verdict of a host step may depend on, taken whole so that
    no input can be left out of it."""
    root = root or config.TOP
    names = sorted(n for n in os.listdir(root) if n not in ("build", ".git"))
    h = hashlib.sha256(f"files\0{evidence.digest(names, root)}\n".encode())
    for pkg, version in packages().items():
        h.update(f"{pkg}\0{version}\n".encode())
    return h.hexdigest()


def acvp_inputs(root=None):
    """tree_inputs() and the test kernel's image and .config; None while
    there is no finished test kernel."""
    version = kcache.installed_version()
    build = os.path.join(kcache.tree_dir(version), "build-test") if version else None
    if not build or not os.path.exists(os.path.join(build, "build.ok")):
        return None
    h = hashlib.sha256(f"tree\0{tree_inputs(root)}\n".encode())
    for rel in ("arch/x86/boot/bzImage", ".config"):
        h.update(f"{rel}\0{files.sha256_file(os.path.join(build, rel))}\n".encode())
    return h.hexdigest()


def packages():
    """The versions of KEPT_PACKAGES and of Python: a kept verdict holds
    only where they are the same."""
    out = {pkg: proc.dpkg_version(pkg) for pkg in KEPT_PACKAGES}
    out["python"] = platform.python_version()
    return out


def recorded(key, root=None):
    """(record, None) when evidence/ keeps verdicts of make check's step
    key (evidence.CHECK_STEPS) made on this tree's inputs with the
    installed packages; else (None, why not)."""
    root = root or config.TOP
    name = f"check-{key}"
    entry = evidence.manifest(root).get(name)
    if not entry:
        return None, f"evidence/ keeps no {name} record"
    rec = files.read_json(os.path.join(root, entry["file"]), kind=dict)
    if not rec or not rec.get("checks"):
        return None, f"{entry['file']} is missing or holds no verdicts"
    why = evidence.stale(rec, name, root)
    if why:
        return None, why
    lacks = [rel for rel in OUTPUTS.get(key, ()) if rel not in (rec.get("outputs") or {})]
    if lacks:
        return None, f"{entry['file']} lacks build/{', build/'.join(lacks)}"
    now = packages()
    other = sorted(p for p in set(now) | set(rec.get("packages") or {})
                   if (rec.get("packages") or {}).get(p) != now.get(p))
    if other:
        return None, (f"{entry['file']} was made with other versions of "
                      f"{', '.join(other)}")
    return dict(rec, file=entry["file"]), None


# What a kept step leaves in build/ for others to read, kept with its
# verdicts and put back when they are taken: the book's sections on the
# assessor and on ACVP, and the Public Use Document, draw these.
OUTPUTS = {"entropy-kat": ("entropy/kat/summary.json",), "acvp": ("acvp/summary.json",)}


def outputs(key):
    """{path under build/: its JSON} of what step key left (OUTPUTS)."""
    out = {}
    for rel in OUTPUTS.get(key, ()):
        data = files.read_json(config.build(rel))
        if data is None:
            return None
        out[rel] = data
    return out


def take(r, key, kept, **origin):
    """The kept verdicts of step key into the run, and its outputs back
    into build/."""
    for rel, data in (kept.get("outputs") or {}).items():
        if rel in OUTPUTS.get(key, ()):
            files.write_json(config.build(rel), data)
    r.checks += [Check.from_dict(dict(c, details=dict(c.get("details") or {}, **origin)))
                 for c in kept["checks"]]
    r.timings[key] = 0.0


def kept_step(r, title, key, verb, fallback_id, digest, root=None, *, out, run_step, say):
    """json_step, or the verdicts of an earlier run of this step that
    passed on the same inputs, each naming the run it comes from: this
    machine's last one, on a tree and packages of the same digest
    (build/check/<key>-kept.json), else one kept in evidence/ (make
    evidence --only check-<key>) made on the same inputs of the step
    (evidence.CHECK_STEP) and packages, which a clean clone has.  A
    failure is never kept; FRESH=<key> or all, or no digest, runs the
    step.  out: where the kept runs are; run_step: check.json_step; say:
    check.step."""
    kept_path = os.path.join(out, f"{key}-kept.json")
    if fresh(key):
        digest = None
    kept = files.read_json(kept_path)
    if digest and kept and kept.get("tree") == digest and kept.get("checks"):
        say(f"{title}: the verdicts of the run of {kept['started']}, on the same inputs "
             f"(FRESH={key} runs it again)")
        take(r, key, kept, from_run=kept["started"])
        return
    if os.path.exists(kept_path):
        os.unlink(kept_path)
    if digest:
        rec, why = recorded(key, root)
    else:
        rec, why = None, f"FRESH={os.environ.get('FRESH')}" if fresh(key) else \
            "no digest of its inputs"
    if rec:
        say(f"{title}: the verdicts of make check of {rec['started']}, kept in "
             f"{rec['file']}, made on this tree's inputs and packages (FRESH={key} runs "
             "it again)")
        take(r, key, rec, from_run=rec["started"], from_record=rec["file"])
        return
    first = len(r.checks)
    run_step(r, f"{title} (run: {why})", key, verb, fallback_id)
    ran = r.checks[first:]
    left = outputs(key)
    if digest and ran and all(c.status != "fail" for c in ran) and left is not None:
        files.write_json(kept_path, {
            "tree": digest, "started": r.started, "packages": packages(),
            "inputs": {f"check-{key}": evidence.digest(evidence.CHECK_STEP, root)},
            "checks": as_dicts(ran), "outputs": left})
