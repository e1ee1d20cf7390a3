# SPDX-License-Identifier: GPL-2.0-only
"""The verb pud (make pud): the Public Use Document of the Jitter RNG as an
SP 800-90B entropy source, the document an ESV submission carries,
rendered from the code's numbers and the recorded evidence, never typed.

  python3 -m harness pud [--out build/pud]

It reads the entropy run (build/entropy/summary.json, else the recorded
one in evidence/entropy/, base/evidence.py), the code's constants (the
model of the core, which the host tests hold to the C), the claim
(judges/entropy_claim.py) and, where make acvp has run, the ACVP answers
of the conditioning hash (build/acvp/summary.json).  It writes pud.md,
pud.html and pud.pdf in the output directory, and pud.json: what the
document was made from and the checks it passed.  It exits 1 when there
is no entropy run at all, when a section is missing from the HTML, or
when pandoc or LaTeX warn; every figure it prints is read, so a source
that was not measured says so in its row.
"""

import os
import subprocess

from ..base import config, evidence, files
from ..base.checks import Check, summarize
from ..judges import entropy_claim as claims
from ..judges import entropy_report as er
from .book import entropy as book_entropy

OUT = config.build("pud")
ACVP = config.build("acvp/summary.json")
SECTIONS = (("boundary", "The entropy source and its boundary"),
            ("raw", "The raw sample"),
            ("environments", "Operating environments and the entropy claimed"),
            ("restart", "Restarts"),
            ("health", "Health tests"),
            ("startup", "Start-up"),
            ("conditioning", "Conditioning"),
            ("output", "What is claimed for the output"),
            ("provenance", "Where the figures come from"))
DIAGRAM = """\
 +------------------- entropy source boundary: jitterentropy_rng ---------------+
 | noise source: execution time of 129-256 memory accesses and 1-16 folds (-O0),|
 |   timed by random_get_entropy()                                              |
 |        |                                                                     |
 |        v                                                                     |
 | raw sample: 64-bit time delta ----------> health tests: RCT, APT, lag        |
 |        |                                  predictor, stuck bound;            |
 |        v                                  start-up test on 1024 samples      |
 | stuck test: a selection; a counted sample is one not stuck                   |
 |        v                                                                     |
 | SHA3-256 of {samples} counted deltas and the previous block (vetted)               |
 +--------|---------------------------------------------------------------------+
          v
   256-bit output block -> crypto_rng_get_bytes("jitterentropy_rng") -> DRBG seed
"""


def f(v, d=4):
    """A number as the book's entropy tables show it; "not measured" when
    absent."""
    return "not measured" if v is None else book_entropy.f(v, d)


def rows(head, body):
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    return out + ["| " + " | ".join(str(c) for c in r) + " |" for r in body] + [""]


def section(key, title):
    return [f"# {title} {{#pud-{key}}}", ""]


def boundary_md(data, code):
    return section(*SECTIONS[0]) + [
        "The entropy source is the kernel's `jitterentropy_rng` "
        "(`crypto/jitterentropy.c`, `crypto/jitterentropy-kcapi.c`), a non-physical "
        "noise source (SP 800-90B 2.2) with its conditioning and health tests inside "
        "one boundary: the kernel's address space.  Its output leaves through the "
        "crypto API alone; the DRBG seeds from it.", "",
        "```", DIAGRAM.rstrip("\n").replace("{samples}", str(code["block_samples"])),
        "```", ""]


def raw_md(data, code):
    return section(*SECTIONS[1]) + [
        "The raw sample is the 64-bit difference of two time stamps of "
        "`random_get_entropy()` around one measurement, as the core hands it to the "
        "stuck test and the health tests.  It is assessed as an 8-bit symbol, its low "
        "8 bits, which can only under-state its entropy.  A block's priming "
        "measurement is not a raw sample.  A new collector's first 64 raw samples "
        "are its priming samples: the stuck test and the health tests see them, "
        "none of them is counted, and the restart matrix is of the samples after "
        "them.", ""]


def environments_md(data, code):
    body = []
    for env, e in claims.ENVIRONMENTS.items():
        c = (data.get("claims") or {}).get(env) or {}
        srcs = [data["sources"].get(n) or {} for n in e["sources"]]
        assessed = [((s.get("assessment") or {}).get("assessed")) for s in srcs
                    if not s.get("error")]
        body.append([e["title"], e["timer"], f(e["claim"], 3) if e["claim"] else
                     "none", ", ".join(f"`{n}`" for n in e["sources"]),
                     f(min(assessed)) if assessed and None not in assessed else
                     "not measured", f(None if c.get("h") is None else float(c["h"])),
                     e["note"]])
    return section(*SECTIONS[2]) + [
        "One claim per operating environment (SP 800-90B 3.1.3, 3.2.2), "
        "*H*~submitter~ bits of min-entropy per raw sample.  *H*~I~ = min(claim, "
        "assessed); the validated *H* = min(*H*~r~, *H*~c~, *H*~I~) of the "
        "environment's sources, the least of them.", ""] + rows(
        ["operating environment", "timer", "claim", "sources", "assessed (least)",
         "validated H (least)", "note"], body)


def restart_md(data, code):
    body = []
    for n, s in data["sources"].items():
        if s.get("error"):
            body.append([f"`{n}`", "not collected", "", "", "", "", ""])
            continue
        rs = (s.get("assessment") or {}).get("restart") or {}
        r = s["collect"].get("restart", {})
        body.append([f"`{n}`", f"{r.get('restarts')} x {book_entropy.restart_len(r)}, by "
                     f"{r.get('by', 'a new collector')}", f(rs.get("h_i")),
                     f(rs.get("sanity")), f(rs.get("h_r")), f(rs.get("h_c")),
                     f(rs.get("pass"))])
    return section(*SECTIONS[3]) + [
        "SP 800-90B 3.1.4: 1000 restarts of 1000 samples, the sanity check "
        "(3.1.4.3) and the validation (3.1.4.2), at the *H*~I~ of the claim.  "
        "The kernel's restarts are reboots: its Jitter RNG starts at boot.", ""] + rows(
        ["source", "restarts", "H_I", "sanity", "H_r", "H_c", "validation"], body)


def health_md(data, code):
    body = [["repetition count test (4.4.1)", f"{code['rct'][0]} / {code['rct'][1]}",
             "equal consecutive deltas"],
            ["adaptive proportion test (4.4.2)", f"{code['apt'][0]} / {code['apt'][1]}",
             f"window {code['apt_window']}"],
            ["lag predictor (4.5)", f"{code['lag_run'][0]} / {code['lag_run'][1]} run, "
             f"{code['lag_count'][0]} / {code['lag_count'][1]} count",
             f"window {code['lag_window']}, history {code['lag_history']}"],
            ["stuck bound (4.5)", f"{code['stuck'][0]} / {code['stuck'][1]}",
             "stuck samples in a row; needs q >= 1/8"]]
    fp = []
    for n, s in data["sources"].items():
        h = s.get("health")
        if s.get("error") or not h or s.get("design") != "ours":
            continue
        fp.append([f"`{n}`"] + [f"{h[k]['fires']} ({h[k]['estimate']:.3g})"
                                if k in h else "not measured"
                                for k in ("rct", "apt", "lag", "stuck")]
                  + [f((h.get("stuck") or {}).get("yield"))])
    return section(*SECTIONS[4]) + [
        f"Cutoffs (intermittent / permanent, alpha = 2^-{code['alpha_exp'][0]} / "
        f"2^-{code['alpha_exp'][1]}) derived from the claim of {code['h_claim']:g} bit "
        "per raw sample; an intermittent failure discards the block and resets the "
        "collector, a permanent one stops the instance (a panic with fips=1).", ""] + \
        rows(["test", "cutoffs", "what it counts"], body) + [
        "Measured on each source's 1,000,000 samples: times each test fired, with "
        "the false-positive rate per sample estimated from the data, and the share "
        "q of samples that are not stuck.", ""] + rows(
        ["source", "RCT", "APT", "lag", "stuck bound", "q"], fp)


def startup_md(data, code):
    body = []
    for n, s in data["sources"].items():
        st = (s.get("collect") or {}).get("startup_at_boot")
        if st:
            body.append([f"`{n}`", f"{st['passed']} of {st['boots']}"])
    return section(*SECTIONS[5]) + [
        "When the module loads, and again before every recording of the test "
        "interface, the start-up test runs the health tests and the timer checks on "
        "1024 samples (4.3) and the SHA3-256 known-answer test; the RNG registers "
        "only if both pass.  The kernel sources' boots that passed it:", ""] + (
        rows(["source", "start-up passed at boot"], body) if body else
        ["No kernel boot was counted in this run.", ""])


def conditioning_md(data, code, acvp):
    sha3 = [s for s in (acvp or {}).get("sets", []) if "SHA3" in s.get("algorithm", "")]
    old = book_entropy.earlier_design(data)
    out = section(*SECTIONS[6]) + [
        f"One component, vetted (3.1.5.1.1): SHA3-256 of the previous block and "
        f"{code['block_samples']} counted deltas, 8 bytes each; each counted delta "
        f"is credited with the validated *H* per raw sample, at most the claim, and "
        f"the previous block with nothing; Output_Entropy of 3.1.5.1.2, full entropy "
        f"when {code['needed']} bits go in (SP 800-90C).  The stuck test conditions "
        f"nothing: it only selects the samples that are counted.", ""]
    measured = [[n, f((s.get("blocks") or {}).get("assessed")),
                 f(None if old else ((s.get("chain") or {}).get("summary") or {})
                   .get("h_in_block"), 1)]
                for n, s in data.get("sources", {}).items()
                if not s.get("error") and s.get("design") == "ours"
                and claims.credited(n)]
    if measured:
        out += rows(["source", "h' output blocks (recorded, for insight)",
                     "bits into SHA3-256 per block"], measured)
    if sha3:
        out += rows(["ACVP set", "test cases answered", "claimed", "validation"],
                    [[s["name"], f(s["answered"]), f(s["claimed"]),
                      s.get("validation") or "no expected results"] for s in sha3])
    else:
        out += ["The ACVP answers of SHA3-256 are not part of this document's data: "
                "`make acvp` writes them.", ""]
    return out


def output_md(data, code):
    old = book_entropy.earlier_design(data)
    body = [[e["title"], f(e["claim"], 3) if e["claim"] else "none",
             f(None if old else ((data.get("claims") or {}).get(k) or {})
               .get("credited_bits"), 1),
             f(None if old else ((data.get("claims") or {}).get(k) or {})
               .get("full_entropy"))]
            for k, e in claims.ENVIRONMENTS.items() if e["credited"]]
    return section(*SECTIONS[7]) + [
        "Each 256-bit output block is credited with the entropy the chain gives it "
        "from the validated *H*, the least over the environment's sources (the "
        "`-fixed` ones, recorded without the loop shuffle, included).  No credit "
        "is claimed in an environment without a claim.", ""] + rows(
        ["operating environment", "claim", "credit per block (bits)", "full entropy"],
        body) + rows(["DRBG strength", "instantiate (bits of entropy)",
                      "reseed (bits of entropy)"],
                     [[r["strength_bits"], f(r["instantiate_bits"], 1),
                       f(r["reseed_bits"], 1)]
                      for r in ([] if old else data.get("drbg", []))])


def provenance_md(data, prov):
    where = ("this tree's own run" if prov["source"] == "build" else
             f"the run recorded at commit {(prov.get('commit') or '?')[:12]}")
    return section(*SECTIONS[8]) + [
        f"Every figure is read from `{prov['path']}` ({where}, started "
        f"{data.get('started', '?')}, on {data.get('host', {}).get('cpu_model', '?')}); "
        + ("its inputs are this tree's." if prov["current"] else
           "**its inputs are not this tree's: the figures are of an earlier version**."),
        ""] + (["The record is of an earlier design of the core, which extracted bits "
                "from the deltas into pool words; its conditioning and credit are not "
                "this design's, and are shown as not measured.", ""]
               if book_entropy.earlier_design(data) else [])


def markdown(data, prov, acvp):
    code = er.code_claims()
    out = ["---", "title: Public Use Document", "subtitle: the CPU Jitter RNG "
           "(jitterentropy_rng) as an SP 800-90B entropy source", "---", ""]
    out += boundary_md(data, code) + raw_md(data, code) + environments_md(data, code)
    out += restart_md(data, code) + health_md(data, code) + startup_md(data, code)
    out += conditioning_md(data, code, acvp) + output_md(data, code)
    out += provenance_md(data, prov)
    return "\n".join(out)


def pandoc(args, md):
    r = subprocess.run(["pandoc"] + args, input=md, capture_output=True, text=True)
    return r.returncode, [w for w in r.stderr.splitlines() if w.strip()]


def render(out, data, prov, acvp):
    """Write pud.md, pud.html and pud.pdf; the checks."""
    md = markdown(data, prov, acvp)
    files.write_text(os.path.join(out, "pud.md"), md)
    common = ["-f", "markdown", "--standalone", "--toc", "-N"]
    rc_h, warn_h = pandoc(common + ["-t", "html5", "--section-divs", "-o",
                                    os.path.join(out, "pud.html")], md)
    rc_p, warn_p = pandoc(common + ["--pdf-engine=pdflatex", "-V", "geometry=margin=2cm",
                                    "-V", "papersize=a4", "-o",
                                    os.path.join(out, "pud.pdf")], md)
    html = files.read_text(os.path.join(out, "pud.html")) or ""
    missing = [t for k, t in SECTIONS if f'id="pud-{k}"' not in html]
    checks = [
        Check.judge("pud.html", "the Public Use Document renders to HTML with every "
                    "section", ([f"pandoc exited {rc_h}"] if rc_h else []) + warn_h
                    + [f"section missing: {t}" for t in missing], origin="host"),
        Check.judge("pud.pdf", "the Public Use Document renders to PDF",
                    ([f"pandoc/pdflatex exited {rc_p}"] if rc_p else []) + warn_p +
                    ([] if os.path.exists(os.path.join(out, "pud.pdf")) and
                     os.path.getsize(os.path.join(out, "pud.pdf")) else
                     ["no pud.pdf"]), origin="host"),
        Check.judge("pud.data", "the document's figures are of this tree's inputs and "
                    "every credited source was measured",
                    ([] if prov["current"] else [f"{prov['path']}: made on other inputs"])
                    + [f"{n}: not measured" for e in claims.ENVIRONMENTS.values()
                       if e["credited"] for n in e["sources"]
                       if n not in data["sources"] or data["sources"][n].get("error")],
                    origin="host")]
    return checks


def run(args):
    data, prov = evidence.load("entropy")
    if data is None:
        config.die("pud", "no entropy run: `make entropy` writes build/entropy/"
                   "summary.json, `make evidence` keeps it in evidence/entropy/")
    acvp = files.read_json(ACVP)
    os.makedirs(args.out, exist_ok=True)
    checks = render(args.out, data, prov, acvp)
    files.write_json(os.path.join(args.out, "pud.json"),
                     {"entropy": prov, "acvp": config.display(ACVP) if acvp else None,
                      "checks": [c.to_dict() for c in checks]})
    for c in checks:
        print(f"pud: {c.status.upper()} {c.id}: {c.reason or c.title}")
    n = summarize(checks)
    print(f"pud: {config.display(os.path.join(args.out, 'pud.html'))}, "
          f"{config.display(os.path.join(args.out, 'pud.pdf'))}; {n['passed']} passed, "
          f"{n['failed']} failed")
    return 1 if n["failed"] else 0


def register(sub):
    p = sub.add_parser("pud", help="render the Public Use Document (HTML and PDF) from "
                       "the code and the recorded entropy evidence")
    p.add_argument("--out", default=OUT)
    p.set_defaults(func=run)
