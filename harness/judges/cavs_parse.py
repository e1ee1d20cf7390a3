# SPDX-License-Identifier: GPL-2.0-only
"""Read NIST CAVS DRBG response files (.rsp) and say what Linux 6.1 can run.

A CAVS DRBG file is a sequence of groups.  A group opens with a section line
naming the algorithm (``[SHA-256]``, ``[AES-128 use df]``), then parameter
lines (``[PredictionResistance = False]``, ``[EntropyInputLen = 256]``, ...,
lengths in bits), then records.  A record starts with ``COUNT = n`` and
carries ``Name = hex`` values; an empty value is written ``Name = `` and is
the empty string.  COUNT starts again at 0 in every group, so a record is
named by its file and the line of its COUNT.

What a record asks for depends on its *kind*, which this module decides
from the content, never from the directory name:

- ``pr_true``: the group says ``[PredictionResistance = True]``; the record
  has EntropyInput, Nonce, PersonalizationString, then twice
  AdditionalInput + EntropyInputPR, then ReturnedBits;
- ``pr_false``: prediction resistance False, and the records carry
  EntropyInputReseed and AdditionalInputReseed (an explicit reseed right
  after instantiate);
- ``no_reseed``: prediction resistance False, no reseed values.

The mechanism (Hash_DRBG, HMAC_DRBG or CTR_DRBG) comes from the file's
``# <mechanism> options:`` comment, else from the file name; CTR sections
name their cipher, so they need neither.

Bad input never stops the parse: every problem becomes a ``ParseError``
naming file and line and what was expected there; the record (or group)
it spoils is not run, every other record still parses.  Both CRLF and LF
line endings are accepted.

Each section is classified: *applicable* (Linux 6.1's crypto/drbg.c has it;
the record then has a kernel driver name such as ``drbg_nopr_hmac_sha256``)
or *skipped*, with the reason.  Skipped records are still parsed and
counted, never silently dropped.

The same parser reads NIST's intermediate-value files (``.txt``) when asked
(``intermediate=True``): the ``** STEP:`` lines and the tab-indented working
state after them are then kept in ``Record.steps``.
"""

import os
import re

from .cavs_input import find_files, read_file, safe_name  # noqa: F401 (API)
from .cavs_records import (ALL_FIELDS, CTR_SECTIONS, FIELDS, LENGTH_PARAM, MECHANISMS, PARAMS, Group,
                           ParsedFile, ParseError, Record, known_section_names,
                           section_for)


_SECTION_RE = re.compile(r"^\[([^\]=]*)\]$")
_PARAM_RE = re.compile(r"^\[\s*([A-Za-z]+)\s*=\s*([^\]]*?)\s*\]$")
_VALUE_RE = re.compile(r"^([A-Za-z][A-Za-z0-9]*)\s*=\s?(.*)$")
_STEP_RE = re.compile(r"^\*\*\s*(.+?):?\s*$")
_STATE_RE = re.compile(r"^[ \t]+([A-Za-z][A-Za-z ]*?)\s*=\s*(\S*)\s*$")
_OPTIONS_RE = re.compile(r"^#\s*(Hash_DRBG|HMAC_DRBG|CTR_DRBG)\s+options\s*:",
                         re.I | re.M)
# COUNT and the [..Len] values: decimal, at most this many digits (a
# length of 10**9 bits is already far beyond what the interface takes).
MAX_DIGITS = 9


def number(text):
    """(int, None) for a decimal number of at most MAX_DIGITS digits, else
    (None, what is wrong with it); never int() of a thousand digits."""
    if not text or not all(c in "0123456789" for c in text):
        return None, "expected a decimal number"
    if len(text) > MAX_DIGITS:
        return None, (f"a number of {len(text)} digits: expected at most "
                      f"{MAX_DIGITS}")
    return int(text), None


def shown(text, n=24):
    """text for a message: cut to n characters, saying how long it was."""
    return text if len(text) <= n else f"{text[:n]}... ({len(text)} characters)"


def parse_hex(text):
    """bytes from hex, or a message saying what is wrong with it."""
    for i, ch in enumerate(text):
        if ch not in "0123456789abcdefABCDEF":
            return None, (f"bad hex digit {ch!r} at position {i + 1}: "
                          "expected 0-9 or a-f")
    if len(text) % 2:
        return None, (f"odd number of hex digits ({len(text)}): "
                      "expected whole bytes, two digits each")
    return bytes.fromhex(text), None


def mechanism_from_name(path):
    base = os.path.basename(path).lower()
    for m in MECHANISMS:
        if m.lower() in base:
            return m
    return None


class _Parser:
    def __init__(self, path, data, intermediate, mechanism):
        self.path = path
        self.intermediate = intermediate
        self.out = ParsedFile(path)
        m = _OPTIONS_RE.search(data.decode("ascii", "replace"))
        if m:
            mechanism = next(x for x in MECHANISMS if x.lower() == m.group(1).lower())
        self.out.mechanism = mechanism
        if data.endswith(b"\n"):
            data = data[:-1]
            self.final_newline = True
        else:
            self.final_newline = False
        self.lines = data.split(b"\n") if data else []
        self.group = None
        self.record = None
        self.rec_errors = 0
        self.rejected = set()       # fields of the record whose value was refused
        self.step = None

    def error(self, line, message):
        if line == len(self.lines) and not self.final_newline and self.lines:
            message += " (the file ends inside this line: truncated?)"
        self.out.errors.append(ParseError(self.path, line, message))

    def rec_error(self, line, message):
        self.error(line, message)
        self.rec_errors += 1

    # --- records -------------------------------------------------------

    def close_record(self, eof_line=None):
        rec = self.record
        if rec is None:
            return
        self.record = None
        if self.group.bad:
            self.out.bad_records += 1
            return
        kind = self.record_kind(rec)
        # A value rejected on its own line has been reported there; it is
        # not also missing (nor is its record "cut off").
        missing = [f"{name}" + (f" (x{n}, found {len(rec.values.get(name, []))})"
                                if n > 1 else "")
                   for name, n in FIELDS[kind].items()
                   if len(rec.values.get(name, [])) < n and name not in self.rejected]
        if missing:
            where = (f"record cut off by the end of the file at line {eof_line} "
                     "(truncated?)" if eof_line else "incomplete record")
            self.rec_error(rec.line, f"{where}: missing {', '.join(missing)} "
                           f"(a {kind} record needs {self.expected_fields(kind)})")
        for name, vals in rec.values.items():
            allowed = FIELDS[kind].get(name, 0)
            if allowed == 0:
                self.rec_error(rec.value_lines[name][0],
                               f"{name} does not belong in a {kind} record "
                               f"(expected {self.expected_fields(kind)})")
            elif len(vals) > allowed:
                self.rec_error(rec.value_lines[name][allowed],
                               f"{name} appears {len(vals)} times, expected "
                               f"{allowed}")
        if self.group.kind is None and not self.rec_errors:
            self.group.kind = kind
        elif self.group.kind and kind != self.group.kind and not missing:
            self.rec_error(rec.line, f"the fields make this a {kind} record, but "
                           f"the group at line {self.group.line} holds "
                           f"{self.group.kind} records (expected "
                           f"{self.expected_fields(self.group.kind)})")
        if self.rec_errors:
            self.out.bad_records += 1
            return
        rec.kind = kind
        self.out.records.append(rec)

    @staticmethod
    def expected_fields(kind):
        return ", ".join(f"{n}" + (f" x{c}" if c > 1 else "")
                         for n, c in FIELDS[kind].items())

    def record_kind(self, rec):
        if self.group.prediction_resistance:
            return "pr_true"
        if "EntropyInputReseed" in rec.values or "AdditionalInputReseed" in rec.values:
            return "pr_false"
        return "no_reseed"

    def value(self, no, name, text):
        rec = self.record
        if name not in ALL_FIELDS:
            self.rec_error(no, f"unknown field {shown(name)!r}: expected one of "
                           f"{', '.join(ALL_FIELDS)}")
            return
        data, why = parse_hex(text)
        if why:
            self.rejected.add(name)
            self.rec_error(no, f"{name}: {why}")
            return
        param = LENGTH_PARAM[name]
        want = self.group.params.get(param)
        if want is not None and len(data) * 8 != want:
            self.rejected.add(name)
            self.rec_error(no, f"{name} is {len(data) * 8} bits but "
                           f"[{param} = {want}] (line {self.group.param_lines[param]}) "
                           f"says {want}")
            return
        rec.values.setdefault(name, []).append(data)
        rec.value_lines.setdefault(name, []).append(no)

    # --- groups --------------------------------------------------------

    def close_group(self):
        g = self.group
        if g is not None and not g.bad and g.count == 0:
            self.error(g.line, f"the group [{g.name}] has no records: expected "
                       "COUNT = 0 and its values after the [..] lines (truncated?)")

    def open_group(self, no, name):
        self.close_record()
        self.close_group()
        g = Group(self.path, no, name)
        mech = self.out.mechanism
        if mech is None and name in CTR_SECTIONS:
            mech = self.out.mechanism = "CTR_DRBG"
        if mech is None:
            g.bad = True
            self.error(no, f"cannot tell which mechanism [{shown(name)}] belongs to: "
                       "expected a '# Hash_DRBG options: ...' (or HMAC_DRBG, "
                       "CTR_DRBG) comment or the mechanism in the file name")
        else:
            g.section = section_for(mech, name)
            if g.section is None:
                g.bad = True
                self.error(no, f"unknown section [{shown(name)}] for {mech}: expected one of "
                           + ", ".join(f"[{n}]" for n in known_section_names(mech)))
        self.group = g
        self.out.groups.append(g)

    def param(self, no, name, text):
        g = self.group
        if g is None:
            self.error(no, f"[{shown(name)} = ...] before any section: expected a section "
                       "line such as [SHA-256] first")
            return
        if self.record is not None:
            self.close_record()
        if name not in PARAMS:
            g.bad = True
            self.error(no, f"unknown parameter [{shown(name)}]: expected one of "
                       + ", ".join(PARAMS))
            return
        if name == "PredictionResistance":
            if text not in ("True", "False"):
                g.bad = True
                self.error(no, f"[PredictionResistance = {shown(text)}]: expected "
                           "True or False")
                return
            value = text == "True"
        else:
            value, why = number(text)
            if why:
                g.bad = True
                self.error(no, f"[{name} = {shown(text)}]: {why} of bits")
                return
            if value % 8:
                g.bad = True
                self.error(no, f"[{name} = {value}]: expected a whole number of "
                           "bytes (a multiple of 8 bits)")
                return
        if name in g.params and g.params[name] != value:
            g.bad = True
            self.error(no, f"[{name} = {text}] contradicts line {g.param_lines[name]} "
                       f"of the same group ([{name} = {g.params[name]}]): expected "
                       "one value per group")
            return
        g.params[name] = value
        g.param_lines[name] = no

    # --- lines ---------------------------------------------------------

    def run(self):
        for no, raw in enumerate(self.lines, 1):
            if raw.endswith(b"\r"):
                raw = raw[:-1]
            try:
                ln = raw.decode("ascii")
            except UnicodeDecodeError:
                self.error(no, "not ASCII text: expected a CAVS line")
                if self.record is not None:
                    self.rec_errors += 1
                continue
            self.line(no, ln)
        self.close_record(eof_line=len(self.lines))
        self.close_group()
        if not self.out.groups and not self.out.errors:
            self.error(max(len(self.lines), 1),
                       "no [section] and no records: expected a CAVS DRBG file")
        return self.out

    def line(self, no, ln):
        stripped = ln.strip()
        if self.intermediate and self.record is not None:
            m = _STEP_RE.match(ln)
            if m:
                self.step = (m.group(1), {})
                self.record.steps.append(self.step)
                return
            m = _STATE_RE.match(ln)
            if m and self.step is not None:
                name, text = m.group(1), m.group(2)
                if name == "reseed counter":
                    value, why = number(text)
                    if why:
                        self.rec_error(no, f"{name} = {shown(text)}: {why}")
                    else:
                        self.step[1][name] = value
                else:
                    data, why = parse_hex(text)
                    if why:
                        self.rec_error(no, f"{name}: {why}")
                    else:
                        self.step[1][name] = data
                return
        if not stripped:
            return
        if stripped.startswith("#"):
            return
        m = _PARAM_RE.match(stripped)
        if m:
            self.param(no, m.group(1), m.group(2))
            return
        m = _SECTION_RE.match(stripped)
        if m:
            self.open_group(no, m.group(1).strip())
            return
        m = _VALUE_RE.match(stripped)
        if m:
            name, text = m.group(1), m.group(2).strip()
            if name == "COUNT":
                self.open_record(no, text)
                return
            if self.record is None:
                self.error(no, f"{shown(name)} outside a record: expected COUNT = n first")
                return
            if not self.group.bad:
                self.value(no, name, text)
            return
        self.error(no, f"unreadable line {stripped[:40]!r}: expected a comment, "
                   "[section], [Name = value], COUNT = n or Name = hex")
        if self.record is not None:
            self.rec_errors += 1

    def open_record(self, no, text):
        self.close_record()
        self.rec_errors = 0
        self.rejected = set()
        self.step = None
        if self.group is None:
            self.error(no, "COUNT before any section: expected a section line "
                       "such as [SHA-256] first")
            g = Group(self.path, no, "?", bad=True)
            self.group = g
        count, why = number(text)
        if why:
            self.rec_error(no, f"COUNT = {shown(text)}: {why}")
        elif self.group.count_lines.setdefault(count, no) != no:
            self.rec_error(no, f"COUNT = {count} again in the group "
                           f"[{shown(self.group.name)}] (first at line "
                           f"{self.group.count_lines[count]}): expected each COUNT once "
                           "in a group")
        if (not self.group.bad and "PredictionResistance" not in self.group.params):
            self.group.bad = True
            self.error(self.group.line, f"the group [{self.group.name}] has no "
                       "[PredictionResistance = True|False] line before its records")
        self.group.count += 1
        self.record = Record(self.path, no, -1 if count is None else count, self.group)


def parse_bytes(path, data, intermediate=False, mechanism=None):
    """Parse the contents of a CAVS file; path is only used in messages.

    mechanism is the fallback when the file has no '# ... options:' line."""
    return _Parser(path, data, intermediate, mechanism).run()


def parse_file(path, intermediate=False, name=None):
    """Parse one file; name (default: path) is what messages call it.  A
    file that cannot be read (dangling link, FIFO, no permission) gives a
    ParsedFile with that one error and no record; it never blocks."""
    name = name or safe_name(path)
    data, why = read_file(path)
    if why:
        out = ParsedFile(name)
        out.errors.append(ParseError(name, 0, why))
        return out
    return parse_bytes(name, data, intermediate, mechanism_from_name(path))
