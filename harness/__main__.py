# SPDX-License-Identifier: GPL-2.0-only
"""python3 -m harness VERB: the one command line of the harness.

Each stage module registers its verbs; `python3 -m harness --help` lists
them.  A verb returns its exit status; a one-line error (SystemExit with a
message) is printed as it is, and any QEMU the verb started is stopped.
"""

import argparse
import os
import sys

from .base import qemu
from .stages import (acvp, assess, bench, bisect_series, check, checkers, checkpatch, conform,
                     entropy, evidence, examples, gen_vectors, host_tests, kconfig_matrix,
                     kernel, kmutants_run, kmutants_shard, mutants, prodconfig, pud, series,
                     stress, stress_shard, tangle, teeth)
from .stages.book import check as book_check
from .stages.book import output as book

STAGES = (tangle, series, kernel, conform, check, checkpatch, checkers, prodconfig,
          kconfig_matrix, host_tests, examples, book, book_check, assess, entropy, bench, bisect_series, teeth,
          gen_vectors, mutants, kmutants_run, kmutants_shard, acvp, stress, stress_shard,
          evidence, pud)


def parser():
    ap = argparse.ArgumentParser(
        prog="python3 -m harness",
        description="The literate DRBG's host side: tangle the book, build and "
                    "boot the kernel, judge what it did, render the book.")
    sub = ap.add_subparsers(dest="verb", metavar="VERB", required=True)
    for stage in STAGES:
        stage.register(sub)
    return ap


PROGRAM_DIRS = ("/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/lib/noweb")


def missing_program(e):
    """Is this FileNotFoundError a program that is not installed?"""
    name = str(e.filename or "")
    return bool(name) and ("/" not in name or os.path.dirname(name) in PROGRAM_DIRS)


def main(argv=None):
    args = parser().parse_args(argv)
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
