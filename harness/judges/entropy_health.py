# SPDX-License-Identifier: GPL-2.0-only
"""Our health tests run over a file of raw samples: how often each fires
on data that should pass, for the chapter "The CPU Jitter RNG: entropy
evidence".

    false_positives(deltas) -> {"rct": {...}, "apt": {...}, "lag": {...},
                                "stuck": {...}, "samples": n}

The RCT, the APT and the lag predictor test are the model's own
(jitter_model.Health, which the host tests hold to the C bit for bit), fed
the deltas in order from a new collector; the stuck bound counts the
stuck samples in a row (entropy_data.stuck_flags), which a sample that is
not stuck ends.  (The core exempts the first two samples of each block
from ending a run, because their stuck tests span the block's priming
measurement.  The recorded stream does not mark where blocks start, so a
run the core carries across a block's start is counted here as two;
where stuck samples are rare, as on a working timer, that changes
nothing.)  For each
test: how many samples it fired at, intermittently and permanently, the
largest value its statistic reached, and an estimate of its false-positive
rate per sample from a parameter measured on the same data (the chance a
delta repeats the last one, the APT's reference share, the lag predictor's
hit rate, the share of samples that are not stuck), set beside alpha =
2^-30.
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


def _stuck(v):
    """The stuck bound over the stream: q, the share of samples that are
    not stuck, and the runs of stuck samples."""
    import numpy as np
    st = ed.stuck_flags(v)
    longest = run = fires = perm = 0
    for stuck in st.tolist():
        run = run + 1 if stuck else 0
        longest = max(longest, run)
        fires += run >= model.STUCK_CUT
        perm += run >= model.STUCK_CUT_PERM
    return {"samples": int(len(st)), "yield": float(1 - np.mean(st)) if len(st) else 0.0,
            "max_run": longest, "fires": fires, "fires_permanent": perm}


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
    stuck = _stuck(v)
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
    stuck["cutoff"], stuck["cutoff_permanent"] = model.STUCK_CUT, model.STUCK_CUT_PERM
    stuck["estimate"] = (1 - stuck["yield"]) ** model.STUCK_CUT
    out["stuck"] = stuck
    return out
