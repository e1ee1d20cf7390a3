# SPDX-License-Identifier: GPL-2.0-only
"""CAVS records to a pack for the guest, and the guest's results to checks.

``prepare(vector_dirs, outdir)`` parses every .rsp file under the given
directories (cavs_parse.py), runs every applicable record
through the host model (drbg_model.py), and writes
``outdir/cavs.pack``, which the guest runner (conformance/guest/cavs.c)
reads from /data/cavs.pack.  cavs_judge.checks(guest_records, meta)
turns the guest's result lines, the parse errors and the model's results
into checks.

The kernel's test interface
---------------------------
debugfs file /sys/kernel/debug/drbg_cavp/run; write() takes one request
and runs it, read() from offset 0 returns the response.  Little-endian.

Request (116-byte header, then the nine strings back to back)::

    0    char[4]   "DCV1"
    4    u32       total_len      whole message, <= 1 MiB
    8    u32       flags          bit0 RESEED, bit1 PR
    12   u32       out_len        bytes per Generate, 1..262144
    16   char[64]  driver         NUL padded
    80   u32[9]    len            EntropyInput, Nonce, PersonalizationString,
                                  EntropyInputReseed, AdditionalInputReseed,
                                  AdditionalInput1, AdditionalInput2,
                                  EntropyInputPR1, EntropyInputPR2
    116  bytes     the nine strings in that order

Response::

    0    char[4]   "DCR1"
    4    s32       err            0 or -errno
    8    u32       step           0 none, 1 alloc, 2 instantiate, 3 reseed,
                                  4 generate 1, 5 generate 2
    12   u32       out_len
    16   bytes     out1, out2     out_len bytes each, only when err == 0

The pack (version 1; also described in conformance/guest/cavs.h)
----------------------------------------------------------------
All integers are little-endian u32; there is no padding::

    header
      char[4]  "DCPK"
      u32      version            1
      u32      nfiles
      u32      nsections
      u32      nrecords
      u32      records_offset     byte offset of the first record
    file table, nfiles times
      u32      name_len;  char name[name_len]        (no NUL)
    section table, nsections times
      u32      file               index into the file table
      u32      name_len;  char name[name_len]        "<kind>.<slug>"
    records (at records_offset), nrecords times
      u32      file               index into the file table
      u32      line               line of the record's COUNT in that file
      u32      section            index into the section table
      u32      req_len
      u32      exp_len            = out_len of the request
      u8       request[req_len]   the request message, written as is
      u8       expected[exp_len]  ReturnedBits: compared with out2
    trailer
      char[4]  "DCPE"
      u32      nrecords           again, so that a cut pack is noticed

A pack section is one (file, kind, CAVS section), e.g. the SHA-256 records
of pr_false/HMAC_DRBG.rsp; its check id is ``cavs.<kind>.<slug>``.  When a
later file (in VECTORS order) has the same kind and section, its check id
gets the file's slug appended (``cavs.pr_false.hmac-sha256.extra-...``),
so that the NIST ids stay the same whatever else is run.

The pack also carries one self-test record: a copy of the first applicable
record with one bit of its ReturnedBits flipped, in a file of its own
("selftest: ..."); the guest must report exactly that record as failing.

Guest result lines (conformance/guest/cavs.c, one JSON object per line)
----------------------------------------------------------------------
``{"type":"cavs_fail","f":F,"line":L,"s":S,"err":E,"step":T,"len":N,
"at":A,"from":O,"expected":HEX,"got":HEX}`` for a failing record (``stage``
instead of ``err``/``step`` when the harness itself failed: open, write,
read, response); ``{"type":"cavs_section","s":S,"f":F,"name":...,
"passed":P,"failed":X,"us":T}`` per pack section; ``{"type":"cavs_done",
"records":N,"passed":P,"failed":X,"us":T,"fail_lines_dropped":D}`` at the
end; and guest checks ``cavs.pack`` (the pack could not be read) and
``cavs.interface`` (pass, or skip when the debugfs file is missing).
"""

import os
import re
import struct
import time

from ..base import config
from ..base import files as base_files
from ..base.config import display
from . import cavs_parse as cavs
from . import drbg_model

REQ_MAGIC = b"DCV1"
RESP_MAGIC = b"DCR1"
PACK_MAGIC = b"DCPK"
PACK_END = b"DCPE"
PACK_VERSION = 1
REQ_HEADER = struct.Struct("<4sIII64s9I")
RESP_HEADER = struct.Struct("<4siII")
assert REQ_HEADER.size == 116 and RESP_HEADER.size == 16
MAX_REQUEST = 1 << 20
MAX_OUT = 262144
FLAG_RESEED = 1
FLAG_PR = 2
STEPS = {0: "none", 1: "alloc", 2: "instantiate", 3: "reseed",
         4: "generate 1", 5: "generate 2"}
FIELD_ORDER = ("EntropyInput", "Nonce", "PersonalizationString",
               "EntropyInputReseed", "AdditionalInputReseed", "AdditionalInput1",
               "AdditionalInput2", "EntropyInputPR1", "EntropyInputPR2")
DEFAULT_VECTORS = ("vectors/cavs", "vectors/extra")
WINDOW = 256    # bytes of expected/got shown for a failure


# ---------------------------------------------------------------------------
# Messages of the kernel's test interface

def encode_request(driver, flags, out_len, strings):
    """The request message; strings: the nine byte strings in FIELD_ORDER."""
    strings = [bytes(s) for s in strings]
    if len(strings) != 9:
        raise ValueError("a request carries exactly nine strings")
    name = driver.encode()
    if not name or len(name) >= 64:
        raise ValueError(f"driver name {driver!r}: 1 to 63 bytes")
    total = REQ_HEADER.size + sum(len(s) for s in strings)
    head = REQ_HEADER.pack(REQ_MAGIC, total, flags, out_len, name,
                           *[len(s) for s in strings])
    return head + b"".join(strings)


def decode_request(msg):
    """Check a request as the kernel must, and split it; ValueError if bad."""
    if len(msg) < REQ_HEADER.size:
        raise ValueError(f"request of {len(msg)} bytes: shorter than its header")
    magic, total, flags, out_len, name, *lens = REQ_HEADER.unpack_from(msg)
    if magic != REQ_MAGIC:
        raise ValueError(f"magic {magic!r}, expected {REQ_MAGIC!r}")
    if total != len(msg) or total > MAX_REQUEST:
        raise ValueError(f"total_len {total} but the message has {len(msg)} bytes")
    if total != REQ_HEADER.size + sum(lens):
        raise ValueError("the nine lengths do not add up to total_len")
    if flags & ~(FLAG_RESEED | FLAG_PR):
        raise ValueError(f"unknown flags {flags:#x}")
    if not 1 <= out_len <= MAX_OUT:
        raise ValueError(f"out_len {out_len} not in 1..{MAX_OUT}")
    driver, nul, pad = name.partition(b"\0")
    if not driver or not nul or pad.strip(b"\0"):
        raise ValueError("driver is not a NUL-padded name")
    strings, off = [], REQ_HEADER.size
    for n in lens:
        strings.append(msg[off:off + n])
        off += n
    return {"driver": driver.decode(), "flags": flags, "out_len": out_len,
            "strings": dict(zip(FIELD_ORDER, strings))}


def encode_response(err, step, out_len, out1=b"", out2=b""):
    body = out1 + out2 if err == 0 else b""
    return RESP_HEADER.pack(RESP_MAGIC, err, step, out_len) + body


def request_strings(rec):
    """The nine strings of a parsed record, in FIELD_ORDER."""
    return [rec.entropy, rec.nonce, rec.pers, rec.entropy_reseed,
            rec.addtl_reseed, rec.addtl[0], rec.addtl[1], rec.entropy_pr[0],
            rec.entropy_pr[1]]


def request_flags(kind):
    return {"no_reseed": 0, "pr_false": FLAG_RESEED, "pr_true": FLAG_PR}[kind]


def request_for(rec):
    """The request message that runs one parsed record."""
    return encode_request(rec.driver, request_flags(rec.kind), rec.out_len,
                          request_strings(rec))


def model_for_request(msg):
    """Run a request message through the host model: (out1, out2)."""
    r = decode_request(msg)
    s = r["strings"]
    return drbg_model.run_request(
        r["driver"], r["flags"] & FLAG_RESEED, r["flags"] & FLAG_PR, r["out_len"],
        s["EntropyInput"], s["Nonce"], s["PersonalizationString"],
        s["EntropyInputReseed"], s["AdditionalInputReseed"],
        (s["AdditionalInput1"], s["AdditionalInput2"]),
        (s["EntropyInputPR1"], s["EntropyInputPR2"]))


# ---------------------------------------------------------------------------
# The pack

def _u32(v):
    return struct.pack("<I", v)


def write_pack(path, files, sections, records):
    """files: [name]; sections: [(file index, name)];
    records: [(file, line, section, request, expected)]."""
    head = bytearray()
    for name in files:
        b = name.encode()
        head += _u32(len(b)) + b
    for fi, name in sections:
        b = name.encode()
        head += _u32(fi) + _u32(len(b)) + b
    offset = 24 + len(head)
    out = bytearray(PACK_MAGIC + struct.pack("<5I", PACK_VERSION, len(files),
                                             len(sections), len(records), offset))
    out += head
    for fi, line, si, req, exp in records:
        out += struct.pack("<5I", fi, line, si, len(req), len(exp)) + req + exp
    out += PACK_END + _u32(len(records))
    base_files.write_bytes(path, bytes(out))
    return path


def read_pack(data):
    """The inverse of write_pack (for tests and debugging); ValueError if bad."""
    if data[:4] != PACK_MAGIC:
        raise ValueError("not a CAVS pack (magic)")
    version, nf, ns, nr, offset = struct.unpack_from("<5I", data, 4)
    if version != PACK_VERSION:
        raise ValueError(f"pack version {version}, expected {PACK_VERSION}")
    pos = 24
    files, sections, records = [], [], []
    for _ in range(nf):
        (n,) = struct.unpack_from("<I", data, pos)
        files.append(data[pos + 4:pos + 4 + n].decode())
        pos += 4 + n
    for _ in range(ns):
        fi, n = struct.unpack_from("<2I", data, pos)
        sections.append((fi, data[pos + 8:pos + 8 + n].decode()))
        pos += 8 + n
    if pos != offset:
        raise ValueError(f"tables end at {pos}, records_offset says {offset}")
    for _ in range(nr):
        fi, line, si, rl, el = struct.unpack_from("<5I", data, pos)
        pos += 20
        req, exp = data[pos:pos + rl], data[pos + rl:pos + rl + el]
        if len(req) != rl or len(exp) != el:
            raise ValueError("pack cut off inside a record")
        records.append((fi, line, si, req, exp))
        pos += rl + el
    if data[pos:pos + 4] != PACK_END or struct.unpack_from("<I", data, pos + 4)[0] != nr:
        raise ValueError("pack trailer missing or wrong")
    if pos + 8 != len(data):
        raise ValueError("bytes after the pack trailer")
    return files, sections, records


# ---------------------------------------------------------------------------
# prepare(): parse, model, pack

def _resolve(d):
    if os.path.isabs(d) or os.path.exists(d):
        return d
    return config.top(d)


def vector_dirs_from_env(value=None):
    """VECTORS (colon-separated); empty or unset: the default set."""
    value = os.environ.get("VECTORS", "") if value is None else value
    dirs = [d for d in value.split(":") if d.strip()]
    return [_resolve(d) for d in dirs] if dirs else [_resolve(d) for d in DEFAULT_VECTORS]


def _file_slug(path, vector_dir, taken):
    base = os.path.basename(os.path.normpath(vector_dir)) if os.path.isdir(vector_dir) else ""
    rel = os.path.relpath(path, vector_dir) if os.path.isdir(vector_dir) else \
        os.path.basename(path)
    text = os.path.join(base, rel) if base else rel
    text = re.sub(r"\.rsp$", "", text.lower())
    slug = re.sub(r"[^a-z0-9_]+", "-", text).strip("-") or "file"
    s, n = slug, 2
    while s in taken:
        s, n = f"{slug}-{n}", n + 1
    taken.add(s)
    return s


def _hex_window(data, start):
    return data[start:start + WINDOW].hex()


def _window_start(n, at):
    if n <= WINDOW:
        return 0
    return max(0, min(at - at % 16, n - WINDOW))


def _first_diff(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return min(len(a), len(b))


class _Packer:
    """The state of prepare(): the pack's tables and the meta data."""

    def __init__(self, vector_dirs):
        self.meta = {"files": [], "sections": [], "skipped": [], "records": [],
                     "problems": [], "vector_dirs": [cavs.safe_name(display(d)) for d in vector_dirs]}
        self.files, self.sections, self.records = [], [], []
        self.section_index = {}    # (file index, kind, slug) -> pack section index
        self.used_ids, self.slugs = set(), set()
        self.model_time = 0.0

    def section(self, fi, rec, path, slug, vdir):
        """The pack section of a record, made on its first record."""
        key = (fi, rec.kind, rec.section.slug)
        if key not in self.section_index:
            self.section_index[key] = len(self.sections)
            base = f"{rec.kind}.{rec.section.slug}"
            sid = _unique_id(f"cavs.{base}", slug, self.used_ids)
            self.sections.append((fi, base))
            self.meta["sections"].append({
                "id": sid, "model_id": sid.replace("cavs.", "cavs.model.", 1),
                "file": fi, "path": display(path), "kind": rec.kind,
                "slug": rec.section.slug, "driver": rec.driver,
                "title": f"{rec.section.mechanism} {rec.section.name}, "
                         f"{rec.kind} ({display(path)})",
                "records": 0, "model_failures": [], "selftest": False,
                "vector_dir": display(vdir)})
        return self.section_index[key]

    def record(self, fi, si, rec):
        """Run one record through the host model and add it to the pack."""
        sec = self.meta["sections"][si]
        sec["records"] += 1
        t1 = time.time()
        try:
            got, model_err = drbg_model.run_record(rec)[1], None
        except Exception as e:     # a model bug must show as a failure
            got, model_err = b"", f"{type(e).__name__}: {e}"
        self.model_time += time.time() - t1
        ri = len(self.records)
        self.meta["records"].append({"file": fi, "line": rec.line, "section": si,
                                     "where": rec.where, "lengths": rec.lengths(),
                                     "expected": rec.returned.hex(),
                                     "model_ok": got == rec.returned})
        if got != rec.returned:
            sec["model_failures"].append(
                _failure(self.meta, ri, rec.returned, got,
                         {"model_error": model_err} if model_err else {}))
        self.records.append((fi, rec.line, si, request_for(rec), rec.returned))

    def add_file(self, path, problem, slug, vdir):
        name = cavs.safe_name(display(path))
        finfo = {"path": name, "slug": slug, "errors": [], "records": 0,
                 "applicable": 0, "skipped": 0, "bad_records": 0, "kinds": []}
        self.meta["files"].append(finfo)
        if problem:
            finfo["errors"].append(f"{name}: {problem}")
            return
        parsed = cavs.parse_file(path, name=name)
        finfo.update(errors=[str(e) for e in parsed.errors], kinds=parsed.kinds,
                     bad_records=parsed.bad_records, records=len(parsed.records))
        fi = finfo["pack_index"] = len(self.files)
        self.files.append(name)
        for rec in parsed.records:
            if not rec.section.applicable:
                finfo["skipped"] += 1
                _count_skipped(self.meta, (fi, rec.kind, rec.section.slug), rec, slug,
                               self.used_ids)
                continue
            problem = _unrunnable(rec)
            if problem:
                finfo["errors"].append(f"{rec.where}: {problem}")
                finfo["bad_records"] += 1
                continue
            finfo["applicable"] += 1
            self.record(fi, self.section(fi, rec, path, slug, vdir), rec)


def prepare(vector_dirs, outdir):
    """Parse, run the model, write outdir/cavs.pack.  Returns (pack, meta).

    meta is plain data (JSON-serialisable) that cavs_judge.checks() needs."""
    t0 = time.time()
    os.makedirs(outdir, exist_ok=True)
    p = _Packer(vector_dirs)
    vdir_of = {}
    for d in vector_dirs:
        for path, _, _ in cavs.find_files([d]):
            vdir_of.setdefault(path, d)
    for path, _, problem in cavs.find_files(vector_dirs):
        vdir = vdir_of.get(path, os.path.dirname(path))
        p.add_file(path, problem, _file_slug(path, vdir, p.slugs), vdir_of.get(path, path))
    _add_selftest(p.meta, p.files, p.sections, p.records)
    meta = p.meta
    meta["model_seconds"] = round(p.model_time, 2)
    pack = write_pack(os.path.join(outdir, "cavs.pack"), p.files, p.sections, p.records)
    meta["pack"] = pack
    meta["pack_bytes"] = os.path.getsize(pack)
    meta["prepare_seconds"] = round(time.time() - t0, 2)
    return pack, meta


def _unrunnable(rec):
    """Why the test interface cannot take this record, or None."""
    if not 1 <= rec.out_len <= MAX_OUT:
        return (f"ReturnedBits of {rec.out_len} bytes: the test interface takes "
                f"1 to {MAX_OUT} bytes per Generate")
    size = REQ_HEADER.size + sum(len(s) for s in request_strings(rec))
    if size > MAX_REQUEST:
        return (f"the request would be {size} bytes: the test interface takes "
                f"at most {MAX_REQUEST}")
    return None


def _unique_id(base, file_slug, used):
    cid = base if base not in used else f"{base}.{file_slug}"
    n = 2
    while cid in used:
        cid, n = f"{base}.{file_slug}-{n}", n + 1
    used.add(cid)
    return cid


def _count_skipped(meta, key, rec, file_slug, used_ids):
    for s in meta["skipped"]:
        if s["key"] == list(key):
            s["records"] += 1
            return
    base = f"{rec.kind}.{rec.section.slug}"
    meta["skipped"].append({
        "key": list(key), "id": _unique_id(f"cavs.{base}", file_slug, used_ids),
        "path": rec.path,
        "kind": rec.kind, "slug": rec.section.slug,
        "title": f"{rec.section.mechanism} {rec.section.name}, {rec.kind} "
                 f"({rec.path})",
        "reason": rec.section.skip_reason, "records": 1})


def _failure(meta, ri, expected, got, extra):
    """A failure entry: file:line, section, lengths, expected and got (hex)."""
    r = meta["records"][ri]
    sec = meta["sections"][r["section"]]
    at = _first_diff(expected, got)
    start = _window_start(len(expected), at)
    f = {"record": r["where"], "section": sec["title"], "driver": sec["driver"],
         "lengths": r["lengths"], "first_difference_at": at,
         "shown_from": start, "expected": _hex_window(expected, start),
         "got": _hex_window(got, start)}
    f.update(extra)
    return f


def _add_selftest(meta, files, sections, records):
    """A copy of the first applicable record with one flipped bit."""
    for ri, r in enumerate(meta["records"]):
        fi, line, si, req, exp = records[ri]
        if not exp:
            continue
        bad = bytearray(exp)
        bad[-1] ^= 0x01
        src = meta["sections"][si]
        nfi = len(files)
        files.append(f"selftest: {r['where']} with bit 0 of its last "
                     "ReturnedBits byte flipped")
        nsi = len(sections)
        sections.append((nfi, "selftest.flipped-bit"))
        meta["sections"].append({
            "id": "cavs.selftest.flipped-bit", "model_id": None, "file": nfi,
            "path": files[-1], "kind": src["kind"], "slug": src["slug"],
            "driver": src["driver"], "records": 1, "model_failures": [],
            "title": "a copy of a record with one flipped bit of ReturnedBits "
                     "is caught and named", "selftest": True,
            "source": r["where"], "flipped_byte": len(exp) - 1})
        meta["records"].append({"file": nfi, "line": line, "section": nsi,
                                "where": r["where"] + " (flipped bit copy)",
                                "lengths": r["lengths"], "expected": bytes(bad).hex(),
                                "model_ok": False})
        records.append((nfi, line, nsi, req, bytes(bad)))
        return
