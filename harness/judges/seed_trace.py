# SPDX-License-Identifier: GPL-2.0-only
"""Seed material of real seedings, recorded by the guest (drbg_trace.c),
and the DRBG's state right after instantiation.

For each DRBG instance the guest instantiates, reseeds and generates
through the test hooks, recording the bytes each seeding handed to the
DRBG's update.  This judge checks their layout against the book's (the
get_random_bytes() part first, the Jitter RNG's second, then the string)
and recomputes the output with the host's SP 800-90A model
(drbg_model.py) from those bytes alone: a kernel that seeded from other
bytes than it reports would give other output.
"""

import re

from ..base.checks import Check
from . import drbg_model
from .seeds import STRENGTH


def trace_layout_problems(rec, jent=True):
    """Check one trace record of drbg_trace.c against the book's layout;
    jent=False: the Jitter RNG is absent, so each seed is the
    get_random_bytes() part and the string alone."""
    m = re.match(r"drbg_(no)?pr_(\S+)$", rec["driver"])
    s = STRENGTH.get(m.group(2)) if m else None
    if not s:
        return [f"unknown driver {rec['driver']}"]
    pr = m.group(1) is None
    p = s + s // 2
    pers, addtl = bytes.fromhex(rec["pers"]), bytes.fromhex(rec["addtl"])
    seeds = [bytes.fromhex(x["hex"]) for x in rec["seeds"]]
    want = [(False, p, pers), (True, s, addtl)] + ([(True, s, b"")] if pr else [])
    problems = []
    if rec["err"]:
        return [f"kernel error {rec['err']} at step {rec['step']}"]
    if len(seeds) != len(want):
        return [f"{len(seeds)} seedings, expected {len(want)}"]
    nsrc = 2 if jent else 1
    for i, ((reseed, part, extra), x, seed) in enumerate(zip(want, rec["seeds"], seeds)):
        if bool(x["reseed"]) != reseed or x["len"] != nsrc * part + len(extra) \
                or len(seed) != x["len"]:
            problems.append(f"seeding {i}: reseed={x['reseed']} len={x['len']}, "
                            f"expected reseed={int(reseed)} "
                            f"len={nsrc * part + len(extra)}")
            continue
        grb, tail = seed[:part], seed[nsrc * part:]
        if tail != extra:
            problems.append(f"seeding {i}: does not end with the string given")
        if grb == b"\x5a" * part or grb == bytes(part):
            problems.append(f"seeding {i}: the get_random_bytes part is the "
                            "pattern or all zero")
        if not jent:
            continue
        jpart = seed[part:2 * part]
        if rec["pattern"] and jpart != b"\x5a" * part:
            problems.append(f"seeding {i}: bytes {part}..{2 * part} are not the "
                            "Jitter pattern")
        if not rec["pattern"] and jpart == b"\x5a" * part:
            problems.append(f"seeding {i}: real Jitter bytes equal the pattern")
        if not rec["pattern"] and jpart == bytes(part):
            problems.append(f"seeding {i}: the real Jitter part is all zero (a "
                            "cleared buffer handed over unread)")
    return problems


def replay_trace(driver, rec):
    """Recompute a trace's output with the host model from its seedings.

    Every seeding's material is the concatenation the update function
    received (entropy input, then the string), and the three mechanisms use
    only that concatenation, so each seeding is replayed as an
    instantiate or reseed whose entropy input is the whole material."""
    core, pr = drbg_model.parse_driver(driver)
    mech = drbg_model.CORES[core]()
    seeds = [bytes.fromhex(x["hex"]) for x in rec["seeds"]]
    if any(x["len"] != len(b) for x, b in zip(rec["seeds"], seeds)):
        return None    # a seeding longer than the hook stores
    mech.instantiate(seeds[0], b"", b"")
    for seed in seeds[1:]:
        mech.reseed(seed, b"")
    return mech.generate(len(rec["out"]) // 2, None)


def instantiated_state(driver, rec):
    """{name: (kernel's bytes, the model's bytes)} of the state right after
    instantiation, recomputed from the first seeding; {} when the trace
    carries no state.  Hash_DRBG: V and C; HMAC_DRBG: V and Key (the
    kernel's C); CTR_DRBG: V only, kept one ahead by the kernel (its Key
    lives in the cipher's key schedule)."""
    if not rec.get("v") or not rec["seeds"]:
        return {}
    core, _ = drbg_model.parse_driver(driver)
    mech = drbg_model.CORES[core]()
    mech.instantiate(bytes.fromhex(rec["seeds"][0]["hex"]), b"", b"")
    st = mech.state()
    v, c = bytes.fromhex(rec["v"]), bytes.fromhex(rec["c"])
    if "C" in st:
        return {"V": (v[:len(st["V"])], st["V"]), "C": (c[:len(st["C"])], st["C"])}
    if core.startswith("ctr_"):
        ahead = ((int.from_bytes(st["V"], "big") + 1) % (1 << 128)).to_bytes(16, "big")
        return {"V + 1": (v[:16], ahead)}
    return {"V": (v[:len(st["V"])], st["V"]), "Key": (c[:len(st["Key"])], st["Key"])}


def _record_problems(drv, rec, jent):
    """(problems, states compared, outputs recomputed) of one trace record."""
    tag = "pattern" if rec["pattern"] else "real"
    problems = [f"{tag}: {x}" for x in trace_layout_problems(rec, jent)]
    if rec["err"] or not rec["seeds"]:
        return problems, 0, 0
    st = instantiated_state(drv, rec)
    problems += [f"{tag}: {k} after instantiation is {got.hex()[:32]}... in "
                 f"the kernel, {want.hex()[:32]}... in the host model"
                 for k, (got, want) in st.items() if got != want]
    got = replay_trace(drv, rec)
    if got is None:
        problems.append(f"{tag}: a seeding is longer than the trace stores")
    elif got != bytes.fromhex(rec["out"]):
        problems.append(f"{tag}: the host model computes "
                        f"{got.hex()[:32]}... from these seeds, the "
                        f"kernel gave {rec['out'][:32]}...")
    return problems, bool(st), got is not None


def checks(recs, jent=True):
    """One check per instance from the guest's trace records: layout, and
    the output recomputed by the host's SP 800-90A model from the seeds."""
    by = {}
    for r in recs:
        if r.get("type") == "trace":
            by.setdefault(r["driver"], []).append(r)
    out = []
    for drv in sorted(by):
        problems, recomputed = [], 0
        states = 0
        for rec in by[drv]:
            try:
                p, n, r = _record_problems(drv, rec, jent)
            except (KeyError, TypeError, ValueError, AttributeError) as e:
                p, n, r = [f"malformed trace record ({type(e).__name__}: {e})"], 0, 0
            problems += p
            states += n
            recomputed += r
        out.append(Check.judge(
            f"drbg.trace.{drv}", f"{drv}: seed material of real seedings (layout, "
            "and the output recomputed from it)", problems, origin="host",
            counts={"traces": len(by[drv]), "recomputed": recomputed,
                    "states_compared": states},
            details={"problems": problems[:10]}))
    return out


