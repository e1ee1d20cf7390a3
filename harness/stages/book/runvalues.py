# SPDX-License-Identifier: GPL-2.0-only
"""Numbers and lines of the last run, quoted in the prose.

A doc chunk writes {{run KIND KEY FIELD}} where it quotes the run, and the
renderer puts the value from build/conformance/report.json there, so that
no number of a run is ever typed into the book:

  {{run check guest.jitter.startup line}}     a field of a check
  {{run check guest.jitter.output counts.us/1000}}  a number, divided
  {{run boot main cpu}}                        a field of a boot
  {{run report packages.qemu-system-x86}}      a field of the report

FIELD is a dotted path (a number indexes a list); "/N" divides a number by N (rounded to what N
leaves significant).  Without a report the value reads "(no run)"; a field
the report lacks is "(not in this run)" and, in a full run's book, a build
warning.
"""

import re

PLACE = re.compile(r"\{\{run (check|boot|report) (\S+)(?: (\S+))?\}\}")


def lookup(report, kind, key, field):
    if kind == "report":
        node, path = report, key
    else:
        items = report.get("checks" if kind == "check" else "boots", [])
        name = "id" if kind == "check" else "name"
        node = next((x for x in items if x.get(name) == key), None)
        path = field or ""
    div = None
    if "/" in path:
        path, d = path.split("/", 1)
        div = int(d)
    for part in [p for p in path.split(".") if p]:
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return None
    if node is None or isinstance(node, (dict, list)):
        return None
    if div:
        v = node / div
        return f"{v:.0f}" if abs(v) >= 10 else f"{v:.2g}"
    return str(node)


def substitute(text, report, full, warn, esc):
    """text with every {{run ...}} replaced (Markdown-escaped)."""
    def one(m):
        if report is None:
            return "(no run)"
        v = lookup(report, m.group(1), m.group(2), m.group(3))
        if v is None:
            if full:
                warn("book", f"{m.group(0)}: the report has no such value")
            return "(not in this run)"
        return esc(v)
    return PLACE.sub(one, text)
