"""DHP statistics (paper v1 §4.3; SPEC §5) as pure functions over arrays. No I/O.

Pipeline for one dataset, per perturbation i and metric m_j:

1. ``p_{m_j}^i`` — one-sided paired Wilcoxon signed-rank test, H1: original > perturbed
   (:func:`wilcoxon_greater`, exactly ``scipy.stats.wilcoxon(S0, Si, alternative="greater")``).
2. ``p^i`` / ``p^{i,EW}`` — the metrics' p-values combined (:func:`combine_pvalues`):

   * ``paper``: the paper's printed formulas, ``1 / Σ_j w_j / p_j`` with ``w_j = 1`` (unweighted) or
     the expert weights (which sum to 1).
   * ``wilson``: Wilson's (2019) weighted harmonic mean p-value with weights normalised to sum 1,
     ``Σ w_j / Σ (w_j / p_j)``. Unweighted it is ``M / Σ 1/p_j``: M times the paper's value.
   * ``wilson-landau``: Wilson's asymptotically exact calibration of that HMP,
     ``P(X > 1/HMP)`` with ``X ~ Landau(log L + 0.874, π/2)`` (``scipy.stats.landau``), L = number of
     p-values combined. It is exact as L grows; for the 1-4 metrics of DHP it is an approximation.

3. ``D = log_0.05(p)`` with p floored at :data:`P_FLOOR` (so ``D <= D_MAX``, finite).
4. ``D_avg``: level-balanced mean (each level present weighs the same, split equally among its
   perturbations); ``D_min``: the minimum. Both with and without expert weights.
5. Item-level bootstrap confidence intervals for every D (:func:`analyse`).

Zero handling and method choice (documented contract, identical to scipy's defaults):
pairs with a missing score on either side (NaN) are dropped first. Zero differences are then
discarded (``zero_method="wilcox"``), no continuity correction. ``method="auto"``: the exact null
distribution when at most 50 pairs remain with no ties and no zero differences; an exact
permutation test for at most 13 pairs with ties or zeros; otherwise the normal approximation with
tie correction. If no pair remains, or every difference is zero, there is no evidence: ``p = 1``.

Bootstrap intervals (:func:`analyse`, :func:`replicates`; ``dhp compare`` and the board use the
same): each resample is tested with the method its point estimate used, as scipy defines that
method, never with its own ``auto`` choice. Resamples repeat items, so they have ties; were a
40-pair exact point estimate's resamples sent to the normal approximation, their D would sit far
below the estimate (the lexical judge at ``--limit 40``: D = 9.26, interval [5.96, 5.96]). An
``exact`` point estimate has its resamples tested by scipy's ``method="exact"`` (the untied null
distribution at floor(W+), :func:`exact_method_pvalues`), a ``permutation`` one by the exhaustive
tie-aware sign-flip test (:func:`_exact_tail_pvalues`), an ``asymptotic`` one by the tie-corrected
normal approximation. Every interval is :func:`interval`: the expanded percentile interval of the
replicates (:func:`interval_level`) joined with its point estimate, so an estimate lies in its
interval by construction. The expansion is for the pairs the D's tests rank (:func:`ranked_pairs`:
zero differences are dropped by the test, so with 1-5 scores a D of 20 items may rest on 11), for
the items when an aggregate averages many tests. ``benchmarks/bench_calibration.py`` measures its
coverage.
"""

from __future__ import annotations

import enum
import functools
import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from dhp.types import Level

__all__ = [
    "D_MAX",
    "P_FLOOR",
    "CombineMethod",
    "DatasetAnalysis",
    "Interval",
    "MetricTest",
    "PerturbationAnalysis",
    "Replicates",
    "analyse",
    "auto_method",
    "avg_min",
    "combine_pvalues",
    "discernment",
    "draw_items",
    "exact_method_pvalues",
    "interval",
    "interval_level",
    "level_balanced_weights",
    "ranked_pairs",
    "replicates",
    "wilcoxon_greater",
    "wilcoxon_greater_batch",
    "wilcoxon_greater_tests",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: p-values are floored here before taking logs, so D stays finite. 1e-300 is just above the
#: smallest normal double (2.2e-308) and far below any p-value a 100-item test can reach honestly.
P_FLOOR = 1e-300
#: The largest D a result can report: log_0.05(P_FLOOR) ≈ 230.6.
D_MAX = math.log(P_FLOOR) / math.log(0.05)
#: Wilson (2019): location offset of the Landau law, 1 + ψ(1) − log(2/π) ≈ 0.874.
_LANDAU_OFFSET = 1.0 - float(np.euler_gamma) - math.log(2.0 / math.pi)


class CombineMethod(str, enum.Enum):
    """How a perturbation's per-metric p-values become one p-value."""

    PAPER = "paper"  # 1 / Σ w_j/p_j, w_j = 1 or EW (the paper's printed formulas)
    WILSON = "wilson"  # Wilson's HMP, weights normalised: Σw / Σ(w/p)
    WILSON_LANDAU = "wilson-landau"  # Wilson's asymptotically exact (Landau) calibration of the HMP


# ---------------------------------------------------------------------------------------------
# 1. The paired one-sided Wilcoxon test
# ---------------------------------------------------------------------------------------------
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
    """
    x, y = _complete_pairs(original, perturbed)
    d = x - y
    n_nonzero = int(np.count_nonzero(d))
    if n_nonzero == 0:
        return MetricTest(1.0, 0.0, int(d.size), 0, "no-evidence")
    from scipy import stats as sps  # here, not at the top: `dhp score` sends before scipy is loaded

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=UserWarning)  # scipy's small-sample notes
        res = sps.wilcoxon(x, y, alternative="greater")
    return MetricTest(float(res.pvalue), float(res.statistic), int(d.size), n_nonzero, auto_method(d))


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


def _exact_tail_pvalues(b: _Batch, rows: npt.NDArray[np.intp], chunk: int = 2048) -> FloatArray:
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
    """Row-wise :func:`wilcoxon_greater` for 2-D arrays (one test per row), vectorised.

    Rows whose scipy ``auto`` choice is the normal approximation are computed in one pass with
    scipy's formula (zero differences dropped, tie-corrected variance, no continuity correction);
    rows that scipy would test exactly (at most 50 pairs) are delegated to :func:`wilcoxon_greater`.
    The golden tests hold both paths equal to scipy.
    """
    b = _batch(original, perturbed)
    exact = set(b.exact_rows().tolist())
    out: list[MetricTest] = []
    for r in range(b.d.shape[0]):
        if b.n_nonzero[r] == 0:
            out.append(MetricTest(1.0, 0.0, int(b.n_complete[r]), 0, "no-evidence"))
        elif r in exact:
            out.append(wilcoxon_greater(b.x[r], b.y[r]))
        else:
            out.append(
                MetricTest(
                    float(b.p_normal[r]),
                    float(b.r_plus[r]),
                    int(b.n_complete[r]),
                    int(b.n_nonzero[r]),
                    "asymptotic",
                )
            )
    return out


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
        rows = b.exact_rows()
        untied = rows[(b.tie[rows] == 0) & (b.n_complete[rows] == b.n_nonzero[rows])]
        p[untied] = exact_method_pvalues(b.n_nonzero[untied], b.r_plus[untied])
        perm = np.setdiff1d(rows, untied)
        if perm.size:
            p[perm] = _exact_tail_pvalues(b, perm)
    elif method == "exact":
        p = exact_method_pvalues(b.n_nonzero, b.r_plus)
    elif method == "permutation":
        rows = np.flatnonzero(b.n_nonzero > 0)
        if rows.size:
            p[rows] = _exact_tail_pvalues(b, rows)
    elif method not in ("asymptotic", "no-evidence"):
        raise ValueError(f"unknown Wilcoxon method {method!r}")
    return np.asarray(p, dtype=np.float64)


# ---------------------------------------------------------------------------------------------
# 2. Combining p-values across metrics
# ---------------------------------------------------------------------------------------------
def combine_pvalues(
    pvalues: npt.ArrayLike,
    weights: npt.ArrayLike | None = None,
    method: CombineMethod | str = CombineMethod.PAPER,
) -> FloatArray:
    """Combine p-values along the last axis. Works on a vector or a (replicates, metrics) array.

    NaN p-values (a metric with no usable pairs) are left out and the remaining weights used as
    they are (``paper``) or renormalised (``wilson*``). All NaN → NaN. Weights of 0 exclude a metric.
    """
    method = CombineMethod(method)
    p = np.asarray(pvalues, dtype=np.float64)
    if np.any(p[~np.isnan(p)] < 0) or np.any(p[~np.isnan(p)] > 1):
        raise ValueError("p-values must lie in [0, 1]")
    w = np.ones(p.shape[-1]) if weights is None else np.asarray(weights, dtype=np.float64)
    if w.shape != (p.shape[-1],):
        raise ValueError(f"need one weight per p-value: {w.shape} vs {p.shape[-1]}")
    if np.any(w < 0) or not np.all(np.isfinite(w)):
        raise ValueError("weights must be finite and non-negative")
    present = ~np.isnan(p)
    wp = np.where(present, w, 0.0)
    pf = np.where(present, np.maximum(p, P_FLOOR), 1.0)
    inv = (wp / pf).sum(axis=-1)
    wsum = wp.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        if method is CombineMethod.PAPER:
            out = 1.0 / inv
        else:
            hmp = wsum / inv  # weights normalised to sum 1 over the p-values present
            if method is CombineMethod.WILSON:
                out = hmp
            else:
                n_present = present.sum(axis=-1)
                loc = np.log(np.maximum(n_present, 1)) + _LANDAU_OFFSET
                from scipy import stats as sps

                out = sps.landau.sf(1.0 / hmp, loc=loc, scale=math.pi / 2)
    out = np.where(wsum > 0, np.minimum(out, 1.0), np.nan)
    return np.asarray(out, dtype=np.float64)


def discernment(p: npt.ArrayLike) -> FloatArray:
    """D = log_0.05(p), p floored at :data:`P_FLOOR`. NaN stays NaN (not computable)."""
    arr = np.asarray(p, dtype=np.float64)
    d = np.log(np.maximum(arr, P_FLOOR)) / math.log(0.05)
    return np.asarray(d + 0.0, dtype=np.float64)  # + 0.0 turns log(1) = -0.0 into 0.0


def level_balanced_weights(levels: Sequence[Level | str]) -> FloatArray:
    """Weights for D_avg: each level present gets 1/#levels, split equally within the level."""
    lv = [Level(x) for x in levels]
    present = sorted(set(lv), key=lambda v: "CWS".index(v.value))
    if not present:
        return np.zeros(0)
    per_level = {v: sum(1 for x in lv if x is v) for v in present}
    return np.array([1.0 / (len(present) * per_level[x]) for x in lv], dtype=np.float64)


def avg_min(d: FloatArray, levels: Sequence[Level]) -> tuple[FloatArray, FloatArray]:
    """Level-balanced mean and minimum over the last axis, ignoring NaN perturbations (vectorised)."""
    ok = ~np.isnan(d)
    lv = np.array([Level(x).value for x in levels])
    weights = np.zeros(d.shape, dtype=np.float64)
    n_levels = np.zeros(d.shape[:-1], dtype=np.float64)
    for level in np.unique(lv):
        in_level = ok & (lv == level)
        count = in_level.sum(axis=-1, keepdims=True)
        n_levels += count[..., 0] > 0
        with np.errstate(divide="ignore", invalid="ignore"):
            weights += np.where(in_level, 1.0 / count, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        avg = (np.where(ok, d, 0.0) * weights).sum(axis=-1) / n_levels
        mn = np.where(ok, d, np.inf).min(axis=-1)
    any_ok = ok.any(axis=-1)
    return np.where(any_ok, avg, np.nan), np.where(any_ok, mn, np.nan)


# ---------------------------------------------------------------------------------------------
# 3. A whole dataset, with bootstrap intervals
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Interval:
    low: float
    high: float


@dataclass(frozen=True)
class PerturbationAnalysis:
    perturbation: str
    level: Level
    tests: Mapping[str, MetricTest]  # metric -> test
    p: float
    p_ew: float
    d: float
    d_ew: float
    d_ci: Interval | None
    d_ew_ci: Interval | None


@dataclass(frozen=True)
class DatasetAnalysis:
    method: CombineMethod
    perturbations: tuple[PerturbationAnalysis, ...]
    d_avg: float
    d_min: float
    d_avg_ew: float
    d_min_ew: float
    ci: Mapping[str, Interval] = field(default_factory=dict)  # "d_avg", "d_min", "d_avg_ew", "d_min_ew"
    n_boot: int = 0
    seed: int = 0
    confidence: float = 0.95


@functools.lru_cache(maxsize=1024)
def interval_level(confidence: float, n_items: int | None) -> float:
    """The tail share ``alpha'`` each side of an interval over ``n_items`` resampled items: Hesterberg's
    *expanded percentile* (2015), ``Φ(−sqrt(n/(n−1)) · t_{n−1, 1−α/2})`` for ``α = 1 − confidence``.
    The plain percentile interval is too narrow at small n (the bootstrap's variance is (n−1)/n of
    the sample's, and its quantiles are normal where Student's t is due); this widens it by that
    much and no more: ``alpha'`` = 1.6% each side at n = 20, 2.0% at 40, 2.3% at 100 (2.5% as n grows).
    ``n_items`` is the sample the statistic rests on: for one D, :func:`ranked_pairs` of its tests.
    ``None`` or n < 2: the plain ``α/2``."""
    alpha = (1.0 - confidence) / 2.0
    if n_items is None or n_items < 2:
        return alpha
    from scipy import stats as sps

    t = float(sps.t.ppf(1.0 - alpha, n_items - 1))
    return float(sps.norm.cdf(-math.sqrt(n_items / (n_items - 1)) * t))


def ranked_pairs(tests: Sequence[MetricTest], weights: Sequence[float] | None = None) -> int | None:
    """The sample size an interval of a D made of ``tests`` is expanded for (:func:`interval_level`):
    the fewest pairs any of its tests ranks (non-zero differences; the Wilcoxon test drops zero
    differences, so an item whose scores tie enters only through how often it is drawn). With
    ``weights`` (D^EW), only the tests of positive weight enter. ``None`` when no test ranks a
    pair (no evidence in any replicate: nothing to expand)."""
    used = [t for i, t in enumerate(tests) if weights is None or weights[i] > 0]
    sizes = [t.n_nonzero for t in used if t.n_nonzero > 0]
    return min(sizes) if sizes else None


def interval(
    samples: FloatArray, confidence: float, estimate: float, n_items: int | None = None
) -> Interval | None:
    """The one interval construction of every D and every difference of D: the expanded percentile
    interval of the replicates (:func:`interval_level`, over ``n_items`` resampled items) joined with
    the point estimate (the smallest interval holding both), so the estimate lies in its interval by
    construction, and a verdict read off the interval agrees with it. Its calibration is measured by
    ``benchmarks/bench_calibration.py`` (docs/method.md).

    No interval when no replicate has a value, or when the estimate itself is missing (NaN).
    """
    s = samples[~np.isnan(samples)]
    if s.size == 0 or math.isnan(estimate):
        return None
    a = interval_level(confidence, n_items)
    lo, hi = np.quantile(s, [a, 1.0 - a])
    return Interval(min(float(lo), estimate), max(float(hi), estimate))


@dataclass(frozen=True)
class _Scores:
    """Validated, item-aligned score vectors of one dataset."""

    metrics: tuple[str, ...]
    pids: tuple[str, ...]
    orig: Mapping[str, FloatArray]
    pert: Mapping[str, Mapping[str, FloatArray]]
    n_items: int


def _scores(
    original: Mapping[str, npt.ArrayLike], perturbed: Mapping[str, Mapping[str, npt.ArrayLike]]
) -> _Scores:
    metrics, pids = tuple(original), tuple(perturbed)
    if not metrics or not pids:
        raise ValueError("need at least one metric and one perturbation")
    orig = {m: np.asarray(original[m], dtype=np.float64) for m in metrics}
    shapes = {v.shape for v in orig.values()}
    if len(shapes) != 1:
        raise ValueError("all original score vectors must have the same length")
    (shape,) = shapes
    pert: dict[str, dict[str, FloatArray]] = {}
    for pid in pids:
        missing = [m for m in metrics if m not in perturbed[pid]]
        if missing:
            raise ValueError(f"perturbation {pid!r} lacks scores for metrics {missing}")
        pert[pid] = {m: np.asarray(perturbed[pid][m], dtype=np.float64) for m in metrics}
        for m, v in pert[pid].items():
            if v.shape != shape:
                raise ValueError(f"{pid}/{m}: expected {shape[0]} item-aligned scores, got {v.shape}")
    return _Scores(metrics, pids, orig, pert, shape[0])


def _point_tests(sc: _Scores) -> dict[str, dict[str, MetricTest]]:
    pairs = [(pid, m) for pid in sc.pids for m in sc.metrics]
    flat = wilcoxon_greater_tests(
        np.stack([sc.orig[m] for _, m in pairs]), np.stack([sc.pert[pid][m] for pid, m in pairs])
    )
    tests: dict[str, dict[str, MetricTest]] = {pid: {} for pid in sc.pids}
    for (pid, m), t in zip(pairs, flat, strict=True):
        tests[pid][m] = t
    return tests


def _combine_rows(pmat: FloatArray, w_ew: FloatArray, method: CombineMethod) -> tuple[FloatArray, FloatArray]:
    """Per-perturbation D and D^EW from a (..., perturbations, metrics) p-value array (NaN = missing)."""
    d_un = discernment(combine_pvalues(pmat, None, method))
    d_ew = np.stack(
        [discernment(combine_pvalues(pmat[..., i, :], w_ew[i], method)) for i in range(w_ew.shape[0])],
        axis=-1,
    )
    return d_un, d_ew


@dataclass(frozen=True)
class _Bootstrap:
    d_ci: tuple[Interval | None, ...]
    d_ew_ci: tuple[Interval | None, ...]
    agg_ci: Mapping[str, Interval]


@dataclass(frozen=True)
class _Point:
    """The point estimates a bootstrap's intervals must hold, and the tests that made them."""

    tests: Mapping[str, Mapping[str, MetricTest]]
    d_un: FloatArray
    d_ew: FloatArray
    aggregates: Mapping[str, float]  # "d_avg", "d_min", "d_avg_ew", "d_min_ew"


def _replicate_pvalues(
    sc: _Scores, tests: Mapping[str, Mapping[str, MetricTest]], idx: IntArray
) -> FloatArray:
    """(replicates, perturbations, metrics) p-values, each test by its point estimate's method.

    One draw of item indices per replicate (a row of ``idx``), shared by every test. A metric whose
    resample has no complete pair is missing in that replicate (NaN), as in the point estimate.
    """
    bp = np.empty((idx.shape[0], len(sc.pids), len(sc.metrics)))
    for j, m in enumerate(sc.metrics):
        xo = sc.orig[m][idx]
        for i, pid in enumerate(sc.pids):
            xp = sc.pert[pid][m][idx]
            p = wilcoxon_greater_batch(xo, xp, method=tests[pid][m].method)
            no_pair = ~(~np.isnan(xo) & ~np.isnan(xp)).any(axis=1)
            bp[:, i, j] = np.where(no_pair, np.nan, p)
    return bp


@dataclass(frozen=True)
class Replicates:
    """One judge's D values in every bootstrap replicate (a row of the item draw): what its
    intervals, and a comparison of two judges on the same draw, are read from."""

    d: FloatArray  # (replicates, perturbations) unweighted D
    d_ew: FloatArray  # (replicates, perturbations) D^EW
    aggregates: Mapping[str, FloatArray]  # "d_avg", "d_min", "d_avg_ew", "d_min_ew" -> (replicates,)


def draw_items(n_items: int, n_boot: int, rng: np.random.Generator) -> IntArray:
    """(n_boot, n_items) item indices drawn with replacement: one resample of the items per row."""
    return rng.integers(0, n_items, size=(n_boot, n_items))


def _replicates(
    sc: _Scores,
    lv: Sequence[Level],
    w_ew: FloatArray,
    method: CombineMethod,
    tests: Mapping[str, Mapping[str, MetricTest]],
    idx: IntArray,
) -> Replicates:
    bd_un, bd_ew = _combine_rows(_replicate_pvalues(sc, tests, idx), w_ew, method)
    (a, mn), (a_ew, mn_ew) = avg_min(bd_un, lv), avg_min(bd_ew, lv)
    return Replicates(bd_un, bd_ew, {"d_avg": a, "d_min": mn, "d_avg_ew": a_ew, "d_min_ew": mn_ew})


def replicates(
    original: Mapping[str, npt.ArrayLike],
    perturbed: Mapping[str, Mapping[str, npt.ArrayLike]],
    levels: Mapping[str, Level],
    weights: Mapping[str, Mapping[str, float]],
    point: DatasetAnalysis,
    idx: IntArray,
) -> Replicates:
    """The D values of ``point`` (an :func:`analyse` of these scores) in every resample ``idx`` (rows
    of item indices, e.g. :func:`draw_items`): every test by its point test's method, combined and
    aggregated as the point was. :func:`analyse`'s intervals come from here, and ``dhp compare``
    runs two judges through it on one draw."""
    sc = _scores(original, perturbed)
    lv = [levels[pid] for pid in sc.pids]
    w_ew = np.array([[float(weights[pid].get(m, 0.0)) for m in sc.metrics] for pid in sc.pids])
    tests = {pa.perturbation: pa.tests for pa in point.perturbations}
    return _replicates(sc, lv, w_ew, point.method, tests, idx)


def _bootstrap(
    sc: _Scores,
    lv: Sequence[Level],
    w_ew: FloatArray,
    method: CombineMethod,
    point: _Point,
    boot: tuple[int, int, float],
) -> _Bootstrap:
    """Item-level bootstrap intervals (``boot`` = n_boot, seed, confidence) around ``point``.

    A replicate where a perturbation has no usable metric gives it no D.
    """
    n_boot, seed, confidence = boot
    idx = draw_items(sc.n_items, n_boot, np.random.default_rng(seed))
    rep = _replicates(sc, lv, w_ew, method, point.tests, idx)
    agg: dict[str, Interval] = {}
    for name, arr in rep.aggregates.items():
        iv = interval(arr, confidence, point.aggregates[name], sc.n_items)
        if iv is not None:
            agg[name] = iv
    d_ci, d_ew_ci = [], []
    for i, pid in enumerate(sc.pids):
        tests = [point.tests[pid][m] for m in sc.metrics]
        d_ci.append(interval(rep.d[:, i], confidence, float(point.d_un[i]), ranked_pairs(tests)))
        n_ew = ranked_pairs(tests, w_ew[i].tolist())
        d_ew_ci.append(interval(rep.d_ew[:, i], confidence, float(point.d_ew[i]), n_ew))
    return _Bootstrap(tuple(d_ci), tuple(d_ew_ci), agg)


def analyse(
    original: Mapping[str, npt.ArrayLike],
    perturbed: Mapping[str, Mapping[str, npt.ArrayLike]],
    levels: Mapping[str, Level],
    weights: Mapping[str, Mapping[str, float]],
    method: CombineMethod | str = CombineMethod.PAPER,
    n_boot: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> DatasetAnalysis:
    """All DHP numbers for one dataset and judge.

    ``original[metric]`` and ``perturbed[perturbation][metric]`` are item-aligned score vectors of
    equal length N (NaN = no score: unparsed, not applicable, failed). ``levels[perturbation]`` and
    ``weights[perturbation][metric]`` come from the dataset spec. Missing means missing: a metric
    with no complete pair is left out of its perturbation's combination, and a perturbation with no
    such metric has p = D = NaN and is left out of D_avg and D_min. ``n_boot = 0`` skips the
    bootstrap; otherwise items are resampled with replacement (one draw of N item indices per
    replicate, shared by every perturbation and metric, so D_avg and D_min get intervals too), from
    ``numpy.random.default_rng(seed)``.
    """
    method = CombineMethod(method)
    sc = _scores(original, perturbed)
    lv = [levels[pid] for pid in sc.pids]
    w_ew = np.array([[float(weights[pid].get(m, 0.0)) for m in sc.metrics] for pid in sc.pids])
    tests = _point_tests(sc)
    pmat = np.array([[_usable_p(tests[pid][m]) for m in sc.metrics] for pid in sc.pids])
    p_un = combine_pvalues(pmat, None, method)
    p_ew = np.array([combine_pvalues(pmat[i], w_ew[i], method) for i in range(len(sc.pids))])
    d_un, d_ew = discernment(p_un), discernment(p_ew)
    (d_avg, d_min), (d_avg_ew, d_min_ew) = avg_min(d_un, lv), avg_min(d_ew, lv)
    aggregates = {"d_avg": float(d_avg), "d_min": float(d_min), "d_avg_ew": float(d_avg_ew)}
    point = _Point(tests, d_un, d_ew, {**aggregates, "d_min_ew": float(d_min_ew)})
    boot = _bootstrap(sc, lv, w_ew, method, point, (n_boot, seed, confidence)) if n_boot > 0 else None
    per = tuple(
        PerturbationAnalysis(
            perturbation=pid,
            level=lv[i],
            tests=tests[pid],
            p=float(p_un[i]),
            p_ew=float(p_ew[i]),
            d=float(d_un[i]),
            d_ew=float(d_ew[i]),
            d_ci=boot.d_ci[i] if boot else None,
            d_ew_ci=boot.d_ew_ci[i] if boot else None,
        )
        for i, pid in enumerate(sc.pids)
    )
    return DatasetAnalysis(
        method=method,
        perturbations=per,
        d_avg=float(d_avg),
        d_min=float(d_min),
        d_avg_ew=float(d_avg_ew),
        d_min_ew=float(d_min_ew),
        ci=dict(boot.agg_ci) if boot else {},
        n_boot=n_boot,
        seed=seed,
        confidence=confidence,
    )


def _usable_p(t: MetricTest) -> float:
    """A test's p-value for combining: NaN (missing) when the metric had no complete pair."""
    return t.pvalue if t.n_pairs > 0 else math.nan
