# SPDX-License-Identifier: GPL-2.0-only
"""What the guest must run for a set of ACVP prompts: one pack entry per
test case the registration claims, each with the host model's answer,
every other test case listed with the reason it is not applicable, and
the probes that hold the registration against what the kernel accepts.

Work(reg, derivation, kernel).add_set(vs, expected, server) takes a parsed
prompt (acvp_parse.py); Work.add_probes() adds the probes; Work.entries is
the pack's list and Work.meta the plain data acvp_judge.py needs.

The probes, for each of the instances the registration covers:

- "min": every length at the least the registration claims (entropy,
  nonce, returnedBitsLen at their minimum, no personalization string, no
  additional input): accepted, and the output is the model's;
- "max": every length at the most it claims: accepted, model's output;
- "past-max": every length a byte more (each maximum is ACVP's, not the
  kernel's): accepted too, model's output;
- "out-max": an output of the test interface's largest size: accepted;
- "out-over", "out-zero": one byte more, and none: refused by write();

and once: a request of the interface's largest size (accepted) and one
byte longer (refused), and the conditioning hash on the shortest and the
longest message the registration claims (the model's digests).
"""

import errno
import hashlib
import re

from . import acvp_pack as pk
from . import acvp_reg
from .cavs_pack import FLAG_PR, FLAG_RESEED


def slug(text):
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def filler(label, n):
    """n reproducible bytes for a probe's strings."""
    return hashlib.shake_256(label.encode()).digest(n) if n else b""


def drbg_strings(tc):
    f = tc["flow"]
    reseed = f["reseed"] or (b"", b"")
    return [tc["entropyInput"], tc["nonce"], tc["persoString"], reseed[1], reseed[0],
            f["additional"][0], f["additional"][1], f["entropy_pr"][0],
            f["entropy_pr"][1]]


def group_title(vs, g):
    if vs["family"] == "sha3":
        extra = f", {g['mctVersion']}" if g["testType"] == "MCT" else ""
        return f"{vs['algorithm']} {vs['revision']} test group {g['tgId']}: " \
               f"{g['testType']}{extra}"
    return (f"{vs['algorithm']} {vs['revision']} test group {g['tgId']}: {g['mode']}"
            f"{' with df' if g['derFunc'] else ''}, predResistance "
            f"{str(g['predResistance']).lower()}, reSeed {str(g['reSeed']).lower()}, "
            f"{g['returnedBitsLen']} bits")


class Work:
    def __init__(self, reg, derivation, kernel):
        self.reg, self.kernel = reg, kernel
        self.cores = {(d["algorithm"], d["mode"]): d["core"] for d in derivation["drbg"]}
        self.bounds = {d["core"]: d["bounds"] for d in derivation["drbg"]
                       if d["revision"] != "1.0"}
        self.entries = []
        self.meta = {"sets": [], "probes": [], "entries": []}

    def add(self, entry, info):
        kind, payload = entry
        ans = pk.model_answer(kind, payload)
        info = dict(info, kind=pk.KINDS[kind], bytes=len(payload),
                    model=[a.hex() for a in ans] if isinstance(ans, list)
                    else ans.hex() if ans is not None else None)
        self.entries.append(entry)
        self.meta["entries"].append(info)
        return len(self.entries) - 1

    # -- the vector sets -------------------------------------------------------

    def add_set(self, vs, name, expected=None, server=None):
        obj = acvp_reg.find(self.reg, vs["algorithm"], vs["revision"])
        s = {"name": name, "slug": slug(name), "path": vs["path"],
             "algorithm": vs["algorithm"], "revision": vs["revision"],
             "vsId": vs["vsId"], "isSample": vs["isSample"], "family": vs["family"],
             "groups": [], "expected": expected is not None, "server": server}
        for g in vs["groups"]:
            grp = {"tgId": g["tgId"], "testType": g["testType"],
                   "title": group_title(vs, g), "tests": [], "na": {}}
            if g["testType"] == "MCT":
                grp["mctVersion"] = g["mctVersion"]
            why = acvp_reg.claim_drbg(obj, g) if vs["family"] == "drbg" else None
            for t in g["tests"]:
                reason = why or (acvp_reg.claim_sha3(obj, g["testType"], t,
                                                    g.get("mctVersion"))
                                 if vs["family"] == "sha3" else None)
                if reason:
                    grp["na"].setdefault(reason, []).append(t["tcId"])
                    continue
                info = {"set": name, "tgId": g["tgId"], "tcId": t["tcId"],
                        "expected": None}
                if expected is not None and t["tcId"] in expected:
                    e = expected[t["tcId"]]
                    info["expected"] = [x.hex() for x in e] if isinstance(e, list) \
                        else e.hex()
                grp["tests"].append(self.add(self.entry(vs, g, t), info))
            s["groups"].append(grp)
        self.meta["sets"].append(s)
        return s

    def entry(self, vs, g, t):
        if vs["family"] == "drbg":
            core = self.cores[(vs["algorithm"], g["mode"])]
            driver = ("drbg_pr_" if g["predResistance"] else "drbg_nopr_") + core
            flags = (FLAG_RESEED if t["flow"]["reseed"] else 0) | \
                (FLAG_PR if g["predResistance"] else 0)
            return pk.drbg_entry(driver, flags, g["returnedBitsLen"] // 8,
                                 drbg_strings(t))
        driver = self.kernel["sha3"]["driver"]
        if g["testType"] == "AFT":
            return pk.hash_entry(driver, t["msg"])
        if g["testType"] == "MCT":
            return pk.mct_entry(driver, g["mctVersion"], t["msg"])
        m = t["largeMsg"]
        return pk.ldt_entry(driver, m["content"], m["fullLength"] // 8)

    # -- the probes -------------------------------------------------------------

    def probe(self, pid, title, entry, expect, **kw):
        i = self.add(entry, {"probe": pid})
        self.meta["probes"].append(dict(kw, id=pid, title=title, entry=i, expect=expect))

    def probe_strings(self, core, pr, which):
        """The nine strings and the output length of a probe: every length
        at the registered "min" or "max", or a byte "past" the maximum."""
        b = self.bounds[core]
        n = {k: v["max"] // 8 + 1 if which == "past" else v[which] // 8
             for k, v in b.items()}
        e, a = n["entropyInputLen"], n["additionalInputLen"]
        label = f"{core}.{pr}.{which}."
        s = [filler(label + "e", e), filler(label + "n", n["nonceLen"]),
             filler(label + "p", n["persoStringLen"]),
             b"" if pr else filler(label + "er", e), b"" if pr else filler(label + "ar", a),
             filler(label + "a1", a), filler(label + "a2", a),
             filler(label + "pr1", e) if pr else b"", filler(label + "pr2", e) if pr else b""]
        return s, n["returnedBitsLen"]

    def add_probes(self):
        iface = self.kernel["interface"]
        for driver in self.kernel["drbg"]["instances"]:
            pr = driver.startswith("drbg_pr_")
            core = driver.split("_", 2)[2]
            if core not in self.bounds:
                continue
            flags = FLAG_PR if pr else FLAG_RESEED
            for which in ("min", "max"):
                s, out = self.probe_strings(core, pr, which)
                self.probe(f"{driver}.{which}", f"every length at the registered {which}",
                           pk.drbg_entry(driver, flags, out, s), "model", driver=driver)
            # Every maximum is ACVP's, not the kernel's: a byte more is taken.
            if all(v["max_by"] != "kernel" for v in self.bounds[core].values()):
                s, out = self.probe_strings(core, pr, "past")
                self.probe(f"{driver}.past-max", "every length a byte past the registered "
                           "maximum, which ACVP sets", pk.drbg_entry(driver, flags, out, s),
                           "model", driver=driver)
            s, _ = self.probe_strings(core, pr, "min")
            for pid, out, expect in (("out-max", iface["max_out"], "accept"),
                                     ("out-over", iface["max_out"] + 1, -errno.EINVAL),
                                     ("out-zero", 0, -errno.EINVAL)):
                self.probe(f"{driver}.{pid}", f"an output of {out} bytes",
                           pk.drbg_entry(driver, flags, out, s, probe=True), expect,
                           driver=driver)
        self.request_probes()
        self.hash_probes()

    def request_probes(self):
        iface = self.kernel["interface"]
        driver = self.kernel["drbg"]["instances"][-1]
        core = driver.split("_", 2)[2]
        s, out = self.probe_strings(core, driver.startswith("drbg_pr_"), "min")
        flags = FLAG_PR if driver.startswith("drbg_pr_") else FLAG_RESEED
        fill = iface["max_request"] - iface["header"] - sum(map(len, s)) + len(s[2])
        for pid, n, expect in (("request-max", fill, "accept"),
                               ("request-over", fill + 1, -errno.EMSGSIZE)):
            s[2] = filler("request", n)
            self.probe(f"request.{pid}", f"a request of {iface['header'] + sum(map(len, s))}"
                       " bytes", pk.drbg_entry(driver, flags, out, s, probe=True), expect,
                       driver=driver)

    def hash_probes(self):
        h = self.kernel["sha3"]
        obj = next((a for a in acvp_reg.algorithms(self.reg)
                    if a["algorithm"] == acvp_reg.acvp_hash_name(h["name"]) and
                    "messageLength" in a), None)
        if obj is None:
            return
        for which, bits in (("min", obj["messageLength"][0]["min"]),
                            ("max", obj["messageLength"][0]["max"])):
            self.probe(f"{h['name']}.{which}", f"a message of {bits} bits",
                       pk.hash_entry(h["driver"], filler("msg", bits // 8)), "model",
                       driver=h["driver"])
