# SPDX-License-Identifier: GPL-2.0-only
"""python3 -m harness VERB: the one command line of the harness.

Each stage module registers its verbs; `python3 -m harness --help` lists
them.  A verb returns its exit status; a one-line error (SystemExit with a
message) is printed as it is, and any QEMU the verb started is stopped.
"""

import argparse
import importlib
import os
import sys

from .base import qemu

# The stage modules, in the order --help lists their verbs, and the module
# that registers each verb.  `python3 -m harness VERB` imports only VERB's
# module: importing all of them took 0.3 s of every make step, and the
# one-chunk edit's path (tangle, kernel apply, kernel build, conform)
# starts four.  --help, or a verb not listed here, imports them all.
STAGES = ("tangle", "series", "kernel", "conform", "check", "checkpatch", "checkers",
          "prodconfig", "kconfig_matrix", "host_tests", "examples", "book.output",
          "book.check", "assess", "entropy", "bench", "bisect_series", "teeth",
          "gen_vectors", "mutants", "kmutants_run", "kmutants_shard", "acvp", "stress",
          "stress_shard", "evidence", "pud")
VERBS = {"tangle": "tangle", "lint": "tangle", "drift": "tangle", "series": "series",
         "kernel": "kernel", "conform": "conform", "check": "check", "skips": "check",
         "checkpatch": "checkpatch", "checkers": "checkers", "prodconfig": "prodconfig",
         "kconfig-matrix": "kconfig_matrix", "host-tests": "host_tests",
         "examples": "examples", "book": "book.output", "book-check": "book.check",
         "assess": "assess", "entropy-kat": "assess", "entropy": "entropy", "bench": "bench",
         "bisect": "bisect_series", "teeth": "teeth", "gen-vectors": "gen_vectors",
         "mutants-harness": "mutants", "mutants": "kmutants_run",
         "mutants-merge": "kmutants_shard", "acvp": "acvp",
         "acvp-registration": "acvp", "stress": "stress", "stress-merge": "stress_shard",
         "evidence": "evidence", "pud": "pud"}


def stages(verb=None):
    """The stage modules that register verb (all of them for None)."""
    names = (VERBS[verb],) if verb in VERBS else STAGES
    return [importlib.import_module(f"{__package__}.stages.{n}") for n in names]


def parser(verb=None):
    ap = argparse.ArgumentParser(
        prog="python3 -m harness",
        description="The literate DRBG's host side: tangle the book, build and "
                    "boot the kernel, judge what it did, render the book.")
    sub = ap.add_subparsers(dest="verb", metavar="VERB", required=True)
    for stage in stages(verb):
        stage.register(sub)
    return ap


PROGRAM_DIRS = ("/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/lib/noweb")


def missing_program(e):
    """Is this FileNotFoundError a program that is not installed?"""
    name = str(e.filename or "")
    return bool(name) and ("/" not in name or os.path.dirname(name) in PROGRAM_DIRS)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser(argv[0] if argv else None).parse_args(argv)
    try:
        return args.func(args) or 0
    except FileNotFoundError as e:
        # A program the verb runs is not installed (subprocess names it):
        # one line, not a traceback.  A missing data file is the verb's to
        # report, in its own words.
        if not missing_program(e):
            raise
        raise SystemExit(f"harness {args.verb}: {e.filename} is not installed: "
                         "run 'make deps' (and 'make deps-book' for the book)")
    finally:
        qemu.stop_all()


if __name__ == "__main__":
    sys.exit(main())
