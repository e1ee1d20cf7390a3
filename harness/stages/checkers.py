# SPDX-License-Identifier: GPL-2.0-only
"""The verb checkers: the static checkers a kernel maintainer runs, on
every file the series touches, against pristine 6.1 (issue 37, item 3).

  python3 -m harness checkers [--json OUT]

Two work trees of the cached kernel repository, each with a build
directory of its own, under $KCACHE/linux-<version>/:

  checkers-pristine/        the tag 'pristine'
  checkers-patched/         pristine with tangled/patches applied (git am)
  checkers-<tree>.build/    O= build directory, the test config
                            (conformance/kconfig/test.config, CONFIG_WERROR
                            off: W=1 is meant to report, not to stop)

In each tree the objects of the touched .c files (those that exist there)
are compiled with `make C=2 W=1` (sparse, and gcc's extra warnings; W=1
also runs kernel-doc on each .c), coccicheck runs on them (`make C=2
CHECK=scripts/coccicheck MODE=report`, the kernel's per-file mode), and
`scripts/kernel-doc -none` on every touched .c and .h.  What they print is
compared by harness/judges/static_warnings.py: a warning of the patched
tree is new unless the pristine tree has the same checker, file and
message; 6.1's own warnings do not count.  A new warning the book argues
is not a defect is allowed, with its reason, by a line of
conformance/checkers-allowlist.txt (counted apart, never silently).  Each
function the series exports must have a kernel-doc comment (`kernel-doc
-rst -function`).

The raw outputs of each tree are kept with a digest of what made them
($KCACHE/.../checkers-<tree>.json): a warm run with the same inputs
(pristine commit, patches, config fragment, compiler and checkers'
versions) rebuilds nothing.  The logs are copied to build/checkers/.

A checker that is not installed is a failed check naming its Debian
package (`make deps` installs sparse and coccinelle), never a pass.
"""

import hashlib
import os
import re
import shutil
import subprocess
import time

from ..base import conf as confmod
from ..base import config, files, kbuild, kcache, proc, records
from ..base.checks import Check
from ..base.report import as_dicts
from ..judges import static_warnings as sw

OUT = config.build("checkers")
FRAGMENT = "conformance/kconfig/test.config"
ALLOWLIST = "conformance/checkers-allowlist.txt"
# The programs each checker needs, and the Debian package that has each:
# two of 6.1's coccinelle scripts are OCaml, which spatch compiles.
TOOLS = {"sparse": [("sparse", "sparse")],
         "coccicheck": [("spatch", "coccinelle"), ("ocamlfind", "ocaml-findlib"),
                        ("ocamlopt", "ocaml")]}
LAYOUT = 4      # bump when what is recorded in a tree's results changes


def say(msg):
    config.say("checkers", msg)


def missing_tools():
    """{checker: one line naming the package} for each checker whose
    program is not on PATH."""
    out = {}
    for name, progs in TOOLS.items():
        gone = [(prog, pkg) for prog, pkg in progs if shutil.which(prog) is None]
        if gone:
            out[name] = "; ".join(f"{prog} is not installed: run 'make deps' (Debian "
                                  f"package {pkg})" for prog, pkg in gone)
    return out


def touched(patches):
    """The files the series touches (a/ and b/ names of its diffs), sorted."""
    out = set()
    for p in patches:
        with open(p, errors="replace") as f:
            for m in re.finditer(r"^diff --git a/(\S+) b/(\S+)$", f.read(), re.M):
                out.update(m.groups())
    return sorted(out)


def tool_versions():
    return {"gcc": proc.gcc_version(), "sparse": proc.dpkg_version("sparse"),
            "coccinelle": proc.dpkg_version("coccinelle"),
            "ocaml": proc.dpkg_version("ocaml"), "make": proc.first_line(
                ["make", "--version"])}


def inputs_of(which, src, paths, patches):
    out = {"layout": LAYOUT, "tree": which,
           "pristine": kcache.git(src, "rev-parse", "pristine").stdout.strip(),
           "files": paths, "fragment_sha256": files.sha256_file(config.top(FRAGMENT)),
           "tools": tool_versions(), "missing": sorted(missing_tools())}
    if which == "patched":
        out["patches_sha256"] = [files.sha256_file(p) for p in patches]
    return out


def digest(obj):
    return hashlib.sha256(repr(sorted(obj.items())).encode()).hexdigest()


def make(tree, build, *args):
    """make in tree with O=build, two jobs; (rc, everything it printed)."""
    cmd = ["make", "-C", tree, f"O={build}", "ARCH=x86_64", "-j2", "-k"] + list(args)
    r = subprocess.run(cmd, capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def configure(tree, build):
    """build/.config from the test fragment, CONFIG_WERROR off; the file
    is rewritten only when olddefconfig makes something else."""
    text = files.read_text(config.top(FRAGMENT))
    text = re.sub(r"^CONFIG_WERROR=.*$", "# CONFIG_WERROR is not set", text, flags=re.M)
    scratch = build + ".kconfig"
    kcache.make_dirs(scratch)
    with open(os.path.join(scratch, ".config"), "w") as f:
        f.write(text)
    kbuild.kmake(tree, scratch, "olddefconfig", log=os.path.join(scratch, "kconfig.log"))
    new, cur = os.path.join(scratch, ".config"), os.path.join(build, ".config")
    kcache.make_dirs(build)
    if files.read_text(cur) != files.read_text(new):
        shutil.copy(new, cur)


def patched_tree(version, src, patches, conf):
    """The patched work tree: pristine with the series applied by git am
    (again only when the patches changed); (tree, HEAD commit)."""
    wt = kcache.worktree(version, src, "checkers-patched")
    stamp = wt + ".series.json"
    want = [files.sha256_file(p) for p in patches]
    last = files.read_json(stamp) or {}
    head = kcache.git(wt, "rev-parse", "HEAD").stdout.strip()
    dirty = kcache.git(wt, "status", "--porcelain", "--untracked-files=no").stdout.strip()
    if last.get("patches_sha256") != want or last.get("head") != head or dirty:
        kcache.git_am(wt, patches, kcache.ident_env(conf), f"{kcache.PACKAGE} {version}",
                      conf.base_version)
        head = kcache.git(wt, "rev-parse", "HEAD").stdout.strip()
        files.write_json(stamp, {"patches_sha256": want, "head": head})
    return wt, head


def exported(text):
    return set(re.findall(r"^EXPORT_SYMBOL(?:_GPL)?\((\w+)\);", text, re.M))


def remove(build, objs):
    """Remove objects (and their .cmd files) so that make compiles them
    again: gcc says its warnings only when it compiles."""
    for o in objs:
        d, base = os.path.join(build, os.path.dirname(o)), os.path.basename(o)
        for path in (os.path.join(d, base), os.path.join(d, f".{base}.cmd")):
            if os.path.exists(path):
                os.unlink(path)


def run_tree(which, tree, build, paths, missing):
    """Build, check and document one tree; the raw outputs."""
    present = [p for p in paths if os.path.exists(os.path.join(tree, p))]
    cfiles = [p for p in present if p.endswith(".c")]
    objs = [p[:-2] + ".o" for p in cfiles]
    t0 = time.time()
    configure(tree, build)
    kcache.say(f"checkers: make prepare in the {which} tree (a few minutes when cold)")
    kbuild.kmake(tree, build, "prepare", log=os.path.join(build, "prepare.log"),
                 progress=f"prepare checkers-{which}")
    remove(build, objs)
    say(f"{which}: make {'C=2 ' if 'sparse' not in missing else ''}W=1 "
        f"{' '.join(objs)}")
    rc, out = make(tree, build, *(["C=2"] if "sparse" not in missing else []), "W=1",
                   *objs)
    built = [o for o in objs if os.path.exists(os.path.join(build, o))]
    cocci, cocci_rc = "", None
    if "coccicheck" not in missing:
        # C=1 on objects compiled again checks exactly them (C=2 would also
        # run every script on scripts/mod/empty.c, which prepare builds);
        # without W=1, whose kernel-doc run would print into its output.
        say(f"{which}: coccicheck MODE=report on {len(cfiles)} file(s)")
        remove(build, objs)
        cocci_rc, cocci = make(tree, build, "C=1", "MODE=report",
                               f"CHECK={os.path.join(tree, 'scripts/coccicheck')}", *objs)
        # coccicheck echoes each spatch command line: 80 kB a file, not kept
        cocci = "".join(ln for ln in cocci.splitlines(True)
                        if not ln.startswith(shutil.which("spatch") + " "))
    kdoc = {}
    for p in present:
        if p.endswith((".c", ".h")):
            r = subprocess.run(["perl", "scripts/kernel-doc", "-none", p], cwd=tree,
                               capture_output=True, text=True)
            kdoc[p] = r.stdout + r.stderr
    exports = {}
    for p in cfiles:
        for name in sorted(exported(files.read_text(os.path.join(tree, p)) or "")):
            r = subprocess.run(["perl", "scripts/kernel-doc", "-rst", "-function", name, p],
                               cwd=tree, capture_output=True, text=True)
            exports[name] = {"file": p, "documented": bool(re.search(
                rf"^\.\. c:function::.*\b{name}\s*\(", r.stdout, re.M))}
    return {"make_rc": rc, "make": out, "cocci": cocci, "cocci_rc": cocci_rc,
            "kernel_doc": kdoc,
            "objects": objs, "built": built, "exports": exports,
            "seconds": round(time.time() - t0, 1)}


def tree_results(which, version, src, paths, patches, conf, missing):
    """One tree's raw outputs, from its record when its inputs are the
    same, else made afresh (and recorded)."""
    inputs = inputs_of(which, src, paths, patches)
    record = os.path.join(kcache.tree_dir(version), f"checkers-{which}.json")
    last = files.read_json(record)
    if last and last.get("digest") == digest(inputs):
        say(f"{which}: same inputs as the last run ({record}): nothing to build")
        return last, True
    if which == "pristine":
        tree = kcache.worktree(version, src, "checkers-pristine")
        head = kcache.git(src, "rev-parse", "pristine").stdout.strip()
    else:
        tree, head = patched_tree(version, src, patches, conf)
    build = os.path.join(kcache.tree_dir(version), f"checkers-{which}.build")
    res = run_tree(which, tree, build, paths, missing)
    res.update(digest=digest(inputs), inputs=inputs, head=head, tree=tree, build=build)
    files.write_json(record, res)
    return res, False


def warnings_of(res):
    roots = (res["tree"], res["build"])
    out = sw.classify_make(res["make"], roots)
    out["coccicheck"] = sw.parse_cocci(res["cocci"], roots)
    out["kernel-doc"] = [w for text in res["kernel_doc"].values()
                         for w in sw.parse("kernel-doc", text, roots)]
    return out


def line_maps(src, old_head, new_head, paths):
    maps = {}
    for p in paths:
        old = kcache.git(src, "show", f"{old_head}:{p}", check=False)
        new = kcache.git(src, "show", f"{new_head}:{p}", check=False)
        if old.returncode == 0 and new.returncode == 0:
            maps[p] = sw.line_map(old.stdout.splitlines(), new.stdout.splitlines())
    return maps


def first_error(text):
    lines = [ln.strip() for ln in text.splitlines()
             if re.search(r"error|failed|\*\*\*|not found|No OCaml", ln, re.I)]
    return (lines or text.strip().splitlines()[-1:] or ["?"])[0][:200]


def broken(*trees):
    """{checker: reason} for each checker whose make failed in a tree: its
    output is partial, so finding nothing in it proves nothing."""
    out = {}
    for res in trees:
        which = res["inputs"]["tree"]
        if res["make_rc"]:
            why = (f"make C=2 W=1 failed in the {which} tree (exit {res['make_rc']}): "
                   f"{first_error(res['make'])}")
            out.setdefault("sparse", why)
            out.setdefault("w1", why)
        if res.get("cocci_rc"):
            out.setdefault("coccicheck", f"coccicheck failed in the {which} tree (exit "
                           f"{res['cocci_rc']}): {first_error(res['cocci'])}")
    return out


def object_check(res):
    unbuilt = [o for o in res["objects"] if o not in res["built"]]
    cid, title = "host.checkers.objects", ("every .c the series touches compiles with "
                                           "C=2 W=1 in the checkers' configuration")
    kw = dict(origin="host", counts={"objects": len(res["objects"]),
                                     "built": len(res["built"])})
    if unbuilt or res["make_rc"]:
        return Check.failed(cid, title, f"make exited {res['make_rc']}; not built: "
                            f"{', '.join(unbuilt) or 'none'} (build/checkers/patched/"
                            "make.txt)", **kw)
    return Check.passed(cid, title, **kw)


def exports_check(pristine, patched):
    new = {n: e for n, e in patched["exports"].items() if n not in pristine["exports"]}
    bad = [f"{e['file']}: {n} is exported without a kernel-doc comment"
           for n, e in sorted(new.items()) if not e["documented"]]
    return Check.judge("host.checkers.kernel-doc-exports", "every function the series "
                       "exports has a kernel-doc comment", bad, origin="host",
                       counts={"new_exports": len(new), "undocumented": len(bad)},
                       details={"new_exports": sorted(new)})


def keep_logs(which, res):
    d = os.path.join(OUT, which)
    os.makedirs(d, exist_ok=True)
    for name, text in (("make.txt", res["make"]), ("coccicheck.txt", res["cocci"]),
                       ("kernel-doc.txt", "".join(f"== {p}\n{t}" for p, t in
                                                  sorted(res["kernel_doc"].items())))):
        with open(os.path.join(d, name), "w") as f:
            f.write(text)


def run(args):
    t0 = time.time()
    conf = confmod.load()
    version, src = kcache.ensure_pristine(conf=conf)
    patches = kcache.series_patches(args.patchdir)
    if not patches:
        config.die("checkers", f"no patches in {args.patchdir}: run 'make tangle'")
    paths = touched(patches)
    missing = missing_tools()
    for m in missing.values():
        config.warn("checkers", m)
    pristine, warm_p = tree_results("pristine", version, src, paths, patches, conf,
                                    missing)
    patched, warm_n = tree_results("patched", version, src, paths, patches, conf, missing)
    keep_logs("pristine", pristine)
    keep_logs("patched", patched)
    maps = line_maps(src, pristine["head"], patched["head"], paths)
    wp, wn = warnings_of(pristine), warnings_of(patched)
    missing = dict(broken(pristine, patched), **missing)
    results = {c: (wp[c], wn[c], sw.compare(wp[c], wn[c], maps)) for c in wp
               if c not in missing}
    allow = records.allowlist(config.top(ALLOWLIST))
    out = [object_check(patched)] + sw.checks(results, missing, allow) + \
        [exports_check(pristine, patched)]
    for c in sw.CHECKERS:
        if c in results:
            p, n, new = results[c]
            new, ok = sw.allowed(new, allow)
            print(f"checkers: {c}: pristine {len(p)}, patched {len(n)}, new {len(new)}"
                  + (f", allowed {len(ok)}" if ok else ""))
            for w in new:
                print(f"  NEW {w}")
            for w, why in ok:
                print(f"  allowed {w} ({why[:100]})")
        else:
            print(f"checkers: {c}: NOT RUN ({missing[c]})")
    for c in out:
        if c.status == "fail" and c.id in ("host.checkers.objects",
                                           "host.checkers.kernel-doc-exports"):
            print(f"checkers: {c.id}: {c.reason}")
    secs = round(time.time() - t0, 1)
    summary = {"seconds": secs, "warm": [warm_p, warm_n],
               "build_seconds": {"pristine": pristine["seconds"],
                                 "patched": patched["seconds"]},
               "counts": {c.id: c.counts for c in out if c.counts}}
    files.write_json(os.path.join(OUT, "summary.json"), summary)
    if args.json:
        files.write_json(args.json, as_dicts(out))
    failed = [c for c in out if c.status != "pass"]
    print(f"checkers: {len(out) - len(failed)} passed, {len(failed)} failed "
          f"({secs} s{', warm' if warm_p and warm_n else ''})")
    return 1 if failed else 0


def register(sub):
    p = sub.add_parser("checkers", help="sparse, W=1, kernel-doc and coccicheck on the "
                       "touched files: no warning that pristine 6.1 does not have")
    p.add_argument("patchdir", nargs="?", default=config.top("tangled/patches"))
    p.add_argument("--json", metavar="OUT", help="write the checks to OUT")
    p.set_defaults(func=run)
