# SPDX-License-Identifier: GPL-2.0-only
"""The requirements the book states, read from its noweb sources.

A requirement is a pandoc fenced div in the prose:

  ::: {.requirement #req-ID source="..." impl="chunk; chunk" tests="check; check"}
  text
  :::

Optional attributes: accepted="reason" marks a gap (no chunk or no test)
as accepted, with the reason shown in the traceability matrix.
"""

import re

HEAD = re.compile(r"^::: \{\.requirement #req-([A-Za-z0-9-]+)((?: [a-z]+=\"[^\"]*\")*)\}\s*$")
ATTR = re.compile(r'([a-z]+)="([^"]*)"')


class Requirement:
    def __init__(self, rid, attrs, where):
        self.id = rid
        self.where = where
        self.source = attrs.get("source", "")
        self.impl = [c.strip() for c in attrs.get("impl", "").split(";") if c.strip()]
        self.tests = [t.strip() for t in attrs.get("tests", "").split(";") if t.strip()]
        self.accepted = attrs.get("accepted")
        self.text = ""


def read(sources):
    reqs = []
    for src in sources:
        with open(src, encoding="utf-8") as f:
            lines = f.read().split("\n")
        i = 0
        while i < len(lines):
            m = HEAD.match(lines[i])
            if lines[i].startswith("::: {.requirement") and not m:
                raise ValueError(f"{src}:{i + 1}: malformed requirement header")
            if m:
                r = Requirement(m.group(1), dict(ATTR.findall(m.group(2))),
                                f"{src}:{i + 1}")
                body = []
                i += 1
                while i < len(lines) and lines[i].strip() != ":::":
                    body.append(lines[i])
                    i += 1
                if i == len(lines):
                    raise ValueError(f"{r.where}: requirement #req-{r.id} has no "
                                     "closing ':::'")
                r.text = " ".join(" ".join(body).split())
                reqs.append(r)
            i += 1
    seen = {}
    for r in reqs:
        if r.id in seen:
            raise ValueError(f"{r.where}: requirement #req-{r.id} also at {seen[r.id]}")
        seen[r.id] = r.where
    return reqs


def by_test(reqs):
    """{check id: [requirement ids]}."""
    out = {}
    for r in reqs:
        for t in r.tests:
            out.setdefault(t, []).append(r.id)
    return out


def for_check(by_test_map, check_id):
    """Requirements of a check, also through its dotted prefixes: the check
    kunit.drbg_seed.instantiate_layout.drbg_pr_sha1 (one parameter of a
    parameterised case) inherits those of kunit.drbg_seed.instantiate_layout."""
    out = []
    parts = check_id.split(".")
    for i in range(len(parts), 0, -1):
        for r in by_test_map.get(".".join(parts[:i]), []):
            if r not in out:
                out.append(r)
    return out
