"""The paired one-sided Wilcoxon signed-rank test of DHP (paper v1 §4.3, step 1), as pure functions.

``p_{m_j}^i``: H1 original > perturbed, exactly ``scipy.stats.wilcoxon(S0, Si, alternative="greater")``
(:func:`wilcoxon_greater`), computed here for whole batches of tests at once
(:func:`wilcoxon_greater_tests`, :func:`wilcoxon_greater_batch`): the exact null distribution
tabled once per size (:func:`exact_method_pvalues`), the exhaustive tie-aware sign-flip test by
dynamic programming (:func:`exact_tail_pvalues`), the tie-corrected normal approximation in one
pass. scipy is the reference the tests hold every path equal to; it is not called for a p-value.

Zero handling and method choice (documented contract, identical to scipy's defaults):
pairs with a missing score on either side (NaN) are dropped first. Zero differences are then
discarded (``zero_method="wilcox"``), no continuity correction. ``method="auto"``: the exact null
distribution when at most 50 pairs remain with no ties and no zero differences; an exact
permutation test for at most 13 pairs with ties or zeros; otherwise the normal approximation with
tie correction. If no pair remains, or every difference is zero, there is no evidence: ``p = 1``.

"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = [
    "MetricTest",
    "auto_method",
    "exact_method_pvalues",
    "exact_tail_pvalues",
    "wilcoxon_greater",
    "wilcoxon_greater_batch",
    "wilcoxon_greater_tests",
]

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class MetricTest:
    """Result of one paired test: p-value, W+ statistic, pairs used, and how p was computed."""

    pvalue: float
    statistic: float
    n_pairs: int  # complete pairs (both scores present)
    n_nonzero: int  # pairs with a non-zero difference (what the test ranks)
    method: str  # "exact" | "permutation" | "asymptotic" | "no-evidence"


def _complete_pairs(original: npt.ArrayLike, perturbed: npt.ArrayLike) -> tuple[FloatArray, FloatArray]:
    x = np.asarray(original, dtype=np.float64)
    y = np.asarray(perturbed, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"score vectors must be 1-D and paired, got shapes {x.shape} and {y.shape}")
    keep = ~(np.isnan(x) | np.isnan(y))
    return x[keep], y[keep]


def auto_method(d: FloatArray) -> str:
    """scipy's ``method="auto"`` decision for a vector of (complete, non-NaN) differences."""
    if d.size > 50:
        return "asymptotic"
    nz = np.abs(d[d != 0])
    has_zero = nz.size < d.size
    has_ties = np.unique(nz).size < nz.size
    if not (has_ties or has_zero):
        return "exact"
    return "permutation" if d.size <= 13 else "asymptotic"


def wilcoxon_greater(original: npt.ArrayLike, perturbed: npt.ArrayLike) -> MetricTest:
    """One-sided paired Wilcoxon signed-rank test of H1: original > perturbed.

    Exactly ``scipy.stats.wilcoxon(x, y, alternative="greater")`` on the complete pairs, except that
    no pair, or only zero differences, give ``p = 1`` (no evidence) instead of NaN or an error.
    One row of :func:`wilcoxon_greater_tests`.
    """
    x, y = _complete_pairs(original, perturbed)
    return wilcoxon_greater_tests(x[None, :], y[None, :])[0]


def _batch_ranks(a: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Average ranks of each row of ``a`` (inf = excluded, ranked last but unused) and Σ(t³−t) per row.

    On each sorted row a tie group runs from its first position to its last; both come from running
    maxima and minima of the group boundaries (no per-group scatter), and the average rank is their
    mean plus one.
    """
    m = a.shape[1]
    order = np.argsort(a, axis=1, kind="stable")
    s = np.take_along_axis(a, order, axis=1)
    differs = s[:, 1:] != s[:, :-1]
    pos = np.arange(m, dtype=np.int64)
    first = np.ones(s.shape, dtype=bool)
    first[:, 1:] = differs
    last = np.ones(s.shape, dtype=bool)
    last[:, :-1] = differs
    start = np.maximum.accumulate(np.where(first, pos, 0), axis=1)
    end = np.minimum.accumulate(np.where(last, pos, m - 1)[:, ::-1], axis=1)[:, ::-1]
    t = (end - start + 1).astype(np.float64)
    avg_rank_sorted = (start + end) / 2.0 + 1.0
    ranks = np.empty_like(avg_rank_sorted)
    np.put_along_axis(ranks, order, avg_rank_sorted, axis=1)
    # Σ over elements of (t²−1) = Σ over groups of (t³−t)
    tie = np.where(np.isfinite(s), t * t - 1.0, 0.0).sum(axis=1)
    return ranks, tie


@dataclass(frozen=True)
class _Batch:
    x: FloatArray
    y: FloatArray
    d: FloatArray
    complete: npt.NDArray[np.bool_]
    valid: npt.NDArray[np.bool_]  # complete and non-zero: what the test ranks
    ranks: FloatArray  # average ranks of |d| among valid entries
    n_complete: npt.NDArray[np.int64]
    n_nonzero: FloatArray
    r_plus: FloatArray
    tie: FloatArray  # Σ(t³ − t) over tie groups
    p_normal: FloatArray

    def exact_rows(self) -> npt.NDArray[np.intp]:
        """Rows scipy would not approximate: ≤ 50 pairs without ties or zeros (exact null
        distribution), or ≤ 13 pairs with ties or zeros (exact permutation test)."""
        ties_or_zeros = (self.tie > 0) | (self.n_complete > self.n_nonzero)
        small = np.where(ties_or_zeros, self.n_complete <= 13, self.n_complete <= 50)
        return np.flatnonzero(small & (self.n_nonzero > 0))


def _batch(original: npt.ArrayLike, perturbed: npt.ArrayLike) -> _Batch:
    x = np.asarray(original, dtype=np.float64)
    y = np.asarray(perturbed, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 2:
        raise ValueError(f"batch score arrays must be 2-D and equal in shape, got {x.shape}, {y.shape}")
    d = x - y
    complete = ~np.isnan(d)
    valid = complete & (d != 0)
    n = valid.sum(axis=1).astype(np.float64)
    ranks, tie = _batch_ranks(np.where(valid, np.abs(np.where(complete, d, 0.0)), np.inf))
    r_plus = np.where(valid & (d > 0), ranks, 0.0).sum(axis=1)
    mean = n * (n + 1.0) * 0.25
    var = (n * (n + 1.0) * (2.0 * n + 1.0) - tie / 2.0) / 24.0
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (r_plus - mean) / np.sqrt(var)
    from scipy import stats as sps

    p = np.where(n == 0, 1.0, sps.norm.sf(z))
    return _Batch(x, y, d, complete, valid, ranks, complete.sum(axis=1), n, r_plus, tie, p)


def exact_tail_pvalues(b: _Batch, rows: npt.NDArray[np.intp], chunk: int = 2048) -> FloatArray:
    """P(S ≥ W+) where S is the sum of a uniformly random subset of the row's ranks.

    This is scipy's exhaustive sign-flip permutation test (average ranks with ties; zero
    differences flip to themselves and cancel out); without ties it is the exact Wilcoxon
    distribution too. Ranks are multiples of 1/2, so the subset sums are counted exactly on a grid
    of halves by dynamic programming, vectorised over rows.
    """
    out = np.empty(rows.size, dtype=np.float64)
    for start in range(0, rows.size, chunk):
        rr = rows[start : start + chunk]
        r2 = np.where(b.valid[rr], np.rint(2.0 * b.ranks[rr]), 0.0).astype(np.int64)
        r2 = -np.sort(-r2, axis=1)  # valid ranks first, zeros (unused) last
        m = b.valid[rr].sum(axis=1)
        width = int(r2.sum(axis=1).max()) + 1
        counts = np.zeros((rr.size, width))
        counts[:, 0] = 1.0
        cols = np.arange(width)
        for i in range(int(m.max())):
            shift = r2[:, i]
            src = cols[None, :] - shift[:, None]
            moved = np.where(src >= 0, np.take_along_axis(counts, np.maximum(src, 0), axis=1), 0.0)
            counts = np.where((i < m)[:, None], counts + moved, counts)
        tail = np.cumsum(counts[:, ::-1], axis=1)[:, ::-1]
        obs = np.rint(2.0 * b.r_plus[rr]).astype(np.int64)
        out[start : start + rr.size] = tail[np.arange(rr.size), obs] / np.exp2(m)
    return out


@functools.lru_cache(maxsize=512)
def _exact_null_sf(n: int) -> FloatArray:
    """``sf[k] = P(W+ >= k)`` for k = 0 .. n(n+1)/2 + 1 under the exact null distribution of n
    untied ranks: scipy's ``_get_wilcoxon_distr`` recursion, summed from the top. For n <= 50 (where
    scipy tests exactly) it equals scipy's ``method="exact"`` to the last bit (tested); above, where
    scipy's ``1 - cdf`` cancels to 0 or below in the far tail, it stays accurate (a resample of an
    exact test can hold more than 50 pairs). Computed once per n."""
    c = np.ones(1, dtype=np.float64)
    for k in range(1, n + 1):
        prev = c
        c = np.zeros(k * (k + 1) // 2 + 1, dtype=np.float64)
        c[: prev.size] = prev * 0.5
        c[-prev.size :] += prev * 0.5
    sf: FloatArray = np.concatenate([np.cumsum(c[::-1])[::-1], [0.0]])
    sf.setflags(write=False)
    return sf


def exact_method_pvalues(n_nonzero: FloatArray, r_plus: FloatArray) -> FloatArray:
    """scipy's ``method="exact"`` one-sided p-values, row-wise: the untied null distribution of the
    row's non-zero count at ``floor(W+)`` (scipy's rule for a tied, non-integral statistic,
    gh-19872), from tables cached per n; no non-zero difference: p = 1."""
    n = np.asarray(n_nonzero).astype(np.int64)
    k = np.floor(np.asarray(r_plus) + 1e-9).astype(np.int64)  # W+ is a multiple of 1/2, exact in floats
    out = np.ones(n.shape, dtype=np.float64)
    for size in np.unique(n[n > 0]).tolist():
        at = n == size
        out[at] = _exact_null_sf(int(size))[k[at]]
    return out


def wilcoxon_greater_tests(original: npt.ArrayLike, perturbed: npt.ArrayLike) -> list[MetricTest]:
    """Row-wise :func:`wilcoxon_greater` for 2-D arrays (one test per row, NaN = no score), vectorised.

    Each row by scipy's ``auto`` choice (:func:`auto_method`), every choice computed by this
    module's own routines in one pass over the rows (:func:`wilcoxon_greater_batch`): a row of 13
    tied pairs costs what an untied one does, where scipy's permutation path enumerates 2^13 sign
    flips per test. The golden tests hold every path equal to scipy.
    """
    b = _batch(original, perturbed)
    p = _auto_pvalues(b)
    out: list[MetricTest] = []
    for r in range(b.d.shape[0]):
        n_pairs, n_nonzero = int(b.n_complete[r]), int(b.n_nonzero[r])
        if n_nonzero == 0:
            out.append(MetricTest(1.0, 0.0, n_pairs, 0, "no-evidence"))
        else:
            method = auto_method(b.d[r][b.complete[r]])
            out.append(MetricTest(float(p[r]), float(b.r_plus[r]), n_pairs, n_nonzero, method))
    return out


def _auto_pvalues(b: _Batch) -> FloatArray:
    """Every row's p-value by scipy's ``auto`` choice: exact null distribution (untied, <= 50
    pairs), exhaustive sign flips (tied or zeros, <= 13 pairs), else the normal approximation."""
    p = b.p_normal.copy()
    rows = b.exact_rows()
    untied = rows[(b.tie[rows] == 0) & (b.n_complete[rows] == b.n_nonzero[rows])]
    p[untied] = exact_method_pvalues(b.n_nonzero[untied], b.r_plus[untied])
    perm = np.setdiff1d(rows, untied)
    if perm.size:
        p[perm] = exact_tail_pvalues(b, perm)
    return p


def wilcoxon_greater_batch(
    original: npt.ArrayLike, perturbed: npt.ArrayLike, method: str | None = None
) -> FloatArray:
    """Row-wise one-sided Wilcoxon p-values, fully vectorised (for the bootstrap).

    ``method=None``: scipy's ``auto`` choice per row (as :func:`wilcoxon_greater_tests`).
    Otherwise every row by one method, what ``scipy.stats.wilcoxon(..., method=...)`` gives:
    ``"exact"`` (the untied exact null distribution at ``floor(W+)``, scipy's rule with ties),
    ``"permutation"`` (the exhaustive tie-aware sign-flip test) or ``"asymptotic"`` (the
    tie-corrected normal approximation, no continuity correction). A bootstrap passes its point
    estimate's method, so every replicate is tested as the estimate was. Rows without a non-zero
    difference (and ``"no-evidence"``) give p = 1.
    """
    b = _batch(original, perturbed)
    p = b.p_normal.copy()
    if method is None:
        p = _auto_pvalues(b)
    elif method == "exact":
        p = exact_method_pvalues(b.n_nonzero, b.r_plus)
    elif method == "permutation":
        rows = np.flatnonzero(b.n_nonzero > 0)
        if rows.size:
            p[rows] = exact_tail_pvalues(b, rows)
    elif method not in ("asymptotic", "no-evidence"):
        raise ValueError(f"unknown Wilcoxon method {method!r}")
    return np.asarray(p, dtype=np.float64)
