# SPDX-License-Identifier: GPL-2.0-only
"""Raw samples of a noise source and what is derived from them, for the
chapter "The CPU Jitter RNG: entropy evidence".

    read_deltas(path)        the 64-bit deltas of a collection (little-endian u64)
    symbols(d, bits)         NIST's format: the low `bits` bits, one per byte
    drop_columns(d, w, n)    rows of w samples without their first n (the priming)
    first_columns(d, w, n)   the most common symbol's count in the first n columns
    item_bits(data)          recorded 64-bit items (output blocks) as bits
    stuck_flags(d)           our stuck test over a stream of raw samples
    describe(d)              quantiles, distinct values, plug-in min-entropies
    histogram(d)             relative frequency of each delta in the central 99 %
    autocorrelation(d, lags) Pearson correlation at lags 1..lags
    lag_hits(d, lags)        fraction of deltas equal to the one k back

stuck_flags() is the stuck test of our core (a delta, its first or its
second difference zero) run over the whole stream from a new collector.
A read's priming measurement is not a raw sample and the stuck test
never sees it, so the test's history runs from one raw sample of the
stream to the next, across blocks and failed reads, as in the core.
"""

import array
import math
import sys

M64 = (1 << 64) - 1


class DataError(ValueError):
    """A sample file that is not what it should be; the message names it."""


def read_deltas(path, expect=None):
    a = array.array("Q")
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise DataError(f"{path}: cannot read: {e.strerror}") from None
    if len(raw) % 8:
        raise DataError(f"{path}: {len(raw)} bytes, not a whole number of 8-byte deltas")
    a.frombytes(raw)
    if sys.byteorder != "little":
        a.byteswap()
    if expect is not None and len(a) != expect:
        raise DataError(f"{path}: {len(a)} deltas, expected {expect}")
    return a


def numpy_of(d):
    import numpy as np
    return np.frombuffer(d, dtype=np.uint64) if isinstance(d, array.array) else np.asarray(d, dtype=np.uint64)


def drop_columns(d, width, n):
    """The rows of width samples each in d, without their first n samples:
    the restart matrix of SP 800-90B 3.1.4 after each restart's priming
    samples."""
    v = numpy_of(d)
    if width <= n or len(v) % width:
        raise DataError(f"{len(v)} samples are not rows of {width} with "
                        f"{n} to drop from each")
    return v.reshape(-1, width)[:, n:].reshape(-1)


def first_columns(d, width, n, bits=8):
    """Of rows of width samples each in d, the count of the most common
    `bits`-bit symbol in each of the first n columns: the restart test's
    column statistic (SP 800-90B 3.1.4.3) over the priming samples too."""
    import numpy as np
    v = numpy_of(d)
    if len(v) % width:
        raise DataError(f"{len(v)} samples are not rows of {width}")
    m = (v.reshape(-1, width)[:, :min(n, width)] & np.uint64((1 << bits) - 1))
    return [int(np.bincount(c.astype(np.int64), minlength=1 << bits).max()) for c in m.T]


def symbols(d, bits=8):
    mask = (1 << bits) - 1
    return (numpy_of(d) & mask).astype("uint8").tobytes()


def item_bits(data):
    """A recording of 64-bit items (the output blocks) as the bitstring the assessor reads, one bit per byte: each item's bytes in
    the order recorded, each byte least significant bit first."""
    import numpy as np
    if len(data) % 8:
        raise DataError(f"{len(data)} bytes is not a whole number of 64-bit items")
    return np.unpackbits(np.frombuffer(data, dtype=np.uint8), bitorder="little").tobytes()


def stuck_flags(d):
    """Our stuck test over the stream, from a new collector (history 0)."""
    import numpy as np
    v = numpy_of(d)
    prev = np.concatenate([np.zeros(1, np.uint64), v[:-1]])
    d2 = prev - v                       # wraps modulo 2^64, as in the C
    prev2 = np.concatenate([np.zeros(1, np.uint64), d2[:-1]])
    d3 = d2 - prev2
    return (v == 0) | (d2 == 0) | (d3 == 0)


def plugin_min_entropy(values):
    """-log2 of the most common value's relative frequency."""
    import numpy as np
    _, counts = np.unique(values, return_counts=True)
    return -math.log2(counts.max() / len(values)), len(counts)


def describe(d):
    import numpy as np
    v = numpy_of(d)
    q = np.quantile(v.astype(np.float64), [0, .001, .01, .25, .5, .75, .99, .999, 1])
    h64, distinct = plugin_min_entropy(v)
    h8, _ = plugin_min_entropy(v & np.uint64(255))
    h4, _ = plugin_min_entropy(v & np.uint64(15))
    diffs = np.diff(np.unique(v[(v >= q[2]) & (v <= q[6])]).astype(np.int64))
    step = int(np.gcd.reduce(diffs)) if len(diffs) else 0
    return {"samples": int(len(v)), "distinct": int(distinct),
            "quantiles": {k: int(x) for k, x in zip(
                ("min", "p0.1", "p1", "p25", "median", "p75", "p99", "p99.9", "max"), q)},
            "iqr": int(q[5] - q[3]), "lattice_step": step,
            "plugin_h_delta": h64, "plugin_h_low8": h8, "plugin_h_low4": h4,
            "stuck": float(stuck_flags(v).mean())}


def histogram(d, lo_q=.005, hi_q=.995, most=4000, bins=400):
    """{"x", "y", "bin"} in the central 99 %: the relative frequency of
    every delta value, or, when there are more than `most` of them (an
    emulated timer's), of `bins` equal bins of width "bin" ticks."""
    import numpy as np
    v = numpy_of(d)
    lo, hi = np.quantile(v.astype(np.float64), [lo_q, hi_q])
    sel = v[(v >= lo) & (v <= hi)]
    vals, counts = np.unique(sel, return_counts=True)
    if len(vals) <= most:
        return {"x": [int(x) for x in vals], "y": [float(c) / len(v) for c in counts],
                "bin": 1}
    counts, edges = np.histogram(sel.astype(np.float64), bins=bins)
    return {"x": [float(x) for x in (edges[:-1] + edges[1:]) / 2],
            "y": [float(c) / len(v) for c in counts], "bin": float(edges[1] - edges[0])}


def autocorrelation(d, lags=32):
    """Pearson correlation of the deltas with themselves k samples later,
    k = 1..lags, on deltas clipped to their 99.9th percentile (a few
    interrupted measurements are a thousand times longer and would decide
    the sums alone)."""
    import numpy as np
    v = numpy_of(d).astype(np.float64)
    v = np.minimum(v, np.quantile(v, .999))
    v = v - v.mean()
    den = float((v * v).sum())
    return [float((v[:-k] * v[k:]).sum() / den) if den else 0.0
            for k in range(1, lags + 1)]


def lag_hits(d, lags=8):
    """For k = 1..lags, the fraction of deltas equal to the one k back:
    how often the lag predictor's guess of lag k is right."""
    v = numpy_of(d)
    return [float((v[k:] == v[:-k]).mean()) for k in range(1, lags + 1)]
