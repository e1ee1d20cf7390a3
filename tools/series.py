#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Turn the book's edit scripts into a git format-patch series.

  series.py EDITDIR OUTDIR

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
the anchor.  The commits are made with git plumbing on a temporary index
(no work tree is touched), with the identity and date of tangle.conf, so
the same book gives the same series, byte for byte, on any machine.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernel  # noqa: E402
import nwconf  # noqa: E402

DIRECTIVE = re.compile(r"^%% (\S+)(?: (.*))?$")


class EditError(Exception):
    pass


def parse(path):
    """Return a list of (directive, argument, [lines], line number)."""
    ops = []
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            m = DIRECTIVE.match(line.rstrip("\n"))
            if m:
                ops.append([m.group(1), m.group(2) or "", [], no])
            elif not ops:
                if line.strip():
                    raise EditError(f"{path}:{no}: text before the first "
                                    "'%% ' directive")
            else:
                ops[-1][2].append(line)
    return ops


def find_one(lines, regex, start, path, what):
    try:
        rx = re.compile(regex)
    except re.error as e:
        raise EditError(f"{what}: bad anchor /{regex}/: {e}")
    hits = [i for i in range(start, len(lines)) if rx.search(lines[i].rstrip("\n"))]
    if len(hits) != 1:
        raise EditError(f"{what}: {path}: anchor /{regex}/ matched {len(hits)} "
                        "lines (expected exactly 1)")
    return hits[0]


class Tree:
    """The files of one commit, read lazily from git, edited in memory."""

    def __init__(self, repo, rev):
        self.repo, self.rev = repo, rev
        self.files = {}      # path -> list of lines, or None when deleted

    def get(self, path):
        if path not in self.files:
            r = subprocess.run(["git", "-C", self.repo, "cat-file", "blob",
                                f"{self.rev}:{path}"], capture_output=True)
            if r.returncode != 0:
                return None
            self.files[path] = r.stdout.decode("utf-8").splitlines(True)
        return self.files[path]


def apply_edits(tree, ops, label):
    subject, message, current = None, [], None
    for op, arg, body, no in ops:
        what = f"{label} line {no} ({op})"
        if op == "subject":
            subject = arg
        elif op == "message":
            message = body
        elif op == "write":
            tree.files[arg] = list(body)
        elif op == "delete":
            if tree.get(arg) is None:
                raise EditError(f"{what}: {arg} does not exist")
            tree.files[arg] = None
        elif op == "edit":
            if tree.get(arg) is None:
                raise EditError(f"{what}: {arg} does not exist")
            current = arg
        elif op in ("after", "before", "replace"):
            if current is None:
                raise EditError(f"{what}: no '%% edit PATH' before it")
            lines = tree.get(current)
            if op == "replace" and " .. " in arg:
                first, end = arg.split(" .. ", 1)
                i = find_one(lines, first, 0, current, what)
                rx = re.compile(end)
                j = next((k for k in range(i + 1, len(lines))
                          if rx.search(lines[k].rstrip("\n"))), None)
                if j is None:
                    raise EditError(f"{what}: {current}: no line matching /{end}/ "
                                    f"after line {i + 1}")
                lines[i:j + 1] = body
            else:
                i = find_one(lines, arg, 0, current, what)
                if op == "after":
                    lines[i + 1:i + 1] = body
                elif op == "before":
                    lines[i:i] = body
                else:
                    lines[i:i + 1] = body
        else:
            raise EditError(f"{what}: unknown directive")
    if not subject:
        raise EditError(f"{label}: no '%% subject' line")
    while message and not message[-1].strip():
        message.pop()
    return subject, "".join(message)


def git(repo, *args, env=None, inp=None):
    e = dict(os.environ)
    e.update(env or {})
    r = subprocess.run(["git", "-C", repo] + list(args), env=e, input=inp,
                       capture_output=True)
    if r.returncode != 0:
        raise SystemExit(f"series: git {args[0]} failed: "
                         f"{r.stderr.decode(errors='replace').strip()[:300]}")
    return r.stdout.decode()


def commit(repo, env, parent, tree, subject, message, conf):
    """Write tree's changes on top of parent; return the new commit id."""
    for path, lines in sorted(tree.files.items()):
        if lines is None:
            git(repo, "update-index", "--force-remove", "--", path, env=env)
            continue
        data = "".join(lines).encode()
        sha = git(repo, "hash-object", "-w", "--stdin", inp=data, env=env).strip()
        mode = "100644"
        ls = git(repo, "ls-tree", parent, "--", path, env=env).split()
        if ls:
            mode = ls[0]
        git(repo, "update-index", "--add", "--cacheinfo", f"{mode},{sha},{path}",
            env=env)
    tree_id = git(repo, "write-tree", env=env).strip()
    signoff = f"Signed-off-by: {conf.identity}"
    body = message.rstrip("\n")
    text = subject + "\n\n" + (body + "\n\n" if body else "") + signoff + "\n"
    return git(repo, "commit-tree", tree_id, "-p", parent, "-F", "-",
               inp=text.encode(), env=env).strip()


def build(editdir, outdir):
    conf = nwconf.load()
    _, repo = kernel.ensure_pristine(pinned=True, conf=conf)
    env = kernel.ident_env(conf)
    tmp = tempfile.mkdtemp(prefix="series-")
    try:
        env["GIT_INDEX_FILE"] = os.path.join(tmp, "index")
        parent = git(repo, "rev-parse", "pristine^{commit}").strip()
        git(repo, "read-tree", parent, env=env)
        for i in range(1, len(conf.patches) + 1):
            label = f"patch {i} <<{conf.patches[i - 1]}>>"
            path = os.path.join(editdir, f"{i:04d}.edits")
            try:
                tree = Tree(repo, parent)
                subject, message = apply_edits(tree, parse(path), label)
            except EditError as e:
                raise SystemExit(f"series: {e}")
            parent = commit(repo, env, parent, tree, subject, message, conf)
        git(repo, "update-ref", "refs/heads/series", parent)
        with open(os.path.join(editdir, "cover.txt"), encoding="utf-8") as f:
            cover = f.read().split("\n", 1)
        if len(cover) < 2 or not cover[0].strip() or not cover[1].strip():
            raise SystemExit("series: the cover letter chunk needs a subject line "
                             "and a body")
        out = os.path.join(tmp, "patches")
        git(repo, "format-patch", "-q", "--no-signature", "--abbrev=12",
            "--cover-letter", "--base=pristine", "-n",
            "-o", out, "pristine..series", env=env)
        fill_cover(out, cover[0].strip(), cover[1].strip("\n"))
        names = sorted(os.listdir(out))
        with open(os.path.join(out, "series"), "w") as f:
            f.write("".join(n + "\n" for n in names if n != "0000-cover-letter.patch"))
        new = outdir + ".new"
        if os.path.exists(new):
            shutil.rmtree(new)
        shutil.copytree(out, new)
        if os.path.exists(outdir):
            shutil.rmtree(outdir)
        os.rename(new, outdir)
        print(f"series: {len(names) - 1} patches and a cover letter in {outdir}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def fill_cover(outdir, subject, body):
    path = os.path.join(outdir, "0000-cover-letter.patch")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if "*** SUBJECT HERE ***" not in text or "*** BLURB HERE ***" not in text:
        raise SystemExit("series: git format-patch wrote a cover letter without "
                         "its placeholders")
    text = text.replace("*** SUBJECT HERE ***", subject)
    text = text.replace("*** BLURB HERE ***", body)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    build(sys.argv[1], sys.argv[2])
