# SPDX-License-Identifier: GPL-2.0-only
"""How a boot ended, judged from recorded logs.

A stand-in for qemu-system-x86_64 (first on PATH) replays a recorded
console log and results channel and exits as QEMU would (or hangs), so
that qemu.boot() classifies the ending as it does for a real guest and
boot.outcome() judges it against the plan entry: the guest's end marker
where a panic was expected, a panic where the end was expected, a panic
for another reason, a hang, a hang that never reached /init, QEMU
failing, and the results lines that are not JSON.
"""

import os
import shutil
import stat
import tempfile
import unittest
from unittest import mock

from harness.base import qemu, records
from harness.base.checks import Check
from harness.judges import boot

from . import logs

REPLAY = r"""#!/bin/bash
con= res=
while [ $# -gt 0 ]; do
	case "$1" in
	-serial) if [ -z "$con" ]; then con=${2#file:}; else res=${2#file:}; fi; shift ;;
	esac
	shift
done
[ -n "$REPLAY_CONSOLE" ] && cat "$REPLAY_CONSOLE" > "$con"
[ -n "$REPLAY_RESULTS" ] && printf '%s\n' "$REPLAY_RESULTS" > "$res"
[ -n "$REPLAY_HANG" ] && exec sleep 600
exit "${REPLAY_RC:-0}"
"""
END = '{"type":"begin"}\n{"type":"end"}'
PANIC_RE = r"jitterentropy: start-up test failed with error 2"


class BootOutcomeTest(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="boot-judge-")
        self.addCleanup(shutil.rmtree, self.d)
        bindir = os.path.join(self.d, "bin")
        os.makedirs(bindir)
        q = os.path.join(bindir, "qemu-system-x86_64")
        with open(q, "w") as f:
            f.write(REPLAY)
        os.chmod(q, stat.S_IRWXU)
        self.path = bindir + os.pathsep + os.environ["PATH"]

    def boot(self, spec, console=None, results="", rc=0, hang=False):
        env = {"PATH": self.path, "REPLAY_CONSOLE": logs.path(console) if console else "",
               "REPLAY_RESULTS": results, "REPLAY_RC": str(rc),
               "REPLAY_HANG": "1" if hang else ""}
        with mock.patch.dict(os.environ, env):
            b = qemu.boot(spec["name"], "bzImage", "initrd", "", os.path.join(
                self.d, spec["name"]), spec.get("timeout", 30), expect=spec["expect"])
        return b, {c.id: c for c in boot.outcome(b, spec)}

    def test_end_as_expected(self):
        b, cs = self.boot({"name": "main", "expect": "end"}, "main-console.log", END)
        self.assertEqual(b.outcome, "end")
        self.assertEqual(cs["boot.main"].status, "pass")

    def test_panic_where_the_end_was_expected(self):
        b, cs = self.boot({"name": "main", "expect": "end"},
                          "jitter-startup-fips-console.log")
        self.assertEqual(b.outcome, "panic")
        self.assertEqual(cs["boot.main"].status, "fail")
        self.assertIn("Kernel panic - not syncing: jitterentropy", cs["boot.main"].reason)
        self.assertTrue(cs["boot.main"].details["console_tail"])

    def test_expected_panic_and_its_reason(self):
        spec = {"name": "jsf", "expect": "panic", "panic_re": PANIC_RE}
        _, cs = self.boot(spec, "jitter-startup-fips-console.log")
        self.assertEqual([cs[k].status for k in ("boot.jsf", "boot.jsf.panic-reason")],
                         ["pass", "pass"])
        spec["panic_re"] = r"jitterentropy: permanent health test failure"
        _, cs = self.boot(spec, "jitter-startup-fips-console.log")
        self.assertEqual(cs["boot.jsf"].status, "pass")
        self.assertEqual(cs["boot.jsf.panic-reason"].status, "fail")

    def test_end_where_a_panic_was_expected(self):
        spec = {"name": "jsf", "expect": "panic", "panic_re": PANIC_RE}
        b, cs = self.boot(spec, "main-console.log", END)
        self.assertEqual(b.outcome, "end")
        self.assertEqual(cs["boot.jsf"].status, "fail")
        self.assertIn("expected a panic", cs["boot.jsf"].reason)
        self.assertEqual(cs["boot.jsf.panic-reason"].status, "fail")

    def test_stopped_without_end_marker(self):
        b, cs = self.boot({"name": "main", "expect": "end"}, "main-console.log",
                          '{"type":"begin"}')
        self.assertEqual(b.outcome, "no-end")
        self.assertEqual(cs["boot.main"].status, "fail")

    def test_hang_is_killed_and_reported(self):
        spec = {"name": "harness-hang", "expect": "hung", "timeout": 2}
        b, cs = self.boot(spec, "harness-hang-console.log", hang=True)
        self.assertEqual(b.outcome, "hung")
        self.assertEqual(cs["boot.harness-hang"].status, "pass")
        self.assertEqual(cs["boot.harness-hang.reached-init"].status, "pass")
        # A guest that hangs before /init: killed, but not the hang asked for.
        b, cs = self.boot(spec, "jitter-startup-fips-console.log", hang=True)
        self.assertEqual(cs["boot.harness-hang.reached-init"].status, "fail")
        # A guest that hangs where it should end.
        _, cs = self.boot({"name": "main", "expect": "end", "timeout": 2},
                          "main-console.log", hang=True)
        self.assertEqual(cs["boot.main"].status, "fail")
        self.assertIn("guest hung", cs["boot.main"].reason)

    def test_qemu_fails(self):
        b, cs = self.boot({"name": "main", "expect": "end"}, None, rc=1)
        self.assertEqual(b.outcome, "qemu-error")
        self.assertEqual(cs["boot.main"].status, "fail")

    def test_guest_records(self):
        results = "\n".join([
            '{"type":"check","id":"guest.a","status":"pass","n":3}',
            '{"type":"check","id":"guest.b","status":"fail","reason":"bad"}',
            '{"type":"check","id":"guest.c","status":"skip","reason":"no device"}',
            'not json {', '[1, 2]', '{"type":"end"}'])
        b, _ = self.boot({"name": "main", "expect": "end"}, "main-console.log", results)
        cs = {c.id: c for c in boot.guest(records.read(b.results), "main")}
        self.assertEqual({k: c.status for k, c in cs.items()}, {
            "guest.a": "pass", "guest.b": "fail", "guest.c": "skip",
            "boot.main.results-line-4": "fail", "boot.main.results-line-5": "fail"})
        self.assertEqual(cs["guest.a"].counts, {"n": 3})

    def test_hostile_results_lines_are_garbled_records(self):
        """a results line of 100,000 nested arrays or a 5,000-digit number is
        an unreadable line of its own, not an exception that loses the boot"""
        from harness.base import files
        path = os.path.join(self.d, "results.log")
        with open(path, "w") as f:
            f.write('{"type":"begin"}\n' + "[" * 100000 + "]" * 100000 + "\n"
                    + '{"n": ' + "9" * 5000 + "}\n" + '{"type":"end"}\n')
        recs = records.read(path)
        self.assertEqual([(r["type"], r.get("line")) for r in recs],
                         [("begin", None), ("garbled", 2), ("garbled", 3), ("end", None)])
        with open(path, "w") as f:
            f.write("[" * 100000 + "]" * 100000)
        self.assertIsNone(files.read_json(path, kind=list))

    def test_a_boot_reports_what_it_declares(self):
        """boot.<name>.produced: a guest that sent only its begin and end
        markers fails a boot that declares its checks (before, it passed);
        an id declared covers the ids under it; nothing declared, no check"""
        spec = {"name": "drbg", "expect": "end",
                "produces": ["guest.drbg.trace", "drbg.trace", "kunit.drbg_seed"]}
        b, _ = self.boot(spec, "main-console.log", END)
        got = boot.guest(records.read(b.results), "drbg")
        (c,) = boot.produced(got, spec)
        self.assertEqual((c.id, c.status), ("boot.drbg.produced", "fail"))
        self.assertEqual(c.reason, "guest.drbg.trace not reported; drbg.trace not "
                         "reported; kunit.drbg_seed not reported")
        self.assertEqual(c.counts, {"declared": 3, "missing": 3})
        got = [Check.passed("guest.drbg.trace", "t"),
               Check.passed("drbg.trace.drbg_pr_sha1", "t"),
               Check.failed("kunit.drbg_seed.instantiate_layout.drbg_pr_sha1", "t", "r")]
        (c,) = boot.produced(got, spec)
        self.assertEqual(c.status, "pass", c.reason)
        (c,) = boot.produced(got[:1] + [Check.passed("drbg.traced", "t")] + got[2:], spec)
        self.assertEqual(c.reason, "drbg.trace not reported")
        self.assertEqual(boot.produced(got, dict(spec, produces=[])), [])

    def test_console_patterns_have_ids_of_their_own(self):
        """Each pattern of a boot is a check of its own, the first named
        as before; one that the log lacks fails alone."""
        path = logs.path("main-console.log")
        cs = boot.console(path, "jitter", [r"jitterentropy: start-up test", r"Linux version",
                                           r"no such line in any log"])
        self.assertEqual([(c.id, c.status) for c in cs], [
            ("boot.jitter.console", "pass"), ("boot.jitter.console-2", "pass"),
            ("boot.jitter.console-3", "fail")])


if __name__ == "__main__":
    unittest.main()
