#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The kernel tree cache, outside the repository.

  kernel.py pristine [--pinned]   make (or check) the pristine git tree
  kernel.py apply PATCHDIR        git am the series onto the build tree
  kernel.py build VARIANT         configure and build VARIANT (test, debug, ...)
  kernel.py path VARIANT          print the build directory of VARIANT
  kernel.py info                  print the cache layout as JSON

Layout (KCACHE defaults to ~/.cache/literate-drbg):

  $KCACHE/linux-<debian version>/src/        git repository, tag 'pristine'
  $KCACHE/linux-<debian version>/src.ok      stamp: the import completed
  $KCACHE/linux-<debian version>/build-<V>/  O= build directory of variant V

The pristine tree is the tarball of Debian's linux-source-6.1 package,
committed with the series identity and date so that its commit id is the
same on every machine.  An interrupted import leaves no stamp and is
redone from scratch, never trusted.
"""

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nwconf  # noqa: E402

# The tarball and its version can be overridden for the tools' own tests.
TARBALL = os.environ.get("LITERATE_DRBG_TARBALL", "/usr/src/linux-source-6.1.tar.xz")
PACKAGE = "linux-source-6.1"
TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def die(msg):
    sys.exit(f"kernel: {msg}")


def say(msg):
    print(f"kernel: {msg}", flush=True)


def kcache():
    return os.path.abspath(os.path.expanduser(
        os.environ.get("KCACHE") or "~/.cache/literate-drbg"))


def installed_version():
    if os.environ.get("LITERATE_DRBG_VERSION"):
        return os.environ["LITERATE_DRBG_VERSION"]
    r = subprocess.run(["dpkg-query", "-W", "-f=${Status}|${Version}", PACKAGE],
                       capture_output=True, text=True)
    if r.returncode != 0 or not r.stdout.startswith("install ok installed"):
        return None
    return r.stdout.split("|", 1)[1]


def tree_dir(version):
    return os.path.join(kcache(), f"linux-{version}")


def git(repo, *args, env=None, check=True, capture=True, inp=None):
    e = dict(os.environ)
    e.update(env or {})
    r = subprocess.run(["git", "-C", repo] + list(args), env=e, text=True,
                       input=inp, capture_output=capture)
    if check and r.returncode != 0:
        die(f"git {' '.join(args[:2])} failed in {repo}: "
            f"{(r.stderr or '').strip().splitlines()[-1:] }")
    return r


def ident_env(conf):
    return {
        "GIT_AUTHOR_NAME": conf.author_name,
        "GIT_AUTHOR_EMAIL": conf.author_email,
        "GIT_COMMITTER_NAME": conf.author_name,
        "GIT_COMMITTER_EMAIL": conf.author_email,
        "GIT_AUTHOR_DATE": conf.date,
        "GIT_COMMITTER_DATE": conf.date,
        "TZ": "UTC",
    }


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def hash_files(paths, root=TOP):
    """One SHA-256 over the names (relative to root) and contents of paths,
    in the order given: what the stamps of warm runs compare."""
    h = hashlib.sha256()
    for p in paths:
        h.update(os.path.relpath(p, root).encode() + b"\0")
        with open(p, "rb") as f:
            h.update(f.read())
        h.update(b"\0")
    return h.hexdigest()


def gcc_version():
    """The first line of gcc --version: part of what a build is made from."""
    cc = subprocess.run(["gcc", "--version"], capture_output=True, text=True)
    return (cc.stdout.splitlines() or ["?"])[0]


def disk_free_mb(path):
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize // (1 << 20)


def ensure_pristine(pinned=False, conf=None):
    """Return (version, src) of a pristine git tree, importing it if needed."""
    conf = conf or nwconf.load(os.path.join(TOP, "tangle.conf"))
    version = installed_version()
    if version is None or not os.path.exists(TARBALL):
        die(f"{PACKAGE} is not installed ({TARBALL} missing): run 'make deps'")
    if pinned and version != conf.base_version:
        die(f"the series is made against {PACKAGE} {conf.base_version} (the pin "
            f"in tangle.conf) but {version} is installed: run 'make deps' to "
            "install the pin, or move the pin in a commit of its own")
    base = tree_dir(version)
    src = os.path.join(base, "src")
    stamp = os.path.join(base, "src.ok")
    if os.path.exists(stamp):
        with open(stamp) as f:
            info = json.load(f)
        if info.get("version") == version and os.path.isdir(os.path.join(src, ".git")):
            return version, src
        say(f"stamp {stamp} does not match this tree: importing again")
    os.makedirs(base, exist_ok=True)
    if disk_free_mb(base) < 4096:
        die(f"less than 4 GiB free under {base}: the tree and its builds need "
            "about 6 GiB")
    if os.path.exists(src):
        say(f"removing an incomplete import at {src}")
        shutil.rmtree(src)
    t0 = time.time()
    say(f"unpacking {TARBALL} ({PACKAGE} {version}) into {src}")
    tmp = src + ".unpacking"
    if os.path.exists(tmp):
        shutil.rmtree(tmp)
    os.makedirs(tmp)
    # Debian's tarball is written in many xz blocks: "xz -T0" decompresses
    # them on every CPU, which is several times faster than tar's own -J.
    xz_err = tempfile.TemporaryFile(mode="w+")
    tar_err = tempfile.TemporaryFile(mode="w+")
    xz = subprocess.Popen(["xz", "-T0", "-dc", TARBALL], stdout=subprocess.PIPE,
                          stderr=xz_err)
    p = subprocess.Popen(["tar", "-xv", "-C", tmp, "--strip-components=1"],
                         stdin=xz.stdout, stdout=subprocess.PIPE, stderr=tar_err,
                         text=True)
    xz.stdout.close()
    n = 0
    for _ in p.stdout:
        n += 1
        if n % 20000 == 0:
            say(f"  unpacked {n} entries ({time.time() - t0:.0f} s)")
    rc_tar, rc_xz = p.wait(), xz.wait()
    if rc_tar != 0 or rc_xz != 0:
        # The first failure explains the rest: a bad archive makes xz fail
        # and tar then reports a short read.
        errf = xz_err if rc_xz != 0 else tar_err
        errf.seek(0)
        err = errf.read()
        shutil.rmtree(tmp, ignore_errors=True)
        die(f"unpacking {TARBALL} failed (nothing kept): "
            f"{'xz' if rc_xz != 0 else 'tar'}: "
            f"{(err.strip().splitlines() or ['?'])[-1][:300]}")
    xz_err.close()
    tar_err.close()
    say(f"  unpacked {n} entries in {time.time() - t0:.0f} s; importing into git "
        "(about half a minute)")
    env = ident_env(conf)
    git(tmp, "init", "-q")
    git(tmp, "config", "core.autocrlf", "false")
    git(tmp, "config", "gc.auto", "0")
    # Debian's top-level .gitignore ignores everything (/*): force.
    git(tmp, "add", "-A", "-f", ".")
    git(tmp, "commit", "-q", "--no-verify", "-m",
        f"Pristine {PACKAGE} {version}\n\nImported from {TARBALL}.", env=env)
    git(tmp, "tag", "pristine")
    commit = git(tmp, "rev-parse", "HEAD").stdout.strip()
    os.rename(tmp, src)
    with open(stamp + ".tmp", "w") as f:
        json.dump({"version": version, "commit": commit,
                   "tarball_sha256": sha256_file(TARBALL)}, f)
    os.replace(stamp + ".tmp", stamp)
    say(f"pristine tree ready in {time.time() - t0:.0f} s (commit {commit[:12]})")
    return version, src


def touched_paths(src, rev):
    out = git(src, "diff", "--name-only", "pristine", rev).stdout
    return [p for p in out.splitlines() if p]


def blob_of(src, rev, path):
    r = git(src, "rev-parse", "-q", "--verify", f"{rev}:{path}", check=False)
    return r.stdout.strip() if r.returncode == 0 else None


def git_am(src, patch_paths, env, found, made_for):
    """Reset src to its 'pristine' tag and git am the patches onto it.

    On failure, leave src at pristine and stop with one line that names
    the patch, its subject and the file whose hunk failed.
    """
    git(src, "am", "--abort", check=False)
    git(src, "checkout", "-q", "-f", "--detach", "pristine")
    r = git(src, "am", "-q", "--whitespace=error-all", *patch_paths, env=env,
            check=False)
    if r.returncode == 0:
        return
    text = (r.stdout or "") + (r.stderr or "")
    failed = re.search(r"Patch failed at (\d+) (.*)", text)
    hunk = re.search(r"error: patch failed: (\S+)", text)
    other = re.search(r"error: (.*)", text)
    git(src, "am", "--abort", check=False)
    git(src, "checkout", "-q", "-f", "--detach", "pristine")
    what = f"patch {failed.group(1)} ({failed.group(2)})" if failed else "a patch"
    where = (f" at {hunk.group(1)}" if hunk
             else f": {other.group(1)}" if other else "")
    die(f"{what} does not apply to {found}{where} (series made for {made_for})")


def am_keeping_mtimes(src, patch_paths, env, found, made_for):
    """git_am(), then give every file whose content did not change its old
    modification time back, so that make rebuilds only what changed.
    Returns (files changed, files whose mtime was kept)."""
    before = {}
    for path in touched_paths(src, "HEAD"):
        full = os.path.join(src, path)
        if os.path.exists(full):
            before[path] = (blob_of(src, "HEAD", path), os.stat(full).st_mtime_ns)
    git_am(src, patch_paths, env, found, made_for)
    kept = 0
    for path, (blob, mtime) in before.items():
        full = os.path.join(src, path)
        if os.path.exists(full) and blob_of(src, "HEAD", path) == blob:
            os.utime(full, ns=(mtime, mtime))
            kept += 1
    changed = [p for p in touched_paths(src, "HEAD")
               if before.get(p, (None,))[0] != blob_of(src, "HEAD", p)]
    return changed, kept


def worktree(version, src, name):
    """A second work tree of the cached repository (for builds that must
    not touch the main tree, such as every prefix of the series)."""
    wt = os.path.join(tree_dir(version), name)
    stamp = wt + ".ok"
    if not os.path.exists(stamp):
        if os.path.exists(wt):
            shutil.rmtree(wt)
        git(src, "worktree", "prune")
        say(f"checking out a second work tree {wt} (about a minute)")
        git(src, "worktree", "add", "-f", "--detach", wt, "pristine")
        open(stamp, "w").close()
    return wt


def apply_series(patchdir):
    """git am the series onto the build tree; keep mtimes of unchanged files."""
    conf = nwconf.load(os.path.join(TOP, "tangle.conf"))
    version, src = ensure_pristine(conf=conf)
    if version != conf.base_version:
        say(f"note: the series was made for {PACKAGE} {conf.base_version}; "
            f"found {version}: applying it anyway")
    patches = sorted(p for p in os.listdir(patchdir)
                     if re.match(r"^\d{4}-.*\.patch$", p) and not p.startswith("0000-"))
    if not patches:
        die(f"no patches in {patchdir}: run 'make tangle'")
    paths = [os.path.join(os.path.abspath(patchdir), p) for p in patches]
    applied = os.path.join(src, ".git", "literate-series.json")
    want = {"patches_sha256": [sha256_file(p) for p in paths],
            "pristine": git(src, "rev-parse", "pristine").stdout.strip()}
    try:
        with open(applied) as f:
            last = json.load(f)
    except (OSError, ValueError):
        last = {}
    head = git(src, "rev-parse", "HEAD").stdout.strip()
    if {k: last.get(k) for k in want} == want and last.get("head") == head and \
            not git(src, "status", "--porcelain", "--untracked-files=no").stdout.strip():
        say(f"the same {len(patches)} patches are applied already (HEAD {head[:12]}, "
            "tree clean): nothing to apply")
        return src
    if os.path.exists(applied):
        os.unlink(applied)
    changed, kept = am_keeping_mtimes(src, paths, ident_env(conf),
                                      f"{PACKAGE} {version}", conf.base_version)
    with open(applied + ".tmp", "w") as f:
        json.dump(dict(want, head=git(src, "rev-parse", "HEAD").stdout.strip()), f)
    os.replace(applied + ".tmp", applied)
    say(f"applied {len(patches)} patches with git am onto {PACKAGE} {version}; "
        f"{len(changed)} file(s) changed since the last build, {kept} kept "
        "their mtime")
    return src


VARIANTS = {
    "test": ["conformance/kconfig/test.config"],
    "debug": ["conformance/kconfig/test.config", "conformance/kconfig/debug.config"],
    "modules": ["conformance/kconfig/test.config", "conformance/kconfig/modules.config"],
}


def fragment_lines(files):
    want = {}
    for frag in files:
        with open(os.path.join(TOP, frag)) as f:
            for no, line in enumerate(f, 1):
                line = line.strip()
                if not line or (line.startswith("#") and "is not set" not in line):
                    continue
                m = re.match(r"^(CONFIG_\w+)=(.*)$", line) or \
                    re.match(r"^# (CONFIG_\w+) is not set$", line)
                if not m:
                    die(f"{frag}:{no}: expected CONFIG_X=value or "
                        "'# CONFIG_X is not set'")
                want[m.group(1)] = m.group(2) if m.lastindex == 2 else "n"
    return want


def read_config(path):
    have = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"^(CONFIG_\w+)=(.*)$", line.strip())
            if m:
                have[m.group(1)] = m.group(2)
            m = re.match(r"^# (CONFIG_\w+) is not set$", line.strip())
            if m:
                have[m.group(1)] = "n"
    return have


def kmake(src, build, *targets, log=None, progress=None, arch="x86_64"):
    cmd = ["make", "-C", src, f"O={build}", f"ARCH={arch}",
           f"-j{os.cpu_count() or 2}"] + list(targets)
    t0 = time.time()
    with open(log, "a") if log else open(os.devnull, "w") as lf:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True)
        compiled, last = 0, time.time()
        tail = []
        for line in p.stdout:
            lf.write(line)
            tail = (tail + [line.rstrip()])[-25:]
            if line.lstrip().startswith(("CC ", "AS ", "LD ", "AR ")):
                compiled += 1
            if progress and time.time() - last > 15:
                last = time.time()
                say(f"  {progress}: {compiled} steps, {time.time() - t0:.0f} s")
        rc = p.wait()
    if rc != 0:
        errs = [t for t in tail if re.search(r"error:|\*\*\*|Error \d", t)] or tail[-5:]
        die(f"make {' '.join(targets)} failed ({build}); first error: "
            f"{errs[0][:300] if errs else '?'} (log: {log})")
    return compiled, time.time() - t0


def configure(src, build, variant, strict=True):
    """Make build/.config from the fragments; touch it only if it changes.

    strict: every fragment line must survive olddefconfig.  Otherwise the
    options that did not are returned (for a prefix of the series that
    does not define them yet)."""
    files = VARIANTS[variant]
    want = fragment_lines(files)
    scratch = build + ".kconfig"
    os.makedirs(scratch, exist_ok=True)
    with open(os.path.join(scratch, ".config"), "w") as out:
        for frag in files:
            with open(os.path.join(TOP, frag)) as f:
                out.write(f.read())
    kmake(src, scratch, "olddefconfig", log=os.path.join(scratch, "kconfig.log"))
    have = read_config(os.path.join(scratch, ".config"))
    missing = [f"{k}={v} (got {have.get(k, 'n')})" for k, v in want.items()
               if have.get(k, "n") != v]
    if missing and strict:
        die(f"config {variant}: olddefconfig did not keep {len(missing)} option(s) "
            f"of {', '.join(files)} (unmet dependency?): {'; '.join(missing[:6])}")
    new = os.path.join(scratch, ".config")
    cur = os.path.join(build, ".config")
    os.makedirs(build, exist_ok=True)
    if not os.path.exists(cur) or open(cur).read() != open(new).read():
        shutil.copy(new, cur)
        say(f"config {variant}: .config written ({len(want)} options from "
            f"the fragments, {len(want) - len(missing)} kept)")
    return missing if not strict else cur


def build_inputs(src, variant):
    """What a build of variant depends on: the committed tree, the config
    fragments and the compiler.  The same inputs make the same kernel."""
    return {"tree": git(src, "rev-parse", "HEAD^{tree}").stdout.strip(),
            "fragments_sha256": hash_files(
                [os.path.join(TOP, f) for f in VARIANTS.get(variant, [])]),
            "gcc": gcc_version()}


def up_to_date(src, b, stamp, inputs):
    """True when the last build of b finished with these inputs, its image
    is the one it made, and nobody has edited the source tree since (a
    change not committed would not show in the tree id).  Otherwise make
    runs, as it always did."""
    try:
        with open(stamp) as f:
            last = json.load(f)
        mtime = os.stat(os.path.join(b, "arch/x86/boot/bzImage")).st_mtime_ns
    except (OSError, ValueError):
        return False
    if last.get("inputs") != inputs or last.get("image_mtime_ns") != mtime:
        return False
    dirty = git(src, "status", "--porcelain", "--untracked-files=no").stdout.strip()
    return not dirty


def build(variant):
    conf = nwconf.load(os.path.join(TOP, "tangle.conf"))
    version, src = ensure_pristine(conf=conf)
    if not git(src, "describe", "--always", "--tags", "HEAD").stdout.strip():
        die("build tree has no HEAD")
    if git(src, "rev-parse", "HEAD").stdout == git(src, "rev-parse", "pristine").stdout:
        say("warning: building the pristine tree (no series applied)")
    b = os.path.join(tree_dir(version), f"build-{variant}")
    if variant not in VARIANTS:
        die(f"unknown variant {variant!r} (known: {', '.join(VARIANTS)})")
    stamp = os.path.join(b, "build.ok")
    inputs = build_inputs(src, variant)
    if up_to_date(src, b, stamp, inputs):
        say(f"{variant} kernel up to date: the same tree "
            f"({inputs['tree'][:12]}), fragments and compiler as its last build; "
            "nothing to make")
        head = git(src, "rev-parse", "HEAD").stdout.strip()
        with open(stamp) as f:
            last = json.load(f)
        if last.get("head") != head:     # same tree, other commits: say which
            last["head"] = head
            with open(stamp + ".tmp", "w") as f:
                json.dump(last, f)
            os.replace(stamp + ".tmp", stamp)
        return b
    if os.path.exists(stamp):
        os.unlink(stamp)
    configure(src, b, variant)
    log = os.path.join(b, "build.log")
    open(log, "w").close()
    say(f"building {variant} kernel in {b} (log: {log})")
    targets = ["bzImage"]
    if read_config(os.path.join(b, ".config")).get("CONFIG_MODULES") == "y":
        targets.append("modules")
    steps, secs = kmake(src, b, *targets, log=log, progress=f"build {variant}")
    image = os.path.join(b, "arch/x86/boot/bzImage")
    with open(stamp, "w") as f:
        json.dump({"variant": variant, "steps": steps, "seconds": round(secs, 1),
                   "head": git(src, "rev-parse", "HEAD").stdout.strip(),
                   "inputs": inputs, "image_mtime_ns": os.stat(image).st_mtime_ns}, f)
    say(f"{variant} kernel built: {steps} build steps in {secs:.0f} s")
    return b


def main(argv):
    if len(argv) >= 2 and argv[1] == "pristine":
        print(ensure_pristine(pinned="--pinned" in argv)[1])
    elif len(argv) == 3 and argv[1] == "apply":
        apply_series(argv[2])
    elif len(argv) == 3 and argv[1] == "build":
        build(argv[2])
    elif len(argv) == 3 and argv[1] == "path":
        v = installed_version() or "none"
        print(os.path.join(tree_dir(v), f"build-{argv[2]}"))
    elif len(argv) == 2 and argv[1] == "info":
        v = installed_version()
        print(json.dumps({"kcache": kcache(), "installed": v,
                          "tree": tree_dir(v) if v else None}, indent=1))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
