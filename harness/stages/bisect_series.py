# SPDX-License-Identifier: GPL-2.0-only
"""The verb bisect (make bisect): every prefix of the series builds.

For N = 1 .. the number of patches, applies the first N patches with
git am and builds the test configuration in a build directory of its own
(build-bisect in the kernel cache), with warnings as errors.  Options of
the test fragment that a prefix does not define yet are dropped by
olddefconfig, which is expected here and reported, not an error.
Results: build/bisect/bisect.json.  Not part of make check (it costs a
cold build plus one incremental build per patch).
"""

import os
import time

from ..base import conf as confmod
from ..base import config, files, kbuild, kcache


def run(args):
    conf = confmod.load()
    version, main_src = kcache.ensure_pristine(conf=conf)
    # A work tree of its own: the prefixes must not touch the tree that the
    # test and debug kernels are built from.
    src = kcache.worktree(version, main_src, "src-bisect")
    paths = kcache.series_patches(config.top("tangled/patches"))
    patches = [os.path.basename(p) for p in paths]
    pdir = config.top("tangled/patches")
    build = os.path.join(kcache.tree_dir(version), "build-bisect")
    results = []
    ok = True
    for n in range(1, len(patches) + 1):
        t0 = time.time()
        kcache.am_keeping_mtimes(src, [os.path.join(pdir, p) for p in patches[:n]],
                                 kcache.ident_env(conf),
                                 f"linux-source-6.1 {version}", conf.base_version)
        kcache.say(f"bisect: {n}/{len(patches)} {patches[n - 1]}")
        dropped = kbuild.configure(src, build, "test", strict=False)
        log = os.path.join(build, f"build-{n:02d}.log")
        open(log, "w").close()
        try:
            steps, _ = kbuild.kmake(src, build, "bzImage", log=log,
                                    progress=f"bisect {n}")
            status = "pass"
        except SystemExit as e:
            status, steps = "fail", 0
            kcache.say(str(e))
            ok = False
        results.append({"patch": patches[n - 1], "status": status, "steps": steps,
                        "seconds": round(time.time() - t0),
                        "options_not_yet_defined": dropped})
        if status != "pass":
            break
    files.write_json(config.build("bisect/bisect.json"), results)
    for r in results:
        print(f"bisect: {r['status']:4} {r['patch']} ({r['seconds']} s, "
              f"{r['steps']} steps; not yet defined: {len(r['options_not_yet_defined'])})")
    return 0 if ok and len(results) == len(patches) else 1


def register(sub):
    p = sub.add_parser("bisect", help="every prefix of the series builds")
    p.set_defaults(func=run)
