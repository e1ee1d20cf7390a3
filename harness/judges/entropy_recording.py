# SPDX-License-Identifier: GPL-2.0-only
"""Does recording change what it records?  The two-sample test of chapter
"The CPU Jitter RNG: entropy evidence" (recording and the noise).

The kernel's hook stores a raw sample after the measurement that made it,
so the store falls into the next measurement's interval.  The boot of the
conditioning records rows of raw samples alternately with a store after
every sample (stride 1: every recorded interval holds the previous
sample's store) and with every k-th sample kept (stride k >= 2, 3 in
make entropy: no recorded interval holds a store).  Both kinds of row
make the same count and division in every interval.  Rows alternate, so
that what drifts with the machine's state falls on both alike.

    two_sample(data, rows, length, stride)  the comparison, as a dict

What the store adds to an interval is first found as a constant: the
shift s, in timer ticks, that brings sample B (stride k) closest in form
to sample A (stride 1).  It is reported, not judged: a constant added to
every delta moves the distribution without changing its entropy, and
changes the 8-bit symbol only by a rotation modulo 256, which leaves its
min-entropy as it was.  Then, with B moved by s:

  symbols   chi-square homogeneity of the 8-bit symbols, the quantity the
            assessment reads (256 cells; cells expected below 5 merged)
  shape     chi-square homogeneity of the deltas in 20 cells at the pooled
            quantiles: the form of the distribution, which is what its
            entropy is made of

Each statistic loses one degree of freedom for the fitted shift.

A comparison passes when its p-value is at least ALPHA.

The rows are not independent samples of one distribution: the deltas of
a row are correlated with each other, and each row is a restart in its
own state of the machine.  A chi-square p-value, which assumes
independent samples, would call ordinary row-to-row variation a
difference.  So the p-value is a permutation test over the rows: the
statistic for the real split into stride-1 and stride-k rows is compared
with its values for PERMUTATIONS random splits of the same rows into two
halves (a fixed seed, so that a run can be repeated); p is the share of
splits whose statistic is at least the real one's.  The chi-square
statistic is only the measure of distance.
"""

ALPHA = 0.01
SHAPE_CELLS = 20
SHIFT_SEARCH = 8        # ticks either side of the medians' difference
PERMUTATIONS = 999
SEED = 20150101


def homogeneity(ca, cb):
    """The chi-square statistic of homogeneity of two count vectors; cells
    whose expected count is below 5 in either sample are merged into one.
    (statistic, degrees of freedom): the p-value is the permutation test's
    (two_sample())."""
    import numpy as np
    ca, cb = np.asarray(ca, dtype=float), np.asarray(cb, dtype=float)
    na, nb = ca.sum(), cb.sum()
    tot = ca + cb
    ea, eb = tot * na / (na + nb), tot * nb / (na + nb)
    keep = (ea >= 5) & (eb >= 5)
    cells = [(ca[keep], cb[keep])]
    if (~keep).any() and tot[~keep].sum():
        cells.append((np.array([ca[~keep].sum()]), np.array([cb[~keep].sum()])))
    a = np.concatenate([c[0] for c in cells])
    b = np.concatenate([c[1] for c in cells])
    tot = a + b
    ea, eb = tot * na / (na + nb), tot * nb / (na + nb)
    stat = float((((a - ea) ** 2) / ea).sum() + (((b - eb) ** 2) / eb).sum())
    df = len(a) - 1
    return stat, df


def split_matrix(data, rows, length):
    """The rows of the recording, as signed 64-bit deltas; the even rows
    were recorded at stride 1, the odd ones at stride k."""
    import numpy as np
    d = np.frombuffer(data, dtype="<u8")
    if len(d) != rows * length:
        raise ValueError(f"{len(d)} raw samples, expected {rows} rows of {length}")
    if rows < 4 or rows % 2:
        raise ValueError(f"{rows} rows: the permutation test needs an even number, 4 or more")
    return d.reshape(rows, length).astype(np.int64)


def row_histograms(m, lo, width):
    """Per row: the 8-bit symbols' counts, and the deltas' counts over
    [lo, lo + width), the tails clipped into the end cells."""
    import numpy as np
    sym = np.stack([np.bincount(r & 0xFF, minlength=256) for r in m])
    fine = np.stack([np.bincount(np.clip(r - lo, 0, width - 1), minlength=width)
                     for r in m])
    return sym, fine


def statistic(sym, fine, in_a):
    """(symbols chi-square, shape chi-square, shift) of the rows in_a
    against the others, at the shift that brings the others closest in
    form (the least shape statistic within SHIFT_SEARCH of the medians'
    difference)."""
    import numpy as np
    a, b = fine[in_a].sum(0), fine[~in_a].sum(0)
    sa, sb = sym[in_a].sum(0), sym[~in_a].sum(0)
    ca, cb = np.cumsum(a), np.cumsum(b)
    s0 = int(np.searchsorted(ca, ca[-1] / 2)) - int(np.searchsorted(cb, cb[-1] / 2))
    pooled_q = np.linspace(0, 1, SHAPE_CELLS + 1)[1:-1]
    best = None
    for s in range(s0 - SHIFT_SEARCH, s0 + SHIFT_SEARCH + 1):
        bs = np.roll(b, s)
        tot = np.cumsum(a + bs)
        edges = np.unique(np.searchsorted(tot, pooled_q * tot[-1]))
        cells_a = np.add.reduceat(a, np.concatenate([[0], edges + 1]))
        cells_b = np.add.reduceat(bs, np.concatenate([[0], edges + 1]))
        t = homogeneity(cells_a, cells_b)
        if best is None or t[0] < best[1][0]:
            best = (s, t)
    s, shape = best
    return homogeneity(sa, np.roll(sb, s % 256)), shape, s


def two_sample(data, rows, length, stride):
    import numpy as np
    m = split_matrix(data, rows, length)
    lo = int(np.quantile(m, 0.0005)) - SHIFT_SEARCH - 1
    width = int(np.quantile(m, 0.9995)) + SHIFT_SEARCH + 2 - lo
    sym, fine = row_histograms(m, lo, width)
    in_a = np.arange(rows) % 2 == 0
    sym_t, shape_t, shift = statistic(sym, fine, in_a)
    rng = np.random.default_rng(SEED)
    ge = np.zeros(2)
    for _ in range(PERMUTATIONS):
        perm = np.zeros(rows, dtype=bool)
        perm[rng.permutation(rows)[:rows // 2]] = True
        ps, pt, _ = statistic(sym, fine, perm)
        ge += [ps[0] >= sym_t[0], pt[0] >= shape_t[0]]
    p = (1 + ge) / (1 + PERMUTATIONS)

    def result(t, pv):
        return {"chi2": t[0], "df": t[1], "p": float(pv), "pass": bool(pv >= ALPHA)}
    return {"stride": stride, "rows": rows, "len": length,
            "n_a": int(in_a.sum() * length), "n_b": int((~in_a).sum() * length),
            "alpha": ALPHA, "permutations": PERMUTATIONS,
            "symbols": result(sym_t, p[0]), "shape": result(shape_t, p[1]),
            "median_a": float(np.median(m[in_a])), "median_b": float(np.median(m[~in_a])),
            "shift": shift}
