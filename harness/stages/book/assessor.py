# SPDX-License-Identifier: GPL-2.0-only
"""The book's table of our SP 800-90B results against NIST's.

    render(ctx) -> (markdown, notes)

ctx is a dict: "top" (the repository), "esc" (escapes text for pandoc
Markdown), "code" (makes inline code).  The data is
build/entropy/kat/summary.json, written by `python3 -m harness
entropy-kat` (run by `make check`); without it the section says so and
names the command.  A note (a build warning) says what is wrong: the data
is missing, a file disagrees with NIST's results, or no file was compared.
"""

import json
import os

SUMMARY = "build/entropy/kat/summary.json"
HEAD = "# SP 800-90B results against NIST's {- #entropy-kat}"
COMMAND = "python3 -m harness entropy-kat"

NAMES = {"mcv": "most common value (6.3.1)", "collision": "collision (6.3.2)",
         "markov": "Markov (6.3.3)", "compression": "compression (6.3.4)",
         "t_tuple": "t-tuple (6.3.5)", "lrs": "LRS (6.3.6)",
         "multi_mcw": "MultiMCW (6.3.7)", "lag": "lag (6.3.8)",
         "multi_mmc": "MultiMMC (6.3.9)", "lz78y": "LZ78Y (6.3.10)"}
TOTALS = (("H_original", "$H_{original}$"), ("H_bitstring", "$H_{bitstring}$"),
          ("assessed", "assessed (3.1.3)"))


def number(v):
    if v is None:
        return "--"
    if isinstance(v, float):
        return f"{v:.10g}"
    return str(v)


def yes(ok):
    return "yes" if ok else "**no**"


def placeholder(ctx, why):
    code = ctx["code"]
    text = [HEAD, "",
            f"The comparison data is missing ({ctx['esc'](why)}).  "
            f"{code(COMMAND)} (run by {code('make check')}) assesses NIST's "
            f"eight sample files and writes {code(SUMMARY)}; the book then "
            "shows our result next to NIST's for every estimator here.", ""]
    return "\n".join(text), [f"assessor table: {why}"]


def file_table(ctx, f):
    esc = ctx["esc"]
    lines = [f"## {esc(f['file'])}", ""]
    when = f" in {f['seconds']:.1f} s" if "seconds" in f else ""
    lines += [f"{f['samples']:,} samples of {f['bits_per_symbol']} "
              f"bit{'s' if f['bits_per_symbol'] != 1 else ''} each, assessed{when}.  {f['integers']} integers and {f['reals']} reals "
              f"compared; largest relative difference "
              f"{f['worst_rel_diff']:.2g}; the file "
              f"{'agrees' if f['agree'] else '**does not agree**'}.", ""]
    lines += ["| estimator | sequence | ours | NIST's | agree |",
              "|---|---|---:|---:|---|"]
    for row in f["estimators"]:
        lines.append(f"| {esc(NAMES.get(row['estimator'], row['estimator']))} "
                     f"| {row['track']} | {number(row['ours'])} "
                     f"| {number(row['nist'])} | {yes(row['agree'])} |")
    for key, label in TOTALS:
        t = f["totals"].get(key)
        if t is None or t.get("nist") is None:
            continue
        lines.append(f"| {label} | | {number(t['ours'])} | {number(t['nist'])} "
                     f"| {yes(t['agree'])} |")
    lines.append("")
    return lines


def render(ctx):
    path = os.path.join(ctx["top"], SUMMARY)
    if not os.path.exists(path):
        return placeholder(ctx, f"{SUMMARY} does not exist")
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        files = data["files"]
        tol = data["tolerances"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        return placeholder(ctx, f"{SUMMARY} is unreadable: {e}")
    code = ctx["code"]
    bad = [f["file"] for f in files if not f.get("agree")]
    lines = [HEAD, "",
             f"Our assessor (`tangled/sp800-90b/assess.c`) against the output "
             f"of NIST's {code('ea_non_iid -vv')} on NIST's sample files, as "
             f"{code(COMMAND)} last compared them.  Every integer must be "
             f"equal and every real within {tol['real']:g} relative "
             f"(values held to {tol['loose']:g} instead: "
             f"{', '.join(tol['loose_values']) or 'none'}); every min-entropy "
             f"and the assessed value must also agree to "
             f"{tol['significant_digits']} significant digits.  The tables "
             f"show min-entropies to 10 digits; the checks "
             f"{code('entropy.kat.<file>')} in the report list every compared "
             f"value.", ""]
    if not files:
        lines += ["No file was compared.", ""]
    for f in files:
        lines += file_table(ctx, f)
    # A note is a build warning: only a disagreement (or no file) is one.
    notes = ([f"assessor table: {len(bad)} of {len(files)} files disagree with NIST "
              f"({', '.join(bad)})"] if bad else
             [] if files else ["assessor table: no file was compared"])
    return "\n".join(lines), notes
