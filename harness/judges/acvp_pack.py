# SPDX-License-Identifier: GPL-2.0-only
"""The ACVP pack the guest runs (conformance/guest/acvp.c, boot mode
"acvp"), and the host model's answer to each of its entries.

The pack, version 1; integers little-endian, no padding::

    header    char[4] "ACPK"; u32 version = 1; u32 nentries
    entries   nentries x { u32 kind; u32 id; u32 len; u8 payload[len] }
    trailer   char[4] "ACPE"; u32 nentries

Kinds and payloads:

    1 DRBG        a request of the kernel's test interface (cavs_pack.py
                  documents it), run as is; the guest reports out2
    2 DRBG probe  the same, but the guest reports only how the kernel
                  took it (the write()'s result, err, step): a request
                  the kernel may refuse
    3 HASH        u32 nlen; char driver[nlen]; u8 msg[]: one digest
    4 HASH MCT    u32 nlen; char driver[nlen]; u32 version (0 standard,
                  1 alternate); u32 outer; u32 inner; u8 seed[]: the
                  SHA-3 Monte Carlo test of the ACVP SHA-3 specification
                  (sha3/04-testtypes.adoc), every outer result reported
    5 HASH LDT    u32 nlen; char driver[nlen]; u32 full_lo;
                  u32 full_hi; u8 content[]: the content repeated to
                  full bytes, streamed through one hash

Guest result lines (one JSON object each): {"type":"acvp","i":ID,...}
with "out" (DRBG: out2 in hex, when err is 0), "wrote", "err", "step"
(DRBG and probes), "md" (HASH, LDT), "mds" (MCT: the outer results
back to back), "us" (time), or "stage" and "err" when a system call
failed; then {"type":"acvp_done","entries":N,"us":T}.
"""

import hashlib
import os
import struct

from ..base import files
from . import cavs_pack

MAGIC, END, VERSION = b"ACPK", b"ACPE", 1
DRBG, DRBG_PROBE, HASH, HASH_MCT, HASH_LDT = 1, 2, 3, 4, 5
KINDS = {DRBG: "drbg", DRBG_PROBE: "drbg-probe", HASH: "hash", HASH_MCT: "hash-mct",
         HASH_LDT: "hash-ldt"}
MCT_VERSIONS = {"standard": 0, "alternate": 1}
# The SHA-3 MCT of ACVP (sha3/04-testtypes.adoc): 100 outer results, each
# after 1000 chained hashes.
MCT_OUTER, MCT_INNER = 100, 1000
# The guest reports a DRBG answer in one result line of 16 KiB at most.
MAX_ANSWER_BYTES = 4096


# ---------------------------------------------------------------------------
# Entries

def drbg_entry(driver, flags, out_len, strings, probe=False):
    req = cavs_pack.encode_request(driver, flags, out_len, strings)
    if not probe and not 1 <= out_len <= MAX_ANSWER_BYTES:
        raise ValueError(f"a DRBG answer of {out_len} bytes: the guest reports "
                         f"1 to {MAX_ANSWER_BYTES}")
    return (DRBG_PROBE if probe else DRBG), req


def _name(driver):
    b = driver.encode()
    return struct.pack("<I", len(b)) + b


def hash_entry(driver, msg):
    return HASH, _name(driver) + bytes(msg)


def mct_entry(driver, version, seed):
    return HASH_MCT, _name(driver) + struct.pack("<3I", MCT_VERSIONS[version], MCT_OUTER,
                                                 MCT_INNER) + bytes(seed)


def ldt_entry(driver, content, full_bytes):
    return HASH_LDT, _name(driver) + struct.pack("<2I", full_bytes & 0xffffffff,
                                                 full_bytes >> 32) + bytes(content)


def decode_entry(kind, payload):
    """The fields of an entry (the inverse of the *_entry functions)."""
    if kind in (DRBG, DRBG_PROBE):
        return cavs_pack.decode_request(payload)
    (n,) = struct.unpack_from("<I", payload)
    out = {"driver": payload[4:4 + n].decode()}
    rest = payload[4 + n:]
    if kind == HASH:
        out["msg"] = rest
    elif kind == HASH_MCT:
        v, outer, inner = struct.unpack_from("<3I", rest)
        out.update(version=v, outer=outer, inner=inner, seed=rest[12:])
    elif kind == HASH_LDT:
        lo, hi = struct.unpack_from("<2I", rest)
        out.update(full=lo | hi << 32, content=rest[8:])
    else:
        raise ValueError(f"unknown entry kind {kind}")
    return out


# ---------------------------------------------------------------------------
# The host model's answers

def hashlib_name(driver):
    """"sha3-256-generic" -> "sha3_256" (Python's hashlib)."""
    base = driver[:-len("-generic")] if driver.endswith("-generic") else driver
    return base.replace("-", "_")


def sha3(driver, msg):
    return hashlib.new(hashlib_name(driver), msg).digest()


def sha3_mct(driver, version, seed, outer=MCT_OUTER, inner=MCT_INNER):
    """The outer results of the ACVP SHA-3 Monte Carlo test."""
    h = hashlib_name(driver)
    out, md = [], bytes(seed)
    for _ in range(outer):
        if version == MCT_VERSIONS["standard"]:
            for _ in range(inner):
                md = hashlib.new(h, md).digest()
        else:
            n = len(seed)
            for _ in range(inner):
                msg = md[:n] if len(md) >= n else md + bytes(n - len(md))
                md = hashlib.new(h, msg).digest()
        out.append(md)
    return out


def ldt_message_chunks(content, full, chunk=1 << 20):
    """The LDT message (content repeated to full bytes) in pieces."""
    block = content * max(1, chunk // len(content))
    done = 0
    while done < full:
        n = min(len(block), full - done)
        yield block[:n]
        done += n


def sha3_ldt(driver, content, full):
    h = hashlib.new(hashlib_name(driver))
    for piece in ldt_message_chunks(content, full):
        h.update(piece)
    return h.digest()


def model_answer(kind, payload):
    """What the kernel must answer for an entry: bytes, a list of bytes
    (MCT), or None for a probe (which the kernel may refuse)."""
    if kind == DRBG_PROBE:
        return None
    if kind == DRBG:
        return cavs_pack.model_for_request(payload)[1]
    f = decode_entry(kind, payload)
    if kind == HASH:
        return sha3(f["driver"], f["msg"])
    if kind == HASH_MCT:
        return sha3_mct(f["driver"], f["version"], f["seed"], f["outer"], f["inner"])
    return sha3_ldt(f["driver"], f["content"], f["full"])


# ---------------------------------------------------------------------------
# The pack

def write_pack(path, entries):
    """entries: [(kind, payload)]; entry i gets id i."""
    out = bytearray(MAGIC + struct.pack("<2I", VERSION, len(entries)))
    for i, (kind, payload) in enumerate(entries):
        out += struct.pack("<3I", kind, i, len(payload)) + payload
    out += END + struct.pack("<I", len(entries))
    files.write_bytes(path, bytes(out))
    return path


def read_pack(data):
    """[(kind, id, payload)] of a pack; ValueError when it is not one."""
    if data[:4] != MAGIC or len(data) < 20:
        raise ValueError("not an ACVP pack (magic)")
    version, n = struct.unpack_from("<2I", data, 4)
    if version != VERSION:
        raise ValueError(f"pack version {version}, expected {VERSION}")
    pos, out = 12, []
    for _ in range(n):
        kind, eid, ln = struct.unpack_from("<3I", data, pos)
        payload = data[pos + 12:pos + 12 + ln]
        if len(payload) != ln:
            raise ValueError("pack cut off inside an entry")
        out.append((kind, eid, payload))
        pos += 12 + ln
    if data[pos:pos + 4] != END or struct.unpack_from("<I", data, pos + 4)[0] != n \
            or pos + 8 != len(data):
        raise ValueError("pack trailer missing or wrong")
    return out
