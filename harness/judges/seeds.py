# SPDX-License-Identifier: GPL-2.0-only
"""The DRBG's seed lengths, measured in the kernel, against the book's table.

The KUnit suites of the DRBG print one line per seeding they measure:

  seedlen DRIVER PATH total=N grb=N jent=N extra=N layout=ok|...

This judge collects them into report.json's drbg_seed_lengths table and
checks every instance has every seeding path it should, with the lengths
the book's table of seed paths states (restated here, so that the host
checks the kernel's figures against its own expectation).
"""

import re

from ..base.checks import Check

# Security strength in bytes per DRBG core (SP 800-90A tables 2 and 3).
STRENGTH = {"ctr_aes128": 16, "ctr_aes192": 24, "ctr_aes256": 32, "sha1": 16,
            "sha256": 32, "sha384": 32, "sha512": 32, "hmac_sha1": 16,
            "hmac_sha256": 32, "hmac_sha384": 32, "hmac_sha512": 32}
# The (get_random_bytes, Jitter RNG) parts of each seed path, in units of
# the security strength (the book's table of seed paths, chapter "Seeding
# the DRBG").  "reseed-crng-ready" is the synchronous reseed of a PARTIAL
# instance at its first request after the CRNG is ready, "reseed-async" the
# reseed by the shared waiter's callback, "reseed-threshold-jentfail" a
# threshold reseed whose Jitter RNG read failed and was tolerated.
SEED_PATHS = {
    "instantiate": (1.5, 1.5), "instantiate-unseeded": (1.5, 1.5),
    "reseed-explicit": (1, 1), "reseed-pr": (1, 1), "reseed-threshold": (1, 1),
    "reseed-300s": (1, 0), "reseed-async": (1, 0), "reseed-crng-ready": (1, 0),
    "instantiate-nojent": (1.5, 0), "reseed-nojent": (1, 0),
    "instantiate-jentfail": (1.5, 0), "reseed-jentfail": (1, 0),
    "reseed-threshold-jentfail": (1, 0),
}
SEEDLEN = re.compile(r"seedlen (drbg_(no)?pr_(\S+)) (\S+) total=(\d+) grb=(\d+) "
                     r"jent=(\d+) extra=(\d+) layout=(\w+)")


def measured(console_paths):
    """{driver: {path: {"measured", "expected", "match"}}} from the logs."""
    table = {}
    for path in console_paths:
        with open(path, errors="replace") as f:
            for ln in f:
                m = SEEDLEN.search(ln)
                if not m:
                    continue
                driver, core, sp = m.group(1), m.group(3), m.group(4)
                total, grb, jent, extra = (int(m.group(i)) for i in range(5, 9))
                s = STRENGTH.get(core)
                exp = SEED_PATHS.get(sp)
                want = (int(exp[0] * s), int(exp[1] * s)) if s and exp else None
                table.setdefault(driver, {})[sp] = {
                    "measured": {"total": total, "grb": grb, "jent": jent,
                                 "extra": extra, "layout": m.group(9)},
                    "expected": {"grb": want[0], "jent": want[1]} if want else None,
                    "match": bool(want) and (grb, jent) == want and
                    total == grb + jent + extra and m.group(9) == "ok"}
    return table


def required_paths(pr):
    """The seed paths every instance must show: a prediction-resistant one
    reseeds from both sources at every request and never without the
    Jitter RNG; the others take the get_random_bytes()-only paths."""
    need = ["instantiate", "reseed-explicit", "reseed-threshold",
            "instantiate-nojent", "reseed-nojent", "instantiate-jentfail",
            "reseed-async"]
    if pr == "pr":
        return need + ["reseed-pr"]
    return need + ["reseed-300s", "reseed-jentfail", "reseed-crng-ready",
                   "reseed-threshold-jentfail"]


def seed_lengths(console_paths):
    """(table, Check): every path of all 22 instances, measured and expected."""
    table = measured(console_paths)
    problems = []
    for pr in ("pr", "nopr"):
        for core in STRENGTH:
            d = f"drbg_{pr}_{core}"
            for sp in required_paths(pr):
                e = table.get(d, {}).get(sp)
                if e is None:
                    problems.append(f"{d} {sp}: not measured")
                elif not e["match"]:
                    problems.append(f"{d} {sp}: measured {e['measured']}, "
                                    f"expected {e['expected']}")
    check = Check.judge(
        "drbg.seed-lengths", "seed lengths of every path of all 22 instances, measured "
        "by KUnit, against the host's own table", problems, shown=1,
        counts={"instances": len(table),
                "measurements": sum(len(v) for v in table.values()),
                "mismatches": len(problems)},
        details={"problems": problems[:40]})
    if problems:
        check.reason = f"{len(problems)} problem(s), first: {problems[0]}"
    return table, check
