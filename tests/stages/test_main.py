# SPDX-License-Identifier: GPL-2.0-only
"""The command line: a program that is not installed is one line naming it
and what installs it, never a traceback; any other missing file is left to
the verb; every guest is stopped whatever happens."""

import subprocess
import unittest
from unittest import mock

from harness import __main__ as cli


def fake_verb(cmd):
    def run(args):
        subprocess.run(cmd, capture_output=True)
        return 0
    return run


class MissingProgramTest(unittest.TestCase):
    def run_verb(self, cmd):
        args = mock.Mock(verb="lint", func=fake_verb(cmd))
        with mock.patch.object(cli, "parser") as p:
            p.return_value.parse_args.return_value = args
            return cli.main([])

    def test_program_not_installed_is_one_line(self):
        with self.assertRaises(SystemExit) as e:
            self.run_verb(["no-such-program-3f9a"])
        self.assertEqual(str(e.exception), "harness lint: no-such-program-3f9a is not "
                         "installed: run 'make deps' (and 'make deps-book' for the book)")

    def test_program_by_absolute_path(self):
        with self.assertRaises(SystemExit) as e:
            self.run_verb(["/usr/bin/no-such-program-3f9a"])
        self.assertIn("/usr/bin/no-such-program-3f9a is not installed", str(e.exception))

    def test_other_missing_file_is_not_hidden(self):
        with self.assertRaises(FileNotFoundError):
            self.run_verb(["/tmp/no/such/dir/tool"])

    def test_guests_stopped_on_any_exit(self):
        def boom(args):
            raise RuntimeError("verb failed")
        args = mock.Mock(verb="conform", func=boom)
        with mock.patch.object(cli, "parser") as p, \
                mock.patch.object(cli.qemu, "stop_all") as stop:
            p.return_value.parse_args.return_value = args
            with self.assertRaises(RuntimeError):
                cli.main([])
        stop.assert_called_once()
