# SPDX-License-Identifier: GPL-2.0-only
"""Book part: the worked example, drawn from build/book-data/worked-example.json
(judges/worked_example.py writes it: `python3 -m harness examples`): a
seeding the kernel did in the conform run, taken apart and recomputed,
then NIST CAVS records with their intermediate values.

render(ctx) returns (markdown, notes); ctx has "top", "outdir", "report",
and the helpers "esc" and "code".  A note is a build warning: something
is wrong (the data is missing, or the model disagrees with NIST).
"""

import os

from ...base import files
from .md import table

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
    "Hash_DRBG": {
        "INSTANTIATE": "SP 800-90A 10.1.1.2: seed = Hash_df(entropy_input || nonce || "
                       "personalization_string, seedlen); V = seed; C = Hash_df(0x00 || V, "
                       "seedlen); reseed_counter = 1.",
        "RESEED": "10.1.1.3: seed = Hash_df(0x01 || V || entropy_input || "
                  "additional_input, seedlen); V = seed; C = Hash_df(0x00 || V, seedlen); "
                  "reseed_counter = 1.",
        "GENERATE (FIRST CALL)": "10.1.1.4: with additional input, w = Hash(0x02 || V || "
                                 "additional_input) and V = V + w; Hashgen; then H = "
                                 "Hash(0x03 || V) and V = V + H + C + reseed_counter "
                                 "(mod 2^seedlen); the output is discarded.",
        "GENERATE (SECOND CALL)": "10.1.1.4 again; this output is NIST's ReturnedBits.",
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


PR_TEXT = {
    "GENERATE (FIRST CALL)": "Prediction resistance, SP 800-90A 9.3.1 step 7: before "
                             "generating, a reseed (10.1.2.4) with fresh entropy input "
                             "(NIST's EntropyInputPR) and the additional input, which is "
                             "then used up (step 7.4); then 10.1.2.5 without it.  The "
                             "output is discarded.",
    "GENERATE (SECOND CALL)": "The same again, with the next EntropyInputPR; this output "
                              "is NIST's ReturnedBits.",
}


def step_text(ex, step):
    if ex.get("pr") and step in PR_TEXT:
        return PR_TEXT[step]
    return STEPS_TEXT.get(ex["mech"], {}).get(step, "")


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
           f"{esc(p.get('ReturnedBitsLen', '?'))} bits).", ""]
    rows = [[esc(k), code(hexgroups(v))] for k, v in ex["inputs"]]
    # each generate call takes one value of each kind (AdditionalInput,
    # and EntropyInputPR with prediction resistance): number them by call
    keys = [k for k, _ in ex["adds"]]
    rows += [[f"{esc(k)} (call {keys[:i].count(k) + 1})", code(hexgroups(v))]
             for i, (k, v) in enumerate(ex["adds"])]
    return out + table(["input", "value (hex)"], [3, 8], rows)


def steps_md(ex, esc, code, tally):
    got, out = ex.get("recomputed"), []
    for step in ex["order"]:
        text = esc(step_text(ex, step)).replace(esc("2^seedlen"), "2^seedlen^")
        out += [f"**{esc(step.capitalize())}.** {text}", ""]
        rows = []
        for name, val in ex["steps"][step].items():
            v = verdict((got or {}).get(step, {}).get(name), val, got, code)
            tally[0] += v == "same"
            tally[1] += 1
            rows.append([esc(name), code(hexgroups(val)), styled(v)])
        out += table(["value", "NIST", "recomputed"], [3, 7, 2], rows)
    if ex.get("returned") is not None:
        v = verdict((got or {}).get("OUTPUT", {}).get("ReturnedBits"), ex["returned"],
                    got, code)
        tally[0] += v == "same"
        tally[1] += 1
        out += table(["output", "NIST", "recomputed"], [3, 7, 2],
                     [["ReturnedBits", code(hexgroups(ex["returned"])), styled(v)]])
    return out


def example_md(ex, esc, code, notes):
    anchor = f"worked-{ex['mech'].lower().replace('_', '-')}-{ex['file'].replace('_', '-')}"
    pr = ", prediction resistance" if ex.get("pr") else ""
    out = [f"## {esc(ex['mech'])}, {esc(ex['section'])}{pr} {{- #{anchor}}}", ""]
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
           "First a seeding the kernel did in the last run, taken apart "
           "byte by byte and recomputed on the host; then four NIST CAVS "
           "records (HMAC_DRBG, Hash_DRBG, CTR_DRBG, and one with prediction "
           "resistance) traced through instantiate, reseed and two generate "
           "calls, with NIST's intermediate values "
           "(`vectors/cavs-intermediate/`) and, beside each, the value the "
           "host model computed (`python3 -m harness examples`, before the "
           "book is rendered).", ""]
    data = files.read_json(os.path.join(ctx["top"], DATA))
    if data is None:
        notes.append(f"{DATA} is missing: run 'python3 -m harness examples' (make book does)")
        return "\n".join(out + ["::: placeholder", f"No data: {code(DATA)} is missing.",
                                ":::", ""]) + "\n", notes
    out += traced_md(data.get("traced") or {"missing": "no traced seeding in the data"},
                     esc, code, notes)
    for ex in data.get("records", []):
        out += example_md(ex, esc, code, notes)
    return "\n".join(out) + "\n", notes


def ascii_or_hex(h, esc, code):
    b = bytes.fromhex(h)
    if b and all(32 <= c < 127 for c in b):
        return f"\"{esc(b.decode())}\" ({len(b)} bytes)"
    return code(hexgroups(h)) + f" ({len(b)} bytes)"


def seeding_rows(sd, what, esc, code):
    return [[f"{esc(what)}: `get_random_bytes()`", code(hexgroups(sd["grb"]))],
            [f"{esc(what)}: the Jitter RNG", code(hexgroups(sd["jent"]))],
            [f"{esc(what)}: the string", ascii_or_hex(sd["string"], esc, code)]]


def traced_md(t, esc, code, notes):
    """The kernel's own seeding of one instance, from the conform run."""
    out = ["## A seeding in the kernel {- #worked-trace}", ""]
    if t.get("missing"):
        if not t.get("no_run"):     # a run without the trace is an error
            notes.append(f"worked example: no traced seeding: {t['missing']}")
        return out + ["::: placeholder", f"No traced seeding: {esc(t['missing'])}.",
                      ":::", ""]
    ins, res = t["instantiate"], t.get("reseed")
    out += [f"In the run {code(str(t['run']))} (started {esc(str(t['started']))}, "
            f"kernel {code(str(t['kernel']))}, accelerator {esc(str(t['accel']))}), "
            f"the guest's `/init` asked the test-only file "
            f"`/sys/kernel/debug/drbg_cavp/trace` to instantiate "
            f"{code(t['driver'])} with the real Jitter RNG, reseed it and generate "
            f"({code(t['log'])}).  The kernel's update function received these "
            f"bytes: {ins['part']} from each source (the strength $s$ and the nonce's "
            f"$s/2$), then the personalization string; at the reseed "
            f"{res['part'] if res else '?'} from each, then the additional input "
            "([DRBG seeding](#drbg-seeding)).", ""]
    rows = seeding_rows(ins, "instantiate", esc, code)
    if res:
        rows += seeding_rows(res, "reseed", esc, code)
    out += table(["part", "bytes (hex)"], [4, 7], rows)
    bad = [w for w, sd in (("instantiate", ins), ("reseed", res)) if sd and
           sd["string"] != sd["string_given"]]
    if bad:
        notes.append(f"worked example: the traced {', '.join(bad)} does not end with "
                     "the string given")
    ks, ms = t.get("kernel_state") or {}, t["model_state"]
    out += ["**Instantiate** (SP 800-90A 10.1.2.3): the host model runs "
            "HMAC_DRBG_Update on the whole seed material above, from Key = 0x00…00 "
            "and V = 0x01…01.", ""]
    srows = []
    for k in ("V", "Key"):
        kv, mv = ks.get(k), ms.get(k)
        verdict = ("[same]{.st .st-pass}" if kv and kv == mv else
                   "[differs]{.st .st-fail}" if kv else "[not returned]{.st .st-notrun}")
        if kv and kv != mv:
            notes.append(f"worked example: the kernel's {k} after instantiation differs "
                         "from the host model's")
        srows.append([k, code(hexgroups(kv)) if kv else "–", code(hexgroups(mv)), verdict])
    out += table(["value", "the kernel, after instantiation", "the host model", ""],
                 [2, 5, 5, 2], srows)
    same = t["out"] == t["model_out"]
    if not same:
        notes.append("worked example: the traced output differs from the host model's")
    out += ["", "**Reseed and generate**: the model reseeds with the second seeding "
            "and generates as many bytes as the kernel did.", ""]
    out += table(["output", "bytes (hex)", ""], [3, 8, 2],
                 [["the kernel", code(hexgroups(t["out"])), ""],
                  ["the host model", code(hexgroups(t["model_out"])),
                   "[same]{.st .st-pass}" if same else "[differs]{.st .st-fail}"]])
    return out
