# SPDX-License-Identifier: GPL-2.0-only
"""What a CAVS DRBG record is: its sections, kinds, fields and lengths,
and which sections Linux 6.1's crypto/drbg.c can run.  cavs_parse.py
reads .rsp files into these."""

import re
from dataclasses import dataclass, field


MECHANISMS = ("Hash_DRBG", "HMAC_DRBG", "CTR_DRBG")
KINDS = ("no_reseed", "pr_false", "pr_true")

# Hash functions of Hash_DRBG / HMAC_DRBG: section name -> kernel core suffix.
_HASHES = {"SHA-1": "sha1", "SHA-256": "sha256", "SHA-384": "sha384",
           "SHA-512": "sha512"}
_HASHES_SKIPPED = ("SHA-224", "SHA-512/224", "SHA-512/256")
# CTR_DRBG sections: name -> kernel core (None: not in Linux 6.1).
CTR_SECTIONS = {"AES-128 use df": "ctr_aes128", "AES-192 use df": "ctr_aes192",
        "AES-256 use df": "ctr_aes256", "3KeyTDEA use df": None,
        "AES-128 no df": None, "AES-192 no df": None, "AES-256 no df": None,
        "3KeyTDEA no df": None}

# Which [..Len] parameter bounds which value.
LENGTH_PARAM = {
    "EntropyInput": "EntropyInputLen",
    "EntropyInputReseed": "EntropyInputLen",
    "EntropyInputPR": "EntropyInputLen",
    "Nonce": "NonceLen",
    "PersonalizationString": "PersonalizationStringLen",
    "AdditionalInput": "AdditionalInputLen",
    "AdditionalInputReseed": "AdditionalInputLen",
    "ReturnedBits": "ReturnedBitsLen",
}
PARAMS = ("PredictionResistance", "EntropyInputLen", "NonceLen",
          "PersonalizationStringLen", "AdditionalInputLen", "ReturnedBitsLen")

# Fields of a record by kind, with how often each must appear.
_COMMON = {"EntropyInput": 1, "Nonce": 1, "PersonalizationString": 1,
           "AdditionalInput": 2, "ReturnedBits": 1}
FIELDS = {
    "no_reseed": dict(_COMMON),
    "pr_false": dict(_COMMON, EntropyInputReseed=1, AdditionalInputReseed=1),
    "pr_true": dict(_COMMON, EntropyInputPR=2),
}
ALL_FIELDS = sorted(set().union(*FIELDS.values()))


@dataclass(frozen=True)
class Section:
    """One algorithm of one mechanism, e.g. HMAC_DRBG with SHA-256."""

    mechanism: str          # Hash_DRBG, HMAC_DRBG or CTR_DRBG
    name: str               # as in the file: "SHA-256", "AES-128 use df"
    slug: str               # for check ids: "hmac-sha256", "ctr-aes128-df"
    core: str = None        # kernel core ("hmac_sha256") or None if skipped
    skip_reason: str = None

    @property
    def applicable(self):
        return self.core is not None

    def driver(self, kind):
        """The Linux 6.1 driver name that runs records of this kind."""
        if not self.applicable:
            raise ValueError(f"{self.mechanism} {self.name} is not in Linux 6.1")
        return f"drbg_{'pr' if kind == 'pr_true' else 'nopr'}_{self.core}"


def _slug(text):
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def section_for(mechanism, name):
    """Classify a section; None when the name is not a known CAVS section."""
    if mechanism in ("Hash_DRBG", "HMAC_DRBG") and (
            name in _HASHES or name in _HASHES_SKIPPED):
        prefix = "hash" if mechanism == "Hash_DRBG" else "hmac"
        slug = f"{prefix}-{_slug(name.replace('SHA-', 'sha'))}"
        if name in _HASHES:
            core = _HASHES[name] if prefix == "hash" else f"hmac_{_HASHES[name]}"
            return Section(mechanism, name, slug, core)
        return Section(mechanism, name, slug, None,
                       f"Linux 6.1 has no {mechanism} with {name}: crypto/drbg.c "
                       "drbg_cores[] offers SHA-1, SHA-256, SHA-384 and SHA-512 only")
    if mechanism == "CTR_DRBG" and name in CTR_SECTIONS:
        cipher, _, df = name.partition(" ")
        slug = "ctr-" + _slug(cipher.replace("AES-", "aes")) + \
            ("-df" if df == "use df" else "-nodf")
        core = CTR_SECTIONS[name]
        if core:
            return Section(mechanism, name, slug, core)
        if cipher == "3KeyTDEA":
            why = ("Linux 6.1 has no CTR_DRBG with TDEA: crypto/drbg.c "
                   "drbg_cores[] offers AES-128, AES-192 and AES-256 only")
        else:
            why = ("Linux 6.1's CTR_DRBG always uses the derivation function: "
                   "CTR_DRBG without df is not implemented in crypto/drbg.c")
        return Section(mechanism, name, slug, None, why)
    return None


def known_section_names(mechanism):
    if mechanism == "CTR_DRBG":
        return list(CTR_SECTIONS)
    return list(_HASHES) + list(_HASHES_SKIPPED)


@dataclass
class ParseError:
    path: str
    line: int
    message: str

    def __str__(self):
        """file:line: message (file: message when the whole file is bad)."""
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}"


@dataclass
class Group:
    """A section line with its parameters; the records that follow use them."""

    path: str
    line: int                       # line of the section name
    name: str
    section: Section = None         # None if the name is unknown
    params: dict = field(default_factory=dict)       # name -> int or bool
    param_lines: dict = field(default_factory=dict)  # name -> line
    kind: str = None                # fixed by the group's first good record
    bad: bool = False               # a header error spoils every record
    count: int = 0                  # records seen, good or bad
    count_lines: dict = field(default_factory=dict)  # COUNT value -> its line

    @property
    def prediction_resistance(self):
        return self.params.get("PredictionResistance")


@dataclass
class Record:
    """One COUNT block.  values[name] is a list (AdditionalInput appears twice)."""

    path: str
    line: int                       # line of COUNT
    count: int
    group: Group
    kind: str = None
    values: dict = field(default_factory=dict)       # name -> [bytes, ...]
    value_lines: dict = field(default_factory=dict)  # name -> [line, ...]
    steps: list = field(default_factory=list)        # [(step, {name: value})]

    @property
    def section(self):
        return self.group.section

    @property
    def where(self):
        return f"{self.path}:{self.line}"

    def _one(self, name):
        return self.values.get(name, [b""])[0]

    entropy = property(lambda self: self._one("EntropyInput"))
    nonce = property(lambda self: self._one("Nonce"))
    pers = property(lambda self: self._one("PersonalizationString"))
    entropy_reseed = property(lambda self: self._one("EntropyInputReseed"))
    addtl_reseed = property(lambda self: self._one("AdditionalInputReseed"))
    returned = property(lambda self: self._one("ReturnedBits"))

    @property
    def addtl(self):
        """(AdditionalInput 1, AdditionalInput 2)."""
        return tuple(self.values.get("AdditionalInput", [b"", b""]))

    @property
    def entropy_pr(self):
        """(EntropyInputPR 1, EntropyInputPR 2); empty unless pr_true."""
        return tuple(self.values.get("EntropyInputPR", [b"", b""]))

    @property
    def out_len(self):
        return len(self.returned)

    @property
    def driver(self):
        return self.section.driver(self.kind)

    def lengths(self):
        """Byte lengths of every value, for reports."""
        return {("%s%d" % (k, i + 1) if len(v) > 1 else k): len(b)
                for k, v in self.values.items() for i, b in enumerate(v)}


@dataclass
class ParsedFile:
    path: str
    mechanism: str = None
    records: list = field(default_factory=list)   # the good records only
    errors: list = field(default_factory=list)    # ParseError
    groups: list = field(default_factory=list)
    bad_records: int = 0                           # records not run (errors)

    @property
    def kinds(self):
        return sorted({r.kind for r in self.records})
