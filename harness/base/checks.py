# SPDX-License-Identifier: GPL-2.0-only
"""The one result type of the harness: a Check.

Every judge returns Checks; the report writer takes them.  A check has an
id (dotted, unique in a run), a status ("pass", "fail" or "skip"), a title,
and, unless it passed, a reason.  counts are numbers a reader (or the book)
may quote; details are anything else worth keeping in report.json.

Build them with the constructors, never by hand:

    Check.passed(id, title, counts=...)
    Check.failed(id, title, reason, ...)
    Check.skipped(id, title, reason, ...)
    Check.judge(id, title, problems, ...)   # pass when problems is empty,
                                            # else fail with the first few

A skip is never a pass: summarize() counts the three apart, and a skip
must say why (validate() refuses one without a reason).
"""

from dataclasses import dataclass, field

STATUSES = ("pass", "fail", "skip")


@dataclass
class Check:
    id: str
    status: str
    title: str = ""
    reason: str | None = None
    origin: str = "harness"
    boot: str | None = None
    counts: dict = field(default_factory=dict)
    details: dict = field(default_factory=dict)
    requirements: list = field(default_factory=list)
    extra: dict = field(default_factory=dict)

    @classmethod
    def passed(cls, cid, title, **kw):
        return cls(cid, "pass", title, **kw)

    @classmethod
    def failed(cls, cid, title, reason, **kw):
        return cls(cid, "fail", title, reason=reason or "failed (no reason given)", **kw)

    @classmethod
    def skipped(cls, cid, title, reason, **kw):
        return cls(cid, "skip", title, reason=reason or "skipped (no reason given)", **kw)

    @classmethod
    def judge(cls, cid, title, problems, shown=3, sep="; ", **kw):
        """Pass when problems is empty; else fail, the reason being the
        number of problems and the first `shown` of them."""
        problems = list(problems)
        if not problems:
            return cls.passed(cid, title, **kw)
        head = sep.join(str(p) for p in problems[:shown])
        more = f" (and {len(problems) - shown} more)" if len(problems) > shown else ""
        return cls.failed(cid, title, head + more, **kw)

    @classmethod
    def from_dict(cls, d):
        """A check read back from JSON (report.json, a guest record)."""
        known = {"id", "status", "title", "reason", "origin", "boot", "counts",
                 "details", "requirements"}
        kw = {k: d[k] for k in known if k in d and k not in ("id", "status")}
        extra = {k: v for k, v in d.items() if k not in known}
        return cls(d["id"], d["status"], extra=extra, **kw)

    def to_dict(self):
        """The JSON form of report.json (schema 1): empty fields left out."""
        d = {"id": self.id, "title": self.title or self.id, "origin": self.origin}
        if self.boot is not None:
            d["boot"] = self.boot
        d["status"] = self.status
        if self.reason:
            d["reason"] = self.reason
        if self.counts:
            d["counts"] = self.counts
        if self.details:
            d["details"] = self.details
        d["requirements"] = list(self.requirements)
        d.update(self.extra)
        return d

    @property
    def ok(self):
        return self.status == "pass"


def summarize(checks):
    """{"passed", "failed", "skipped", "total"} over Checks or dicts."""
    n = {s: 0 for s in STATUSES}
    for c in checks:
        n[c.status if isinstance(c, Check) else c["status"]] += 1
    return {"passed": n["pass"], "failed": n["fail"], "skipped": n["skip"],
            "total": sum(n.values())}


def validate(checks):
    """Problems with a list of Checks: unknown status, a fail or skip
    without a reason, an id reported twice."""
    problems, seen = [], set()
    for c in checks:
        if c.status not in STATUSES:
            problems.append(f"{c.id}: status {c.status!r}")
        if c.status != "pass" and not c.reason:
            problems.append(f"{c.id}: {c.status} without a reason")
        if c.id in seen:
            problems.append(f"{c.id}: reported twice")
        seen.add(c.id)
    return problems
