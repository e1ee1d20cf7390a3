# SPDX-License-Identifier: GPL-2.0-only
"""Hashes of files, and files written whole or not at all."""

import hashlib
import json
import os
import tempfile


def sha256_file(path):
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def hash_files(paths, root):
    """One SHA-256 over the names (relative to root) and contents of paths,
    in the order given: what the stamps of warm runs compare."""
    h = hashlib.sha256()
    for p in paths:
        h.update(os.path.relpath(p, root).encode() + b"\0")
        with open(p, "rb") as f:
            h.update(f.read())
        h.update(b"\0")
    return h.hexdigest()


def tree_hashes(base, root, skip=None):
    """{path relative to root: sha256} of every file under base, sorted;
    skip(name) leaves out a file or a whole directory."""
    out = {}
    for d, dirs, files in os.walk(base):
        dirs[:] = sorted(x for x in dirs if not (skip and skip(x)))
        for f in sorted(files):
            if skip and skip(f):
                continue
            p = os.path.join(d, f)
            out[os.path.relpath(p, root)] = sha256_file(p)
    return dict(sorted(out.items()))


def write_bytes(path, data):
    """Write data to path through a temporary file: a reader never sees
    half of it, and an interrupted write leaves the old file.  The
    temporary file is the writer's own, so that two writers of one path
    at once (two boots stamping one tool) do not move each other's."""
    d = os.path.dirname(path) or "."
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=d, prefix=os.path.basename(path) + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_text(path, text):
    """write_bytes() of text in UTF-8."""
    write_bytes(path, text.encode("utf-8"))


def write_json(path, data, indent=1):
    write_text(path, json.dumps(data, indent=indent) + "\n")


def read_text(path):
    """The text of path, or None when it cannot be read."""
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError):
        return None


def read_json(path, kind=dict):
    """The JSON object (or list) in path, or None when the file is missing,
    unreadable, not JSON or not of the kind asked for."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, kind) else None
