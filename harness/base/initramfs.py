# SPDX-License-Identifier: GPL-2.0-only
"""Write an initramfs with the kernel's own usr/gen_init_cpio.

The archive holds /init, the device node the kernel needs to open a
console before /init runs, a few empty directories, and any data files.
gen_init_cpio is compiled from the cached kernel tree once (it is one C
file and needs nothing but libc) and run with -t 0, which gives the
directories and the device node mtime 0; a regular file's entry takes
the mtime of the host file (usr/gen_init_cpio.c, cpio_mkfile), so /init
and each data file go in through a copy whose mtime is 0, beside the
archive: every entry has uid 0, gid 0 and mtime 0, and the same contents
give the same bytes, however often a file was written again (the CAVS
pack is written anew by every run; kept_boots.py keys a boot by them).
"""

import os
import shutil
import subprocess
import threading

from . import config, files

DIRS = ("dev", "proc", "sys", "tmp", "data")


def tool(src, out=None):
    """build/guest/gen_init_cpio (or out), compiled from
    src/usr/gen_init_cpio.c when missing or when the source changed.  The
    compiler writes a file of its own, renamed into place when complete:
    boots side by side may compile it at once, and one of them must never
    run the file while another's linker writes it ("Text file busy")."""
    c = os.path.join(src, "usr/gen_init_cpio.c")
    out = out or config.build("guest", "gen_init_cpio")
    digest = files.sha256_file(c)
    stamp = out + ".sha256"
    if os.path.exists(out) and (files.read_text(stamp) or "").strip() == digest:
        return out
    os.makedirs(os.path.dirname(out), exist_ok=True)
    tmp = f"{out}.{os.getpid()}.{threading.get_ident()}.tmp"
    r = subprocess.run(["gcc", "-O2", "-o", tmp, c], capture_output=True, text=True)
    if r.returncode != 0:
        if os.path.exists(tmp):
            os.unlink(tmp)
        config.die("initramfs", f"{c} does not compile: "
                   f"{(r.stderr.strip().splitlines() or ['?'])[0]}")
    os.replace(tmp, out)
    files.write_text(stamp, digest + "\n")
    return out


def staged(path, init_binary, data=None):
    """(init, data) as copies with mtime 0 in path + ".files/" (the
    archive's names, so that two data files of one name cannot meet)."""
    base = path + ".files"
    if os.path.exists(base):
        shutil.rmtree(base)
    out = {}
    for arc, host in [("init", init_binary)] + sorted((data or {}).items()):
        dst = os.path.join(base, arc.strip("/"))
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copyfile(host, dst)
        os.utime(dst, (0, 0))
        out[arc] = dst
    return out.pop("init"), out


def spec(init_binary, data=None):
    """gen_init_cpio's list: directories, /dev/console, /init, data files.
    data: {archive path: host path}; directories are made as needed."""
    data = data or {}
    dirs = set(DIRS)
    for arc in data:
        parts = arc.strip("/").split("/")[:-1]
        for i in range(1, len(parts) + 1):
            dirs.add("/".join(parts[:i]))
    lines = [f"dir /{d} 0755 0 0" for d in sorted(dirs)]
    lines.append("nod /dev/console 0600 0 0 c 5 1")
    lines.append(f"file /init {os.path.abspath(init_binary)} 0755 0 0")
    for arc, host in sorted(data.items()):
        if any(ch.isspace() for ch in arc + host):
            config.die("initramfs", f"{host!r} -> {arc!r}: a path with a blank "
                       "cannot go into gen_init_cpio's list")
        lines.append(f"file /{arc.strip('/')} {os.path.abspath(host)} 0644 0 0")
    return "\n".join(lines) + "\n"


def write(path, init_binary, data=None, src=None):
    """Write the archive to path (through a temporary file); src is the
    kernel tree whose gen_init_cpio to use."""
    listing = path + ".list"
    files.write_text(listing, spec(*staged(path, init_binary, data)))
    tmp = path + ".tmp"
    with open(tmp, "wb") as out:
        r = subprocess.run([tool(src), "-t", "0", listing], stdout=out,
                           stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        os.unlink(tmp)
        config.die("initramfs", f"gen_init_cpio failed for {path}: {r.stderr.strip()[:300]}")
    os.replace(tmp, path)
    return path
