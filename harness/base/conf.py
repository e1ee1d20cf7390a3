# SPDX-License-Identifier: GPL-2.0-only
"""Read tangle.conf: the noweb sources, the outputs and the series.

tangle.conf is line based.  '#' starts a comment line.  Keywords:

  source PATH              a noweb file, in the order notangle reads them
  identity NAME <EMAIL>    author, committer and signer of every patch
  date DATE                author and committer date of every patch
  base PACKAGE VERSION     the Debian package the series is made against
  file OUT = CHUNK         tangled/OUT is the expansion of CHUNK
  patch CHUNK              next patch of the series: CHUNK is its edit script
  cover CHUNK              the cover letter of the series
  continued CHUNK          CHUNK may be defined in several places (noweb
                           joins them in source order); any other chunk
                           defined twice is an error of the lint

Every line names its problem with the file and line: a line that is not
UTF-8 or ends in CRLF, a source, patch or file listed twice, a file
outside tangled/.  load() also reads every source for the same two
faults of text (source_problems()), so that no verb meets them later as
a traceback.
"""

import os
import re

from . import config


class ConfError(Exception):
    pass


def text_lines(name, data):
    """Yield (line number, text) of data, the bytes of file name; ConfError
    at the first line that is not UTF-8 or ends in CR LF."""
    for no, raw in enumerate(data.split(b"\n"), 1):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ConfError(f"{name}:{no}: not UTF-8 (byte 0x{raw[e.start]:02x} at column "
                            f"{len(raw[:e.start].decode('utf-8', 'replace')) + 1}): "
                            "expected UTF-8 text")
        if line.endswith("\r"):
            raise ConfError(f"{name}:{no}: CR LF line end: expected LF alone "
                            "(convert the file with dos2unix)")
        yield no, line


class Conf:
    def __init__(self, path):
        self.path = path
        self.sources = []
        self.files = []        # (out, chunk)
        self.patches = []      # chunk names, in series order
        self.cover = None
        self.identity = None
        self.date = None
        self.base_package = None
        self.base_version = None
        self.continued = set()  # chunk names that may be defined more than once
        self._read()

    def _read(self):
        with open(self.path, "rb") as f:
            data = f.read()
        seen = {}
        for no, line in text_lines(self.path, data):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            key, _, rest = line.partition(" ")
            rest = rest.strip()
            where = f"{self.path}:{no}"
            if key in ("source", "patch", "file", "continued"):
                what = (key, rest.partition(" = ")[0].strip() if key == "file" else rest)
                if what in seen:
                    raise ConfError(f"{where}: '{key} {what[1]}' is already line "
                                    f"{seen[what]}: expected each {key} once")
                seen[what] = no
            self._line(key, rest, where)
        for need in ("identity", "date", "base_package", "cover"):
            if getattr(self, need) is None:
                raise ConfError(f"{self.path}: missing '{need.split('_')[0]}' line")
        if not self.sources:
            raise ConfError(f"{self.path}: no 'source' lines")

    def _line(self, key, rest, where):
        if key == "source":
            self.sources.append(rest)
        elif key == "continued":
            self.continued.add(rest)
        elif key == "file":
            out, eq, chunk = rest.partition(" = ")
            if not eq or not out or not chunk:
                raise ConfError(f"{where}: expected 'file OUT = CHUNK'")
            out = out.strip()
            norm = os.path.normpath(out)
            if os.path.isabs(out) or norm == ".." or norm.startswith("../") or \
                    norm.split("/")[0] in ("patches", "."):
                raise ConfError(f"{where}: file {out}: expected a path inside tangled/ "
                                "(relative, no '..', not under patches/)")
            self.files.append((norm, chunk.strip()))
        else:
            self._meta_line(key, rest, where)

    def _meta_line(self, key, rest, where):
        if key == "identity":
            if not re.fullmatch(r"[^<>]+ <[^<>@\s]+@[^<>\s]+>", rest):
                raise ConfError(f"{where}: expected 'identity NAME <EMAIL>'")
            self.identity = rest
        elif key == "date":
            self.date = rest
        elif key == "base":
            parts = rest.split()
            if len(parts) != 2:
                raise ConfError(f"{where}: expected 'base PACKAGE VERSION'")
            self.base_package, self.base_version = parts
        elif key == "patch":
            self.patches.append(rest)
        elif key == "cover":
            self.cover = rest
        else:
            raise ConfError(f"{where}: unknown keyword {key[:40]!r}")

    def source_problems(self):
        """file:line problems of the text of every source that exists: not
        UTF-8, CRLF line ends (one line per file, its first fault)."""
        out = []
        for src in self.sources:
            path = src if os.path.isabs(src) else config.top(src)
            try:
                with open(path, "rb") as f:
                    data = f.read()
            except OSError:
                continue            # the lint names missing sources
            try:
                for _ in text_lines(src, data):
                    pass
            except ConfError as e:
                out.append(str(e))
        return out

    @property
    def author_name(self):
        return self.identity.split(" <")[0]

    @property
    def author_email(self):
        return self.identity.split(" <")[1].rstrip(">")

    def named_chunks(self):
        """Every chunk the configuration names, with what it is for."""
        out = [(c, f"file {o}") for o, c in self.files]
        out += [(c, f"patch {i + 1}") for i, c in enumerate(self.patches)]
        out.append((self.cover, "cover letter"))
        return out


def load(path=None):
    """tangle.conf (or $TANGLE_CONF); one line naming the problem if bad."""
    path = path or os.environ.get("TANGLE_CONF") or config.top("tangle.conf")
    try:
        conf = Conf(path)
    except OSError as e:
        config.die("tangle.conf", f"{path}: {e.strerror}")
    except ConfError as e:
        raise SystemExit(str(e))
    bad = conf.source_problems()
    if bad:
        raise SystemExit(bad[0] + (f" (and {len(bad) - 1} more source(s) with such "
                                   "faults)" if len(bad) > 1 else ""))
    return conf
