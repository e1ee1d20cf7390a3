# SPDX-License-Identifier: GPL-2.0-only
"""The mutants of the series' kernel code (make mutants; the generator).

For each part (drbg: crypto/drbg.c; random: drivers/char/random.c;
jitter: crypto/jitterentropy.c and its crypto-API glue), the lines the
series adds are those of the final file (pristine tree plus
tangled/patches) that a diff against the pristine file shows as added.
On them, six operators:

  cmp    a comparison negated (== and !=, < and >=, > and <=)
  const  an integer constant plus one, and minus one
  call   a call statement deleted (pr_devel/pr_debug are not: they are
         compiled out without DEBUG, so their deletion changes nothing)
  zero   a memzero_explicit() or kfree_sensitive() deleted
  swap   two neighbouring arguments of a call swapped (when they differ)
  ret    a function the series adds returns at once (0, false, NULL)

A mutant is a set of wraps: (start, end, before, after) around a span of
the final file, with __mut(N) the selector of mutant N; the schema
(kmutants_schema.py) puts every mutant of a part in one file.  Its id
does not depend on line numbers: part, function, operator and a hash of
the line's text and the mutant's place in it, so an edit elsewhere in
the book leaves it alone.

  python3 -m harness mutants --list [--part drbg]
"""

import hashlib
import os
import re
import subprocess
import tempfile

from ..base import clex, config, kcache

PARTS = {
    "drbg": ["crypto/drbg.c"],
    "random": ["drivers/char/random.c"],
    # jitterentropy-testing.c and jitterentropy_kunit.c are test code.
    "jitter": ["crypto/jitterentropy.c", "crypto/jitterentropy-kcapi.c"],
}
OPS = ("cmp", "const", "call", "zero", "swap", "ret")
NEGATE = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}
ZEROISE = ("memzero_explicit", "kfree_sensitive")
SILENT = ("pr_devel", "pr_debug")
ASSIGN = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="}
ALWAYS = ASSIGN | {";", ",", "?", ":", "&&", "||", "{", "}"}
LOOSER = {"<": {"==", "!=", "|", "^", "&", "<", ">", "<=", ">="},
          "==": {"|", "^", "&", "==", "!="}}
HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", re.M)
RET = {"void": "return;", "bool": "return false;", "pointer": "return NULL;",
       "int": "return 0;"}


def added_lines(pristine, final):
    """The 1-based numbers of the lines of final that git diff shows as
    added to pristine."""
    with tempfile.TemporaryDirectory(prefix="mutants-diff-") as d:
        for name, text in (("a", pristine), ("b", final)):
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        r = subprocess.run(["git", "diff", "--no-index", "--no-color", "-U0", "a", "b"],
                           cwd=d, capture_output=True, text=True)
    out = set()
    for m in HUNK.finditer(r.stdout):
        first, count = int(m.group(1)), int(m.group(2) or 1)
        out.update(range(first, first + count))
    return out


def _operand_end(t):
    return (t.kind in ("id", "num", "str", "chr") and t.text not in clex.KEYWORDS) or \
        t.text in (")", "]")


def _bound(toks, j, op):
    t = toks[j]
    if t.kind == "id":
        return t.text in ("return", "case")
    if t.kind != "punct":
        return False
    level = LOOSER["==" if op in ("==", "!=") else "<"]
    if t.text == "&":
        return j > 0 and _operand_end(toks[j - 1])
    return t.text in ALWAYS or t.text in level


def cmp_extent(toks, pairs, k):
    """(first, last) token of the comparison whose operator is toks[k]."""
    op = toks[k].text
    j = k - 1
    while True:
        t = toks[j]
        if t.text in (")", "]") and t.kind == "punct":
            j = pairs[j] - 1
        elif (t.text in ("(", "[", "{") and t.kind == "punct") or _bound(toks, j, op):
            lo = j + 1
            break
        else:
            j -= 1
    j = k + 1
    while True:
        t = toks[j]
        if t.text in ("(", "[") and t.kind == "punct":
            j = pairs[j] + 1
        elif (t.text in (")", "]", "}") and t.kind == "punct") or \
                (j > k + 1 and _bound(toks, j, op)):
            return lo, j - 1
        else:
            j += 1


def call_args(toks, pairs, o):
    """[(first, last)] token spans of the arguments of the call whose '('
    is toks[o]."""
    spans, first = [], o + 1
    j = o + 1
    while j < pairs[o]:
        t = toks[j]
        if t.text in ("(", "[", "{") and t.kind == "punct":
            j = pairs[j] + 1
            continue
        if t.text == "," and t.kind == "punct":
            spans.append((first, j - 1))
            first = j + 1
        j += 1
    if first <= pairs[o] - 1:
        spans.append((first, pairs[o] - 1))
    return spans


def statement_end(toks, pairs, k, stop):
    """The ';' that ends the statement beginning at k, or None."""
    j = k
    while j < stop:
        t = toks[j]
        if t.text in ("(", "[") and t.kind == "punct":
            j = pairs[j] + 1
        elif t.text in ("{", "}") and t.kind == "punct":
            return None
        elif t.text == ";":
            return j
        else:
            j += 1
    return None


def call_statement(toks, pairs, k, stop):
    """(callee, ';' index) when the statement at k is a call and nothing
    else (no assignment), or None."""
    if toks[k].kind != "id" or toks[k].text in clex.KEYWORDS:
        return None
    end = statement_end(toks, pairs, k, stop)
    if end is None or toks[end - 1].text != ")":
        return None
    o = pairs[end - 1]
    depth0 = [t.text for t in toks[k:end]]
    if any(a in ASSIGN for a in depth0) or o == 0 or toks[o - 1].kind != "id":
        return None
    return toks[o - 1].text, end


def _is_int(text):
    t = text.rstrip("uUlL")
    return t.isdigit() or (t[:2] in ("0x", "0X") and len(t) > 2 and
                           all(c in "0123456789abcdefABCDEF" for c in t[2:]))


def define_body(toks, k):
    """Is toks[k] (of a #define line) in the macro's body, not its name
    or parameters?"""
    j = k
    while j > 0 and toks[j - 1].line == toks[k].line and toks[j - 1].pp == "define":
        j -= 1                      # j: the '#' of the directive
    name = j + 2
    if k <= name:
        return False
    if toks[name + 1].text == "(" and toks[name + 1].start == toks[name].end:
        close = next(i for i in range(name + 1, len(toks)) if toks[i].text == ")")
        return k > close
    return True


class Generator:
    """The mutants of one file: gen.mutants after gen.run()."""

    def __init__(self, part, path, pristine, final):
        self.part, self.path, self.text = part, path, final
        self.toks = clex.tokens(final)
        self.pairs = clex.match_brackets(self.toks)
        self.fns = clex.functions(self.toks, self.pairs)
        self.added = added_lines(pristine, final)
        self.lines = final.split("\n")
        self.mutants, self.seen = [], {}

    def fn_at(self, k):
        return next((f for f in self.fns if f.open < k < f.close), None)

    def src(self, a, b):
        return self.text[self.toks[a].start:self.toks[b].end]

    def add(self, op, k, variant, what, wraps, func=None):
        t = self.toks[k]
        fn = self.fn_at(k)
        func = func or (fn.name if fn else "-")
        key = f"{self.path}|{func}|{op}|{variant}|{self.lines[t.line - 1].strip()}"
        n = self.seen[key] = self.seen.get(key, -1) + 1
        h = hashlib.sha1(f"{key}|{n}".encode()).hexdigest()[:6]
        self.mutants.append({"id": f"{self.part}:{func}:{op}:{h}", "file": self.path,
                             "line": t.line, "col": t.start - self.text.rfind(
                                 "\n", 0, t.start), "func": func, "op": op,
                             "what": what, "wraps": wraps, "pos": t.start})

    def run(self):
        per_line = {}
        for k, t in enumerate(self.toks):
            if t.line not in self.added:
                continue
            nth = per_line[(t.line, t.text)] = per_line.get((t.line, t.text), -1) + 1
            if t.kind == "num" and _is_int(t.text) and \
                    (not t.pp or (t.pp == "define" and define_body(self.toks, k))):
                self.const(k, nth)
            if t.pp:
                continue
            if t.kind == "punct" and t.text in NEGATE and self.fn_at(k):
                self.cmp(k, nth)
            if t.kind == "id" and t.text not in clex.KEYWORDS and t.text not in SILENT and \
                    k + 1 < len(self.toks) and self.toks[k + 1].text == "(" and \
                    self.fn_at(k):
                self.swap(k, nth)
        for fn in self.fns:
            self.statements(fn)
        self.mutants.sort(key=lambda m: (m["pos"], OPS.index(m["op"]), m["id"]))
        return self.mutants

    def cmp(self, k, nth):
        lo, hi = cmp_extent(self.toks, self.pairs, k)
        op = self.toks[k].text
        self.add("cmp", k, f"{op}#{nth}", f"`{op}` -> `{NEGATE[op]}` in "
                 f"`{self.src(lo, hi)}`",
                 [(self.toks[lo].start, self.toks[hi].end, "((", ") ^ __mut(N))")])

    def const(self, k, nth):
        t = self.toks[k]
        for d, sign in ((1, "+"), (-1, "-")):
            self.add("const", k, f"{t.text}{sign}1#{nth}",
                     f"`{t.text}` -> `{t.text}{sign}1`",
                     [(t.start, t.end, "(", f" {sign} __mut(N))")])

    def swap(self, k, nth):
        args = call_args(self.toks, self.pairs, k + 1)
        name = self.toks[k].text
        for i in range(len(args) - 1):
            (a0, a1), (b0, b1) = args[i], args[i + 1]
            a, b = self.src(a0, a1), self.src(b0, b1)
            if a == b or self.toks[a0].kind == "str" or self.toks[b0].kind == "str":
                continue
            self.add("swap", k, f"{name}:{i}#{nth}",
                     f"swap arguments {i + 1} and {i + 2} of `{name}()`: `{a}`, `{b}`",
                     [(self.toks[a0].start, self.toks[a1].end, f"(__mut(N) ? ({b}) : (",
                       "))"),
                      (self.toks[b0].start, self.toks[b1].end, f"(__mut(N) ? ({a}) : (",
                       "))")])

    def statements(self, fn):
        starts = sorted(clex.statement_starts(self.toks, self.pairs, fn))
        for k in starts:
            call = call_statement(self.toks, self.pairs, k, fn.close)
            if call is None or call[0] in SILENT:
                continue
            name, end = call
            callee = self.toks[self.pairs[end - 1] - 1]
            if callee.line not in self.added:
                continue
            op = "zero" if name in ZEROISE else "call"
            self.add(op, k, name, f"delete `{self.src(k, end)}`",
                     [(self.toks[k].start, self.toks[end].end, "{ if (!__mut(N)) ", " }")])
        name_tok = self.toks[self.pairs[fn.open - 1] - 1]
        if fn.ret is None or name_tok.line not in self.added:
            return
        body = [k for k in starts if not clex.is_declaration(self.toks, k)]
        if fn.ret == "void" and not body or self.returns_at_once(fn, body):
            return
        at = self.toks[body[0]].start if body else self.toks[fn.close].start
        self.add("ret", self.pairs[fn.open - 1] - 1, "",
                 f"`{fn.name}()` returns at once (`{RET[fn.ret]}`)",
                 [(at, at, f"{{ if (__mut(N)) {RET[fn.ret]} }} ", "")], func=fn.name)

    def returns_at_once(self, fn, body):
        """The function's whole body is already the early return the "ret"
        operator would insert (a stub such as `return NULL;`): that mutant
        would be the series itself, not a mutant."""
        if len(body) != 1:
            return False
        end = statement_end(self.toks, self.pairs, body[0], fn.close)
        return end is not None and \
            " ".join(t.text for t in self.toks[body[0]:end + 1]) == \
            " ".join(RET[fn.ret].replace(";", " ;").split())


def generate(part, path, pristine, final):
    """The mutants of one file of part, in the order of the file."""
    try:
        return Generator(part, path, pristine, final).run()
    except clex.LexError as e:
        config.die("mutants", f"{path}: {e}")


def number(mutants):
    """Give each mutant of a part its selector N (1, 2, ...), in order."""
    for n, m in enumerate(mutants, 1):
        m["n"] = n
    return mutants


def final_texts(src, paths, patchdir):
    """{path: (pristine text, final text)}: the pristine files from the
    cached tree's tag 'pristine', the final ones from applying the series
    to them in a scratch directory (the tree itself is not touched)."""
    with tempfile.TemporaryDirectory(prefix="mutants-") as d:
        pristine = {}
        for p in paths:
            r = kcache.git(src, "show", f"pristine:{p}", check=False)
            pristine[p] = r.stdout if r.returncode == 0 else ""
            os.makedirs(os.path.dirname(os.path.join(d, p)), exist_ok=True)
            if r.returncode == 0:
                with open(os.path.join(d, p), "w") as f:
                    f.write(r.stdout)
        inc = [f"--include={p}" for p in paths]
        for patch in kcache.series_patches(patchdir):
            r = subprocess.run(["git", "apply", "--allow-empty"] + inc + [patch], cwd=d,
                               capture_output=True, text=True)
            if r.returncode != 0:
                config.die("mutants", f"{config.display(patch)} does not apply to the "
                           f"pristine {', '.join(paths)}: {r.stderr.strip()[:200]}")
        out = {}
        for p in paths:
            with open(os.path.join(d, p)) as f:
                out[p] = (pristine[p], f.read())
        return out


def part_mutants(part, texts):
    """The numbered mutants of part from {path: (pristine, final)}, and
    {path: number of lines the series adds}."""
    muts, added = [], {}
    for p in PARTS[part]:
        pristine, final = texts[p]
        muts += generate(part, p, pristine, final)
        added[p] = len(added_lines(pristine, final))
    return number(muts), added
