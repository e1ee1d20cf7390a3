# SPDX-License-Identifier: GPL-2.0-only
"""The command line: a program that is not installed is one line naming it
and what installs it, never a traceback; any other missing file is left to
the verb; every guest is stopped whatever happens."""

import subprocess
import sys
import unittest
from unittest import mock

from harness import __main__ as cli
from harness.base import config


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


class LazyVerbTest(unittest.TestCase):
    """python3 -m harness VERB imports the one module that registers VERB;
    the table saying which does is the modules' own registrations."""

    def test_table_is_what_the_modules_register(self):
        import argparse
        import importlib
        seen = {}
        for name in cli.STAGES:
            sub = argparse.ArgumentParser().add_subparsers()
            importlib.import_module(f"harness.stages.{name}").register(sub)
            for verb in sub.choices:
                seen[verb] = name
        self.assertEqual(seen, cli.VERBS)
        self.assertEqual(set(cli.VERBS.values()), set(cli.STAGES))

    def test_one_verb_imports_one_stage(self):
        code = ("import sys; from harness import __main__ as m; m.parser('tangle'); "
                "print(' '.join(sorted(k for k in sys.modules if k.startswith('harness.stages.'))))")
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           cwd=config.TOP)
        self.assertEqual(r.returncode, 0, r.stderr)
        loaded = r.stdout.split()
        self.assertIn("harness.stages.tangle", loaded)
        for other in ("harness.stages.acvp", "harness.stages.conform", "harness.stages.bench"):
            self.assertNotIn(other, loaded)

    def test_help_lists_every_verb(self):
        text = cli.parser().format_help()
        for verb in cli.VERBS:
            self.assertIn(verb, text)
