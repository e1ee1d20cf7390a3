#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Run the kernel's scripts/checkpatch.pl --strict on every patch.

  checkpatch.py PATCHDIR [--json OUT]

checkpatch comes from the cached kernel tree (it is not changed by the
series).  Its SPDX check runs python3 from PATH, which must be Debian's
(with python3-ply), so /usr/bin goes first.  Exits 1 if any patch has an
error, a warning or a check.
"""

import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernel  # noqa: E402


def run(patchdir):
    _, src = kernel.ensure_pristine()
    env = dict(os.environ, PATH="/usr/bin:/bin:" + os.environ.get("PATH", ""))
    results = []
    for name in sorted(os.listdir(patchdir)):
        if not re.match(r"^\d{4}-.*\.patch$", name) or name.startswith("0000-"):
            continue
        r = subprocess.run(["perl", os.path.join(src, "scripts/checkpatch.pl"),
                            "--strict", "--no-color", "--show-types",
                            os.path.abspath(os.path.join(patchdir, name))],
                           cwd=src, env=env, capture_output=True, text=True)
        out = r.stdout + r.stderr
        m = re.search(r"total: (\d+) errors, (\d+) warnings, (?:(\d+) checks, )?", out)
        e, w, c = (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)) if m \
            else (1, 0, 0)
        findings = [ln for ln in out.splitlines()
                    if re.match(r"^(ERROR|WARNING|CHECK):", ln)]
        if "Traceback" in out:
            findings.append("checkpatch's helper script failed: "
                            + out[out.index("Traceback"):][:300])
            e += 1
        results.append({"patch": name, "errors": e, "warnings": w, "checks": c,
                        "findings": findings[:20]})
    return results


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    results = run(argv[1])
    if "--json" in argv:
        with open(argv[argv.index("--json") + 1], "w") as f:
            json.dump(results, f, indent=1)
    bad = 0
    for r in results:
        clean = not (r["errors"] or r["warnings"] or r["checks"])
        bad += not clean
        print(f"checkpatch --strict {r['patch']}: "
              f"{'clean' if clean else 'NOT clean'} ({r['errors']} errors, "
              f"{r['warnings']} warnings, {r['checks']} checks)")
        for f in r["findings"]:
            print(f"  {f}")
    return 1 if bad or not results else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
