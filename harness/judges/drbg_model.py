# SPDX-License-Identifier: GPL-2.0-only
"""An SP 800-90A Rev. 1 model of the three DRBGs of Linux 6.1, for the host.

Written from the standard, section by section:

- Hash_DRBG (10.1.1) with Hash_df (10.3.1);
- HMAC_DRBG (10.1.2);
- CTR_DRBG with a derivation function (10.2.1) and Block_Cipher_df with BCC
  (10.3.2), AES from python3-cryptography.

Each mechanism class has instantiate / reseed / generate exactly as the
standard's algorithms, plus ``state()`` (the working state, named as in
NIST's intermediate-value files).  Reseed-counter limits and
security-strength checks are left out: the kernel's test mode does not
reach them.

``KernelDRBG`` puts the Linux 6.1 (crypto/drbg.c) calling conventions on
top, because that is what the guest runs:

- the kernel has no separate nonce: test entropy for instantiate is
  EntropyInput || Nonce, so ``instantiate(entropy, pers)`` takes one
  string of any length (an empty nonce is simply nothing appended);
- empty additional input or personalization means "none";
- a prediction-resistant DRBG (drbg_pr_*) reseeds before every generate
  with the test entropy and the caller's additional input, then generates
  with no additional input (SP 800-90A 9.3.1 step 7);
- a request of more than 65536 bytes is cut by drbg_generate_long() into
  65536-byte generate calls, each with the same additional input, and on a
  drbg_pr_* DRBG each slice reseeds first (with the same test entropy).

One place where the kernel and the letter of the standard part: HMAC_DRBG
Update (10.1.2.2 step 3) returns after one round when provided_data is
Null.  The kernel's drbg_hmac_update() decides that from whether a seed
list was handed in, not from its length, so instantiate and reseed always
run both rounds, even with all-empty seed material (only possible with
empty test entropy, which the standard never allows).  The model follows
the kernel: seeding passes bytes (maybe empty), generate passes None when
there is no additional input.

``run_record(record)`` runs one parsed CAVS record (cavs_parse.py)
as the guest's test interface does and returns (out1, out2).
"""

import hashlib
import hmac

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

MAX_REQUEST_BYTES = 1 << 16   # crypto/drbg.c drbg_max_request_bytes()


def _add(*values, size):
    """(sum of big-endian integers and ints) mod 2^(8 size), as bytes."""
    total = 0
    for v in values:
        total += v if isinstance(v, int) else int.from_bytes(v, "big")
    return (total % (1 << (8 * size))).to_bytes(size, "big")


# ---------------------------------------------------------------------------
# Hash_DRBG (10.1.1)

class HashDRBG:
    """Hash_DRBG; hash is a hashlib name ("sha1", "sha256", ...)."""

    SEEDLEN = {"sha1": 55, "sha224": 55, "sha256": 55, "sha384": 111,
               "sha512": 111}     # bytes: 440 or 888 bits (Table 2)

    def __init__(self, hash_name):
        self.hash_name = hash_name
        self.seedlen = self.SEEDLEN[hash_name]
        self.outlen = hashlib.new(hash_name).digest_size
        self.V = self.C = None
        self.reseed_counter = 0

    def H(self, *parts):
        h = hashlib.new(self.hash_name)
        for p in parts:
            h.update(p)
        return h.digest()

    def hash_df(self, data, nbytes):
        """Hash_df (10.3.1): nbytes of hash-derived output from data."""
        temp = b""
        counter = 1
        bits = (8 * nbytes).to_bytes(4, "big")
        while len(temp) < nbytes:
            temp += self.H(bytes([counter]), bits, data)
            counter += 1
        return temp[:nbytes]

    def instantiate(self, entropy, nonce=b"", pers=b""):
        """10.1.1.2."""
        seed = self.hash_df(entropy + nonce + pers, self.seedlen)
        self.V = seed
        self.C = self.hash_df(b"\x00" + self.V, self.seedlen)
        self.reseed_counter = 1

    def reseed(self, entropy, addtl=b""):
        """10.1.1.3."""
        seed = self.hash_df(b"\x01" + self.V + entropy + addtl, self.seedlen)
        self.V = seed
        self.C = self.hash_df(b"\x00" + self.V, self.seedlen)
        self.reseed_counter = 1

    def _hashgen(self, nbytes):
        """Hashgen (10.1.1.4)."""
        data = self.V
        W = b""
        while len(W) < nbytes:
            W += self.H(data)
            data = _add(data, 1, size=self.seedlen)
        return W[:nbytes]

    def generate(self, nbytes, addtl=None):
        """10.1.1.4; addtl None or b"" means no additional input."""
        if addtl:
            w = self.H(b"\x02", self.V, addtl)
            self.V = _add(self.V, w, size=self.seedlen)
        out = self._hashgen(nbytes)
        H = self.H(b"\x03", self.V)
        self.V = _add(self.V, H, self.C, self.reseed_counter, size=self.seedlen)
        self.reseed_counter += 1
        return out

    def state(self):
        return {"V": self.V, "C": self.C, "reseed counter": self.reseed_counter}


# ---------------------------------------------------------------------------
# HMAC_DRBG (10.1.2)

class HmacDRBG:
    """HMAC_DRBG; hash is a hashlib name."""

    def __init__(self, hash_name):
        self.hash_name = hash_name
        self.outlen = hashlib.new(hash_name).digest_size
        self.Key = self.V = None
        self.reseed_counter = 0

    def _hmac(self, key, *parts):
        m = hmac.new(key, digestmod=self.hash_name)
        for p in parts:
            m.update(p)
        return m.digest()

    def update(self, provided):
        """HMAC_DRBG_Update (10.1.2.2); provided None is Null (one round)."""
        data = provided or b""
        self.Key = self._hmac(self.Key, self.V, b"\x00", data)
        self.V = self._hmac(self.Key, self.V)
        if provided is None:
            return
        self.Key = self._hmac(self.Key, self.V, b"\x01", data)
        self.V = self._hmac(self.Key, self.V)

    def instantiate(self, entropy, nonce=b"", pers=b""):
        """10.1.2.3 (both Update rounds always: see the module docstring)."""
        self.Key = b"\x00" * self.outlen
        self.V = b"\x01" * self.outlen
        self.update(entropy + nonce + pers)
        self.reseed_counter = 1

    def reseed(self, entropy, addtl=b""):
        """10.1.2.4."""
        self.update(entropy + addtl)
        self.reseed_counter = 1

    def generate(self, nbytes, addtl=None):
        """10.1.2.5; addtl None or b"" means no additional input."""
        addtl = addtl or None
        if addtl is not None:
            self.update(addtl)
        temp = b""
        while len(temp) < nbytes:
            self.V = self._hmac(self.Key, self.V)
            temp += self.V
        self.update(addtl)
        self.reseed_counter += 1
        return temp[:nbytes]

    def state(self):
        return {"V": self.V, "Key": self.Key}


# ---------------------------------------------------------------------------
# CTR_DRBG with derivation function (10.2.1, 10.3.2)

class CtrDRBG:
    """CTR_DRBG with AES and a derivation function; keylen in bytes."""

    BLOCKLEN = 16

    def __init__(self, keylen):
        self.keylen = keylen
        self.seedlen = keylen + self.BLOCKLEN
        self.Key = self.V = None
        self.reseed_counter = 0

    @staticmethod
    def _ecb(key, data):
        enc = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
        return enc.update(data) + enc.finalize()

    def _bcc(self, key, data):
        """BCC (10.3.3): CBC-MAC with a zero IV, the last chaining value."""
        enc = Cipher(algorithms.AES(key), modes.CBC(bytes(16))).encryptor()
        return (enc.update(data) + enc.finalize())[-self.BLOCKLEN:]

    def block_cipher_df(self, data, nbytes):
        """Block_Cipher_df (10.3.2): nbytes derived from data."""
        S = len(data).to_bytes(4, "big") + nbytes.to_bytes(4, "big") + data + b"\x80"
        S += b"\x00" * (-len(S) % self.BLOCKLEN)
        K = bytes(range(32))[:self.keylen]
        temp = b""
        i = 0
        while len(temp) < self.keylen + self.BLOCKLEN:
            IV = i.to_bytes(4, "big") + bytes(self.BLOCKLEN - 4)
            temp += self._bcc(K, IV + S)
            i += 1
        K, X = temp[:self.keylen], temp[self.keylen:self.keylen + self.BLOCKLEN]
        temp = b""
        enc = Cipher(algorithms.AES(K), modes.ECB()).encryptor()
        while len(temp) < nbytes:
            X = enc.update(X)
            temp += X
        return temp[:nbytes]

    def _keystream(self, nblocks):
        """E(Key, V+1) || ... || E(Key, V+nblocks), advancing V (full-width
        counter: ctr_len = blocklen, as the kernel's ctr(aes) does)."""
        v = int.from_bytes(self.V, "big")
        ctrs = b"".join(((v + i) % (1 << 128)).to_bytes(16, "big")
                        for i in range(1, nblocks + 1))
        self.V = ((v + nblocks) % (1 << 128)).to_bytes(16, "big")
        return self._ecb(self.Key, ctrs)

    def update(self, provided):
        """CTR_DRBG_Update (10.2.1.2); provided is seedlen bytes."""
        n = -(-self.seedlen // self.BLOCKLEN)
        temp = self._keystream(n)[:self.seedlen]
        temp = bytes(a ^ b for a, b in zip(temp, provided))
        self.Key, self.V = temp[:self.keylen], temp[self.keylen:]

    def instantiate(self, entropy, nonce=b"", pers=b""):
        """10.2.1.3.2 (with df)."""
        seed = self.block_cipher_df(entropy + nonce + pers, self.seedlen)
        self.Key = bytes(self.keylen)
        self.V = bytes(self.BLOCKLEN)
        self.update(seed)
        self.reseed_counter = 1

    def reseed(self, entropy, addtl=b""):
        """10.2.1.4.2 (with df)."""
        self.update(self.block_cipher_df(entropy + addtl, self.seedlen))
        self.reseed_counter = 1

    def generate(self, nbytes, addtl=None):
        """10.2.1.5.2 (with df); addtl None or b"" means none."""
        if addtl:
            addtl = self.block_cipher_df(addtl, self.seedlen)
            self.update(addtl)
        else:
            addtl = bytes(self.seedlen)
        out = self._keystream(-(-nbytes // self.BLOCKLEN))[:nbytes]
        self.update(addtl)
        self.reseed_counter += 1
        return out

    def state(self):
        return {"V": self.V, "Key": self.Key}


# ---------------------------------------------------------------------------
# The kernel's view

CORES = {
    "sha1": lambda: HashDRBG("sha1"), "sha256": lambda: HashDRBG("sha256"),
    "sha384": lambda: HashDRBG("sha384"), "sha512": lambda: HashDRBG("sha512"),
    "hmac_sha1": lambda: HmacDRBG("sha1"), "hmac_sha256": lambda: HmacDRBG("sha256"),
    "hmac_sha384": lambda: HmacDRBG("sha384"), "hmac_sha512": lambda: HmacDRBG("sha512"),
    "ctr_aes128": lambda: CtrDRBG(16), "ctr_aes192": lambda: CtrDRBG(24),
    "ctr_aes256": lambda: CtrDRBG(32),
}


def parse_driver(driver):
    """"drbg_pr_hmac_sha256" -> ("hmac_sha256", True)."""
    for prefix, pr in (("drbg_pr_", True), ("drbg_nopr_", False)):
        if driver.startswith(prefix) and driver[len(prefix):] in CORES:
            return driver[len(prefix):], pr
    raise ValueError(f"not a Linux 6.1 DRBG driver name: {driver!r}")


class KernelDRBG:
    """A DRBG as crypto/drbg.c drives it in test mode (see the docstring).

    Use: d = KernelDRBG("drbg_nopr_hmac_sha256"); d.set_entropy(seed);
    d.reset(pers) (instantiate); d.set_entropy(e); d.reset(addtl) (reseed);
    d.generate(n, addtl)."""

    def __init__(self, driver):
        self.driver = driver
        self.core, self.pr = parse_driver(driver)
        self.mech = CORES[self.core]()
        self.test_entropy = None
        self.instantiated = False

    def set_entropy(self, data):
        """crypto_rng_set_entropy(): used by every later (re)seed."""
        self.test_entropy = bytes(data)

    def reset(self, data=b""):
        """crypto_rng_reset(): instantiate a fresh DRBG with data as the
        personalization string, or reseed an instantiated one with data as
        additional input."""
        if self.test_entropy is None:
            raise ValueError("the model only runs in test mode: set_entropy() first")
        if not self.instantiated:
            self.mech.instantiate(self.test_entropy, b"", data)
            self.instantiated = True
        else:
            self.mech.reseed(self.test_entropy, data)

    def _generate_one(self, nbytes, addtl):
        """drbg_generate() for at most MAX_REQUEST_BYTES."""
        if self.pr:
            self.mech.reseed(self.test_entropy, addtl)
            addtl = b""
        return self.mech.generate(nbytes, addtl)

    def generate(self, nbytes, addtl=b""):
        """crypto_rng_generate(): drbg_generate_long() slices."""
        if nbytes <= 0:
            raise ValueError("the kernel rejects a zero-length generate")
        out = []
        done = 0
        while done < nbytes:
            chunk = min(MAX_REQUEST_BYTES, nbytes - done)
            out.append(self._generate_one(chunk, addtl))
            done += chunk
        return b"".join(out)

    def state(self):
        return self.mech.state()


def instantiate(driver, entropy, pers=b""):
    """A KernelDRBG instantiated from seed material (entropy of any length,
    no separate nonce), for recomputing output from a seed the guest shows."""
    d = KernelDRBG(driver)
    d.set_entropy(entropy)
    d.reset(pers)
    return d


def run_request(driver, flags_reseed, flags_pr, out_len, entropy, nonce, pers,
                entropy_reseed, addtl_reseed, addtl, entropy_pr, trace=None):
    """What the kernel's test interface does with one request; (out1, out2).

    trace, if a list, receives (step name, state) after each step, named as
    in NIST's intermediate-value files."""
    d = KernelDRBG(driver)
    d.set_entropy(entropy + nonce)
    d.reset(pers)
    if trace is not None:
        trace.append(("INSTANTIATE", d.state()))
    if flags_reseed:
        d.set_entropy(entropy_reseed)
        d.reset(addtl_reseed)
        if trace is not None:
            trace.append(("RESEED", d.state()))
    outs = []
    for i, name in enumerate(("GENERATE (FIRST CALL)", "GENERATE (SECOND CALL)")):
        if flags_pr:
            d.set_entropy(entropy_pr[i])
        outs.append(d.generate(out_len, addtl[i]))
        if trace is not None:
            trace.append((name, d.state()))
    return outs[0], outs[1]


def run_record(rec, trace=None):
    """Run one parsed, applicable CAVS record (cavs.Record); (out1, out2)."""
    return run_request(rec.driver, rec.kind == "pr_false", rec.kind == "pr_true",
                       rec.out_len, rec.entropy, rec.nonce, rec.pers,
                       rec.entropy_reseed, rec.addtl_reseed, rec.addtl,
                       rec.entropy_pr, trace)
