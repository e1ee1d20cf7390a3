# SPDX-License-Identifier: GPL-2.0-only
"""The hardening summary: the faults injected, the hostile calls made and
the reports seen, over the checks of all boots of a run.

A fault passes when every check that injects it ran and passed: each of
its check ids must be reported, at least once (a KUnit case may report
per parameter).  One whose checks were partly skipped fails (a skip is
never a pass).  One none of whose checks ran is "not run", and one some
of whose checks ran and others not at all is "partly run" (the ids not
reported are named): neither was injected whole, so hardening.faults is
then skipped, with the reason, when the debug kernel was not booted
(make conform), and fails when it was (make check).
"""

from ..base.checks import Check


FAULTS = [
    ("Jitter RNG start-up test fails, no FIPS: the DRBG seeds from "
     "get_random_bytes() alone and says so",
     ["nojent.guest.jitter.absent", "boot.jitter-absent.console", "nojent.drbg.trace"]),
    ("Jitter RNG start-up test fails with fips=1: panic with the RNG's message",
     ["boot.jitter-startup-fips.panic-reason"]),
    ("Jitter RNG fails transiently (intermittent health failure) during seeding",
     ["kunit.drbg_seed.jent_runtime_failure_layout",
      "fips.kunit.drbg_seed.jent_runtime_failure_layout",
      "guest.jitter.hooked_read"]),
    ("Jitter RNG fails permanently: -EFAULT outside FIPS, panic with fips=1",
     ["kunit.drbg_seed.jent_runtime_failure_layout",
      "boot.jitter-permanent-fips.panic-reason", "kunit.jitterentropy"]),
    ("Jitter RNG absent at instantiation (test hook), with and without FIPS",
     ["kunit.drbg_seed.jent_absent_layout", "fips.kunit.drbg_seed.jent_absent_layout"]),
    ("Allocation failure at every slab allocation of a DRBG instantiation "
     "(seed_buf, the Jitter RNG's collector, ...)",
     ["debug.guest.faults.alloc-every-point"]),
    ("The DRBG update fails: seed_buf is still cleared",
     ["kunit.drbg_seed.seed_buf_zero_on_error"]),
    ("Blocking API request cancelled before queueing, while blocked, after "
     "completion and during teardown",
     ["kunit.random_blocking_unseeded.seed_module_scenario",
      "kunit.random_blocking.async_cancel_before_start",
      "kunit.random_blocking.async_cancel_sync_dequeues",
      "kunit.random_blocking.async_cancel_after_completion",
      "kunit.drbg_seed.async_withdrawn_on_uninstantiate"]),
]


def _status(found, absent):
    if not found:
        return "not run"
    st = [c.status for c in found]
    if "fail" in st:
        return "fail"
    if absent:
        return "partly run"
    return "pass" if all(s == "pass" for s in st) else "partly skipped"


def summary(checks):
    """The faults with their status, and the run's totals."""
    by = {c.id: c for c in checks}

    def matching(cid):
        return [c for k, c in by.items() if k == cid or k.startswith(cid + ".")]

    faults = []
    for what, ids in FAULTS:
        found = [c for cid in ids for c in matching(cid)]
        absent = [cid for cid in ids if not matching(cid)]
        faults.append({"fault": what, "checks": ids, "instances": len(found),
                       "status": _status(found, absent), "absent": absent,
                       "skipped": [c.id for c in found if c.status == "skip"][:10]})

    def total(match, key):
        return sum(c.counts.get(key, 0) for c in checks if match(c.id))

    return {
        "faults": faults,
        "fault_injection_points": total(lambda i: "faults.alloc-every-point" in i, "points"),
        "hostile_calls": total(lambda i: ".hostile." in "." + i, "calls")
        + total(lambda i: "hostile.fuzz-run" in i, "iterations"),
        "kernel_log_reports": total(lambda i: i.startswith("boot.") and
                                    i.endswith(".kernel-log"), "reports"),
        "kmemleak_unexplained": total(lambda i: "kmemleak" in i, "unexplained"),
        "kmemleak_allowlisted": total(lambda i: "kmemleak" in i, "allowlisted"),
    }


def check(h, debug_booted):
    """hardening.faults from a summary."""
    bad = [f"{f['fault']}: {f['status']}" + (f" ({', '.join(f['skipped'])})"
                                             if f["skipped"] else "")
           for f in h["faults"] if f["status"] in ("fail", "partly skipped")]
    missing = [f["fault"] + (f" (partly run: {', '.join(f['absent'])} not reported)"
                             if f["status"] == "partly run" else "")
               for f in h["faults"] if f["status"] in ("not run", "partly run")]
    title = "every fault of the hardening plan was injected and handled"
    kw = dict(counts={"faults": len(h["faults"]), "failed": len(bad),
                      "not_run": len(missing),
                      "allocation_failures_injected": h["fault_injection_points"],
                      "hostile_calls": h["hostile_calls"],
                      "kernel_log_reports": h["kernel_log_reports"]})
    if bad:
        return Check.failed("hardening.faults", title, "; ".join(bad), **kw)
    if missing and debug_booted:
        return Check.failed("hardening.faults", title, "not injected in a run with "
                            "the debug kernel: " + "; ".join(missing), **kw)
    if missing:
        return Check.skipped("hardening.faults", title, "not every fault was injected "
                             "in this run (the debug kernel was not booted): "
                             + "; ".join(missing), **kw)
    return Check.passed("hardening.faults", title, **kw)
