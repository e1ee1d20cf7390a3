# SPDX-License-Identifier: GPL-2.0-only
"""The requirements the book states, read from its noweb sources.

A requirement is a pandoc fenced div in the prose:

  ::: {.requirement #req-ID clause="..." source="..." impl="chunk; chunk" tests="check; check"}
  text
  :::

clause: the clause it meets, precisely (document, section, step; IG
number), several separated by ";": "SP 800-90A Rev. 1 9.3.1 step 7",
"FIPS 140-3 IG 9.3.A"; or, for a requirement no standard asks for, where
it comes from alone: "2015 series only (...)" or "port decision (...)"
(clause_problem() says what is accepted).  source: where it comes from
(the 2015 series' patch, a port decision, parity with 6.1).  tests: check
ids without the prefix a boot gives them (debug., fips., nojent.,
modules.): the matrix shows every prefixed instance of each; a check only
a run outside make check makes is named with that run's prefix
(modules.guest.x: make modules-check; book/trace.py OPTIONAL_RUNS).  Optional
attributes: accepted="reason" marks a gap (no chunk or no test) as
accepted, with the reason shown in the traceability matrix.
"""

import re

# The prefixes a boot gives the ids of its checks (plan.py: a boot's
# "prefix", or its kernel variant when that is not "test").
PREFIXES = ("debug", "fips", "nojent", "modules")

# The documents a clause may cite, as the bibliography names them.
DOCUMENTS = ("SP 800-90A Rev. 1", "SP 800-90B", "SP 800-90C", "FIPS 140-3 IG",
             "FIPS 140-3", "FIPS 202", "NIST IR 8427", "ACVP DRBG", "ACVP SHA-3")
SECTION = re.compile(r"^(?:\d+(?:\.\d+)*(?:\.[A-Z])?|Table \d+|Annex [A-Z])\b")
ORIGIN_ONLY = ("2015 series only", "port decision")

HEAD = re.compile(r"^::: \{\.requirement #req-([A-Za-z0-9-]+)((?: [a-z]+=\"[^\"]*\")*)\}\s*$")
ATTR = re.compile(r'([a-z]+)="([^"]*)"')


class Requirement:
    def __init__(self, rid, attrs, where):
        self.id = rid
        self.where = where
        self.source = attrs.get("source", "")
        self.clause = attrs.get("clause")
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


def clause_problem(clause):
    """None when a clause attribute cites precisely, else what is wrong."""
    if clause is None:
        return "no clause attribute"
    items = [c.strip() for c in clause.split(";")]
    if not any(items):
        return "an empty clause"
    for item in items:
        if item.startswith(ORIGIN_ONLY):
            if len(items) > 1:
                return f"{item!r} cannot stand beside a clause"
            continue
        doc = next((d for d in DOCUMENTS if item == d or item.startswith(d + " ")),
                   None)
        if doc is None:
            return (f"{item!r} names no document of the bibliography ("
                    + ", ".join(DOCUMENTS) + ") and is not "
                    + " or ".join(repr(o) for o in ORIGIN_ONLY))
        if not SECTION.match(item[len(doc):].strip()):
            return f"{item!r} gives no section, table or IG number after {doc!r}"
    return None


def split_prefix(check_id):
    """("debug", "kunit.x.y") for "debug.kunit.x.y"; ("", id) without a prefix."""
    head, _, rest = check_id.partition(".")
    return (head, rest) if head in PREFIXES and rest else ("", check_id)


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
