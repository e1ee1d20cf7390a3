# SPDX-License-Identifier: GPL-2.0-only
"""From an assessed noise source to a credited output block, by SP 800-90B
3.1.5, for the chapter "The CPU Jitter RNG: entropy evidence".

    ours(h, samples_per_block, claim)     our design
    pristine(h_i, samples_per_block)      Linux 6.1's
    drbg_claims(block_bits)               the DRBG's seed, restated

Each returns a list of steps {"step", "role", "n_in", "n_out", "nw",
"h_in", "output_entropy", "h_tested", "h_out", ...} and a summary.  The
numbers of the design (counted samples per block, the full-entropy
margin) come from the model of the core (jitter_model.py), which the host
tests hold to the C; the measured ones are arguments.

Our core: a counted sample is a raw sample that is not stuck, after a new
collector's priming samples; the stuck test only selects samples, it
conditions nothing.  Each block is SHA3-256, vetted (3.1.5.1.1), of the
previous block and BLOCK_SAMPLES counted deltas, 8 bytes each:
n_in = 256 + 64 x BLOCK_SAMPLES, h_in = BLOCK_SAMPLES x H, where H is the
noise source's validated min-entropy per raw sample (min(H_r, H_c, H_I),
3.1.4.2), never more than the claim; the chaining block is credited with
nothing.  A block has full entropy when its input carries 256 + 64 bits
(SP 800-90C's rule, which 6.1's JENT_ENTROPY_SAFETY_FACTOR applies).
"""

from . import entropy_math as em
from . import jitter_model as model

BLOCK_BITS = 8 * model.BLOCK_BYTES
DELTA_BITS = 64                     # a counted delta goes into the hash as 8 bytes
FULL_ENTROPY_MARGIN = 64            # SP 800-90C: n + 64 bits in for n out
SHA3_WIDTH = 1600                   # Keccak-f[1600]'s state


def _step(step, role, n_in, n_out, nw, h_in, note=""):
    """A vetted component: credited with Output_Entropy (3.1.5.1.2)."""
    oe = em.output_entropy(n_in, n_out, nw, h_in)
    return {"step": step, "role": role, "n_in": n_in, "n_out": n_out, "nw": nw,
            "h_in": h_in, "output_entropy": oe,
            "deficit": em.output_entropy_deficit(n_in, n_out, nw, h_in),
            "h_tested": None, "h_out": oe, "note": note}


def ours(h, samples_per_block, claim=None, samples=None):
    """Our chain: each counted delta credited with h, the validated H per
    raw sample, and never with more than the claim (None: a source without
    one, whose chain shows what its data would support); `samples`
    counted deltas per block, the core's by default."""
    n = samples or model.BLOCK_SAMPLES
    per = h if claim is None else min(h, claim)
    n_in = BLOCK_BITS + DELTA_BITS * n
    steps = [
        {"step": "raw sample (time delta, 8-bit symbol)", "role": "noise source",
         "h_out": h, "n_out": 8, "note": "assessed, SP 800-90B 3.1.3; validated, 3.1.4.2"},
        {"step": "counted sample: not stuck, after the priming samples",
         "role": "selection", "h_out": per, "n_out": DELTA_BITS,
         "note": "credited with H, at most the claim; stuck samples are not hashed"},
        _step(f"SHA3-256 of the chaining block and {n} counted deltas", "vetted", n_in,
              BLOCK_BITS, SHA3_WIDTH, min(n * per, n_in),
              f"{n} deltas of 64 bits, the chaining block credited 0"),
    ]
    return steps, _summary(steps[-1], min(n * per, n_in), samples_per_block,
                           counted=n, h_sample=per)


def pristine(h_i, samples_per_block, deltas_per_block=256):
    """Linux 6.1 (fips=0): each non-stuck delta goes into the SHA3-256
    state as 8 bytes, with 32 bytes of no entropy hashed from it; 256 of
    them and the last block make a block."""
    n_in = BLOCK_BITS + deltas_per_block * (DELTA_BITS + BLOCK_BITS)
    steps = [
        {"step": "raw sample (time delta, 8-bit symbol)", "role": "noise source",
         "h_out": h_i, "n_out": 8, "note": "assessed, SP 800-90B 3.1.3"},
        _step(f"SHA3-256 of {deltas_per_block} non-stuck deltas", "vetted", n_in,
              BLOCK_BITS, SHA3_WIDTH, min(deltas_per_block * h_i, n_in),
              "6.1 credits 1 bit per delta"),
    ]
    return steps, _summary(steps[-1], deltas_per_block * h_i, samples_per_block)


def _summary(last, h_in, samples_per_block, **kw):
    full = h_in >= BLOCK_BITS + FULL_ENTROPY_MARGIN
    credited = BLOCK_BITS if full else last["h_out"]
    out = {"h_in_block": h_in, "needed": BLOCK_BITS + FULL_ENTROPY_MARGIN,
           "full_entropy": full, "h_block": last["h_out"],
           "credited_bits": credited, "samples_per_block": samples_per_block,
           "samples_per_credited_bit": (samples_per_block / credited
                                        if credited and samples_per_block else None)}
    out.update(kw)
    return out


# The DRBG's strengths (bytes), and what it takes from the Jitter RNG:
# 3/2 x strength at instantiate, strength at reseed (chapter "DRBG seeding").
STRENGTHS = {16: "SHA-1 HMAC/Hash, AES-128 CTR", 24: "AES-192 CTR",
             32: "SHA-256/384/512 HMAC/Hash, AES-256 CTR"}


def drbg_claims(block_bits, full_entropy):
    """Bits of entropy the DRBG's seed gets from the Jitter RNG, per
    strength: 8 per byte of full-entropy blocks, else the blocks' share."""
    per_bit = 1.0 if full_entropy else block_bits / BLOCK_BITS
    rows = []
    for s, who in STRENGTHS.items():
        inst, reseed = s * 3 // 2, s
        rows.append({"strength_bits": 8 * s, "drbgs": who,
                     "instantiate_bytes": inst, "instantiate_bits": 8 * inst * per_bit,
                     "reseed_bytes": reseed, "reseed_bits": 8 * reseed * per_bit})
    return rows
