# SPDX-License-Identifier: GPL-2.0-only
"""Generated mutants of the harness's verdict code (the generator).

The hand-written mutants of harness_mutants.py are the defects somebody
thought of.  These are the ones nobody chose: every place in the verdict
code of the stages (SCOPE) where one of the operators of the kernel's
mutation run (kmutants.py) applies, carried over to Python:

  cmp    a comparison negated (== and !=, < and >=, > and <=, in and
         not in, is and is not)
  const  an integer constant plus one, and minus one
  call   a call statement deleted (say() and make check's step() are not:
         they print progress and decide nothing, as pr_debug() in the
         kernel's run)
  zero   a clean-up deleted: the removal of a file or a directory, or the
         killing of a process (the kernel's run deletes the zeroisation
         of a secret; a harness keeps no secret, but what it must remove
         is a stale verdict or a running guest)
  swap   two neighbouring positional arguments of a call swapped (when
         their texts differ)
  ret    a function returns at once: [] or {} when it returns a list or a
         dict (no problems, nothing found), False when it returns a truth,
         0 when an integer, else None

A mutant is one edit of one file: (start, end, text) in characters,
replacing text[start:end].  Its id does not depend on line numbers:
file, function, operator and a hash of the line's text and the mutant's
place among that line's mutants, so an edit elsewhere leaves it alone.
Nothing inside an f-string is mutated (Python 3.11 gives its parts no
reliable position).

  python3 -m harness mutants-harness --generated --list
"""

import ast
import hashlib
import os

from ..base import config

# The verdict code of each stage: the file (under harness/) and the
# functions in it that decide, count or write a verdict.  A function not
# named here (argument parsing, progress, rendering for people) is not
# mutated.
SCOPE = {
    "stages/check.py": ("rc_check", "json_step", "acvp_step", "kept_entropy",
                        "reused_entropy", "entropy_step", "merge", "judge_skips", "check"),
    "stages/check_kept.py": ("tree_inputs", "acvp_inputs", "packages", "recorded",
                             "outputs", "take", "kept_step"),
    "stages/skips.py": ("judge", "verdicts"),
    "stages/host_tests.py": ("_rec", "addSuccess", "addFailure", "addError", "addSkip",
                             "addSubTest", "addUnexpectedSuccess", "addExpectedFailure",
                             "claim", "run_shared", "own_tmpdir", "run", "run_here"),
    "stages/conform.py": ("judge_boot", "tag_requirements", "after_boots", "report"),
    "stages/acvp.py": ("set_summary", "total_check"),
    "stages/entropy.py": ("verified_parts", "analyse"),
    "stages/mutants.py": ("run_all", "as_checks", "run"),
    "stages/kmutants_report.py": ("settle", "judged"),
    "stages/stress.py": ("rejudge",),
    "stages/book/check.py": ("evidence_check", "not_run_problems", "run"),
    "base/config.py": ("fresh",),
    "base/checks.py": ("passed", "failed", "skipped", "judge", "ok", "summarize",
                       "validate"),
    "base/report.py": ("write_all", "remove_all", "_known_status", "write_junit"),
}
NEGATE = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt,
          ast.Gt: ast.LtE, ast.LtE: ast.Gt, ast.In: ast.NotIn, ast.NotIn: ast.In,
          ast.Is: ast.IsNot, ast.IsNot: ast.Is}
SILENT = ("say", "step")
CLEANUP = ("remove", "unlink", "rmtree", "killpg", "kill", "terminate")
OPS = ("cmp", "const", "call", "zero", "swap", "ret")


class Source:
    """A file's text with character offsets for ast positions."""

    def __init__(self, text):
        self.text = text
        self.starts = [0]
        for line in text.splitlines(keepends=True):
            self.starts.append(self.starts[-1] + len(line))
        self.lines = text.splitlines()

    def offset(self, line, col):
        # ast columns count UTF-8 bytes; the harness's code lines are ASCII
        # where code is mutated, so a byte column is a character column.
        return self.starts[line - 1] + col

    def span(self, node):
        return (self.offset(node.lineno, node.col_offset),
                self.offset(node.end_lineno, node.end_col_offset))


def callee(call):
    f = call.func
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute):
        return f.attr
    return ""


def in_fstring(parents, node):
    p = parents.get(node)
    while p is not None:
        if isinstance(p, ast.JoinedStr):
            return True
        p = parents.get(p)
    return False


def returned_kind(fn):
    """What fn returns, as the operator ret needs it: "list", "dict",
    "bool", "int", "none" or "void" (no return with a value)."""
    kinds = []
    for n in ast.walk(fn):
        if n is not fn and isinstance(n, (ast.FunctionDef, ast.Lambda)):
            continue
        if isinstance(n, ast.Return) and n.value is not None:
            v = n.value
            if isinstance(v, (ast.List, ast.ListComp)):
                kinds.append("list")
            elif isinstance(v, (ast.Dict, ast.DictComp)):
                kinds.append("dict")
            elif isinstance(v, (ast.Compare, ast.BoolOp)) or (
                    isinstance(v, ast.Constant) and isinstance(v.value, bool)) or (
                    isinstance(v, ast.UnaryOp) and isinstance(v.op, ast.Not)):
                kinds.append("bool")
            elif isinstance(v, ast.Constant) and isinstance(v.value, int):
                kinds.append("int")
            else:
                kinds.append("none")
    for k in ("list", "dict", "bool", "int"):
        if k in kinds:
            return k
    return "none" if kinds else "void"


RET = {"list": "return []", "dict": "return {}", "bool": "return False",
       "int": "return 0", "none": "return None", "void": "return"}


def first_statement(fn):
    """The first statement of fn's body that runs (its docstring does not)."""
    body = fn.body
    return body[1] if (len(body) > 1 and isinstance(body[0], ast.Expr)
                       and isinstance(body[0].value, ast.Constant)
                       and isinstance(body[0].value.value, str)) else body[0]


def function_mutants(src, fn, parents):
    """[(op, start, end, new, line)] of one function's body."""
    out = []
    first = first_statement(fn)
    # the first statement's line, with the return put before it
    at = src.offset(first.lineno, 0)
    line = src.lines[first.lineno - 1]
    indent = " " * first.col_offset
    out.append(("ret", at, at + len(line), f"{indent}{RET[returned_kind(fn)]}\n{line}",
                first.lineno))
    for n in ast.walk(fn):
        if n is not fn and isinstance(n, (ast.FunctionDef, ast.ClassDef)):
            continue  # a nested definition is mutated only if named itself
        if in_fstring(parents, n) or not hasattr(n, "lineno"):
            continue
        if isinstance(n, ast.Compare) and len(n.ops) == 1 and type(n.ops[0]) in NEGATE:
            m = ast.Compare(left=n.left, ops=[NEGATE[type(n.ops[0])]()],
                            comparators=n.comparators)
            s, e = src.span(n)
            out.append(("cmp", s, e, "(" + ast.unparse(m) + ")", n.lineno))
        elif isinstance(n, ast.Constant) and type(n.value) is int:
            s, e = src.span(n)
            for d in (1, -1):
                out.append(("const", s, e, f"({n.value + d})", n.lineno))
        elif isinstance(n, ast.Expr) and isinstance(n.value, ast.Call):
            name = callee(n.value)
            if name in SILENT:
                continue
            s, e = src.span(n)
            out.append(("zero" if name in CLEANUP else "call", s, e, "pass", n.lineno))
        if isinstance(n, ast.Call):
            args = n.args
            for i in range(len(args) - 1):
                a, b = args[i], args[i + 1]
                if isinstance(a, ast.Starred) or isinstance(b, ast.Starred):
                    continue
                ta, tb = ast.get_source_segment(src.text, a), ast.get_source_segment(src.text, b)
                if ta is None or tb is None or ta == tb:
                    continue
                sa, ea = src.span(a)
                sb, eb = src.span(b)
                between = src.text[ea:sb]
                out.append(("swap", sa, eb, tb + between + ta, n.lineno))
    return out


def parent_map(tree):
    parents = {}
    for p in ast.walk(tree):
        for c in ast.iter_child_nodes(p):
            parents[c] = p
    return parents


def generate(rel, text, names):
    """The mutants of the functions names of harness/rel (its text)."""
    src = Source(text)
    tree = ast.parse(text, filename=rel)
    parents = parent_map(tree)
    found, out = set(), []
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef) or fn.name not in names:
            continue
        found.add(fn.name)
        seen = {}
        # A mutant in the signature (a default value) is run by every call,
        # and a call runs the body's first line, not the def's.
        body_line = first_statement(fn).lineno
        for op, s, e, new, line in sorted(function_mutants(src, fn, parents),
                                          key=lambda m: (m[1], m[2], m[0], m[3])):
            line_text = src.lines[line - 1].strip()
            k = (op, line_text)
            seen[k] = seen.get(k, 0) + 1
            h = hashlib.sha1(f"{line_text}\0{seen[k]}\0{new}".encode()).hexdigest()[:8]
            out.append({"id": f"{rel[:-3].replace('/', '.')}.{fn.name}.{op}.{h}",
                        "file": rel, "function": fn.name, "op": op, "line": line,
                        "start": s, "end": e, "new": new,
                        "old": text[s:e], "source": line_text,
                        "cover": body_line if line < body_line else None})
    missing = set(names) - found
    if missing:
        config.die("mutants", f"harness/{rel}: no function {', '.join(sorted(missing))} "
                   "(named in harness/stages/hmutants.py SCOPE): update the scope")
    return out


def all_mutants(top=None, scope=None):
    top = top or config.TOP
    out = []
    for rel, names in sorted((scope or SCOPE).items()):
        with open(os.path.join(top, "harness", rel)) as f:
            out += generate(rel, f.read(), names)
    ids = [m["id"] for m in out]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        config.die("mutants", f"generated mutant ids collide: {', '.join(sorted(dup))}")
    return out


def apply(text, mutant):
    """text with mutant applied; dies if the file moved since generation."""
    if text[mutant["start"]:mutant["end"]] != mutant["old"]:
        config.die("mutants", f"harness/{mutant['file']}:{mutant['line']}: the text of "
                   f"mutant {mutant['id']} is not where it was generated")
    return text[:mutant["start"]] + mutant["new"] + text[mutant["end"]:]
