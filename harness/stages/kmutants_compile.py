# SPDX-License-Identifier: GPL-2.0-only
"""The compiler's part in make mutants (kmutants_run.py): the schema of a
part's mutants written into the kernel tree (kmutants_schema.py), each
file compiled alone as the kernel's build compiles it, and the mutants
the compiler rejects found and left out of the schema (a build of their
own each).
"""

import os
import re
import subprocess

from ..base import config
from . import kmutants
from . import kmutants_schema as schema


def say(msg):
    config.say("mutants", msg)


OBJ = {p: p[:-2] + ".o" for ps in kmutants.PARTS.values() for p in ps}


def write_schemata(src, part, texts, mutants, const=None):
    """Write the schema of each file of part into the tree; {path: where}."""
    wheres = {}
    for p in kmutants.PARTS[part]:
        mine = [m for m in mutants if m["file"] == p]
        text, wheres[p] = schema.schema(part, p, texts[p][1], mine, const=const)
        with open(os.path.join(src, p), "w") as f:
            f.write(text)
    return wheres


class Compiler:
    """Compiles the part's files as the kernel's build does (the command
    its .o.cmd recorded, without objtool and with no object kept), to
    find the mutants the compiler rejects before a kernel is linked."""

    def __init__(self, src, build, part, texts):
        self.src, self.build, self.part, self.texts = src, build, part, texts
        self.cmds = {p: self.command(p) for p in kmutants.PARTS[part]}
        self.runs = 0

    def command(self, p):
        d, f = os.path.split(OBJ[p])
        path = os.path.join(self.build, d, f".{f}.cmd")
        try:
            with open(path) as fh:
                line = fh.readline()
        except OSError:
            config.die("mutants", f"{path} is missing: build the test kernel first")
        cmd = line.split(":=", 1)[1].split(";")[0].strip()
        cmd = re.sub(r"-Wp,-MMD,\S+", "", cmd)
        return re.sub(r"-o \S+", "-o /dev/null", cmd)

    def attempt(self, mutants, const=None):
        """(ok, the mutants the messages blame, log) of one compile of the
        schema of mutants."""
        wheres = write_schemata(self.src, self.part, self.texts, mutants, const)
        ok, bad, log = True, set(), ""
        for p, cmd in self.cmds.items():
            self.runs += 1
            r = subprocess.run(cmd, shell=True, cwd=self.build, capture_output=True,
                               text=True)
            if r.returncode == 0:
                continue
            ok, log = False, log + r.stderr
            with open(os.path.join(self.src, p)) as f:
                text = f.read()
            errs = [(ln, col) for ln, col, _, _ in schema.compile_errors(r.stderr, p)]
            bad |= schema.culprits(text, wheres[p], errs)
        return ok, bad, log


    def compiled(self, mutants):
        """The N of the mutants the preprocessor keeps (not in an #if
        branch the test kernel's configuration leaves out)."""
        write_schemata(self.src, self.part, self.texts, mutants)
        seen = set()
        for cmd in self.cmds.values():
            r = subprocess.run(cmd.replace(" -c ", " -E ").replace("-o /dev/null", "-o -"),
                               shell=True, cwd=self.build, capture_output=True, text=True)
            seen |= {int(n) for n in re.findall(r"_selector == \((\d+)\)", r.stdout)}
        return seen


def bisect(comp, held):
    """Mutants that fail to compile with no message that names them (a
    macro's constant rejected where the macro is used): halve the set
    until one half alone fails; the smallest failing set found."""
    while len(held) > 1:
        a, b = held[:len(held) // 2], held[len(held) // 2:]
        if not comp.attempt(a)[0]:
            held = a
        elif not comp.attempt(b)[0]:
            held = b
        else:
            return held           # only together: all of them go
    return held


def error_lines(log):
    """The first three lines of a compiler log that speak of an error, on
    one line (for a message that stops the run)."""
    tail = [ln.strip() for ln in log.splitlines() if "error" in ln][:3]
    return " | ".join(tail)[:400]


def fit_schema(comp, mutants):
    """(the mutants the schema holds, the ones it cannot): the ones the
    compiler blames go, then each is tried again alone in the schema."""
    held, dropped = list(mutants), []
    while True:
        ok, bad, log = comp.attempt(held)
        if ok:
            break
        if not held:
            config.die("mutants", f"the files of {comp.part} do not compile with the "
                       f"schema's prelude alone: {log.strip()[:300]}")
        gone = [m for m in held if m["n"] in bad] or bisect(comp, held)
        if len(gone) == len(held) and not bad and len(held) > 1:
            config.die("mutants", f"the schema of {comp.part} does not compile: "
                       f"{error_lines(log)}")
        dropped += gone
        held = [m for m in held if m not in gone]
    back = []
    for m in dropped:
        if comp.attempt(held + back + [m])[0]:
            back.append(m)
    say(f"schema {comp.part}: {len(back)} of {len(dropped)} mutant(s) the compiler "
        f"blamed fit after all ({comp.runs} compiles)")
    held = sorted(held + back, key=lambda m: m["n"])
    if back and not comp.attempt(held)[0]:
        config.die("mutants", f"the schema of {comp.part} with the mutants put back "
                   "does not compile")
    return held, [m for m in dropped if m not in back]


def prelude_compiles(comp):
    """Stop unless the part's files compile with the prelude of a build of
    its own and no mutant: otherwise every mutant would come out
    build-failed, and none would be judged."""
    ok, _, log = comp.attempt([], const=0)
    if not ok:
        config.die("mutants", f"the files of {comp.part} do not compile with the "
                   f"prelude of a build of its own (N fixed): {error_lines(log)}")
