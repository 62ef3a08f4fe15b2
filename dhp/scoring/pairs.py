"""The pairs of a perturbation: which items a resample draws from, fixed-size draws, the effect.

Every bootstrap of the project (a judge's intervals, ``dhp compare``, the board's Overall and rank
ranges) resamples exactly the observed number of pairs of each perturbation (issue 35): a row of
uniforms per replicate (:func:`draw_uniforms`, or the board's per-dataset ones) becomes items of a
perturbation's pool (:func:`complete_pool`) by :func:`pool_draw`. The effect beside D is the share of
pairs scored lower (:func:`dhp.scoring.stats.share_lower`), metrics averaged by expert weight
(:func:`weighted_effects`, :func:`effect_of`). Pure functions.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from dhp.scoring.stats import share_lower

__all__ = ["complete_pool", "draw_uniforms", "effect_of", "pool_draw", "weighted_effects"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def complete_pool(original: Sequence[npt.ArrayLike], perturbed: Sequence[npt.ArrayLike]) -> IntArray:
    """The items of one perturbation that a replicate draws from, from its metrics' item-aligned
    scores: those with a complete pair in some metric (an item without a row, or whose every score
    failed, carries nothing)."""
    o = np.array([np.asarray(x, dtype=np.float64) for x in original])
    q = np.array([np.asarray(x, dtype=np.float64) for x in perturbed])
    if o.size == 0:
        return np.zeros(0, dtype=np.int64)
    return np.flatnonzero((~np.isnan(o) & ~np.isnan(q)).any(axis=0)).astype(np.int64)


def draw_uniforms(n_items: int, n_boot: int, rng: np.random.Generator) -> FloatArray:
    """(n_boot, n_items) uniforms on [0, 1): one row per replicate, turned into items by :func:`pool_draw`."""
    return rng.random((n_boot, n_items))


def pool_draw(u: FloatArray, pool: IntArray, size: int | None = None) -> IntArray:
    """(replicates, len(pool)) items: every replicate draws exactly as many items of ``pool`` as it
    holds, uniformly with replacement, slot j from column j of ``u``. A resample's size is the
    observed number of pairs, so a D's interval measures the judge, not the draw's size; and every
    perturbation with the same pool (usually all items) gets the same items in a replicate, so
    D_avg and D_min see one resample of the items. ``size`` (at most ``u``'s columns) draws that many
    instead: D at a fixed number of pairs, comparable between two samples of different sizes
    (:mod:`dhp.scoring.fits`)."""
    n = int(pool.size)
    m = n if size is None else size
    if n == 0:
        return np.zeros((u.shape[0], 0), dtype=np.int64)
    return pool[np.minimum((u[:, :m] * n).astype(np.int64), n - 1)]


def weighted_effects(shares: FloatArray, w_ew: FloatArray) -> FloatArray:
    """(..., perturbations) effect: each perturbation's metric shares (..., perturbations, metrics)
    averaged by its expert weights over the metrics that have pairs (NaN: none of weight > 0)."""
    ok = ~np.isnan(shares)
    w = np.where(ok, w_ew, 0.0)
    total = w.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = (np.where(ok, shares, 0.0) * w).sum(axis=-1) / total
    return np.where(total > 0, out, np.nan)


def effect_of(
    original: Mapping[str, npt.ArrayLike],
    perturbed: Mapping[str, npt.ArrayLike],
    weights: Mapping[str, float],
) -> tuple[int, float]:
    """One perturbation's pair count (items with a complete pair in some metric) and effect (the
    share of pairs scored lower, metrics by ``weights``), from its item-aligned scores by metric:
    what :func:`dhp.scoring.analysis.analyse` reports, for a result read without them (a schema migration)."""
    metrics = [m for m in original if m in perturbed]
    o = np.array([np.asarray(original[m], dtype=np.float64) for m in metrics])
    q = np.array([np.asarray(perturbed[m], dtype=np.float64) for m in metrics])
    n = int(complete_pool(list(o), list(q)).size)
    w = np.array([float(weights.get(m, 0.0)) for m in metrics])
    return n, float(weighted_effects(share_lower(o, q)[None, :], w[None, :])[0]) if metrics else math.nan
