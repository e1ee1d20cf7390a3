# SPDX-License-Identifier: GPL-2.0-only
"""Sources of known min-entropy for the SP 800-90B assessor: the book's
"What the assessor must say about sources we know".

Four sources of 1,000,000 samples each, from Python's random.Random with
a fixed seed: uniform bytes, biased bits, a period-7 sequence and a
Markov chain.  The chapter derives, for each, the truth and the bound the
deciding estimate must lie in; SOURCES holds them.  The host tests
(tests/judges/test_sp80090b.py, SyntheticSourceTest) assert every
estimate the chapter discusses; `entropy-kat` assesses the same samples
and judge() records the assessment as a check entropy.synthetic.<name>
whose counts the chapter's table quotes, so that no result of the
assessor is typed into the book.

    samples(name, n)        the source's samples, one per byte
    judge(name, result)     -> Check entropy.synthetic.<name>
"""

import math
import random

from ..base.checks import Check

N = 1000000

# name: (seed, title, truth in bits per sample, the chapter's bound on the
# assessment, the estimate that decides it: (track, estimator) or None).
SOURCES = {
    "uniform": (90, "uniform bytes", 8.0, (6.6, 8.0), None),
    "biased": (91, "biased bits, Pr[1] = 0.8", -math.log2(0.8), (0.185, 0.190),
               ("literal", "compression")),
    "periodic": (92, "a period-7 sequence", 0.0, (0.0, 1e-3), None),
    "markov": (93, "a Markov chain, a = 0.9", -math.log2(0.9), (0.0758, 0.0788),
               ("literal", "collision")),
}


def samples(name, n=N):
    """The samples of one source (bytes, one sample per byte)."""
    seed = SOURCES[name][0]
    r = random.Random(seed)
    if name == "uniform":
        return r.randbytes(n)
    if name == "biased":
        return bytes(1 if r.random() < 0.8 else 0 for _ in range(n))
    if name == "periodic":
        period = bytes(r.randrange(256) for _ in range(7))
        return bytes(period[i % 7] for i in range(n))
    if name == "markov":
        bits = [r.randrange(2)]
        for _ in range(n - 1):
            bits.append(bits[-1] if r.random() < 0.9 else 1 - bits[-1])
        return bytes(bits)
    raise KeyError(f"no synthetic source {name!r} (known: {', '.join(SOURCES)})")


def shown(x):
    """A value as the book prints it: four significant digits."""
    return 0 if x is None or x == 0 else float(f"{x:.4g}")


def judge(name, result, seconds=None):
    """The check of one source's assessment (result: the assessor's JSON,
    or a one-line error)."""
    _, title, truth, (low, high), decider = SOURCES[name]
    cid = f"entropy.synthetic.{name}"
    what = f"the assessment of {title} lies in the chapter's bound and below the truth"
    if isinstance(result, str):
        return Check.failed(cid, what, result, origin="host")
    got = result.get("assessed")
    if not isinstance(got, (int, float)):
        return Check.failed(cid, what, "the assessor gave no assessed value",
                            origin="host")
    problems = []
    if not low <= got <= high:
        problems.append(f"assessed {got:.6g}, outside [{low:g}, {high:g}]")
    if got > truth:
        problems.append(f"assessed {got:.6g}, above the truth {truth:.6g}")
    counts = {"assessed": shown(got), "truth": shown(truth)}
    for key in ("H_original", "H_bitstring"):
        if isinstance(result.get(key), (int, float)):
            counts[key] = shown(result[key])
    if decider:
        track, est = decider
        value = ((result.get(track) or {}).get(est) or {}).get("min_entropy")
        counts["decider"] = shown(value)
        if value is not None and got != value:
            problems.append(f"the {est} estimate ({value:.6g}) does not decide "
                            f"the assessment ({got:.6g})")
    if seconds is not None:
        counts["seconds"] = round(seconds, 2)
    return Check.judge(cid, what, problems, origin="host", counts=counts)
