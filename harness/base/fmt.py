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

