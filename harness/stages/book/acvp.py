# SPDX-License-Identifier: GPL-2.0-only
"""Book part: the last ACVP run, drawn from build/acvp/summary.json (the
verb acvp writes it: `make acvp`, and `make check` on the project's copy
of NIST's samples).

render(ctx) -> (markdown, notes); ctx has "top" and the helpers "esc"
and "code".  Every number comes from the data file; without it the
section says so and names the command.  A note (a build warning) says
what is wrong: the data is missing or unreadable, or the run failed.
"""

import json
import os

from .md import small_table, when

DATA = "build/acvp/summary.json"
HEAD = "# The last ACVP run {- #acvp-run}"
COMMAND = "make acvp"


def placeholder(ctx, why):
    code = ctx["code"]
    text = [HEAD, "", f"The data of an ACVP run is missing ({ctx['esc'](why)}).  "
            f"{code(COMMAND)} (and {code('make check')}, on {code('vectors/acvp')}) "
            f"answers the vector sets and writes {code(DATA)}; the book then shows "
            "the counts of that run here.", ""]
    return "\n".join(text), [f"acvp: {why}"]


def registration_table(ctx, reg):
    esc = ctx["esc"]
    out = ["| algorithm | revision | modes | prediction resistance | other |",
           "|---|---|---|---|---|"]
    for a in reg["algorithms"]:
        other = []
        if "reseedImplemented" in a:
            other.append(f"reseed {str(a['reseedImplemented']).lower()}")
        if "messageLength" in a:
            d = a["messageLength"][0]
            other.append(f"messages of {d['min']} to {d['max']} bits in steps of "
                         f"{d['increment']}")
        if "inBit" in a:
            other.append(f"inBit {str(a['inBit']).lower()}, inEmpty "
                         f"{str(a['inEmpty']).lower()}")
        if "performLargeDataTest" in a:
            other.append("large data " + ", ".join(f"{n} GiB" for n in
                                                   a["performLargeDataTest"]))
        pr = ", ".join(str(x).lower() for x in a.get("predResistanceEnabled", [])) or "--"
        out.append(f"| {esc(a['algorithm'])} | {esc(a['revision'])} | "
                   f"{esc(', '.join(a.get('modes', [])) or '--')} | {pr} | "
                   f"{esc('; '.join(other))} |")
    return small_table(out)


def sets_table(ctx, sets):
    esc = ctx["esc"]
    out = ["| vector set | test groups (answered) | test cases | claimed | answered "
           "| not applicable | validation |", "|---|---:|---:|---:|---:|---:|---|"]
    for s in sets:
        val = s["validation"] or "--"
        if s["agrees_with_server"] is not None:
            val += (", as the server's" if s["agrees_with_server"]
                    else ", **not** as the server's")
        out.append(f"| {esc(s['name'])} | {s['test_groups']} ({s['groups_answered']}) | "
                   f"{s['test_cases']:,} | {s['claimed']:,} | {s['answered']:,} | "
                   f"{s['not_applicable']:,} | {esc(val)} |")
    return small_table(out)


def reasons(ctx, sets):
    esc = ctx["esc"]
    out = []
    for s in sets:
        for r in s["reasons"]:
            n = r["test_cases"]
            out.append(f"* {esc(s['name'])}, {n:,} test case{'s' if n != 1 else ''}: "
                       f"{esc(r['reason'])}")
    return (["Every test case the registration does not claim, with the reason:", ""]
            + out + [""]) if out else []


def kcapi_part(ctx, k):
    """The DRBG test cases again through libkcapi (check acvp.kcapi)."""
    if not k:
        return ["This run did not send the DRBG test cases through libkcapi.", ""]
    esc = ctx["esc"]
    why = "; ".join(f"{n:,} {esc(r.replace('_', ' '))}" for r, n in sorted(
        (key[len("beyond_"):], v) for key, v in k.items()
        if key.startswith("beyond_") and v))
    head = ["## Through libkcapi", "",
            "The same boot ran each claimed DRBG test case a second time through "
            "libkcapi and the stock `AF_ALG` CAVP interface "
            "([A second client](#cavs-libkcapi)). "]
    if not k["answered"]:
        verdict = {"skip": "was skipped", "pass": "passed"}.get(k["status"],
                                                                 "**failed**")
        return [head[0], "", "The same boot offered each claimed DRBG test case to "
                "libkcapi and the stock `AF_ALG` CAVP interface too "
                "([A second client](#cavs-libkcapi)).  "
                f"None of the {k['test_cases']:,} test cases could go through that "
                f"interface ({why or 'no reason given'}), so nothing was compared: "
                f"check `acvp.kcapi` {verdict}.  The CAVS records it can carry are "
                "answered in the CAVS boot.", ""]
    verdict = {"pass": "passed", "skip": "was skipped"}.get(k["status"], "**failed**")
    if k["status"] != "pass" and k.get("reason"):
        verdict += f": {esc(k['reason'])}"
    return [head[0], "", head[2] +
            f"{k['answered']:,} of {k['test_cases']:,} answered, "
            f"{k['same_debugfs']:,} equal to the debugfs interface's answer, "
            f"{k['same_expected']:,} of the {k['with_expected']:,} with an expected "
            f"result equal to it; {k['beyond']:,} beyond what that interface carries"
            + (f" ({why})" if why else "") +
            f", in {k['seconds']} s.  Check `acvp.kcapi` {verdict}.", ""]


def render(ctx):
    path = os.path.join(ctx["top"], DATA)
    if not os.path.exists(path):
        return placeholder(ctx, f"{DATA} does not exist")
    try:
        with open(path, encoding="utf-8") as f:
            d = json.load(f)
        sets, reg, t, c = d["sets"], d["registration"], d["timings"], d["checks"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        return placeholder(ctx, f"{DATA} is unreadable: {e}")
    code = ctx["code"]
    total = {k: sum(s[k] for s in sets) for k in ("test_cases", "claimed", "answered",
                                                  "not_applicable")}
    lines = [HEAD, "",
             f"The run of {ctx['esc'](when(d['started']))} on kernel "
             f"{code(d.get('kernel_release') or '?')} ({d['accel']}), vector sets under "
             f"{code(d['acvp_dir'])}: of {total['test_cases']:,} test cases the "
             f"registration claims {total['claimed']:,}, and the kernel answered "
             f"{total['answered']:,}; {total['not_applicable']:,} are not applicable.  "
             f"{c['passed']} checks passed, {c['failed']} failed, {c['skipped']} were "
             "skipped (a test group the registration does not claim at all).", "",
             "## The registration", "",
             f"Derived from the patched kernel: {reg['instances']} DRBG instances and "
             f"{code(reg['hash_driver'])}.", ""]
    lines += registration_table(ctx, reg)
    lines += ["## The vector sets", ""] + sets_table(ctx, sets) + reasons(ctx, sets)
    lines += [f"The guest took {t['guest_s']} s: DRBG test cases {t['drbg_s']} s, "
              f"probes of the registration {t['probe_s']} s ({d['probes']['count']} "
              f"probes; checks of {d['probes']['failed']} instances failed), SHA3-256 "
              f"messages {t['hash_s']} s, the Monte Carlo test {t['mct_s']} s, the large "
              f"messages ({d['ldt_bytes']:,} bytes) {t['ldt_s']} s; the host model "
              f"took {t['model_s']} s.", ""]
    lines += kcapi_part(ctx, d.get("kcapi"))
    notes = [] if c["failed"] == 0 else [f"acvp: the last run has {c['failed']} "
                                         "failed check(s)"]
    return "\n".join(lines), notes
