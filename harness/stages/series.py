# SPDX-License-Identifier: GPL-2.0-only
"""Turn the book's edit scripts into a git format-patch series.

EDITDIR holds NNNN.edits (one per patch, tangled from the book) and
cover.txt.  Each edit script is a list of directives, each on a line of
its own that starts with '%% ', followed by the lines it carries:

  %% subject TEXT          the commit subject
  %% message               the lines up to the next directive: commit body
  %% write PATH            the lines up to the next directive: PATH's
                           whole new content (a new file, or a rewrite)
  %% delete PATH           remove PATH
  %% edit PATH             the following anchors apply to PATH
  %% after REGEX           insert the lines after the one line matching REGEX
  %% before REGEX          insert the lines before it
  %% replace REGEX         replace that one line by the lines
  %% replace REGEX .. END  replace from the line matching REGEX through
                           the first line after it matching END

An anchor must match exactly one line of the file as it stands at that
point of the series, or the build stops naming the patch, the file and
the anchor.  The commits are made with git plumbing (hash-object, mktree,
commit-tree: no index, no work tree is touched), with the identity and date of tangle.conf, so
the same book gives the same series, byte for byte, on any machine.

Every line the edits put in a file remembers the line of the edit script
it came from.  After git format-patch, each line of each patch is mapped
(linemap.py) to: "book" with its edit-script line (a + line, the subject,
a commit-message line), "context" or "removed" (the pristine kernel's or
an earlier patch's), or "generated" (mail headers, sign-off, diffstat,
hunk headers).  The map is written to LINES; the book follows each
edit-script line to its chunk with notangle -L.
"""

import os
import re
import shutil
import subprocess
import tempfile

from ..base import conf as confmod
from ..base import config, files, kcache
from . import linemap

DIRECTIVE = re.compile(r"^%% (\S+)(?: (.*))?$")
LINES = config.build("tangle/lines.json")


class EditError(Exception):
    pass


class Op:
    """One directive of an edit script, with the lines it carries and the
    edit-script line number of each."""

    def __init__(self, op, arg, no):
        self.op, self.arg, self.no = op, arg, no
        self.body, self.nos = [], []


def parse(path):
    """The ops of one edit script."""
    ops = []
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            m = DIRECTIVE.match(line.rstrip("\n"))
            if m:
                ops.append(Op(m.group(1), m.group(2) or "", no))
            elif not ops:
                if line.strip():
                    raise EditError(f"{path}:{no}: text before the first "
                                    "'%% ' directive")
            else:
                ops[-1].body.append(line)
                ops[-1].nos.append(no)
    return ops


def find_one(lines, regex, path, what):
    try:
        rx = re.compile(regex)
    except re.error as e:
        raise EditError(f"{what}: bad anchor /{regex}/: {e}")
    hits = [i for i in range(len(lines)) if rx.search(lines[i].rstrip("\n"))]
    if len(hits) != 1:
        raise EditError(f"{what}: {path}: anchor /{regex}/ matched {len(hits)} "
                        "lines (expected exactly 1)")
    return hits[0]


class Tree:
    """The files of one commit, read lazily, edited in memory.  read(path)
    gives a file's bytes in the tree the series starts from, or None;
    state holds what the earlier patches made of the files they wrote
    (a list of lines, or None when deleted).  origin[path] runs beside
    files[path]: for each line, the edit-script line of this patch it
    came from, or None."""

    def __init__(self, read, state=None):
        self.read, self.state = read, state if state is not None else {}
        self.files = {}      # path -> list of lines, or None when deleted
        self.origin = {}

    def get(self, path):
        if path not in self.files:
            if path in self.state:
                if self.state[path] is None:
                    return None
                lines = list(self.state[path])
            else:
                data = self.read(path)
                if data is None:
                    return None
                lines = data.decode("utf-8").splitlines(True)
            self.files[path] = lines
            self.origin[path] = [None] * len(lines)
        return self.files[path]

    def splice(self, path, i, j, op):
        """Replace lines i..j-1 of path by op's body."""
        self.files[path][i:j] = op.body
        self.origin[path][i:j] = op.nos


def apply_anchor(tree, current, op, what):
    lines = tree.get(current)
    if op.op == "replace" and " .. " in op.arg:
        first, end = op.arg.split(" .. ", 1)
        i = find_one(lines, first, current, what)
        rx = re.compile(end)
        j = next((k for k in range(i + 1, len(lines))
                  if rx.search(lines[k].rstrip("\n"))), None)
        if j is None:
            raise EditError(f"{what}: {current}: no line matching /{end}/ "
                            f"after line {i + 1}")
        tree.splice(current, i, j + 1, op)
        return
    i = find_one(lines, op.arg, current, what)
    if op.op == "after":
        tree.splice(current, i + 1, i + 1, op)
    elif op.op == "before":
        tree.splice(current, i, i, op)
    else:
        tree.splice(current, i, i + 1, op)


def apply_edits(tree, ops, label):
    """Apply one edit script; return (subject op, message op or None)."""
    subject, message, current = None, None, None
    for op in ops:
        what = f"{label} line {op.no} ({op.op})"
        if op.op == "subject":
            subject = op
        elif op.op == "message":
            message = op
        elif op.op == "write":
            tree.files[op.arg] = list(op.body)
            tree.origin[op.arg] = list(op.nos)
        elif op.op in ("delete", "edit"):
            if tree.get(op.arg) is None:
                raise EditError(f"{what}: {op.arg} does not exist")
            if op.op == "delete":
                tree.files[op.arg] = None
            current = op.arg
        elif op.op in ("after", "before", "replace"):
            if current is None:
                raise EditError(f"{what}: no '%% edit PATH' before it")
            apply_anchor(tree, current, op, what)
        else:
            raise EditError(f"{what}: unknown directive")
    if subject is None or not subject.arg:
        raise EditError(f"{label}: no '%% subject' line")
    if message is not None:
        while message.body and not message.body[-1].strip():
            message.body.pop()
            message.nos.pop()
    return subject, message


def git(repo, *args, env=None, inp=None):
    e = dict(os.environ)
    e.update(env or {})
    r = subprocess.run(["git", "-C", repo] + list(args), env=e, input=inp,
                       capture_output=True)
    if r.returncode != 0:
        config.die("series", f"git {args[0]} failed: "
                   f"{r.stderr.decode(errors='replace').strip()[:300]}")
    return r.stdout.decode()


class Objects:
    """The kernel repository's objects through two git processes that
    stay up for the whole series: cat-file --batch reads blobs and trees,
    mktree --batch writes trees.  The series used to be written through a
    temporary index of the whole kernel (read-tree, then update-index and
    write-tree per patch, 8 MB read and written each time): 1.7 s of the
    2.3 s its 105 git calls took."""

    def __init__(self, repo, env):
        e = dict(os.environ, **env)
        self.cat = subprocess.Popen(["git", "-C", repo, "cat-file", "--batch"], env=e,
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.mk = subprocess.Popen(["git", "-C", repo, "mktree", "-z", "--batch"], env=e,
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def close(self):
        for p in (self.cat, self.mk):
            p.stdin.close()
            p.stdout.close()
            p.wait()

    def object(self, spec):
        """(type, bytes) of the object spec names, or (None, None)."""
        self.cat.stdin.write(spec.encode() + b"\n")
        self.cat.stdin.flush()
        head = self.cat.stdout.readline().split()
        if len(head) != 3:
            return None, None
        data = self.cat.stdout.read(int(head[2]))
        self.cat.stdout.read(1)
        return head[1].decode(), data

    def blob(self, spec):
        kind, data = self.object(spec)
        return data if kind == "blob" else None

    def tree(self, spec):
        """{name: (mode, id)} of the tree spec names ({} when there is none)."""
        kind, data = self.object(spec)
        out, i = {}, 0
        while kind == "tree" and i < len(data):
            nul = data.index(b"\0", i)
            mode, name = data[i:nul].decode().split(" ", 1)
            out[name] = (mode, data[nul + 1:nul + 21].hex())
            i = nul + 21
        return out

    def mktree(self, entries):
        kinds = {"40000": "tree", "160000": "commit"}
        text = "".join(f"{mode} {kinds.get(mode, 'blob')} {oid}\t{name}\0"
                       for name, (mode, oid) in sorted(entries.items()))
        self.mk.stdin.write(text.encode() + b"\0")
        self.mk.stdin.flush()
        oid = self.mk.stdout.readline().decode().strip()
        if not re.fullmatch(r"[0-9a-f]{40}", oid):
            config.die("series", f"git mktree failed for a tree of {len(entries)} entries")
        return oid


def write_blobs(repo, env, datas):
    """Write each of datas as a blob; {data: id}, with one git hash-object."""
    datas = sorted(set(datas))
    if not datas:
        return {}
    tmp = tempfile.mkdtemp(prefix="series-blobs-")
    try:
        paths = []
        for n, data in enumerate(datas):
            paths.append(os.path.join(tmp, str(n)))
            with open(paths[-1], "wb") as f:
                f.write(data)
        out = git(repo, "hash-object", "-w", "--no-filters", "--stdin-paths",
                  inp="".join(p + "\n" for p in paths).encode(), env=env).split()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return dict(zip(datas, out))


def write_commits(repo, env, parent, patches, conf, objects):
    """One commit per (tree, subject, message) of patches, each on the one
    before, the first on parent; returns the last commit's id.  Only the
    directories a patch changed are written again (mktree), from the
    entries of the tree before it, so a file keeps its mode; a new file
    is 100644."""
    blobs = write_blobs(repo, env, ["".join(lines).encode() for tree, _, _ in patches
                                    for lines in tree.files.values() if lines is not None])
    dirs = {}

    def entries(d):
        if d not in dirs:
            dirs[d] = objects.tree(f"{parent}:{d}" if d else f"{parent}^{{tree}}")
        return dirs[d]
    root = git(repo, "rev-parse", f"{parent}^{{tree}}").strip()
    for tree, subject, message in patches:
        changed = set()
        for path, lines in sorted(tree.files.items()):
            d, name = os.path.split(path)
            ents = entries(d)
            if lines is None:
                ents.pop(name, None)
            else:
                mode = ents[name][0] if name in ents else "100644"
                ents[name] = (mode, blobs["".join(lines).encode()])
            while True:
                changed.add(d)
                if not d:
                    break
                d = os.path.dirname(d)
        for d in sorted(changed, key=lambda d: (-d.count("/"), d) if d else (1, "")):
            if not d:
                root = objects.mktree(entries(""))
                continue
            up, name = os.path.split(d)
            if entries(d):
                entries(up)[name] = ("40000", objects.mktree(entries(d)))
            else:
                entries(up).pop(name, None)
        signoff = f"Signed-off-by: {conf.identity}"
        body = "".join(message.body).rstrip("\n") if message else ""
        text = subject.arg + "\n\n" + (body + "\n\n" if body else "") + signoff + "\n"
        parent = git(repo, "commit-tree", root, "-p", parent, "-F", "-",
                     inp=text.encode(), env=env).strip()
    return parent


def make_commits(repo, env, editdir, conf):
    """One commit per edit script on top of pristine; returns the last
    commit and, per patch, what linemap needs (subject, message, origins)."""
    parent = git(repo, "rev-parse", "pristine^{commit}").strip()
    objects = Objects(repo, env)
    try:
        state, patches, made = {}, [], []
        for i in range(1, len(conf.patches) + 1):
            label = f"patch {i} <<{conf.patches[i - 1]}>>"
            try:
                tree = Tree(lambda path: objects.blob(f"{parent}:{path}"), state)
                subject, message = apply_edits(
                    tree, parse(os.path.join(editdir, f"{i:04d}.edits")), label)
            except EditError as e:
                config.die("series", str(e))
            patches.append((tree, subject, message))
            state.update(tree.files)
            made.append({"edits": f"{i:04d}.edits", "root": conf.patches[i - 1],
                         "subject": subject.no,
                         "message": list(message.nos) if message else [],
                         "origin": {p: o for p, o in tree.origin.items()
                                    if tree.files.get(p) is not None}})
        head = write_commits(repo, env, parent, patches, conf, objects)
    finally:
        objects.close()
    return head, made


def build(editdir, outdir, lines_out=LINES):
    """The series from the edit scripts: outdir (patches, series file) and
    the line map lines_out."""
    conf = confmod.load()
    _, repo = kcache.ensure_pristine(pinned=True, conf=conf)
    env = kcache.ident_env(conf)
    tmp = tempfile.mkdtemp(prefix="series-")
    try:
        head, made = make_commits(repo, env, editdir, conf)
        git(repo, "update-ref", "refs/heads/series", head)
        with open(os.path.join(editdir, "cover.txt"), encoding="utf-8") as f:
            cover = f.read().split("\n", 1)
        if len(cover) < 2 or not cover[0].strip() or not cover[1].strip():
            config.die("series", "the cover letter chunk needs a subject line and a body")
        out = os.path.join(tmp, "patches")
        git(repo, "format-patch", "-q", "--no-signature", "--abbrev=12",
            "--cover-letter", "--base=pristine", "-n",
            "-o", out, "pristine..series", env=env)
        fill_cover(out, cover[0].strip(), cover[1].strip("\n"))
        names = sorted(os.listdir(out))
        patches = [n for n in names if n != "0000-cover-letter.patch"]
        files.write_text(os.path.join(out, "series"), "".join(n + "\n" for n in patches))
        lmap = linemap.series_map(out, patches, made, cover, conf.cover)
        replace_dir(out, outdir)
        files.write_json(lines_out, lmap)
        config.say("series", f"{len(patches)} patches and a cover letter in "
                   f"{config.display(outdir)}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def replace_dir(src, dest):
    new = dest + ".new"
    if os.path.exists(new):
        shutil.rmtree(new)
    shutil.copytree(src, new)
    if os.path.exists(dest):
        shutil.rmtree(dest)
    os.rename(new, dest)


def fill_cover(outdir, subject, body):
    path = os.path.join(outdir, "0000-cover-letter.patch")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if "*** SUBJECT HERE ***" not in text or "*** BLURB HERE ***" not in text:
        config.die("series", "git format-patch wrote a cover letter without its "
                   "placeholders")
    text = text.replace("*** SUBJECT HERE ***", subject)
    text = text.replace("*** BLURB HERE ***", body)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def run(args):
    build(args.editdir, args.outdir, args.lines)
    return 0


def register(sub):
    p = sub.add_parser("series", help="the patch series from tangled edit scripts")
    p.add_argument("editdir", help="NNNN.edits and cover.txt (make tangle writes "
                   "build/tangle/edits)")
    p.add_argument("outdir", help="where the patches go, e.g. tangled/patches")
    p.add_argument("--lines", default=LINES, help="where the line map goes")
    p.set_defaults(func=run)
