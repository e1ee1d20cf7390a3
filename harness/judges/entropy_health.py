# SPDX-License-Identifier: GPL-2.0-only
"""Our health tests run over a file of raw samples: how often each fires
on data that should pass, for the chapter "The CPU Jitter RNG: entropy
evidence".

    false_positives(deltas) -> {"rct": {...}, "apt": {...}, "lag": {...},
                                "vn": {...}, "samples": n}

The RCT, the APT and the lag predictor test are the model's own
(jitter_model.Health, which the host tests hold to the C bit for bit), fed
the deltas in order from a new collector; the von Neumann bound counts the
pairs in a row that yield no bit (entropy_data.vn_bits' rule).  For each
test: how many samples it fired at, intermittently and permanently, the
largest value its statistic reached, and an estimate of its false-positive
rate per sample from a parameter measured on the same data (the chance a
delta repeats the last one, the APT's reference share, the lag predictor's
hit rate, the share of pairs yielding a bit), set beside alpha = 2^-30.
"""

import math

from . import entropy_data as ed
from . import entropy_math as em
from . import jitter_model as model

ALPHA_EXP = 30


def _model_tests(v):
    h = model.Health()
    fires = {"rct": [0, 0], "apt": [0, 0], "lag": [0, 0]}
    top = {"rct": 0, "apt": 0, "lag_run": 0, "lag_count": 0}
    cut = {"rct": (model.RCT_CUT, model.RCT_CUT_PERM),
           "apt": (model.APT_CUT, model.APT_CUT_PERM)}
    for delta in v.tolist():
        h.insert(delta)
        for k, val in (("rct", h.rct_run), ("apt", h.apt_count)):
            top[k] = max(top[k], val)
            fires[k][0] += val >= cut[k][0]
            fires[k][1] += val >= cut[k][1]
        top["lag_run"] = max(top["lag_run"], h.lag_run)
        top["lag_count"] = max(top["lag_count"], h.lag_count)
        lv = max(model.level(h.lag_run, model.LAG_RUN_CUT, model.LAG_RUN_CUT_PERM),
                 model.level(h.lag_count, model.LAG_COUNT_CUT, model.LAG_COUNT_CUT_PERM))
        fires["lag"][0] += lv >= model.INTERMITTENT
        fires["lag"][1] += lv >= model.PERMANENT
    return fires, top


def _vn(v):
    import numpy as np
    n = len(v) // 2 * 2
    bits = ed.parity(v[:n])
    st = ed.stuck_flags(v)[:n]
    ok = ~st[0::2] & ~st[1::2] & (bits[0::2] != bits[1::2])
    longest = run = fires = perm = 0
    for y in ok.tolist():
        run = 0 if y else run + 1
        longest = max(longest, run)
        fires += run >= model.VN_CUT
        perm += run >= model.VN_CUT_PERM
    return {"pairs": int(len(ok)), "yield": float(np.mean(ok)) if len(ok) else 0.0,
            "max_misses": longest, "fires": fires, "fires_permanent": perm}


def false_positives(deltas):
    import numpy as np
    v = ed.numpy_of(deltas)
    n = len(v)
    fires, top = _model_tests(v)
    repeat = float(np.mean(v[1:] == v[:-1])) if n > 1 else 0.0
    windows = n // model.APT_WINDOW
    w = v[:windows * model.APT_WINDOW].reshape(windows, model.APT_WINDOW)
    share = float(((w[:, 1:] == w[:, :1]).sum()) / max(1, windows * (model.APT_WINDOW - 1)))
    hit = max(ed.lag_hits(v, model.LAG_HISTORY)) if n > model.LAG_HISTORY else 0.0
    vn = _vn(v)
    a = 2.0 ** -ALPHA_EXP
    n_lag = model.LAG_WINDOW - model.LAG_HISTORY
    tail = em.binom_upper_tail
    out = {"samples": n, "alpha": a, "alpha_exp": ALPHA_EXP}
    out["rct"] = {"cutoff": model.RCT_CUT, "cutoff_permanent": model.RCT_CUT_PERM,
                  "fires": fires["rct"][0], "fires_permanent": fires["rct"][1],
                  "max": top["rct"], "repeat": repeat,
                  "estimate": repeat ** (model.RCT_CUT - 1)}
    out["apt"] = {"cutoff": model.APT_CUT, "cutoff_permanent": model.APT_CUT_PERM,
                  "fires": fires["apt"][0], "fires_permanent": fires["apt"][1],
                  "max": top["apt"], "windows": windows, "share": share,
                  "estimate": tail(model.APT_WINDOW - 1, share, model.APT_CUT - 1)
                  / model.APT_WINDOW}
    out["lag"] = {"run_cutoff": model.LAG_RUN_CUT, "count_cutoff": model.LAG_COUNT_CUT,
                  "run_cutoff_permanent": model.LAG_RUN_CUT_PERM,
                  "count_cutoff_permanent": model.LAG_COUNT_CUT_PERM,
                  "fires": fires["lag"][0], "fires_permanent": fires["lag"][1],
                  "max_run": top["lag_run"], "max_count": top["lag_count"],
                  "hit": hit,
                  "estimate": hit ** model.LAG_RUN_CUT
                  + tail(n_lag, hit, model.LAG_COUNT_CUT) / n_lag}
    vn["cutoff"], vn["cutoff_permanent"] = model.VN_CUT, model.VN_CUT_PERM
    vn["estimate"] = (1 - vn["yield"]) ** model.VN_CUT
    out["vn"] = vn
    return out
