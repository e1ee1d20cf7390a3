# SPDX-License-Identifier: GPL-2.0-only
"""The data of the book's worked example: NIST CAVS records traced through
instantiate, reseed and two generate calls, NIST's intermediate values
(vectors/cavs-intermediate/) and, beside each, the value the host model
(drbg_model.py, through run_request() as the kernel's test mode runs the
record) computes.  The verb `examples` writes it to
build/book-data/worked-example.json; the book draws the chapter from that
file and never runs the model itself.
"""

import os

from ..base import config, files
from . import drbg_model

OUT = config.build("book-data/worked-example.json")

RECORDS = [
    # mechanism, file, section, why this one
    ("HMAC_DRBG", "pr_false", "SHA-256",
     "HMAC_DRBG with SHA-256 (security strength 256 bits), with a "
     "personalization string, a reseed and additional input on every call"),
    ("CTR_DRBG", "pr_false", "AES-256 use df",
     "CTR_DRBG with AES-256 and the derivation function, as the kernel's "
     "drbg_nopr_ctr_aes256 runs it"),
]

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


def driver_of(mech, section, pr):
    """("HMAC_DRBG", "SHA-256", False) -> "drbg_nopr_hmac_sha256"."""
    alg = section.split()[0].lower().replace("-", "")
    core = {"HMAC_DRBG": "hmac_", "Hash_DRBG": "", "CTR_DRBG": "ctr_"}[mech] + alg
    return f"drbg_{'pr' if pr else 'nopr'}_{core}"


def recompute(model, mech, section, params, rec):
    """{step: {name: hex}} from the host model, with "OUTPUT"."""
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


def example(mech, fname, section, why):
    """One record of the worked example, NIST's values and the model's."""
    path = config.top("vectors/cavs-intermediate", fname, f"{mech}.txt")
    ex = {"mech": mech, "file": fname, "section": section, "why": why,
          "src": f"{fname}/{mech}.txt", "driver": driver_of(mech, section, False)}
    if not os.path.exists(path):
        return dict(ex, missing=config.display(path))
    params, rec = pick(parse(path), section)
    if rec is None:
        return dict(ex, missing=f"section [{section}] of {config.display(path)}")
    try:
        got, error = recompute(drbg_model, mech, section, params, rec), None
    except Exception as e:       # shown in the book as "not recomputed"
        got, error = None, f"{type(e).__name__}: {e}"
    return dict(ex, params=params, count=rec["COUNT"],
                inputs=[[k, rec[k]] for k in INPUTS if k in rec],
                adds=[list(a) for a in rec["_adds"]], order=rec["_order"],
                steps=rec["_steps"], returned=rec.get("ReturnedBits"),
                recomputed=got, error=error)


def write(out=OUT):
    data = {"model": "harness/judges/drbg_model.py, run_request()",
            "records": [example(*r) for r in RECORDS]}
    files.write_json(out, data)
    return out
