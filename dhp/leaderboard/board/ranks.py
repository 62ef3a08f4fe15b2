"""Ranks with their uncertainty (issue 20): rank ranges from a joint bootstrap over items.

Arena-style: in every bootstrap replicate the items are resampled *once for all judges*, every
judge's Overall D_avg is recomputed on that resample, and the judges are ranked; a judge's rank
range is the percentile interval of its rank over the replicates (95 %), joined with its rank by
the point estimate (so the range always holds the row's place in the table). The rows stay sorted
by the point estimate. Judges whose Overall moves together with others' across resamples share
ranks only when the resamples actually reorder them, which separate per-judge intervals cannot say.

How items are resampled (the contract):

* **Fixed-size joint draws.** Replicate b draws, for each perturbation of a result, exactly as
  many items as that perturbation has pairs (items with a complete pair in some metric), uniformly
  with replacement from them (:func:`dhp.scoring.pairs.pool_draw`), slot j from uniform
  ``u[b, j]`` of the dataset (:func:`dataset_uniforms`: ``numpy.random.default_rng([seed, h])``,
  ``h`` the first 8 bytes of SHA-256 of the dataset's name; column j is the same whatever the
  width). A resample's size is the observed one, so an interval or rank range measures the judge,
  not the draw's size (a Poisson bootstrap's replicate held 75-129 of 100 items, and the Overall's
  interval followed that count). Judges that scored the same items (the board's usual case) get
  the same items in every replicate: the resample is joint. Each result's replicates are computed
  once, when the file is read, and cached with it.
* Per result (:func:`replicate_pvalues`), every (perturbation, metric) Wilcoxon test is redone on
  each replicate as :mod:`dhp.scoring.stats` does for its intervals (the method of the stored point
  test, as scipy defines it: ``exact``, ``permutation`` or the normal approximation; a replicate
  with no complete pair has no p-value). The exact and normal tests are computed from the
  draw's multiplicities alone (W+, the count and the tie term per replicate, no expanded resample; the
  exact null distribution tabled once per size), so a file costs milliseconds. The p-values are kept (their logs, float32), so D_avg under any expert weights (the survey's too)
  is recombined from them without retesting (:meth:`ReplicatePvalues.d_avg`).
* The Overall's interval (:func:`overall_intervals`) comes from the same replicates: the interval
  of a judge's replicate Overall around its point Overall. D_avg counts only the perturbations the
  few-pairs rule counts (:data:`dhp.spec.MIN_PAIRS`, each result's ``counted``), as its summary does.
* Per view (:func:`joint_rank_ranges`): a judge's Overall in replicate b is the mean of its chosen
  datasets' replicate D_avg. A judge without replicates on a dataset (a result without item scores)
  enters that dataset with its point D_avg in every replicate. In each replicate a judge's rank is
  1 + the number of judges with a strictly higher Overall (a replicate without a value ranks last).
"""

from __future__ import annotations

import functools
import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from dhp.scoring.pairs import pool_draw
from dhp.scoring.results import PerturbationResult, Result
from dhp.scoring.stats import CombineMethod, avg_min, interval, perturbation_d
from dhp.scoring.wilcoxon import exact_method_pvalues, wilcoxon_greater_batch
from dhp.types import Level

__all__ = [
    "RANK_N_BOOT",
    "RANK_SEED",
    "RankSamples",
    "ReplicatePvalues",
    "dataset_uniforms",
    "joint_rank_ranges",
    "overall_intervals",
    "pool_counts",
    "rank_range",
    "replicate_pvalues",
]

FloatArray = npt.NDArray[np.float64]
#: Replicates of the joint bootstrap behind the leaderboard's rank ranges, and its seed.
RANK_N_BOOT = 200
RANK_SEED = 0
#: The rank range's coverage.
RANK_CONFIDENCE = 0.95


def rank_range(best: int, worst: int) -> str:
    """``"3"`` or ``"2–5"``."""
    return str(best) if best == worst else f"{best}–{worst}"


@functools.lru_cache(maxsize=64)
def dataset_uniforms(
    dataset: str, width: int, n_boot: int = RANK_N_BOOT, seed: int = RANK_SEED
) -> FloatArray:
    """(n_boot, width) uniforms of one dataset's joint draws, a function of (dataset, seed) only:
    column j is the same for every width above j (drawn slot-major)."""
    h = int.from_bytes(hashlib.sha256(dataset.encode()).digest()[:8], "big")
    u = np.random.default_rng([seed, h]).random((width, n_boot)).T.copy()
    u.setflags(write=False)
    return u


def pool_counts(u: FloatArray, pool: npt.NDArray[np.int64], n_items: int) -> npt.NDArray[np.int64]:
    """(replicates, n_items) multiplicities of :func:`~dhp.scoring.pairs.pool_draw`: each row
    sums to the pool's size."""
    idx = pool_draw(u, pool)
    n_boot = u.shape[0]
    flat = (idx + np.arange(n_boot, dtype=np.int64)[:, None] * n_items).ravel()
    return np.bincount(flat, minlength=n_boot * n_items).reshape(n_boot, n_items).astype(np.int64)


@dataclass(frozen=True)
class ReplicatePvalues:
    """One result's per-(perturbation, metric) p-values in every joint-bootstrap replicate."""

    perturbations: tuple[str, ...]
    levels: tuple[Level, ...]
    metrics: tuple[str, ...]
    # (replicates, perturbations, metrics) natural logs of the p-values, float32: half the memory of
    # p-values in float64 without losing the tiny ones (float32 p-values flush below 1e-38 to 0);
    # NaN: no complete pair
    log_p: npt.NDArray[np.float32]

    @property
    def pvalues(self) -> FloatArray:
        """(replicates, perturbations, metrics) p-values, float64."""
        return np.exp(self.log_p.astype(np.float64))

    method: CombineMethod
    weights: Mapping[str, Mapping[str, float]]  # the weights the result was scored with
    counted: tuple[bool, ...] = ()  # per perturbation: the few-pairs rule counts it (empty: all)

    @functools.cached_property
    def scored(self) -> tuple[FloatArray, FloatArray]:
        """(D_avg, D_avg^EW under the scored weights) per replicate, computed once (when read)."""
        return self.d_avg(None), self.d_avg(self.weights)

    def d_avg(self, weights: Mapping[str, Mapping[str, float]] | None) -> FloatArray:
        """(replicates,) level-balanced D_avg: unweighted (``None``) or with these expert weights."""
        w = None
        if weights is not None:
            w = np.array(
                [
                    [float(weights.get(pid, {}).get(m, 0.0)) for m in self.metrics]
                    for pid in self.perturbations
                ]
            )
        d = perturbation_d(self.pvalues, w, self.method)[1]
        keep = np.array(self.counted or [True] * len(self.perturbations), dtype=bool)
        if not keep.any():
            return np.full(d.shape[0], np.nan)
        return avg_min(d[:, keep], [lv for lv, k in zip(self.levels, keep.tolist(), strict=True) if k])[0]


@dataclass(frozen=True)
class _ResampleStats:
    """Per (cell, replicate): W+, the non-zero count, Σ(t³ − t) over tie groups, complete pairs."""

    r_plus: FloatArray
    n: FloatArray
    tie: FloatArray
    n_complete: FloatArray


def _resample_stats(d: FloatArray, counts: npt.NDArray[np.int64]) -> _ResampleStats:
    """The signed-rank statistics of each row of paired differences ``d`` (cells × items; NaN = no
    complete pair) resampled with ``counts`` (replicates × items), computed from the multiplicities
    for every cell at once, without expanding or sorting per replicate (zero differences dropped,
    average ranks over ties): what the expanded resample gives."""
    n_cells, n_boot = d.shape[0], counts.shape[0]
    complete = ~np.isnan(d)
    # (items, replicates), float32: every count, rank sum and tie term below is a multiple of 1/2
    # far below 2**24, so exact; rows gather fast
    counts_t = np.ascontiguousarray(counts.T, dtype=np.float32)
    n_complete = (complete.astype(np.float32) @ counts_t).astype(np.float64)  # (cells, replicates)
    r_plus, n, tie = (np.zeros((n_cells, n_boot)) for _ in range(3))
    cell, item = np.nonzero(complete & (d != 0))
    if cell.size:
        a = np.abs(d[cell, item])
        order = np.lexsort((a, cell))
        cell, item, a = cell[order], item[order], a[order]
        starts = np.flatnonzero(np.r_[True, (cell[1:] != cell[:-1]) | (a[1:] != a[:-1])])
        c = counts_t[item]  # (valid pairs, replicates)
        t = np.add.reduceat(c, starts, axis=0)  # (tie groups, replicates): copies per |d| within a cell
        c[d[cell, item] < 0] = 0
        pos = np.add.reduceat(c, starts, axis=0)  # of which positive differences
        g_cell = cell[starts]
        firsts = np.flatnonzero(np.r_[True, g_cell[1:] != g_cell[:-1]])  # each present cell's first group
        cum = np.cumsum(t, axis=0)
        before = np.where(
            (firsts > 0)[:, None], cum[np.maximum(firsts - 1, 0)], np.float32(0)
        )  # earlier cells
        avg_rank = cum - np.repeat(before, np.diff(np.r_[firsts, t.shape[0]]), axis=0) - (t - 1.0) / 2.0
        present = g_cell[firsts]
        r_plus[present] = np.add.reduceat(pos * avg_rank, firsts, axis=0)
        n[present] = np.add.reduceat(t, firsts, axis=0)
        tie[present] = np.add.reduceat(t * t * t - t, firsts, axis=0)
    return _ResampleStats(r_plus, n, tie, n_complete)


def _normal_log_pvalues(st: _ResampleStats) -> FloatArray:
    """(cells, replicates) natural logs of the tie-corrected normal approximation's p-values:
    exactly what :func:`~dhp.scoring.wilcoxon.wilcoxon_greater_batch` with ``method="asymptotic"``
    gives on the expanded resample (no non-zero difference: p = 1)."""
    from scipy.special import log_ndtr

    n = st.n
    var = (n * (n + 1.0) * (2.0 * n + 1.0) - st.tie / 2.0) / 24.0
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (st.r_plus - n * (n + 1.0) * 0.25) / np.sqrt(var)
    # the log of the normal upper tail (scipy.stats.norm.sf), exact far below the smallest double
    return np.where(n == 0, 0.0, log_ndtr(-z))


def _exact_log_pvalues(st: _ResampleStats) -> FloatArray:
    """(cells, replicates) natural logs of scipy's ``method="exact"`` p-values on the expanded
    resample (the untied null distribution of its non-zero count at floor(W+), tables cached per n)."""
    with np.errstate(divide="ignore"):
        return np.log(exact_method_pvalues(st.n, st.r_plus))


def _permutation_pvalues(xo: FloatArray, xp: FloatArray, idx: npt.NDArray[np.int64]) -> FloatArray:
    """(replicates,) p-values by the exhaustive tie-aware sign-flip test on the expanded resample
    (``idx``: replicates × resample size); only for point tests of at most 13 pairs, so the
    resamples are small."""
    return wilcoxon_greater_batch(xo[idx], xp[idx], method="permutation")


def _vec(values: Sequence[float | None]) -> FloatArray:
    return np.array([math.nan if v is None else v for v in values], dtype=np.float64)


def _stored_method(p: PerturbationResult, metric: str) -> str:
    """The method of the stored point test (the normal approximation when none is stored)."""
    stored = p.metrics.get(metric)
    return stored.test_method if stored is not None and stored.test_method else "asymptotic"


def replicate_pvalues(
    result: Result, n_boot: int = RANK_N_BOOT, seed: int = RANK_SEED
) -> ReplicatePvalues | None:
    """The joint-bootstrap p-values of one result (see the module docstring); None without item scores."""
    s = result.scores
    if s is None or not s.item_ids or not s.original:
        return None
    n_items = len(s.item_ids)
    u = dataset_uniforms(result.dataset.name, n_items, n_boot, seed)
    metrics = tuple(s.original)
    per = [p for p in result.perturbations if p.id in s.perturbed]
    out = np.full((n_boot, len(per), len(metrics)), np.nan, dtype=np.float32)
    orig = {m: _vec(s.original[m]) for m in metrics}
    for i, p in enumerate(per):
        pert = {m: _vec(s.perturbed[p.id][m]) for m in metrics}
        d = np.stack([orig[m] - pert[m] for m in metrics])  # (metrics, items)
        pool = np.flatnonzero((~np.isnan(d)).any(axis=0)).astype(np.int64)
        if pool.size == 0:
            continue
        st = _resample_stats(d, pool_counts(u, pool, n_items))
        methods = [_stored_method(p, m) for m in metrics]
        exact = np.array([m == "exact" for m in methods])
        log_p = np.where(exact[:, None], _exact_log_pvalues(st), _normal_log_pvalues(st))
        for j, m in enumerate(metrics):
            if methods[j] == "permutation":
                with np.errstate(divide="ignore"):
                    log_p[j] = np.log(_permutation_pvalues(orig[m], pert[m], pool_draw(u, pool)))
        out[:, i, :] = np.where(st.n_complete > 0, log_p, np.nan).T
    rp = ReplicatePvalues(
        tuple(p.id for p in per),
        tuple(p.level for p in per),
        metrics,
        out,
        result.scoring.combine_method,
        result.scoring.weights,
        tuple(p.counted for p in per),
    )
    _ = rp.scored  # now, while the file is read, not at every table build
    return rp


@dataclass(frozen=True)
class RankSamples:
    """Per (dataset, weighted), judge -> its replicate D_avg (``weighted``: D_avg^EW) on that dataset."""

    n_boot: int
    by: Mapping[tuple[str, bool], Mapping[str, FloatArray]]

    @classmethod
    def of(
        cls,
        replicates: Mapping[str, Mapping[str, ReplicatePvalues | None]],
        ew_weights: Mapping[str, Mapping[str, Mapping[str, float]]] | None = None,
        n_boot: int = RANK_N_BOOT,
    ) -> RankSamples:
        """From judge -> dataset -> its result's replicates; D^EW under ``ew_weights`` (dataset ->
        perturbation -> metric -> weight, e.g. the survey's) where they cover every perturbation of
        the result, else under the weights it was scored with (as the table's reweighting does)."""
        by: dict[tuple[str, bool], dict[str, FloatArray]] = {}
        for judge, per in replicates.items():
            for ds, rp in per.items():
                if rp is None or rp.log_p.shape[0] != n_boot:
                    continue
                w = (ew_weights or {}).get(ds)
                covered = w is not None and all(p in w for p in rp.perturbations)
                by.setdefault((ds, True), {})[judge] = rp.d_avg(w) if covered else rp.scored[1]
                by.setdefault((ds, False), {})[judge] = rp.scored[0]
        return cls(n_boot, by)

    def overall(
        self, judges: Sequence[str], datasets: Sequence[str], weighted: bool, points: FloatArray
    ) -> FloatArray:
        """(judges, replicates) Overall: the mean over ``datasets`` of the replicate D_avg; a judge
        without replicates on a dataset uses its point value there (``points``: judges × datasets)."""
        out = np.zeros((len(judges), self.n_boot))
        for k, ds in enumerate(datasets):
            have = self.by.get((ds, weighted), {})
            for j, judge in enumerate(judges):
                rep = have.get(judge)
                out[j] += points[j, k] if rep is None else rep
        return out / max(len(datasets), 1)


def overall_intervals(
    samples: RankSamples,
    judges: Sequence[str],
    datasets: Sequence[str],
    weighted: bool,
    points: FloatArray,
    confidence: float = RANK_CONFIDENCE,
) -> tuple[FloatArray, FloatArray]:
    """(low, high) of each judge's Overall (the mean over ``datasets`` of its D_avg; ``points``:
    judges × datasets) from the joint bootstrap the rank ranges use: the interval
    (:func:`dhp.scoring.stats.interval`) of its replicate Overall around its point Overall. NaN where
    the Overall is missing, or a chosen dataset has no replicates of the judge (a result without
    item scores: its Overall has no interval, rather than one that pretends that dataset is fixed)."""
    pts = np.asarray(points, dtype=np.float64).reshape(len(judges), len(datasets))
    rows = samples.overall(judges, datasets, weighted, pts)
    low, high = np.full(len(judges), math.nan), np.full(len(judges), math.nan)
    for j, judge in enumerate(judges):
        point = float(pts[j].mean()) if datasets else math.nan
        if not math.isfinite(point) or any(judge not in samples.by.get((d, weighted), {}) for d in datasets):
            continue
        iv = interval(rows[j], confidence, point)
        if iv is not None:
            low[j], high[j] = iv.low, iv.high
    return low, high


def joint_rank_ranges(
    points: Sequence[float], samples: FloatArray, confidence: float = RANK_CONFIDENCE
) -> list[tuple[int, int] | None]:
    """(best, worst) rank of each judge from its point Overall and its (replicates,) Overall row in
    ``samples`` (judges × replicates); None for a judge without a point estimate (it is not ranked).

    Ranks are competition ranks (1 + the number strictly higher) among the judges with a point
    estimate; the range is the percentile interval of the replicate ranks joined with the point rank.
    """
    pt = np.asarray(points, dtype=np.float64)
    ranked = np.flatnonzero(np.isfinite(pt))
    out: list[tuple[int, int] | None] = [None] * pt.size
    if ranked.size == 0:
        return out
    vals = pt[ranked]
    point_rank = 1 + (vals[None, :] > vals[:, None]).sum(axis=1)
    sm = np.where(np.isfinite(samples[ranked]), samples[ranked], -np.inf)  # (judges, replicates)
    order = np.sort(sm, axis=0)  # per replicate, ascending
    # rank = 1 + number strictly higher in the same replicate
    higher = sm.shape[0] - np.stack(
        [np.searchsorted(order[:, b], sm[:, b], side="right") for b in range(sm.shape[1])], axis=1
    )
    ranks = 1 + higher
    alpha = (1.0 - confidence) / 2.0
    lo = np.floor(np.quantile(ranks, alpha, axis=1)).astype(int)
    hi = np.ceil(np.quantile(ranks, 1.0 - alpha, axis=1)).astype(int)
    for k, j in enumerate(ranked):
        out[int(j)] = (min(int(lo[k]), int(point_rank[k])), max(int(hi[k]), int(point_rank[k])))
    return out
