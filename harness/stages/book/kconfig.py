# SPDX-License-Identifier: GPL-2.0-only
"""The hardening appendix's section on the Kconfig matrix: every
combination of the series' options that Kconfig allows, built and linked
(make kconfig-matrix, the full run; build/kconfig-matrix/report.json, or
the record make evidence kept).  make check's short run writes the same
file with mode "short"; it is not this section's, which says so.

    section(rep, esc, code, notes) -> [markdown lines]
"""

import statistics

from .md import small_table, table, when

HEAD = "## Every Kconfig combination, built {- #hardening-kconfig}"
INTRO = ("The kernel test robot builds a series in configurations its author never "
         "chose ([`make kconfig-matrix`](#make-kconfig-matrix)).  The full run sets "
         "each combination of the options below that Kconfig allows on a tinyconfig "
         "base, one after the other in one build directory, and runs `make vmlinux "
         "modules` on it: vmlinux must link and `modpost` must find every symbol a "
         "module uses.  It also asks Kconfig about a seeded sample of the "
         "combinations its rules drop, each of which must be refused, and builds "
         "randconfigs of the series' options with their `KCONFIG_SEED`.")
VALUES = ("y", "m", "n")


def _seconds(v):
    return "–" if v is None else f"{v:,.0f} s"


def coverage(rep):
    """Per option: in how many built combinations it was y, m and n."""
    built = [r for r in rep.get("combinations", []) if r.get("built")]
    rows = []
    for opt in rep.get("options", []):
        n = opt["name"]
        rows.append([n, opt.get("type", "?")] +
                    [sum(1 for r in built if r["values"].get(n) == v) for v in VALUES])
    return rows


def label(values, rep):
    """A combination's values in the options' order (kconfig_space.label)."""
    if not values:
        return "-"
    return "".join(str(values.get(o["name"], "?")) for o in rep.get("options", []))


def section(rep, esc, code, notes):
    out = [HEAD, "", INTRO, ""]
    if not rep or rep.get("mode") != "full":
        what = ("only make check's short run" if rep else "none")
        return out + ["::: placeholder", "**Not run for this book.** The full run's "
                      f"record is missing (this tree has {esc(what)}): `make "
                      "kconfig-matrix` writes it (hours of builds) and `make evidence` "
                      "keeps it.", ":::", ""]
    recs = rep.get("combinations", [])
    built = [r for r in recs if r.get("built")]
    failed = [r for r in recs if "built" in r and not r["built"]]
    refused = [r for r in recs if r.get("refused")]
    sample = rep.get("dropped_sample", [])
    kept_by_kconfig = [r for r in sample if not r.get("refused")]
    rand = rep.get("randconfig", [])
    timed = [r for r in built if r.get("seconds") is not None]
    secs = [r["seconds"] for r in timed]
    slowest = sorted(timed, key=lambda r: -r["seconds"])[:3]
    host = rep.get("host") or {}
    out += [f"linux-source-6.1 {esc(str(rep.get('kernel', '?')))}, started "
            f"{when(rep.get('started'))}, on {esc(str(host.get('cpu_model', '?')))} "
            f"({host.get('nproc', '?')} CPUs).", ""]
    out += [f"{len(rep.get('options', []))} options; {rep.get('allowed_by_rules', '?')} "
            f"combinations allowed by their rules and {rep.get('dropped_by_rules', '?')} "
            f"dropped.  Of the {len(recs)} combinations: **{len(built)} built and "
            f"linked**, {len(failed)} failed, {len(refused)} refused by Kconfig.  Of the "
            f"{len(sample)} dropped combinations asked of Kconfig, "
            f"{len(sample) - len(kept_by_kconfig)} were refused and "
            f"{len(kept_by_kconfig)} kept.  The run took {_seconds(rep.get('seconds'))}"
            + (f"; a combination's build {min(secs):.0f} to {max(secs):.0f} s (median "
               f"{statistics.median(secs):.0f} s; the slowest: " + ", ".join(
                   f"{code(r['name'])} {r['seconds']:.0f} s" for r in slowest) + ")"
               if secs else "") + ".", ""]
    out += ["How often each option took each value among the combinations built:", ""]
    out += small_table(table(["option", "type", "y", "m", "n"], [30, 9, 5, 5, 5],
                             [[code(r[0]), r[1]] + [str(x) for x in r[2:]]
                              for r in coverage(rep)]))
    rows = [[code(str(r.get("seed"))), code(label(r.get("values"), rep)),
             "built and linked" if r.get("built") else
             f"**failed**: {esc(r.get('error') or '')}"] for r in rand]
    out += ["The randconfigs (every base symbol pinned but the series' options; the "
            "values in the order of the table above):", ""]
    out += small_table(table(["KCONFIG_SEED", "values", "result"], [14, 14, 40], rows))
    bad = [f"{r['name']}: {r.get('error')}" for r in failed]
    bad += [f"{r['name']}: {r.get('error')}" for r in rand if not r.get("built")]
    bad += [f"{r['name']}: Kconfig keeps it, the rules dropped it ({r.get('rule')})"
            for r in kept_by_kconfig]
    if bad:
        notes.append(f"kconfig: {len(bad)} combination(s) failed or misjudged")
        out += ["**Failed:**", ""] + [f"- {esc(b)}" for b in bad[:20]] + [""]
    return out
