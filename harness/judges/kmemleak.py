# SPDX-License-Identifier: GPL-2.0-only
"""kmemleak's reports after the guest's explicit scan, against the
allowlist conformance/kmemleak-allowlist.txt ('regex TAB reason'; a
report is allowed when a regex matches its text, and the reason is kept
in the report).

kmemleak reports no object younger than MSECS_MIN_AGE (5000 ms,
mm/kmemleak.c): a scan sooner than that after the boot's last check
cannot see that check's leaks.  The guest says how long after its checks
the first scan ran (age_ms of kmemleak-done); a scan too soon, or one
that does not say, fails."""

from ..base import config, records
from ..base.checks import Check

ALLOWLIST = "conformance/kmemleak-allowlist.txt"
MIN_AGE_MS = 5000       # MSECS_MIN_AGE in mm/kmemleak.c (Linux 6.1)


def check(recs, boot):
    done = [r for r in recs if r.get("type") == "kmemleak-done"]
    err = [r for r in recs if r.get("type") == "kmemleak" and r.get("error")]
    texts = [r["text"] for r in recs if r.get("type") == "kmemleak" and "text" in r]
    allow = records.allowlist(config.top(ALLOWLIST))
    bad, allowed = [], []
    for t in texts:
        why = next((w for rx, w in allow if rx.search(t)), None)
        (allowed if why else bad).append({"report": t[:1500], "allowed_because": why})
    cid = f"guest.kmemleak.{boot}"
    title = "no kmemleak report after an explicit scan (allowlist applied)"
    kw = dict(origin="guest", boot=boot,
              counts={"reports": len(texts), "allowlisted": len(allowed),
                      "unexplained": len(bad)},
              details={"unexplained": bad[:10], "allowlisted": allowed[:10]})
    if err or not done:
        return Check.failed(cid, title, err[0]["error"] if err else
                            "the guest did not finish its kmemleak scan", **kw)
    age = done[-1].get("age_ms")
    kw["counts"]["scan_after_checks_ms"] = age
    if not isinstance(age, int) or age < MIN_AGE_MS:
        return Check.failed(cid, title, f"the first scan ran {age} ms after the last "
                            f"check: kmemleak reports no object younger than "
                            f"{MIN_AGE_MS} ms (MSECS_MIN_AGE, mm/kmemleak.c), so that "
                            "check's leaks were not looked at", **kw)
    if bad:
        first = bad[0]["report"].splitlines()
        return Check.failed(cid, title, f"{len(bad)} unexplained kmemleak report(s): "
                            + " | ".join(first[:6]), **kw)
    return Check.passed(cid, title, **kw)
