# SPDX-License-Identifier: GPL-2.0-only
"""The verb kernel: the cached tree and its builds.

  kernel pristine [--pinned]   make (or check) the pristine git tree
  kernel apply [PATCHDIR]      git am the series onto the tree (default
                               tangled/patches)
  kernel build VARIANT         configure and build VARIANT (test, debug, modules)
  kernel path VARIANT          print the build directory of VARIANT
  kernel info                  print the cache layout as JSON
"""

import json
import os

from ..base import config, kbuild, kcache


def run(args):
    if args.action == "pristine":
        print(kcache.ensure_pristine(pinned=args.pinned)[1])
    elif args.action == "apply":
        kcache.apply_series(args.arg or config.top("tangled/patches"))
    elif args.action == "build":
        if not args.arg:
            config.die("kernel", f"build needs a variant ({', '.join(kbuild.VARIANTS)})")
        kbuild.build(args.arg)
    elif args.action == "path":
        v = kcache.installed_version() or "none"
        print(os.path.join(kcache.tree_dir(v), f"build-{args.arg or 'test'}"))
    else:
        v = kcache.installed_version()
        print(json.dumps({"kcache": kcache.kcache(), "installed": v,
                          "tree": kcache.tree_dir(v) if v else None}, indent=1))
    return 0


def register(sub):
    p = sub.add_parser("kernel", help="the kernel cache: pristine tree, series, builds")
    p.add_argument("action", choices=["pristine", "apply", "build", "path", "info"])
    p.add_argument("arg", nargs="?", help="PATCHDIR for apply, VARIANT for build and path")
    p.add_argument("--pinned", action="store_true",
                   help="pristine: require the pinned version of tangle.conf")
    p.set_defaults(func=run)
