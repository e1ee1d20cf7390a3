# SPDX-License-Identifier: GPL-2.0-only
"""The formulas of SP 800-90B that turn an assessed min-entropy into
consequences, for the chapter "The CPU Jitter RNG: entropy evidence".

    output_entropy(n_in, n_out, nw, h_in)   3.1.5.1.2, Output_Entropy
    critbinom(n, p, q)                       smallest k with P[X <= k] >= q
    rct_cutoff(h, a)                         4.4.1: 1 + ceil(a / h)
    apt_cutoff(h, a, window)                 4.4.2: 1 + CRITBINOM(W, 2^-h, 1 - 2^-a)
    lag_run_cutoff(h, a, n)                  the lag predictor's run cutoff
    lag_count_cutoff(h, a, n)                its count cutoff
    stuck_cutoff(q, a)                       the stuck bound

Every alpha is given as its exponent a (alpha = 2^-a).  Output_Entropy is
evaluated in decimal arithmetic with 60 digits: its terms are powers of two
far outside a double's range (2^-16640) and the result is n_out less a
deficit of 2^-40 or smaller, which a double would round away.
"""

import math
from decimal import Decimal, localcontext

PRECISION = 60


def output_entropy(n_in, n_out, nw, h_in):
    """SP 800-90B 3.1.5.1.2: the min-entropy of a conditioning component's
    n_out-bit output when its n_in-bit input carries h_in bits."""
    n = min(n_out, nw)
    return n - output_entropy_deficit(n_in, n_out, nw, h_in)


def output_entropy_deficit(n_in, n_out, nw, h_in):
    """min(n_out, nw) - Output_Entropy(n_in, n_out, nw, h_in), kept exact
    enough to show a deficit of 2^-64 (a double holds it as a number; it
    would vanish beside 256)."""
    if not (n_in > 0 and n_out > 0 and nw > 0 and 0 <= h_in <= n_in):
        raise ValueError(f"Output_Entropy({n_in}, {n_out}, {nw}, {h_in}): "
                         "need positive sizes and 0 <= h_in <= n_in")
    with localcontext() as ctx:
        ctx.prec = PRECISION
        two = Decimal(2)
        n = min(n_out, nw)
        p_high = two ** Decimal(-h_in)
        # psi and omega times 2^n, each written as 1 + x with x computed
        # from its small parts: eps = 2^n_in / (2^n_in - 1) - 1, and s the
        # relative margin sqrt(2 n ln 2 / 2^(n_in - n)) of U.
        eps = 1 / (two ** n_in - 1)
        s = (2 * n * two.ln() / two ** (n_in - n)).sqrt()
        x_psi = eps - p_high * (1 + eps) + p_high * two ** n
        x_omega = s + eps * (1 + s) - p_high * (1 + eps) * (1 + s)
        x = max(x_psi, x_omega)
        ln1p = x - x * x / 2 if abs(x) < Decimal("1e-25") else (1 + x).ln()
        return float(ln1p / two.ln())


def _log_pmf(n, k, lp, lq):
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) + k * lp + (n - k) * lq


def upper_tail_cutoff(n, p, a):
    """The smallest c with P[X >= c] <= 2^-a for X ~ Binomial(n, p): the
    tail is summed from the top in logarithms, so that 2^-60 is not lost."""
    if p >= 1:
        return n + 1
    lp, lq = math.log(p), math.log1p(-p)
    alpha = 2.0 ** -a
    tail, c = 0.0, n
    while c >= 0:
        term = math.exp(_log_pmf(n, c, lp, lq))
        if tail + term > alpha:
            return c + 1
        tail += term
        c -= 1
    return 0


def binom_upper_tail(n, p, c):
    """P[X >= c] for X ~ Binomial(n, p), as a float (0.0 below 1e-308)."""
    if c <= 0:
        return 1.0
    if p <= 0 or c > n:
        return 0.0
    lp, lq = math.log(p), math.log1p(-p)
    return sum(math.exp(_log_pmf(n, k, lp, lq)) for k in range(c, n + 1))


def critbinom(n, p, q_exponent):
    """CRITBINOM(n, p, 1 - 2^-a): the smallest k with P[X <= k] >= 1 - 2^-a."""
    return upper_tail_cutoff(n, p, q_exponent) - 1


def rct_cutoff(h, a):
    """SP 800-90B 4.4.1: C = 1 + ceil(a / H)."""
    return 1 + math.ceil(a / h - 1e-12)


def apt_cutoff(h, a, window=512):
    """SP 800-90B 4.4.2: C = 1 + CRITBINOM(W, 2^-H, 1 - alpha)."""
    return 1 + critbinom(window, 2.0 ** -h, a)


def lag_run_cutoff(h, a, n):
    """The smallest r with n * 2^(-H r) <= 2^-a: a run of r right guesses
    starts at one of at most n places, each with probability at most
    2^(-H r) when no guess is right with probability above 2^-H."""
    return math.ceil((a + math.log2(n)) / h - 1e-12)


def lag_count_cutoff(h, a, n):
    """1 + CRITBINOM(n, 2^-H, 1 - alpha) right guesses among n."""
    return 1 + critbinom(n, 2.0 ** -h, a)


def stuck_cutoff(q, a):
    """The smallest C with (1 - q)^C <= 2^-a: C stuck samples in a row
    when each sample is not stuck with probability at least q,
    independently."""
    return math.ceil(a / -math.log2(1 - q) - 1e-12)
