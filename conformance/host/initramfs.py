# SPDX-License-Identifier: GPL-2.0-only
"""Write an initramfs (newc cpio) with fixed owners and times.

The archive holds /init, the device node the kernel needs to open a console
before /init runs, a few empty directories, and any data files.  Every
entry has uid 0, gid 0 and mtime 0, so the same inputs give the same bytes.
"""

import os
import stat


def _entry(out, ino, name, mode, data=b"", rdev=(0, 0)):
    name_b = name.encode() + b"\0"
    hdr = "070701" + "".join(f"{v:08X}" for v in (
        ino, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1],
        len(name_b), 0))
    out.write(hdr.encode())
    out.write(name_b)
    out.write(b"\0" * ((4 - (110 + len(name_b)) % 4) % 4))
    out.write(data)
    out.write(b"\0" * ((4 - len(data) % 4) % 4))


def write(path, init_binary, files=None):
    """files: {archive path: host path}; directories are made as needed."""
    files = files or {}
    dirs = {"dev", "proc", "sys", "tmp", "data"}
    for arc in files:
        parts = arc.strip("/").split("/")[:-1]
        for i in range(1, len(parts) + 1):
            dirs.add("/".join(parts[:i]))
    tmp = path + ".tmp"
    with open(tmp, "wb") as out:
        ino = 1
        for d in sorted(dirs):
            _entry(out, ino, d, stat.S_IFDIR | 0o755)
            ino += 1
        _entry(out, ino, "dev/console", stat.S_IFCHR | 0o600, rdev=(5, 1))
        ino += 1
        with open(init_binary, "rb") as f:
            _entry(out, ino, "init", stat.S_IFREG | 0o755, f.read())
        ino += 1
        for arc, host in sorted(files.items()):
            with open(host, "rb") as f:
                _entry(out, ino, arc.strip("/"), stat.S_IFREG | 0o644, f.read())
            ino += 1
        _entry(out, 0, "TRAILER!!!", 0)
    os.replace(tmp, path)
    return path
