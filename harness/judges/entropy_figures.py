# SPDX-License-Identifier: GPL-2.0-only
"""The data of the entropy chapter's figures, in the format the book's
figure drawer reads (harness/stages/book/figures.py): one JSON file per
figure under build/entropy/figures/.

    write_all(figdir, summary, arrays, outdir) -> [figure ids]

entropy-deltas       the distribution of each source's deltas, side by side
entropy-correlation  autocorrelation at lags 1..32, and how often a delta
                     equals the one k back (what the lag predictor guesses)
entropy-restart      the most common symbol's count in each column of each
                     restart matrix, against the sanity check's cutoff
A panel of emulated data carries accel "tcg" and is stamped as such.
"""

import os

from ..base import files
from . import entropy_data as ed
from . import entropy_report as er

COLORS = {"ours-user": "#1f5fa8", "pristine-user": "#c25a00", "ours-kernel": "#5b8a3a"}


def _accel(s):
    return "tcg" if s.get("emulated") else "host"


def _label(name, s):
    return name + (" (emulated)" if s.get("emulated") else "")


def deltas_figure(summary, arrays):
    panels = []
    for name, d in arrays.items():
        s = summary["sources"][name]
        h = ed.histogram(d)
        panels.append({"title": f"{_label(name, s)}: {s['where']}", "kind": "line",
                       "accel": _accel(s), "log_y": True,
                       "xlabel": f"time delta ({s.get('clock') or 'ticks'}), central 99 %",
                       "ylabel": "relative frequency" + (
                           "" if h["bin"] == 1 else f" per {h['bin']:,.0f} ticks"),
                       "series": [{"label": name, "x": h["x"], "y": h["y"],
                                   "color": COLORS.get(name)}]})
    return {"id": "entropy-deltas", "title": "Raw samples: the distribution of the deltas",
            "caption": "Relative frequency of every delta value in the central 99 % of "
                       "each source's 1,000,000 consecutive raw samples.",
            "layout": [len(panels), 1], "panels": panels}


def correlation_figure(summary, arrays):
    ac, hits = [], []
    for name, d in arrays.items():
        s = summary["sources"][name]
        a = ed.autocorrelation(d, 32)
        ac.append({"label": _label(name, s), "x": list(range(1, 33)), "y": a,
                   "color": COLORS.get(name)})
        hits.append({"label": _label(name, s), "x": list(range(1, 9)),
                     "y": ed.lag_hits(d, 8), "color": COLORS.get(name)})
        s.setdefault("analysis", {}).update(autocorrelation=a, lag_hits=hits[-1]["y"])
    return {"id": "entropy-correlation", "title": "Raw samples: dependence on the past",
            "caption": "Left: autocorrelation of the deltas at lags 1 to 32. Right: "
                       "how often a delta equals the one k samples back, the guess of "
                       "the lag predictor test at lag k.",
            "layout": [1, 2], "panels": [
                {"title": "autocorrelation", "kind": "line", "accel": "host",
                 "xlabel": "lag", "ylabel": "correlation", "series": ac},
                {"title": "delta equal to the one k back", "kind": "line",
                 "accel": "host", "xlabel": "k", "ylabel": "fraction", "series": hits}]}


def restart_figure(summary, outdir):
    panels = []
    for name, s in summary["sources"].items():
        rs = ((s.get("assessment") or {}).get("restart")) if not s.get("error") else None
        path = os.path.join(outdir, name, "restart.bin")
        if not rs or not os.path.exists(path):
            continue
        p = summary["params"]
        with open(path, "rb") as f:
            rows, cols = er.column_mcv(f.read(), p["restarts"], p["len"])
        s.setdefault("analysis", {}).update(row_mcv_max=max(rows), col_mcv_max=max(cols),
                                            col_mcv_first=cols[:8])
        panels.append({"title": _label(name, s), "kind": "line", "accel": _accel(s),
                       "xlabel": "restart (row), or sample after the restart (column)",
                       "ylabel": "count of the most common symbol",
                       "series": [{"label": "rows", "y": rows, "color": "#999999"},
                                  {"label": "columns", "y": cols,
                                   "color": COLORS.get(name)}],
                       "hlines": [{"y": rs["cutoff"], "label": "sanity cutoff (3.1.4.3)",
                                   "color": "#b3261e"}]})
    return {"id": "entropy-restart",
            "title": "Restarts: the most common value per row and per column",
            "caption": "For each of the 1000 restarts (rows, grey) and each of the 1000 "
                       "samples after a restart (columns), the count of the most common "
                       "8-bit symbol among its 1000 samples, against the cutoff of the "
                       "sanity check of SP 800-90B 3.1.4.3.",
            "layout": [max(1, len(panels)), 1], "panels": panels}


def write_all(figdir, summary, arrays, outdir):
    os.makedirs(figdir, exist_ok=True)
    for old in os.listdir(figdir):
        if old.endswith(".json"):
            os.unlink(os.path.join(figdir, old))
    run = {"started": summary.get("started", "?"), "source": "make entropy",
           "kernel": next((s.get("collect", {}).get("kernel") for s in
                           summary["sources"].values() if s.get("collect", {}).get("kernel")),
                          "-"),
           "accel": "host"}
    ids = []
    figs = []
    if arrays:
        figs += [deltas_figure(summary, arrays), correlation_figure(summary, arrays)]
    figs.append(restart_figure(summary, outdir))
    for fig in figs:
        if not fig.get("panels"):
            continue
        fig["run"] = run
        files.write_json(os.path.join(figdir, f"{fig['id']}.json"), fig)
        ids.append(fig["id"])
    return ids
