# SPDX-License-Identifier: GPL-2.0-only
"""Is tangled/ already what the book makes?  A stamp, so that a warm
`make tangle` (and so `make kernel` and `make conform`) skips the two
tangle steps when nothing they read has changed.

  tangle_stamp.py fresh   exit 0 and say so if tangled/ is up to date,
                          exit 1 (and say why) if it must be made again
  tangle_stamp.py write   record the inputs and outputs after a tangle

The inputs are the noweb sources in tangle.conf's order, tangle.conf
itself, the tools that tangle (nw.py, nwconf.py, series.py) and the
pristine kernel tree the series is made against (its cache stamp).  The
outputs are every file under tangled/.  A stamp is only trusted when both
hash the same as when it was written: a hand edit of tangled/ makes the
tangle run again.  `make drift` never uses the stamp: it always tangles.
"""

import json
import os
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "tools"))
import kernel  # noqa: E402
import nwconf  # noqa: E402

STAMP = os.path.join(TOP, "build/tangle/stamp.json")
TOOLS = ["tangle.conf", "tools/nw.py", "tools/nwconf.py", "tools/series.py"]


def inputs():
    conf = nwconf.load(os.path.join(TOP, "tangle.conf"))
    paths = [os.path.join(TOP, p) for p in list(conf.sources) + TOOLS]
    version = kernel.installed_version()
    pristine = None
    if version:
        ok = os.path.join(kernel.tree_dir(version), "src.ok")
        if os.path.exists(ok):
            with open(ok) as f:
                pristine = json.load(f)
    return {"files": kernel.hash_files(paths, TOP), "pristine": pristine}


def outputs():
    out = []
    for d, dirs, files in os.walk(os.path.join(TOP, "tangled")):
        dirs.sort()
        out += [os.path.join(d, f) for f in sorted(files)]
    return {"count": len(out), "sha256": kernel.hash_files(out, TOP)}


def main(argv):
    if argv[1:] == ["write"]:
        os.makedirs(os.path.dirname(STAMP), exist_ok=True)
        with open(STAMP + ".tmp", "w") as f:
            json.dump({"inputs": inputs(), "outputs": outputs()}, f, indent=1)
        os.replace(STAMP + ".tmp", STAMP)
        return 0
    if argv[1:] != ["fresh"]:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        with open(STAMP) as f:
            last = json.load(f)
    except (OSError, ValueError):
        return 1
    now = inputs()
    if now["pristine"] is None:
        return 1            # no kernel tree yet: the tangle imports it
    if last.get("inputs") != now:
        print("tangle: the book or its tools changed since the last tangle")
        return 1
    if last.get("outputs") != outputs():
        print("tangle: tangled/ was changed by hand since the last tangle")
        return 1
    print(f"tangle: up to date (tangled/ is what these sources made; "
          f"stamp {os.path.relpath(STAMP, TOP)})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
