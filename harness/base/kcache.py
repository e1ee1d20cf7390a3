# SPDX-License-Identifier: GPL-2.0-only
"""The kernel tree cache, outside the repository.

Layout (KCACHE defaults to ~/.cache/literate-drbg):

  $KCACHE/linux-<debian version>/src/        git repository, tag 'pristine'
  $KCACHE/linux-<debian version>/src.ok      stamp: the import completed
  $KCACHE/linux-<debian version>/build-<V>/  O= build directory of variant V

The pristine tree is the tarball of Debian's linux-source-6.1 package,
committed with the series identity and date so that its commit id is the
same on every machine.  An interrupted import leaves no stamp and is
redone from scratch, never trusted; so is a stamp that is not what this
module writes (empty, not JSON, not an object, another version).
"""

import os
import re
import shutil
import subprocess
import tempfile
import time

from . import conf as confmod
from . import config, files

# The tarball and its version can be overridden for the tools' own tests.
TARBALL = os.environ.get("LITERATE_DRBG_TARBALL", "/usr/src/linux-source-6.1.tar.xz")
PACKAGE = "linux-source-6.1"


def die(msg):
    config.die("kernel", msg)


def say(msg):
    config.say("kernel", msg)


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


def make_dirs(path):
    """os.makedirs, with one line naming the directory when it cannot be
    made (an unwritable KCACHE, a full disk)."""
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        die(f"cannot create {path}: {e.strerror} (set KCACHE=/a/writable/dir)")


def git(repo, *args, env=None, check=True, capture=True, inp=None):
    e = dict(os.environ)
    e.update(env or {})
    r = subprocess.run(["git", "-C", repo] + list(args), env=e, text=True,
                       input=inp, capture_output=capture)
    if check and r.returncode != 0:
        die(f"git {' '.join(args[:2])} failed in {repo}: "
            f"{(r.stderr or '').strip().splitlines()[-1:]}")
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


def disk_free_mb(path):
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize // (1 << 20)


def import_stamp(version):
    """The import stamp of version's tree, or None if it is absent or not
    one this module wrote."""
    stamp = files.read_json(os.path.join(tree_dir(version), "src.ok"))
    if stamp is None or stamp.get("version") != version:
        return None
    return stamp


def ensure_pristine(pinned=False, conf=None):
    """Return (version, src) of a pristine git tree, importing it if needed."""
    conf = conf or confmod.load()
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
    if import_stamp(version) and os.path.isdir(os.path.join(src, ".git")):
        return version, src
    if os.path.exists(stamp):
        say(f"stamp {stamp} is not a finished import of this tree: importing again")
        os.unlink(stamp)
    make_dirs(base)
    if disk_free_mb(base) < 4096:
        die(f"less than 4 GiB free under {base}: the tree and its builds need "
            "about 6 GiB")
    if os.path.exists(src):
        say(f"removing an incomplete import at {src}")
        shutil.rmtree(src)
    t0 = time.time()
    tmp = src + ".unpacking"
    unpack(version, tmp)
    say(f"  importing into git (about half a minute; {time.time() - t0:.0f} s so far)")
    commit = import_git(tmp, version, conf)
    os.rename(tmp, src)
    files.write_json(stamp, {"version": version, "commit": commit,
                             "tarball_sha256": files.sha256_file(TARBALL)})
    say(f"pristine tree ready in {time.time() - t0:.0f} s (commit {commit[:12]})")
    return version, src


def unpack(version, dest):
    """Unpack the tarball into dest (made afresh); nothing kept on failure."""
    say(f"unpacking {TARBALL} ({PACKAGE} {version}) into {dest}")
    if os.path.exists(dest):
        shutil.rmtree(dest)
    make_dirs(dest)
    t0 = time.time()
    # Debian's tarball is written in many xz blocks: "xz -T0" decompresses
    # them on every CPU, which is several times faster than tar's own -J.
    xz_err = tempfile.TemporaryFile(mode="w+")
    tar_err = tempfile.TemporaryFile(mode="w+")
    xz = subprocess.Popen(["xz", "-T0", "-dc", TARBALL], stdout=subprocess.PIPE,
                          stderr=xz_err)
    p = subprocess.Popen(["tar", "-xv", "-C", dest, "--strip-components=1"],
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
        shutil.rmtree(dest, ignore_errors=True)
        die(f"unpacking {TARBALL} failed (nothing kept): "
            f"{'xz' if rc_xz != 0 else 'tar'}: "
            f"{(err.strip().splitlines() or ['?'])[-1][:300]}")
    say(f"  unpacked {n} entries in {time.time() - t0:.0f} s")


def import_git(tree, version, conf):
    """Commit the unpacked tree with the series identity; tag it pristine."""
    env = ident_env(conf)
    git(tree, "init", "-q")
    git(tree, "config", "core.autocrlf", "false")
    git(tree, "config", "gc.auto", "0")
    # Debian's top-level .gitignore ignores everything (/*): force.
    git(tree, "add", "-A", "-f", ".")
    git(tree, "commit", "-q", "--no-verify", "-m",
        f"Pristine {PACKAGE} {version}\n\nImported from {TARBALL}.", env=env)
    git(tree, "tag", "pristine")
    return git(tree, "rev-parse", "HEAD").stdout.strip()


def touched_paths(src, rev):
    out = git(src, "diff", "--name-only", "pristine", rev).stdout
    return [p for p in out.splitlines() if p]


def blobs_of(src, rev, paths):
    """{path: blob id} at rev for those of paths that exist there: one
    git ls-tree for all of them (a git rev-parse each cost 40 calls of a
    one-line edit's apply)."""
    if not paths:
        return {}
    out = git(src, "ls-tree", "-r", "-z", "--full-tree", rev, "--", *paths).stdout
    blobs = {}
    for entry in out.split("\0"):
        if entry:
            meta, path = entry.split("\t", 1)
            blobs[path] = meta.split()[2]
    return blobs


def split_index(src):
    """Turn on git's split index in src (once): the kernel's index is
    8 MB, and git am read and wrote it whole for each of the series'
    patches; with core.splitIndex it writes only the entries a patch
    changed (git am of the 11 patches, by hand: 1.4 s -> 0.4 s)."""
    if git(src, "config", "--get", "core.splitIndex", check=False).stdout.strip() != "true":
        git(src, "config", "core.splitIndex", "true")
        git(src, "update-index", "--split-index")


def git_am(src, patch_paths, env, found, made_for):
    """Reset src to its 'pristine' tag and git am the patches onto it.

    On failure, leave src at pristine and stop with one line that names
    the patch, its subject and the file whose hunk failed.
    """
    split_index(src)
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
    old = touched_paths(src, "HEAD")
    blobs = blobs_of(src, "HEAD", old)
    before = {}
    for path in old:
        try:
            before[path] = (blobs.get(path), os.stat(os.path.join(src, path)).st_mtime_ns)
        except FileNotFoundError:
            pass
    git_am(src, patch_paths, env, found, made_for)
    new = touched_paths(src, "HEAD")
    after = blobs_of(src, "HEAD", sorted(set(old) | set(new)))
    kept = 0
    for path, (blob, mtime) in before.items():
        full = os.path.join(src, path)
        if os.path.exists(full) and after.get(path) == blob:
            os.utime(full, ns=(mtime, mtime))
            kept += 1
    changed = [p for p in new if before.get(p, (None,))[0] != after.get(p)]
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


def series_patches(patchdir):
    """The patch files of a series directory, in order (no cover letter)."""
    try:
        names = os.listdir(patchdir)
    except OSError:
        names = []
    return [os.path.join(os.path.abspath(patchdir), p) for p in sorted(names)
            if re.match(r"^\d{4}-.*\.patch$", p) and not p.startswith("0000-")]


def apply_series(patchdir):
    """git am the series onto the build tree; keep mtimes of unchanged files.
    Skipped when the same patches are applied to the same pristine tree
    and nobody has edited the tree since."""
    conf = confmod.load()
    version, src = ensure_pristine(conf=conf)
    if version != conf.base_version:
        say(f"note: the series was made for {PACKAGE} {conf.base_version}; "
            f"found {version}: applying it anyway")
    paths = series_patches(patchdir)
    if not paths:
        die(f"no patches in {patchdir}: run 'make tangle'")
    applied = os.path.join(src, ".git", "literate-series.json")
    want = {"patches_sha256": [files.sha256_file(p) for p in paths],
            "pristine": git(src, "rev-parse", "pristine").stdout.strip()}
    last = files.read_json(applied) or {}
    head = git(src, "rev-parse", "HEAD").stdout.strip()
    if {k: last.get(k) for k in want} == want and last.get("head") == head and \
            not git(src, "status", "--porcelain", "--untracked-files=no").stdout.strip():
        say(f"the same {len(paths)} patches are applied already (HEAD {head[:12]}, "
            "tree clean): nothing to apply")
        return src
    if os.path.exists(applied):
        os.unlink(applied)
    changed, kept = am_keeping_mtimes(src, paths, ident_env(conf),
                                      f"{PACKAGE} {version}", conf.base_version)
    files.write_json(applied, dict(want, head=git(src, "rev-parse", "HEAD").stdout.strip()))
    say(f"applied {len(paths)} patches with git am onto {PACKAGE} {version}; "
        f"{len(changed)} file(s) changed since the last build, {kept} kept "
        "their mtime")
    return src
