# SPDX-License-Identifier: GPL-2.0-only
"""The verb gen-vectors: CAVS-format DRBG vectors with lengths NIST's files
never use.

  python3 -m harness gen-vectors OUTDIR      (vectors/extra is made so)

NIST's CAVS files use a few fixed lengths per algorithm and always ask for
four output blocks.  The test interface must take any lengths, so this
writes .rsp files, in NIST's format, with:

- empty values (no nonce, no personalization, no additional input, and
  even empty entropy, which only the kernel's test mode accepts: for
  HMAC_DRBG it tells the kernel's seeding, two Update rounds always, from
  the letter of SP 800-90A, one round for an empty seed);
- long entropy, nonce, personalization and additional input (up to 4 KiB);
- outputs of 1 byte up to 65536 bytes (the kernel's largest single
  Generate), and above 65536, which crypto/drbg.c's drbg_generate_long()
  splits into 65536-byte Generate calls (with prediction resistance each
  slice reseeds first).

Every core of Linux 6.1 (Hash and HMAC with SHA-1/256/384/512, CTR with
AES-128/192/256) gets the same length profiles in all three kinds
(no_reseed, pr_false, pr_true).  The expected ReturnedBits come from the
host model (drbg_model.py), which reproduces all 7920 applicable NIST
records; the guest then checks the kernel against it.  Inputs are
SHAKE-256 of a label naming the file, group, record and field, so the
output is the same bytes on every machine (LF line endings, to exercise
the parser's LF path; NIST's files are CRLF).
"""

import hashlib
import os

from ..judges import drbg_model

# (mechanism, section name, kernel core) in file order.
CORES = {
    "Hash_DRBG": [("SHA-1", "sha1"), ("SHA-256", "sha256"), ("SHA-384", "sha384"),
                  ("SHA-512", "sha512")],
    "HMAC_DRBG": [("SHA-1", "hmac_sha1"), ("SHA-256", "hmac_sha256"),
                  ("SHA-384", "hmac_sha384"), ("SHA-512", "hmac_sha512")],
    "CTR_DRBG": [("AES-128 use df", "ctr_aes128"), ("AES-192 use df", "ctr_aes192"),
                 ("AES-256 use df", "ctr_aes256")],
}

# Length profiles in bytes: (entropy, nonce, pers, addtl, out, scope).
# scope "all": every core in every kind; "core": one core per mechanism and
# kind (a different one in each kind); "kind": one core of each mechanism,
# in one kind only (a different kind per mechanism).  This keeps the set
# small (well under 1 MB) and still gives every length to every mechanism.
PROFILES = [
    (0, 0, 0, 0, 33, "all"),            # empty everything (test mode only)
    (1, 0, 0, 0, 1, "all"),             # one byte of entropy and of output
    (48, 0, 5, 3, 63, "all"),           # no nonce; odd short strings
    (111, 56, 111, 112, 65, "all"),     # around Hash_DRBG's seedlen, 111 bytes
    (256, 100, 1000, 555, 256, "core"),
    (640, 320, 960, 1600, 700, "kind"),
    (20, 10, 0, 0, 4096, "kind"),
]

# Outputs at and above the single-Generate limit: (kind, mechanism,
# section, core, entropy, nonce, pers, addtl, out).
LONG = [
    ("no_reseed", "HMAC_DRBG", "SHA-256", "hmac_sha256", 32, 16, 0, 0, 65536),
    ("pr_false", "Hash_DRBG", "SHA-512", "sha512", 64, 32, 20, 24, 65536 + 300),
    ("pr_true", "CTR_DRBG", "AES-128 use df", "ctr_aes128", 16, 8, 0, 16, 65537),
]

KINDS = ("no_reseed", "pr_false", "pr_true")


def fill(label, n):
    """n reproducible bytes named by label."""
    return hashlib.shake_256(label.encode()).digest(n) if n else b""


def make_record(label, kind, core, e, n, p, a, out):
    """The values of one record (name -> bytes or [bytes, bytes])."""
    rec = {"EntropyInput": fill(label + "/E", e), "Nonce": fill(label + "/N", n),
           "PersonalizationString": fill(label + "/P", p),
           "AdditionalInput": [fill(label + "/A1", a), fill(label + "/A2", a)]}
    if kind == "pr_false":
        rec["EntropyInputReseed"] = fill(label + "/ER", e)
        rec["AdditionalInputReseed"] = fill(label + "/AR", a)
    if kind == "pr_true":
        rec["EntropyInputPR"] = [fill(label + "/EPR1", e), fill(label + "/EPR2", e)]
    driver = f"drbg_{'pr' if kind == 'pr_true' else 'nopr'}_{core}"
    _, out2 = drbg_model.run_request(
        driver, kind == "pr_false", kind == "pr_true", out, rec["EntropyInput"],
        rec["Nonce"], rec["PersonalizationString"],
        rec.get("EntropyInputReseed", b""), rec.get("AdditionalInputReseed", b""),
        rec["AdditionalInput"], rec.get("EntropyInputPR", [b"", b""]))
    rec["ReturnedBits"] = out2
    return rec


def format_group(section, kind, lens, records):
    e, n, p, a, out = lens
    lines = [f"[{section}]",
             f"[PredictionResistance = {'True' if kind == 'pr_true' else 'False'}]",
             f"[EntropyInputLen = {8 * e}]", f"[NonceLen = {8 * n}]",
             f"[PersonalizationStringLen = {8 * p}]",
             f"[AdditionalInputLen = {8 * a}]", f"[ReturnedBitsLen = {8 * out}]", ""]
    for count, rec in enumerate(records):
        lines.append(f"COUNT = {count}")
        order = ["EntropyInput", "Nonce", "PersonalizationString"]
        if kind == "pr_false":
            order += ["EntropyInputReseed", "AdditionalInputReseed"]
        for name in order:
            lines.append(f"{name} = {rec[name].hex()}")
        for i in range(2):
            lines.append(f"AdditionalInput = {rec['AdditionalInput'][i].hex()}")
            if kind == "pr_true":
                lines.append(f"EntropyInputPR = {rec['EntropyInputPR'][i].hex()}")
        lines.append(f"ReturnedBits = {rec['ReturnedBits'].hex()}")
        lines.append("")
    return lines


def header(mechanism, what):
    return ["# CAVS DRBG response format; generated by python3 -m harness gen-vectors",
            f"# {what}",
            "# Expected ReturnedBits from the host model (harness/judges/drbg_model.py)",
            "",
            f"# {mechanism} options: " + " :: ".join(s for s, _ in CORES[mechanism]),
            ""]


def write(path, lines):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", newline="\n") as f:
        f.write("\n".join(lines) + "\n")


def in_scope(scope, kind, mech, core_index):
    """Whether a profile of this scope applies to the core_index-th core of
    mech in kind (see PROFILES)."""
    k = KINDS.index(kind)
    m = list(CORES).index(mech)
    if scope == "all":
        return True
    if scope == "core":
        return core_index == (k + m) % len(CORES[mech])
    return k == m % len(KINDS) and core_index == (k + 1) % len(CORES[mech])


def generate(outdir):
    """Write the whole set under outdir; returns the paths written."""
    written = []
    for kind in KINDS:
        for mech, cores in CORES.items():
            lines = header(mech, "lengths NIST never uses: empty, long, 1 to 4096 "
                                 "bytes of output")
            for ci, (section, core) in enumerate(cores):
                for gi, (e, n, p, a, out, scope) in enumerate(PROFILES):
                    if not in_scope(scope, kind, mech, ci):
                        continue
                    rec = make_record(f"{kind}/{mech}/{section}/{gi}", kind, core,
                                      e, n, p, a, out)
                    lines += format_group(section, kind, (e, n, p, a, out), [rec])
            path = os.path.join(outdir, kind, f"{mech}.rsp")
            write(path, lines)
            written.append(path)
    for kind, mech, section, core, e, n, p, a, out in LONG:
        rec = make_record(f"long/{kind}/{mech}/{section}", kind, core, e, n, p, a, out)
        what = (f"one Generate of {out} bytes, the kernel's largest" if out <= 65536
                else f"{out} bytes: more than one Generate (drbg_generate_long)")
        lines = header(mech, what) + format_group(section, kind, (e, n, p, a, out),
                                                  [rec])
        path = os.path.join(outdir, "long", f"{kind}_{mech}.rsp")
        write(path, lines)
        written.append(path)
    return written


def run(args):
    for p in generate(args.outdir):
        print(f"gen-vectors: {p} ({os.path.getsize(p)} bytes)")
    return 0


def register(sub):
    p = sub.add_parser("gen-vectors", help="write CAVS files with unusual lengths")
    p.add_argument("outdir")
    p.set_defaults(func=run)
