# SPDX-License-Identifier: GPL-2.0-only
"""Hook: figures drawn from a real run's data.

render.py calls render(ctx) (see worked_example.py for ctx) and puts
the Markdown it returns after the chapters.  A figure is drawn only from a
data file; nothing here invents numbers.

Data files: build/conformance/figures/*.json (written next to the run's
report.json by whoever measures the data), one figure each:

  {
    "id": "jitter-deltas",            anchor fig-<id>; file figures/<id>.png
    "title": "...", "caption": "...",
    "kind": "histogram" | "line" | "scatter" | "bar",
    "xlabel": "...", "ylabel": "...", "log_x": false, "log_y": false,
    "bins": 60,
    "series": [{"label": "...", "values": [...]}          histogram, bar
               | {"label": "...", "x": [...], "y": [...]}],  line, scatter
    "hlines": [{"y": 31, "label": "...", "color": "#b3261e"}],
    "run": {"started": "...", "kernel": "...", "accel": "tcg" | "kvm" | "host",
            "boot": "...", "source": "what measured it"}
  }

or, for several panels, "panels": [{"title", "kind", "xlabel", "ylabel",
"log_x", "log_y", "bins", "series", "hlines", "accel"}, ...] with
"layout": [rows, cols] and "sharex".  A series may override the panel's
kind ("line" or "scatter" markers in one panel) and give a "color"; a
line without "x" is drawn against 0, 1, 2, ...

"run" may be left out: the run of build/conformance/report.json is used.
A figure from a TCG guest (accel "tcg") is labelled "emulated timer, not
evidence" in the picture and in its caption; in a figure of several panels,
each panel whose "accel" is tcg is stamped (one without "accel" takes the
run's).  The figures the book expects
(EXPECTED) get a placeholder with their anchor while their data is absent,
so the chapters may link to #fig-<id> at any time.
"""

import glob
import json
import os

EXPECTED = [
    ("jitter-deltas", "Jitter RNG: distribution of the time deltas",
     "the time deltas the Jitter RNG's noise source measured in the guest"),
    ("health-tests", "Jitter RNG: health-test behaviour",
     "the repetition count and adaptive proportion tests over a run"),
]
TCG_LABEL = "emulated timer, not evidence"


def run_of(fig, report):
    run = dict(fig.get("run") or {})
    if report and not run:
        boots = report.get("boots", [])
        accels = sorted({b.get("accel", "?") for b in boots})
        run = {"started": report.get("started", "?"),
               "kernel": report.get("kernel", {}).get("release", "?"),
               "accel": ",".join(accels) or "?", "source": "report.json"}
    return run


def _is_tcg(accel):
    return "tcg" in str(accel or "").lower()


def _log_bins(panels, n):
    """Geometric bin edges covering every histogram value of the panels."""
    import numpy as np
    vals = [v for p in panels for s in p.get("series", []) for v in s.get("values", [])
            if v > 0]
    lo, hi = min(vals), max(vals)
    if lo == hi:
        hi = lo * 1.01
    return np.geomspace(lo, hi, n + 1)


def _draw_panel(ax, p, bins):
    kind = p.get("kind", "histogram")
    for s in p.get("series", []):
        k = s.get("kind", kind)
        style = {"label": s.get("label")}
        if s.get("color"):
            style["color"] = s["color"]
        if k == "histogram":
            ax.hist(s["values"], bins=bins if bins is not None else p.get("bins", 60),
                    alpha=.75, **style)
        elif k == "bar":
            ax.bar(range(len(s["values"])), s["values"], **style)
        else:
            y = s["y"]
            x = s.get("x", list(range(len(y))))
            if k == "scatter":
                ax.scatter(x, y, s=9, zorder=3, **style)
            else:
                ax.plot(x, y, linewidth=.8, **style)
    for h in p.get("hlines", []):
        ax.axhline(h["y"], linestyle=h.get("style", "dashed"), linewidth=.9,
                   color=h.get("color", "#555555"), label=h.get("label"))
    if p.get("log_x"):
        ax.set_xscale("log")
    if p.get("log_y"):
        ax.set_yscale("log")
    ax.set_xlabel(p.get("xlabel", ""), fontsize=8)
    ax.set_ylabel(p.get("ylabel", ""), fontsize=8)
    ax.tick_params(labelsize=7)
    if any(s.get("label") for s in p.get("series", [])) or p.get("hlines"):
        ax.legend(fontsize=6.5, loc="best")


def draw(fig, run, path):
    """Draw fig into path; True when any of it is from a TCG guest.  A
    figure is one panel, or "panels" on a grid ("layout": [rows, cols]);
    a panel (or the figure) whose "accel" is tcg, or that has none in a
    TCG run, is stamped "emulated timer, not evidence"."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = fig.get("panels") or [fig]
    rows, cols = fig.get("layout") or [len(panels), 1]
    height = 3.8 if rows * cols == 1 else 1.2 + 2.6 * rows
    fig_, axes = plt.subplots(rows, cols, figsize=(7.0 if cols == 1 else 8.0, height),
                              dpi=120, squeeze=False, sharex=bool(fig.get("sharex")))
    hists = [p for p in panels if p.get("kind", "histogram") == "histogram"]
    bins = None
    if fig.get("sharex") and hists and any(p.get("log_x") for p in hists):
        bins = _log_bins(hists, max(p.get("bins", 60) for p in hists))
    any_tcg = False
    for ax, p in zip(axes.flat, panels):
        b = bins
        if b is None and p.get("log_x") and p.get("kind", "histogram") == "histogram":
            b = _log_bins([p], p.get("bins", 60))
        _draw_panel(ax, p, b)
        if p is not fig:
            ax.set_title(p.get("title", ""), fontsize=8.5)
        tcg = _is_tcg(p.get("accel", run.get("accel")))
        if tcg:
            any_tcg = True
            ax.text(0.5, 0.5, TCG_LABEL, transform=ax.transAxes,
                    fontsize=18 if len(panels) == 1 else 12,
                    color="#b3261e", alpha=.45, ha="center", va="center",
                    rotation=12, zorder=10)
    for ax in list(axes.flat)[len(panels):]:
        ax.set_visible(False)
    if len(panels) == 1:
        axes[0][0].set_title(fig.get("title", fig["id"]), fontsize=10)
    else:
        fig_.suptitle(fig.get("title", fig["id"]), fontsize=10)
    who = f"run {run.get('started', '?')}, kernel {run.get('kernel', '?')}, " \
          f"{run.get('accel', '?')}"
    fig_.text(0.01, 0.01, who, fontsize=7, color="#555555")
    fig_.tight_layout(rect=(0, 0.03, 1, 1))
    fig_.savefig(path, metadata={"Software": None})
    plt.close(fig_)
    return any_tcg


def render(ctx):
    esc, code = ctx["esc"], ctx["code"]
    top, outdir, report = ctx["top"], ctx["outdir"], ctx.get("report")
    notes = []
    datadir = os.path.join(top, "build/conformance/figures")
    figdir = os.path.join(outdir, "figures")
    os.makedirs(figdir, exist_ok=True)
    for old in glob.glob(os.path.join(figdir, "*.png")):
        os.unlink(old)
    out = ["# Figures from the last run {- #figures}", "",
           "Pictures of what a run measured, drawn when the book is built from "
           f"the data files in {code('build/conformance/figures/')}; each says "
           "which run it comes from.  Figures from a guest under QEMU's TCG "
           f"are marked *{TCG_LABEL}*: TCG's clock is the host's, seen through "
           "an emulator, and says nothing about a real CPU's jitter.", ""]
    figs = []
    for path in sorted(glob.glob(os.path.join(datadir, "*.json"))):
        try:
            with open(path, encoding="utf-8") as f:
                fig = json.load(f)
            fig.setdefault("id", os.path.splitext(os.path.basename(path))[0])
            figs.append((path, fig))
        except (OSError, ValueError) as e:
            notes.append(f"figure data {os.path.relpath(path, top)} unreadable: {e}")
    have = {f["id"] for _, f in figs}
    for path, fig in figs:
        run = run_of(fig, report)
        png = os.path.join(figdir, f"{fig['id']}.png")
        try:
            tcg = draw(fig, run, png)
        except Exception as e:
            notes.append(f"figure {fig['id']}: {type(e).__name__}: {e}")
            out += [f"::: {{#fig-{fig['id']} .placeholder}}",
                    f"Figure {code(fig['id'])} could not be drawn: {esc(str(e)[:200])}",
                    ":::", ""]
            continue
        cap = fig.get("caption", fig.get("title", fig["id"]))
        who = (f"Run of {run.get('started', '?')}, kernel {run.get('kernel', '?')}, "
               f"accelerator {run.get('accel', '?')}"
               + (f", {run['source']}" if run.get("source") else ""))
        label = f" **{TCG_LABEL.capitalize()}.**" if tcg else ""
        out += [f"## {esc(fig.get('title', fig['id']))} {{- #figsec-{fig['id']}}}", "",
                f"::: {{#fig-{fig['id']} .figure}}",
                f"![{esc(cap)} ({esc(who)}.){label}](figures/{fig['id']}.png){{width=100%}}",
                "", f"Data: {code(os.path.relpath(path, top))}.", ":::", ""]
    for fid, title, what in EXPECTED:
        if fid in have:
            continue
        out += [f"## {esc(title)} {{- #figsec-{fid}}}", "",
                f"::: {{#fig-{fid} .placeholder}}",
                f"**No data yet.** This figure shows {esc(what)}.  It is drawn from "
                f"{code(f'build/conformance/figures/{fid}.json')}, which no run "
                "has written yet.", ":::", ""]
    return "\n".join(out) + "\n", notes
