# SPDX-License-Identifier: GPL-2.0-only
"""Reports in a boot's kernel log: BUG, WARNING, KASAN, UBSAN, lockdep,
debug objects, general protection faults, hung tasks ("INFO: task ...
blocked for more than"), soft and hard lockups ("watchdog: BUG: soft
lockup", "Watchdog detected hard LOCKUP") and RCU CPU stalls ("rcu: INFO:
rcu_preempt detected stalls", "self-detected stall").  The detectors are
built into the debug kernel (conformance/kconfig/debug.config).  Also a
debugfs file or directory made where one is "already present!": a module
whose exit left its debugfs files behind, loaded again (the stale file
then points into the module's old image).

kmemleak's own "N new suspected memory leaks" line is not matched here:
the guest's explicit scan sends every report, and kmemleak.py judges them
against its allowlist.  conformance/splat-allowlist.txt ('regex TAB
reason') allows a line with a reason kept in the report.
"""

import re

from ..base import config, records
from ..base.checks import Check

SPLAT = re.compile(
    r"(BUG: |WARNING: |KASAN: |UBSAN: |general protection fault|Oops: |"
    r"kernel BUG at|possible circular locking|possible recursive locking|"
    r"INFO: task .* blocked|inconsistent lock state|ODEBUG: |"
    r"Unable to handle kernel|hard LOCKUP|detected (expedited )?stalls|"
    r"self-detected stall|rcu: INFO: |debugfs: .* already present!)")
ALLOWLIST = "conformance/splat-allowlist.txt"


def check(console_path, boot):
    allow = records.allowlist(config.top(ALLOWLIST))
    hits, allowed = [], []
    with open(console_path, errors="replace") as f:
        for ln in f:
            if SPLAT.search(ln):
                why = next((w for rx, w in allow if rx.search(ln)), None)
                (allowed if why else hits).append(ln.strip()[:300])
    c = Check.judge(f"boot.{boot}.kernel-log",
                    "no BUG, WARN, KASAN, UBSAN, lockdep, hung-task, lockup or RCU "
                    "stall report", hits,
                    origin="harness", boot=boot,
                    counts={"reports": len(hits), "allowlisted": len(allowed)},
                    details={"reports": hits[:20], "allowlisted": allowed[:20]})
    if hits:
        c.reason = f"{len(hits)} report(s) in the kernel log, first: {hits[0]}"
    return c
