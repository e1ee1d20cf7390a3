# SPDX-License-Identifier: GPL-2.0-only
"""noweb's front end for the rendered book, and a tangle that remembers.

The book is read through noweb's own pipeline, so that it sees exactly the
chunks notangle sees:

  markup -t SOURCES | autodefs (here) | finduses -noquote | noidx

`autodefs` is this module's: noweb's C autodefs only knows a few forms, so
the identifiers a code chunk defines (functions, structs, unions, enums,
macros, typedefs, file-scope variables, Kconfig options) are found with
regular expressions over the chunk's own lines and announced to finduses
and noidx as `@index defn NAME` records, noweb's protocol for it.  Which
chunks are C is decided by where their lines end up (a .c or .h file), so
a commit message that mentions `foo(` defines nothing.

`parse()` turns noidx's output into a Book: doc chunks and code chunks in
order, each code chunk with its noidx label (the stable anchor), number,
name, continuations, users, the identifiers it defines and uses.

`Tangler` expands a root chunk the way `notangle -t8` does (indentation of
a use, the swallowed final newline, no indentation on empty lines) and
records for every output line the stack of chunk definitions it came from,
so a line of a tangled file or patch can be traced back to its chunk.
"""

import os
import re
import subprocess

LIB = "/usr/lib/noweb"
MARKUP = os.path.join(LIB, "markup")
FINDUSES = os.path.join(LIB, "finduses")
NOIDX = os.path.join(LIB, "noidx")


class FrontEndError(Exception):
    pass


def run(cmd, inp=None, cwd=None):
    """Run one stage; return (stdout, stderr).  Fail on a non-zero exit."""
    try:
        r = subprocess.run(cmd, input=inp, capture_output=True, text=True, cwd=cwd)
    except FileNotFoundError:
        raise FrontEndError(f"{cmd[0]} not found: install noweb (make deps)")
    if r.returncode != 0:
        raise FrontEndError(f"{os.path.basename(cmd[0])} exited {r.returncode}: "
                            f"{r.stderr.strip()[:500]}")
    return r.stdout, r.stderr


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
            raise FrontEndError(f"unexpected record {rec[:60]!r}")
        key, _, rest = rec[1:].partition(" ")
        yield key, rest


def parse(stream):
    """Turn noidx's output into a Book."""
    book = Book()
    src, line = "?", 1
    cur = None
    piece_line = None
    pending_label = pending_ref = None
    in_quote = False
    index_mode = None
    next_ident = None
    entry = None
    for key, rest in split_lines(stream):
        if key == "file":
            src, line = rest, 1
        elif key == "begin":
            kind = rest.split()[0]
            cur = Chunk(None, src, line) if kind == "code" else Docs(src, line)
            piece_line = []
            in_quote = False
        elif key == "end":
            if piece_line:
                cur.lines.append(piece_line)
            piece_line = None
            if isinstance(cur, Chunk):
                book.chunks.append(cur)
                cur.number = len(book.chunks)
                if cur.label is None:       # markup alone gives no labels
                    cur.label = f"chunk-{cur.number}"
                book.by_label[cur.label] = cur
                book.defs.setdefault(cur.name, []).append(cur)
            book.parts.append(cur)
            cur = None
        elif key == "nl":
            line += 1
            if cur is None:
                continue
            if isinstance(cur, Chunk) and cur.name is not None and not cur.lines \
                    and piece_line == [] and not getattr(cur, "_header_done", False):
                cur._header_done = True     # the newline of the <<name>>= line
                continue
            cur.lines.append(piece_line)
            piece_line = []
        elif key == "defn":
            cur.name = rest
            cur.line = line
            cur.label = pending_label
            cur.first = pending_ref
            pending_label = pending_ref = None
        elif key == "text":
            if cur is None:
                continue
            if isinstance(cur, Chunk):
                if next_ident is not None and rest == next_ident[0]:
                    piece_line.append(("ident", rest, next_ident[1]))
                else:
                    piece_line.append(("text", rest))
                next_ident = None
            else:
                piece_line.append(("quote" if in_quote else "text", rest))
        elif key == "quote":
            in_quote = True
        elif key == "endquote":
            in_quote = False
        elif key == "use":
            if isinstance(cur, Chunk):
                piece_line.append(("use", rest, pending_ref, pending_label))
            else:
                piece_line.append(("text", f"<<{rest}>>"))
            pending_label = pending_ref = None
        elif key == "xref":
            sub, _, arg = rest.partition(" ")
            if sub == "label":
                pending_label = arg
            elif sub == "ref":
                pending_ref = arg
            elif sub == "prevdef":
                cur.prevdef = arg
            elif sub == "nextdef":
                cur.nextdef = arg
            elif sub == "begindefs":
                index_mode = "defs"
            elif sub == "beginuses":
                index_mode = "uses"
            elif sub in ("enddefs", "enduses"):
                index_mode = None
            elif sub == "defitem" and cur is not None:
                cur.otherdefs.append(arg)
            elif sub == "useitem" and cur is not None:
                cur.usedin.append(arg)
            elif sub == "notused" and cur is not None:
                cur.root = True
            elif sub == "chunkbegin":
                lab, _, name = arg.partition(" ")
                entry = (lab, name, [], [])
                book.chunk_index.append(entry)
            elif sub == "chunkuse":
                entry[2].append(arg)
            elif sub == "chunkdefn":
                entry[3].append(arg)
        elif key == "index":
            sub, _, arg = rest.partition(" ")
            if sub == "use" and cur is not None:
                next_ident = (arg, pending_ref)
                pending_ref = None
            elif sub == "defn" and cur is not None:
                cur.defines.append(arg)
                pending_ref = None
            elif sub == "isdefined":
                next_ident = None
                index_mode = ("isdefined", arg)
            elif sub == "useitem" and cur is not None and isinstance(index_mode, tuple):
                cur.uses.append((arg, index_mode[1]))
            elif sub == "entrybegin":
                lab, _, name = arg.partition(" ")
                entry = (name, [], [])
                book.ident_index.append(entry)
            elif sub == "entrydefn":
                entry[1].append(arg)
            elif sub == "entryuse":
                entry[2].append(arg)
        # everything else (@language, @index begindefs/isused ...) is ignored
    for c in book.chunks:
        if c.first is None:
            c.first = book.defs[c.name][0].label
    return book


# ---------------------------------------------------------------------------
# Tangling with provenance

class Tangler:
    """Expand chunks as notangle -t8 does, keeping each line's origin."""

    def __init__(self, book):
        self.book = book
        self.missing = set()      # chunks used but never defined (skipped)
        self.cycles = set()       # chunks that use themselves (not expanded)

    def expand(self, name, stack=()):
        """Return [(text, stack of definition labels)] for the chunk."""
        lines = self._expand(name, stack, set())
        return [("".join(t for t, _ in segs), self._origin(segs, stack))
                for segs in lines]

    @staticmethod
    def _origin(segs, stack):
        best = stack
        for text, st in segs:
            if text.strip() and len(st) >= len(best):
                best = st
        if best == stack and segs:
            best = max((st for _, st in segs), key=len)
        return best

    def _expand(self, name, stack, active):
        if name not in self.book.defs:
            self.missing.add(name)      # notangle writes nothing for it either
            return [[]]
        if name in active:
            self.cycles.add(name)
            return [[]]
        active = active | {name}
        out = [[]]
        for d in self.book.defs[name]:
            st = stack + (d.label,)
            for line in d.lines:
                for p in line:
                    if p[0] == "use":
                        prefix = "".join(t for t, _ in out[-1])
                        ind = re.sub(r"[^\t ]", " ", prefix)
                        sub = self._expand(p[1], st, active)
                        if sub and not sub[-1]:
                            sub = sub[:-1]      # the final newline is swallowed
                        if not sub:
                            continue
                        out[-1].extend(sub[0])
                        for sl in sub[1:]:
                            nonblank = any(t for t, _ in sl)
                            out.append(([(ind, st)] if nonblank and ind else []) + sl)
                    else:
                        out[-1].append((p[1], st))
                if not line:
                    out[-1].append(("", st))
                out.append([])
        return out


def expand_lines(tangler, name):
    """The expansion's lines, without the open line after the last newline."""
    lines = tangler.expand(name)
    if lines and lines[-1][0] == "":
        lines = lines[:-1]
    return lines


def expand_text(tangler, name):
    """The chunk's expansion as notangle would write it."""
    lines = tangler.expand(name)
    # The last element is the open line after the final newline.
    if lines and lines[-1][0] == "":
        lines = lines[:-1]
        return "".join(t + "\n" for t, _ in lines)
    return "\n".join(t for t, _ in lines)


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


def destinations(book, conf):
    """{definition label: language} from where each chunk's lines go."""
    tangler = Tangler(book)
    votes = {}

    def vote(stack, lang):
        if stack:
            votes.setdefault(stack[-1], {}).setdefault(lang, 0)
            votes[stack[-1]][lang] += 1

    for out, chunk in conf.files:
        if chunk in book.defs:
            for _, st in tangler.expand(chunk):
                vote(st, language_of(out))
    for chunk in conf.patches:
        if chunk not in book.defs:
            continue
        dest = None
        for text, st in tangler.expand(chunk):
            m = DIRECTIVE.match(text)
            if m:
                op, arg = m.group(1), m.group(2) or ""
                if op in ("write", "edit"):
                    dest = arg
                elif op == "message":
                    dest = "<message>"
                vote(st, "editscript")
                continue
            vote(st, language_of(dest))
    if conf.cover in book.defs:
        for _, st in tangler.expand(conf.cover):
            vote(st, "text")
    langs = {}
    for c in book.chunks:
        v = votes.get(c.label)
        if v:
            langs[c.label] = max(sorted(v), key=lambda k: v[k])
    # A chunk with no line of its own (only uses) takes its users' language.
    for c in book.chunks:
        if c.label not in langs:
            langs[c.label] = "c"
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
    by_label = destinations(plain, conf) if conf is not None else {}
    langs = {i: by_label.get(c.label, "c") for i, c in enumerate(plain.chunks)}
    with_defs, kinds = autodefs(markup, langs)
    used, err2 = run([FINDUSES, "-noquote"], with_defs)
    idx, err3 = run([NOIDX], used)
    book = parse(idx)
    book.kinds = kinds
    book.langs = {c.label: langs.get(i, "c") for i, c in enumerate(book.chunks)}
    book.warnings = [w for w in (err1 + err2 + err3).splitlines() if w.strip()]
    return book, idx
