#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""make bisect: every prefix of the series builds.

For N = 1 .. the number of patches, applies the first N patches with
git am and builds the test configuration in a build directory of its own
(build-bisect in the kernel cache), with warnings as errors.  Options of
the test fragment that a prefix does not define yet are dropped by
olddefconfig, which is expected here and reported, not an error.
Results: build/bisect/bisect.json.  Not part of make check (it costs a
cold build plus one incremental build per patch).
"""

import json
import os
import re
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "tools"))
import kernel  # noqa: E402
import nwconf  # noqa: E402


def main():
    conf = nwconf.load(os.path.join(TOP, "tangle.conf"))
    version, main_src = kernel.ensure_pristine(conf=conf)
    # A work tree of its own: the prefixes must not touch the tree that the
    # test and debug kernels are built from.
    src = kernel.worktree(version, main_src, "src-bisect")
    pdir = os.path.join(TOP, "tangled/patches")
    patches = sorted(p for p in os.listdir(pdir)
                     if re.match(r"^\d{4}-.*\.patch$", p) and not p.startswith("0000-"))
    build = os.path.join(kernel.tree_dir(version), "build-bisect")
    results = []
    ok = True
    for n in range(1, len(patches) + 1):
        t0 = time.time()
        kernel.am_keeping_mtimes(src, [os.path.join(pdir, p) for p in patches[:n]],
                                 kernel.ident_env(conf),
                                 f"linux-source-6.1 {version}", conf.base_version)
        kernel.say(f"bisect: {n}/{len(patches)} {patches[n - 1]}")
        dropped = kernel.configure(src, build, "test", strict=False)
        log = os.path.join(build, f"build-{n:02d}.log")
        open(log, "w").close()
        try:
            steps, secs = kernel.kmake(src, build, "bzImage", log=log,
                                       progress=f"bisect {n}")
            status = "pass"
        except SystemExit as e:
            status, steps, secs = "fail", 0, time.time() - t0
            kernel.say(str(e))
            ok = False
        results.append({"patch": patches[n - 1], "status": status, "steps": steps,
                        "seconds": round(time.time() - t0),
                        "options_not_yet_defined": dropped})
        if status != "pass":
            break
    os.makedirs(os.path.join(TOP, "build/bisect"), exist_ok=True)
    with open(os.path.join(TOP, "build/bisect/bisect.json"), "w") as f:
        json.dump(results, f, indent=1)
    for r in results:
        print(f"bisect: {r['status']:4} {r['patch']} ({r['seconds']} s, "
              f"{r['steps']} steps; not yet defined: {len(r['options_not_yet_defined'])})")
    return 0 if ok and len(results) == len(patches) else 1


if __name__ == "__main__":
    sys.exit(main())
