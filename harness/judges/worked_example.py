# SPDX-License-Identifier: GPL-2.0-only
"""The data of the book's worked example.

First, a seeding the kernel really did: the trace record the guest made in
the conform run (boot "drbg", conformance/guest/drbg_trace.c, through the
test-only debugfs file drbg_cavp/trace) of one DRBG instance seeded from
get_random_bytes() and the real Jitter RNG, split into its parts, with the
kernel's own state right after instantiation and, beside it, the state the
host model (drbg_model.py) computes from the same bytes; then the reseed
and the output, recomputed the same way.

Then NIST CAVS records traced through instantiate, reseed and two generate
calls (HMAC_DRBG, Hash_DRBG, CTR_DRBG, and one with prediction
resistance), NIST's intermediate values (vectors/cavs-intermediate/) and,
beside each, the value the host model computes (run_request(), as the
kernel's test mode runs the record).  The verb `examples` writes all of it
to build/book-data/worked-example.json; the book draws the chapter from
that file and never runs the model itself.
"""

import os

from ..base import config, files, records
from . import drbg_model
from .seeds import STRENGTH

OUT = config.build("book-data/worked-example.json")

RECORDS = [
    # mechanism, file, section, why this one
    ("HMAC_DRBG", "pr_false", "SHA-256",
     "HMAC_DRBG with SHA-256 (security strength 256 bits), with a "
     "personalization string, a reseed and additional input on every call"),
    ("Hash_DRBG", "pr_false", "SHA-256",
     "Hash_DRBG with SHA-256 (seedlen 440 bits), as the kernel's "
     "drbg_nopr_sha256 runs it"),
    ("CTR_DRBG", "pr_false", "AES-256 use df",
     "CTR_DRBG with AES-256 and the derivation function, as the kernel's "
     "drbg_nopr_ctr_aes256 runs it"),
    ("HMAC_DRBG", "pr_true", "SHA-256",
     "HMAC_DRBG with SHA-256 and prediction resistance, as the kernel's "
     "drbg_pr_hmac_sha256 runs it: fresh entropy input before each generate"),
]

# The traced seeding: which instance, from which boot of the conform run.
TRACE_BOOT = "drbg"
TRACE_DRIVER = "drbg_nopr_hmac_sha256"
REPORT = config.build("conformance/report.json")

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
    steps = {name: {k: v.hex() if isinstance(v, (bytes, bytearray)) else str(v)
                    for k, v in st.items() if isinstance(v, (bytes, bytearray, int))}
             for name, st in trace}
    steps["OUTPUT"] = {"ReturnedBits": bytes(out2).hex()}
    return steps


def example(mech, fname, section, why):
    """One record of the worked example, NIST's values and the model's."""
    path = config.top("vectors/cavs-intermediate", fname, f"{mech}.txt")
    ex = {"mech": mech, "file": fname, "section": section, "why": why,
          "src": f"{fname}/{mech}.txt", "pr": fname == "pr_true",
          "driver": driver_of(mech, section, fname == "pr_true")}
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


def split_seed(driver, seed_hex, reseed, extra_hex):
    """The parts of one seeding: get_random_bytes(), the Jitter RNG, the
    string (3s/2 bytes each at instantiation, s at a reseed)."""
    core, _ = drbg_model.parse_driver(driver)
    s = STRENGTH[core]
    part = s if reseed else s + s // 2
    b = bytes.fromhex(seed_hex)
    return {"grb": b[:part].hex(), "jent": b[part:2 * part].hex(),
            "string": b[2 * part:].hex(), "string_given": extra_hex,
            "part": part}


def traced(report_path=REPORT, driver=TRACE_DRIVER, boot=TRACE_BOOT):
    """The traced seeding of the conform run, or {"missing": why}."""
    rep = files.read_json(report_path)
    if rep is None:
        return {"missing": f"{config.display(report_path)} does not exist (make conform)",
                "no_run": True}
    b = next((b for b in rep.get("boots", []) if b.get("name") == boot), None)
    if b is None or not b.get("results_log"):
        return {"missing": f"the run {rep.get('id', rep.get('started'))} has no boot {boot}"}
    log = b["results_log"]
    log = log if os.path.isabs(log) else os.path.join(os.path.dirname(os.path.dirname(
        os.path.dirname(os.path.abspath(report_path)))), log)
    recs = [r for r in records.read(log)
            if r.get("type") == "trace" and r.get("driver") == driver
            and not r.get("pattern") and not r.get("err")]
    if not recs:
        return {"missing": f"boot {boot} recorded no trace of {driver} with the real "
                "Jitter RNG"}
    r = recs[0]
    seeds = r["seeds"]
    core, _ = drbg_model.parse_driver(driver)
    mech = drbg_model.CORES[core]()
    mech.instantiate(bytes.fromhex(seeds[0]["hex"]), b"", b"")
    model_state = {k: v.hex() for k, v in mech.state().items() if isinstance(v, bytes)}
    kernel_state = {}
    if r.get("v"):
        kernel_state = {"V": r["v"][:2 * len(mech.state()["V"])],
                        "Key": r["c"][:2 * len(mech.state()["Key"])]}
    for x in seeds[1:]:
        mech.reseed(bytes.fromhex(x["hex"]), b"")
    out = mech.generate(len(r["out"]) // 2, None)
    return {"run": rep.get("id"), "started": rep.get("started"),
            "kernel": rep.get("kernel", {}).get("release"), "boot": boot,
            "accel": b.get("accel"), "driver": driver, "log": b["results_log"],
            "pers": r["pers"], "addtl": r["addtl"],
            "instantiate": split_seed(driver, seeds[0]["hex"], False, r["pers"]),
            "reseed": split_seed(driver, seeds[1]["hex"], True, r["addtl"])
            if len(seeds) > 1 else None,
            "kernel_state": kernel_state, "model_state": model_state,
            "out": r["out"], "model_out": out.hex()}


def write(out=OUT, report_path=REPORT):
    data = {"model": "harness/judges/drbg_model.py, run_request()",
            "traced": traced(report_path),
            "records": [example(*r) for r in RECORDS]}
    files.write_json(out, data)
    return out
