# SPDX-License-Identifier: GPL-2.0-only
"""Mutant schemata: every mutant of a file in one build (make mutants).

The schema of a file is the final file with the wraps of its mutants
(kmutants.py) put in, each guarded by __mut(N), and a prelude that
defines __mut: in the schema build, N == the boot parameter mutant=
(a core_param of the part's kernel file; mutant=0, the default, is the
series itself); in the build of one mutant alone (one that the schema
cannot hold, such as a constant in a case label, or any mutant of a part
built as a module), N == K at compile time.
The prelude goes after the last #include before the first mutant, where
pr_fmt is already defined.

schema() returns the text and where each mutant's wraps are in it, so
that a compiler message (compile_errors()) names the mutant it is about
(culprits()): a mutant the compiler rejects is dropped from the schema.
"""

import re

MUT = "__mut(N)"
# Per part: the file that defines the selector, and its name.
HOST = {"drbg": ("crypto/drbg.c", "mutant_selector"),
        "random": ("drivers/char/random.c", "mutant_selector"),
        "jitter": ("crypto/jitterentropy-kcapi.c", "jent_mutant_selector")}
DIAG = re.compile(r"^(?P<file>[\w./-]+):(?P<line>\d+):(?P<col>\d+): "
                  r"(?P<kind>error|warning|note): (?P<msg>.*)$", re.M)


def prelude(part, path, const=None):
    """The lines that define __mut in path (a list; no newline inside)."""
    host, var = HOST[part]
    sel = f"#define __mut(n) ((n) == {const})" if const is not None else \
        f"#define __mut(n) ({var} == (n))"
    if path != host:
        return [f"extern unsigned int {var};", sel]
    # core_param exists only in built-in code (moduleparam.h defines it
    # under #ifndef MODULE): a build of one mutant on the modules kernel,
    # where the part is a module and N is fixed, does without it.
    return ["#include <linux/moduleparam.h>",
            f"extern unsigned int {var}; unsigned int {var};",
            "#ifndef MODULE",
            f"core_param(mutant, {var}, uint, 0444);",
            "#endif", sel]


def _flat(text):
    """A span of code on one line (a duplicated argument must not move the
    lines after it)."""
    return re.sub(r"[ \t]*\n\s*", " ", text)


def _events(mutants):
    """(offset, is_open, n, text) of every wrap's opener and closer, in
    the order they are written.

    At one offset closers come before openers; among openers, an
    insertion (empty span, closed at once) first, then the longer span
    (the outer one), then the lower N; closers the other way round, so
    that wraps nest."""
    ev = []
    for m in mutants:
        n = m["n"]
        sel = f"__mut({n})"
        for s, e, before, after in m["wraps"]:
            ev.append(((s, 1, 0 if s == e else 1, -e, n, 0), s, True, n,
                       _flat(before).replace(MUT, sel)))
            key = (s, 1, 0, -e, n, 1) if s == e else (e, 0, 0, -s, -n, 0)
            ev.append((key, e, False, n, after.replace(MUT, sel)))
    ev.sort(key=lambda x: x[0])
    return [x[1:] for x in ev]


def insert_at(lines):
    """The index of the line after the last #include of the file's leading
    block of directives and comments (0 when it has none)."""
    last = 0
    for i, ln in enumerate(lines):
        if ln.startswith("#include"):
            last = i + 1
        elif ln.startswith(("#", "/*", " *", "//")) or not ln.strip():
            continue
        elif last:
            break
    return last


def schema(part, path, text, mutants, const=None):
    """(schema text, where): where[n] is a list of mutant n's wraps in the
    schema, as (start, end, [(start, end) of the text it inserted])."""
    out, at, size, where = [], 0, 0, {}
    opened = {}
    for pos, is_open, n, piece in _events(mutants):
        out.append(text[at:pos])
        size += pos - at
        at = pos
        if is_open:
            opened.setdefault(n, []).append((size, [(size, size + len(piece))]))
        else:
            start, ins = opened[n].pop()
            where.setdefault(n, []).append((start, size + len(piece),
                                            ins + [(size, size + len(piece))]))
        out.append(piece)
        size += len(piece)
    out.append(text[at:])
    body = "".join(out)
    pre = prelude(part, path, const)
    lines = body.split("\n")
    k = insert_at(lines)
    cut = sum(len(ln) + 1 for ln in lines[:k])
    shift = len("\n".join(pre)) + 1

    def moved(x):
        return x + shift if x >= cut else x
    where = {n: [(moved(a), moved(b), [(moved(c), moved(d)) for c, d in ins])
                 for a, b, ins in w] for n, w in where.items()}
    return body[:cut] + "\n".join(pre) + "\n" + body[cut:], where


def offset(text, line, col):
    """The offset in text of GCC's line:col (a display column: a tab goes
    to the next multiple of 8)."""
    start = 0
    for _ in range(line - 1):
        start = text.index("\n", start) + 1
    end = text.find("\n", start)
    end = len(text) if end < 0 else end
    disp = 0
    for i in range(start, end):
        disp = (disp // 8 + 1) * 8 if text[i] == "\t" else disp + 1
        if disp >= col:
            return i
    return end


def culprits(text, where, errors):
    """The mutants to drop for the compiler's errors [(line, col)] in the
    schema text: the one whose inserted text holds the error, else the
    innermost wrap around it, else every mutant on its line."""
    bad = set()
    for line, col in errors:
        p = offset(text, line, col)
        hit = [n for n, ws in where.items() for _, _, ins in ws
               if any(a <= p < b for a, b in ins)]
        if not hit:
            around = sorted((b - a, n) for n, ws in where.items() for a, b, _ in ws
                            if a <= p < b)
            hit = [around[0][1]] if around else []
        if not hit:
            ls = text.rfind("\n", 0, p) + 1
            le = text.find("\n", p)
            le = len(text) if le < 0 else le
            hit = [n for n, ws in where.items() for a, b, _ in ws if a < le and b > ls]
        bad.update(hit)
    return bad


def compile_errors(log, path):
    """[(line, col, kind, message)] of the compiler's errors and warnings
    in path, and the macro expansions that lead to them."""
    out = []
    for m in DIAG.finditer(log):
        if not m.group("file").endswith(path):
            continue
        kind, msg = m.group("kind"), m.group("msg")
        if kind == "note" and "in expansion of macro" not in msg:
            continue
        out.append((int(m.group("line")), int(m.group("col")), kind, msg))
    return out
