# SPDX-License-Identifier: GPL-2.0-only
"""The figure data producers (harness/judges/jitter_replay.py, the replay
and the host runs, and harness/judges/figures.py, the figure files and
their checks), and the book's figure hook that draws them.

The recorded input is tests/data/jitter-record-32.jsonl: the results
lines of a real guest (the test kernel under QEMU TCG, conform.mode=
jitter-record conform.jitter_bytes=32): one 32-byte read of a new
jitterentropy_rng instance and every time stamp the core took for it.
The producers must replay it to the kernel's output, write valid figure
files from it, and refuse anything that is not exactly such a record.
"""

import copy
import json
import os
import shutil
import tempfile
import unittest

from harness.base.config import TOP
from harness.judges import figures as fd
from harness.judges import jitter_model as model
from harness.judges import jitter_replay as jr
from harness.stages.book import figures as book_figures

DATA = os.path.join(TOP, "tests/data/jitter-record-32.jsonl")
RUN = {"started": "2026-12-03T08:04:00+00:00", "kernel": "6.1.192-test",
       "accel": "tcg", "boot": "main"}


def recorded():
    with open(DATA) as f:
        return [json.loads(ln) for ln in f if ln.strip()]


DRIVER = {}


def driver(test):
    if "exe" not in DRIVER:
        try:
            DRIVER["exe"] = jr.build_driver(tempfile.mkdtemp(prefix="figdrv-"))
        except jr.FigureDataError as e:
            DRIVER["exe"], DRIVER["err"] = None, str(e)
    if not DRIVER["exe"]:
        test.fail(DRIVER["err"])
    return DRIVER["exe"]


class RecordTest(unittest.TestCase):
    """The guest's record is parsed exactly, or refused."""

    def test_recorded_guest_record_parses(self):
        """The real record: 32 bytes, every time stamp, no loss."""
        g = jr.guest_record(recorded())
        self.assertEqual(g["bytes"], 32)
        self.assertEqual(g["result"], 0)
        self.assertEqual(len(g["output"]), 32)
        # a 32-byte read: a priming measurement, the collector's priming
        # samples and a block's counted ones, three time stamps each
        self.assertGreaterEqual(len(g["stamps"]),
                                3 * (1 + model.FIRST_PRIMING + model.BLOCK_SAMPLES))
        self.assertTrue(g["hypervisor"].startswith("TCG"))

    def test_garbage_records_are_refused(self):
        """Missing, repeated or reordered lines, wrong counts, lost time
        stamps, non-numbers, a short output: each is refused."""
        good = recorded()

        def head(recs):
            return next(r for r in recs if r.get("type") == "jitter-record")

        def stamps(recs, seq=0):
            return next(r for r in recs if r.get("type") == "jitter-stamps"
                        and r["seq"] == seq)

        def lost(r):
            head(r)["lost"] = 3

        def short_output(r):
            head(r)["output"] = head(r)["output"][:-2]

        def not_hex(r):
            head(r)["output"] = "zz" + head(r)["output"][2:]

        def count(r):
            head(r)["stamps"] += 1

        def negative(r):
            stamps(r)["d"][5] = -1

        def too_big(r):
            stamps(r)["d"][5] = 1 << 64

        def text(r):
            stamps(r)["d"][5] = "12"

        def boolean(r):
            stamps(r)["d"][5] = True

        def n_mismatch(r):
            stamps(r)["n"] -= 1

        def first_mismatch(r):
            s = [x for x in r if x.get("type") == "jitter-stamps"]
            s[-1]["first"] += 1

        def duplicate(r):
            r.append(copy.deepcopy(stamps(r)))

        def missing_chunk(r):
            r.remove(stamps(r))

        def no_header(r):
            r.remove(head(r))

        def two_headers(r):
            r.append(copy.deepcopy(head(r)))

        def not_int(r):
            head(r)["bytes"] = "32"

        cases = [lost, short_output, not_hex, count, negative, too_big, text,
                 boolean, n_mismatch, first_mismatch, duplicate, missing_chunk,
                 no_header, two_headers, not_int]
        for spoil in cases:
            with self.subTest(spoil.__name__):
                recs = copy.deepcopy(good)
                spoil(recs)
                with self.assertRaises(jr.FigureDataError):
                    jr.guest_record(recs)
        for junk in ([], [{"type": "garbled", "line": 3, "text": "x"}], [None, 3, "x"]):
            with self.assertRaises(jr.FigureDataError):
                jr.guest_record(junk)


class ReplayTest(unittest.TestCase):
    """The host model recomputes a recorded read from its time stamps."""

    def test_recorded_guest_read_replays(self):
        """The real guest record replays to the kernel's output, using
        every recorded time stamp, and its raw samples are the measurements
        but the block's priming one, the first FIRST_PRIMING of them the
        collector's priming samples."""
        g = jr.guest_record(recorded())
        r = jr.replay(g)
        self.assertEqual(r["stamps"], len(g["stamps"]))
        self.assertEqual(r["measurements"] * 3, len(g["stamps"]))
        self.assertEqual(len(r["samples"]), r["measurements"] - 1)
        self.assertGreaterEqual(len(r["samples"]), model.FIRST_PRIMING + model.BLOCK_SAMPLES)
        deltas = [s[0] for s in r["samples"]]
        t = g["stamps"]
        # Each raw sample's delta is the difference of two measurement time
        # stamps (the second of each measurement's three timer reads); the
        # first follows the block's priming measurement.
        self.assertEqual(deltas[0], t[4] - t[1])
        self.assertEqual(deltas[1], t[7] - t[4])
        self.assertTrue(all(s[3] == 0 for s in r["samples"]))

    def test_tampered_records_do_not_replay(self):
        """One time stamp changed, one missing, one too many, another
        output or another result: the replay refuses each."""
        g = jr.guest_record(recorded())
        # A time stamp (the second timer read of a measurement) moved by one
        # tick moves two deltas, which the block hashes: the stamp spoiled
        # is that of the first sample after the collector's priming ones.
        at = 3 * (1 + model.FIRST_PRIMING) + 1
        spoils = {
            "stamp": lambda x: x["stamps"].__setitem__(at, x["stamps"][at] + 1),
            "missing": lambda x: x["stamps"].pop(),
            "extra": lambda x: x["stamps"].append(x["stamps"][-1] + 5000),
            "output": lambda x: x.__setitem__("output", bytes(32)),
            "result": lambda x: x.__setitem__("result", -11),
            "bytes": lambda x: x.__setitem__("bytes", 16),
        }
        for name, spoil in spoils.items():
            with self.subTest(name):
                x = copy.deepcopy(g)
                spoil(x)
                with self.assertRaises(jr.FigureDataError):
                    jr.replay(x)

    def test_native_record_replays(self):
        """The tangled core on the host, timed by the real counter: the
        model recomputes its read from the time stamps it took."""
        n = jr.native_record(driver(self), 32)
        self.assertIn(n["clock"], ("rdtsc", "clock_monotonic_ns"))
        r = jr.replay(n)
        self.assertEqual(r["stamps"], len(n["stamps"]))

    def test_induced_failures_escalate(self):
        """Stopped clock: one good read, 30 intermittent, then permanent at
        an RCT run of 61; one delta in 3 of 4: permanent at an APT count of
        355.  The C core and the model agree after every read."""
        s = jr.induced_failure(driver(self), "stopped-clock")
        self.assertEqual([r["result"] for r in s["reads"]], [0] + [-2] * 30 + [-3])
        self.assertEqual(max(x[1] for x in s["samples"]), 61)
        a = jr.induced_failure(driver(self), "repeated-delta")
        codes = [r["result"] for r in a["reads"]]
        self.assertEqual(codes[0], 0)
        self.assertEqual(codes[-1], -3)
        self.assertEqual(set(codes[1:-1]), {-2})
        self.assertEqual(max(x[2] for x in a["samples"]), 355)
        self.assertLess(max(x[1] for x in a["samples"]), 31)


class FigureTest(unittest.TestCase):
    """Figure files from the recorded input: valid, labelled, drawable."""

    @classmethod
    def setUpClass(cls):
        cls.g = jr.guest_record(recorded())
        cls.r = jr.replay(cls.g)

    def test_figures_from_recorded_input_are_valid_and_drawn(self):
        exe = driver(self)
        n = jr.native_record(exe, 32)
        n["machine"], n["load"] = "test", "0.00"
        figs = [fd.deltas_figure(self.g, self.r, RUN, n, jr.replay(n)),
                fd.health_figure(self.g, self.r, RUN,
                                 jr.induced_failure(exe, "stopped-clock"),
                                 jr.induced_failure(exe, "repeated-delta"))]
        top = tempfile.mkdtemp(prefix="figtest-")
        try:
            for fig in figs:
                self.assertEqual(fd.validate(fig), [])
                path = fd.write(fig, os.path.join(top, "build/conformance/figures"))
                with open(path) as f:
                    self.assertEqual(json.load(f)["id"], fig["id"])
            health = figs[1]
            ys = sorted(h["y"] for p in health["panels"] for h in p["hlines"])
            self.assertEqual(sorted(set(ys)), [31, 61, 325, 355])
            self.assertEqual([p["accel"] for p in health["panels"]],
                             ["tcg", "host", "tcg", "host"])
            ctx = {"top": top, "outdir": os.path.join(top, "out"), "report": None,
                   "esc": lambda s: s, "code": lambda s: f"`{s}`"}
            md, notes = book_figures.render(ctx)
            self.assertEqual(notes, [])
            for fid in fd.IDS:
                self.assertIn(f"::: {{#fig-{fid} .figure}}", md)
                self.assertGreater(os.path.getsize(
                    os.path.join(top, f"out/figures/{fid}.png")), 10000)
            self.assertEqual(md.count("Emulated timer, not evidence."), 2)
        finally:
            shutil.rmtree(top)

    def test_validate_refuses_garbage(self):
        """A figure without a run, with NaN, strings, empty series, x and y
        of different lengths, an unknown kind or a bad layout is refused,
        and write() does not write it."""
        fig = fd.deltas_figure(self.g, self.r, RUN)
        self.assertEqual(fd.validate(fig), [])
        spoils = {
            "no run": lambda f: f.pop("run"),
            "run without kernel": lambda f: f["run"].pop("kernel"),
            "nan": lambda f: f["panels"][0]["series"][0]["values"].append(float("nan")),
            "string": lambda f: f["panels"][0]["series"][0]["values"].append("7"),
            "empty": lambda f: f["panels"][0]["series"][0].__setitem__("values", []),
            "no series": lambda f: f["panels"][0].__setitem__("series", []),
            "kind": lambda f: f["panels"][0].__setitem__("kind", "pie"),
            "layout": lambda f: f.__setitem__("layout", [0, 1]),
            "log of zero": lambda f: f["panels"][0]["series"][0]["values"].append(0),
            "id": lambda f: f.__setitem__("id", "../x"),
            "caption": lambda f: f.__setitem__("caption", ""),
            "xy": lambda f: f["panels"][0].__setitem__(
                "series", [{"kind": "line", "x": [1, 2], "y": [1]}]),
            "hline": lambda f: f["panels"][0].__setitem__("hlines", [{"y": "31"}]),
            "not a dict": lambda f: f["panels"].__setitem__(0, 5),
        }
        top = tempfile.mkdtemp(prefix="figbad-")
        try:
            for name, spoil in spoils.items():
                with self.subTest(name):
                    f = copy.deepcopy(fig)
                    spoil(f)
                    self.assertNotEqual(fd.validate(f), [])
                    with self.assertRaises(jr.FigureDataError):
                        fd.write(f, top)
            self.assertEqual(os.listdir(top), [])
        finally:
            shutil.rmtree(top)

    def test_conform_entry_without_guest_data_writes_nothing(self):
        """Without a guest record, no figure file (stale ones removed):
        the book shows its placeholders, and the checks say why."""
        top = tempfile.mkdtemp(prefix="figconf-")
        try:
            figdir = os.path.join(top, "figures")
            os.makedirs(figdir)
            with open(os.path.join(figdir, "jitter-deltas.json"), "w") as f:
                f.write("{}")
            checks, written = fd.figure_checks_and_files(
                [{"type": "env"}], RUN, top, os.path.join(top, "work"))
            self.assertEqual(written, {})
            self.assertEqual(os.listdir(figdir), [])
            by = {c.id: c for c in checks}
            self.assertEqual(by["jitter.replay.guest"].status, "skip")
            self.assertEqual(by["figures.jitter-deltas"].status, "skip")
            self.assertEqual(by["figures.health-tests"].status, "skip")
            self.assertTrue(all(c.reason for c in checks if c.status != "pass"))
        finally:
            shutil.rmtree(top)

    def test_conform_entry_with_recorded_input(self):
        """From the recorded guest lines: both replays pass, both figure
        files are written."""
        top = tempfile.mkdtemp(prefix="figconf-")
        try:
            checks, written = fd.figure_checks_and_files(
                recorded(), RUN, top, os.path.join(top, "work"))
            by = {c.id: c.status for c in checks}
            self.assertEqual(by, {"jitter.replay.guest": "pass",
                                  "jitter.replay.native": "pass",
                                  "figures.jitter-deltas": "pass",
                                  "figures.health-tests": "pass"})
            self.assertEqual(sorted(written), sorted(fd.IDS))
        finally:
            shutil.rmtree(top)


if __name__ == "__main__":
    unittest.main()
