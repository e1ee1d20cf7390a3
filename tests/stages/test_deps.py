# SPDX-License-Identifier: GPL-2.0-only
"""tools/deps.sh asks dpkg-query once for the whole list and installs
exactly the packages it did not report installed.  dpkg-query and
apt-get are stand-ins on PATH here: the first answers from a list, the
second records what it was asked to install."""

import os
import shutil
import subprocess
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

DPKG_QUERY = r"""#!/bin/bash
# The stand-in dpkg-query: -W -f FORMAT PKG...; installed packages and
# their versions are the lines "name version" of $FAKE/installed.
echo "$*" >> "$FAKE/dpkg-query.calls"
fmt=$2; shift 2; rc=0
for p in "$@"; do
	v=$(awk -v p="$p" '$1 == p { print $2 }' "$FAKE/installed")
	if [ -z "$v" ]; then echo "dpkg-query: no packages found matching $p" >&2; rc=1; continue; fi
	case "$fmt" in
	*Status*) printf '%s install ok installed\n' "$p" ;;
	*) printf '%s' "$v" ;;
	esac
done
exit $rc
"""

APT_GET = """#!/bin/bash
echo "$*" >> "$FAKE/apt-get.calls"
"""


class DepsTest(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="deps-")
        self.addCleanup(shutil.rmtree, self.d)
        for name, text in (("dpkg-query", DPKG_QUERY), ("apt-get", APT_GET), ("id", "#!/bin/sh\necho 0\n")):
            path = os.path.join(self.d, name)
            with open(path, "w") as f:
                f.write(text)
            os.chmod(path, 0o755)
        with open(os.path.join(TOP, "tangle.conf")) as f:
            base = next(ln.split() for ln in f if ln.startswith("base "))
        self.pinned = f"{base[1]} {base[2]}\nlinux-config-6.1 {base[2]}\n"

    def run_deps(self, installed, group="build"):
        with open(os.path.join(self.d, "installed"), "w") as f:
            f.write(installed)
        env = dict(os.environ, FAKE=self.d, PATH=self.d + ":" + os.environ["PATH"])
        r = subprocess.run([os.path.join(TOP, "tools/deps.sh"), group], env=env,
                           capture_output=True, text=True, timeout=60)
        calls = {}
        for name in ("dpkg-query", "apt-get"):
            path = os.path.join(self.d, f"{name}.calls")
            if os.path.exists(path):
                with open(path) as f:
                    calls[name] = f.read().splitlines()
            else:
                calls[name] = []
        return r, calls

    def wanted(self, group):
        """The package names of group, as dpkg-query was asked for them."""
        _, calls = self.run_deps("", group)
        status = [c for c in calls["dpkg-query"] if "Status" in c]
        self.assertEqual(len(status), 1, calls["dpkg-query"])
        return status[0].split()[3:]

    def test_all_present_one_query(self):
        want = self.wanted("build")
        self.assertIn("lz4", want)
        os.unlink(os.path.join(self.d, "dpkg-query.calls"))
        os.unlink(os.path.join(self.d, "apt-get.calls"))
        r, calls = self.run_deps("".join(f"{p} 1\n" for p in want) + self.pinned)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("deps (build): all present", r.stdout)
        self.assertEqual(sum("Status" in c for c in calls["dpkg-query"]), 1)
        self.assertEqual(calls["apt-get"], [])

    def test_installs_exactly_the_missing(self):
        want = self.wanted("book")
        os.unlink(os.path.join(self.d, "apt-get.calls"))
        gone = {want[0], want[-1]}
        r, calls = self.run_deps("".join(f"{p} 1\n" for p in want if p not in gone), "book")
        self.assertEqual(r.returncode, 0, r.stderr)
        install = [c for c in calls["apt-get"] if c.split()[:1] == ["install"]]
        self.assertEqual(len(install), 1, calls["apt-get"])
        asked = [w for w in install[0].split() if not w.startswith("-")][1:]
        self.assertEqual(sorted(asked), sorted(gone))


if __name__ == "__main__":
    unittest.main()
