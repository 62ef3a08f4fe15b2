"""One judge on one dataset: every DHP number with its bootstrap intervals (:func:`analyse`), pure.

The score vectors go in, a :class:`DatasetAnalysis` comes out: each perturbation's metric tests
(:mod:`dhp.scoring.wilcoxon`), its p and D with and without expert weights
(:func:`dhp.scoring.stats.perturbation_d`), D_avg and D_min, and item-level bootstrap intervals
for all of them (:func:`dhp.scoring.stats.interval`).

Bootstrap intervals (:func:`analyse`, :func:`replicates`; ``dhp compare`` and the board use the
same): each resample is tested with the method its point estimate used, as scipy defines that
method, never with its own ``auto`` choice. Resamples repeat items, so they have ties; were a
40-pair exact point estimate's resamples sent to the normal approximation, their D would sit far
below the estimate (the lexical judge at ``--limit 40``: D = 9.26, interval [5.96, 5.96]). An
``exact`` point estimate has its resamples tested by scipy's ``method="exact"`` (the untied null
distribution at floor(W+), :func:`exact_method_pvalues`), a ``permutation`` one by the exhaustive
tie-aware sign-flip test (:func:`dhp.scoring.wilcoxon.exact_tail_pvalues`), an ``asymptotic``
one by the tie-corrected normal approximation. Every interval is :func:`interval`: the expanded percentile interval of the
replicates (:func:`interval_level`) joined with its point estimate, so an estimate lies in its
interval by construction. The expansion is for the pairs the D's tests rank (:func:`ranked_pairs`:
zero differences are dropped by the test, so with 1-5 scores a D of 20 items may rest on 11), for
the items when an aggregate averages many tests. ``benchmarks/bench_calibration.py`` measures its
coverage.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from dhp.scoring.stats import CombineMethod, Interval, avg_min, interval, perturbation_d, ranked_pairs
from dhp.scoring.wilcoxon import MetricTest, wilcoxon_greater_batch, wilcoxon_greater_tests
from dhp.types import Level

__all__ = [
    "DatasetAnalysis",
    "PerturbationAnalysis",
    "Replicates",
    "analyse",
    "draw_items",
    "replicates",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


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
    bp = _replicate_pvalues(sc, tests, idx)
    (_, bd_un), (_, bd_ew) = perturbation_d(bp, None, method), perturbation_d(bp, w_ew, method)
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
    (p_un, d_un), (p_ew, d_ew) = perturbation_d(pmat, None, method), perturbation_d(pmat, w_ew, method)
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
