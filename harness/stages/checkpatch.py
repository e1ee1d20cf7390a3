# SPDX-License-Identifier: GPL-2.0-only
"""The verb checkpatch: the kernel's scripts/checkpatch.pl --strict on
every patch of the series.

checkpatch comes from the cached kernel tree (the series does not change
it).  Its SPDX check runs python3 from PATH, which must be Debian's (with
python3-ply), so /usr/bin goes first.  Exits 1 if any patch has an error,
a warning or a check.  --json OUT writes one check per patch,
host.checkpatch.<NNNN>.

UNKNOWN_COMMIT_ID is the one type ignored: checkpatch looks the ids of
Fixes: tags up in the tree it runs in, and the cached tree is Debian's
tarball imported as one commit, without upstream history, so every
upstream id would be "unknown".  The format of the tags (12 hex digits and
the subject in quotes) is still checked (GIT_COMMIT_ID); the ids
themselves are established in the book (chapter "Seeding the DRBG").
"""

import concurrent.futures
import os
import re
import subprocess

from ..base import config, files, kcache
from ..base.checks import Check
from ..base.report import as_dicts


def run_one(src, path, env):
    r = subprocess.run(["perl", os.path.join(src, "scripts/checkpatch.pl"),
                        "--strict", "--no-color", "--show-types",
                        "--ignore", "UNKNOWN_COMMIT_ID", os.path.abspath(path)],
                       cwd=src, env=env, capture_output=True, text=True)
    out = r.stdout + r.stderr
    m = re.search(r"total: (\d+) errors, (\d+) warnings, (?:(\d+) checks, )?", out)
    e, w, c = (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)) if m else (1, 0, 0)
    findings = [ln for ln in out.splitlines() if re.match(r"^(ERROR|WARNING|CHECK):", ln)]
    if "Traceback" in out:
        findings.append("checkpatch's helper script failed: "
                        + out[out.index("Traceback"):][:300])
        e += 1
    return {"patch": os.path.basename(path), "errors": e, "warnings": w, "checks": c,
            "findings": findings[:20]}


def as_check(r):
    cid, title = f"host.checkpatch.{r['patch'][:4]}", f"checkpatch --strict {r['patch']}"
    counts = {k: r[k] for k in ("errors", "warnings", "checks")}
    if r["errors"] or r["warnings"] or r["checks"]:
        return Check.failed(cid, title, "; ".join(r["findings"][:3]) or "not clean",
                            origin="host", counts=counts)
    return Check.passed(cid, title, origin="host", counts=counts)


def run(args):
    _, src = kcache.ensure_pristine()
    env = dict(os.environ, PATH="/usr/bin:/bin:" + os.environ.get("PATH", ""))
    patches = kcache.series_patches(args.patchdir)
    # One perl per CPU: each patch is checked on its own, and the results
    # keep the series' order.
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        results = list(pool.map(lambda p: run_one(src, p, env), patches))
    checks = [as_check(r) for r in results]
    if args.json:
        files.write_json(args.json, as_dicts(checks))
    for r, c in zip(results, checks):
        print(f"checkpatch --strict {r['patch']}: "
              f"{'clean' if c.ok else 'NOT clean'} ({r['errors']} errors, "
              f"{r['warnings']} warnings, {r['checks']} checks)")
        for f in r["findings"]:
            print(f"  {f}")
    if not results:
        config.warn("checkpatch", f"no patches in {args.patchdir}")
    return 0 if results and all(c.ok for c in checks) else 1


def register(sub):
    p = sub.add_parser("checkpatch", help="checkpatch.pl --strict on every patch")
    p.add_argument("patchdir", nargs="?", default=config.top("tangled/patches"))
    p.add_argument("--json", metavar="OUT", help="write the checks to OUT")
    p.set_defaults(func=run)
