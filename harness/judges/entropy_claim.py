# SPDX-License-Identifier: GPL-2.0-only
"""The entropy claim: one H_submitter per operating environment (SP 800-90B
3.1.3, justified as 3.2.2 asks in the chapter "The CPU Jitter RNG: entropy
evidence"), and the one number every use of it reads.

    H_SUBMITTER                the claim, bits of min-entropy per raw sample
    ENVIRONMENTS               each operating environment: its claim (or
                               None: measured, not credited), its timer,
                               the sources that measure it
    claim_of(source)           a source's claim (None: no credit rests on it)
    environment_of(source)     a source's environment
    credit(summary_sources)    per environment: the claim, the validated H
                               of its sources (the least), and the credit
                               per output block

The claim is the code's: the health tests' cutoffs are derived from it
(entropy_report.cutoffs(H_SUBMITTER) must give the code's constants), the
assessor gets it as --submitter (H_I = min(H_submitter, assessed)), the
restart tests are made against that H_I, and the chain carries the
validated H.  A source whose restart tests fail is credited nothing.
"""

H_SUBMITTER = 1.0

# A source named <base>-fixed is recorded with the loop shuffle off and
# belongs to its base's environment.
ENVIRONMENTS = {
    "x86-64": {
        "claim": H_SUBMITTER,
        "title": "x86-64, the kernel's timing path (rdtsc)",
        "timer": "the CPU's time stamp counter, rdtsc, read by get_cycles() "
                 "through random_get_entropy()",
        "sources": ("ours-uml-tsc", "ours-uml-tsc-fixed"),
        "credited": True,
        "note": "the kernel's own Jitter RNG object, run as User-Mode Linux on the "
                "real CPU with x86-64's get_cycles() (a model of x86-64's timing "
                "path: the object is compiled for ARCH=um)"},
    "x86-64-user": {
        "claim": H_SUBMITTER,
        "title": "x86-64, the core in user space (rdtsc)",
        "timer": "rdtsc, read by the collector's host",
        "sources": ("ours-user", "ours-user-fixed"),
        "credited": True,
        "note": "the tangled core compiled on its own in a host program: the "
                "design's noise on this CPU, beside 6.1's"},
    "uml-clocksource": {
        "claim": None,
        "title": "User-Mode Linux's clocksource (a 256 ns tick)",
        "timer": "random_get_entropy_fallback(): UML's clocksource, os_nsecs() / 256",
        "sources": ("ours-uml", "ours-uml-fixed"),
        "credited": False,
        "note": "a coarse timer: measured and reported; no entropy is claimed for it"},
    "tcg": {
        "claim": None,
        "title": "QEMU TCG (emulated time)",
        "timer": "the emulated time stamp counter",
        "sources": ("ours-kernel",),
        "credited": False,
        "note": "emulated time: the code path only, never evidence"},
    "x86-64-6.1": {
        "claim": H_SUBMITTER,
        "title": "Linux 6.1's core in user space (rdtsc)",
        "timer": "rdtsc, read by the collector's host",
        "sources": ("pristine-user",),
        "credited": False,
        "note": "6.1's own claim (one bit per delta, its cutoffs 30/60), reported "
                "beside ours and not judged"},
}


def environment_of(source):
    return next((k for k, e in ENVIRONMENTS.items() if source in e["sources"]), None)


def claim_of(source):
    env = environment_of(source)
    return ENVIRONMENTS[env]["claim"] if env else None


def credited(source):
    """Whether make check judges the source against its claim."""
    env = environment_of(source)
    return bool(env and ENVIRONMENTS[env]["credited"])


def credit(sources):
    """Per environment with data: its claim, the least validated H of its
    sources, and the least credit per block; an environment whose sources
    are not all there says which."""
    out = {}
    for env, e in ENVIRONMENTS.items():
        got = [sources[n] for n in e["sources"] if n in sources]
        ok = [s for s in got if not s.get("error")]
        if not ok:
            continue
        summ = [(s.get("chain") or {}).get("summary") or {} for s in ok]
        hs = [s.get("h") for s in ok]
        out[env] = {
            "title": e["title"], "claim": e["claim"], "credited": e["credited"],
            "sources": [s["name"] for s in ok],
            "missing": [n for n in e["sources"] if n not in sources or
                        sources[n].get("error")],
            "h": min(h for h in hs) if None not in hs else None,
            "credited_bits": min(x.get("credited_bits") or 0 for x in summ),
            "full_entropy": all(x.get("full_entropy") for x in summ)}
    return out
