# SPDX-License-Identifier: GPL-2.0-only
"""SP 800-90B known answers: our assessor against NIST's reference output.

NIST's reference files (vectors/sp800-90b/reference/*.res) are the output
of `ea_non_iid -vv` from usnistgov/SP800-90B_EntropyAssessment: one value
per line, "<Track> <Estimator> Estimate: <label> = <value>".  Our assessor
(tangled/sp800-90b/assess.c, chapter "SP 800-90B entropy assessment")
writes JSON with the same values under stable keys; LABELS below is the
mapping, and the book prints it.

    parse_res(path)                  NIST's file -> dict (ResError on
                                     anything unexpected, naming file:line)
    compare(ours, ref)               -> [Value], every value NIST printed
    judge(stem, ours, ref)           -> Check entropy.kat.<stem>
    summary_entry(stem, ours, ref)   -> one file's row set for the book
    write_summary(path, entries)     build/entropy/kat/summary.json

Tolerances (the book's "How the known answers are judged"): integers
equal; booleans (p found, P_local computed) equal; reals within REL_REAL
relative, except the values in LOOSE, held to REL_LOOSE; every min-entropy,
H_original, H_bitstring and the assessed value also equal to SIG_DIGITS
significant digits.
"""

import json
import math
import os
import re

from ..base.checks import Check
from ..base import files

REL_REAL = 1e-9
REL_LOOSE = 1e-6
SIG_DIGITS = 6

# Values whose last digits depend on the order of floating-point
# operations in a way that cannot be reproduced without copying NIST's
# code: (estimator key, value key) -> why.  Held to REL_LOOSE.
LOOSE = {}

ESTIMATORS = ("mcv", "collision", "markov", "compression", "t_tuple", "lrs",
              "multi_mcw", "lag", "multi_mmc", "lz78y")

# NIST's estimator names, as its lines spell them.
NAMES = {
    "Most Common Value": "mcv",
    "Collision": "collision",
    "Markov": "markov",
    "Compression": "compression",
    "t-Tuple": "t_tuple",
    "LRS": "lrs",
    "MultiMCW Prediction": "multi_mcw",
    "Lag Prediction": "lag",
    "MultiMMC Prediction": "multi_mmc",
    "LZ78Y Prediction": "lz78y",
}

_PREDICTOR = {"C": ("C", int), "r": ("r", int), "N": ("N", int),
              "P_global": ("p_global", float),
              "P_global'": ("p_global_prime", float),
              "P_local": ("p_local", float)}

# NIST's line label -> (our JSON key, type), per estimator.
LABELS = {
    "mcv": {"Mode count": ("mode_count", int), "p-hat": ("p_hat", float),
            "p_u": ("p_u", float)},
    "collision": {"v": ("v", int), "Sum t_i": ("sum_t_i", int),
                  "X-bar": ("x_bar", float), "sigma-hat": ("sigma_hat", float),
                  "X-bar'": ("x_bar_prime", float), "p": ("p", float)},
    "markov": {"P_0": ("p_0", float), "P_1": ("p_1", float),
               "P_{0,0}": ("p_00", float), "P_{0,1}": ("p_01", float),
               "P_{1,0}": ("p_10", float), "P_{1,1}": ("p_11", float),
               "p-hat_max": ("p_hat_max", float)},
    "compression": {"X-bar": ("x_bar", float), "sigma-hat": ("sigma_hat", float),
                    "X-bar'": ("x_bar_prime", float), "p": ("p", float)},
    "t_tuple": {"t": ("t", int), "p-hat_max": ("p_hat_max", float),
                "p_u": ("p_u", float)},
    "lrs": {"u": ("u", int), "v": ("v", int), "p-hat": ("p_hat", float),
            "p_u": ("p_u", float)},
    "multi_mcw": _PREDICTOR, "lag": _PREDICTOR, "multi_mmc": _PREDICTOR,
    "lz78y": _PREDICTOR,
}
for _labels in LABELS.values():
    _labels["min entropy"] = ("min_entropy", float)

# Lines without "=": what they say about our keys.
FLAGS = {
    "Found p.": ("found_p", True),
    "Could Not Find p. Proceeding with the lower bound for p.": ("found_p", False),
    "P_local can't change the result.": ("p_local", None),
}

NUMBER = r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?"
RE_VALUE = re.compile(r"^(Literal|Bitstring) (.+?) Estimate: (.+?) = (%s)$" % NUMBER)
RE_FLAG = re.compile(r"^(Literal|Bitstring) (.+?) Estimate: (.+)$")
RE_OPEN = re.compile(r"^Opening file: '(.*)'$")
RE_LOADED = re.compile(r"^Loaded ([0-9]+) samples of ([0-9]+) distinct "
                       r"([0-9]+)-bit-wide symbols$")
RE_BITS = re.compile(r"^Number of Binary Symbols: ([0-9]+)$")
RE_TOTAL = re.compile(r"^(H_original|H_bitstring|Assessed min entropy)"
                      r"(?: Per Symbol)?(?::| =) (%s)$" % NUMBER)
SHORT_WARNING = "*** Warning: data contains less than 1000000 samples ***"


class ResError(ValueError):
    """A reference file that does not read as NIST's -vv output."""


def _number(text, kind):
    return int(text) if kind is int else float(text)


def parse_res(path):
    """NIST's reference output as a dict: file, samples, distinct,
    bits_per_symbol, bitstring_length, short, literal and bitstring
    ({estimator: {key: value}}, bitstring None when absent), H_original,
    H_bitstring (None when absent) and assessed."""
    out = {"file": None, "samples": None, "distinct": None,
           "bits_per_symbol": None, "bitstring_length": None, "short": False,
           "literal": {}, "bitstring": {}, "H_original": None,
           "H_bitstring": None, "assessed": None}
    try:
        with open(path, encoding="ascii") as f:
            lines = f.read().split("\n")
    except (OSError, UnicodeDecodeError) as e:
        raise ResError(f"{path}: cannot read: {e}") from None
    if lines and lines[-1] == "":
        lines.pop()
    for no, line in enumerate(lines, 1):
        where = f"{path}:{no}"
        if not line.strip():
            continue
        if line == SHORT_WARNING:
            out["short"] = True
            continue
        m = RE_OPEN.match(line)
        if m:
            out["file"] = m.group(1)
            continue
        m = RE_LOADED.match(line)
        if m:
            out["samples"], out["distinct"], out["bits_per_symbol"] = (
                int(m.group(1)), int(m.group(2)), int(m.group(3)))
            continue
        m = RE_BITS.match(line)
        if m:
            out["bitstring_length"] = int(m.group(1))
            continue
        m = RE_TOTAL.match(line)
        if m:
            if "Per Symbol" in line:
                continue
            key = {"H_original": "H_original", "H_bitstring": "H_bitstring",
                   "Assessed min entropy": "assessed"}[m.group(1)]
            if out[key] is not None:
                raise ResError(f"{where}: {m.group(1)} given twice")
            out[key] = float(m.group(2))
            continue
        m = RE_VALUE.match(line) or RE_FLAG.match(line)
        if not m:
            raise ResError(f"{where}: unexpected line: {line!r}")
        track, name = m.group(1).lower(), m.group(2)
        est = NAMES.get(name)
        if est is None:
            raise ResError(f"{where}: unknown estimator {name!r}")
        values = out[track].setdefault(est, {})
        if m.re is RE_VALUE:
            label = m.group(3)
            if label not in LABELS[est]:
                raise ResError(f"{where}: unknown value {label!r} of {name}")
            key, kind = LABELS[est][label]
            try:
                value = _number(m.group(4), kind)
            except ValueError:
                raise ResError(f"{where}: {label} = {m.group(4)!r} is not "
                               f"an {kind.__name__}") from None
        else:
            if m.group(3) not in FLAGS:
                raise ResError(f"{where}: unexpected line: {line!r}")
            key, value = FLAGS[m.group(3)]
        if key in values:
            raise ResError(f"{where}: {name} {key} given twice")
        values[key] = value
    for key in ("samples", "bits_per_symbol", "H_original", "assessed"):
        if out[key] is None:
            raise ResError(f"{path}: no {key} line")
    if not out["literal"]:
        raise ResError(f"{path}: no estimator lines")
    for track in ("literal", "bitstring"):
        for est, values in out[track].items():
            if "min_entropy" not in values:
                raise ResError(f"{path}: {track} {est} has no min entropy line")
    if not out["bitstring"]:
        out["bitstring"] = None
    return out


class Value:
    """One compared value: name, ours, NIST's, kind (int, bool, real,
    total), relative difference, tolerance and verdict."""

    def __init__(self, name, ours, nist, kind, tol=None):
        self.name, self.ours, self.nist, self.kind = name, ours, nist, kind
        self.rel = None
        self.tol = tol
        if kind in ("int", "bool", "null"):
            self.ok = ours == nist and type(ours) is type(nist)
            return
        if not isinstance(ours, (int, float)) or isinstance(ours, bool):
            self.ok = False
            return
        self.rel = rel_diff(ours, nist)
        self.ok = self.rel <= tol
        if kind == "total":
            self.ok = self.ok and same_digits(ours, nist, SIG_DIGITS)

    def to_dict(self):
        d = {"name": self.name, "ours": self.ours, "nist": self.nist,
             "kind": self.kind, "ok": self.ok}
        if self.rel is not None:
            d["rel_diff"] = self.rel
            d["tolerance"] = self.tol
        return d

    def __str__(self):
        if self.rel is not None:
            return (f"{self.name}: ours {self.ours!r}, NIST {self.nist!r} "
                    f"(relative difference {self.rel:.3g}, allowed {self.tol:g})")
        return f"{self.name}: ours {self.ours!r}, NIST {self.nist!r}"


def rel_diff(a, b):
    if a == b:
        return 0.0
    if not (math.isfinite(a) and math.isfinite(b)):
        return math.inf
    return abs(a - b) / max(abs(a), abs(b))


def same_digits(a, b, digits):
    """a and b agree to `digits` significant digits: their difference is
    at most half a unit in the last of those digits of the larger."""
    if a == b:
        return True
    big = max(abs(a), abs(b))
    return abs(a - b) <= 0.5 * 10 ** (math.floor(math.log10(big)) - digits + 1)


def _real_tol(est, key):
    return REL_LOOSE if (est, key) in LOOSE else REL_REAL


def compare(ours, ref):
    """Every value of NIST's reference output next to ours, as Values.
    ours is our assessor's JSON (a dict), ref what parse_res returned."""
    vals = [Value("samples", ours.get("samples"), ref["samples"], "int"),
            Value("bits_per_symbol", ours.get("bits_per_symbol"),
                  ref["bits_per_symbol"], "int")]
    if ref["distinct"] is not None:
        vals.append(Value("distinct_symbols", ours.get("distinct_symbols"),
                          ref["distinct"], "int"))
    for track in ("literal", "bitstring"):
        theirs = ref[track]
        mine = ours.get(track)
        if theirs is None:
            vals.append(Value(f"{track} (absent)", mine, None, "null"))
            continue
        if not isinstance(mine, dict):
            vals.append(Value(track, mine, "present", "null"))
            continue
        for est in ESTIMATORS:
            nist = theirs.get(est)
            me = mine.get(est)
            name = f"{track}.{est}"
            if nist is None:
                vals.append(Value(f"{name} (not applied)", me, None, "null"))
                continue
            if not isinstance(me, dict):
                vals.append(Value(name, me, "applied", "null"))
                continue
            for key, value in nist.items():
                full = f"{name}.{key}"
                mv = me.get(key, "missing")
                if key == "found_p":
                    vals.append(Value(full, mv, value, "bool"))
                elif value is None:
                    vals.append(Value(full, mv, None, "null"))
                elif isinstance(value, int):
                    vals.append(Value(full, mv, value, "int"))
                elif key == "min_entropy":
                    vals.append(Value(full, mv, value, "total",
                                      _real_tol(est, key)))
                else:
                    vals.append(Value(full, mv, value, "real",
                                      _real_tol(est, key)))
    for key in ("H_original", "H_bitstring", "assessed"):
        if ref[key] is None:
            vals.append(Value(f"{key} (absent)", ours.get(key), None, "null"))
        else:
            vals.append(Value(key, ours.get(key, "missing"), ref[key], "total",
                              REL_REAL))
    return vals


def counts_of(vals):
    reals = [v for v in vals if v.rel is not None]
    return {"integers": sum(v.kind == "int" for v in vals),
            "flags": sum(v.kind in ("bool", "null") for v in vals),
            "reals": len(reals),
            "worst_rel_diff": max((v.rel for v in reals), default=0.0),
            "disagree": sum(not v.ok for v in vals)}


def judge(stem, ours, ref_path):
    """The Check entropy.kat.<stem>: ours (our JSON as a dict, or None
    when the assessor failed, with the reason in ours_error) against the
    reference file at ref_path."""
    cid = f"entropy.kat.{stem}"
    title = f"SP 800-90B assessor agrees with NIST's reference output for {stem}"
    try:
        ref = parse_res(ref_path)
    except ResError as e:
        return Check.failed(cid, title, str(e), origin="host")
    if not isinstance(ours, dict):
        return Check.failed(cid, title, f"no result from our assessor: {ours}",
                            origin="host")
    vals = compare(ours, ref)
    bad = [v for v in vals if not v.ok]
    return Check.judge(cid, title, bad, origin="host", counts=counts_of(vals),
                       details={"reference": os.path.basename(ref_path),
                                "values": [v.to_dict() for v in vals]},
                       requirements=["req-entropy-kat"])


def summary_entry(stem, ours, ref_path, seconds=None):
    """One file for the book's table: per estimator and track our
    min-entropy and NIST's, then H_original, H_bitstring, assessed; agree
    is True when every compared value of the file is within tolerance."""
    ref = parse_res(ref_path)
    vals = compare(ours, ref)
    rows = []
    for track in ("literal", "bitstring"):
        if ref[track] is None:
            continue
        for est in ESTIMATORS:
            nist = ref[track].get(est)
            if nist is None:
                continue
            me = (ours.get(track) or {}).get(est) or {}
            prefix = f"{track}.{est}."
            rows.append({"track": track, "estimator": est,
                         "ours": me.get("min_entropy"),
                         "nist": nist["min_entropy"],
                         "agree": all(v.ok for v in vals
                                      if v.name.startswith(prefix))})
    totals = {}
    for key in ("H_original", "H_bitstring", "assessed"):
        totals[key] = {"ours": ours.get(key), "nist": ref[key],
                       "agree": all(v.ok for v in vals
                                    if v.name.split(" ")[0] == key)}
    c = counts_of(vals)
    entry = {"file": stem, "samples": ref["samples"],
             "bits_per_symbol": ref["bits_per_symbol"], "estimators": rows,
             "totals": totals, "integers": c["integers"], "reals": c["reals"],
             "worst_rel_diff": c["worst_rel_diff"],
             "agree": all(v.ok for v in vals)}
    if seconds is not None:
        entry["seconds"] = seconds
    return entry


def write_summary(path, entries, note=None):
    """Write the book's data file: {"tolerances", "files": [entry...]}."""
    data = {"tolerances": {"real": REL_REAL, "loose": REL_LOOSE,
                           "loose_values": sorted(f"{e}.{k}" for e, k in LOOSE),
                           "significant_digits": SIG_DIGITS},
            "files": entries}
    if note:
        data["note"] = note
    files.write_json(path, data)
    return path
