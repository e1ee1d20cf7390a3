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
independent model (tests/jitter/model.py) on exactly those time stamps and
uses the data only when the model consumes all of them and produces the
kernel's output byte for byte.  The host's own runs are replayed the same
way, and the induced failures run in both the tangled C core (the test
driver of tests/jitter) and the model, which must agree after every read.
Input that does not parse, is incomplete or does not replay is refused
with FigureDataError, and the figure is not written: the book then shows
its placeholder.
"""

import json
import math
import os
import random
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "tests/jitter"))
import model  # noqa: E402

M64 = model.M64
TCG_LABEL = "emulated timer, not evidence"
KINDS = ("histogram", "bar", "line", "scatter")
IDS = ("jitter-deltas", "health-tests")
# What the kernel's read returns (errno) for each result of the core.
ERRNO_OF = {0: 0, -1: -22, -2: -11, -3: -14}
GUEST_BYTES = 768


class FigureDataError(Exception):
    """Input that cannot be vouched for: no figure is drawn from it."""


# ---------------------------------------------------------------- records

def guest_record(recs):
    """The guest's record (results lines of jitter_samples.c) as
    {"bytes", "result", "output", "stamps", "hypervisor", "us"}."""
    heads = [r for r in recs if isinstance(r, dict) and r.get("type") == "jitter-record"]
    if len(heads) != 1:
        raise FigureDataError(f"{len(heads)} jitter-record lines, expected 1")
    h = heads[0]
    for k in ("bytes", "result", "stamps", "lost", "lines"):
        if not isinstance(h.get(k), int) or isinstance(h.get(k), bool):
            raise FigureDataError(f"jitter-record: {k} is not an integer")
    if h["lost"]:
        raise FigureDataError(f"jitter-record: {h['lost']} time stamps were lost")
    if h["bytes"] <= 0 or h["stamps"] <= 0 or h["lines"] <= 0:
        raise FigureDataError("jitter-record: no bytes or no time stamps")
    out = h.get("output")
    if not isinstance(out, str) or not re.fullmatch(r"[0-9a-f]*", out) \
            or len(out) != 2 * h["bytes"]:
        raise FigureDataError("jitter-record: the output is not 2 hex digits per byte")
    chunks = {}
    for r in recs:
        if not isinstance(r, dict) or r.get("type") != "jitter-stamps":
            continue
        seq = r.get("seq")
        if not isinstance(seq, int) or seq in chunks:
            raise FigureDataError(f"jitter-stamps: bad or repeated seq {seq!r}")
        chunks[seq] = r
    if sorted(chunks) != list(range(h["lines"])):
        raise FigureDataError(f"jitter-stamps: lines {sorted(chunks)[:5]}..., "
                              f"expected 0..{h['lines'] - 1}")
    stamps = []
    for seq in range(h["lines"]):
        c = chunks[seq]
        d = c.get("d")
        if c.get("first") != len(stamps) or not isinstance(d, list) or c.get("n") != len(d):
            raise FigureDataError(f"jitter-stamps {seq}: first/n do not match")
        for v in d:
            if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= M64:
                raise FigureDataError(f"jitter-stamps {seq}: {v!r} is not a 64-bit value")
            stamps.append(v if not stamps else (stamps[-1] + v) & M64)
    if len(stamps) != h["stamps"]:
        raise FigureDataError(f"{len(stamps)} time stamps, the header says {h['stamps']}")
    return {"bytes": h["bytes"], "result": h["result"], "output": bytes.fromhex(out),
            "stamps": stamps, "hypervisor": str(h.get("hypervisor", "")),
            "us": h.get("us")}


class RecordedTimer:
    """The model's timer, handing out exactly the recorded time stamps."""

    def __init__(self, stamps):
        self.stamps = stamps
        self.reads = 0

    def __call__(self):
        if self.reads >= len(self.stamps):
            raise model.TimerExhausted(self.reads)
        self.reads += 1
        return self.stamps[self.reads - 1]


class TracingHealth(model.Health):
    """The model's health tests, keeping what they saw after every raw
    sample: (delta, RCT run, APT count, level, time stamps read so far)."""

    def __init__(self, timer):
        super().__init__()
        self.timer = timer
        self.log = []

    def insert(self, delta):
        lv = super().insert(delta)
        self.log.append((delta, self.rct_run, self.apt_count, lv, self.timer.reads))
        return lv


def collector(timer):
    ec = model.Collector(timer)
    ec.health = TracingHealth(timer)
    return ec


def replay(rec):
    """Read rec["bytes"] from a new model collector on exactly rec's time
    stamps; refuse unless all of them are used and the output and result
    are the recorded ones.  Returns the samples the health tests saw."""
    timer = RecordedTimer(rec["stamps"])
    ec = collector(timer)
    try:
        rc, out = ec.read(rec["bytes"])
    except model.TimerExhausted:
        raise FigureDataError(f"the model needs more than the {len(rec['stamps'])} "
                              "recorded time stamps") from None
    if timer.reads != len(rec["stamps"]):
        raise FigureDataError(f"the model used {timer.reads} of the "
                              f"{len(rec['stamps'])} recorded time stamps")
    if ERRNO_OF.get(rc) != rec["result"]:
        raise FigureDataError(f"the model's read returns {rc}, the record says "
                              f"{rec['result']}")
    if out != rec["output"]:
        raise FigureDataError("the model's output differs from the recorded output "
                              f"(first bytes {out[:8].hex()} vs {rec['output'][:8].hex()})")
    return {"samples": ec.health.log, "measurements": len(ec.trace),
            "stamps": timer.reads}


# ------------------------------------------------------------ host runs

def build_driver(outdir):
    """The test driver of tests/jitter with the tangled core, at -O0."""
    os.makedirs(outdir, exist_ok=True)
    exe = os.path.join(outdir, "jent-driver")
    jdir = os.path.join(TOP, "tests/jitter")
    cmd = ["gcc", "-O0", "-std=gnu11", "-Wall", "-Wextra", "-Werror",
           "-I", jdir, "-I", os.path.join(TOP, "tangled"), "-o", exe,
           os.path.join(jdir, "driver.c"), os.path.join(jdir, "shim.c")]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        raise FigureDataError("the test driver does not build: "
                              + (r.stderr.strip().splitlines() or ["?"])[0])
    return exe


def drive(exe, cmds):
    r = subprocess.run([exe], input="\n".join(cmds) + "\n", capture_output=True,
                       text=True, timeout=600)
    if r.returncode:
        raise FigureDataError(f"the test driver exited {r.returncode}: {r.stdout[-300:]}")
    return r.stdout.splitlines()


READ = re.compile(r"read (-?\d+) ([0-9a-f]*) guard=a5$")


def native_record(exe, nbytes=GUEST_BYTES):
    """One read of nbytes by the tangled core on the host, timed by the
    CPU's counter (rdtsc on x86), with every time stamp it took."""
    out = drive(exe, ["timer 0", "tsc", "new 1 0", "record 1", f"read {nbytes}",
                      "record 0", "stamps"])
    clock = next((ln.split()[1] for ln in out if ln.startswith("tsc ")), None)
    m = next((READ.match(ln) for ln in out if ln.startswith("read ")), None)
    head = next((ln for ln in out if ln.startswith("stamps ")), None)
    if not clock or not m or not head:
        raise FigureDataError("the test driver's output is not as expected")
    stamps = [int(ln[2:]) for ln in out if ln.startswith("s ")]
    if len(stamps) != int(head.split()[1]):
        raise FigureDataError("the test driver lost time stamps")
    rc = int(m.group(1))
    return {"bytes": nbytes, "result": ERRNO_OF.get(rc, rc),
            "output": bytes.fromhex(m.group(2)), "stamps": stamps, "clock": clock}


def timer_lines(t0, segs):
    lines, incs = [f"timer {t0}"], []
    for s in segs:
        if s[0] == "inc":
            incs.append(str(s[1]))
            continue
        if incs:
            lines.append("inc " + " ".join(incs))
            incs = []
        lines.append(" ".join(str(x) for x in s))
    if incs:
        lines.append("inc " + " ".join(incs))
    return lines


def deltas_segments(deltas):
    """Timer segments on which measurement i has delta deltas[i] (three
    reads per measurement: +1, +(delta - 1), +0)."""
    segs = []
    for d in deltas:
        segs += [("inc", 1), ("inc", d - 1), ("inc", 0)]
    return segs


# The two induced failures: a good start (pseudo-random deltas), then a
# fault.  Deterministic, so that every build draws the same curves.
GOOD = 2000         # measurements before the fault: a read succeeds first
SHOWN_BEFORE = 200  # raw samples drawn before the fault


def induced_timer(kind):
    rnd = random.Random(f"figures-{kind}")
    good = [rnd.randrange(2000, 6000) for _ in range(GOOD)]
    if kind == "stopped-clock":
        return 1000, deltas_segments(good) + [("const", 0)]
    if kind == "repeated-delta":
        # One delta, 4500, in three measurements of four; others random.
        bad = [4500 if rnd.random() < 0.75 else rnd.randrange(2000, 6000)
               for _ in range(6000)]
        return 1000, deltas_segments(good + bad) + [("rand", 12345, 2000, 4000, 0)]
    raise ValueError(kind)


STATE = re.compile(r"state (.*)$")
MAX_READS = 200
READ_BYTES = 32


def induced_failure(exe, kind):
    """Reads of 32 bytes until a permanent failure, in the tangled C core
    and in the model, on the same scripted timer; they must agree on every
    read's result and on the whole state after it."""
    t0, segs = induced_timer(kind)
    cmds = timer_lines(t0, segs) + ["new 1 0"]
    cmds += [f"read {READ_BYTES}", "state"] * MAX_READS
    out = drive(exe, cmds)
    reads = [READ.match(ln) for ln in out if ln.startswith("read ")]
    states = [ln for ln in out if ln.startswith("state ")]
    ec = collector(model.Timer(t0, segs))
    results = []
    for i in range(MAX_READS):
        before = len(ec.health.log)
        rc, data = ec.read(READ_BYTES)
        if not reads[i] or int(reads[i].group(1)) != rc or \
                bytes.fromhex(reads[i].group(2)) != data:
            raise FigureDataError(f"{kind}: read {i}: the C core and the model differ")
        c = dict(kv.split("=", 1) for kv in STATE.match(states[i]).group(1).split())
        for k, v in ec.state().items():
            if str(v) != c.get(k):
                raise FigureDataError(f"{kind}: after read {i}: {k} differs "
                                      "between the C core and the model")
        results.append({"read": i, "result": rc, "first_sample": before,
                        "samples": len(ec.health.log) - before})
        if rc == -3:
            break
    else:
        raise FigureDataError(f"{kind}: no permanent failure in {MAX_READS} reads")
    fault = next(i for i, x in enumerate(ec.health.log) if x[4] > 3 * GOOD)
    return {"kind": kind, "samples": ec.health.log, "reads": results, "fault": fault}


# -------------------------------------------------------------- figures

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
                f"build machine at -O0 (tests/jitter), timed by {native['clock']}, "
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
           f"(tests/jitter), after {GOOD} good measurements (pseudo-random "
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
    os.makedirs(figdir, exist_ok=True)
    path = os.path.join(figdir, f"{fig['id']}.json")
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(fig, f, separators=(",", ":"), allow_nan=False)
        f.write("\n")
    os.replace(tmp, path)
    return path


# ------------------------------------------------------------- conform

def _check(cid, title, status, reason=None, **counts):
    c = {"id": cid, "origin": "host", "title": title, "status": status}
    if counts:
        c["counts"] = counts
    if reason:
        c["reason"] = str(reason)[:1000]
    return c


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
    checks = []
    guest = grep = None
    try:
        guest = guest_record(recs)
    except FigureDataError as e:
        checks.append(_check("jitter.replay.guest", "the kernel's recorded read, "
                             "recomputed by the host model from its time stamps",
                             "skip", f"no usable record from the guest: {e}"))
    if guest:
        try:
            grep = replay(guest)
            checks.append(_check(
                "jitter.replay.guest", "the kernel's recorded read, recomputed by the "
                "host model from its time stamps", "pass", bytes=guest["bytes"],
                stamps=len(guest["stamps"]), measurements=grep["measurements"],
                samples=len(grep["samples"])))
        except FigureDataError as e:
            checks.append(_check("jitter.replay.guest", "the kernel's recorded read, "
                                 "recomputed by the host model from its time stamps",
                                 "fail", e))
    exe = native = nrep = None
    try:
        exe = build_driver(workdir)
        native = native_record(exe)
        native["machine"] = machine_note()
        native["load"] = "%.2f" % os.getloadavg()[0]
        nrep = replay(native)
        checks.append(_check("jitter.replay.native", "the tangled core on the host "
                             "(real time stamp counter), recomputed by the model",
                             "pass", bytes=native["bytes"], stamps=len(native["stamps"]),
                             samples=len(nrep["samples"])))
    except FigureDataError as e:
        native = None
        checks.append(_check("jitter.replay.native", "the tangled core on the host "
                             "(real time stamp counter), recomputed by the model",
                             "fail", e))
    written = {}
    if grep:
        try:
            written["jitter-deltas"] = write(
                deltas_figure(guest, grep, run, native, nrep), figdir)
        except FigureDataError as e:
            checks.append(_check("figures.jitter-deltas", "figure data written",
                                 "fail", e))
        try:
            if not exe:
                raise FigureDataError("no test driver for the induced failures")
            stopped = induced_failure(exe, "stopped-clock")
            repeated = induced_failure(exe, "repeated-delta")
            written["health-tests"] = write(
                health_figure(guest, grep, run, stopped, repeated), figdir)
        except FigureDataError as e:
            checks.append(_check("figures.health-tests", "figure data written",
                                 "fail", e))
    for fid, path in written.items():
        checks.append(_check(f"figures.{fid}", "figure data written from this run",
                             "pass", bytes=os.path.getsize(path)))
    for fid in IDS:
        if not any(c["id"] == f"figures.{fid}" for c in checks):
            checks.append(_check(f"figures.{fid}", "figure data written from this run",
                                 "skip", "no replayed guest record in this run"))
    return checks, written
