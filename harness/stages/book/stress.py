# SPDX-License-Identifier: GPL-2.0-only
"""The hardening appendix's section on make stress, drawn from
build/stress/report.json (the "stress" section that judges/stress.py
writes, and the run's checks).  Without the report the section is a
placeholder naming the command; a failed check of the run is named and
given as a note (a build warning).

    stress_md(report or None, esc, code, notes) -> [markdown lines]
"""

from .md import small_table, when

REPORT = "build/stress/report.json"
ABOUT = ("`make stress` boots the debug kernel (KASAN, UBSAN, lockdep, kmemleak, "
         "work-object debugging, preemption, two CPUs) at figures given on its "
         "command line, outside `make check`: seeded hostile calls through every "
         "interface the series adds or changes (the blocking API through "
         "`random_blocking/stress`, the DRBG's test interface, `AF_ALG`, the Jitter "
         "RNG's raw-noise interface), the blocking API while the CRNG becomes "
         "ready, allocation failure at every point of every path, the DRBG "
         "life-cycle race with more rounds, the DRBG and Jitter RNG modules removed "
         "and loaded again (on the modules kernel, which has the debug options "
         "too), and the FIPS and Jitter RNG failure boots again.  The figures below "
         "are read from its report.")


def _ran(row, esc):
    n, race, un = row.get("calls"), row.get("race"), row.get("unready")
    if n:
        out = (f"{n.get('calls', 0)} of {n.get('requested', 0)} calls, seed "
               f"{n.get('seed')}, {n.get('unexpected', 0)} unexpected results")
        if un:
            out += f"; {un.get('runs', 0)} blocking-API runs as the CRNG became ready"
        return out
    if race:
        return f"{race['cycles']} life cycles on {race['cpus']} CPUs in {race['ms']} ms"
    m = row.get("modules")
    if m:
        return (f"the DRBG module removed and loaded {m.get('reloaded', 0)} times, the "
                f"Jitter RNG's {m.get('jitter_cycles', 0)}, "
                f"{m.get('sockets_generated', 0)} DRBG sockets")
    return esc(row.get("title", ""))


def _memory_line(mem, code):
    """guest.stress.memory: SUnreclaim with every cache shrunk (KASAN's
    quarantine emptied), at four points; the second half of the calls and
    the allocation-failure paths are judged."""
    if "slab_kib_half" not in mem:        # a record of the former check
        return (f"Unreclaimable slab: {mem.get('slab_kib_before')} KiB before, "
                f"{mem.get('slab_kib_after')} KiB after ({mem.get('growth_kib')} KiB, "
                f"bound {mem.get('bound_kib')} KiB; a run of the former check, made "
                "before the caches were shrunk and the calls halved).")
    top = mem.get("top_growth") or "none"
    ftop = mem.get("faults_top_growth") or "none"
    return (f"Unreclaimable slab, with the caches dropped and each of "
            f"{mem.get('caches_shrunk', '?')} slab caches shrunk (KASAN's quarantine "
            f"emptied): {mem.get('slab_kib_boot')} KiB at the start, "
            f"{mem.get('slab_kib_half')} KiB after half of the calls, "
            f"{mem.get('slab_kib_end')} KiB after all of them and "
            f"{mem.get('slab_kib_faults')} KiB after the allocation-failure paths.  "
            f"The second half grew it by **{mem.get('growth_kib')} KiB** (the caches "
            f"that grew most: {code(top)}) and the failure paths by "
            f"**{mem.get('faults_growth_kib')} KiB** ({code(ftop)}), each against a "
            f"bound of {mem.get('bound_kib')} KiB; the first half, which warms every "
            f"cache the calls use, is not judged ({mem.get('first_half_growth_kib')} "
            f"KiB); {mem.get('status', '?')}"
            + (f": {mem['reason']}" if mem.get("reason") else "") + ".")


def _calls_lines(row, code):
    n, un, mem = row.get("calls") or {}, row.get("unready") or {}, row.get("memory")
    names = ("run_bad", "run_good", "trace", "af_alg_read", "af_alg_key",
             "af_alg_cycle", "jitter_read", "raw_noise", "blocking", "isolation")
    out = [f"The calls by interface: "
           + ", ".join(f"{k.replace('_', ' ')} {n[k]}" for k in names if k in n)
           + f"; the sequence's hash {code(n.get('sequence_fnv64', '?'))} (the same "
           f"seed makes the same sequence); {n.get('ms', 0) // 1000} s in the guest, "
           f"bound {n.get('seconds_bound', '?')} s"
           + (" (**reached first**)" if n.get("time_bound_hit") else "") + "."]
    if un:
        out.append(f"With the CRNG not ready at first: {un.get('runs', 0)} runs of "
                   f"{un.get('ops_per_run', '?')} blocking-API operations, "
                   f"{un.get('runs_before_ready', 0)} begun before it was ready, "
                   f"{un.get('runs_across_ready', 0)} with requests pending when "
                   f"entropy was credited ({un.get('entropy_after_ms', '?')} ms in); "
                   f"{un.get('status')}.")
    fl = row.get("faults")
    if fl:
        out.append(f"Allocation failure at every point: {fl.get('paths', 0)} paths "
                   f"(the test interface's run and trace for a PR and a non-PR instance "
                   f"of each core type, AF_ALG sockets), {fl.get('points', 0)} points, "
                   f"{fl.get('errors', 0)} ended in an error returned and "
                   f"{fl.get('recovered', 0)} in the right result; "
                   f"{fl.get('paths_failed', 0)} paths failed; injected into the slab "
                   "allocator" + (" and the page allocator (so vmalloc's pages too)"
                                  if fl.get("fail_page_alloc") else
                                  " only (this kernel has no CONFIG_FAIL_PAGE_ALLOC)")
                   + ".")
    if mem:
        out.append(_memory_line(mem, code))
    return [" ".join(out), ""]


def stress_md(rep, esc, code, notes, path=None):
    out = ["## At large figures {- #hardening-stress}", "", ABOUT, ""]
    s = (rep or {}).get("stress")
    if not s:
        return out + ["::: placeholder", f"**Not run for this book.** There is no "
                      f"{code(REPORT)}: `make stress` writes it (the debug kernel at "
                      "large figures; not part of `make check`).", ":::", ""]
    f, t, k = s["figures"], s["targets"], rep.get("kernel") or {}
    out += [f"From {code(path or REPORT)}: kernel {code(k.get('release', '?'))}, started "
            f"{when(rep.get('started'))}, {rep.get('duration_s', '?')} s of wall time, "
            f"on {rep.get('host', {}).get('cpu_model', '?')} "
            f"({rep.get('host', {}).get('nproc', '?')} CPUs).  Asked for: "
            f"{f['calls']} calls (seed {f['seed']}, bounded at {f['seconds']} s), "
            f"{f['race_rounds']} rounds of each race thread, "
            f"{f.get('module_rounds', '?')} module rounds; issue 20 asks for "
            f"{t['calls']} calls, {t['race_cycles']} life cycles and "
            f"{t.get('module_cycles', '?')} module cycles.", ""]
    rows = [[code(r["boot"]), _ran(r, esc), r.get("seconds"),
             r.get("outcome") if r.get("outcome") == r.get("expect")
             else f"**{r.get('outcome')}** (expected {r.get('expect')})",
             "-" if r["kernel_log_reports"] is None else r["kernel_log_reports"],
             "-" if r["kmemleak_unexplained"] is None else r["kmemleak_unexplained"],
             "{pass} / {fail} / {skip}".format(**r["checks"])] for r in s["boots"]]
    head = ["boot", "what it ran", "s", "ended", "kernel-log reports",
            "kmemleak, unexplained", "checks passed / failed / skipped"]
    out += small_table(["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
                       + ["| " + " | ".join(str(c) for c in r) + " |" for r in rows])
    calls = next((r for r in s["boots"] if r.get("calls")), None)
    if calls:
        out += _calls_lines(calls, code)
    verdict = {c["id"]: c for c in rep.get("checks", []) if c["id"].startswith("stress.")}
    bad = [c["id"] for c in rep.get("checks", []) if c["status"] == "fail"]
    out += [f"In all: {s['calls']} calls, {s['race_cycles']} race life cycles, "
            f"{s.get('module_cycles', 0)} module cycles, {s.get('fault_points', 0)} "
            "allocation failures injected, "
            f"{s['kernel_log_reports']} kernel-log reports, {s['kmemleak_unexplained']} "
            "unexplained kmemleak reports; "
            + "; ".join(f"{code(i)} {c['status']}" + (f" ({esc(c['reason'])})"
                                                       if c.get("reason") else "")
                        for i, c in sorted(verdict.items())) + ".", ""]
    if bad:
        notes.append(f"stress: {len(bad)} check(s) failed: {', '.join(bad[:5])}")
        out += ["Failed: " + ", ".join(code(b) for b in bad[:20]) + ".", ""]
    return out
