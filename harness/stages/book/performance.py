# SPDX-License-Identifier: GPL-2.0-only
"""Hook: the performance appendix, from the last `make bench`.

render.py calls render(ctx) (see worked_example.py for ctx) and puts the
Markdown it returns after the figures.  The data is build/bench/bench.json,
written by `make bench` (stages/bench.py, not part of `make check`), or
the run `make evidence` kept (evidence/bench.json), with a line saying
which and whether its inputs have changed since (base/evidence.py);
without either the appendix says that no bench run exists yet.  Nothing is
drawn from made-up numbers, and no measuring code is imported here.

Pictures go to figures/perf-*.png in the book's output directory (after
figures.py, which clears figures/*.png when it starts).  Guest timings of
a TCG run are marked "emulated timer, not evidence", as in figures.py.
"""

import os
import textwrap

from ...base import evidence
from ...base.fmt import (WORKFLOW_RUNS, chunk_reached, fmt, load_pair, machine_lines, smm,
                         workflow_parts)
from .hardening import provenance_md

TCG_LABEL = "emulated timer, not evidence"


def _plot(path, title, xlabel, ylabel, series, run_note, tcg, logx=False, logy=False,
          zero=False):
    """series: [(label, x, median, lo, hi)]; error bars span min..max."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.0, 3.8), dpi=120)
    for label, x, med, lo, hi in series:
        yerr = [[m - a for m, a in zip(med, lo)], [b - m for m, b in zip(med, hi)]]
        ax.errorbar(x, med, yerr=yerr, marker="o", ms=4, capsize=3, label=label)
    if logx:
        ax.set_xscale("log", base=2)
    if logy:
        ax.set_yscale("log")
    if zero:
        ax.set_xlim(left=0)
        ax.set_ylim(bottom=0)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(alpha=.3)
    # The run's note, wrapped to the figure's width (about 130 characters
    # of 7-point text across 7 inches).
    note = "\n".join(textwrap.fill(ln, 130) for ln in run_note.split("\n"))
    fig.text(0.01, 0.01, note, fontsize=7, color="#555555")
    if tcg:
        ax.text(0.5, 0.5, TCG_LABEL, transform=ax.transAxes, fontsize=18,
                color="#b3261e", alpha=.45, ha="center", va="center", rotation=12,
                zorder=10)
    fig.tight_layout(rect=(0, 0.03 * (note.count("\n") + 1), 1, 1))
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)


def _series(label, xs, stats_list, scale=1.0):
    pts = [(x, s) for x, s in zip(xs, stats_list) if s]
    return (label, [x for x, _ in pts], [s["median"] * scale for _, s in pts],
            [s["min"] * scale for _, s in pts], [s["max"] * scale for _, s in pts])


def _figure(fid, caption, run_note, tcg, esc):
    label = f" **{TCG_LABEL.capitalize()}.**" if tcg else ""
    return [f"::: {{#fig-{fid} .figure}}",
            f"![{esc(caption)} ({esc(run_note.replace(chr(10), '; '))}).{label}]"
            f"(figures/{fid}.png){{width=100%}}", ":::", ""]


def _table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out + [""]


INTRO = ("What `make bench` measured: the Jitter RNG and the DRBG's "
         "instantiation in the guest, our kernel beside the pristine 6.1 "
         "kernel (built from the untouched tree with the same configuration "
         "fragment, booted alternately in the same run with the same QEMU "
         "settings), the CAVS runner's throughput, and the workflow on the "
         "host beside the kernel's own `kunit.py`.  Every figure is a ratio "
         "or a median with its minimum and maximum over repeated runs; none "
         "of them is asserted by a test.  `make bench` is not part of "
         "`make check`.")


def _try_plot(name, notes, draw):
    """Draw a picture; a failure is a note, never the end of the book."""
    try:
        draw()
        return True
    except Exception as e:
        notes.append(f"{name}: {type(e).__name__}: {e}")
        return False


def run_md(res, esc, tcg):
    out = ["## The run {- #perf-run}", ""]
    out += ["- " + esc(ln[2:]) for ln in machine_lines(res)] + [""]
    if tcg:
        out += ["::: warning",
                f"**Guest timings: {TCG_LABEL}.** They were taken under QEMU's TCG: "
                "the guest's clock is the host's clock seen through an emulator, "
                "shared with other work on the host.  They compare two kernels on "
                "one emulated machine in one run; they say nothing about a real "
                "CPU.", ":::", ""]
    if res.get("targets"):
        out += ["## Targets {- #perf-targets}", ""]
        out += _table(["target", "measured", "met"],
                      [[esc(t["target"]), esc(f"{t['measured']} {t['unit']}" +
                                              (f" ({t['note']})" if t.get("note") else "")),
                        "yes" if t["met"] else "**no**"] for t in res["targets"]])
    return out


def run_note_of(res):
    h, k = res.get("host", {}), res.get("kernels", {})
    g, c = res.get("guest"), res.get("cavs")
    reps = ", ".join(x for x in (
        f"{g['pairs']} boots of each kernel" if g else "",
        f"{c['repetitions']} CAVS runs per size" if c else "") if x)
    return (f"make bench {res.get('started', '?')}; {h.get('nproc', '?')} CPUs, "
            f"{h.get('cpu_model', '?')}; accel {res.get('accel', '?')}; {reps}\n"
            f"kernels {k.get('ours', {}).get('release', '?')} (ours), "
            f"{k.get('pristine', {}).get('release', '?')} (pristine); "
            f"{res.get('tools', {}).get('qemu', '?')}")


def jitter_md(g, esc, figdir, run_note, tcg, notes):
    j, s = g["jitter"], g.get("settings", {})
    out = ["## The Jitter RNG {- #perf-jitter}", "",
           f"{g['pairs']} boots of each kernel, alternating.  Per boot, the "
           "median of its samples; in the table, the median over the boots "
           "with the minimum and maximum in brackets.  The ratio is ours "
           "over pristine, boot pair by boot pair: below 1 is faster for a "
           "time, above 1 is faster for a throughput.  Both kernels read "
           "through AF_ALG, at most 128 bytes per read.  Whether the two "
           "give the same protection is not a timing: the "
           "[parity table](#jitter-parity) argues it row by row.", ""]
    rows = []
    for key, label in (("read32_us", f"µs per 32-byte read ({s.get('reads_32B')} "
                        "per boot)"),
                       ("throughput_Bps", f"bytes/s ({s.get('max_bytes')} bytes requested)"),
                       ("startup_us", "start-up test, µs (initcall jent_mod_init)")):
        v = j[key]
        rows.append([esc(label), esc(smm(v["ours"], 0)), esc(smm(v["pristine"], 0)),
                     esc(smm(v["ratio"], 3))])
    out += _table(["measure", "ours", "pristine 6.1", "ratio"], rows)
    sizes = [int(b) for b in j["sizes_us"]]
    if sizes and _try_plot("perf-jitter-bytes", notes, lambda: _plot(
            os.path.join(figdir, "perf-jitter-bytes.png"),
            "Jitter RNG: time against bytes requested", "bytes requested",
            "ms (median, min–max)",
            [_series("ours", sizes, [j["sizes_us"][str(b)]["ours"] for b in sizes], 1e-3),
             _series("pristine 6.1", sizes,
                     [j["sizes_us"][str(b)]["pristine"] for b in sizes], 1e-3)],
            run_note, tcg, logx=True, logy=True)):
        out += _figure("perf-jitter-bytes", "Jitter RNG: time to obtain 32 B "
                       "to the largest request, both kernels", run_note, tcg, esc)
    return out


def drbg_md(g, esc, code):
    s = g.get("settings", {})
    out = ["## DRBG instantiation {- #perf-drbg}", "",
           "Microseconds of `setsockopt(ALG_SET_KEY)` on a newly bound AF_ALG "
           "tfm, which instantiates the DRBG (seeding it from "
           "`get_random_bytes()` and the Jitter RNG), "
           f"{s.get('drbg_reps_per_boot')} times per instance and boot; the "
           "CRNG was made ready first in both kernels, so both take the same "
           "seed path at the same security strength.", ""]
    rows = [[code(d), esc(smm(v["ours"], 0)), esc(smm(v["pristine"], 0)),
             esc(smm(v["ratio"], 3))] for d, v in g["drbg"].items()]
    out += _table(["instance", "ours", "pristine 6.1", "ratio"], rows)
    if g.get("errors"):
        out += ["Errors in the guest: " + esc("; ".join(g["errors"])), ""]
    return out


def cavs_md(c, esc, figdir, run_note, tcg, notes):
    out = ["## CAVS throughput {- #perf-cavs}", "",
           f"The test kernel's CAVS runner (the pristine kernel has no test "
           f"interface) on {esc(c['how'])}; {c['repetitions']} runs of each.  "
           "Seconds are the guest's own count from its first record to its "
           "last.", ""]
    out += _table(["records", "seconds", "records/s", "failed records"],
                  [[f"{x['records']} ({x['fraction']:g})", esc(smm(x["seconds"], 2)),
                    esc(smm(x["records_per_s"], 0)), str(x["failed_records"])]
                   for x in c["subsets"]])
    subs = [x for x in c["subsets"] if x.get("seconds")]
    if subs and _try_plot("perf-cavs-records", notes, lambda: _plot(
            os.path.join(figdir, "perf-cavs-records.png"),
            "CAVS: guest time against records", "records", "seconds (median, min–max)",
            [_series("test kernel", [x["records"] for x in subs],
                     [x["seconds"] for x in subs])], run_note, tcg, zero=True)):
        out += _figure("perf-cavs-records", "CAVS runner: time against the "
                       "number of records", run_note, tcg, esc)
    return out


def workflow_rows(wf, esc):
    rows = []
    for key in WORKFLOW_RUNS:
        v = wf.get(key)
        if not v:
            continue
        parts = [f"{n} {fmt(s, 0)} s" for n, s in workflow_parts(key, v)]
        if v.get("kept_boots"):
            parts.append(f"{v['kept_boots']} boots kept")
        rows.append([esc(v["what"]), fmt(v["seconds"], 1), fmt(v.get("cpu_s"), 0),
                     esc(", ".join(parts)) or "–", esc(load_pair(v.get("load"))),
                     str(v["rc"])])
    return rows


def chunk_md(chunk):
    """What the one-chunk edit of this record changed, from its log."""
    if not chunk:
        return []
    if not chunk_reached(chunk):
        return [f"The one-chunk change of this record did not reach the kernel: "
                f"{chunk.get('changed_files')} file(s) of the kernel tree changed "
                "and nothing was built, so its time measures a tangle and a "
                "`git am`, and its target is not met.", ""]
    kept = chunk.get("kept_boots") or 0
    boots = (chunk.get("summary") or {}).get("boots")
    return [f"The one-chunk change (line {chunk.get('line')} of the DRBG chapter, a "
            f"kernel message) changed {chunk['changed_files']} file(s) of the kernel "
            f"tree; the kernel was built again in {fmt(chunk['build_s'], 0)} s, and "
            + ("every boot of that run was booted again" if not kept else
               f"{kept} of its {boots} boots were kept") + ".", ""]


def workflow_md(wf, esc):
    out = ["## The workflow on the host {- #perf-workflow}", "",
           "Wall-clock seconds on the host, one run each (a cold run empties "
           "the kernel cache), with the CPU time (user and system) of the run "
           "and the host's 1-minute load average before and after it: the "
           "machines are shared, and another job's compile slows a build's "
           "wall clock much more than its CPU time.  `kunit.py` is the kernel tree's own "
           "`tools/testing/kunit/kunit.py run --arch=x86_64`, run from the "
           "same tree with the same configuration fragment as its "
           "`.kunitconfig` and a build directory outside the tree.", ""]
    out += _table(["run", "seconds", "CPU seconds", "of which",
                   "load before, after", "exit status"], workflow_rows(wf, esc))
    warm = wf.get("conform_warm") or {}
    n = (warm.get("summary") or {}).get("boots")
    if warm.get("kept_boots"):
        out += [f"The warm `make conform` booted nothing: its {warm['kept_boots']} "
                "boots were kept from the cold run, whose image, initramfs, command "
                "line and QEMU they share (each boot's logs judged again; "
                "`FRESH=conform` boots them).", ""]
    elif n and warm.get("boots_s") is not None:
        out += [f"The two tools do not run the same tests: a `make conform` "
                f"run boots the guest {n} times (its KUnit suites, guest checks, "
                f"CAVS records and fault injections; {fmt(warm['boots_s'], 0)} s "
                f"of the warm run, the boots and what the harness does between "
                f"them), `kunit.py` boots it once for the KUnit suites.", ""]
    return out + chunk_md(wf.get("conform_chunk"))


def entropy_rate_md(e, esc):
    """make bench's entropy rate: assessed min-entropy per CPU second."""
    rows, blocks = [], []
    for name in ("ours-user", "pristine-user"):
        v = e.get(name) or {}
        rows.append([f"`{name}`", f"{v.get('samples', 0):,}", fmt(v.get("cpu_s"), 2),
                     fmt(v.get("samples_per_cpu_s"), 0), fmt(v.get("h_i"), 4),
                     fmt(v.get("bits_per_cpu_s"), 0)])
        blocks.append([f"`{name}`", str(v.get("blocks", "–")),
                       fmt(v.get("samples_per_block"), 0), fmt(v.get("blocks_per_cpu_s"), 0)])
    return (["## Entropy rate {- #perf-entropy-rate}", "",
             "The collectors of [the entropy evidence](#jitter-entropy) in user space, "
             "one after the other in this run: assessed min-entropy per second of "
             "CPU time, *H*~I~ times the raw samples made per CPU second; and the "
             "output, 256-bit blocks per CPU second, with the raw samples each "
             "block took.", ""] +
            _table(["noise source", "raw samples", "CPU s", "samples per CPU s",
                    "assessed *H*~I~", "bits per CPU s"], rows) +
            _table(["noise source", "output blocks", "raw samples per block",
                    "blocks per CPU s"], blocks) +
            [f"Ours / 6.1's: {fmt(e.get('ratio'), 2)} in assessed bits per CPU second, "
             f"{fmt(e.get('blocks_ratio'), 2)} in output blocks per CPU second.", ""])


def render(ctx):
    esc, code = ctx["esc"], ctx["code"]
    top, outdir = ctx["top"], ctx["outdir"]
    out = ["# Performance {- #performance}", "", INTRO, ""]
    res, prov = evidence.load("bench", top)
    if res is None:
        out += ["::: placeholder",
                "**No bench run yet.** There is no `build/bench/bench.json` and no "
                "recorded one in `evidence/`: `make bench` writes it (and "
                "`build/bench/bench.md`), `make evidence` keeps it, and this "
                "appendix is drawn from it when the book is built.", ":::", ""]
        return "\n".join(out) + "\n", []
    out += provenance_md("bench", prov, esc, code)
    notes = []
    tcg = res.get("accel") == "tcg"
    run_note = run_note_of(res)
    figdir = os.path.join(outdir, "figures")
    os.makedirs(figdir, exist_ok=True)
    out += run_md(res, esc, tcg)
    if res.get("guest"):
        out += jitter_md(res["guest"], esc, figdir, run_note, tcg, notes)
        out += drbg_md(res["guest"], esc, code)
    if (res.get("cavs") or {}).get("subsets"):
        out += cavs_md(res["cavs"], esc, figdir, run_note, tcg, notes)
    if res.get("workflow"):
        out += workflow_md(res["workflow"], esc)
    if res.get("entropy_rate"):
        out += entropy_rate_md(res["entropy_rate"], esc)
    return "\n".join(out) + "\n", notes
