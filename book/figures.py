# SPDX-License-Identifier: GPL-2.0-only
"""Hook: figures drawn from a real run's data.

tools/book.py calls render(ctx) (see worked_example.py for ctx) and puts
the Markdown it returns after the chapters.  A figure is drawn only from a
data file; nothing here invents numbers.

Data files: build/conformance/figures/*.json (written next to the run's
report.json by whoever measures the data), one figure each:

  {
    "id": "jitter-deltas",            anchor fig-<id>; file figures/<id>.png
    "title": "...", "caption": "...",
    "kind": "histogram" | "line" | "scatter" | "bar",
    "xlabel": "...", "ylabel": "...", "log_y": false, "bins": 60,
    "series": [{"label": "...", "values": [...]}          histogram, bar
               | {"label": "...", "x": [...], "y": [...]}],  line, scatter
    "run": {"started": "...", "kernel": "...", "accel": "tcg" | "kvm" | "host",
            "boot": "...", "source": "what measured it"}
  }

"run" may be left out: the run of build/conformance/report.json is used.
A figure from a TCG guest (accel "tcg") is labelled "emulated timer, not
evidence" in the picture and in its caption.  The figures the book expects
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


def draw(fig, run, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tcg = "tcg" in str(run.get("accel", "")).lower()
    fig_, ax = plt.subplots(figsize=(7.0, 3.8), dpi=120)
    kind = fig.get("kind", "histogram")
    for s in fig.get("series", []):
        if kind == "histogram":
            ax.hist(s["values"], bins=fig.get("bins", 60), alpha=.75, label=s.get("label"))
        elif kind == "bar":
            ax.bar(range(len(s["values"])), s["values"], label=s.get("label"))
        elif kind == "scatter":
            ax.scatter(s["x"], s["y"], s=6, label=s.get("label"))
        else:
            ax.plot(s["x"], s["y"], label=s.get("label"))
    if fig.get("log_y"):
        ax.set_yscale("log")
    ax.set_xlabel(fig.get("xlabel", ""))
    ax.set_ylabel(fig.get("ylabel", ""))
    ax.set_title(fig.get("title", fig["id"]), fontsize=10)
    if any(s.get("label") for s in fig.get("series", [])):
        ax.legend(fontsize=8)
    who = f"run {run.get('started', '?')}, kernel {run.get('kernel', '?')}, " \
          f"{run.get('accel', '?')}"
    fig_.text(0.01, 0.01, who, fontsize=7, color="#555555")
    if tcg:
        ax.text(0.5, 0.5, TCG_LABEL, transform=ax.transAxes, fontsize=18,
                color="#b3261e", alpha=.45, ha="center", va="center", rotation=12,
                zorder=10)
    fig_.tight_layout(rect=(0, 0.03, 1, 1))
    fig_.savefig(path, metadata={"Software": None})
    plt.close(fig_)
    return tcg


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
