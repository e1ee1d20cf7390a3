# SPDX-License-Identifier: GPL-2.0-only
"""What the ACVP tests share: the kernel excerpts, the registration
derived from them, small vector sets cut from NIST's samples, and the
result lines a guest would send."""

import copy
import json
import os
import shutil

from harness.base import config
from harness.judges import acvp_kernel, acvp_pack, acvp_reg

KERNEL = config.top("tests/data/acvp-kernel")
ACVP = config.top("vectors/acvp")
GUEST = config.top("conformance/guest")
CONFIG = ["CONFIG_CRYPTO_DRBG_CTR=y", "CONFIG_CRYPTO_DRBG_HASH=y",
          "CONFIG_CRYPTO_DRBG_HMAC=y", "CONFIG_CRYPTO_SHA3=y",
          "CONFIG_CRYPTO_USER_API_HASH=y", "CONFIG_CRYPTO_DRBG_CAVP_DEBUGFS=y"]


def derive(src=KERNEL, cfg=CONFIG):
    """(kernel facts, registration, derivation, rules) of a tree."""
    kernel = acvp_kernel.derive(src, cfg)
    rules = acvp_reg.spec_rules()
    reg, derivation = acvp_reg.registration(kernel, rules)
    return kernel, reg, derivation, rules


def tree_copy(tmp, edits=None):
    """A copy of the excerpts with edits {relative path: (old, new)}."""
    dest = os.path.join(tmp, "src")
    shutil.copytree(KERNEL, dest)
    for rel, (old, new) in (edits or {}).items():
        p = os.path.join(dest, rel)
        with open(p) as f:
            text = f.read()
        assert old in text, f"{rel}: {old!r} not found"
        with open(p, "w") as f:
            f.write(text.replace(old, new))
    return dest


def sample(name, part="prompt.json"):
    with open(os.path.join(ACVP, name, part)) as f:
        return json.load(f)


def small_set(name, groups=None, tests=2):
    """A prompt of NIST's sample with only some groups and test cases."""
    p = copy.deepcopy(sample(name))
    keep = [g for g in p["testGroups"] if groups is None or g["tgId"] in groups]
    for g in keep:
        g["tests"] = g["tests"][:tests]
    p["testGroups"] = keep
    return p


def cut_set(name, groups, tests):
    """(prompt, expectedResults, validation) of NIST's sample cut alike: the
    server's files of a vector set cover exactly its test cases."""
    prompt = small_set(name, groups, tests)
    keep = {t["tcId"] for g in prompt["testGroups"] for t in g["tests"]}
    exp = sample(name, "expectedResults.json")
    for g in exp["testGroups"]:
        g["tests"] = [t for t in g["tests"] if t["tcId"] in keep]
    exp["testGroups"] = [g for g in exp["testGroups"] if g["tests"]]
    val = sample(name, "validation.json")
    val["tests"] = [t for t in val["tests"] if t["tcId"] in keep]
    return prompt, exp, val


def write_set(d, name, prompt, expected=None, validation=None):
    os.makedirs(os.path.join(d, name), exist_ok=True)
    for part, data in (("prompt.json", prompt), ("expectedResults.json", expected),
                       ("validation.json", validation)):
        if data is not None:
            with open(os.path.join(d, name, part), "w") as f:
                json.dump(data, f, indent=1)
    return os.path.join(d, name)


def flip(hexstr):
    """hexstr with the low bit of its first byte flipped."""
    return f"{int(hexstr[:2], 16) ^ 1:02x}" + hexstr[2:]


def fake_results(meta, wrong=(), missing=()):
    """The result lines of a guest whose kernel answers as the model does,
    except entries in wrong (one flipped bit) and missing (no line)."""
    out = []
    for i, e in enumerate(meta["entries"]):
        if i in missing:
            continue
        if e["kind"] == "drbg-probe":
            p = next(p for p in meta["probes"] if p["entry"] == i)
            if isinstance(p["expect"], int):
                out.append({"type": "acvp", "i": i, "stage": "write", "err": p["expect"]})
            else:
                out.append({"type": "acvp", "i": i, "wrote": e["bytes"], "err": 0,
                            "step": 0})
            continue
        model = e["model"]
        if i in wrong:
            model = [flip(model[0])] + model[1:] if isinstance(model, list) \
                else flip(model)
        key = {"drbg": "out", "hash-mct": "mds"}.get(e["kind"], "md")
        val = "".join(model) if isinstance(model, list) else model
        out.append({"type": "acvp", "i": i, key: val, "err": 0, "step": 0})
        if e["kind"] == "drbg":
            # The same kernel through libkcapi (conform.kcapi=1): the same
            # answer (which entries AF_ALG's CAVP interface cannot carry
            # is kcapi_drbg.c's to say; tests/judges/test_kcapi.py).
            out.append({"type": "acvp_kcapi", "i": i, "out": val})
    out.append({"type": "acvp_done", "entries": len(meta["entries"]), "us": 1,
                "kcapi": True, "kcapi_us": 1})
    return out


def entries_of(meta, **match):
    return [i for i, e in enumerate(meta["entries"])
            if all(e.get(k) == v for k, v in match.items())]


def pack_kinds(path):
    with open(path, "rb") as f:
        return [k for k, _, _ in acvp_pack.read_pack(f.read())]
