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

from dhp.scoring.pairs import complete_pool, draw_uniforms, pool_draw, weighted_effects
from dhp.scoring.stats import (
    CombineMethod,
    Interval,
    avg_min,
    interval,
    perturbation_d,
    ranked_pairs,
    share_lower,
)
from dhp.scoring.wilcoxon import MetricTest, wilcoxon_greater_batch, wilcoxon_greater_tests
from dhp.spec import enough_pairs
from dhp.types import Level

__all__ = [
    "DatasetAnalysis",
    "PerturbationAnalysis",
    "Replicates",
    "analyse",
    "pair_pool",
    "replicates",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
#: The aggregates of a dataset: level-balanced mean and minimum of D and D^EW, and the mean effect.
AGGREGATE_NAMES = ("d_avg", "d_min", "d_avg_ew", "d_min_ew", "effect_avg")


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
    n_pairs: int = 0  # pairs the data gives (items with a row): what the few-pairs rule reads
    effect: float = math.nan  # share of pairs scored lower (ties half), metrics by expert weight
    effect_ci: Interval | None = None

    @property
    def counted(self) -> bool:
        """Whether it enters D_avg, D_min and qualified (:func:`dhp.spec.enough_pairs`)."""
        return enough_pairs(self.n_pairs)


@dataclass(frozen=True)
class DatasetAnalysis:
    method: CombineMethod
    perturbations: tuple[PerturbationAnalysis, ...]
    d_avg: float
    d_min: float
    d_avg_ew: float
    d_min_ew: float
    ci: Mapping[str, Interval] = field(default_factory=dict)  # AGGREGATE_NAMES -> interval
    n_boot: int = 0
    seed: int = 0
    confidence: float = 0.95
    effect_avg: float = math.nan  # level-balanced mean effect over the counted perturbations


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


def pair_pool(sc: _Scores, pid: str) -> IntArray:
    """The items of one perturbation that a replicate draws from (:func:`dhp.scoring.pairs.complete_pool`)."""
    return complete_pool([sc.orig[m] for m in sc.metrics], [sc.pert[pid][m] for m in sc.metrics])


@dataclass(frozen=True)
class _Point:
    """The point estimates a bootstrap's intervals must hold, and the tests that made them."""

    tests: Mapping[str, Mapping[str, MetricTest]]
    d_un: FloatArray
    d_ew: FloatArray
    effect: FloatArray
    counted: npt.NDArray[np.bool_]
    aggregates: Mapping[str, float]  # AGGREGATE_NAMES
    p_un: FloatArray = field(default_factory=lambda: np.zeros(0))
    p_ew: FloatArray = field(default_factory=lambda: np.zeros(0))
    n_pairs: tuple[int, ...] = ()


@dataclass(frozen=True)
class Replicates:
    """One judge's D values and effects in every bootstrap replicate (a row of the uniforms): what
    its intervals, and a comparison of two judges on the same draw, are read from."""

    d: FloatArray  # (replicates, perturbations) unweighted D
    d_ew: FloatArray  # (replicates, perturbations) D^EW
    effect: FloatArray  # (replicates, perturbations) share of pairs scored lower
    aggregates: Mapping[str, FloatArray]  # AGGREGATE_NAMES -> (replicates,)


def _aggregates(
    d: FloatArray, d_ew: FloatArray, effect: FloatArray, lv: Sequence[Level], counted: npt.NDArray[np.bool_]
) -> dict[str, FloatArray]:
    """D_avg, D_min (with and without expert weights) and the mean effect over the counted
    perturbations (the few-pairs rule); NaN when none counts."""
    kept = [x for x, c in zip(lv, counted.tolist(), strict=True) if c]
    if not kept:
        nan = np.full(d.shape[:-1], np.nan)
        return dict.fromkeys(AGGREGATE_NAMES, nan)
    (a, mn), (a_ew, mn_ew) = avg_min(d[..., counted], kept), avg_min(d_ew[..., counted], kept)
    return {
        "d_avg": a,
        "d_min": mn,
        "d_avg_ew": a_ew,
        "d_min_ew": mn_ew,
        "effect_avg": avg_min(effect[..., counted], kept)[0],
    }


def _replicates(
    sc: _Scores,
    lv: Sequence[Level],
    w_ew: FloatArray,
    method: CombineMethod,
    point: _Point,
    u: FloatArray,
    sizes: Mapping[str, int] | None = None,
) -> Replicates:
    """Every test redone on each replicate by its point test's method, on exactly its pairs' count
    (or on ``sizes[perturbation]`` pairs where given, :func:`pool_draw`).

    Perturbation i draws :func:`pool_draw` of its pool; a metric whose resample has no complete
    pair is missing in that replicate (NaN), as in the point estimate.
    """
    n_boot = u.shape[0]
    bp = np.full((n_boot, len(sc.pids), len(sc.metrics)), np.nan)
    shares = np.full(bp.shape, np.nan)
    for i, pid in enumerate(sc.pids):
        idx = pool_draw(u, pair_pool(sc, pid), None if sizes is None else sizes.get(pid))
        if idx.shape[1] == 0:
            continue
        for j, m in enumerate(sc.metrics):
            xo, xp = sc.orig[m][idx], sc.pert[pid][m][idx]
            p = wilcoxon_greater_batch(xo, xp, method=point.tests[pid][m].method)
            no_pair = ~(~np.isnan(xo) & ~np.isnan(xp)).any(axis=1)
            bp[:, i, j] = np.where(no_pair, np.nan, p)
            shares[:, i, j] = share_lower(xo, xp)
    (_, d_un), (_, d_ew) = perturbation_d(bp, None, method), perturbation_d(bp, w_ew, method)
    effect = weighted_effects(shares, w_ew)
    return Replicates(d_un, d_ew, effect, _aggregates(d_un, d_ew, effect, lv, point.counted))


def replicates(
    original: Mapping[str, npt.ArrayLike],
    perturbed: Mapping[str, Mapping[str, npt.ArrayLike]],
    levels: Mapping[str, Level],
    weights: Mapping[str, Mapping[str, float]],
    point: DatasetAnalysis,
    u: FloatArray,
    sizes: Mapping[str, int] | None = None,
) -> Replicates:
    """The D values of ``point`` (an :func:`analyse` of these scores) in every replicate (rows of
    uniforms ``u``, :func:`draw_uniforms`): every test by its point test's method, combined and
    aggregated as the point was. :func:`analyse`'s intervals come from here, and ``dhp compare``
    runs two judges through it on the same uniforms. ``sizes``: a perturbation resampled at that many
    pairs (at most ``u``'s columns) rather than its own count (:mod:`dhp.scoring.fits`)."""
    sc = _scores(original, perturbed)
    lv = [levels[pid] for pid in sc.pids]
    w_ew = np.array([[float(weights[pid].get(m, 0.0)) for m in sc.metrics] for pid in sc.pids])
    pas = {pa.perturbation: pa for pa in point.perturbations}
    counted = np.array([pas[pid].counted for pid in sc.pids], dtype=bool)
    pt = _Point(
        {pid: pas[pid].tests for pid in sc.pids},
        np.array([pas[pid].d for pid in sc.pids]),
        np.array([pas[pid].d_ew for pid in sc.pids]),
        np.array([pas[pid].effect for pid in sc.pids]),
        counted,
        {},
    )
    return _replicates(sc, lv, w_ew, point.method, pt, u, sizes)


@dataclass(frozen=True)
class _Bootstrap:
    d_ci: tuple[Interval | None, ...]
    d_ew_ci: tuple[Interval | None, ...]
    effect_ci: tuple[Interval | None, ...]
    agg_ci: Mapping[str, Interval]


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
    u = draw_uniforms(sc.n_items, n_boot, np.random.default_rng(seed))
    rep = _replicates(sc, lv, w_ew, method, point, u)
    agg: dict[str, Interval] = {}
    for name, arr in rep.aggregates.items():
        iv = interval(arr, confidence, point.aggregates[name], sc.n_items)
        if iv is not None:
            agg[name] = iv
    d_ci, d_ew_ci, effect_ci = [], [], []
    for i, pid in enumerate(sc.pids):
        tests = [point.tests[pid][m] for m in sc.metrics]
        d_ci.append(interval(rep.d[:, i], confidence, float(point.d_un[i]), ranked_pairs(tests)))
        n_ew = ranked_pairs(tests, w_ew[i].tolist())
        d_ew_ci.append(interval(rep.d_ew[:, i], confidence, float(point.d_ew[i]), n_ew))
        n_pairs = max((t.n_pairs for t in tests), default=0)
        effect_ci.append(interval(rep.effect[:, i], confidence, float(point.effect[i]), n_pairs))
    return _Bootstrap(tuple(d_ci), tuple(d_ew_ci), tuple(effect_ci), agg)


def _point(
    sc: _Scores,
    lv: Sequence[Level],
    w_ew: FloatArray,
    method: CombineMethod,
    n_rows: Mapping[str, int] | None,
) -> _Point:
    """The point estimates: every test, p and D with and without expert weights, the effects, the
    few-pairs rule's verdict per perturbation and the aggregates over what it counts."""
    tests = _point_tests(sc)
    pmat = np.array([[_usable_p(tests[pid][m]) for m in sc.metrics] for pid in sc.pids])
    (p_un, d_un), (p_ew, d_ew) = perturbation_d(pmat, None, method), perturbation_d(pmat, w_ew, method)
    shares = np.array([[share_lower(sc.orig[m], sc.pert[pid][m]) for m in sc.metrics] for pid in sc.pids])
    effect = weighted_effects(shares.reshape(len(sc.pids), len(sc.metrics)), w_ew)
    n_pairs = tuple(int(pair_pool(sc, pid).size) if n_rows is None else int(n_rows[pid]) for pid in sc.pids)
    counted = np.array([enough_pairs(n) for n in n_pairs], dtype=bool)
    aggregates = {k: float(v) for k, v in _aggregates(d_un, d_ew, effect, lv, counted).items()}
    return _Point(tests, d_un, d_ew, effect, counted, aggregates, p_un, p_ew, n_pairs)


def _per_perturbation(
    pids: Sequence[str], lv: Sequence[Level], point: _Point, boot: _Bootstrap | None
) -> tuple[PerturbationAnalysis, ...]:
    return tuple(
        PerturbationAnalysis(
            perturbation=pid,
            level=lv[i],
            tests=point.tests[pid],
            p=float(point.p_un[i]),
            p_ew=float(point.p_ew[i]),
            d=float(point.d_un[i]),
            d_ew=float(point.d_ew[i]),
            d_ci=boot.d_ci[i] if boot else None,
            d_ew_ci=boot.d_ew_ci[i] if boot else None,
            n_pairs=point.n_pairs[i],
            effect=float(point.effect[i]),
            effect_ci=boot.effect_ci[i] if boot else None,
        )
        for i, pid in enumerate(pids)
    )


def analyse(
    original: Mapping[str, npt.ArrayLike],
    perturbed: Mapping[str, Mapping[str, npt.ArrayLike]],
    levels: Mapping[str, Level],
    weights: Mapping[str, Mapping[str, float]],
    method: CombineMethod | str = CombineMethod.PAPER,
    n_boot: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    n_rows: Mapping[str, int] | None = None,
) -> DatasetAnalysis:
    """All DHP numbers for one dataset and judge.

    ``original[metric]`` and ``perturbed[perturbation][metric]`` are item-aligned score vectors of
    equal length N (NaN = no score: unparsed, not applicable, failed). ``levels[perturbation]`` and
    ``weights[perturbation][metric]`` come from the dataset spec. Missing means missing: a metric
    with no complete pair is left out of its perturbation's combination, and a perturbation with no
    such metric has p = D = NaN and is left out of D_avg and D_min. So is a perturbation with fewer
    pairs than :data:`dhp.spec.MIN_PAIRS` (the few-pairs rule): its D and effect are reported, not
    aggregated. The pairs the rule counts are the data's, ``n_rows[perturbation]`` (items with a
    row of it; a judge's failed scores do not make a perturbation "few pairs": they cost it its
    D), or, without ``n_rows``, the items with a complete pair in some metric. ``n_boot = 0`` skips
    the bootstrap; otherwise each replicate resamples, with replacement, exactly the observed number
    of pairs of every perturbation (:func:`pool_draw`, from ``numpy.random.default_rng(seed)``), so
    D_avg and D_min get intervals too.
    """
    method = CombineMethod(method)
    sc = _scores(original, perturbed)
    lv = [levels[pid] for pid in sc.pids]
    w_ew = np.array([[float(weights[pid].get(m, 0.0)) for m in sc.metrics] for pid in sc.pids])
    point = _point(sc, lv, w_ew, method, n_rows)
    boot = _bootstrap(sc, lv, w_ew, method, point, (n_boot, seed, confidence)) if n_boot > 0 else None
    aggregates = point.aggregates
    return DatasetAnalysis(
        method=method,
        perturbations=_per_perturbation(sc.pids, lv, point, boot),
        d_avg=aggregates["d_avg"],
        d_min=aggregates["d_min"],
        d_avg_ew=aggregates["d_avg_ew"],
        d_min_ew=aggregates["d_min_ew"],
        ci=dict(boot.agg_ci) if boot else {},
        n_boot=n_boot,
        seed=seed,
        confidence=confidence,
        effect_avg=aggregates["effect_avg"],
    )


def _usable_p(t: MetricTest) -> float:
    """A test's p-value for combining: NaN (missing) when the metric had no complete pair."""
    return t.pvalue if t.n_pairs > 0 else math.nan
