# SPDX-License-Identifier: GPL-2.0-only
"""The small book of the book tests (two files, a continued chunk, a
requirement, an edit script, a cover letter), and its series made by the
series stage on a small repository standing in for the kernel tree."""

import contextlib
import io
import os
import shutil
import subprocess
import tempfile
from unittest import mock

from harness.base import conf as confmod
from harness.base import config, kcache, nwbook
from harness.stages import series, tangle
from harness.stages.book import render

CONF = """\
source one.nw
source two.nw
identity Test Identity <test@example.org>
date 2026-12-01T00:00:00+00:00
base linux-source-6.1 6.1.192-3
file demo.c = demo.c
patch patch one
cover cover letter
"""

ONE = """\
# A chapter {#chap}

Prose about [[foo]], which `[[bar]]` calls.

::: {.requirement #req-demo source="test" impl="function [[foo]]" tests="t.one"}
[[foo]] returns one.
:::

::: {.requirement #req-gap source="test" impl="[[demo.c]] helpers"}
A requirement nobody tests.
:::

<<function [[foo]]>>=
int foo(void)
{
	return 1;
}
@

<<demo.c>>=
<<function [[foo]]>>
<<[[demo.c]] helpers>>
@
"""

TWO = """\
# Another chapter

<<[[demo.c]] helpers>>=
#define BAZ 2

@
More prose.
<<[[demo.c]] helpers>>=
static int bar(int x)
{
	return foo() @<< x;
}
@
<<patch one>>=
%% subject demo: one
%% write demo.c
<<demo.c>>
@
<<cover letter>>=
Subject line
Body.
@
"""


class Book:
    def __init__(self, one=ONE, two=TWO):
        self.dir = tempfile.mkdtemp(prefix="booktest-")
        for name, text in (("tangle.conf", CONF), ("one.nw", one), ("two.nw", two)):
            with open(os.path.join(self.dir, name), "w") as f:
                f.write(text)
        self.conf = confmod.Conf(os.path.join(self.dir, "tangle.conf"))

    def front_end(self):
        return nwbook.front_end(self.conf.sources, self.conf, cwd=self.dir)

    def renderer(self):
        return render.Renderer(self.dir, os.path.join(self.dir, "build/book"))

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def tangle_and_series(self):
        """tangled/ (the file outputs and the series) and the series' line
        map, as the tangle verb makes them, with a small git repository
        (one README, tagged pristine) standing in for the kernel tree, so
        that nothing touches the kernel cache.  Returns the line map's path."""
        repo = os.path.join(self.dir, "kernel")
        os.makedirs(repo)
        env = dict(os.environ, **kcache.ident_env(self.conf))
        with open(os.path.join(repo, "README"), "w") as f:
            f.write("a tree to patch\n")
        for cmd in (["init", "-q"], ["add", "README"], ["commit", "-q", "-m", "pristine"],
                    ["tag", "pristine"]):
            subprocess.run(["git", "-C", repo] + cmd, env=env, check=True,
                           capture_output=True)
        editdir = os.path.join(self.dir, "build/tangle/edits")
        lines = os.path.join(self.dir, "build/tangle/lines.json")
        with mock.patch.object(config, "TOP", self.dir), \
                mock.patch.object(kcache, "ensure_pristine",
                                  return_value=(self.conf.base_version, repo)), \
                contextlib.redirect_stdout(io.StringIO()):
            tangle.tangle(self.conf, os.path.join(self.dir, "tangled"), editdir)
            series.build(editdir, os.path.join(self.dir, "tangled/patches"), lines)
        return lines
