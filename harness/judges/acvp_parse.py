# SPDX-License-Identifier: GPL-2.0-only
"""Read ACVP files (prompt.json, expectedResults.json, validation.json)
strictly: every problem is an AcvpError whose text is one line naming the
file and the JSON path ("$.testGroups[3].tests[7].nonce") of what is
wrong and what was expected there.  Nothing is guessed or skipped: a
malformed or truncated file, an algorithm or revision the registration
does not have, a length beyond what ACVP or the kernel allows, a field
missing from a test case or a value that does not match its group's
length all stop the run before anything is written.

parse_prompt() returns plain data:

    {"path", "algorithm", "revision", "vsId", "isSample", "family":
     "drbg" | "sha3", "groups": [{"tgId", "testType", "where", ..., "tests":
     [{"tcId", "where", ...}]}]}

A DRBG test case carries "flow": the kernel request's shape taken from
its otherInput entries in order (an optional "reSeed" entry first, then
exactly two "generate" entries: the first generate's output is
discarded, the second is returnedBits), as the ACVP DRBG specification's
test procedures (drbg/06-test-vectors.adoc) have them.
"""

import json
import json.scanner
import re
import sys

from ..base import files
from ..base.config import display

DRBG = ("hashDRBG", "hmacDRBG", "ctrDRBG")
DRBG_LENGTHS = ("entropyInputLen", "nonceLen", "persoStringLen", "additionalInputLen",
                "returnedBitsLen")
SHA3_TYPES = ("AFT", "MCT", "LDT")
# A file larger than this is refused unread; arrays and objects nested
# deeper than MAX_DEPTH are refused before Python's parser recurses
# (ACVP's files nest five deep).
MAX_BYTES = 64 << 20
MAX_DEPTH = 64


class AcvpError(Exception):
    def __init__(self, path, where, msg):
        super().__init__(f"{display(path)}: {where}: {msg}")


def path_at(text, pos):
    """The JSON path of the value being read at offset pos of text."""
    stack, i, in_str, esc, token = [], 0, False, False, []
    while i < min(pos, len(text)):
        ch = text[i]
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
                if stack and stack[-1][0] == "obj" and stack[-1][2]:
                    stack[-1][1] = "".join(token)
            else:
                token.append(ch)
        elif ch == '"':
            in_str, token = True, []
        elif ch == "{":
            stack.append(["obj", None, True])
        elif ch == "[":
            stack.append(["arr", 0])
        elif ch == ":" and stack and stack[-1][0] == "obj":
            stack[-1][2] = False
        elif ch == "," and stack:
            if stack[-1][0] == "obj":
                stack[-1][1:] = [None, True]
            else:
                stack[-1][1] += 1
        elif ch in "}]" and stack:
            stack.pop()
        i += 1
    out = "$"
    for f in stack:
        if f[0] == "arr":
            out += f"[{f[1]}]"
        elif f[1] is not None:
            out += f".{f[1]}"
    return out


def _at(text, pos):
    """Where offset pos of text is: its JSON path, line and column."""
    line, col = text.count("\n", 0, pos) + 1, pos - text.rfind("\n", 0, pos)
    return f"{path_at(text, pos)} (line {line} column {col})"


class _Duplicate(Exception):
    def __init__(self, key):
        super().__init__(key)
        self.key, self.pos = key, None


def _unique_pairs(pairs):
    seen = set()
    for k, _ in pairs:
        if k in seen:
            raise _Duplicate(k)
        seen.add(k)
    return dict(pairs)


def _duplicate_at(text):
    """(offset of the object, key) of the first key given twice in one
    object: Python's own scanner, which knows where each object starts."""
    dec = json.JSONDecoder(object_pairs_hook=_unique_pairs)

    def parse_object(s_and_end, *rest):
        try:
            return json.decoder.JSONObject(s_and_end, *rest)
        except _Duplicate as e:
            e.pos = s_and_end[1] if e.pos is None else e.pos
            raise

    dec.parse_object = parse_object
    dec.scan_once = json.scanner.py_make_scanner(dec)
    try:
        dec.decode(text)
    except _Duplicate as e:
        return e.pos, e.key
    return 0, None


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_BRACKET = re.compile(r"[][{}]")


def _too_deep_at(text, limit=MAX_DEPTH):
    """The offset where text's arrays and objects nest deeper than limit,
    or None (strings blanked first, at the same offsets)."""
    bare, depth = _STRING.sub(lambda m: " " * len(m.group()), text), 0
    for m in _BRACKET.finditer(bare):
        depth += 1 if m.group() in "[{" else -1
        if depth > limit:
            return m.start()
    return None


def load(path):
    """The JSON value of path; AcvpError for a missing, unreadable, empty,
    malformed or truncated file, one that is not a regular file of at most
    MAX_BYTES (a FIFO is refused, not waited on), a key given twice in one
    object, a number of more digits than Python reads, or arrays and
    objects nested deeper than MAX_DEPTH."""
    raw, why = files.read_regular(path, MAX_BYTES, "JSON file")
    if why:
        raise AcvpError(path, "$", why)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise AcvpError(path, "$", f"not UTF-8 (byte {e.start}): expected JSON")
    if not text.strip():
        raise AcvpError(path, "$", "the file is empty: expected a JSON object")
    deep = _too_deep_at(text)
    if deep is not None:
        raise AcvpError(path, f"line {text.count(chr(10), 0, deep) + 1}",
                        f"arrays and objects nested more than {MAX_DEPTH} deep: "
                        "expected ACVP's JSON")
    try:
        return json.loads(text, object_pairs_hook=_unique_pairs)
    except _Duplicate:
        pos, key = _duplicate_at(text)
        raise AcvpError(path, _at(text, pos), f"the key {key!r} is given twice in this "
                        "object: expected each key once") from None
    except json.JSONDecodeError as e:
        where = f"{path_at(text, e.pos)} (line {e.lineno} column {e.colno})"
        if not text[e.pos:].strip() or e.msg.startswith("Unterminated string"):
            raise AcvpError(path, where, "the file ends inside the JSON (truncated?)")
        raise AcvpError(path, where, f"malformed JSON: {e.msg}")
    except ValueError:
        # int() refuses a number of more than sys.get_int_max_str_digits()
        m = re.search(r"\d{%d,}" % (sys.get_int_max_str_digits() + 1), text)
        pos, digits = (m.start(), len(m.group())) if m else (0, "too many")
        raise AcvpError(path, _at(text, pos), f"a number of {digits} digits: expected "
                        "ACVP's numbers") from None


class Reader:
    """Typed access to one file's JSON, every error with its path."""

    def __init__(self, path):
        self.path = path

    def fail(self, where, msg):
        raise AcvpError(self.path, where, msg)

    def get(self, obj, key, where, kind, optional=False, default=None):
        if not isinstance(obj, dict):
            self.fail(where, f"expected a JSON object, found {type(obj).__name__}")
        if key not in obj:
            if optional:
                return default
            self.fail(f"{where}.{key}", f"missing: expected {kind.__name__}")
        v = obj[key]
        if kind is int and (not isinstance(v, int) or isinstance(v, bool)):
            self.fail(f"{where}.{key}", f"{v!r}: expected an integer")
        elif kind is not int and isinstance(kind, type) and not isinstance(v, kind):
            self.fail(f"{where}.{key}", f"{v!r}: expected {kind.__name__}")
        return v

    def hexbytes(self, obj, key, where, nbits):
        """The bytes of a hex field that must hold nbits bits."""
        v = self.get(obj, key, where, str)
        if not re.fullmatch(r"(?:[0-9A-Fa-f]{2})*", v):
            self.fail(f"{where}.{key}", "expected hex digits, two per byte")
        b = bytes.fromhex(v)
        if len(b) != (nbits + 7) // 8 and not (nbits == 0 and len(b) == 1):
            self.fail(f"{where}.{key}", f"{8 * len(b)} bits of hex, but the length "
                      f"says {nbits} bits")
        return b[:(nbits + 7) // 8]


def _unique(r, seen, value, where, what):
    if value in seen:
        r.fail(where, f"{what} {value} also at {seen[value]}")
    seen[value] = where


def parse_prompt(path, known, limits):
    """A prompt.json: known is {(algorithm, revision)} of the registration;
    limits: {"max_bits": longest string ACVP allows, "returned_max": ...,
    "out_max_bits": the kernel's longest output, "sha3_max": ...}."""
    r = Reader(path)
    data = load(path)
    if isinstance(data, list):     # [{"acvVersion": ...}, {the vector set}]
        data = next((x for x in data if isinstance(x, dict) and "testGroups" in x), None)
    alg = r.get(data, "algorithm", "$", str)
    rev = r.get(data, "revision", "$", str)
    if not any(a == alg for a, _ in known):
        r.fail("$.algorithm", f"unknown algorithm {alg!r}: the registration has "
               f"{', '.join(sorted({a for a, _ in known}))}")
    if (alg, rev) not in known:
        r.fail("$.revision", f"unknown revision {rev!r} of {alg}: the registration has "
               f"{', '.join(sorted(v for a, v in known if a == alg))}")
    vs = {"path": path, "algorithm": alg, "revision": rev,
          "vsId": r.get(data, "vsId", "$", int),
          "isSample": r.get(data, "isSample", "$", bool, optional=True, default=False),
          "family": "drbg" if alg in DRBG else "sha3", "groups": []}
    groups = r.get(data, "testGroups", "$", list)
    tg_seen, tc_seen = {}, {}
    for gi, g in enumerate(groups):
        where = f"$.testGroups[{gi}]"
        tg = {"tgId": r.get(g, "tgId", where, int), "where": where,
              "testType": r.get(g, "testType", where, str)}
        _unique(r, tg_seen, tg["tgId"], f"{where}.tgId", "tgId")
        tests = r.get(g, "tests", where, list)
        if vs["family"] == "drbg":
            drbg_group(r, g, tg, limits, alg)
        else:
            sha3_group(r, g, tg)
        tg["tests"] = []
        for ti, t in enumerate(tests):
            tw = f"{where}.tests[{ti}]"
            tc = {"tcId": r.get(t, "tcId", tw, int), "where": tw}
            _unique(r, tc_seen, tc["tcId"], f"{tw}.tcId", "tcId")
            if vs["family"] == "drbg":
                drbg_test(r, t, tg, tc)
            else:
                sha3_test(r, t, tg, tc, limits)
            tg["tests"].append(tc)
        vs["groups"].append(tg)
    return vs


def drbg_group(r, g, tg, limits, alg):
    w = tg["where"]
    if tg["testType"] != "AFT":
        r.fail(f"{w}.testType", f"{tg['testType']!r}: a DRBG test group is 'AFT'")
    tg["mode"] = r.get(g, "mode", w, str)
    tg["derFunc"] = r.get(g, "derFunc", w, bool, optional=alg != "ctrDRBG", default=False)
    tg["predResistance"] = r.get(g, "predResistance", w, bool)
    tg["reSeed"] = r.get(g, "reSeed", w, bool)
    for key in DRBG_LENGTHS:
        tg[key] = r.get(g, key, w, int)
        most = limits["returned_max"] if key == "returnedBitsLen" else limits["max_bits"]
        if not 0 <= tg[key] <= most:
            r.fail(f"{w}.{key}", f"{tg[key]} bits: ACVP allows 0 to {most}")
    if tg["returnedBitsLen"] == 0:
        r.fail(f"{w}.returnedBitsLen", "0 bits: the kernel refuses a zero-length "
               "generate (crypto_rng_generate() returns -EINVAL)")
    if tg["returnedBitsLen"] > limits["out_max_bits"]:
        r.fail(f"{w}.returnedBitsLen", f"{tg['returnedBitsLen']} bits: the kernel's "
               f"test interface returns at most {limits['out_max_bits']} bits")
    tg["counterFieldLen"] = r.get(g, "counterFieldLen", w, int, optional=True)


def drbg_test(r, t, g, tc):
    w = tc["where"]
    tc["entropyInput"] = r.hexbytes(t, "entropyInput", w, g["entropyInputLen"])
    tc["nonce"] = r.hexbytes(t, "nonce", w, g["nonceLen"])
    tc["persoString"] = r.hexbytes(t, "persoString", w, g["persoStringLen"])
    other = r.get(t, "otherInput", w, list)
    uses = []
    for i, o in enumerate(other):
        ow = f"{w}.otherInput[{i}]"
        use = r.get(o, "intendedUse", ow, str)
        if use not in ("reSeed", "generate"):
            r.fail(f"{ow}.intendedUse", f"{use!r}: expected 'reSeed' or 'generate'")
        entropy_bits = g["entropyInputLen"] if use == "reSeed" or g["predResistance"] \
            else 0
        uses.append((use, r.hexbytes(o, "additionalInput", ow, g["additionalInputLen"]),
                     r.hexbytes(o, "entropyInput", ow, entropy_bits)))
    shape = [u for u, _, _ in uses]
    want = (["reSeed"] if g["reSeed"] and not g["predResistance"] else []) + \
        ["generate", "generate"]
    if shape != want and shape != ["reSeed", "generate", "generate"]:
        r.fail(f"{w}.otherInput", f"intendedUse {', '.join(shape) or 'none'}: a group "
               f"with predResistance {g['predResistance']} and reSeed {g['reSeed']} "
               f"expects {', '.join(want)}")
    if shape[0] == "reSeed" and not g["reSeed"]:
        r.fail(f"{w}.otherInput[0]", "a reSeed entry in a group with reSeed false")
    gen = uses[-2:]
    tc["flow"] = {"reseed": uses[0][1:] if shape[0] == "reSeed" else None,
                  "additional": [a for _, a, _ in gen],
                  "entropy_pr": [e for _, _, e in gen]}


def sha3_group(r, g, tg):
    w = tg["where"]
    if tg["testType"] not in SHA3_TYPES:
        r.fail(f"{w}.testType", f"{tg['testType']!r}: a SHA3 test group is one of "
               f"{', '.join(SHA3_TYPES)}")
    if tg["testType"] == "MCT":
        tg["mctVersion"] = r.get(g, "mctVersion", w, str, optional=True,
                                 default="standard")


def sha3_test(r, t, g, tc, limits):
    w = tc["where"]
    if g["testType"] == "LDT":
        m = r.get(t, "largeMsg", w, dict)
        mw = f"{w}.largeMsg"
        lm = {"contentLength": r.get(m, "contentLength", mw, int),
              "fullLength": r.get(m, "fullLength", mw, int),
              "expansionTechnique": r.get(m, "expansionTechnique", mw, str)}
        if lm["contentLength"] <= 0 or lm["fullLength"] < lm["contentLength"]:
            r.fail(mw, f"contentLength {lm['contentLength']}, fullLength "
                   f"{lm['fullLength']}: expected 0 < contentLength <= fullLength")
        lm["content"] = r.hexbytes(m, "content", mw, lm["contentLength"])
        tc["largeMsg"] = lm
        return
    tc["len"] = r.get(t, "len", w, int)
    if not 0 <= tc["len"] <= limits["sha3_max"]:
        r.fail(f"{w}.len", f"{tc['len']} bits: ACVP allows 0 to {limits['sha3_max']}")
    tc["msg"] = r.hexbytes(t, "msg", w, tc["len"])


def _answer(r, g, t, w, family):
    if family == "drbg":
        return r.hexbytes(t, "returnedBits", w, g["returnedBitsLen"])
    if g["testType"] == "MCT":
        arr = r.get(t, "resultsArray", w, list)
        return [bytes.fromhex(r.get(x, "md", f"{w}.resultsArray[{i}]", str))
                for i, x in enumerate(arr)]
    md = r.get(t, "md", w, str)
    if not re.fullmatch(r"(?:[0-9A-Fa-f]{2})+", md):
        r.fail(f"{w}.md", "expected hex digits, two per byte")
    return bytes.fromhex(md)


def parse_expected(path, vs):
    """{tcId: expected answer} of an expectedResults.json for vector set vs:
    bytes (returnedBits, md) or a list of bytes (an MCT's mds)."""
    r = Reader(path)
    data = load(path)
    if isinstance(data, list):
        data = next((x for x in data if isinstance(x, dict) and "testGroups" in x), None)
    if r.get(data, "vsId", "$", int) != vs["vsId"]:
        r.fail("$.vsId", f"{data['vsId']}: the prompt's vsId is {vs['vsId']}")
    groups = {g["tgId"]: g for g in vs["groups"]}
    cases = {t["tcId"]: g for g in vs["groups"] for t in g["tests"]}
    out = {}
    for gi, g in enumerate(r.get(data, "testGroups", "$", list)):
        w = f"$.testGroups[{gi}]"
        tg = r.get(g, "tgId", w, int)
        if tg not in groups:
            r.fail(f"{w}.tgId", f"{tg}: the prompt has no such test group")
        for ti, t in enumerate(r.get(g, "tests", w, list)):
            tw = f"{w}.tests[{ti}]"
            tc = r.get(t, "tcId", tw, int)
            if cases.get(tc) is not groups[tg]:
                r.fail(f"{tw}.tcId", f"{tc}: test group {tg} of the prompt has no such "
                       "test case")
            out[tc] = _answer(r, groups[tg], t, tw, vs["family"])
    return out


def parse_validation(path):
    """(disposition, {tcId: result}) of a server's validation.json."""
    r = Reader(path)
    data = load(path)
    disp = r.get(data, "disposition", "$", str)
    out = {}
    for i, t in enumerate(r.get(data, "tests", "$", list)):
        out[r.get(t, "tcId", f"$.tests[{i}]", int)] = r.get(t, "result", f"$.tests[{i}]",
                                                             str)
    return disp, out
