# SPDX-License-Identifier: GPL-2.0-only
"""How a boot ended, and what the guest reported on its results channel.

- outcome(): boot.<name> (the boot ended as its plan entry expects: the
  guest's end marker, an expected panic, or, for the harness's own hang
  self-test, a kill at the timeout), with boot.<name>.reached-init for
  the hang (the guest said so before it was killed, so the hang is the one
  /init was asked for) and boot.<name>.panic-reason for an expected panic;
- guest(): every {"type": "check"} record of the guest, as a Check, and a
  failure for every line of the channel that is not JSON;
- console(): the kernel log lines a boot's plan entry requires;
- produced(): boot.<name>.produced, every check the plan entry says the
  boot reports ("produces") was reported: a guest that sent only its
  begin and end markers, or a boot whose console log is missing (no
  KUnit result, no kernel log), does not pass.
"""

import re

from ..base.checks import Check

# What /init prints in boot mode "hang" before it sleeps (checks.c).
HANG_MARK = "init: mode hang: sleeping forever"
GUEST_FIELDS = ("id", "status", "title", "reason", "details")


def outcome(b, spec):
    """The checks of how boot b (a qemu.Boot) ended, against spec."""
    name = spec["name"]
    kw = dict(origin="harness", boot=name)
    ok = b.outcome == spec["expect"]
    title = f"boot {name} ends as expected ({spec['expect']})"
    if ok:
        main = Check.passed(f"boot.{name}", title, counts={"seconds": b.seconds}, **kw)
    else:
        main = Check.failed(f"boot.{name}", title, b.detail or f"outcome {b.outcome}",
                            counts={"seconds": b.seconds},
                            details={"console_tail": b.console_tail(30)}, **kw)
    out = [main]
    if spec["expect"] == "hung":
        main.title = "a hung guest is killed at its timeout and reported"
        main.details = {"detail": b.detail}
        reached = HANG_MARK in (_read(b.console) or "")
        out.append(Check.judge(
            f"boot.{name}.reached-init",
            "the hung guest reached /init's hang mode before the timeout",
            [] if reached else [f"console has no {HANG_MARK!r}: the boot did not "
                                "reach /init in time"], **kw))
    elif spec.get("panic_re"):
        hit = b.outcome == "panic" and re.search(spec["panic_re"], b.detail or "")
        out.append(Check.judge(
            f"boot.{name}.panic-reason", f"boot {name} panics for the expected reason",
            [] if hit else [f"panic line {b.detail!r} does not match "
                            f"{spec['panic_re']!r}"], **kw))
    return out


def _read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return None


def guest_check(rec, boot):
    """One {"type": "check"} record of the guest as a Check: numbers are
    its counts, other fields go with it into report.json."""
    counts = {k: v for k, v in rec.items() if k not in GUEST_FIELDS and
              isinstance(v, (int, float)) and not isinstance(v, bool)}
    extra = {k: v for k, v in rec.items() if k not in GUEST_FIELDS + ("type",)
             and k not in counts}
    return Check(str(rec.get("id")), rec.get("status"), rec.get("title") or str(rec.get("id")),
                 reason=rec.get("reason"), origin="guest", boot=boot, counts=counts,
                 details=rec.get("details") or {}, extra=extra)


def guest(recs, boot):
    out = []
    for r in recs:
        if r.get("type") == "check":
            out.append(guest_check(r, boot))
        elif r.get("type") == "garbled":
            out.append(Check.failed(f"boot.{boot}.results-line-{r['line']}",
                                    f"results line {r['line']} of boot {boot}",
                                    f"unreadable results line: {r['text']}",
                                    origin="harness", boot=boot))
    return out


def console(console_path, boot, patterns):
    """boot.<boot>.console: each regex must match the kernel log (the
    second and later are boot.<boot>.console-2, -3, ...)."""
    try:
        with open(console_path, errors="replace") as f:
            text = f.read()
    except OSError:
        text = ""
    return [Check.judge(f"boot.{boot}.console" + (f"-{i + 1}" if i else ""),
                        f"the kernel log of boot {boot} says: {rx}",
                        [] if re.search(rx, text) else
                        [f"no line matching {rx!r} in the kernel log"],
                        origin="harness", boot=boot)
            for i, rx in enumerate(patterns)]


def produced(checks, spec):
    """[boot.<name>.produced] over a boot's checks, or [] when its plan
    entry declares nothing; an id declared stands for itself and for the
    ids under it (kunit.drbg_seed for its cases, drbg.trace for its
    instances)."""
    name, must = spec["name"], spec.get("produces") or []
    if not must:
        return []
    ids = [c.id for c in checks]
    missing = [m for m in must if not any(i == m or i.startswith(m + ".") for i in ids)]
    return [Check.judge(f"boot.{name}.produced", f"boot {name} reported the {len(must)} "
                        "checks it exists for", [f"{m} not reported" for m in missing],
                        shown=8, origin="harness", boot=name,
                        counts={"declared": len(must), "missing": len(missing)})]
