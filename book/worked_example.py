# SPDX-License-Identifier: GPL-2.0-only
"""Hook: the worked example (one HMAC_DRBG and one CTR_DRBG record, step by step).

tools/book.py calls render(ctx) and puts the Markdown it returns after the
chapters.  ctx has "top" (the repository), "outdir" (build/book), "report"
(the last report.json, or None), and the helpers "esc" and "code".  It
returns (markdown, notes); each note is a build warning, so a note means
something is wrong, not merely absent.

The records and NIST's intermediate values (the working state after each
step) come from vectors/cavs-intermediate/.  Each value is recomputed by
the host model, conformance/host/drbg_model.py, when it exists: through its

    run_request(driver, flags_reseed, flags_pr, out_len, entropy, nonce,
                pers, entropy_reseed, addtl_reseed, addtl, entropy_pr, trace)

(the kernel's test-mode calling conventions; trace receives (step, state)
named as in NIST's files), or, if the model offers it instead, through

    book_trace(mechanism, section, record) -> {step: {name: hex}}

mechanism: "HMAC_DRBG" | "CTR_DRBG" | "Hash_DRBG"; section: the CAVS
section name ("SHA-256", "AES-256 use df"); record: the record's fields
as strings ({"EntropyInput": "...", "Nonce": "...", ...}, lowercase hex,
"" for an empty value, and "PredictionResistance": "False"/"True");
steps: "INSTANTIATE", "RESEED", "GENERATE (FIRST CALL)", "GENERATE (SECOND
CALL)", each {name: hex} with the names NIST uses for that mechanism (V and
Key for HMAC_DRBG and CTR_DRBG, V and C for Hash_DRBG), plus the step
"OUTPUT" with {"ReturnedBits": hex}.

Until then the chapter shows NIST's values and says, value by value, that
they were not recomputed.  The model's absence is not an error.
"""

import importlib.util
import os

RECORDS = [
    # mechanism, file, section, why this one
    ("HMAC_DRBG", "pr_false", "SHA-256",
     "HMAC_DRBG with SHA-256 (security strength 256 bits), with a "
     "personalization string, a reseed and additional input on every call"),
    ("CTR_DRBG", "pr_false", "AES-256 use df",
     "CTR_DRBG with AES-256 and the derivation function, as the kernel's "
     "drbg_nopr_ctr_aes256 runs it"),
]

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

INPUTS = ["EntropyInput", "Nonce", "PersonalizationString", "EntropyInputReseed",
          "AdditionalInputReseed"]


def parse(path):
    """[(section, params, record)] of an intermediate-value file."""
    out = []
    section, params, rec, step = None, {}, None, None
    with open(path, encoding="utf-8", errors="replace") as f:
        for raw in f:
            line = raw.rstrip("\r\n")
            if line.startswith("[") and line.endswith("]"):
                body = line[1:-1]
                if "=" in body:
                    k, v = body.split("=", 1)
                    params[k.strip()] = v.strip()
                else:
                    section, params = body, {}
                continue
            if line.startswith("COUNT = "):
                rec = {"COUNT": line.split("=", 1)[1].strip(), "_steps": {},
                       "_order": [], "_adds": []}
                out.append((section, dict(params), rec))
                step = None
                continue
            if rec is None:
                continue
            if line.startswith("** "):
                step = line[3:].rstrip(":").strip()
                rec["_steps"][step] = {}
                rec["_order"].append(step)
                continue
            if line.startswith("\t") and step and "=" in line:
                k, v = line.strip().split("=", 1)
                rec["_steps"][step][k.strip()] = v.strip()
                continue
            if "=" in line:
                k, v = line.split("=", 1)
                k, v = k.strip(), v.strip()
                if k in ("AdditionalInput", "EntropyInputPR"):
                    rec["_adds"].append((k, v))
                else:
                    rec[k] = v
                step = None
    return out


def pick(records, section):
    for sec, params, rec in records:
        if sec == section and params.get("PersonalizationStringLen", "0") != "0" \
                and params.get("AdditionalInputLen", "0") != "0":
            return params, rec
    for sec, params, rec in records:
        if sec == section:
            return params, rec
    return None, None


def styled(verdict):
    """A verdict as the book's status labels show it."""
    if verdict == "same":
        return "[same]{.st .st-pass}"
    if verdict.startswith("**differs"):
        return "[differs]{.st .st-fail} " + verdict[len("**differs:** "):]
    return f"[{verdict}]{{.st .st-notrun}}"


def hexgroups(h):
    if not h:
        return "(empty)"
    return " ".join(h[i:i + 16] for i in range(0, len(h), 16))


def load_model(top):
    path = os.path.join(top, "conformance/host/drbg_model.py")
    if not os.path.exists(path):
        return None, "absent"
    spec = importlib.util.spec_from_file_location("drbg_model", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    if not (hasattr(mod, "book_trace") or hasattr(mod, "run_request")):
        return None, "no-hook"
    return mod, "ok"


def driver_of(mech, section, pr):
    """("HMAC_DRBG", "SHA-256", False) -> "drbg_nopr_hmac_sha256"."""
    alg = section.split()[0].lower().replace("-", "")
    core = {"HMAC_DRBG": "hmac_", "Hash_DRBG": "", "CTR_DRBG": "ctr_"}[mech] + alg
    return f"drbg_{'pr' if pr else 'nopr'}_{core}"


def recompute(model, mech, section, params, rec):
    """{step: {name: hex}} from the host model, with "OUTPUT"."""
    if hasattr(model, "book_trace"):
        fields = {k: v for k, v in rec.items() if not k.startswith("_")}
        fields["PredictionResistance"] = params.get("PredictionResistance", "False")
        fields["AdditionalInput"] = [v for k, v in rec["_adds"] if k == "AdditionalInput"]
        return model.book_trace(mech, section, fields)
    pr = params.get("PredictionResistance", "False") == "True"
    h = bytes.fromhex
    adds = [h(v) for k, v in rec["_adds"] if k == "AdditionalInput"]
    eprs = [h(v) for k, v in rec["_adds"] if k == "EntropyInputPR"]
    trace = []
    _, out2 = model.run_request(
        driver_of(mech, section, pr), "EntropyInputReseed" in rec, pr,
        int(params["ReturnedBitsLen"]) // 8, h(rec.get("EntropyInput", "")),
        h(rec.get("Nonce", "")), h(rec.get("PersonalizationString", "")),
        h(rec.get("EntropyInputReseed", "")), h(rec.get("AdditionalInputReseed", "")),
        adds, eprs, trace)
    steps = {name: {k: v.hex() for k, v in st.items() if isinstance(v, (bytes, bytearray))}
             for name, st in trace}
    steps["OUTPUT"] = {"ReturnedBits": bytes(out2).hex()}
    return steps


def render(ctx):
    esc, code = ctx["esc"], ctx["code"]
    top = ctx["top"]
    notes = []
    out = ["# A worked example {- #worked-example}", "",
           "Two NIST CAVS records, traced through instantiate, reseed and "
           "two generate calls, with NIST's intermediate values "
           "(`vectors/cavs-intermediate/`) and, beside each, the value the "
           "host model computes when the book is built.", ""]
    try:
        model, state = load_model(top)
    except Exception as e:      # the model is another helper's: report, go on
        model, state = None, "error"
        notes.append(f"conformance/host/drbg_model.py failed to load: "
                     f"{type(e).__name__}: {e}")
    if state != "ok":
        why = {"absent": "`conformance/host/drbg_model.py` is not in this tree yet",
               "no-hook": "`conformance/host/drbg_model.py` offers neither "
                          "`run_request()` nor `book_trace()`",
               "error": "`conformance/host/drbg_model.py` failed to load"}[state]
        out += ["::: placeholder",
                f"**Recomputation not yet available:** {why}.  The values below "
                "are NIST's, as published; none of them has been recomputed "
                "for this book, and the column *recomputed* says so.", ":::", ""]
    for mech, fname, section, why in RECORDS:
        path = os.path.join(top, "vectors/cavs-intermediate", fname, f"{mech}.txt")
        anchor = f"worked-{mech.lower().replace('_', '-')}"
        out += [f"## {esc(mech)}, {esc(section)} {{- #{anchor}}}", ""]
        if not os.path.exists(path):
            rel = os.path.relpath(path, top)
            out += ["::: placeholder", f"No intermediate values: {code(rel)} is missing.",
                    ":::", ""]
            continue
        params, rec = pick(parse(path), section)
        if rec is None:
            out += ["::: placeholder", f"No record of section {code(section)} in "
                    f"{code(os.path.relpath(path, top))}.", ":::", ""]
            continue
        got = None
        if model is not None:
            try:
                got = recompute(model, mech, section, params, rec)
            except Exception as e:
                notes.append(f"drbg_model: recomputing {mech} {section} failed: "
                             f"{type(e).__name__}: {e}")
                got = None
        src = f"{fname}/{mech}.txt"
        out += [f"{esc(why[:1].upper() + why[1:])}: record COUNT = {esc(rec['COUNT'])} of "
                f"section {code('[' + section + ']')} in "
                f"{code('vectors/cavs-intermediate/' + src)} "
                f"(entropy {esc(params.get('EntropyInputLen', '?'))} bits, nonce "
                f"{esc(params.get('NonceLen', '?'))} bits, output "
                f"{esc(params.get('ReturnedBitsLen', '?'))} bits).", "",
                "| input | value (hex) |", "|--|------|"]
        for k in INPUTS:
            if k in rec:
                out.append(f"| {esc(k)} | {code(hexgroups(rec[k]))} |")
        for i, (k, v) in enumerate(rec["_adds"]):
            out.append(f"| {esc(k)} (call {i + 1}) | {code(hexgroups(v))} |")
        out.append("")
        matches = total = 0
        for step in rec["_order"]:
            out += [f"**{esc(step.capitalize())}.** "
                    f"{esc(STEPS_TEXT.get(mech, {}).get(step, ''))}", "",
                    "| value | NIST | recomputed |", "|-|------|----|"]
            for name, val in rec["_steps"][step].items():
                total += 1
                mine = (got or {}).get(step, {}).get(name) if got else None
                if mine is None:
                    verdict = "not yet available" if got is None else "not computed"
                elif mine.lower() == val.lower():
                    verdict = "same"
                    matches += 1
                else:
                    verdict = f"**differs:** {code(hexgroups(mine))}"
                out.append(f"| {esc(name)} | {code(hexgroups(val))} | {styled(verdict)} |")
            out.append("")
        if "ReturnedBits" in rec:
            total += 1
            mine = (got or {}).get("OUTPUT", {}).get("ReturnedBits") if got else None
            verdict = ("not yet available" if got is None else "not computed"
                       if mine is None else "same" if mine.lower() ==
                       rec["ReturnedBits"].lower() else f"**differs:** {code(hexgroups(mine))}")
            if verdict == "same":
                matches += 1
            out += ["| output | NIST | recomputed |", "|-|------|----|",
                    f"| ReturnedBits | {code(hexgroups(rec['ReturnedBits']))} | "
                    f"{styled(verdict)} |", ""]
        if got is not None:
            how = ("`book_trace()`" if hasattr(model, "book_trace") else
                   f"`run_request()` as the kernel's {code(driver_of(mech, section, False))} "
                   "runs the record in test mode")
            out += [f"The host model (`conformance/host/drbg_model.py`, {how}) "
                    f"recomputed {matches} of {total} values identically.", ""]
            if matches != total:
                notes.append(f"worked example {mech} {section}: the host model agrees "
                             f"with NIST on {matches} of {total} values")
    return "\n".join(out) + "\n", notes
