# SPDX-License-Identifier: GPL-2.0-only
"""Hashes of files, files written whole or not at all, and input files
read without trusting them (a FIFO or a device is refused, never waited
on or read whole)."""

import hashlib
import json
import os
import stat
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
    except (OSError, ValueError, RecursionError):
        return None
    return data if isinstance(data, kind) else None


def kind_of(mode):
    """What a file that is not a regular one is, for a message."""
    return ("a FIFO" if stat.S_ISFIFO(mode) else "a directory" if stat.S_ISDIR(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "a device"
            if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file")


def unfit(st, max_bytes, what, note=""):
    """Why a file of stat result st is not one to read as `what` (not a
    regular file, or larger than max_bytes), or None."""
    if not stat.S_ISREG(st.st_mode):
        return f"{kind_of(st.st_mode)}: expected a regular {what}"
    if st.st_size > max_bytes:
        return f"{st.st_size} bytes: expected at most {max_bytes}" + (f" {note}" if note
                                                                      else "")
    return None


def stat_problem(path, max_bytes, what, note=""):
    """unfit() of path (followed if a link), or why it cannot be looked at:
    for a file a program of ours will read by its name."""
    try:
        return unfit(os.stat(path), max_bytes, what, note)
    except OSError as e:
        return f"cannot open it ({e.strerror}): expected a readable {what}"


def read_regular(path, max_bytes, what, note=""):
    """(bytes, None), or (None, why path is not read as `what`, one line).

    The file is opened non-blocking and must be a regular file of at most
    max_bytes, so that a FIFO is refused instead of waited on and a device
    is never read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as e:
        if os.path.islink(path) and not os.path.exists(path):
            target = os.fsencode(os.readlink(path)).decode("utf-8", "backslashreplace")
            return None, (f"a dangling symbolic link (to {target}): expected a readable "
                          f"{what}")
        return None, f"cannot open it ({e.strerror}): expected a readable {what}"
    try:
        why = unfit(os.fstat(fd), max_bytes, what, note)
        if why:
            return None, why
        chunks = []
        while True:
            b = os.read(fd, 1 << 20)
            if not b:
                break
            chunks.append(b)
        return b"".join(chunks), None
    except OSError as e:
        return None, f"cannot read it ({e.strerror}): expected a readable {what}"
    finally:
        os.close(fd)
