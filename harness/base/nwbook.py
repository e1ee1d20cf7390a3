# SPDX-License-Identifier: GPL-2.0-only
"""noweb's front end for the rendered book.

The book is read through noweb's own pipeline, so that it sees exactly the
chunks notangle sees:

  markup -t SOURCES | autodefs (here) | finduses -noquote | noidx

`autodefs` is this module's: noweb's C autodefs only knows a few forms, so
the identifiers a code chunk defines (functions, structs, unions, enums,
macros, typedefs, file-scope variables, Kconfig options) are found with
regular expressions over the chunk's own lines and announced to finduses
and noidx as `@index defn NAME` records, noweb's protocol for it.  Which
chunks are C is decided by where their lines end up (a .c or .h file,
from notangle -L: noweb.provenance), so a commit message that mentions
`foo(` defines nothing.

`parse()` turns noidx's output into a Book: doc chunks and code chunks in
order, each code chunk with its noidx label (the stable anchor), number,
name, continuations, users, the identifiers it defines and uses.
"""

import os
import re

from . import noweb
from .noweb import MARKUP, NowebError, run

FINDUSES = os.path.join(noweb.LIB, "finduses")
NOIDX = os.path.join(noweb.LIB, "noidx")
FrontEndError = NowebError


# ---------------------------------------------------------------------------
# The raw record stream

class Chunk:
    """A code chunk (one definition; a continued chunk has several)."""

    def __init__(self, name, src, line):
        self.name = name
        self.src = src
        self.line = line          # line of the <<name>>= in src
        self.label = None         # noidx label of this definition: the anchor
        self.first = None         # label of the first definition of the name
        self.number = 0           # 1, 2, ... in book order
        self.prevdef = None
        self.nextdef = None
        self.otherdefs = []       # labels of the other definitions
        self.usedin = []          # labels of chunks that use this name
        self.root = False         # used nowhere
        self.lines = []           # [[piece]]; piece: ("text", s) |
        #                           ("use", name, target label, use label) |
        #                           ("ident", name, label of its definition)
        self.defines = []         # identifiers defined here (noidx order)
        self.uses = []            # [(identifier, label of its definition)]

    @property
    def continued(self):
        return self.first is not None and self.first != self.label

    def text_lines(self):
        """The chunk's own lines, uses written <<name>>."""
        out = []
        for line in self.lines:
            s = ""
            for p in line:
                s += f"<<{p[1]}>>" if p[0] == "use" else p[1]
            out.append(s)
        return out


class Docs:
    def __init__(self, src, line):
        self.src = src
        self.line = line
        self.lines = []           # [[piece]]; piece: ("text", s) | ("quote", s)


class Book:
    def __init__(self):
        self.parts = []           # Docs and Chunk, in order
        self.chunks = []          # code chunks in order
        self.by_label = {}
        self.defs = {}            # name -> [Chunk] (definitions, in order)
        self.chunk_index = []     # [(first label, name, [use labels], [defn labels])]
        self.ident_index = []     # [(name, [defn labels], [use labels])]
        self.kinds = {}           # identifier -> kind (from autodefs)
        self.warnings = []        # stderr of noweb's stages


def split_lines(records):
    """Yield (kind, payload) from the record text."""
    for rec in records.split("\n"):
        if not rec:
            continue
        if not rec.startswith("@"):
            raise NowebError(f"unexpected record {rec[:60]!r}")
        key, _, rest = rec[1:].partition(" ")
        yield key, rest


class _Parser:
    """noidx's record stream, one record at a time (on_<key> methods)."""

    def __init__(self):
        self.book = Book()
        self.src, self.line = "?", 1
        self.cur = None               # the Chunk or Docs being read
        self.pieces = None            # the pieces of its current line
        self.label = self.ref = None  # the pending @xref label and ref
        self.in_quote = False
        self.index_mode = None
        self.next_ident = None
        self.entry = None             # the chunk or identifier index entry

    def on_file(self, rest):
        self.src, self.line = rest, 1

    def on_begin(self, rest):
        kind = rest.split()[0]
        self.cur = (Chunk(None, self.src, self.line) if kind == "code"
                    else Docs(self.src, self.line))
        self.pieces, self.in_quote = [], False

    def on_end(self, rest):
        cur, book = self.cur, self.book
        if self.pieces:
            cur.lines.append(self.pieces)
        self.pieces = None
        if isinstance(cur, Chunk):
            book.chunks.append(cur)
            cur.number = len(book.chunks)
            if cur.label is None:       # markup alone gives no labels
                cur.label = f"chunk-{cur.number}"
            book.by_label[cur.label] = cur
            book.defs.setdefault(cur.name, []).append(cur)
        book.parts.append(cur)
        self.cur = None

    def on_nl(self, rest):
        self.line += 1
        cur = self.cur
        if cur is None:
            return
        if isinstance(cur, Chunk) and cur.name is not None and not cur.lines \
                and self.pieces == [] and not getattr(cur, "_header_done", False):
            cur._header_done = True     # the newline of the <<name>>= line
            return
        cur.lines.append(self.pieces)
        self.pieces = []

    def on_defn(self, rest):
        cur = self.cur
        cur.name, cur.line = rest, self.line
        cur.label, cur.first = self.label, self.ref
        self.label = self.ref = None

    def on_text(self, rest):
        if self.cur is None:
            return
        if isinstance(self.cur, Chunk):
            ni = self.next_ident
            self.pieces.append(("ident", rest, ni[1]) if ni is not None and rest == ni[0]
                               else ("text", rest))
            self.next_ident = None
        else:
            self.pieces.append(("quote" if self.in_quote else "text", rest))

    def on_quote(self, rest):
        self.in_quote = True

    def on_endquote(self, rest):
        self.in_quote = False

    def on_use(self, rest):
        if isinstance(self.cur, Chunk):
            self.pieces.append(("use", rest, self.ref, self.label))
        else:
            self.pieces.append(("text", f"<<{rest}>>"))
        self.label = self.ref = None

    def on_xref(self, rest):
        sub, _, arg = rest.partition(" ")
        cur, book = self.cur, self.book
        if sub == "label":
            self.label = arg
        elif sub == "ref":
            self.ref = arg
        elif sub in ("prevdef", "nextdef"):
            setattr(cur, sub, arg)
        elif sub in ("begindefs", "beginuses"):
            self.index_mode = sub[5:]
        elif sub in ("enddefs", "enduses"):
            self.index_mode = None
        elif sub in ("defitem", "useitem", "notused") and cur is not None:
            if sub == "notused":
                cur.root = True
            else:
                (cur.otherdefs if sub == "defitem" else cur.usedin).append(arg)
        elif sub == "chunkbegin":
            lab, _, name = arg.partition(" ")
            self.entry = (lab, name, [], [])
            book.chunk_index.append(self.entry)
        elif sub in ("chunkuse", "chunkdefn"):
            self.entry[2 if sub == "chunkuse" else 3].append(arg)

    def on_index(self, rest):
        sub, _, arg = rest.partition(" ")
        cur = self.cur
        if sub == "use" and cur is not None:
            self.next_ident, self.ref = (arg, self.ref), None
        elif sub == "defn" and cur is not None:
            cur.defines.append(arg)
            self.ref = None
        elif sub == "isdefined":
            self.next_ident, self.index_mode = None, ("isdefined", arg)
        elif sub == "useitem" and cur is not None and isinstance(self.index_mode, tuple):
            cur.uses.append((arg, self.index_mode[1]))
        elif sub == "entrybegin":
            lab, _, name = arg.partition(" ")
            self.entry = (name, [], [])
            self.book.ident_index.append(self.entry)
        elif sub in ("entrydefn", "entryuse"):
            self.entry[1 if sub == "entrydefn" else 2].append(arg)


def parse(stream):
    """Turn noidx's output (or markup's) into a Book."""
    p = _Parser()
    for key, rest in split_lines(stream):
        handler = getattr(p, "on_" + key, None)
        if handler:     # the rest (@language, @index begindefs ...) is ignored
            handler(rest)
    book = p.book
    for c in book.chunks:
        if c.first is None:
            c.first = book.defs[c.name][0].label
    return book


# ---------------------------------------------------------------------------
# Identifier definitions (our autodefs)

C_KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "do", "else",
              "case", "goto", "typeof", "__typeof__", "defined"}
RE_MACRO = re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)")
RE_TAG = re.compile(r"^(?:typedef\s+)?(struct|union|enum)\s+([A-Za-z_]\w*)\s*\{")
RE_TYPEDEF_FP = re.compile(r"^typedef\b.*\(\s*\*\s*([A-Za-z_]\w*)\s*\)\s*\(")
RE_TYPEDEF = re.compile(r"^typedef\b.*?\b([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*;\s*$")
RE_FUNC = re.compile(r"^(?!typedef\b)(?:[A-Za-z_][\w]*[\s\*]+)+\**\s*([A-Za-z_]\w*)\s*\(")
RE_VAR = re.compile(r"^(?!typedef\b|extern\b|return\b)(?:(?:static|const|volatile|unsigned|signed"
                    r"|__read_mostly|__initdata|__ro_after_init)\s+)*"
                    r"(?:(?:struct|union|enum)\s+\w+|[A-Za-z_]\w*)[\s\*]+"
                    r"([A-Za-z_]\w*)\s*(?:\[[^\]]*\])*\s*(?:=|;)")
RE_TYPEDEF_TAIL = re.compile(r"^\}\s*([A-Za-z_]\w*)\s*;")
RE_KCONFIG = re.compile(r"^\s*(?:menu)?config\s+([A-Za-z0-9_]+)\s*$")


def c_definitions(lines):
    """[(line index, name, kind)] for the definitions in C lines (a chunk's own)."""
    found = []
    n = len(lines)
    for i, text in enumerate(lines):
        m = RE_MACRO.match(text)
        if m:
            found.append((i, m.group(1), "macro"))
            continue
        if not text or text[0] in " \t#/*{}":
            m = RE_TYPEDEF_TAIL.match(text)
            if m and any(lines[k].startswith("typedef") for k in range(i)):
                found.append((i, m.group(1), "typedef"))
            continue
        m = RE_TAG.match(text)
        if m:
            found.append((i, m.group(2), m.group(1)))
            continue
        m = RE_TYPEDEF_FP.match(text) or RE_TYPEDEF.match(text)
        if m:
            found.append((i, m.group(1), "typedef"))
            continue
        m = RE_FUNC.match(text)
        if m and m.group(1) not in C_KEYWORDS:
            # A definition if a line "{" follows before the declarator ends.
            j, depth, kind = i, 0, None
            while j < n and j < i + 12:
                t = lines[j]
                if j > i and t.startswith("{"):
                    kind = "function"
                    break
                depth += t.count("(") - t.count(")")
                if depth <= 0 and t.rstrip().endswith(";"):
                    break
                if depth <= 0 and t.rstrip().endswith("{") and j == i:
                    kind = "function"
                    break
                if j > i and not t.strip():
                    break
                j += 1
            if kind:
                found.append((i, m.group(1), kind))
                continue
            if "=" not in text.split("(")[0]:
                continue
        m = RE_VAR.match(text)
        if m and m.group(1) not in C_KEYWORDS:
            found.append((i, m.group(1), "variable"))
    return found


def kconfig_definitions(lines):
    return [(i, m.group(1), "Kconfig option")
            for i, t in enumerate(lines) for m in [RE_KCONFIG.match(t)] if m]


def language_of(path):
    """The language of a destination path (for highlighting and autodefs)."""
    if path is None:
        return "c"
    if path in ("<message>", "<cover>"):
        return "text"
    if path == "<edit script>":
        return "editscript"
    base = os.path.basename(path)
    if base.endswith((".c", ".h")):
        return "c"
    if base.startswith(("Makefile", "Kbuild")):
        return "makefile"
    if base.startswith("Kconfig"):
        return "kconfig"
    if base.endswith((".sh",)):
        return "bash"
    if base.endswith(".py"):
        return "python"
    return "text"


DIRECTIVE = re.compile(r"^%% (\S+)(?: (.*))?$")


def _votes_of_root(book, conf, root, lang_of_line, votes, cwd):
    for text, stack in noweb.provenance(conf.sources, root, book, cwd=cwd):
        lang = lang_of_line(text)
        if lang:
            v = votes.setdefault(stack[-1], {})
            v[lang] = v.get(lang, 0) + 1


def destinations(book, conf, cwd=None):
    """{chunk number: language} from where each chunk's lines go."""
    votes = {}
    for out, chunk in conf.files:
        if chunk in book.defs:
            _votes_of_root(book, conf, chunk, lambda t, o=out: language_of(o), votes, cwd)
    for chunk in conf.patches:
        if chunk not in book.defs:
            continue
        dest = [None]

        def lang(text):
            m = DIRECTIVE.match(text)
            if not m:
                return language_of(dest[0])
            op, arg = m.group(1), m.group(2) or ""
            if op in ("write", "edit"):
                dest[0] = arg
            elif op == "message":
                dest[0] = "<message>"
            return "editscript"
        _votes_of_root(book, conf, chunk, lang, votes, cwd)
    if conf.cover in book.defs:
        _votes_of_root(book, conf, conf.cover, lambda t: "text", votes, cwd)
    langs = {}
    for c in book.chunks:
        v = votes.get(c.number)
        # A chunk with no line of its own (only uses) is counted as C.
        langs[c.number] = max(sorted(v), key=lambda k: v[k]) if v else "c"
    return langs


def autodefs(stream, langs):
    """Insert '@index defn NAME' records after the text that defines NAME."""
    out = []
    recs = stream.split("\n")
    # First pass: group each code chunk's records by line.
    kinds = {}
    i = 0
    n = len(recs)
    chunk_no = -1
    while i < n:
        rec = recs[i]
        if rec.startswith("@begin code"):
            chunk_no += 1
            j = i
            while not recs[j].startswith("@end code"):
                j += 1
            block = recs[i:j + 1]
            out.extend(_defs_in_block(block, langs.get(chunk_no, "c"), kinds))
            i = j + 1
            continue
        out.append(rec)
        i += 1
    return "\n".join(out), kinds


def _defs_in_block(block, lang, kinds):
    if lang not in ("c", "kconfig"):
        return block
    # Lines of the chunk's own text, with the record index of each line's end.
    lines, ends, cur, seen_defn = [], [], "", False
    for k, rec in enumerate(block):
        if rec.startswith("@defn "):
            seen_defn = True
            continue
        if not seen_defn:
            continue
        if rec.startswith("@text "):
            cur += rec[6:]
        elif rec.startswith("@use "):
            cur += "\0"
        elif rec == "@nl":
            lines.append(cur)
            ends.append(k)
            cur = ""
    # The first @nl is the one of the <<name>>= line.
    lines, ends = lines[1:], ends[1:]
    found = (c_definitions(lines) if lang == "c" else kconfig_definitions(lines))
    if not found:
        return block
    insert = {}
    for li, name, kind in found:
        kinds.setdefault(name, kind)
        insert.setdefault(ends[li], []).append(name)
    out = []
    for k, rec in enumerate(block):
        if k in insert:
            out.extend(f"@index defn {name}" for name in insert[k])
        out.append(rec)
    return out


def front_end(sources, conf=None, cwd=None):
    """Run noweb's pipeline with our autodefs; return (Book, raw noidx output).
    Sources are relative to cwd (they are named so in the output)."""
    markup, err1 = run([MARKUP, "-t"] + list(sources), cwd=cwd)
    plain = parse(markup)
    # Chunk i of the markup stream is chunk i of noidx's: match by order.
    by_number = destinations(plain, conf, cwd) if conf is not None else {}
    langs = {i: by_number.get(c.number, "c") for i, c in enumerate(plain.chunks)}
    with_defs, kinds = autodefs(markup, langs)
    used, err2 = run([FINDUSES, "-noquote"], with_defs)
    idx, err3 = run([NOIDX], used)
    book = parse(idx)
    book.kinds = kinds
    book.langs = {c.label: langs.get(i, "c") for i, c in enumerate(book.chunks)}
    book.warnings = [w for w in (err1 + err2 + err3).splitlines() if w.strip()]
    return book, idx
