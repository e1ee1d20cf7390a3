# SPDX-License-Identifier: GPL-2.0-only
"""From an assessed noise source to a credited output block, by SP 800-90B
3.1.5, for the chapter "The CPU Jitter RNG: entropy evidence".

    ours(h_i, h_fold, h_vn, samples_per_block)    our design
    pristine(h_i, samples_per_block)              Linux 6.1's
    drbg_claims(block_bits)                       the DRBG's seed, restated

Each returns a list of steps {"step", "role", "n_in", "n_out", "nw",
"h_in", "output_entropy", "h_tested", "h_out", ...} and a summary.  The
numbers of the design (bits per word, words per block, the full-entropy
margin) come from the model of the core (jitter_model.py), which the host
tests hold to the C; the measured ones are arguments.

Our core, per 64-bit pool word: the fold, the stuck test, von Neumann,
the LFSR and the stir are one non-vetted conditioning component
(3.1.5.2): h_word = min(Output_Entropy(n_in, 64, 64, h_in), 0.999 x 64,
h' x 64), where the input is the raw samples the word consumed (at least
2 x 64 of them, the least von Neumann can take) and h' the assessed
min-entropy per bit of its output.  The word is a bijection of its 64
unbiased bits (the LFSR and the stir have rank 64, chapter "The CPU Jitter
RNG"), so h' is assessed on the unbiased bits themselves.  SHA3-256 is
vetted (3.1.5.1.1): h_out = Output_Entropy(256 + 64 w, 256, 1600, w x
h_word), the chaining block credited with nothing; a block has full
entropy when its input carries 256 + 64 bits (SP 800-90C's rule, which
6.1's JENT_ENTROPY_SAFETY_FACTOR applies).
"""

from . import entropy_math as em
from . import jitter_model as model

BLOCK_BITS = 8 * model.BLOCK_BYTES
WORD_BITS = 64
FULL_ENTROPY_MARGIN = 64            # SP 800-90C: n + 64 bits in for n out
SHA3_WIDTH = 1600                   # Keccak-f[1600]'s state
CAP = 0.999                         # 3.1.5.2: at most 0.999 n_out


def _step(step, role, n_in, n_out, nw, h_in, h_tested=None, note=""):
    oe = em.output_entropy(n_in, n_out, nw, h_in)
    h_out = oe
    if role == "non-vetted":
        h_out = min(oe, CAP * n_out, (h_tested if h_tested is not None else 1.0) * n_out)
    return {"step": step, "role": role, "n_in": n_in, "n_out": n_out, "nw": nw,
            "h_in": h_in, "output_entropy": oe,
            "deficit": em.output_entropy_deficit(n_in, n_out, nw, h_in),
            "h_tested": h_tested, "h_out": h_out, "note": note}


def ours(h_i, h_fold, h_vn, samples_per_block, words=None, h_words=None):
    """Our chain; words per block defaults to the core's.  h_words: h' of
    the pool words recorded from the implementation, when they were; the
    word's component is credited with the lower of it and the unbiased
    bits' h' (the LFSR and the stir are a bijection of those bits, so the
    two measure one thing, and the lower is the conservative reading)."""
    w = words or model.BLOCK_WORDS
    h_word_tested = h_vn if h_words is None else min(h_vn, h_words)
    m = 2 * WORD_BITS                   # raw samples per word, at least
    steps = [
        {"step": "raw sample (time delta, 8-bit symbol)", "role": "noise source",
         "h_out": h_i, "n_out": 8, "note": "assessed, SP 800-90B 3.1.3"},
        _step("fold: parity of the delta", "non-vetted", 64, 1, 1, min(h_i, 64),
              h_fold, "shown for insight; part of the word's component"),
        {"step": "stuck test and von Neumann: one unbiased bit per pair",
         "role": "non-vetted", "h_tested": h_vn, "h_out": min(CAP, h_vn), "n_out": 1,
         "note": "assessed on the unbiased bits; part of the word's component"},
        _step("word: fold, stuck test, von Neumann, LFSR, stir", "non-vetted",
              64 * m, WORD_BITS, WORD_BITS, min(m * h_i, 64 * m), h_word_tested,
              f"input: the {m} raw samples a word takes at least"
              + ("" if h_words is None else "; h' the lower of the unbiased bits' "
                 f"({h_vn:.4f}) and the recorded pool words' ({h_words:.4f})")),
    ]
    h_word = steps[-1]["h_out"]
    steps.append(_step("SHA3-256 of the chaining block and the words", "vetted",
                       BLOCK_BITS + WORD_BITS * w, BLOCK_BITS, SHA3_WIDTH,
                       w * h_word, None, f"{w} words, the chaining block credited 0"))
    return steps, _summary(steps[-1], w * h_word, samples_per_block, w=w, h_word=h_word)


def pristine(h_i, samples_per_block, deltas_per_block=256):
    """Linux 6.1 (fips=0): each non-stuck delta goes into the SHA3-256
    state as 8 bytes, with 32 bytes of no entropy hashed from it; 256 of
    them and the last block make a block."""
    n_in = BLOCK_BITS + deltas_per_block * (WORD_BITS + BLOCK_BITS)
    steps = [
        {"step": "raw sample (time delta, 8-bit symbol)", "role": "noise source",
         "h_out": h_i, "n_out": 8, "note": "assessed, SP 800-90B 3.1.3"},
        _step(f"SHA3-256 of {deltas_per_block} non-stuck deltas", "vetted", n_in,
              BLOCK_BITS, SHA3_WIDTH, min(deltas_per_block * h_i, n_in), None,
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
