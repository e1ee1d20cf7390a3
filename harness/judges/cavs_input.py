# SPDX-License-Identifier: GPL-2.0-only
"""Finding and reading CAVS vector files without trusting them.

VECTORS names directories (or files) that anybody may have filled: a
dangling symbolic link, a FIFO or a device named *.rsp, a file or
directory that cannot be read, a symbolic link to a directory, a name
that is not UTF-8.  Each becomes one problem naming the path and what was
expected; none raises, none blocks, none is skipped in silence.
"""

import os

from ..base import files

# A vector file larger than this is refused unread.
MAX_FILE_BYTES = 64 << 20


def safe_name(path):
    """path as text any message, report or pack can hold: the bytes of a
    name that are not UTF-8 are shown as \\xNN."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def read_file(path):
    """(bytes, None), or (None, why path cannot be read as a vector file).

    The file is opened non-blocking and must be a regular file, so that a
    FIFO named *.rsp is refused instead of waited on."""
    return files.read_regular(path, MAX_FILE_BYTES, ".rsp file",
                              "(NIST's largest file is 1.2 MB)")


def _name_problem(path):
    if safe_name(path) != path:
        return ("the name is not UTF-8 (shown with \\x escapes): rename it; "
                "expected a UTF-8 name")
    return None


def _walk(d):
    """(the .rsp files under d, [(path, problem)]) with every directory that
    cannot be read and every symbolic link to a directory named: nothing
    under d is skipped in silence."""
    found, problems = [], []

    def onerror(e):
        problems.append((e.filename or d, f"cannot read this directory ({e.strerror}): "
                         "expected a readable directory of .rsp files"))

    for root, dirs, names in os.walk(d, onerror=onerror):
        dirs.sort()
        for sub in list(dirs):
            full = os.path.join(root, sub)
            if os.path.islink(full):
                problems.append((full, "a symbolic link to a directory, not followed: "
                                 "name its target in VECTORS instead"))
                dirs.remove(sub)
            elif _name_problem(full):
                problems.append((full, _name_problem(full)))
                dirs.remove(sub)
        found += [os.path.join(root, fn) for fn in sorted(names) if fn.endswith(".rsp")]
    return found, problems


def find_files(vector_dirs):
    """Every .rsp file under the given directories (or files), sorted per dir.

    Returns [(path, display name, problem)]; problem is None or a message
    (a directory that does not exist, cannot be read or holds no .rsp
    file; a subdirectory that is a symbolic link or cannot be read; a file
    whose name is not UTF-8).  Each file is read later by read_file()."""
    out = []
    for d in vector_dirs:
        if _name_problem(d):
            out.append((d, safe_name(d), _name_problem(d)))
            continue
        if os.path.exists(d) and not os.path.isdir(d):
            out.append((d, d, None))
            continue
        if not os.path.isdir(d):
            why = ("a dangling symbolic link" if os.path.islink(d) else "no such directory")
            out.append((d, d, f"{why}: expected a directory of .rsp files"))
            continue
        found, problems = _walk(d)
        if not found and not problems:
            out.append((d, d, "no .rsp file in this directory"))
        out += [(p, safe_name(p), why) for p, why in problems]
        out += [(p, safe_name(p), _name_problem(p)) for p in found]
    return out
