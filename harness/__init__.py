# SPDX-License-Identifier: GPL-2.0-only
"""The host side of the literate DRBG: one package, one command line.

    python3 -m harness VERB [options]        (the Makefile calls it)

Three layers; a module imports only from its own layer or the ones below:

  base     configuration, the kernel cache and builds, QEMU, the
           initramfs, the guest /init, noweb, the Check type and the
           report writer
  judges   turn what a boot or a host run left behind into Checks:
           KUnit, seed lengths, trace replay, CAVS, kmemleak, kernel-log
           reports, hardening, figures, the SP 800-90A model
  stages   the verbs: tangle, drift, kernel, conform, check, book, bench,
           and the others listed by `python3 -m harness --help`

The book stage reads data files (report.json, bench.json, figures/*.json)
and imports no judge.
"""
