# SPDX-License-Identifier: GPL-2.0-only
"""The Jitter RNG's reads, replayed: the guest's recorded read, the host's
own runs of the tangled core, and failures induced with a scripted timer.

The guest sends the time stamps the kernel handed to the core, not
deltas; the host replays the read with the independent model
(jitter_model.py) on exactly those time stamps, and the data is used only
when the model consumes all of them and produces the kernel's output byte
for byte.  The host's own runs (the test driver of conformance/jitter
with the tangled core, at -O0) are replayed the same way, and the induced
failures run in both the C core and the model, which must agree after
every read.  Input that does not parse, is incomplete or does not replay
is refused with FigureDataError.
"""

import os
import random
import re
import subprocess

from ..base import config
from . import jitter_model as model

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
    """The test driver of conformance/jitter with the tangled core, at -O0."""
    os.makedirs(outdir, exist_ok=True)
    exe = os.path.join(outdir, "jent-driver")
    jdir = config.top("conformance/jitter")
    edir = config.top("conformance/entropy")     # zalloc.c, shared with the collectors
    cmd = ["gcc", "-O0", "-std=gnu11", "-Wall", "-Wextra", "-Werror",
           "-I", jdir, "-I", edir, "-I", config.top("tangled"), "-o", exe,
           os.path.join(jdir, "driver.c"), os.path.join(jdir, "shim.c"),
           os.path.join(edir, "zalloc.c"), "-lcrypto"]     # SHA3-256: shim.c
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
# A new collector's first read of 32 bytes takes 1 + FIRST_PRIMING +
# BLOCK_SAMPLES = 385 measurements (more with stuck ones); 400 good ones
# let exactly that read succeed, and the fault fails the second.
GOOD = 400          # measurements before the fault: one read succeeds first
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

