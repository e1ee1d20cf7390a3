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
"""

import os
import re

from . import config


class ConfError(Exception):
    pass


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
        self._read()

    def _read(self):
        with open(self.path, encoding="utf-8") as f:
            for no, line in enumerate(f, 1):
                line = line.rstrip("\n")
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                key, _, rest = line.partition(" ")
                rest = rest.strip()
                where = f"{self.path}:{no}"
                if key == "source":
                    self.sources.append(rest)
                elif key == "identity":
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
                elif key == "file":
                    out, eq, chunk = rest.partition(" = ")
                    if not eq or not out or not chunk:
                        raise ConfError(f"{where}: expected 'file OUT = CHUNK'")
                    self.files.append((out.strip(), chunk.strip()))
                elif key == "patch":
                    self.patches.append(rest)
                elif key == "cover":
                    self.cover = rest
                else:
                    raise ConfError(f"{where}: unknown keyword {key!r}")
        for need in ("identity", "date", "base_package", "cover"):
            if getattr(self, need) is None:
                raise ConfError(f"{self.path}: missing '{need.split('_')[0]}' line")
        if not self.sources:
            raise ConfError(f"{self.path}: no 'source' lines")

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
        return Conf(path)
    except (OSError, ConfError) as e:
        config.die("tangle.conf", str(e))
