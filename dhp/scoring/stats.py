"""DHP statistics (paper v1 §4.3; SPEC §5) as pure functions over arrays. No I/O.

Pipeline for one dataset, per perturbation i and metric m_j:

1. ``p_{m_j}^i`` — one-sided paired Wilcoxon signed-rank test, H1: original > perturbed
   (:func:`dhp.scoring.wilcoxon.wilcoxon_greater`, exactly ``scipy.stats.wilcoxon(S0, Si, alternative="greater")``).
2. ``p^i`` / ``p^{i,EW}`` — the metrics' p-values combined (:func:`combine_pvalues`):

   * ``paper``: the paper's printed formulas, ``1 / Σ_j w_j / p_j`` with ``w_j = 1`` (unweighted) or
     the expert weights (which sum to 1).
   * ``wilson``: Wilson's (2019) weighted harmonic mean p-value with weights normalised to sum 1,
     ``Σ w_j / Σ (w_j / p_j)``. Unweighted it is ``M / Σ 1/p_j``: M times the paper's value.
   * ``wilson-landau``: Wilson's asymptotically exact calibration of that HMP,
     ``P(X > 1/HMP)`` with ``X ~ Landau(log L + 0.874, π/2)`` (``scipy.stats.landau``), L = number of
     p-values combined. It is exact as L grows; for the 1-4 metrics of DHP it is an approximation.

3. ``D = log_0.05(p)`` with p floored at :data:`P_FLOOR` (so ``D <= D_MAX``, finite).
   :func:`perturbation_d` is the one place steps 2 and 3 are composed: every D in the package
   (results, re-weighting, compare, caveats, the board's ranks and tables) is made there.
4. ``D_avg``: level-balanced mean (each level present weighs the same, split equally among its
   perturbations); ``D_min``: the minimum. Both with and without expert weights.
5. Item-level bootstrap confidence intervals for every D (:func:`dhp.scoring.analysis.analyse`),
   each :func:`interval`.

"""

from __future__ import annotations

import enum
import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from dhp.scoring.wilcoxon import MetricTest
from dhp.types import Level

__all__ = [
    "D_MAX",
    "P_FLOOR",
    "CombineMethod",
    "Interval",
    "avg_min",
    "combine_pvalues",
    "discernment",
    "interval",
    "interval_level",
    "level_balanced_weights",
    "perturbation_d",
    "ranked_pairs",
    "share_lower",
]

FloatArray = npt.NDArray[np.float64]

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


def perturbation_d(
    pvalues: npt.ArrayLike,
    weights: npt.ArrayLike | None = None,
    method: CombineMethod | str = CombineMethod.PAPER,
) -> tuple[FloatArray, FloatArray]:
    """The one D chain: ``(p, D)`` of each perturbation from its metrics' p-values (last axis).

    ``pvalues``: (..., metrics) or (..., perturbations, metrics), NaN = a metric without a usable
    pair. ``weights``: ``None`` (unweighted), one weight per metric (every row alike), or one row of
    metric weights per perturbation, shape (perturbations, metrics) (D^EW, each perturbation its own
    expert weights). p is :func:`combine_pvalues` by ``method``; D is :func:`discernment` of it.
    """
    p_all = np.asarray(pvalues, dtype=np.float64)
    w = None if weights is None else np.asarray(weights, dtype=np.float64)
    if w is None or w.ndim == 1:
        p = combine_pvalues(p_all, w, method)
    else:
        if p_all.ndim < 2 or w.shape != p_all.shape[-2:]:
            raise ValueError(f"per-perturbation weights {w.shape} do not match p-values {p_all.shape}")
        rows: dict[tuple[float, ...], list[int]] = {}  # one combination per distinct weight row
        for i, row in enumerate(w.tolist()):
            rows.setdefault(tuple(row), []).append(i)
        p = np.empty(p_all.shape[:-1], dtype=np.float64)
        for row, idx in rows.items():
            p[..., idx] = combine_pvalues(p_all[..., idx, :], np.array(row), method)
    return p, discernment(p)


def share_lower(original: npt.ArrayLike, perturbed: npt.ArrayLike) -> FloatArray:
    """The effect beside D: the share of complete pairs whose perturbed text was scored lower than its
    original, ties counted half (0.5 = blind or chance, 1 = every pair lower), over the last axis
    (NaN when no pair is complete). It does not grow with the number of pairs, so a 4-pair
    perturbation's effect sits beside a 100-pair one's; with its bootstrap interval it says how
    sure that share is."""
    d = np.asarray(original, dtype=np.float64) - np.asarray(perturbed, dtype=np.float64)
    complete = ~np.isnan(d)
    score = np.where(d > 0, 1.0, np.where(d == 0, 0.5, 0.0))
    n = complete.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(complete, score, 0.0).sum(axis=-1) / n
    return np.asarray(np.where(n > 0, out, np.nan), dtype=np.float64)


def level_balanced_weights(levels: Sequence[Level | str]) -> FloatArray:
    """Weights for D_avg: each level present gets 1/#levels, split equally within the level."""
    lv = [Level(x) for x in levels]
    present = sorted(set(lv), key=lambda v: "CWS".index(v.value))
    if not present:
        return np.zeros(0)
    per_level = {v: sum(1 for x in lv if x is v) for v in present}
    return np.array([1.0 / (len(present) * per_level[x]) for x in lv], dtype=np.float64)


def avg_min(d: FloatArray, levels: Sequence[Level]) -> tuple[FloatArray, FloatArray]:
    """Level-balanced mean and minimum over the last axis, ignoring NaN perturbations (vectorised);
    NaN where no perturbation has a value (none at all, too: the few-pairs rule may leave none)."""
    if d.shape[-1] == 0:
        nan = np.full(d.shape[:-1], np.nan)
        return nan, nan.copy()
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
# Intervals
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Interval:
    low: float
    high: float


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
