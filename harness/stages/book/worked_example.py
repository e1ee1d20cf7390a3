# SPDX-License-Identifier: GPL-2.0-only
"""Book part: the worked example, drawn from build/book-data/worked-example.json
(judges/worked_example.py writes it: `python3 -m harness examples`).

render(ctx) returns (markdown, notes); ctx has "top", "outdir", "report",
and the helpers "esc" and "code".  A note is a build warning: something
is wrong (the data is missing, or the model disagrees with NIST).
"""

import os

from ...base import files

DATA = "build/book-data/worked-example.json"

STEPS_TEXT = {
    "HMAC_DRBG": {
        "INSTANTIATE": "SP 800-90A 10.1.2.3: seed_material = entropy_input || nonce "
                       "|| personalization_string; Key = 0x00…00, V = 0x01…01; "
                       "HMAC_DRBG_Update(seed_material, Key, V).",
        "RESEED": "10.1.2.4: seed_material = entropy_input || additional_input; "
                  "HMAC_DRBG_Update(seed_material, Key, V).",
        "GENERATE (FIRST CALL)": "10.1.2.5: update with the additional input if "
                                 "there is one, then V = HMAC(Key, V) until enough "
                                 "bits, then update again; the output is discarded.",
        "GENERATE (SECOND CALL)": "10.1.2.5 again; this output is NIST's ReturnedBits.",
    },
    "CTR_DRBG": {
        "INSTANTIATE": "SP 800-90A 10.2.1.3.2: seed_material = Block_Cipher_df("
                       "entropy_input || nonce || personalization_string, seedlen); "
                       "Key = 0, V = 0; CTR_DRBG_Update(seed_material, Key, V).",
        "RESEED": "10.2.1.4.2: seed_material = Block_Cipher_df(entropy_input || "
                  "additional_input, seedlen); CTR_DRBG_Update.",
        "GENERATE (FIRST CALL)": "10.2.1.5.2: the additional input through the df "
                                 "and an update, then V = V + 1 and Key-encrypt V "
                                 "until enough bits, then update; output discarded.",
        "GENERATE (SECOND CALL)": "10.2.1.5.2 again; this output is NIST's ReturnedBits.",
    },
}


def hexgroups(h):
    if not h:
        return "(empty)"
    return " ".join(h[i:i + 16] for i in range(0, len(h), 16))


def styled(verdict):
    """A verdict as the book's status labels show it."""
    if verdict == "same":
        return "[same]{.st .st-pass}"
    if verdict.startswith("**differs"):
        return "[differs]{.st .st-fail} " + verdict[len("**differs:** "):]
    return f"[{verdict}]{{.st .st-notrun}}"


def verdict(mine, nist, got, code):
    if mine is None:
        return "not yet available" if got is None else "not computed"
    if mine.lower() == nist.lower():
        return "same"
    return f"**differs:** {code(hexgroups(mine))}"


def inputs_md(ex, esc, code):
    p = ex["params"]
    why = ex["why"]
    out = [f"{esc(why[:1].upper() + why[1:])}: record COUNT = {esc(ex['count'])} of "
           f"section {code('[' + ex['section'] + ']')} in "
           f"{code('vectors/cavs-intermediate/' + ex['src'])} "
           f"(entropy {esc(p.get('EntropyInputLen', '?'))} bits, nonce "
           f"{esc(p.get('NonceLen', '?'))} bits, output "
           f"{esc(p.get('ReturnedBitsLen', '?'))} bits).", "",
           "| input | value (hex) |", "|--|------|"]
    out += [f"| {esc(k)} | {code(hexgroups(v))} |" for k, v in ex["inputs"]]
    out += [f"| {esc(k)} (call {i + 1}) | {code(hexgroups(v))} |"
            for i, (k, v) in enumerate(ex["adds"])]
    return out + [""]


def steps_md(ex, esc, code, tally):
    got, out = ex.get("recomputed"), []
    for step in ex["order"]:
        out += [f"**{esc(step.capitalize())}.** "
                f"{esc(STEPS_TEXT.get(ex['mech'], {}).get(step, ''))}", "",
                "| value | NIST | recomputed |", "|-|------|----|"]
        for name, val in ex["steps"][step].items():
            v = verdict((got or {}).get(step, {}).get(name), val, got, code)
            tally[0] += v == "same"
            tally[1] += 1
            out.append(f"| {esc(name)} | {code(hexgroups(val))} | {styled(v)} |")
        out.append("")
    if ex.get("returned") is not None:
        v = verdict((got or {}).get("OUTPUT", {}).get("ReturnedBits"), ex["returned"],
                    got, code)
        tally[0] += v == "same"
        tally[1] += 1
        out += ["| output | NIST | recomputed |", "|-|------|----|",
                f"| ReturnedBits | {code(hexgroups(ex['returned']))} | {styled(v)} |", ""]
    return out


def example_md(ex, esc, code, notes):
    anchor = f"worked-{ex['mech'].lower().replace('_', '-')}"
    out = [f"## {esc(ex['mech'])}, {esc(ex['section'])} {{- #{anchor}}}", ""]
    if ex.get("missing"):
        return out + ["::: placeholder", f"No intermediate values: {code(ex['missing'])} "
                      "is missing.", ":::", ""]
    if ex.get("error"):
        notes.append(f"drbg_model: recomputing {ex['mech']} {ex['section']} failed: "
                     f"{ex['error']}")
    tally = [0, 0]
    out += inputs_md(ex, esc, code) + steps_md(ex, esc, code, tally)
    if ex.get("recomputed") is not None:
        out += [f"The host model (`harness/judges/drbg_model.py`, `run_request()` as "
                f"the kernel's {code(ex['driver'])} runs the record in test mode) "
                f"recomputed {tally[0]} of {tally[1]} values identically.", ""]
        if tally[0] != tally[1]:
            notes.append(f"worked example {ex['mech']} {ex['section']}: the host model "
                         f"agrees with NIST on {tally[0]} of {tally[1]} values")
    return out


def render(ctx):
    esc, code = ctx["esc"], ctx["code"]
    notes = []
    out = ["# A worked example {- #worked-example}", "",
           "Two NIST CAVS records, traced through instantiate, reseed and "
           "two generate calls, with NIST's intermediate values "
           "(`vectors/cavs-intermediate/`) and, beside each, the value the "
           "host model computed (`python3 -m harness examples`, before the "
           "book is rendered).", ""]
    data = files.read_json(os.path.join(ctx["top"], DATA))
    if data is None:
        notes.append(f"{DATA} is missing: run 'python3 -m harness examples' (make book does)")
        return "\n".join(out + ["::: placeholder", f"No data: {code(DATA)} is missing.",
                                ":::", ""]) + "\n", notes
    for ex in data.get("records", []):
        out += example_md(ex, esc, code, notes)
    return "\n".join(out) + "\n", notes
