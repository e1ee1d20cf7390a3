# SPDX-License-Identifier: GPL-2.0-only
"""What the CAVS tests share (test_cavs.py, test_cavs_pack.py): slices of
the NIST files, files written with chosen line ends, and the result lines
a guest would send."""

import os

from harness.base import config

TOP = config.TOP
NIST = os.path.join(TOP, "vectors/cavs")
EXTRA = os.path.join(TOP, "vectors/extra")
GUEST = os.path.join(TOP, "conformance/guest")


def nist_head(rel="pr_false/HMAC_DRBG.rsp", nrec=3):
    """The comments, first group and first nrec records of a NIST file,
    as a list of lines without line ends."""
    with open(os.path.join(NIST, rel), "rb") as f:
        lines = f.read().decode("ascii").split("\r\n")
    counts = [i for i, ln in enumerate(lines) if ln.startswith("COUNT = ")]
    return lines[:counts[nrec]]


def write_lines(d, name, lines, eol="\r\n", final_eol=True):
    path = os.path.join(d, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write((eol.join(lines) + (eol if final_eol else "")).encode())
    return path


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def line_of(lines, prefix, nth=0):
    """1-based line number of the nth line starting with prefix."""
    hits = [i + 1 for i, ln in enumerate(lines) if ln.startswith(prefix)]
    return hits[nth]


def fake_guest(meta, failing=()):
    """Result lines a guest would send if the records at indices `failing`
    (into meta["records"]) failed and everything else passed."""
    out = [{"type": "check", "id": "cavs.interface", "status": "pass"}]
    per = {}
    for ri, r in enumerate(meta["records"]):
        p = per.setdefault(r["section"], [0, 0])
        sel = meta["sections"][r["section"]]["selftest"]
        bad = (ri in failing) != sel
        p[1 if bad else 0] += 1
        if bad:
            exp = bytes.fromhex(r["expected"])
            got = bytearray(exp)
            got[-1] ^= 1
            out.append({"type": "cavs_fail", "f": r["file"], "line": r["line"],
                        "s": r["section"], "len": len(exp), "err": 0, "step": 0,
                        "at": len(exp) - 1, "from": 0, "expected": exp.hex()[:512],
                        "got": bytes(got).hex()[:512]})
    for si, (p, f) in per.items():
        out.append({"type": "cavs_section", "s": si, "passed": p, "failed": f, "us": 1})
    out.append({"type": "cavs_done", "records": len(meta["records"]), "us": 5,
                "passed": sum(p for p, _ in per.values()),
                "failed": sum(f for _, f in per.values())})
    return out


def by_id(checks):
    """{id: Check} of a judge's checks."""
    return {c.id: c for c in checks}
