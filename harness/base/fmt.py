# SPDX-License-Identifier: GPL-2.0-only
"""How make bench's results are written for people: bench.md, and the
book's performance appendix, which reads build/bench/bench.json and uses
these helpers (it imports no measuring code)."""



def fmt(v, nd=1):
    if v is None:
        return "–"
    if isinstance(v, float) and abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:.{nd}f}" if isinstance(v, float) else str(v)


def smm(s, nd=1, scale=1.0):
    """'median (min–max)' of a stats dict."""
    if not s:
        return "–"
    return (f"{fmt(s['median'] * scale, nd)} ({fmt(s['min'] * scale, nd)}–"
            f"{fmt(s['max'] * scale, nd)})")


def load_pair(load):
    """The 1-minute load average before and after a run."""
    if not load or not all(load):
        return "–"
    return f"{load[0][0]:.1f}, {load[1][0]:.1f}"


def machine_lines(res):
    h = res.get("host", {})
    k = res.get("kernels", {})
    t = res.get("tools", {})
    acc = res.get("accel", "?")
    return [
        f"- run started {res.get('started', '?')}, {fmt(res.get('duration_s'), 0)} s in all",
        f"- host: {h.get('nproc', '?')} CPUs, {h.get('cpu_model', '?')}; load average "
        f"(1, 5, 15 min) {h.get('load_start')} at the start, {h.get('load_end')} at the end",
        f"- accelerator: {acc}" + (" (guest timings are emulated: QEMU's TCG, not a "
                                   "real CPU)" if acc == "tcg" else ""),
        f"- kernels: ours {k.get('ours', {}).get('release', '?')} (series head "
        f"{str(k.get('ours', {}).get('head', '?'))[:12]}), pristine "
        f"{k.get('pristine', {}).get('release', '?')}, both from {k.get('base', '?')}",
        f"- tools: {t.get('gcc', '?')}; {t.get('qemu', '?')}; {t.get('make', '?')}; "
        f"Python {t.get('python', '?')}",
    ]


# make bench's workflow runs, in the order bench.md and the performance
# appendix show them, and what each run's time went to.
WORKFLOW_RUNS = ("conform_cold", "conform_warm", "conform_chunk", "kunit_cold", "kunit_warm",
                 "check_cold", "check_warm")


def workflow_parts(key, v):
    """(label, seconds) of what a workflow run's time went to."""
    if key.startswith("check"):
        return sorted((v.get("steps_s") or {}).items(), key=lambda kv: -kv[1])[:4]
    if key.startswith("conform"):
        keys = (("import", "import_s"), ("build", "build_s"), ("boots", "boots_s"),
                ("other", "other_s"), ("first boot's result at", "first_boot_s"))
    else:
        keys = (("configuring", "configuring_s"), ("building", "building_s"),
                ("running", "running_s"))
    return [(n, v[k]) for n, k in keys if v.get(k) is not None]


def chunk_reached(run):
    """Whether a make conform after a one-chunk edit measured an edit:
    the series changed a file of the kernel tree and the kernel was built
    again.  Otherwise the edit stopped at tangled/ (a line a later patch
    rewrites, or a comment the compiler drops) and its boots were kept."""
    return bool(run.get("changed_files")) and run.get("build_s") is not None
