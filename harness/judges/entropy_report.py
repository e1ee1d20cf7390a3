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
it is assessed and shown like the rest, and no check rests on it.  Every
source has the claim of its operating environment (entropy_claim.py):
H_I = min(claim, assessed), the restart tests at that H_I, the validated
H = min(H_r, H_c, H_I) carried through the chain, and nothing credited
when the restart tests fail.  make check judges the sources of the
credited environments.
"""

import math

from ..base.checks import Check
from . import entropy_chain as chain
from . import entropy_claim as claims
from . import entropy_math as em
from . import jitter_model as model

H_CLAIM = claims.H_SUBMITTER    # bits per raw sample: the cutoffs, H_I, the chain
ESTIMATORS = ("mcv", "collision", "markov", "compression", "t_tuple", "lrs",
              "multi_mcw", "lag", "multi_mmc", "lz78y")


def code_claims():
    """The code's own numbers, from the model of the core."""
    n_lag = model.LAG_WINDOW - model.LAG_HISTORY
    return {"h_claim": H_CLAIM, "block_samples": model.BLOCK_SAMPLES,
            "block_bits": 8 * model.BLOCK_BYTES,
            "needed": 8 * model.BLOCK_BYTES + chain.FULL_ENTROPY_MARGIN,
            "rct": [model.RCT_CUT, model.RCT_CUT_PERM],
            "apt": [model.APT_CUT, model.APT_CUT_PERM],
            "apt_window": model.APT_WINDOW,
            "lag_run": [model.LAG_RUN_CUT, model.LAG_RUN_CUT_PERM],
            "lag_count": [model.LAG_COUNT_CUT, model.LAG_COUNT_CUT_PERM],
            "lag_window": model.LAG_WINDOW, "lag_history": model.LAG_HISTORY,
            "lag_predictions": n_lag,
            "stuck": [model.STUCK_CUT, model.STUCK_CUT_PERM], "alpha_exp": [30, 60]}


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
           "assessed": a.get("assessed"), "H_submitter": a.get("H_submitter"),
           "H_I": a.get("H_I", a.get("assessed")), "samples": a.get("samples"),
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
    min(H_r, H_c, H_I) when the restart tests passed; nothing (0) when they
    did not, or when there was no restart data; with the rule that gave it."""
    rs = a.get("restart") or {}
    if rs.get("pass") and rs.get("h_validated") is not None:
        return rs["h_validated"], "min(H_r, H_c, H_I), SP 800-90B 3.1.4.2"
    if not rs:
        return 0.0, "nothing: no restart data (SP 800-90B 3.1.4)"
    return 0.0, "nothing: the restart tests failed (SP 800-90B 3.1.4)"


def source_summary(name, meta, desc, assess, health, bits):
    """bits: {"blocks"}: the assessment of the output blocks recorded from
    the kernel, or None (shown for insight; nothing is credited from it).
    h_i is the initial estimate from the sequential data (3.1.3), h the
    validated one (3.1.4.2) that the chain, the cutoffs and the checks use;
    samples_per_block is raw samples per block read, from the collection;
    the rate is H_I times the raw samples per second (as make bench's)."""
    a = assessment_of(assess)
    h_i = a["H_I"] if a else None
    h, h_from = validated(a) if a else (None, None)
    seq = meta.get("seq") or {}
    per_block = seq["samples"] / seq["blocks"] if seq.get("blocks") else None
    out = {"name": name, "design": meta["design"], "emulated": meta.get("emulated", False),
           "environment": claims.environment_of(name), "claim": claims.claim_of(name),
           "fixed_loops": bool(meta.get("fixed_loops")),
           "where": meta.get("where"), "clock": meta.get("clock"), "collect": meta,
           "describe": desc, "assessment": a, "h_i": h_i, "h": h, "h_from": h_from,
           "health": health,
           "samples_per_block": per_block,
           "blocks": assessment_of(bits.get("blocks")),
           "recording": meta.get("recording"),
           "rate": rate(meta, h_i)}
    if h is not None:
        out["cutoffs_at_h"] = cutoffs(h) if h else None
        if meta["design"] == "ours":
            steps, summ = chain.ours(h, per_block, claims.claim_of(name))
        else:
            steps, summ = chain.pristine(h, per_block)
        out["chain"] = {"steps": steps, "summary": summ}
        if out["rate"] and summ.get("samples_per_credited_bit"):
            out["rate"]["credited_bits_per_s"] = (out["rate"]["samples_per_s"]
                                                  / summ["samples_per_credited_bit"])
    return out


def checks(summary):
    """make check's verdicts: the collection of every source; the claim
    against the evidence of every source of a credited environment;
    nothing on emulated data or on an environment without a claim."""
    out = [cutoffs_check(summary["code"])]
    code = summary["code"]
    for name, s in summary["sources"].items():
        cid = f"entropy.{name}"
        if s.get("error") and s.get("refused") and not claims.credited(name):
            out.append(Check.skipped(f"{cid}.collected", f"{name}: raw samples "
                                     "collected and assessed", "the noise source "
                                     "refused in this environment, which carries no "
                                     f"claim: {s['error']}", origin="host"))
            continue
        if s.get("error"):
            out.append(Check.failed(f"{cid}.collected", f"{name}: raw samples "
                                    "collected and assessed", s["error"], origin="host"))
            continue
        fails = s["collect"].get("startup_failures", 0)
        out.append(Check.passed(f"{cid}.collected", f"{name}: raw samples collected "
                                "and assessed", origin="host",
                                counts={"samples": s["collect"]["seq"]["samples"],
                                        "restarts": s["collect"]["restart"]["restarts"],
                                        "startup_failures": fails},
                                details={"h_i": s["h_i"], "emulated": s["emulated"]}))
        if s["design"] != "ours" or not claims.credited(name):
            continue
        if "startup_failures" in s["collect"]:      # (a kernel refuses at boot instead)
            out.append(startup_check(cid, name, s))
        out += evidence_checks(cid, s, code, name)
    return out


# A collection starts a collector, with its start-up test, once for the
# consecutive samples and once per restart.  Its cutoffs let a sample of a
# working timer fail with probability 2^-30 or so (the claim's alpha), and a
# start-up test reads 1024 of them: over 1001 starts one failure is already
# unlikely, two are a finding (the same allowance as health-fp's).
STARTUP_FAILURES_ALLOWED = 1


def startup_check(cid, name, s):
    """entropy.<source>.startup: the start-up test of our core, run at
    every start of a collector, did not fail on a working timer."""
    fails = s["collect"].get("startup_failures", 0)
    starts = 1 + s["collect"]["restart"]["restarts"]
    return Check.judge(f"{cid}.startup", f"{name}: the start-up test passes on the "
                       "samples of a working timer",
                       [f"the start-up test failed {fails} times in {starts} starts "
                        f"of a collector (at most {STARTUP_FAILURES_ALLOWED} allowed)"]
                       if fails > STARTUP_FAILURES_ALLOWED else [],
                       origin="host", counts={"startup_failures": fails, "starts": starts})


def cutoffs_check(code):
    """One claim: the code's cutoffs are the ones derived from it."""
    want = cutoffs(code["h_claim"])
    have = {"rct": code["rct"], "apt": code["apt"], "lag_run": code["lag_run"],
            "lag_count": code["lag_count"]}
    bad = [f"{k}: the code has {have[k]}, H_submitter = {code['h_claim']:g} gives "
           f"{want[k]}" for k in have if list(have[k]) != list(want[k])]
    return Check.judge("entropy.claim.cutoffs", "the health tests' cutoffs are those "
                       f"of the claim H_submitter = {code['h_claim']:g} bit per raw "
                       "sample (SP 800-90B 4.4)", bad, origin="host",
                       details={"code": have, "derived": want})


def evidence_checks(cid, s, code, name):
    out = []
    h = s["h"]
    title = (f"{name}: validated min-entropy per raw sample >= the claim H_submitter = "
             f"{code['h_claim']:g} bit")
    kw = dict(origin="host", details={"h": h, "h_from": s.get("h_from"), "h_i": s["h_i"],
                                      "assessed": (s["assessment"] or {}).get("assessed"),
                                      "h_claim": code["h_claim"]})
    out.append(Check.passed(f"{cid}.h-i", title, **kw) if h >= code["h_claim"] else
               Check.failed(f"{cid}.h-i", title, f"H = {h:.4f} bits per raw "
                            f"sample ({s.get('h_from')}), below the claim "
                            f"{code['h_claim']:g}", **kw))
    out.append(credit_check(cid, s, code, name))
    rs = (s["assessment"] or {}).get("restart") or {}
    title = (f"{name}: the restart tests pass at H_I: the sanity check (SP 800-90B "
             "3.1.4.3) and the validation (3.1.4.2)")
    kw = dict(origin="host", details=rs)
    out.append(Check.passed(f"{cid}.restart", title, **kw)
               if rs.get("sanity") and rs.get("pass") else
               Check.failed(f"{cid}.restart", title, rs.get("reason") or
                            "no restart result", **kw))
    out.append(health_check(cid, s["health"], name))
    out.append(stuck_yield_check(cid, s["health"], name))
    out += conditioning_checks(cid, s, name)
    return out


# Bits per bit below which the recorded output blocks (1000 blocks, 256,000
# bits) are broken.  The estimators read ideal bits of that length far
# below 1 (the compression estimator decides, at about 0.8, and 0.746 for
# one of 40 streams from /dev/urandom); a hash that repeats one 64-bit word
# four times reads 0.1.  tests/judges/test_entropy.py BlockFloorTest
# assesses both kinds with the project's assessor.
BLOCK_FLOOR = 0.65


def credit_check(cid, s, code, name):
    """entropy.<source>.credit: the chain's summary (entropy_chain.ours):
    a block's counted samples, each credited with the validated H (at
    most the claim), carry the 320 bits a full-entropy block needs."""
    summ = (s.get("chain") or {}).get("summary") or {}
    n = summ.get("counted", model.BLOCK_SAMPLES)
    title = (f"{name}: {n} counted samples per block at the validated H carry the "
             f"{code['needed']} bits a full-entropy block needs (SP 800-90B 3.1.5.1.2, "
             "SP 800-90C)")
    kw = dict(origin="host", details={"h_in_block": summ.get("h_in_block"),
                                       "counted": summ.get("counted"),
                                       "h_sample": summ.get("h_sample")})
    if "counted" not in summ:
        return Check.failed(f"{cid}.credit", title, "the summary's chain is not of "
                            "counted samples (a record of an earlier design)", **kw)
    if summ.get("full_entropy"):
        return Check.passed(f"{cid}.credit", title, **kw)
    return Check.failed(f"{cid}.credit", title, f"{n} samples at H = "
                        f"{summ.get('h_sample', float('nan')):.4f} give "
                        f"{summ.get('h_in_block', float('nan')):.1f} bits per block into "
                        f"SHA3-256, fewer than {code['needed']}", **kw)


def conditioning_checks(cid, s, name):
    """What the kernel's own conditioning produced (where it was recorded):
    the output blocks must not look broken, and the recording must not
    change the noise it records (entropy_recording)."""
    out = []
    if s.get("blocks"):
        h = s["blocks"]["assessed"]
        title = (f"{name}: the output blocks recorded from the kernel are not far from "
                 f"1 bit per bit (>= {BLOCK_FLOOR})")
        out.append(Check.judge(f"{cid}.blocks", title, [] if h >= BLOCK_FLOOR else [
            f"the estimators find {h:.4f} bits per bit of the output blocks"],
            origin="host", details={"h": h, "bits": s["blocks"].get("samples")}))
    rec = s.get("recording")
    if rec:
        title = (f"{name}: recording leaves the raw samples' distribution unchanged "
                 f"(stride 1 against stride {rec['stride']}, alpha {rec['alpha']:g})")
        bad = [f"{k}: chi-square {rec[k]['chi2']:.1f} with {rec[k]['df']} degrees of "
               f"freedom, p = {rec[k]['p']:.2g}" for k in ("symbols", "shape")
               if not rec[k]["pass"]]
        out.append(Check.judge(f"{cid}.recording", title, bad, origin="host",
                               details=rec))
    return out


STUCK_YIELD = 1 / 8     # the stuck bound's assumption (chapter "health tests")


def stuck_yield_check(cid, h, name):
    """The stuck bound's cutoffs keep its false positives at alpha only
    where a sample is not stuck with probability q >= 1/8, independently
    (chapter "The CPU Jitter RNG: from samples to output", the stuck
    bound); q, the share of samples that are not stuck, is measured on
    the data."""
    st = h.get("stuck")
    title = (f"{name}: a sample is not stuck often enough for the stuck bound's "
             "alpha (q >= 1/8)")
    if st is None:
        return Check.failed(f"{cid}.stuck-yield", title, "no stuck-bound statistics "
                            "in the summary (a record of an earlier design)",
                            origin="host")
    q = st.get("yield") or 0.0
    bad = [] if q >= STUCK_YIELD else [
        f"q = {q:.4f} < 1/8: the bound's false-positive rate is "
        f"{st.get('estimate', float('nan')):.3g} per sample, not alpha"]
    return Check.judge(f"{cid}.stuck-yield", title, bad, origin="host",
                       details={"yield": q, "estimate": st.get("estimate")})


HEALTH_TESTS = ("rct", "apt", "lag", "stuck")


def health_check(cid, h, name):
    """A health test that fires twice or more in 10^6 samples of good data
    fires far above alpha = 2^-30 (expected: 10^6 x 2^-30 = 0.001 times)."""
    title = (f"{name}: no health test fires on the 1,000,000-sample file more "
             "often than alpha allows")
    tests = [k for k in HEALTH_TESTS if k in h]
    bad = [f"{k} fired at {h[k]['fires']} samples" for k in tests if h[k]["fires"] >= 2]
    bad += [f"{k}: not counted in the summary (a record of an earlier design)"
            for k in HEALTH_TESTS if k not in h]
    counts = {k: h[k]["fires"] for k in tests}
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
