# SPDX-License-Identifier: GPL-2.0-only
"""The answers of libkcapi, a DRBG client the project did not write.

With conform.kcapi=1 the guest runs every CAVS record (boot cavs) and
every ACVP DRBG test case (boot acvp) a second time, through libkcapi and
the stock AF_ALG CAVP interface of algif_rng.c instead of the series'
debugfs test interface (conformance/guest/kcapi_drbg.c says what that
interface can carry).  Two checks:

- cavs.kcapi: every NIST record of the pack either answered through libkcapi,
  equal to the debugfs interface's answer and to NIST's ReturnedBits, or
  counted under the reason the interface cannot carry it; at least one
  record answered; the pack's flipped-bit self-test record, when carried,
  equal to the debugfs answer and different from its (flipped) expected
  value, which shows that the comparison can fail;
- acvp.kcapi: the same for every claimed ACVP DRBG test case, against the
  debugfs answer and the expected result where the set has one; skipped,
  with the counts by reason, when no test case can be carried (NIST's
  sample sets: every group reseeds or is prediction resistant).

The per-boot checks guest.kcapi.<driver> (each of the 22 DRBG instances
and jitterentropy_rng instantiated and generating through libkcapi) come
from the guest itself.
"""

import re

from ..base.checks import Check

SHOWN = 5
# The reasons of kcapi_drbg.c's kcapi_beyond_names[], in its order.
REASONS = ("reseed", "prediction_resistance", "returned_bits_over_128_bytes",
           "entropy_and_nonce_over_128_bytes", "additional_input_over_128_bytes")


def _slug(d):
    """A vector directory as a key the book can quote (vectors/cavs: vectors-cavs)."""
    return re.sub(r"[^a-z0-9]+", "-", d.lower()).strip("-")


def _where(meta, index, g):
    ri = index.get((g.get("f"), g.get("line")))
    return meta["records"][ri]["where"] if ri is not None else (
        f"file #{g.get('f')} line {g.get('line')}")


def _fail_text(meta, index, g):
    if g.get("stage"):
        return f"{_where(meta, index, g)}: libkcapi {g['stage']} failed: error {g.get('err')}"
    what = []
    if not g.get("same_debugfs"):
        what.append("the debugfs interface's" if g.get("debugfs_answered") else
                    "the debugfs interface's (which gave none)")
    if not g.get("same_expected"):
        what.append("NIST's ReturnedBits")
    return f"{_where(meta, index, g)}: libkcapi's answer differs from {' and '.join(what)}"


def cavs_checks(recs, meta):
    """[cavs.kcapi], or [] when the guest reported it itself (skipped: an
    /init without libkcapi)."""
    if any(r.get("type") == "check" and r.get("id") == "cavs.kcapi" for r in recs):
        return []
    return [cavs_check(recs, meta)]


def cavs_check(recs, meta):
    """cavs.kcapi from the guest's cavs_kcapi lines and prepare()'s meta."""
    lines = {r.get("s"): r for r in recs if r.get("type") == "cavs_kcapi"}
    fails = [r for r in recs if r.get("type") == "cavs_kcapi_fail"]
    index = {(r["file"], r["line"]): ri for ri, r in enumerate(meta["records"])}
    title = ("every CAVS record the AF_ALG CAVP interface can carry, answered through "
             "libkcapi equal to the debugfs interface and to NIST; the rest counted")
    counts = {"records": 0, "answered": 0, "same_debugfs": 0, "same_expected": 0,
              "errors": 0, "beyond": 0}
    counts.update({f"beyond_{r}": 0 for r in REASONS})
    problems, sections, selftest, by_dir = [], [], "absent from the pack", {}
    if not lines:
        return Check.failed("cavs.kcapi", title, "the guest sent no libkcapi result (the "
                            "boot ended early, or conform.kcapi=1 did not reach it)",
                            origin="guest", counts=counts)
    for si, sec in enumerate(meta["sections"]):
        n, k = sec["records"], lines.get(si)
        counts["records"] += n
        if k is None:
            problems.append(f"{sec['title']}: no libkcapi line for the section")
            continue
        beyond = {r: int((k.get("beyond") or {}).get(r, 0)) for r in REASONS}
        got = {x: int(k.get(x, 0)) for x in ("answered", "same_debugfs",
                                             "same_expected", "errors")}
        total = got["answered"] + got["errors"] + sum(beyond.values())
        if total != n:
            problems.append(f"{sec['title']}: libkcapi accounted for {total} of {n} records")
        if sec["selftest"]:
            counts["records"] -= n
            selftest = _selftest(got, beyond, problems)
            continue
        for x, v in got.items():
            counts[x] += v
        for r, v in beyond.items():
            counts[f"beyond_{r}"] += v
            counts["beyond"] += v
        sections.append({"section": sec["title"], "driver": sec["driver"], "records": n,
                         **got, "beyond": {r: v for r, v in beyond.items() if v}})
        d = by_dir.setdefault(_slug(sec.get("vector_dir", "")),
                              {"records": 0, "answered": 0, "beyond": 0})
        d["records"] += n
        d["answered"] += got["answered"]
        d["beyond"] += sum(beyond.values())
        if got["same_debugfs"] != got["answered"] or got["same_expected"] != got["answered"]:
            problems.append(f"{sec['title']}: of {got['answered']} answers, "
                            f"{got['same_debugfs']} equal the debugfs interface's and "
                            f"{got['same_expected']} NIST's")
    if counts["errors"]:
        problems.append(f"{counts['errors']} record(s) failed in libkcapi")
    problems += [_fail_text(meta, index, g) for g in fails
                 if not _is_selftest(meta, index, g)][:SHOWN]
    if not any(s["answered"] for s in sections):
        problems.append("no record was answered through libkcapi: nothing was compared")
    return Check.judge("cavs.kcapi", title, problems, shown=SHOWN, origin="guest",
                       counts=counts, details={"sections": sections,
                                               "by_vector_dir": by_dir,
                                               "flipped_bit_copy": selftest})


def _selftest(got, beyond, problems):
    """What became of the pack's flipped-bit copy of a record."""
    if not got["answered"]:
        why = [r for r, v in beyond.items() if v]
        return "not carried" + (f" ({why[0]})" if why else "")
    if got["same_debugfs"] != got["answered"] or got["same_expected"]:
        problems.append("the flipped-bit copy: libkcapi's answer should equal the debugfs "
                        f"interface's and differ from the flipped value; {got}")
        return "not caught"
    return "caught: equal to the debugfs answer, different from the flipped value"


def _is_selftest(meta, index, g):
    ri = index.get((g.get("f"), g.get("line")))
    if ri is None:
        return False
    return meta["sections"][meta["records"][ri]["section"]]["selftest"]


def acvp_check(meta, recs):
    """acvp.kcapi over every claimed DRBG test case of the ACVP pack."""
    debugfs = {r["i"]: r for r in recs if r.get("type") == "acvp"
               and isinstance(r.get("i"), int)}
    kcapi = {r["i"]: r for r in recs if r.get("type") == "acvp_kcapi"
             and isinstance(r.get("i"), int)}
    title = ("every ACVP DRBG test case the AF_ALG CAVP interface can carry, answered "
             "through libkcapi equal to the debugfs interface (and to the expected "
             "result, where the set has one); the rest counted")
    counts = {"test_cases": 0, "answered": 0, "same_debugfs": 0, "with_expected": 0,
              "same_expected": 0, "errors": 0, "beyond": 0}
    counts.update({f"beyond_{r}": 0 for r in REASONS})
    problems, by_set = [], []
    for s in meta["sets"]:
        if s["family"] != "drbg":
            continue
        per = {"set": s["name"], "test_cases": 0, "answered": 0, "beyond": {}}
        for g in s["groups"]:
            for ei in g["tests"]:
                info, k = meta["entries"][ei], kcapi.get(ei)
                per["test_cases"] += 1
                counts["test_cases"] += 1
                tc = f"{s['name']} tcId {info['tcId']}"
                if k is None:
                    problems.append(f"{tc}: no libkcapi answer from the guest")
                elif k.get("beyond"):
                    r = k["beyond"]
                    counts["beyond"] += 1
                    counts[f"beyond_{r}"] = counts.get(f"beyond_{r}", 0) + 1
                    per["beyond"][r] = per["beyond"].get(r, 0) + 1
                elif k.get("stage"):
                    counts["errors"] += 1
                    problems.append(f"{tc}: libkcapi {k['stage']} failed: error "
                                    f"{k.get('err')}")
                else:
                    _compare(k.get("out"), debugfs.get(ei), info, tc, counts, problems)
                    per["answered"] += 1
        by_set.append(per)
    kw = dict(origin="guest", counts=counts, details={"sets": by_set})
    if not counts["test_cases"]:
        return Check.skipped("acvp.kcapi", title, "the vector sets hold no claimed DRBG "
                             "test case", **kw)
    if not problems and counts["beyond"] == counts["test_cases"]:
        why = ", ".join(f"{counts[f'beyond_{r}']} {r.replace('_', ' ')}" for r in REASONS
                        if counts[f"beyond_{r}"])
        return Check.skipped("acvp.kcapi", title, f"none of the {counts['test_cases']} "
                             "claimed DRBG test cases can go through AF_ALG's CAVP "
                             f"interface ({why}); nothing to compare", **kw)
    if not counts["answered"]:
        problems.append("no test case was answered through libkcapi: nothing was compared")
    return Check.judge("acvp.kcapi", title, problems, shown=SHOWN, **kw)


def _compare(out, dbg, info, tc, counts, problems):
    counts["answered"] += 1
    if dbg is not None and dbg.get("out") is not None and dbg["out"] == out:
        counts["same_debugfs"] += 1
    else:
        problems.append(f"{tc}: libkcapi's answer differs from the debugfs interface's")
    if info.get("expected") is not None:
        counts["with_expected"] += 1
        if out == info["expected"]:
            counts["same_expected"] += 1
        else:
            problems.append(f"{tc}: libkcapi's answer differs from the expected result")
