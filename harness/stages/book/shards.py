# SPDX-License-Identifier: GPL-2.0-only
"""The hardening appendix's section on shards: the same make mutants run
on one machine and in two shards (make shards-demo), compared verdict by
verdict (build/mutants/compare.json, or the record make evidence kept).

    section(cmp, esc, code, notes) -> [markdown lines]
"""

from .md import small_table, table

HEAD = "## One run, two shards {- #hardening-shards}"
INTRO = ("A long run splits into shards that any machine can run ([shards](#shards)); "
         "the merged record must be the one a single machine writes.  `make "
         "shards-demo` runs a few mutants of `make mutants` on this machine, then "
         "the same selection as two shards (`tools/shards.sh 2 mutants`, GNU "
         "parallel starting both, each shard in a clone of its own with a kernel "
         "cache of its own, so its first run builds the kernel cold), merges "
         "them and compares every verdict.")


def _wall(v):
    return "–" if v is None else f"{v:,.0f} s"


def section(cmp, esc, code, notes):
    out = [HEAD, "", INTRO, ""]
    if not cmp:
        return out + ["::: placeholder", "**Not run for this book.** There is no "
                      f"{code('build/mutants/compare.json')} and no recorded one: "
                      "`make shards-demo` writes it and `make evidence` keeps it.",
                      ":::", ""]
    rows = []
    for part in sorted(cmp.get("merged", {})):
        m, s = cmp["merged"][part], (cmp.get("single") or {}).get(part, {})
        shards = m.get("shards") or []
        rows.append([code(part), esc(m.get("scope", "")), str(m.get("selected")),
                     _wall(s.get("wall_s")), _wall(m.get("wall_s")),
                     esc(", ".join(f"{_wall(x.get('wall_s'))} ({x.get('selected')} "
                                   "mutants)" for x in shards)),
                     _wall(m.get("cpu_wall_s"))])
    out += small_table(table(["part", "selection", "mutants", "one machine",
                              "two shards (the longest)", "each shard", "shards summed"],
                             [8, 22, 8, 10, 12, 26, 10], rows))
    if cmp.get("same"):
        out += [f"**The merged record equals the one-machine record**: all "
                f"{cmp.get('verdicts')} verdicts (status and the judge that killed) "
                "are the same, and so are the per-file counts.", ""]
    else:
        diff = cmp.get("differences") or []
        notes.append(f"shards: {len(diff)} verdict(s) of the merge differ from one "
                     "machine's")
        out += [f"**{len(diff)} of {cmp.get('verdicts')} verdicts differ** between the "
                "merge and the one-machine run:", ""]
        out += [f"- {code(d)}" for d in diff[:20]] + [""]
    out += ["Each wall time is the verb's own (`make mutants` after `make kernel`): "
            "each shard also imported the kernel and built it cold in a cache of its "
            "own first, which the one-machine run, with a warm cache, did not need, "
            "and both shards shared this machine's two CPUs, so the figures show "
            "that the work divides, not what two machines would save.", ""]
    return out
