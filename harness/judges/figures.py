# SPDX-License-Identifier: GPL-2.0-only
"""The data of the book's figures, from real runs only.

`make conform` calls figure_checks_and_files() after its boots.  It writes
build/conformance/figures/<id>.json (the format of book/README.md,
section "Figures") for:

jitter-deltas  the time deltas of the Jitter RNG's raw samples: those the
               test kernel measured in the guest (boot main, through the
               debugfs file jitterentropy_rng/record) and, for comparison,
               those of the same tangled core compiled on the host and
               read against the CPU's time stamp counter;
health-tests   the Repetition Count Test's run length and the Adaptive
               Proportion Test's count after every raw sample: the guest's
               good run, and two failures induced on the host with a
               scripted timer (one that stops, one that repeats a delta),
               with the intermittent and permanent cutoffs.

Nothing is taken on trust.  The guest sends the time stamps the kernel
handed to the core, not deltas; the host replays the read with the
independent model (jitter_model.py, through jitter_replay.py) on exactly those time stamps and
uses the data only when the model consumes all of them and produces the
kernel's output byte for byte.  The host's own runs are replayed the same
way, and the induced failures run in both the tangled C core (the test
driver of conformance/jitter) and the model, which must agree after every read.
Input that does not parse, is incomplete or does not replay is refused
with FigureDataError, and the figure is not written: the book then shows
its placeholder.
"""

import json
import math
import os
import re

from ..base.checks import Check
from ..base import files
from . import jitter_model as model
from .jitter_replay import (GOOD, READ_BYTES, SHOWN_BEFORE, TCG_LABEL, FigureDataError,
                            build_driver, guest_record, induced_failure, native_record,
                            replay)

KINDS = ("histogram", "bar", "line", "scatter")
IDS = ("jitter-deltas", "health-tests")


def run_info(run):
    keys = ("started", "kernel", "accel", "boot", "source")
    return {k: str(run[k]) for k in keys if k in run}


def deltas_figure(guest, guest_replay, run, native=None, native_replay=None):
    """The distribution of the raw samples' time deltas."""
    g = [s[0] for s in guest_replay["samples"]]
    tcg = "tcg" in str(run.get("accel", "")).lower()
    where = ("QEMU TCG: " + TCG_LABEL) if tcg else f"accelerator {run.get('accel', '?')}"
    panels = [{
        "title": f"guest, boot main ({where})",
        "kind": "histogram", "log_x": True, "log_y": True, "bins": 80,
        "xlabel": "time delta (time stamp counter ticks)", "ylabel": "raw samples",
        "accel": str(run.get("accel", "?")),
        "series": [{"label": f"{len(g)} raw samples of one {guest['bytes']}-byte read",
                    "values": g}]}]
    cap = (f"The time deltas of the {len(g)} raw samples (the deltas the health "
           f"tests judged) of one {guest['bytes']}-byte read of a new "
           "jitterentropy_rng instance in the test kernel, boot main, recorded "
           "through jitterentropy_rng/record; the host model, replaying the read "
           f"on the {guest_replay['stamps']} recorded time stamps, reproduced the "
           "kernel's output byte for byte.")
    if tcg:
        cap += (" Under TCG the guest's time stamp counter is the host's, read "
                "through an emulator: the spread shows QEMU's translation and the "
                "host's scheduling, not a CPU's execution-time jitter.")
    if native:
        n = [s[0] for s in native_replay["samples"]]
        panels.append({
            "title": f"host, native ({native['clock']}; the build machine, "
                     f"{native.get('machine', '?')})",
            "kind": "histogram", "log_x": True, "log_y": True, "bins": 80,
            "xlabel": "time delta (time stamp counter ticks)", "ylabel": "raw samples",
            "accel": "host",
            "series": [{"label": f"{len(n)} raw samples of one {native['bytes']}-byte read",
                        "values": n}]})
        cap += (f" Below, for comparison: the same tangled core compiled on the "
                f"build machine at -O0 (conformance/jitter), timed by {native['clock']}, "
                f"{len(n)} raw samples of one {native['bytes']}-byte read, replayed "
                "and reproduced by the model the same way; host load average "
                f"{native.get('load', '?')}.")
    return {"id": "jitter-deltas", "title": "Jitter RNG: distribution of the time deltas",
            "caption": cap, "layout": [len(panels), 1], "sharex": True,
            "panels": panels, "run": run_info(run)}


CUTOFFS = {"rct": (model.RCT_CUT, model.RCT_CUT_PERM),
           "apt": (model.APT_CUT, model.APT_CUT_PERM)}


def _test_panel(test, title, samples, accel, first=0):
    col = 1 if test == "rct" else 2
    cut, perm = CUTOFFS[test]
    y = [s[col] for s in samples]
    x = list(range(first, first + len(y)))
    series = [{"label": "RCT run length" if test == "rct" else "APT count",
               "kind": "line", "y": y}]
    if first:
        series[0]["x"] = x
    for lv, name, color in ((1, "intermittent failure", "#e08a00"),
                            (2, "permanent failure", "#b3261e")):
        pts = [(xi, s[col]) for xi, s in zip(x, samples) if s[3] == lv]
        if pts:
            series.append({"label": f"{name} ({len(pts)} samples)", "kind": "scatter",
                           "color": color, "x": [p[0] for p in pts],
                           "y": [p[1] for p in pts]})
    return {"title": title, "kind": "line", "accel": accel,
            "xlabel": "raw sample", "ylabel": "RCT run" if test == "rct" else "APT count",
            "hlines": [{"y": cut, "label": f"intermittent cutoff {cut}",
                        "color": "#e08a00"},
                       {"y": perm, "label": f"permanent cutoff {perm}",
                        "color": "#b3261e"}],
            "series": series}


def _reads_summary(f):
    rs = f["reads"]
    codes = [r["result"] for r in rs]
    ok = codes.count(0)
    inter = codes.count(-2)
    return (f"{ok} read(s) succeeded, {inter} failed intermittently (-2, "
            f"-EAGAIN in the kernel), read {len(rs)} failed permanently (-3, -EFAULT)")


def health_figure(guest, guest_replay, run, stopped, repeated):
    """RCT and APT counts after every raw sample: guest good run (left),
    failures induced on the host (right)."""
    s = guest_replay["samples"]
    tcg = "tcg" in str(run.get("accel", "")).lower()
    accel = str(run.get("accel", "?"))
    gname = "guest, boot main" + (" (TCG)" if tcg else f" ({accel})")
    c1 = max(0, stopped["fault"] - SHOWN_BEFORE)
    c2 = max(0, repeated["fault"] - SHOWN_BEFORE)
    panels = [
        _test_panel("rct", f"RCT, {gname}", s, accel),
        _test_panel("rct", "RCT, host, scripted timer: the clock stops",
                    stopped["samples"][c1:], "host", first=c1),
        _test_panel("apt", f"APT, {gname}", s, accel),
        _test_panel("apt", "APT, host, scripted timer: one delta in 3 of 4",
                    repeated["samples"][c2:], "host", first=c2),
    ]
    rct_max = max(x[1] for x in s)
    apt_max = max(x[2] for x in s)
    cap = (f"The Repetition Count Test's run length (top) and the Adaptive "
           f"Proportion Test's count (bottom) after every raw sample, with the "
           f"intermittent and permanent cutoffs (RCT {model.RCT_CUT} and "
           f"{model.RCT_CUT_PERM}, APT {model.APT_CUT} and {model.APT_CUT_PERM}, "
           f"window {model.APT_WINDOW}).  Left: the {len(s)} raw samples of the "
           f"guest's recorded {guest['bytes']}-byte read (largest RCT run {rct_max}, "
           f"largest APT count {apt_max}), counted by the host model on the "
           "kernel's own time stamps, a replay that reproduced the kernel's "
           "output.  Right: failures induced on the host with a scripted timer "
           f"(conformance/jitter), after {GOOD} good measurements (pseudo-random "
           f"deltas), shown from {SHOWN_BEFORE} raw samples before the fault; "
           f"reads of {READ_BYTES} bytes until a permanent failure, run in the "
           "tangled C core and in the model, which agree on every read's result "
           "and state.  Clock stopped at raw sample "
           f"{stopped['fault']}: " + _reads_summary(stopped) + ".  One delta "
           f"(4500) in three of four from raw sample {repeated['fault']}: "
           + _reads_summary(repeated) + ".")
    if tcg:
        cap += " The guest's timer is QEMU's emulation of the time stamp counter."
    return {"id": "health-tests", "title": "Jitter RNG: health-test behaviour",
            "caption": cap, "layout": [2, 2], "panels": panels, "run": run_info(run)}


# ------------------------------------------------------------ validation

def _num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _series_problems(where, kind, s):
    out = []
    if not isinstance(s, dict):
        return [f"{where}: a series is not an object"]
    k = s.get("kind", kind)
    if k not in KINDS:
        out.append(f"{where}: series kind {k!r}")
    if k in ("histogram", "bar"):
        v = s.get("values")
        if not isinstance(v, list) or not v or not all(_num(x) for x in v):
            out.append(f"{where}: values must be a non-empty list of numbers")
    else:
        y = s.get("y")
        if not isinstance(y, list) or not y or not all(_num(v) for v in y):
            out.append(f"{where}: y must be a non-empty list of numbers")
        elif "x" in s and (not isinstance(s["x"], list) or len(s["x"]) != len(y)
                           or not all(_num(v) for v in s["x"])):
            out.append(f"{where}: x must be numbers, as many as y")
    if "label" in s and not isinstance(s["label"], str):
        out.append(f"{where}: label is not a string")
    return out


def validate(fig):
    """Problems of a figure's data against book/README.md ([] when valid)."""
    if not isinstance(fig, dict):
        return ["the figure is not an object"]
    out = []
    if not isinstance(fig.get("id"), str) or not re.fullmatch(r"[a-z0-9-]+", fig["id"]):
        out.append("id must be lower-case letters, digits and dashes")
    for k in ("title", "caption"):
        if not isinstance(fig.get(k), str) or not fig[k].strip():
            out.append(f"{k} is missing")
    run = fig.get("run")
    if not isinstance(run, dict) or not all(isinstance(run.get(k), str) and run[k]
                                            for k in ("started", "kernel", "accel")):
        out.append("run must name started, kernel and accel")
    panels = fig.get("panels")
    if panels is None:
        panels = [fig]
    elif not isinstance(panels, list) or not panels:
        return out + ["panels must be a non-empty list"]
    lay = fig.get("layout", [len(panels), 1])
    if not (isinstance(lay, list) and len(lay) == 2 and all(isinstance(v, int) and v > 0
                                                            for v in lay)
            and lay[0] * lay[1] >= len(panels)):
        out.append("layout must be [rows, cols] with room for every panel")
    for i, p in enumerate(panels):
        where = f"panel {i}" if p is not fig else "figure"
        if not isinstance(p, dict):
            out.append(f"{where}: not an object")
            continue
        kind = p.get("kind", "histogram")
        if kind not in KINDS:
            out.append(f"{where}: kind {kind!r}")
        series = p.get("series")
        if not isinstance(series, list) or not series:
            out.append(f"{where}: no series")
            continue
        for s in series:
            out += _series_problems(where, kind, s)
        for h in p.get("hlines", []):
            if not isinstance(h, dict) or not _num(h.get("y")):
                out.append(f"{where}: an hline without a numeric y")
        if p.get("log_x") and kind == "histogram" and not all(
                x > 0 for s in series for x in s.get("values", []) if _num(x)):
            out.append(f"{where}: a logarithmic x axis needs positive values")
    return out


def write(fig, figdir):
    problems = validate(fig)
    if problems:
        raise FigureDataError(f"figure {fig.get('id')}: " + "; ".join(problems[:5]))
    path = os.path.join(figdir, f"{fig['id']}.json")
    files.write_text(path, json.dumps(fig, separators=(",", ":"), allow_nan=False) + "\n")
    return path


# ------------------------------------------------------------- conform

GUEST_TITLE = "the kernel's recorded read, recomputed by the host model from its time stamps"
NATIVE_TITLE = ("the tangled core on the host (real time stamp counter), recomputed "
                "by the model")


def machine_note():
    """What the build machine is: its CPU model and whether it is itself a
    virtual machine (the hypervisor flag of /proc/cpuinfo)."""
    model_name, hv = "?", False
    try:
        with open("/proc/cpuinfo") as f:
            for ln in f:
                if ln.startswith("model name") and model_name == "?":
                    model_name = ln.split(":", 1)[1].strip()
                if ln.startswith("flags") and " hypervisor" in ln:
                    hv = True
    except OSError:
        pass
    return model_name + (", itself a virtual machine" if hv else "")


def guest_replay(recs):
    """(guest record, its replay, [Check]) of the main boot's record."""
    try:
        guest = guest_record(recs)
    except FigureDataError as e:
        return None, None, [Check.skipped("jitter.replay.guest", GUEST_TITLE,
                                          f"no usable record from the guest: {e}",
                                          origin="host")]
    try:
        grep = replay(guest)
    except FigureDataError as e:
        return guest, None, [Check.failed("jitter.replay.guest", GUEST_TITLE,
                                          str(e)[:1000], origin="host")]
    return guest, grep, [Check.passed(
        "jitter.replay.guest", GUEST_TITLE, origin="host",
        counts={"bytes": guest["bytes"], "stamps": len(guest["stamps"]),
                "measurements": grep["measurements"], "samples": len(grep["samples"])})]


def native_replay(workdir):
    """(driver, native record, its replay, [Check]) of a host run."""
    exe = None
    try:
        exe = build_driver(workdir)
        native = native_record(exe)
        native["machine"] = machine_note()
        native["load"] = "%.2f" % os.getloadavg()[0]
        nrep = replay(native)
    except FigureDataError as e:
        return exe, None, None, [Check.failed("jitter.replay.native", NATIVE_TITLE,
                                              str(e)[:1000], origin="host")]
    return exe, native, nrep, [Check.passed(
        "jitter.replay.native", NATIVE_TITLE, origin="host",
        counts={"bytes": native["bytes"], "stamps": len(native["stamps"]),
                "samples": len(nrep["samples"])})]


def _write_figure(fid, make, figdir, written, checks):
    try:
        written[fid] = write(make(), figdir)
    except FigureDataError as e:
        checks.append(Check.failed(f"figures.{fid}", "figure data written", str(e)[:1000],
                                   origin="host"))


def figure_checks_and_files(recs, run, outdir, workdir):
    """Checks and figure files from the main boot's results lines (recs)
    and host runs; run = {"started", "kernel", "accel", "boot", "source"}.
    Stale figures of these ids are removed first: a figure is always this
    run's or absent."""
    figdir = os.path.join(outdir, "figures")
    for fid in IDS:
        try:
            os.unlink(os.path.join(figdir, f"{fid}.json"))
        except FileNotFoundError:
            pass
    guest, grep, checks = guest_replay(recs)
    exe, native, nrep, more = native_replay(workdir)
    checks += more
    written = {}
    if grep:
        _write_figure("jitter-deltas", lambda: deltas_figure(guest, grep, run, native, nrep),
                      figdir, written, checks)

        def health():
            if not exe:
                raise FigureDataError("no test driver for the induced failures")
            return health_figure(guest, grep, run, induced_failure(exe, "stopped-clock"),
                                 induced_failure(exe, "repeated-delta"))
        _write_figure("health-tests", health, figdir, written, checks)
    for fid, path in written.items():
        checks.append(Check.passed(f"figures.{fid}", "figure data written from this run",
                                   origin="host", counts={"bytes": os.path.getsize(path)}))
    for fid in IDS:
        if not any(c.id == f"figures.{fid}" for c in checks):
            checks.append(Check.skipped(f"figures.{fid}", "figure data written from this "
                                        "run", "no replayed guest record in this run",
                                        origin="host"))
    return checks, written
