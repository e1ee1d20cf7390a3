# SPDX-License-Identifier: GPL-2.0-only
"""Configure and build kernel variants in the cache.

A variant is a list of config fragments (conformance/kconfig/): test,
debug (KASAN, UBSAN, lockdep, kmemleak) and modules (the DRBG and the
Jitter RNG as modules, as Debian ships them, on the debug kernel).  Each
builds out of tree in $KCACHE/linux-<version>/build-<variant>/, and a stamp
(build.ok) records what it was made from, so that a warm run with nothing
changed skips make.

The progress of a cold build shows the expected number of steps: the
step count of the last cold build of the variant on this machine
($KCACHE/build-steps.json), or, before the first one, the count measured
when the fragments were written (conformance/kconfig/build-steps.json).
"""

import hashlib
import os
import re
import shutil
import subprocess
import time

from . import conf as confmod
from . import config, files, kcache, proc
from .kcache import die, git, say
from .progress import Progress

VARIANTS = {
    "test": ["conformance/kconfig/test.config"],
    "debug": ["conformance/kconfig/test.config", "conformance/kconfig/debug.config"],
    # The modules variant is also a debug kernel: what it tests is the
    # lifetime of module code and data (module removal with work in flight).
    "modules": ["conformance/kconfig/test.config", "conformance/kconfig/debug.config",
                "conformance/kconfig/modules.config"],
    "i386": ["conformance/kconfig/test.config", "conformance/kconfig/i386.config"],
    # User-Mode Linux on the real CPU (make entropy): the kernel's own Jitter
    # RNG object timed by UML's clocksource, and (um-tsc, a model of x86-64's
    # timing path) by the CPU's time stamp counter through get_cycles().
    "um": ["conformance/kconfig/um.config"],
    "um-tsc": ["conformance/kconfig/um.config"],
}
# The kernel's ARCH= of a variant (x86_64 unless named here).
ARCH = {"i386": "i386", "um": "um", "um-tsc": "um"}
# A header force-included into every kernel object of a variant (copied
# into its build directory, so that the flag names the same path on every
# machine with the same cache): the model's get_cycles().
FORCE_INCLUDE = {"um-tsc": "conformance/uml/tsc.h"}


def arch_of(variant):
    return ARCH.get(variant, "x86_64")


def image_of(b, variant):
    """The bootable image a build of variant makes in b: UML's is the
    program linux, x86's the bzImage."""
    if arch_of(variant) == "um":
        return os.path.join(b, "linux")
    return os.path.join(b, "arch/x86/boot/bzImage")


def make_vars(b, variant):
    """Extra make variables of variant (the forced include, copied to b)."""
    hdr = FORCE_INCLUDE.get(variant)
    if not hdr:
        return []
    dest = os.path.join(b, "forced-include.h")
    kcache.make_dirs(b)
    if files.read_text(dest) != files.read_text(config.top(hdr)):
        shutil.copy(config.top(hdr), dest)
    return [f"KCPPFLAGS=-include {dest}"]
STEP = ("CC ", "AS ", "LD ", "AR ")


def fragment_lines(paths):
    """{CONFIG_X: value} of the fragments, "n" for '# CONFIG_X is not set'."""
    want = {}
    for frag in paths:
        with open(config.top(frag)) as f:
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


def kmake(src, build, *targets, log=None, progress=None, total=None, arch="x86_64",
          extra=()):
    """make -C src O=build targets; returns (steps, seconds).  A failure
    stops with the first error line and the log's path.  extra: more
    make variables (NAME=value)."""
    cmd = ["make", "-C", src, f"O={build}", f"ARCH={arch}",
           f"-j{os.cpu_count() or 2}"] + list(extra) + list(targets)
    t0 = time.time()
    bar = Progress(f"kernel: {progress}", total=total) if progress else None
    with open(log, "a") if log else open(os.devnull, "w") as lf:
        with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True) as p:
            steps, tail = 0, []
            for line in p.stdout:
                lf.write(line)
                tail = (tail + [line.rstrip()])[-25:]
                if line.lstrip().startswith(STEP):
                    steps += 1
                    if bar:
                        bar.update(steps)
            rc = p.wait()
    if bar:
        bar.done()
    if rc != 0:
        errs = [t for t in tail if re.search(r"error:|undefined reference|\*\*\*|Error \d", t)]
        errs = errs or tail[-5:]
        die(f"make {' '.join(targets)} failed ({build}); first error: "
            f"{errs[0][:300] if errs else '?'} (log: {log})")
    return steps, time.time() - t0


# What olddefconfig reads besides the Kconfig files: an edit of a C file or
# a header outside scripts/ changes none of it (the Kconfig macros run the
# compiler, the linker and scripts/, never the tree's C sources).
NOT_KCONFIG = re.compile(r"^(?!scripts/).*\.[ch]$")


def config_key(src, seed, arch):
    """What olddefconfig's .config is made from, for config_unchanged():
    the fragments' text, the architecture, the compiler and linker, and
    the tree (its id; an uncommitted edit gives no key)."""
    if git(src, "status", "--porcelain", "--untracked-files=no").stdout.strip():
        return None
    return {"seed_sha256": hashlib.sha256(seed.encode()).hexdigest(), "arch": arch,
            "gcc": proc.gcc_version(), "ld": proc.first_line(["ld", "--version"]),
            "tree": git(src, "rev-parse", "HEAD^{tree}").stdout.strip()}


def config_unchanged(src, scratch, key, last):
    """True when olddefconfig would write the .config it wrote last time:
    the same fragments, architecture and tools, the .config it wrote still
    there, and between the two trees only C files and headers outside
    scripts/ changed.  A one-line edit of drbg.c then skips olddefconfig
    (1.7 s of the bench's one-chunk edit); anything else runs it."""
    if not key or not last or any(last.get(k) != v for k, v in key.items() if k != "tree"):
        return False
    cfg = os.path.join(scratch, ".config")
    if not os.path.exists(cfg) or files.sha256_file(cfg) != last.get("config_sha256"):
        return False
    if last.get("tree") == key["tree"]:
        return True
    r = subprocess.run(["git", "-C", src, "diff", "--name-only", "--no-renames",
                        str(last.get("tree")), key["tree"]], capture_output=True, text=True)
    return r.returncode == 0 and all(NOT_KCONFIG.match(p) for p in r.stdout.split())


def configure(src, build, variant, strict=True):
    """Make build/.config from the fragments; touch it only if it changes.

    strict: every fragment line must survive olddefconfig.  Otherwise the
    options that did not are returned (for a prefix of the series that
    does not define them yet)."""
    frags = VARIANTS[variant]
    want = fragment_lines(frags)
    scratch = build + ".kconfig"
    kcache.make_dirs(scratch)
    seed = ""
    for frag in frags:
        with open(config.top(frag)) as f:
            seed += f.read()
    last = os.path.join(scratch, "configured.json")
    key = config_key(src, seed, arch_of(variant))
    if not config_unchanged(src, scratch, key, files.read_json(last)):
        if os.path.exists(last):
            os.unlink(last)
        with open(os.path.join(scratch, ".config"), "w") as out:
            out.write(seed)
        kmake(src, scratch, "olddefconfig", log=os.path.join(scratch, "kconfig.log"),
              arch=arch_of(variant))
        if key:
            files.write_json(last, dict(key, config_sha256=files.sha256_file(
                os.path.join(scratch, ".config"))))
    have = read_config(os.path.join(scratch, ".config"))
    missing = [f"{k}={v} (got {have.get(k, 'n')})" for k, v in want.items()
               if have.get(k, "n") != v]
    if missing and strict:
        die(f"config {variant}: olddefconfig did not keep {len(missing)} option(s) "
            f"of {', '.join(frags)} (unmet dependency?): {'; '.join(missing[:6])}")
    new = os.path.join(scratch, ".config")
    cur = os.path.join(build, ".config")
    kcache.make_dirs(build)
    if not os.path.exists(cur) or open(cur).read() != open(new).read():
        shutil.copy(new, cur)
        say(f"config {variant}: .config written ({len(want)} options from "
            f"the fragments, {len(want) - len(missing)} kept)")
    return missing if not strict else cur


def build_inputs(src, variant):
    """What a build of variant depends on: the committed tree, the config
    fragments and the compiler, and the edits not committed (a hash of
    git diff, only when there are any: make teeth builds edited trees).
    The same inputs make the same kernel; a kernel built from an edited
    tree never passes for one of the clean tree after the edit is undone."""
    out = {"tree": git(src, "rev-parse", "HEAD^{tree}").stdout.strip(),
           "fragments_sha256": files.hash_files(
               [config.top(f) for f in VARIANTS.get(variant, []) +
                ([FORCE_INCLUDE[variant]] if variant in FORCE_INCLUDE else [])],
               config.TOP),
           "gcc": proc.gcc_version()}
    diff = git(src, "diff", "HEAD", "--no-ext-diff", "--binary").stdout
    if diff:
        out["uncommitted_sha256"] = hashlib.sha256(diff.encode()).hexdigest()
    return out


def up_to_date(src, b, stamp, inputs, image=None):
    """True when the last build of b finished with these inputs, its image
    is the one it made, and nobody has edited the source tree since (a
    change not committed would not show in the tree id).  Otherwise make
    runs, as it always did."""
    last = files.read_json(stamp)
    try:
        mtime = os.stat(image or image_of(b, "test")).st_mtime_ns
    except OSError:
        return False
    if last is None or last.get("inputs") != inputs or last.get("image_mtime_ns") != mtime:
        return False
    dirty = git(src, "status", "--porcelain", "--untracked-files=no").stdout.strip()
    return not dirty


def expected_steps(variant, b):
    """The step count a cold build of variant is expected to take, or None
    for an incremental build (its size depends on what changed)."""
    if os.path.exists(os.path.join(b, "vmlinux")):
        return None
    mine = files.read_json(os.path.join(kcache.kcache(), "build-steps.json")) or {}
    ref = files.read_json(config.top("conformance/kconfig/build-steps.json")) or {}
    n = mine.get(variant) or ref.get(variant)
    return n if isinstance(n, int) and n > 0 else None


def remember_steps(variant, steps):
    path = os.path.join(kcache.kcache(), "build-steps.json")
    seen = files.read_json(path) or {}
    seen[variant] = steps
    files.write_json(path, seen)


def build(variant):
    """Configure and build variant (skipped when up to date); its directory."""
    if variant not in VARIANTS:
        die(f"unknown variant {variant!r} (known: {', '.join(VARIANTS)})")
    version, src = kcache.ensure_pristine(conf=confmod.load())
    if git(src, "rev-parse", "HEAD").stdout == git(src, "rev-parse", "pristine").stdout:
        say("warning: building the pristine tree (no series applied)")
    b = os.path.join(kcache.tree_dir(version), f"build-{variant}")
    stamp = os.path.join(b, "build.ok")
    inputs = build_inputs(src, variant)
    head = git(src, "rev-parse", "HEAD").stdout.strip()
    image = image_of(b, variant)
    if up_to_date(src, b, stamp, inputs, image):
        say(f"{variant} kernel up to date: the same tree "
            f"({inputs['tree'][:12]}), fragments and compiler as its last build; "
            "nothing to make")
        last = files.read_json(stamp)
        if last.get("head") != head:     # same tree, other commits: say which
            files.write_json(stamp, dict(last, head=head), indent=None)
        return b
    if os.path.exists(stamp):
        os.unlink(stamp)
    configure(src, b, variant)
    log = os.path.join(b, "build.log")
    open(log, "w").close()
    total = expected_steps(variant, b)
    cold = not os.path.exists(os.path.join(b, "vmlinux"))
    say(f"building {variant} kernel in {b} (log: {log}; "
        + (f"a cold build, about {total} steps)" if total else
           "a cold build, its first on this machine)" if cold else "incremental)"))
    targets = ["linux" if arch_of(variant) == "um" else "bzImage"]
    if read_config(os.path.join(b, ".config")).get("CONFIG_MODULES") == "y":
        targets.append("modules")
    steps, secs = kmake(src, b, *targets, log=log, progress=f"build {variant}",
                        total=total, arch=arch_of(variant), extra=make_vars(b, variant))
    if cold:
        remember_steps(variant, steps)
    files.write_json(stamp, {"variant": variant, "steps": steps, "seconds": round(secs, 1),
                             "head": head, "inputs": inputs,
                             "image_mtime_ns": os.stat(image).st_mtime_ns}, indent=None)
    say(f"{variant} kernel built: {steps} build steps in {secs:.0f} s")
    return b
