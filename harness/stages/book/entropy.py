# SPDX-License-Identifier: GPL-2.0-only
"""Book part: the entropy evidence of the last `make entropy`, for the
chapter "The CPU Jitter RNG: entropy evidence" (chapters/43-jitter-entropy.nw),
which argues and links here; every number here is read from
build/entropy/summary.json and every figure drawn from
build/entropy/figures/*.json (harness/stages/entropy.py writes both).

render(ctx) -> (markdown, notes); ctx as in worked_example.py.  Without a
run in build/ the part reads the recorded one (evidence/entropy/, kept by
`make evidence`) and says so, and whether its inputs are this tree's;
without either it says so and names the command, and a note (a build
warning) says what is missing.
"""

import json
import os
import re

from ...base import evidence
from . import figures
from .hardening import provenance_md
from .md import small_table, when

SUMMARY = "build/entropy/summary.json"
FIGDATA = "build/entropy/figures"
HEAD = "# Entropy evidence from the last run {- #entropy-run}"
COMMAND = "python3 -m harness entropy"
NAMES = {"mcv": "most common value", "collision": "collision", "markov": "Markov",
         "compression": "compression", "t_tuple": "t-tuple", "lrs": "LRS",
         "multi_mcw": "MultiMCW", "lag": "lag", "multi_mmc": "MultiMMC",
         "lz78y": "LZ78Y"}


def f(v, d=4):
    """A number as the tables show it; -- when absent."""
    if v is None:
        return "--"
    if isinstance(v, bool):
        return "yes" if v else "**no**"
    if isinstance(v, int):
        return f"{v:,}"
    if v != 0 and (abs(v) < 10 ** -d or abs(v) >= 1e7):
        return f"{v:.3g}"
    return f"{v:.{d}f}"


def table(head, rows):
    if not rows:
        return ["(No source of this run has data for this table.)", ""]
    return _table(head, rows)


def _table(head, rows):
    # The dashes give pandoc each column's share of the width: as wide as
    # its longest word, so that a source's name is not squeezed past its
    # column (12 equal columns would be).
    longest = [max([3] + [len(w) for c in [h] + [r[i] for r in rows]
                          for w in str(c).split()]) for i, h in enumerate(head)]
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("-" * n for n in longest) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return small_table(out, "scriptsize")


def earlier_design(data):
    """Whether the summary is of an earlier design of the core (pool words
    and von Neumann unbiasing, before the counted deltas were hashed):
    its code has no counted samples per block."""
    return "block_samples" not in (data.get("code") or {})


EARLIER = ("This record is of an earlier design of the core, which extracted bits "
           "from the deltas into pool words ([why this port hashes the deltas "
           "instead](#jitter-why-deltas)); the tables show what it holds that this "
           "design shares, and the entropy chain, the stuck bound and the credit of "
           "this design need a new run of `make entropy`.")


def ok_sources(data):
    return [(n, s) for n, s in data["sources"].items() if not s.get("error")]


def label(n, s):
    return f"`{n}`" + (" (emulated)" if s.get("emulated") else "")


def claims_md(data, esc):
    """One claim per operating environment, and what its sources support."""
    rows = []
    for env, c in (data.get("claims") or {}).items():
        credit = not earlier_design(data)
        rows.append([esc(c["title"]), f(c["claim"], 3) if c["claim"] else "none",
                     ", ".join(f"`{n}`" for n in c["sources"]), f(c["h"], 4),
                     f(c["credited_bits"], 1) if credit else "--",
                     f(c["full_entropy"]) if c["claim"] and credit else "--",
                     "judged" if c["credited"] else "reported"])
    return table(["operating environment", "$H_{submitter}$", "sources",
                  "validated $H$ (least)", "credit per block (bits)", "full entropy",
                  "make check"], rows)


def shuffle_md(data):
    """Each source beside its -fixed variant: the loop shuffle's share."""
    rows = []
    srcs = dict(ok_sources(data))
    for n, s in srcs.items():
        fx = srcs.get(n + "-fixed")
        if not fx:
            continue
        for name, x in ((n, s), (n + "-fixed", fx)):
            a = x["assessment"] or {}
            rs = a.get("restart") or {}
            rows.append([label(name, x), "fixed" if x.get("fixed_loops") else "shuffled",
                         f(x["describe"]["quantiles"]["median"]), f(a.get("assessed")),
                         f(rs.get("h_r")), f(rs.get("h_c")),
                         f(x["samples_per_block"], 1), f(x.get("h")),
                         f(credit_of(data, x), 1)])
    return table(["source", "loop counts", "median delta", "assessed (no claim)",
                  "$H_r$", "$H_c$", "samples per block", "$H$ credited",
                  "credit per block"], rows)


def credit_of(data, s):
    """A source's credit per block from its chain; None for a record of
    an earlier design, whose chain is not this design's."""
    if earlier_design(data):
        return None
    return ((s.get("chain") or {}).get("summary") or {}).get("credited_bits")


def short_clock(clock):
    """The timer, in words short enough for a column; the chapter tells
    each in full."""
    if "tsc.h" in clock:
        return "rdtsc, in UML (tsc.h)"
    if "os_nsecs" in clock:
        return "UML clocksource, 256 ns"
    return clock


def sources_md(data, esc):
    rows = []
    for n, s in data["sources"].items():
        if s.get("error"):
            # the boot's directory is in the run's files; a path is one
            # word that no column of the page can hold
            why = re.sub(r"^\S*/\S*: ", "", s["error"])
            rows.append([f"`{n}`", "**not collected**: " + esc(why[:200])]
                        + [""] * 5)
            continue
        c = s["collect"]
        st = c.get("startup_at_boot")
        rows.append([label(n, s), esc(s["where"] or ""), esc(short_clock(c.get("clock", ""))),
                     f(c["seq"]["samples"]), f(s["samples_per_block"], 1),
                     f"{c['restart']['restarts']} x {restart_len(c['restart'])}, by "
                     f"{c['restart'].get('by', 'a new collector')}",
                     f"{st['passed']} of {st['boots']}" if st else
                     f"{1 + c['restart']['restarts']} of "
                     f"{1 + c['restart']['restarts'] + c['startup_failures']}"
                     if "startup_failures" in c else "--"])
    return table(["source (`-fixed`: fixed loop counts)", "where", "timer",
                  "samples in a row", "samples a block", "restarts",
                  "start-up test passed (at boot, or at each start of a collector)"], rows)


def symbol_md(data):
    rows = []
    for n, s in ok_sources(data):
        q, d = s["describe"]["quantiles"], s["describe"]
        rows.append([label(n, s), f(q["min"]), f(q["median"]), f(q["p99"]), f(d["iqr"]),
                     f(d["distinct"]), f(d["lattice_step"]), f(d["plugin_h_delta"], 3),
                     f(d["plugin_h_low8"], 3), f(d["plugin_h_low4"], 3),
                     f(d["stuck"], 4)])
    return table(["source", "min", "median", "99th pct.", "IQR", "distinct", "step",
                  "MCV H, delta", "MCV H, low 8", "MCV H, low 4", "stuck"], rows)


def estimators_md(data):
    srcs = [(n, s) for n, s in ok_sources(data) if s["assessment"]]
    out = []
    for i in range(0, len(srcs), SOURCES_PER_TABLE):   # tables that fit a page
        out += estimators_table(srcs[i:i + SOURCES_PER_TABLE])
    return out


def estimators_table(srcs):
    head = ["estimator"] + [f"{label(n, s)} {t}" for n, s in srcs
                            for t in ("literal", "bitstring")]
    rows = []
    for k, name in NAMES.items():
        rows.append([name] + [f(s["assessment"][t].get(k)) for _, s in srcs
                              for t in ("literal", "bitstring")])
    for key, name in (("H_original", "$H_{original}$"), ("H_bitstring", "$H_{bitstring}$"),
                      ("assessed", "assessed"), ("H_submitter", "$H_{submitter}$"),
                      ("H_I", "**$H_I$** (3.1.3)")):
        rows.append([name] + [f(s["assessment"].get(key)) if t == "literal" else ""
                              for _, s in srcs for t in ("literal", "bitstring")])
    rows.append(["decided by"] + [decided(s["assessment"].get("decided_by"))
                                  if t == "literal" else "" for _, s in srcs
                                  for t in ("literal", "bitstring")])
    return table(head, rows)


def decided(d):
    """Which estimator gave H_original, and whether its local bound did."""
    if not d:
        return "--"
    name = NAMES.get(d["estimator"], d["estimator"])
    if d.get("local"):
        return f"{name}: longest run of right guesses, {d['longest_run']}"
    return name


BITS_PER_TABLE = 4
SOURCES_PER_TABLE = 2
BITS = {"blocks": "output blocks (recorded), bits"}


def bits_md(data):
    cols = [(n, s, b) for n, s in ok_sources(data) for b in BITS if s.get(b)]
    out = []
    for i in range(0, len(cols), BITS_PER_TABLE):      # tables that fit a page
        part = cols[i:i + BITS_PER_TABLE]
        head = ["estimator"] + [f"{label(n, s)} {BITS[b]}" for n, s, b in part]
        rows = [[name] + [f(s[b]["literal"].get(k)) for n, s, b in part]
                for k, name in NAMES.items()]
        rows.append(["**assessed**"] + [f(s[b]["assessed"]) for n, s, b in part])
        rows.append(["bits assessed"] + [f(s[b]["samples"]) for n, s, b in part])
        out += table(head, rows)
    return out


def restart_len(r):
    """A restart's samples: "64 + 1000" where its priming samples were
    recorded before the row of the matrix."""
    p = r.get("priming") or 0
    return f"({p} + {r.get('len', 0) - p})" if p else f"{r.get('len')}"


def restart_md(data):
    rows = []
    for n, s in ok_sources(data):
        r = (s["assessment"] or {}).get("restart") or {}
        a = s.get("analysis", {})
        rows.append([label(n, s), f(r.get("h_i")), f(r.get("cutoff")), f(r.get("x_row")),
                     f(r.get("x_col")), f(a.get("col_mcv_first", [None])[0]),
                     f(r.get("sanity")), f(r.get("h_r")), f(r.get("h_c")),
                     f(r.get("pass")), f(s.get("h"))])
    return table(["source", "$H_I$", "cutoff $U$", "largest row count",
                  "largest column count", "column 0 count", "sanity (3.1.4.3)",
                  "$H_r$", "$H_c$", "validation (3.1.4.2)", "$H$ credited"], rows)


def priming_md(data):
    """The restarts' first columns, our core's priming samples among them,
    which the assessed matrix leaves out."""
    rows, shown = [], 0
    for n, s in ok_sources(data):
        rs = (s.get("collect") or {}).get("restart") or {}
        cols, p = rs.get("first_columns"), rs.get("priming") or 0
        if not cols or not p or len(cols) <= p:
            continue
        pr, after = cols[:p], cols[p:]
        shown = max(shown, len(after))
        top = max(range(p), key=pr.__getitem__)
        rows.append([label(n, s), f(p), f"{pr[top]} (column {top})",
                     ", ".join(str(x) for x in pr[:12]), f(max(after)),
                     ", ".join(str(x) for x in after[:12])])
    if not rows:
        return []
    return ["Each restart of our core starts with its priming samples, which "
            "the stuck test and the health tests see and which are not counted; "
            "the matrix above is of the samples after them.  Here is the same "
            "column statistic (the count of the most common 8-bit symbol in "
            f"{f((data.get('params') or {}).get('restarts'))} restarts) over the "
            "priming samples and the first "
            f"{shown} columns after them.", ""] + table(
        ["source", "priming samples", "largest count among them",
         "columns 0 to 11", "largest count in the next columns",
         "the first 12 of those"], rows)


def recording_md(data):
    rows = []
    for n, s in ok_sources(data):
        r = s.get("recording")
        if not r:
            continue
        for k, what in (("symbols", "8-bit symbols"), ("shape", "form of the deltas")):
            rows.append([label(n, s), what, f"{r['n_a']:,} / {r['n_b']:,}",
                         f"1 / {r['stride']}", f(r["shift"], 0), f(r[k]["chi2"], 1),
                         f(r[k]["p"], 3), "passed" if r[k]["pass"] else "**failed**"])
    if not rows:
        return ["No source of this run recorded the two-sample rows.", ""]
    rows_alpha = next(s["recording"]["alpha"] for _, s in ok_sources(data)
                      if s.get("recording"))
    return table(["source", "compared", "samples (stride 1 / k)", "strides",
                  "shift found (ticks)", "chi-square", "p (permutations)",
                  f"at alpha = {rows_alpha:g}"], rows)


def flags_md(data, esc):
    out = []
    for n, s in ok_sources(data):
        fl = (s.get("collect") or {}).get("core_flags")
        if not fl or s.get("fixed_loops"):     # a -fixed twin: the same program
            continue
        out += [f"**{label(n, s)}**, from `{esc(fl['from'])}`: "
                + " ".join(f"`{esc(x)}`" for x in fl["applied"]), ""]
        out += table(["option of the kernel object", "in user space"],
                     [[f"`{esc(d['flag'])}`", esc(d["how"])] for d in fl["differs"]])
    return out or ["No user-space source in this run.", ""]


def chain_md(data, n, s, esc):
    ch = s.get("chain")
    if not ch or earlier_design(data):
        return []
    rows = []
    for st in ch["steps"]:
        rows.append([esc(st["step"]), st["role"], f(st.get("n_in")), f(st.get("n_out")),
                     f(st.get("nw")), f(st.get("h_in"), 3),
                     f(st.get("output_entropy"), 4), f(st.get("h_tested"), 4),
                     f(st.get("h_out"), 4)])
    sm = ch["summary"]
    out = [f"**{label(n, s)}.**", ""]
    out += table(["step", "SP 800-90B role", "$n_{in}$", "$n_{out}$", "$n_w$",
                  "$h_{in}$", "Output_Entropy", "$h'$ tested", "credited"], rows)
    counted = (f"{sm['counted']} counted samples at {f(sm['h_sample'])} bits each, "
               if sm.get("counted") else "")
    out += [f"Into SHA3-256: {counted}{f(sm['h_in_block'], 1)} bits for a 256-bit block "
            f"(full entropy needs {sm['needed']}): "
            f"{'**full entropy**' if sm['full_entropy'] else '**not full entropy**'}; "
            f"{f(sm['samples_per_block'], 1)} raw samples per block, "
            f"{f(sm['samples_per_credited_bit'], 2)} raw samples per credited output bit.",
            ""]
    return out


def cutoffs_md(data):
    code = data["code"]
    rows = [["the code", f(code["h_claim"], 3)] +
            [f"{a} / {b}" for a, b in (code["rct"], code["apt"], code["lag_run"],
                                       code["lag_count"])]]
    for n, s in ok_sources(data):
        c = s.get("cutoffs_at_h")
        if c:
            rows.append([f"$H$ of {label(n, s)}", f(c["h"], 3)] +
                        [f"{c[k][0]} / {c[k][1]}" for k in ("rct", "apt", "lag_run",
                                                           "lag_count")])
    return table(["$H$ from", "$H$ (bits)", "RCT", "APT", "lag run", "lag count"], rows)


def fp_md(data):
    rows = []
    for n, s in ok_sources(data):
        h = s.get("health")
        if not h or s["design"] != "ours":
            continue
        tests = [("rct", "RCT", h["rct"]["max"], h["rct"]["repeat"]),
                 ("apt", "APT", h["apt"]["max"], h["apt"]["share"]),
                 ("lag", "lag predictor",
                  f"{h['lag']['max_run']} / {f(h['lag']['max_count'])}", h["lag"]["hit"])]
        if "stuck" in h:            # (a record of an earlier design has none)
            tests.append(("stuck", "stuck bound", h["stuck"]["max_run"],
                          h["stuck"]["yield"]))
        for k, name, top, param in tests:
            t = h[k]
            cut = (f"{t['run_cutoff']} / {f(t['count_cutoff'])}" if k == "lag"
                   else str(t["cutoff"]))
            rows.append([label(n, s), name, cut, top, f(t["fires"]), f(param, 4),
                         f(t["estimate"], 3)])
    return table(["source", "test", "cutoff (2^-30^)", "largest value", "samples fired",
                  "measured parameter", "estimated rate per sample"], rows)


def drbg_md(data):
    if earlier_design(data):
        return ["Not shown: the record's credit is of the earlier design (see above).", ""]
    rows = [[f(r["strength_bits"]), r["drbgs"], f(r["instantiate_bytes"]),
             f(r["instantiate_bits"], 1), f(r["reseed_bytes"]), f(r["reseed_bits"], 1)]
            for r in data.get("drbg", [])]
    return table(["strength", "DRBGs", "instantiate: bytes", "bits of entropy",
                  "reseed: bytes", "bits of entropy"], rows)


def rate_md(data):
    rows, by = [], {}
    for n, s in ok_sources(data):
        r = s.get("rate")
        if not r:
            continue
        by[n] = r
        rows.append([label(n, s), r["clock"], f(r["samples_per_s"], 0), f(s["h_i"]),
                     f(r["bits_per_s"], 0),
                     f(None if earlier_design(data) else r.get("credited_bits_per_s"), 0)])
    out = table(["source", "seconds of", "raw samples per second", "$H_I$",
                 "assessed bits per second", "credited output bits per second"], rows)
    if "ours-user" in by and "pristine-user" in by and by["pristine-user"]["bits_per_s"]:
        out += [f"Ours delivers {f(by['ours-user']['bits_per_s'] / by['pristine-user']['bits_per_s'], 2)} "
                "times the assessed min-entropy per second of CPU time of 6.1's core on "
                "this CPU, in the same run.", ""]
    return out


def figure_md(ctx, fid, notes):
    """Draw figure fid from its data file (beside the summary the part
    read: build/ or evidence/); its Markdown (empty if none)."""
    figdata = ctx.get("entropy_figdata", FIGDATA)
    path = os.path.join(ctx["top"], figdata, f"{fid}.json")
    if not os.path.exists(path):
        notes.append(f"entropy figure {fid}: no data ({figdata}/{fid}.json)")
        return []
    figdir = os.path.join(ctx["outdir"], "figures")
    os.makedirs(figdir, exist_ok=True)
    try:
        with open(path, encoding="utf-8") as fh:
            fig = json.load(fh)
        tcg = figures.draw(fig, fig.get("run", {}), os.path.join(figdir, f"{fid}.png"))
    except Exception as e:    # a figure must never stop the book
        notes.append(f"entropy figure {fid}: {type(e).__name__}: {e}")
        return []
    stamp = f" {figures.TCG_LABEL.capitalize()} in its marked panels." if tcg else ""
    return [f"::: {{#fig-{fid} .figure}}",
            f"![{ctx['esc'](fig.get('caption', fid) + stamp)}]"
            # At most three quarters of the page's height: with eight
            # sources a figure of one panel each is taller than it is wide,
            # and with its caption it would not fit a page (LaTeX's "Float
            # too large for page", a warning make book-check fails on).
            f"(figures/{fid}.png){{width=100% height=75%}}", "",
            f"Data: {ctx['code'](os.path.relpath(path, ctx['top']))}.", ":::", ""]


def placeholder(ctx, why):
    """The part without its data: the reason, and every section's heading
    with its anchor, so that the chapter's links to the run's tables
    (#entropy-run-symbol, ...) land on "not measured" rather than
    nowhere (pdfTeX warned of each dead destination)."""
    code = ctx["code"]
    out = [HEAD, "", f"The entropy data is missing ({ctx['esc'](why)}).  "
           f"{code(COMMAND)} (run by {code('make entropy')} and "
           f"{code('make check')}) collects it and writes {code(SUMMARY)}.", ""]
    for title, _ in SECTIONS:
        out += [f"## {title}", "", "Not measured for this book: the data is missing "
                "(see above).", ""]
    return "\n".join(out), [f"entropy evidence: {why}"]


def intro_md(data, ctx):
    esc, code = ctx["esc"], ctx["code"]
    host = data.get("host", {})
    emu = [n for n, s in data["sources"].items() if s.get("emulated")]
    out = [HEAD, "",
           f"What {code('make entropy')} measured on {esc(host.get('cpu_model', '?'))} "
           f"({host.get('nproc', '?')} CPUs), started {esc(when(data.get('started')))}, in "
           f"{f(data.get('duration_s'), 0)} seconds; every number and figure of this part "
           f"is read from {code(ctx.get('entropy_summary', SUMMARY))} and "
           f"{code(ctx.get('entropy_figdata', FIGDATA) + '/')}, and the chapter "
           "[entropy evidence](#jitter-entropy) says what they mean.", ""]
    if earlier_design(data):
        out += [EARLIER, ""]
    if emu:
        out += [f"Data of {', '.join(code(n) for n in emu)} comes from a guest under "
                f"QEMU's TCG: *{figures.TCG_LABEL}*.  It is assessed like the rest, "
                "and no claim rests on it.", ""]
    return out


SECTIONS = (
    ("The claim per operating environment {- #entropy-run-claims}",
     lambda d, c, n: claims_md(d, c["esc"])),
    ("The sources {- #entropy-run-sources}", lambda d, c, n: sources_md(d, c["esc"])),
    ("The user-space core's options {- #entropy-run-flags}",
     lambda d, c, n: flags_md(d, c["esc"])),
    ("The raw sample and its symbol {- #entropy-run-symbol}",
     lambda d, c, n: symbol_md(d) + figure_md(c, "entropy-deltas", n)),
    ("Every estimator for every source {- #entropy-run-estimators}",
     lambda d, c, n: estimators_md(d) + bits_md(d)),
    ("Restart tests {- #entropy-run-restart}",
     lambda d, c, n: restart_md(d) + priming_md(d) + figure_md(c, "entropy-restart", n)),
    ("Recording and the noise {- #entropy-run-recording}",
     lambda d, c, n: recording_md(d)),
    ("The loop shuffle, on and off {- #entropy-run-shuffle}",
     lambda d, c, n: shuffle_md(d)),
    ("Dependence on the past {- #entropy-run-lag}",
     lambda d, c, n: figure_md(c, "entropy-correlation", n)),
    ("The entropy chain to an output block {- #entropy-run-chain}",
     lambda d, c, n: [x for nm, s in ok_sources(d) for x in chain_md(d, nm, s, c["esc"])]
     or ["No chain of this design in this record (see above).", ""]),
    ("The health tests' cutoffs, re-derived {- #entropy-run-cutoffs}",
     lambda d, c, n: cutoffs_md(d)),
    ("False positives on the 1,000,000 samples {- #entropy-run-fp}",
     lambda d, c, n: fp_md(d)),
    ("What the DRBG's seed gets {- #entropy-run-drbg}", lambda d, c, n: drbg_md(d)),
    ("The rate {- #entropy-run-rate}", lambda d, c, n: rate_md(d)),
)


def render(ctx):
    try:
        data, prov = evidence.load("entropy", ctx["top"])
    except SystemExit as e:
        return placeholder(ctx, str(e))
    if data is None:
        return placeholder(ctx, f"{SUMMARY} does not exist and no run is recorded "
                           "in evidence/")
    try:
        data["sources"], data["code"]
    except (KeyError, TypeError) as e:
        return placeholder(ctx, f"{prov['path']} is unreadable: {e}")
    ctx = dict(ctx, entropy_summary=prov["path"],
               entropy_figdata=os.path.join(os.path.dirname(prov["path"]), "figures"))
    # A kernel that refused a recording is the measurement of its
    # environment (the sources table says so), not missing data.
    notes = [f"entropy evidence: {n} was not collected: {s['error'][:200]}"
             for n, s in data["sources"].items() if s.get("error") and not s.get("refused")]
    out = intro_md(data, ctx)
    out[2:2] = provenance_md("entropy", prov, ctx["esc"], ctx["code"])
    for title, body in SECTIONS:
        out += [f"## {title}", ""] + body(data, ctx, notes)
    return "\n".join(out) + "\n", notes
