# SPDX-License-Identifier: GPL-2.0-only
"""/proc/crypto in the guest: the DRBGs and the Jitter RNG are registered,
and what their "selftest : passed" is worth.

The guest sends, for each of the 22 DRBGs and jitterentropy_rng, the
selftest field of its /proc/crypto entry ({"type": "proc_crypto",
"driver", "selftest"}; null when the driver is not registered).  testmgr
writes "passed" when the algorithm's test in alg_test_descs[]
(crypto/testmgr.c) returned 0, and alg_test_null() returns 0 without
testing anything: for those drivers "passed" means registered, nothing
more.  So the test each driver has is read from the tree's
crypto/testmgr.c, and the checks count the two apart:

- guest.proc_crypto.drbg: all 22 registered, and every one whose testmgr
  test is not alg_test_null passed it (their known answers are then
  CAVS's: the cavs boot runs every one of them);
- guest.proc_crypto.jitterentropy: registered (testmgr has alg_test_null
  for it; its own start-up health test is guest.jitter.startup).
"""

import os
import re

from ..base.checks import Check

NULL_TEST = "alg_test_null"


def testmgr_tests(src):
    """{algorithm or driver name: its test function} of alg_test_descs[]
    in src/crypto/testmgr.c."""
    try:
        with open(os.path.join(src, "crypto/testmgr.c"), errors="replace") as f:
            text = f.read()
    except OSError:
        return {}
    out = {}
    starts = [m for m in re.finditer(r'\.alg\s*=\s*"([^"]+)"', text)]
    for m, nxt in zip(starts, starts[1:] + [None]):
        body = text[m.end():nxt.start() if nxt else len(text)]
        t = re.search(r"\.test\s*=\s*(\w+)", body)
        if t:
            out[m.group(1)] = t.group(1)
    return out


def _entries(recs):
    return {r.get("driver"): r.get("selftest") for r in recs
            if r.get("type") == "proc_crypto"}


def checks(recs, boot, src):
    """The /proc/crypto checks of one boot ([] when the guest sent none)."""
    seen = _entries(recs)
    if not seen:
        return []
    tests = testmgr_tests(src)
    kw = dict(origin="guest", boot=boot)
    drbgs = sorted(d for d in seen if d and d.startswith("drbg_"))
    missing = [d for d in drbgs if seen[d] is None]
    null = [d for d in drbgs if tests.get(d) == NULL_TEST]
    unknown = [d for d in drbgs if d not in tests]
    tested = [d for d in drbgs if d not in null and d not in unknown]
    failed = [f"{d}: selftest {seen[d]!r}" for d in drbgs
              if seen[d] is not None and seen[d] != "passed"]
    problems = ([f"{d}: not registered" for d in missing] + failed +
                [f"{d}: no entry in alg_test_descs[] of crypto/testmgr.c" for d in unknown])
    if len(drbgs) != 22:
        problems.insert(0, f"the guest reported {len(drbgs)} DRBGs, expected 22")
    out = [Check.judge(
        "guest.proc_crypto.drbg", f"the 22 DRBGs are registered; the {len(tested)} with "
        f"a testmgr test passed it ({len(null)} have only {NULL_TEST}: registered, "
        "not tested by testmgr)", problems,
        counts={"registered": len(drbgs) - len(missing),
                "testmgr_tested_passed": sum(seen[d] == "passed" for d in tested),
                "testmgr_null_test": len(null)},
        details={"testmgr_null_test": null, "testmgr_tested": tested}, **kw)]
    jent = seen.get("jitterentropy_rng")
    jtest = tests.get("jitterentropy_rng")
    jproblems = (["jitterentropy_rng is not registered"] if jent is None else
                 [f"jitterentropy_rng selftest {jent!r}"] if jent != "passed" else [])
    out.append(Check.judge(
        "guest.proc_crypto.jitterentropy",
        "jitterentropy_rng is registered" + (
            f" (testmgr has {NULL_TEST} for it: its start-up health test is "
            "guest.jitter.startup)" if jtest == NULL_TEST else
            f" and passed testmgr's {jtest}" if jtest else ""), jproblems,
        details={"selftest": jent, "testmgr_test": jtest}, **kw))
    return out
