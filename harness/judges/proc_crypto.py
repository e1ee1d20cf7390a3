# SPDX-License-Identifier: GPL-2.0-only
"""/proc/crypto in the guest: the DRBGs and the Jitter RNG are registered,
and what their "selftest : passed" is worth.

The guest sends, for each of the 22 DRBGs and jitterentropy_rng, the
selftest, priority and seedsize fields of its /proc/crypto entry
({"type": "proc_crypto", "driver", "selftest", "priority", "seedsize"};
null when the driver is not registered).  testmgr
writes "passed" when the algorithm's test in alg_test_descs[]
(crypto/testmgr.c) returned 0, and alg_test_null() returns 0 without
testing anything: for those drivers "passed" means registered, nothing
more.  So the test each driver has is read from the tree's
crypto/testmgr.c, and the checks count the two apart:

- guest.proc_crypto.drbg: all 22 registered, and every one whose testmgr
  test is not alg_test_null passed it (their known answers are then
  CAVS's: the cavs boot runs every one of them);
- guest.proc_crypto.jitterentropy: registered with priority 100 and seed
  size 0, as the 2015 patch registers it (testmgr has alg_test_null for
  it; its own start-up health test is guest.jitter.startup).  The
  priority decides which of two registered "jitterentropy_rng"
  implementations crypto_alloc_rng() returns; the seed size 0 says that
  crypto_rng_reset() takes no seed from its caller.
"""

import os
import re

from ..base.checks import Check

NULL_TEST = "alg_test_null"
# jent_alg in crypto/jitterentropy-kcapi.c, as the 2015 patch sets it.
JITTER_PRIORITY = 100
JITTER_SEEDSIZE = 0


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


def _jitter_problems(rec):
    """What is wrong with the jitterentropy_rng record: not registered, a
    self-test not passed, or a priority or seed size not the patch's."""
    if rec.get("selftest") is None:
        return ["jitterentropy_rng is not registered"]
    out = [] if rec["selftest"] == "passed" else [
        f"jitterentropy_rng selftest {rec['selftest']!r}"]
    for field, want in (("priority", JITTER_PRIORITY), ("seedsize", JITTER_SEEDSIZE)):
        got = rec.get(field)
        if got != want:
            out.append(f"jitterentropy_rng {field} {got!r}, expected {want}"
                       if got is not None else
                       f"jitterentropy_rng: the guest sent no {field}")
    return out


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
    jrec = next((r for r in recs if r.get("type") == "proc_crypto"
                 and r.get("driver") == "jitterentropy_rng"), {})
    out.append(Check.judge(
        "guest.proc_crypto.jitterentropy",
        f"jitterentropy_rng is registered with priority {JITTER_PRIORITY} and seed "
        f"size {JITTER_SEEDSIZE}" + (
            f" (testmgr has {NULL_TEST} for it: its start-up health test is "
            "guest.jitter.startup)" if jtest == NULL_TEST else
            f" and passed testmgr's {jtest}" if jtest else ""), _jitter_problems(jrec),
        details={"selftest": jent, "testmgr_test": jtest,
                 "priority": jrec.get("priority"), "seedsize": jrec.get("seedsize")},
        **kw))
    return out
