# SPDX-License-Identifier: GPL-2.0-only
"""The verbs lint, tangle and drift: from the book to tangled/.

  lint     the noweb sources, for what notangle would silently get wrong
  tangle   one notangle per output of tangle.conf, then the series from
           the edit scripts (series.py); skipped when a stamp says
           tangled/ is what the same sources and tools made
  drift    tangle into a scratch directory and compare with tangled/,
           byte for byte (never uses the stamp)

The lint finds:
  - a root chunk that tangle.conf does not name (a typo in a chunk name
    makes a new root whose code reaches no file);
  - a chunk that tangle.conf names but the book never defines;
  - a chunk used but never defined (notangle still writes the file);
  - '<<' in code that is neither '@<<' nor a use of a defined chunk
    (x = (a << 2) | (b >> 3) is read as a use of the chunk ' 2) | (b ');
  - trailing blanks on any line, and in any tangled output;
  - a line of an edit script (a patch's root chunk) that is neither a
    directive ('%% ...') nor a use of a named chunk: code is written in
    chunks the book names, never typed into an edit script;
  - a code chunk no '@' line closes (the prose after it would be code);
  - a chunk defined twice that tangle.conf does not list as 'continued';
  - a source that is not UTF-8 or has CR LF line ends (conf.py);
and warns (without failing) on a code chunk over 40 lines.
Defined and used names come from noweb's own front end (markup), so the
lint sees exactly what notangle sees.
"""

import os
import re
import shutil
import subprocess

from ..base import conf as confmod
from ..base import config, files, kcache, noweb
from . import series

DEF_RE = re.compile(r"^<<(.*)>>=\s*$")
END_RE = re.compile(r"^@(\s|$)")
USE_LINE = re.compile(r"^<<(.+)>>$")
LONG_CHUNK = 40
STAMP = config.build("tangle/stamp.json")
TOOLS = ["tangle.conf", "harness/base/conf.py", "harness/base/noweb.py",
         "harness/stages/tangle.py", "harness/stages/series.py"]


def code_chunks(path, unclosed=None):
    """[(name, line of its <<name>>=, [(line number, text)])] of one source.
    unclosed, a list, gets a problem for every chunk that no '@' line
    ends before the next chunk or the end of the file (noweb would take
    the prose after it for code)."""
    out, cur = [], None
    with open(config.top(path), encoding="utf-8") as f:
        for no, text in enumerate(f, 1):
            text = text.rstrip("\n")
            m = DEF_RE.match(text)
            if m:
                if cur is not None and unclosed is not None:
                    unclosed.append(f"{path}:{cur[1]}: <<{cur[0]}>> is not closed by an "
                                    f"'@' line before the next chunk at line {no}: "
                                    "what follows it would be code")
                cur = (m.group(1), no, [])
                out.append(cur)
            elif cur is not None and END_RE.match(text):
                cur = None
            elif cur is not None:
                cur[2].append((no, text))
    if cur is not None and unclosed is not None:
        unclosed.append(f"{path}:{cur[1]}: <<{cur[0]}>> is not closed by an '@' line "
                        "before the end of the file: what follows it would be code")
    return out


def literal_shifts(text, defined):
    """Columns of '<<' in a code line that are not '@<<' or a defined use."""
    bad, i = [], 0
    while True:
        i = text.find("<<", i)
        if i < 0:
            return bad
        if i > 0 and text[i - 1] == "@":
            i += 2
            continue
        close = text.find(">>", i + 2)
        if close >= 0 and text[i + 2:close] in defined:
            i = close + 2
            continue
        bad.append(i + 1)
        i += 2


def chunk_problems(conf, defs):
    """Problems and warnings found chunk by chunk in the sources."""
    problems, warnings = [], []
    patches = set(conf.patches)
    for src in conf.sources:
        for name, at, lines in code_chunks(src, problems):
            if len(lines) > LONG_CHUNK:
                warnings.append(f"{src}:{at}: <<{name}>> has {len(lines)} lines "
                                f"(more than {LONG_CHUNK}: split it)")
            for no, text in lines:
                for col in literal_shifts(text, defs):
                    if text.find(">>", col + 1) < 0:   # else: an undefined use
                        problems.append(f"{src}:{no}:{col}: '<<' in code: write "
                                        "'@<<' for a literal shift")
                if name in patches and not text.startswith("%% ") and \
                        not USE_LINE.match(text):
                    problems.append(f"{src}:{no}: edit script <<{name}>> has a "
                                    f"literal line {text.strip()[:40]!r}: put it in "
                                    "a named chunk and use that")
    return problems, warnings


def lint(conf):
    """(problems, warnings) of the book's sources."""
    missing = [f"{s}: listed in {conf.path} but missing" for s in conf.sources
               if not os.path.exists(config.top(s))]
    if missing:
        return missing, []
    bad_text = conf.source_problems()
    if bad_text:                # noweb cannot be trusted with them
        return bad_text, []
    defs, uses = noweb.defs_uses(conf.sources)
    named = dict(conf.named_chunks())
    problems = [f"{conf.path}: {what} names chunk <<{name}>>, which no source defines"
                for name, what in named.items() if name not in defs]
    problems += [f"{where[0]}: root chunk <<{name}>> is not named in {conf.path} "
                 "(a typo in a chunk name? its code reaches no output)"
                 for name, where in sorted(defs.items())
                 if name not in uses and name not in named]
    problems += [f"{w}: use of undefined chunk <<{name}>> (write @<< for a literal "
                 "shift)" for name, where in sorted(uses.items()) if name not in defs
                 for w in where]
    problems += [f"{w}: <<{name}>> is defined again (first at {where[0]}): noweb would "
                 f"append this to it; rename it, or list 'continued {name}' in "
                 f"{conf.path} if it continues the first"
                 for name, where in sorted(defs.items())
                 if len(where) > 1 and name not in conf.continued for w in where[1:]]
    for src in conf.sources:
        with open(config.top(src), encoding="utf-8") as f:
            problems += [f"{src}:{no}: trailing blanks" for no, text in enumerate(f, 1)
                         if text.rstrip("\n") != text.rstrip("\n").rstrip(" \t")]
    more, warnings = chunk_problems(conf, defs)
    return problems + more, warnings


def tangle(conf, outdir, editdir):
    """Every `file` output into outdir, and the edit scripts into editdir."""
    for out, chunk in conf.files:
        noweb.tangle_to(conf.sources, chunk, os.path.join(outdir, out))
    os.makedirs(editdir, exist_ok=True)
    for old in os.listdir(editdir):
        os.unlink(os.path.join(editdir, old))
    for i, chunk in enumerate(conf.patches, 1):
        noweb.tangle_to(conf.sources, chunk, os.path.join(editdir, f"{i:04d}.edits"))
    noweb.tangle_to(conf.sources, conf.cover, os.path.join(editdir, "cover.txt"))


# ---------------------------------------------------------------------------
# The stamp of a warm tangle

def stamp_inputs(conf):
    """The sources, tangle.conf, the tools that tangle, and the pristine
    kernel tree the series is made against (its import stamp)."""
    paths = [config.top(p) for p in list(conf.sources) + TOOLS]
    version = kcache.installed_version()
    return {"files": files.hash_files(paths, config.TOP),
            "pristine": kcache.import_stamp(version) if version else None}


def stamp_outputs():
    """Every file under tangled/ and the line map of the series."""
    out = []
    for d, dirs, names in os.walk(config.top("tangled")):
        dirs.sort()
        out += [os.path.join(d, f) for f in sorted(names)]
    lines = series.LINES
    if os.path.exists(lines):
        out.append(lines)
    return {"count": len(out), "sha256": files.hash_files(out, config.TOP)}


def fresh(conf):
    """None when tangled/ is what these sources made, else why not."""
    last = files.read_json(STAMP)
    if last is None:
        return "no stamp of an earlier tangle"
    now = stamp_inputs(conf)
    if now["pristine"] is None:
        return "no kernel tree yet: the tangle imports it"
    if last.get("inputs") != now:
        return "the book or its tools changed since the last tangle"
    if not os.path.exists(series.LINES):
        return "the line map of the series is missing"
    if last.get("outputs") != stamp_outputs():
        return "tangled/ was changed by hand since the last tangle"
    return None


def write_stamp(conf):
    files.write_json(STAMP, {"inputs": stamp_inputs(conf), "outputs": stamp_outputs()})


# ---------------------------------------------------------------------------
# The verbs

def run_lint(args):
    conf = confmod.load()
    problems, warnings = lint(conf)
    for w in warnings:
        config.warn("lint", f"warning: {w}")
    for p in problems:
        config.warn("lint", p)
    if problems:
        config.warn("lint", f"{len(problems)} problem(s)")
        return 1
    config.say("lint", f"{len(conf.sources)} sources, {len(conf.patches)} patches, "
               f"{len(conf.files)} files: clean ({len(warnings)} warning(s))")
    return 0


def make(conf, outdir, editdir, lines):
    """Lint, tangle into outdir (its patches/ too); edit scripts in editdir."""
    problems, _ = lint(conf)
    if problems:
        for p in problems:
            config.warn("lint", p)
        config.die("tangle", f"the lint found {len(problems)} problem(s)")
    try:
        tangle(conf, outdir, editdir)
    except noweb.NowebError as e:
        config.die("tangle", str(e))
    series.build(editdir, os.path.join(outdir, "patches"), lines)


def run_tangle(args):
    conf = confmod.load()
    why = fresh(conf)
    if why is None:
        config.say("tangle", "up to date (tangled/ is what these sources made; "
                   f"stamp {config.display(STAMP)})")
        return 0
    config.say("tangle", f"{len(conf.sources)} sources -> tangled/ ({why})")
    make(conf, config.top("tangled"), config.build("tangle/edits"), series.LINES)
    write_stamp(conf)
    return 0


def run_drift(args):
    conf = confmod.load()
    scratch = config.build("drift")
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(os.path.join(scratch, "out"))
    make(conf, os.path.join(scratch, "out"), os.path.join(scratch, "edits"),
         os.path.join(scratch, "lines.json"))
    r = subprocess.run(["diff", "-r", config.top("tangled"), os.path.join(scratch, "out")],
                       capture_output=True, text=True)
    files.write_text(os.path.join(scratch, "diff.txt"), r.stdout)
    if r.returncode == 0:
        config.say("drift", "tangled/ is what the book makes (byte for byte)")
        return 0
    config.warn("drift", "tangled/ differs from what the book makes:")
    for ln in r.stdout.splitlines()[:20]:
        config.warn("drift", ln)
    config.warn("drift", "run 'make tangle' and commit tangled/")
    return 1


def register(sub):
    p = sub.add_parser("lint", help="check the noweb sources")
    p.set_defaults(func=run_lint)
    p = sub.add_parser("tangle", help="write tangled/ from the book")
    p.set_defaults(func=run_tangle)
    p = sub.add_parser("drift", help="check that tangled/ is what the book makes")
    p.set_defaults(func=run_drift)

