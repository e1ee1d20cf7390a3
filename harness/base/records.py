# SPDX-License-Identifier: GPL-2.0-only
"""The guest's results channel: one JSON object per line (results.log).

A line that is not JSON becomes a record {"type": "garbled"} with its
line number, so that a judge can report it rather than lose it.
"""

import json
import re


def read(results_path):
    recs = []
    try:
        with open(results_path, errors="replace") as f:
            for no, ln in enumerate(f, 1):
                ln = ln.strip()
                if not ln:
                    continue
                try:
                    rec = json.loads(ln)
                except (ValueError, RecursionError):
                    # (not JSON, a number of thousands of digits, or
                    # arrays nested deeper than Python's parser goes)
                    rec = None
                if not isinstance(rec, dict):
                    rec = {"type": "garbled", "line": no, "text": ln[:200]}
                recs.append(rec)
    except OSError:
        pass
    return recs


def allowlist(path):
    """[(regex, reason)] from a file of lines 'regex TAB reason' ('#' starts
    a comment line); an absent file allows nothing."""
    allow = []
    try:
        with open(path) as f:
            for ln in f:
                if ln.strip() and not ln.startswith("#"):
                    rx, _, why = ln.rstrip("\n").partition("\t")
                    allow.append((re.compile(rx), why))
    except FileNotFoundError:
        pass
    return allow
