# SPDX-License-Identifier: GPL-2.0-only
"""What make entropy concludes from its sources: the summary the book and
make check read (build/entropy/summary.json), the data of the chapter's
figures (build/entropy/figures/*.json), and the checks.

    source_summary(name, meta, files)   one source: its collection, its
                                        deltas described, its assessments,
                                        its health tests, its chain, its rate
    code_claims()                       what the code assumes and credits
    figures(summary, arrays)            the figure data
    checks(summary)                     [Check]

A source's "design" is "ours" (the tangled core, in user space or in the
kernel) or "pristine" (6.1's core).  Data from a TCG guest is "emulated":
it is assessed and shown like the rest, and no check rests on it.
"""

import math

from ..base.checks import Check
from . import entropy_chain as chain
from . import entropy_math as em
from . import jitter_model as model

H_CLAIM = 1.0           # bits per raw sample the health tests' cutoffs assume
ESTIMATORS = ("mcv", "collision", "markov", "compression", "t_tuple", "lrs",
              "multi_mcw", "lag", "multi_mmc", "lz78y")


def code_claims():
    """The code's own numbers, from the model of the core."""
    n_lag = model.LAG_WINDOW - model.LAG_HISTORY
    return {"h_claim": H_CLAIM, "block_words": model.BLOCK_WORDS,
            "word_bits": 64, "block_bits": 8 * model.BLOCK_BYTES,
            "needed": 8 * model.BLOCK_BYTES + chain.FULL_ENTROPY_MARGIN,
            "rct": [model.RCT_CUT, model.RCT_CUT_PERM],
            "apt": [model.APT_CUT, model.APT_CUT_PERM],
            "apt_window": model.APT_WINDOW,
            "lag_run": [model.LAG_RUN_CUT, model.LAG_RUN_CUT_PERM],
            "lag_count": [model.LAG_COUNT_CUT, model.LAG_COUNT_CUT_PERM],
            "lag_window": model.LAG_WINDOW, "lag_history": model.LAG_HISTORY,
            "lag_predictions": n_lag,
            "vn": [model.VN_CUT, model.VN_CUT_PERM], "alpha_exp": [30, 60]}


def cutoffs(h):
    """Every cutoff of our health tests re-derived for H = h bits per sample."""
    n_lag = model.LAG_WINDOW - model.LAG_HISTORY
    return {"h": h,
            "rct": [em.rct_cutoff(h, a) for a in (30, 60)],
            "apt": [em.apt_cutoff(h, a, model.APT_WINDOW) for a in (30, 60)],
            "lag_run": [em.lag_run_cutoff(h, a, n_lag) for a in (30, 60)],
            "lag_count": [em.lag_count_cutoff(h, a, n_lag) for a in (30, 60)]}


def assessment_of(a):
    """The parts of the assessor's JSON the book shows."""
    if not a:
        return None
    out = {"H_original": a.get("H_original"), "H_bitstring": a.get("H_bitstring"),
           "assessed": a.get("assessed"), "samples": a.get("samples"),
           "bits": a.get("bits_per_symbol") or a.get("bits"),
           "literal": {}, "bitstring": {}}
    for track in ("literal", "bitstring"):
        for k in ESTIMATORS:
            e = (a.get(track) or {}).get(k)
            out[track][k] = e.get("min_entropy") if isinstance(e, dict) else None
    out["decided_by"] = decided_by(a.get("literal") or {})
    rs = a.get("restart")
    if rs:
        san = rs.get("sanity") or {}
        out["restart"] = {"h_i": rs.get("H_I"), "cutoff": san.get("cutoff"),
                          "alpha": san.get("alpha"), "x_row": san.get("x_row"),
                          "x_col": san.get("x_col"), "x_max": san.get("x_max"),
                          "sanity": bool(san.get("pass")), "h_r": rs.get("H_r"),
                          "h_c": rs.get("H_c"), "h_validated": rs.get("H_validated"),
                          "pass": rs.get("verdict") == "pass", "reason": rs.get("reason")}
    return out


def decided_by(lit):
    """The literal estimator with the lowest estimate; for a predictor
    (6.3.7 to 6.3.10), whether its local bound decided it: the longest run
    of right predictions (r - 1) made P_local exceed P_global'."""
    ests = {k: e for k, e in lit.items() if isinstance(e, dict)
            and e.get("min_entropy") is not None}
    if not ests:
        return None
    k = min(ests, key=lambda x: ests[x]["min_entropy"])
    e = ests[k]
    local = (e.get("p_local") or 0) > (e.get("p_global_prime") or 0)
    return {"estimator": k, "local": local,
            "longest_run": e["r"] - 1 if local and e.get("r") else None}


def rate(meta, h_i):
    """Raw samples and assessed bits per second of CPU time (user sources)
    or of the kernel's own collection time (the guest)."""
    seq = meta.get("seq") or {}
    secs = seq.get("cpu_s") or seq.get("kernel_s")
    n = seq.get("samples")
    if not secs or not n:
        return None
    per_s = n / secs
    return {"samples": n, "seconds": secs,
            "clock": "cpu" if seq.get("cpu_s") else "kernel wall",
            "samples_per_s": per_s, "bits_per_s": per_s * h_i if h_i else None}


def validated(a):
    """The noise source's min-entropy per raw sample by SP 800-90B 3.1.4.2:
    min(H_r, H_c, H_I) when the restart tests passed, else H_I (and the
    restart check fails); with the rule that gave it."""
    rs = a.get("restart") or {}
    if rs.get("pass") and rs.get("h_validated") is not None:
        return rs["h_validated"], "min(H_r, H_c, H_I), SP 800-90B 3.1.4.2"
    return a["assessed"], "H_I (the restart tests did not pass)"


def source_summary(name, meta, desc, assess, health, bits):
    """bits: {"fold": assessment or None, "vn": assessment or None}.
    h_i is the initial estimate from the sequential data (3.1.3), h the
    validated one (3.1.4.2) that the chain, the cutoffs and the checks use;
    the rate is H_I times the raw samples per second (as make bench's)."""
    a = assessment_of(assess)
    h_i = a["assessed"] if a else None
    h, h_from = validated(a) if a else (None, None)
    seq = meta.get("seq") or {}
    per_block = seq["samples"] / seq["blocks"] if seq.get("blocks") else None
    out = {"name": name, "design": meta["design"], "emulated": meta.get("emulated", False),
           "where": meta.get("where"), "clock": meta.get("clock"), "collect": meta,
           "describe": desc, "assessment": a, "h_i": h_i, "h": h, "h_from": h_from,
           "health": health,
           "samples_per_block": per_block,
           "fold": assessment_of(bits.get("fold")), "vn": assessment_of(bits.get("vn")),
           "rate": rate(meta, h_i)}
    if h:
        out["cutoffs_at_h"] = cutoffs(h)
        if meta["design"] == "ours" and out["fold"] and out["vn"]:
            steps, summ = chain.ours(h, out["fold"]["assessed"], out["vn"]["assessed"],
                                     per_block)
        else:
            steps, summ = chain.pristine(h, per_block)
        out["chain"] = {"steps": steps, "summary": summ}
        if out["rate"] and summ.get("samples_per_credited_bit"):
            out["rate"]["credited_bits_per_s"] = (out["rate"]["samples_per_s"]
                                                  / summ["samples_per_credited_bit"])
    return out


def checks(summary):
    """make check's verdicts: the code's claims against ours-user's
    evidence; the collection of every source; nothing on emulated data."""
    out = []
    code = summary["code"]
    for name, s in summary["sources"].items():
        cid = f"entropy.{name}"
        if s.get("error"):
            out.append(Check.failed(f"{cid}.collected", f"{name}: raw samples "
                                    "collected and assessed", s["error"], origin="host"))
            continue
        out.append(Check.passed(f"{cid}.collected", f"{name}: raw samples collected "
                                "and assessed", origin="host",
                                counts={"samples": s["collect"]["seq"]["samples"],
                                        "restarts": s["collect"]["restart"]["restarts"]},
                                details={"h_i": s["h_i"], "emulated": s["emulated"]}))
        if name != "ours-user":
            continue
        out += evidence_checks(cid, s, code)
    return out


def evidence_checks(cid, s, code):
    out = []
    h = s["h"]
    title = (f"ours-user: assessed min-entropy per raw sample >= the {code['h_claim']:g} "
             "bit the code assumes")
    kw = dict(origin="host", details={"h": h, "h_from": s.get("h_from"), "h_i": s["h_i"],
                                      "h_claim": code["h_claim"]})
    out.append(Check.passed(f"{cid}.h-i", title, **kw) if h >= code["h_claim"] else
               Check.failed(f"{cid}.h-i", title, f"assessed H = {h:.4f} bits per raw "
                            f"sample ({s.get('h_from')}), below the {code['h_claim']:g} "
                            "the health tests' cutoffs assume", **kw))
    summ = s.get("chain", {}).get("summary", {})
    title = (f"ours-user: {code['block_words']} words per block carry the "
             f"{code['needed']} bits a full-entropy block needs (SP 800-90B 3.1.5)")
    kw = dict(origin="host", details={"h_in_block": summ.get("h_in_block"),
                                       "h_word": summ.get("h_word")})
    ok = summ.get("full_entropy")
    out.append(Check.passed(f"{cid}.credit", title, **kw) if ok else
               Check.failed(f"{cid}.credit", title, "the evidence gives "
                            f"{summ.get('h_in_block', float('nan')):.1f} bits per block "
                            f"into SHA3-256, fewer than {code['needed']}", **kw))
    rs = (s["assessment"] or {}).get("restart") or {}
    title = ("ours-user: the restart tests pass: the sanity check (SP 800-90B "
             "3.1.4.3) and the validation (3.1.4.2)")
    kw = dict(origin="host", details=rs)
    out.append(Check.passed(f"{cid}.restart", title, **kw)
               if rs.get("sanity") and rs.get("pass") else
               Check.failed(f"{cid}.restart", title, rs.get("reason") or
                            "no restart result", **kw))
    out.append(health_check(cid, s["health"]))
    return out


def health_check(cid, h):
    """A health test that fires twice or more in 10^6 samples of good data
    fires far above alpha = 2^-30 (expected: 10^6 x 2^-30 = 0.001 times)."""
    title = ("ours-user: no health test fires on the 1,000,000-sample file more "
             "often than alpha allows")
    bad = [f"{k} fired at {h[k]['fires']} samples" for k in ("rct", "apt", "lag", "vn")
           if h[k]["fires"] >= 2]
    counts = {k: h[k]["fires"] for k in ("rct", "apt", "lag", "vn")}
    return Check.judge(f"{cid}.health-fp", title, bad, origin="host", counts=counts)


def column_mcv(matrix_bytes, rows=1000, cols=1000):
    """The most common symbol's count in every row and every column."""
    import numpy as np
    m = np.frombuffer(matrix_bytes, dtype=np.uint8).reshape(rows, cols)

    def mcv(lines):
        return [int(np.bincount(x, minlength=256).max()) for x in lines]
    return mcv(m), mcv(m.T)


def log2_or_none(x):
    return math.log2(x) if x and x > 0 else None
