# SPDX-License-Identifier: GPL-2.0-only
"""What the patched kernel implements, read from its own sources: the
facts an ACVP registration is made of (acvp_reg.py turns them into one).

derive(src, config_lines) reads, in the kernel tree src (the cache tree
with the series applied):

- crypto/drbg.c: drbg_cores[] (each core's type, strength flag, state and
  block length, cra_name, backend, and the CONFIG_ option around it),
  drbg_sec_strength() (strength flag -> bytes), drbg_init() (every core
  registered twice: drbg_pr_<core>, then drbg_nopr_<core>),
  drbg_ctr_update() (Block_Cipher_df on every seeding; V incremented over
  the whole block), drbg_instantiate() (a second crypto_rng_reset() on an
  instantiated DRBG is a reseed);
- include/crypto/drbg.h: drbg_max_request_bytes(), drbg_max_addtl();
- crypto/drbg_cavp.c: the test interface's header length and its limits
  on a request and on one output (include/linux/sizes.h for SZ_*);
- crypto/jitterentropy-kcapi.c: the conditioning hash the Jitter RNG asks
  for; crypto/sha3_generic.c: that hash's generic driver, its digest size
  (include/crypto/sha3.h) and the type of its update's length;
- include/crypto/if_alg.h, crypto/algif_hash.c: how much of a message
  AF_ALG hands to one update.

config_lines: the test kernel's .config (or the fragment it is made
from): a core counts only when its CONFIG_ option is y.

Every fact carries "file:line" in result["sources"].  When a file no
longer says what the parser looks for, derive() raises KernelSourceError
naming the file and what is missing: the registration is never guessed.
"""

import ast
import os
import re

DRBG_C = "crypto/drbg.c"
DRBG_H = "include/crypto/drbg.h"
CAVP_C = "crypto/drbg_cavp.c"
SIZES_H = "include/linux/sizes.h"
JENT_C = "crypto/jitterentropy-kcapi.c"
SHA3_C = "crypto/sha3_generic.c"
SHA3_H = "include/crypto/sha3.h"
ALG_H = "include/crypto/if_alg.h"
ALGIF_HASH_C = "crypto/algif_hash.c"
PAGE_H = "arch/x86/include/asm/page_types.h"
# x86_64 is LP64: an unsigned int has 32 bits.
C_TYPE_BITS = {"unsigned int": 32, "u32": 32, "size_t": 64, "unsigned long": 64}
TYPES = {"DRBG_CTR": "CTR", "DRBG_HASH": "HASH", "DRBG_HMAC": "HMAC"}


class KernelSourceError(Exception):
    """A kernel source does not say what the derivation needs."""


class Source:
    """One file of the tree, with line numbers for what is found in it."""

    def __init__(self, src, rel):
        self.rel = rel
        try:
            with open(os.path.join(src, rel), encoding="utf-8", errors="replace") as f:
                self.text = f.read()
        except OSError as e:
            raise KernelSourceError(f"{rel}: cannot read it in {src}: {e.strerror}")

    def line(self, pos):
        return self.text.count("\n", 0, pos) + 1

    def where(self, pos):
        return f"{self.rel}:{self.line(pos)}"

    def find(self, regex, what, flags=0):
        m = re.search(regex, self.text, flags)
        if not m:
            raise KernelSourceError(f"{self.rel}: no {what} (the derivation looks for "
                                    f"/{regex[:80]}/)")
        return m

    def function(self, name):
        """(body, offset) of the C function name (to its closing brace in
        column 0)."""
        m = self.find(r"^[a-z][^\n;]*\b" + re.escape(name) + r"\([^;{]*\)\s*\n\{\n",
                      f"function {name}()", re.M)
        end = self.text.find("\n}\n", m.end())
        if end < 0:
            raise KernelSourceError(f"{self.rel}: function {name}() has no end")
        return self.text[m.start():end + 2], m.start()


def int_expr(text, names, where):
    """The value of a small C integer expression (literals, names, + - * /
    << >> and parentheses, suffixes U/UL dropped)."""
    text = re.sub(r"\b(0x[0-9a-fA-F]+|\d+)[uUlL]*\b", r"\1", text.strip())
    text = re.sub(r"_AC\((\w+),\s*\w+\)", r"\1", text)
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        raise KernelSourceError(f"{where}: {text!r} is not an integer expression")

    def ev(n):
        if isinstance(n, ast.Expression):
            return ev(n.body)
        if isinstance(n, ast.Constant) and isinstance(n.value, int):
            return n.value
        if isinstance(n, ast.Name) and n.id in names:
            return names[n.id]
        if isinstance(n, ast.BinOp):
            a, b = ev(n.left), ev(n.right)
            ops = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b,
                   ast.Mult: lambda: a * b, ast.Div: lambda: a // b,
                   ast.LShift: lambda: a << b, ast.RShift: lambda: a >> b}
            if type(n.op) in ops:
                return ops[type(n.op)]()
        raise KernelSourceError(f"{where}: cannot evaluate {text!r}")
    return ev(tree)


def defines(source, names=None):
    """{name: (value text, position)} of the #defines of a file."""
    out = {}
    for m in re.finditer(r"^#define[ \t]+(\w+)[ \t]+(.+?)\s*$", source.text, re.M):
        if names is None or m.group(1) in names:
            out[m.group(1)] = (m.group(2), m.start())
    return out


def config_values(lines):
    """{CONFIG_X: value} of .config lines ("# CONFIG_X is not set" -> "n")."""
    out = {}
    for ln in lines:
        m = re.match(r"^(CONFIG_\w+)=(.*)$", ln.strip())
        if m:
            out[m.group(1)] = m.group(2).strip('"')
        m = re.match(r"^# (CONFIG_\w+) is not set", ln.strip())
        if m:
            out[m.group(1)] = "n"
    return out


def parse_cores(drbg_c, config):
    """The entries of drbg_cores[], each with the #ifdef around it."""
    m = drbg_c.find(r"static const struct drbg_core drbg_cores\[\] = \{\n(.*?)\n\};",
                    "drbg_cores[] array", re.S)
    body, base = m.group(1), m.start(1)
    cores, option = [], None
    for tok in re.finditer(r"#ifdef (CONFIG_\w+)|#endif|\{(.*?)\}", body, re.S):
        if tok.group(1):
            option = tok.group(1)
        elif tok.group(0) == "#endif":
            option = None
        else:
            fields = dict(re.findall(r"\.(\w+)\s*=\s*([^,\n]+?),?\s*(?:/\*.*?\*/)?\s*$",
                                     tok.group(2), re.M))
            where = drbg_c.where(base + tok.start())
            need = ("flags", "statelen", "blocklen_bytes", "cra_name", "backend_cra_name")
            missing = [k for k in need if k not in fields]
            if missing:
                raise KernelSourceError(f"{where}: a drbg_cores[] entry without "
                                        f".{', .'.join(missing)}")
            flags = [f.strip() for f in fields["flags"].split("|")]
            kind = [TYPES[f] for f in flags if f in TYPES]
            strength = [f for f in flags if f.startswith("DRBG_STRENGTH")]
            if len(kind) != 1 or len(strength) != 1:
                raise KernelSourceError(f"{where}: flags {fields['flags']!r}: expected "
                                        "one type and one strength")
            cores.append({"cra_name": fields["cra_name"].strip('"'),
                          "backend": fields["backend_cra_name"].strip('"'),
                          "type": kind[0], "strength_flag": strength[0],
                          "statelen": int(fields["statelen"]),
                          "blocklen": int(fields["blocklen_bytes"]),
                          "option": option, "built": config.get(option) == "y",
                          "source": where})
    if not cores:
        raise KernelSourceError(f"{drbg_c.rel}: drbg_cores[] has no entry")
    return cores


def parse_strengths(drbg_c):
    body, off = drbg_c.function("drbg_sec_strength")
    out = {}
    for m in re.finditer(r"case (DRBG_STRENGTH\d+):\s*return (\d+);", body):
        out[m.group(1)] = (int(m.group(2)), drbg_c.where(off + m.start()))
    if not out:
        raise KernelSourceError(f"{drbg_c.rel}: drbg_sec_strength() maps no strength")
    return out


def returned_value(source, func, names):
    body, off = source.function(func)
    m = re.search(r"return\s+(.+?);", body)
    if not m:
        raise KernelSourceError(f"{source.rel}: {func}() returns nothing")
    where = source.where(off + m.start())
    return int_expr(m.group(1), names, where), where


def drbg_behaviour(drbg_c, sources):
    """The facts of drbg.c's code paths the registration rests on."""
    body, off = drbg_c.function("drbg_ctr_update")
    m = drbg_c.find(r"if \(seed\) \{\s*ret = drbg_ctr_df\(", "Block_Cipher_df call "
                    "in drbg_ctr_update()")
    if not off <= m.start() < off + len(body):
        raise KernelSourceError(f"{drbg_c.rel}: drbg_ctr_df() is not called by "
                                "drbg_ctr_update()")
    sources["ctr_df"] = drbg_c.where(m.start())
    m = drbg_c.find(r"crypto_inc\(drbg->V, drbg_blocklen\(drbg\)\)", "increment of V "
                    "over the whole block")
    sources["ctr_counter"] = drbg_c.where(m.start())
    body, off = drbg_c.function("drbg_instantiate")
    m = re.search(r"if \(!drbg->core\) \{.*?reseed = false;.*?drbg_seed\(drbg, pers, "
                  r"reseed\)", body, re.S)
    if not m:
        raise KernelSourceError(f"{drbg_c.rel}: drbg_instantiate() does not reseed an "
                                "instantiated DRBG")
    sources["reseed"] = drbg_c.where(off + m.start())
    pr = {}
    for flag in (1, 0):
        m = drbg_c.find(r"drbg_fill_array\(&drbg_algs\[i\], &drbg_cores\[j\], "
                        f"{flag}\\)", f"drbg_fill_array(..., {flag}) in drbg_init()")
        pr[flag] = drbg_c.where(m.start())
    prefixes = {}
    for name in ("drbg_pr_", "drbg_nopr_"):
        m = drbg_c.find(r'"' + name + r'"', f"the prefix {name}")
        prefixes[name] = drbg_c.where(m.start())
    sources["prediction_resistance"] = f"{pr[1]}, {pr[0]}"
    return {"ctr_derivation_function": True, "reseed": True,
            "prediction_resistance": [True, False]}


def interface(src, sources):
    """The debugfs test interface's limits (crypto/drbg_cavp.c)."""
    sizes = {k: int(v[0], 0) for k, v in defines(Source(src, SIZES_H)).items()
             if re.fullmatch(r"0x[0-9a-fA-F]+|\d+", v[0])}
    cavp = Source(src, CAVP_C)
    d = defines(cavp, {"DRBG_CAVP_HDR", "DRBG_CAVP_MAX_REQ", "DRBG_CAVP_MAX_OUT"})
    out = {}
    for key, name in (("header", "DRBG_CAVP_HDR"), ("max_request", "DRBG_CAVP_MAX_REQ"),
                      ("max_out", "DRBG_CAVP_MAX_OUT")):
        if name not in d:
            raise KernelSourceError(f"{CAVP_C}: no #define {name}")
        text, pos = d[name]
        out[key] = int_expr(text, sizes, cavp.where(pos))
        sources[f"interface.{key}"] = cavp.where(pos)
    m = cavp.find(r'debugfs_create_dir\("(\w+)"', "debugfs directory")
    m2 = cavp.find(r'debugfs_create_file\("(\w+)", 0600, dir, NULL, &drbg_cavp_run_fops\)',
                   "the run file")
    out["path"] = f"/sys/kernel/debug/{m.group(1)}/{m2.group(1)}"
    return out


def sha3(src, config, sources):
    """The Jitter RNG's conditioning hash and its generic driver."""
    jent = Source(src, JENT_C)
    d = defines(jent, {"JENT_CONDITIONING_HASH"})
    if "JENT_CONDITIONING_HASH" not in d:
        raise KernelSourceError(f"{JENT_C}: no #define JENT_CONDITIONING_HASH")
    name = d["JENT_CONDITIONING_HASH"][0].strip('"')
    sources["sha3.name"] = jent.where(d["JENT_CONDITIONING_HASH"][1])
    gen = Source(src, SHA3_C)
    m = gen.find(r"\{\s*\.digestsize\s*=\s*(\w+),(?:(?!\}, \{).)*?\.base\.cra_name\s*=\s*\""
                 + re.escape(name) + r"\",\s*\.base\.cra_driver_name\s*=\s*\"([^\"]+)\"",
                 f"shash_alg of {name}", re.S)
    sources["sha3.driver"] = gen.where(m.start())
    hdr = Source(src, SHA3_H)
    dd = defines(hdr, {m.group(1)})
    if m.group(1) not in dd:
        raise KernelSourceError(f"{SHA3_H}: no #define {m.group(1)}")
    digest = int_expr(dd[m.group(1)][0], {}, hdr.where(dd[m.group(1)][1]))
    u = gen.find(r"int crypto_sha3_update\(struct shash_desc \*desc, const u8 \*data,"
                 r"\s*(unsigned int|u32|size_t|unsigned long) len\)", "crypto_sha3_update()")
    sources["sha3.update_len"] = gen.where(u.start())
    return {"name": name, "driver": m.group(2), "digest_bytes": digest,
            "update_len_type": u.group(1),
            "update_max_bytes": (1 << C_TYPE_BITS[u.group(1)]) - 1,
            "byte_oriented": True,
            "af_alg_update_bytes": af_alg_limit(src, sources),
            "built": config.get("CONFIG_CRYPTO_SHA3") == "y",
            "af_alg_hash": config.get("CONFIG_CRYPTO_USER_API_HASH") == "y"}


def af_alg_limit(src, sources):
    """Bytes of a message AF_ALG's hash socket hands to one update."""
    alg = Source(src, ALG_H)
    pages = defines(alg, {"ALG_MAX_PAGES"}).get("ALG_MAX_PAGES")
    page = Source(src, PAGE_H)
    shift = defines(page, {"PAGE_SHIFT"}).get("PAGE_SHIFT")
    hsh = Source(src, ALGIF_HASH_C)
    m = hsh.find(r"int limit = ALG_MAX_PAGES \* PAGE_SIZE;", "the update limit")
    if not pages or not shift:
        raise KernelSourceError(f"{ALG_H} or {PAGE_H}: no ALG_MAX_PAGES or PAGE_SHIFT")
    sources["sha3.af_alg_update"] = hsh.where(m.start())
    return int(pages[0]) << int(shift[0])


def derive(src, config_lines):
    """Every fact the registration needs; see the module's docstring."""
    config = config_values(config_lines)
    sources = {}
    drbg_c, drbg_h = Source(src, DRBG_C), Source(src, DRBG_H)
    cores = parse_cores(drbg_c, config)
    strengths = parse_strengths(drbg_c)
    for c in cores:
        if c["strength_flag"] not in strengths:
            raise KernelSourceError(f"{c['source']}: {c['strength_flag']} is not in "
                                    "drbg_sec_strength()")
        c["strength_bytes"], c["strength_source"] = strengths[c["strength_flag"]]
    behaviour = drbg_behaviour(drbg_c, sources)
    names = {"U32_MAX": (1 << 32) - 1}
    max_req, sources["max_request_bytes"] = returned_value(
        drbg_h, "drbg_max_request_bytes", names)
    max_addtl, sources["max_addtl_bytes"] = returned_value(drbg_h, "drbg_max_addtl", names)
    built = [c for c in cores if c["built"]]
    instances = ([f"drbg_pr_{c['cra_name']}" for c in built] +
                 [f"drbg_nopr_{c['cra_name']}" for c in built])
    return {"drbg": {"cores": cores, "instances": instances,
                     "max_request_bytes": max_req, "max_addtl_bytes": max_addtl,
                     **behaviour},
            "interface": interface(src, sources),
            "sha3": sha3(src, config, sources),
            "config": {k: config.get(k) for k in sorted(
                {c["option"] for c in cores if c["option"]} |
                {"CONFIG_CRYPTO_SHA3", "CONFIG_CRYPTO_USER_API_HASH",
                 "CONFIG_CRYPTO_DRBG_CAVP_DEBUGFS"})},
            "sources": sources}
