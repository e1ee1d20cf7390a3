# SPDX-License-Identifier: GPL-2.0-only
"""build/bench/bench.md: make bench's results for people, section by section."""

from ..base.fmt import WORKFLOW_RUNS, fmt, load_pair, machine_lines, smm, workflow_parts


def targets_md(res):
    if not res.get("targets"):
        return []
    out = ["## Targets (issues 9 and 39)", "", "| target | measured | met |", "|---|---|---|"]
    for t in res["targets"]:
        note = f" ({t['note']})" if t.get("note") else ""
        out.append(f"| {t['target']} | {t['measured']} {t['unit']}{note} | "
                   f"{'yes' if t['met'] else '**no**'} |")
    return out + [""]


def jitter_md(g):
    j, s = g["jitter"], g.get("settings", {})
    out = [f"## Jitter RNG in the guest ({g['pairs']} boots of each kernel, "
           "alternating; per boot the median of its samples; median (min–max) "
           "over the boots; ratio = ours / pristine, pair by pair)", "",
           "| measure | ours | pristine | ratio |", "|---|---|---|---|"]
    for key, label in (("read32_us", f"µs per 32-byte read ({s.get('reads_32B')} "
                        "reads per boot)"),
                       ("throughput_Bps", f"bytes/s ({s.get('max_bytes')} bytes requested)"),
                       ("startup_us", "start-up (jent_mod_init, µs, initcall_debug)")):
        v = j[key]
        out.append(f"| {label} | {smm(v['ours'], 0)} | {smm(v['pristine'], 0)} | "
                   f"{smm(v['ratio'], 3)} |")
    out += ["", "Time against bytes requested (µs):", "",
            "| bytes | ours | pristine | ratio |", "|---|---|---|---|"]
    for b, v in j["sizes_us"].items():
        out.append(f"| {b} | {smm(v['ours'], 0)} | {smm(v['pristine'], 0)} | "
                   f"{smm(v['ratio'], 3)} |")
    return out


def drbg_md(g):
    s = g.get("settings", {})
    out = ["", f"## DRBG instantiation in the guest (µs; bind, then "
           f"setsockopt(ALG_SET_KEY) timed; {s.get('drbg_reps_per_boot')} per "
           "boot, same security strength in both kernels)", "",
           "| instance | ours | pristine | ratio |", "|---|---|---|---|"]
    for d, v in g["drbg"].items():
        out.append(f"| {d} | {smm(v['ours'], 0)} | {smm(v['pristine'], 0)} | "
                   f"{smm(v['ratio'], 3)} |" + (f" errors {v['errors']}"
                                                if v.get("errors") else ""))
    v = g.get("drbg_init_us")
    if v:
        out.append(f"| drbg_init (initcall, µs) | {smm(v['ours'], 0)} | "
                   f"{smm(v['pristine'], 0)} | {smm(v['ratio'], 3)} |")
    if g.get("errors"):
        out += ["", "Errors: " + "; ".join(g["errors"])]
    return out + [""]


def cavs_md(c):
    out = [f"## CAVS in the guest (test kernel; {c['repetitions']} runs each; "
           f"{c['how']})", "",
           "| records | seconds | records/s | failed records |", "|---|---|---|---|"]
    for sub in c["subsets"]:
        out.append(f"| {sub['records']} ({sub['fraction']:g}) | {smm(sub['seconds'], 2)} | "
                   f"{smm(sub['records_per_s'], 0)} | {sub['failed_records']} |")
    return out + [""]


def workflow_row(key, v):
    parts = [f"{n} {fmt(s, 0)} s" for n, s in workflow_parts(key, v)]
    if v.get("kept_boots"):
        parts.append(f"{v['kept_boots']} boots kept")
    return (f"| {v['what']} | {fmt(v['seconds'], 1)} | {fmt(v.get('cpu_s'), 0)} "
            f"| {', '.join(parts) or '–'} | {load_pair(v.get('load'))} | {v['rc']} |")


def workflow_md(wf):
    out = ["## Workflow on the host (one run each)", "",
           "| run | seconds | CPU s | of which | load before, after | exit |",
           "|---|---|---|---|---|---|"]
    out += [workflow_row(key, wf[key]) for key in WORKFLOW_RUNS if wf.get(key)]
    cold = wf.get("conform_cold", {})
    if cold.get("import_s") is not None:
        out += ["", f"Making the kernel cache in the cold run: import "
                f"{fmt(cold['import_s'], 0)} s + build {fmt(cold.get('build_s'), 0)} s "
                f"of {fmt(cold['seconds'], 0)} s."]
    return out + [""]


def entropy_md(e):
    out = ["## Entropy rate (host, user space, the collectors of make entropy)", "",
           "| noise source | raw samples | CPU s | samples per CPU s | assessed H_I | "
           "bits per CPU s | blocks | samples per block | blocks per CPU s |",
           "|---|---|---|---|---|---|---|---|---|"]
    for name in ("ours-user", "pristine-user"):
        v = e[name]
        out.append(f"| {name} | {v['samples']} | {fmt(v['cpu_s'], 2)} | "
                   f"{fmt(v['samples_per_cpu_s'], 0)} | {fmt(v['h_i'], 4)} | "
                   f"{fmt(v['bits_per_cpu_s'], 0)} | {v.get('blocks', '–')} | "
                   f"{fmt(v.get('samples_per_block'), 0)} | "
                   f"{fmt(v.get('blocks_per_cpu_s'), 0)} |")
    return out + ["", f"Ours / 6.1's: {fmt(e['ratio'], 2)} in assessed bits per CPU "
                  f"second, {fmt(e.get('blocks_ratio'), 2)} in output blocks per CPU "
                  "second.", ""]


def markdown(res):
    out = ["# make bench", ""] + machine_lines(res) + [""] + targets_md(res)
    if res.get("guest"):
        out += jitter_md(res["guest"]) + drbg_md(res["guest"])
    if res.get("cavs"):
        out += cavs_md(res["cavs"])
    if res.get("workflow"):
        out += workflow_md(res["workflow"])
    if res.get("entropy_rate"):
        out += entropy_md(res["entropy_rate"])
    return "\n".join(out) + "\n"
