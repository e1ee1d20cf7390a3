# SPDX-License-Identifier: GPL-2.0-only
"""A small C lexer, enough to place mutants in kernel C (make mutants).

It splits a file into tokens (identifiers, numbers, strings, character
constants, punctuators) with their offsets and line numbers, skipping
comments; a token of a preprocessor directive carries the directive's
name (pp).  On top of the tokens: matching brackets, function bodies
(name, return kind, the span of the body), and the tokens that begin a
statement.  It is not a C parser: it knows what a mutant needs, and the
mutants it places are compiled before they are trusted.
"""

import re
from collections import namedtuple

Token = namedtuple("Token", "kind text start end line pp")
Function = namedtuple("Function", "name ret open close header_line first")

PUNCT = sorted(("... <<= >>= -> ++ -- << >> <= >= == != && || *= /= %= += -= &= ^= "
                "|= ## [ ] ( ) { } . & * + - ~ ! / % < > ^ | ? : ; = , #").split(),
               key=len, reverse=True)
IDENT = re.compile(r"[A-Za-z_]\w*")
NUMBER = re.compile(r"\.?\d(?:[eEpP][+-]|[\w.])*")
KEYWORDS = {"if", "else", "while", "for", "do", "switch", "case", "default", "return",
            "goto", "break", "continue", "sizeof", "typeof", "__typeof__",
            "alignof", "_Alignof", "asm", "__asm__"}
TYPE_WORDS = {"struct", "union", "enum", "const", "volatile", "static", "unsigned",
              "signed", "int", "char", "short", "long", "bool", "void", "u8", "u16",
              "u32", "u64", "s8", "s16", "s32", "s64", "__u8", "__u16", "__u32",
              "__u64", "size_t", "ssize_t", "uint64_t", "uint32_t", "__le32", "__be32",
              "register", "auto", "inline", "ktime_t", "loff_t"}


class LexError(Exception):
    pass


def _skip_space(text, i, n):
    """The offset of the next token (or n), past blanks and comments."""
    while i < n:
        c = text[i]
        if c in " \t\r\f\v":
            i += 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                raise LexError(f"line {text.count(chr(10), 0, i) + 1}: unterminated comment")
            i = j + 2
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("\\\n", i):
            i += 2
        else:
            return i
    return n


def _quoted(text, i, q):
    """The end offset of the string or character constant starting at i."""
    j = i + 1
    while j < len(text) and text[j] != q:
        if text[j] == "\n":
            break
        j += 2 if text[j] == "\\" else 1
    if j >= len(text) or text[j] != q:
        raise LexError(f"line {text.count(chr(10), 0, i) + 1}: unterminated {q}...{q}")
    return j + 1


def tokens(text):
    """Every token of text, in order."""
    out, i, n, line, pp, bol = [], 0, len(text), 1, None, True
    while True:
        j = _skip_space(text, i, n)
        line += text.count("\n", i, j)
        i = j
        if i >= n:
            return out
        c = text[i]
        if c == "\n":
            line, i, pp, bol = line + 1, i + 1, None, True
            continue
        if bol and c == "#":
            m = IDENT.match(text, _skip_space(text, i + 1, n))
            pp = m.group(0) if m else "null"
        bol = False
        if c in "\"'":
            end, kind = _quoted(text, i, c), "str" if c == '"' else "chr"
        elif IDENT.match(text, i):
            end, kind = IDENT.match(text, i).end(), "id"
            if text[end:end + 1] in "\"'" and text[i:end] in ("L", "u", "U", "u8"):
                end, kind = _quoted(text, end, text[end]), "str"
        elif NUMBER.match(text, i):
            end, kind = NUMBER.match(text, i).end(), "num"
        else:
            p = next((p for p in PUNCT if text.startswith(p, i)), None)
            if p is None:
                raise LexError(f"line {line}: unexpected character {c!r}")
            end, kind = i + len(p), "punct"
        out.append(Token(kind, text[i:end], i, end, line, pp))
        i = end


def match_brackets(toks):
    """{index of an opening or closing bracket: index of its partner};
    directives are left out (their brackets match among themselves)."""
    pairs, stack = {}, []
    closing = {")": "(", "]": "[", "}": "{"}
    for k, t in enumerate(toks):
        if t.pp or t.kind != "punct":
            continue
        if t.text in "([{":
            stack.append(k)
        elif t.text in closing:
            if not stack or toks[stack[-1]].text != closing[t.text]:
                raise LexError(f"line {t.line}: unbalanced {t.text!r}")
            o = stack.pop()
            pairs[o], pairs[k] = k, o
    if stack:
        raise LexError(f"line {toks[stack[-1]].line}: {toks[stack[-1]].text!r} "
                       "never closed")
    return pairs


def code(toks):
    """The indices of the tokens outside directives."""
    return [k for k, t in enumerate(toks) if not t.pp]


def _ret_kind(header):
    """void, bool, pointer, int, or None (a struct returned by value)."""
    words = [t.text for t in header]
    if words and words[-1] == "*":
        return "pointer"
    if ("struct" in words or "union" in words) and "*" not in words:
        return None
    if "void" in words:
        return "void"
    return "bool" if "bool" in words else "int"


def functions(toks, pairs):
    """Every function definition: a body at file scope whose '{' follows
    the ')' of a parameter list."""
    idx, out, depth, last_end = code(toks), [], 0, -1
    for pos, k in enumerate(idx):
        t = toks[k]
        if t.text == "{" and t.kind == "punct":
            prev = toks[idx[pos - 1]] if pos else None
            if depth == 0 and prev is not None and prev.text == ")":
                o = pairs[idx[pos - 1]]
                name = toks[o - 1] if o > 0 else None
                if name is not None and name.kind == "id" and name.text not in KEYWORDS:
                    header = [toks[j] for j in idx if last_end < j < o - 1]
                    out.append(Function(name.text, _ret_kind(header), k, pairs[k],
                                        (header[0] if header else name).line, k + 1))
            depth += 1
        elif t.text == "}" and t.kind == "punct":
            depth -= 1
            if depth == 0:
                last_end = k
        elif t.text == ";" and depth == 0:
            last_end = k
    return out


def statement_starts(toks, pairs, fn):
    """The indices of the tokens that begin a statement in the body of fn
    (after a label, the statement it labels)."""
    starts, prev = set(), fn.open
    heads = set()          # ')' of if/while/for/switch conditions
    colons = set()         # ':' of labels, case and default
    for k in range(fn.open + 1, fn.close):
        t, p = toks[k], toks[prev]
        if t.pp:
            continue
        if t.kind == "id" and t.text in ("if", "while", "for", "switch") and \
                toks[k + 1].text == "(":
            heads.add(pairs[k + 1])
        begins = (p.kind == "punct" and p.text in ("{", "}", ";") and
                  not _in_for_head(toks, pairs, heads, prev)) or \
            (p.kind == "id" and p.text in ("else", "do")) or prev in heads or \
            prev in colons
        if begins and t.text not in ("}", ";", "else"):
            colon = _label_colon(toks, k, fn.close)
            if colon is None:
                starts.add(k)
            else:
                colons.add(colon)
        prev = k
    return starts


def _label_colon(toks, k, stop):
    """The ':' ending a label, case or default that begins at k, or None."""
    t = toks[k]
    if t.kind == "id" and t.text not in KEYWORDS and toks[k + 1].text == ":":
        return k + 1
    if t.kind == "id" and t.text == "default" and toks[k + 1].text == ":":
        return k + 1
    if t.kind == "id" and t.text == "case":
        return next((j for j in range(k + 1, stop) if toks[j].text == ":"), None)
    return None


def _in_for_head(toks, pairs, heads, k):
    """Is the ';' at k one of a for loop's head?"""
    if toks[k].text != ";":
        return False
    return any(toks[h].text == ")" and pairs[h] < k < h and
               toks[pairs[h] - 1].text == "for" for h in heads)


def is_declaration(toks, k):
    """Does the statement at k declare something (a type first, or two
    names in a row, or 'name *name' followed by = ; , or [)?"""
    t0 = toks[k]
    if t0.kind != "id":
        return False
    if t0.text in TYPE_WORDS:
        return True
    t1 = toks[k + 1] if k + 1 < len(toks) else None
    if t1 is not None and t1.kind == "id" and t0.text not in KEYWORDS:
        return True
    if t1 is not None and t1.text == "*" and k + 3 < len(toks):
        return toks[k + 2].kind == "id" and toks[k + 3].text in ("=", ";", ",", "[")
    return False
