# SPDX-License-Identifier: GPL-2.0-only
"""The configurations of the series' options that Kconfig allows.

The options are those the series adds (every `config` a patch adds, read
from tangled/patches) and those it uses (USED: the DRBG, the Jitter RNG,
KUnit and debugfs).  A combination gives each of them a value (y, m or n
for a tristate, y or n for a bool); Kconfig allows it when olddefconfig
keeps every value.  Asking Kconfig costs seconds per combination (its
macros run the compiler), so the combinations are first filtered here
with the options' own rules, read from the same places Kconfig reads
them: each added option's `depends on` lines from the patches, and the
rules of 6.1's crypto/Kconfig for the used ones (RULES).  The stage
(harness/stages/kconfig_matrix.py) then has Kconfig confirm every
combination kept, and checks a sample of the dropped ones to show that
this filter drops nothing Kconfig allows.
"""

import itertools
import os
import re

VALUE = {"n": 0, "m": 1, "y": 2}
NAME = {0: "n", 1: "m", 2: "y"}
DOMAIN = {"tristate": ("n", "m", "y"), "bool": ("n", "y")}

# The options the series uses but does not add, with their types in 6.1.
USED = {"KUNIT": "tristate", "DEBUG_FS": "bool", "CRYPTO_DRBG_MENU": "tristate",
        "CRYPTO_JITTERENTROPY": "tristate"}

# 6.1's rules for the used options (crypto/Kconfig, lib/kunit/Kconfig):
# CRYPTO_DRBG is not asked for; it follows CRYPTO_DRBG_MENU (`default
# CRYPTO_DRBG_MENU`) and selects CRYPTO_JITTERENTROPY, which therefore
# cannot be below it.  (name, expression that must not be 0, source).
ALIASES = {"CRYPTO_DRBG": "CRYPTO_DRBG_MENU"}
RULES = [("CRYPTO_JITTERENTROPY", "CRYPTO_JITTERENTROPY >= CRYPTO_DRBG_MENU",
          "crypto/Kconfig: config CRYPTO_DRBG, select CRYPTO_JITTERENTROPY")]


class ExprError(ValueError):
    pass


def _tokens(expr):
    toks = re.findall(r"\s*(&&|\|\||>=|!=|[!()=]|[A-Za-z0-9_]+)", expr)
    if "".join(toks) != re.sub(r"\s+", "", expr):
        raise ExprError(f"cannot read the Kconfig expression {expr!r}")
    return toks


def evaluate(expr, values):
    """The tristate value (0, 1, 2) of a Kconfig expression; values maps a
    symbol to y, m or n (a symbol not in it is n; y, m, n are constants)."""
    toks = _tokens(expr)
    pos = 0

    def peek():
        return toks[pos] if pos < len(toks) else None

    def take():
        nonlocal pos
        if pos >= len(toks):
            raise ExprError(f"{expr!r} ends too soon")
        pos += 1
        return toks[pos - 1]

    def sym(name):
        name = ALIASES.get(name, name)
        if name in VALUE:
            return VALUE[name]
        return VALUE[values.get(name, "n")]

    def atom():
        t = take()
        if t == "!":
            return 2 - atom()
        if t == "(":
            v = disj()
            if take() != ")":
                raise ExprError(f"unbalanced parenthesis in {expr!r}")
            return v
        if not re.match(r"^\w+$", t or ""):
            raise ExprError(f"unexpected {t!r} in {expr!r}")
        if peek() in ("=", "!=", ">="):
            op, rhs = take(), sym(take())
            lhs = sym(t)
            return 2 * {"=": lhs == rhs, "!=": lhs != rhs, ">=": lhs >= rhs}[op]
        return sym(t)

    def chain(operand, op, fold):
        """operand (op operand)*, folded: && is the minimum, || the maximum."""
        v = operand()
        while peek() == op:
            take()
            v = fold(v, operand())
        return v

    def conj():
        return chain(atom, "&&", min)

    def disj():
        return chain(conj, "||", max)

    v = disj()
    if pos != len(toks):
        raise ExprError(f"trailing {' '.join(toks[pos:])!r} in {expr!r}")
    return v


def series_options(patch_texts):
    """{name: (type, [depends on expressions])} of every option the series
    adds, from the patches' added Kconfig lines."""
    out, cur = {}, None
    for text in patch_texts:
        for line in text.splitlines():
            m = re.match(r"^\+config (\w+)\s*$", line)
            if m:
                cur = m.group(1)
                out[cur] = [None, []]
                continue
            if cur is None or not line.startswith("+"):
                cur = None if not line.startswith((" ", "+")) else cur
                continue
            body = line[1:].strip()
            m = re.match(r"^(bool|tristate)\b", body)
            if m and out[cur][0] is None:
                out[cur][0] = m.group(1)
            m = re.match(r"^depends on (.+)$", body)
            if m:
                out[cur][1].append(m.group(1).strip())
    return {k: (t, deps) for k, (t, deps) in out.items() if t}


def read_patches(patchdir):
    texts = []
    for name in sorted(os.listdir(patchdir)):
        if name.endswith(".patch") and not name.startswith("0000-"):
            with open(os.path.join(patchdir, name), encoding="utf-8") as f:
                texts.append(f.read())
    return texts


def options(patch_texts):
    """[(name, type, [rules])]: the used options first, then the added ones
    in the order the patches add them; a rule is (expression, where)."""
    added = series_options(patch_texts)
    out = [(n, t, [(e, w) for s, e, w in RULES if s == n]) for n, t in USED.items()]
    out += [(n, t, [(d, "the series' Kconfig: depends on") for d in deps])
            for n, (t, deps) in added.items() if n not in USED]
    return out


def allowed_by_rules(opts, values):
    """The first rule a combination breaks, as (option, expression), or None.
    A `depends on` limits an option that is not n: a bool at y needs the
    expression at m or y (Kconfig promotes a bool's m visibility to y), a
    tristate cannot be above it.  A rule of RULES must hold whatever the
    option's value (a select raises the selected option)."""
    required = {e for _, e, _ in RULES}
    for name, typ, rules in opts:
        v = VALUE[values[name]]
        for expr, _ in rules:
            limit = evaluate(expr, values)
            if expr in required:
                if limit == 0:
                    return name, expr
            elif v and (limit == 0 or (typ == "tristate" and v > limit)):
                return name, expr
    return None


def combinations(opts):
    """Every combination of the options' values, in an order that changes
    the options listed first least often (KUnit and debugfs rebuild the
    most when they change)."""
    names = [n for n, _, _ in opts]
    for vals in itertools.product(*[DOMAIN[t] for _, t, _ in opts]):
        yield dict(zip(names, vals))


def space(opts):
    """(kept, dropped): the combinations the rules allow and those they
    do not (each with the rule it breaks)."""
    kept, dropped = [], []
    for c in combinations(opts):
        why = allowed_by_rules(opts, c)
        if why:
            dropped.append((c, why))
        else:
            kept.append(c)
    return kept, dropped


def label(values, opts):
    """A short, stable name of a combination: the values in option order."""
    return "".join(values[n] for n, _, _ in opts)
