# SPDX-License-Identifier: GPL-2.0-only
"""The ACVP registration of the patched kernel, and which test groups it
claims.

ACVP's own rules come from its specification, which the project keeps in
vectors/acvp/spec/ (usnistgov/ACVP): the table of supported DRBG values
(drbg/05-capabilities.adoc, [[supported_values]]: per algorithm, mode and
derivation function the maximum security strength, the minimum and
maximum lengths), the maximum returnedBitsLen, the supported
algorithm/revision pairs (drbg/03-supported.adoc, sha3/03-supported.adoc)
and the SHA-3 capability grid (sha3/05-capabilities.adoc).  The kernel's
side comes from acvp_kernel.derive().  registration() intersects the two:
every bound of every capability says which of them set it.

claim_drbg() and claim_sha3() say whether the registration covers a test
group (or test case) of a prompt, and if not, why: a prompt made for
another registration (NIST's samples ask for every mode the server knows)
is answered only where this one claims it.
"""

import re

from ..base import config

SPEC = config.top("vectors/acvp/spec")
ALGORITHMS = {"HASH": "hashDRBG", "HMAC": "hmacDRBG", "CTR": "ctrDRBG"}


class SpecError(Exception):
    """The ACVP specification does not say what the registration needs."""


def _read(spec_dir, rel):
    try:
        with open(f"{spec_dir}/{rel}", encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        raise SpecError(f"{config.display(spec_dir)}/{rel}: {e.strerror}")


def _table(text, anchor, rel):
    """The rows (lists of cells) of the AsciiDoc table after anchor."""
    start = text.find(anchor)
    if start < 0:
        raise SpecError(f"{rel}: no table {anchor}")
    body = text[text.index("|===", start) + 4:]
    body = body[:body.index("|===")]
    rows = [[c.strip() for c in ln.strip().strip("|").split("|")]
            for ln in body.splitlines() if ln.strip().startswith("|")]
    return rows[1:]     # the first row is the header


def spec_rules(spec_dir=SPEC):
    """ACVP's limits for the DRBGs and SHA3, read from the specification."""
    rel = "drbg/05-capabilities.adoc"
    text = _read(spec_dir, rel)
    drbg = {}
    for cells in _table(text, "[[supported_values]]", rel):
        alg, mode, df, strength, min_e, max_e, max_p, max_a, min_n, max_n, min_r = cells
        drbg[(alg, mode.strip('"'), df == "TRUE")] = {
            "strength": int(strength), "min_entropy": int(min_e), "max_entropy": int(max_e),
            "max_perso": int(max_p), "max_addl": int(max_a), "min_nonce": int(min_n),
            "max_nonce": int(max_n), "min_returned": int(min_r)}
    m = re.search(r"^\| returnedBitsLen \|.*Max: (\d+)\.", text, re.M)
    if not m or not drbg:
        raise SpecError(f"{rel}: no supported values or no returnedBitsLen maximum")
    supported = re.findall(r"^\* (\w+) / ([\w.-]+)$",
                           _read(spec_dir, "drbg/03-supported.adoc"), re.M)
    sha3_sup = re.findall(r"^\* (SHA3-\d+) / null / ([\w.]+)$",
                          _read(spec_dir, "sha3/03-supported.adoc"), re.M)
    rel3 = "sha3/05-capabilities.adoc"
    text3 = _read(spec_dir, rel3)
    sha3 = {}
    for cells in _table(text3, "[[property_grid]]", rel3):
        if cells[0].startswith("SHA3-") and len(cells) == 8:
            alg, rev, in_bit, in_empty, _, _, msg_len, ldt = cells
            lm = re.search(r'"Max": (\d+)', msg_len)
            sha3[(alg, rev)] = {
                "max_message": int(lm.group(1)) if lm else None,
                "in_bit": bool(in_bit), "in_empty": bool(in_empty),
                "ldt_gib": [int(x) for x in re.findall(r"\d+", ldt)]}
    gib = re.search(r"1GiB is equivalent to 2\^(\d+) bytes", text3)
    mx = re.search(r"Minimum allowed is 0, maximum allowed is (\d+)\.", text3)
    if not sha3 or not gib or not mx:
        raise SpecError(f"{rel3}: no SHA3 grid, GiB definition or message maximum")
    return {"drbg": drbg, "returned_max": int(m.group(1)),
            "drbg_revisions": supported, "sha3": sha3, "sha3_revisions": sha3_sup,
            "gib": 1 << int(gib.group(1)), "sha3_max_message": int(mx.group(1))}


def acvp_hash_name(kernel_name):
    """The kernel's hash names in ACVP's spelling: sha1 -> SHA-1,
    sha256 -> SHA2-256, sha3-256 -> SHA3-256, hmac(sha512) -> SHA2-512."""
    name = re.sub(r"^hmac\((.*)\)$", r"\1", kernel_name)
    if name == "sha1":
        return "SHA-1"
    m = re.fullmatch(r"sha(\d+)", name) or re.fullmatch(r"sha3-(\d+)", name)
    if not m:
        return None
    return ("SHA3-" if "-" in name else "SHA2-") + m.group(1)


def acvp_mode(core):
    if core["type"] == "CTR":
        if core["backend"] != "aes":
            return None
        return f"AES-{8 * (core['statelen'] - core['blocklen'])}"
    return acvp_hash_name(core["backend"])


def domain(lo, hi, inc=8):
    return [{"min": lo, "max": hi, "increment": inc}]


def in_domain(value, dom):
    """value is in an ACVP domain (a list of ranges and literal values)."""
    for d in dom:
        if isinstance(d, int) and value == d:
            return True
        if isinstance(d, dict) and d["min"] <= value <= d["max"] and \
                (value - d["min"]) % max(d.get("increment") or 1, 1) == 0:
            return True
    return False


def _bound(kernel_value, acvp_value, lower):
    """(value, which side set it) of a bound both sides limit."""
    if kernel_value == acvp_value:
        return acvp_value, "both"
    if acvp_value > kernel_value if lower else acvp_value < kernel_value:
        return acvp_value, "ACVP"
    return kernel_value, "kernel"


def drbg_capability(core, rule, kernel, revision, rules):
    """One capability object and where each of its bounds came from."""
    d, iface = kernel["drbg"], kernel["interface"]
    s = 8 * core["strength_bytes"]
    # All nine strings of a request at once must fit the interface.
    budget = 8 * ((iface["max_request"] - iface["header"]) // 9)
    addtl_max = min(8 * d["max_addtl_bytes"], budget)
    out_max = min(8 * d["max_request_bytes"], 8 * iface["max_out"])
    spec = {
        "entropyInputLen": (_bound(s, rule["min_entropy"], True),
                            _bound(budget, rule["max_entropy"], False)),
        "nonceLen": (_bound(s // 2, rule["min_nonce"], True),
                     _bound(budget, rule["max_nonce"], False)),
        "persoStringLen": ((0, "kernel"), _bound(addtl_max, rule["max_perso"], False)),
        "additionalInputLen": ((0, "kernel"), _bound(addtl_max, rule["max_addl"], False)),
        "returnedBitsLen": (_bound(8, rule["min_returned"], True),
                            _bound(out_max, rules["returned_max"], False))}
    cap = {"mode": acvp_mode(core), "derFuncEnabled": core["type"] == "CTR"}
    bounds = {}
    for key, ((lo, lo_by), (hi, hi_by)) in spec.items():
        bounds[key] = {"min": lo, "min_by": lo_by, "max": hi, "max_by": hi_by}
        cap[key] = domain(lo, hi)
    if revision == "1.0":
        cap["returnedBitsLen"] = spec["returnedBitsLen"][1][0]
    if core["type"] == "CTR" and revision != "1.0":
        cap["counterFieldLen"] = 8 * core["blocklen"]
    return cap, bounds


def drbg_algorithms(kernel, rules):
    """The DRBG algorithm objects, and the derivation of every bound."""
    out, derivation = [], []
    d = kernel["drbg"]
    for kind, algorithm in ALGORITHMS.items():
        cores = [c for c in d["cores"] if c["type"] == kind and c["built"]]
        for alg, revision in rules["drbg_revisions"]:
            if alg != algorithm or not cores:
                continue
            caps = []
            for c in cores:
                mode = acvp_mode(c)
                rule = rules["drbg"].get((algorithm, mode, kind == "CTR"))
                if rule is None:
                    raise SpecError(f"{c['source']}: core {c['cra_name']} is {algorithm} "
                                    f"{mode}, which ACVP's supported values do not list")
                if rule["strength"] != 8 * c["strength_bytes"]:
                    raise SpecError(f"{c['strength_source']}: {c['cra_name']} has "
                                    f"{8 * c['strength_bytes']} bits of strength, ACVP "
                                    f"says {rule['strength']} for {mode}")
                cap, bounds = drbg_capability(c, rule, kernel, revision, rules)
                caps.append(cap)
                derivation.append({"algorithm": algorithm, "revision": revision,
                                   "mode": mode, "core": c["cra_name"],
                                   "instances": [f"drbg_pr_{c['cra_name']}",
                                                 f"drbg_nopr_{c['cra_name']}"],
                                   "strength": 8 * c["strength_bytes"],
                                   "source": c["source"], "bounds": bounds})
            out.append({"algorithm": algorithm, "revision": revision,
                        "predResistanceEnabled": list(d["prediction_resistance"]),
                        "reseedImplemented": d["reseed"], "capabilities": caps})
    return out, derivation


def sha3_algorithms(kernel, rules):
    """SHA3 algorithm objects for the Jitter RNG's conditioning hash."""
    h = kernel["sha3"]
    name = acvp_hash_name(h["name"])
    if not (h["built"] and h["af_alg_hash"]):
        return [], [f"{name}: not registered: the test kernel's .config lacks "
                    "CONFIG_CRYPTO_SHA3=y or CONFIG_CRYPTO_USER_API_HASH=y"]
    ldt = [n for n in (rules["sha3"].get((name, "2.0")) or {}).get("ldt_gib", [])
           if n * rules["gib"] <= h["update_max_bytes"]]
    max_bits = min(rules["sha3_max_message"], 8 * h["update_max_bytes"])
    out = []
    for alg, revision in rules["sha3_revisions"]:
        if alg != name:
            continue
        obj = {"algorithm": name, "revision": revision}
        if revision == "1.0":
            obj.update(inBit=False, inEmpty=True)
        else:
            obj["messageLength"] = domain(0, max_bits)
        obj["performLargeDataTest"] = ldt
        out.append(obj)
    return out, []


def registration(kernel, rules):
    """(ACVP registration, derivation notes) of the patched kernel."""
    drbg, derivation = drbg_algorithms(kernel, rules)
    sha3, notes = sha3_algorithms(kernel, rules)
    reg = [{"acvVersion": "1.0"}, {"isSample": False, "algorithms": drbg + sha3}]
    return reg, {"drbg": derivation, "notes": notes}


def algorithms(reg):
    return reg[1]["algorithms"]


def find(reg, algorithm, revision):
    return next((a for a in algorithms(reg) if a["algorithm"] == algorithm and
                 a["revision"] == revision), None)


def claim_drbg(obj, g):
    """None when the registration object obj claims DRBG test group g
    (a dict of the group's fields), else the reason it does not."""
    modes = [c["mode"] for c in obj["capabilities"]]
    cap = next((c for c in obj["capabilities"] if c["mode"] == g["mode"] and
                c["derFuncEnabled"] == bool(g.get("derFunc"))), None)
    if cap is None:
        if g["mode"] in modes:
            return (f"{obj['algorithm']} {g['mode']} without a derivation function: "
                    "crypto/drbg.c always uses Block_Cipher_df (drbg_ctr_update() "
                    "calls drbg_ctr_df() on every seeding)")
        return (f"mode {g['mode']}: crypto/drbg.c's drbg_cores[] has no such "
                f"{obj['algorithm']} core (registered: {', '.join(modes)})")
    if g["predResistance"] not in obj["predResistanceEnabled"]:
        return f"predResistance {g['predResistance']} is not registered"
    if g["reSeed"] and not obj["reseedImplemented"]:
        return "reseed is not registered"
    for key in ("entropyInputLen", "nonceLen", "persoStringLen", "additionalInputLen"):
        if not in_domain(g[key], cap[key]):
            return f"{key} {g[key]} is outside the registered {cap[key]}"
    r = cap["returnedBitsLen"]
    if not (g["returnedBitsLen"] == r if isinstance(r, int) else
            in_domain(g["returnedBitsLen"], r)):
        return f"returnedBitsLen {g['returnedBitsLen']} is not the registered {r}"
    if "counterFieldLen" in cap and g.get("counterFieldLen") != cap["counterFieldLen"]:
        return (f"counterFieldLen {g.get('counterFieldLen')}: the kernel's counter is "
                f"the whole block, {cap['counterFieldLen']} bits")
    return None


def claim_sha3(obj, test_type, t, mct_version=None):
    """None when obj claims the SHA3 test case t, else why not."""
    if test_type == "LDT":
        m = t["largeMsg"]
        gib = m["fullLength"] / 8 / (1 << 30)
        if m["expansionTechnique"] != "repeating":
            return f"expansion technique {m['expansionTechnique']!r} is not 'repeating'"
        if m["contentLength"] % 8 or m["fullLength"] % 8:
            return ("a large message that is not a whole number of bytes: the kernel "
                    "hashes whole bytes")
        if gib not in obj.get("performLargeDataTest", []):
            return (f"a message of {gib:g} GiB: one kernel hash update takes at most "
                    f"2^32 - 1 bytes (crypto_sha3_update(): unsigned int len); registered: "
                    f"{obj.get('performLargeDataTest')} GiB")
        return None
    if t["len"] % 8:
        return ("a message of a length in bits that is not a whole number of bytes: "
                "the kernel hashes whole bytes (crypto_sha3_update() takes a byte count)")
    if test_type == "MCT" and mct_version not in (None, "standard", "alternate"):
        return f"mctVersion {mct_version!r} is not known"
    if test_type == "MCT" and t["len"] == 0:
        return "an MCT seed of 0 bits"
    if "messageLength" in obj and not in_domain(t["len"], obj["messageLength"]):
        return f"a message length outside the registered {obj['messageLength']}"
    return None
