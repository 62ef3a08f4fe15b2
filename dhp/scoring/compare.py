"""``dhp compare``: is judge A really better than judge B, on the same items? (issue 20, 27)

Pure functions over two judges' stored results; no request is sent. Per dataset, the two judges
are paired on the items and perturbations both scored (the metrics both scored, too), and the
difference A − B of D_avg^EW, D_min^EW and of every perturbation's D^EW is estimated with a
*paired* bootstrap: each replicate draws one set of item indices and scores both judges on it, so
the item-to-item variation that both judges share cancels out of the difference.

One procedure for estimate, interval and verdict (issue 27):

* Each judge's point D comes from :func:`~dhp.scoring.analysis.analyse` on the paired items, and its
  replicates from :func:`~dhp.scoring.analysis.replicates` on the shared draw: every replicate's test
  by the method of its point test, exactly as the single-judge intervals are made.
* The interval of a difference is :func:`~dhp.scoring.stats.interval` of the replicate differences
  around the point difference (it holds the difference by construction), and the verdict is read
  off that interval: ``A`` when it lies above 0, ``B`` when below, ``tie`` when it contains 0;
  ``neither`` when both judges' own intervals lie below D = 1 (neither discerns it at p < 0.05, so
  an order between them is noise); ``None`` (no diff, no interval) when one judge has no D there.
* Missing stays missing: the aggregates compare the perturbations *both* judges have a D for;
  those left out are named with the reason (``left_out``). Whether each judge is qualified on the
  dataset (its own result's ``summary.qualified``) is said beside.
* ``overall``: D_avg^EW is the mean over the datasets compared (as the leaderboard's Overall),
  D_min^EW the minimum; replicate r of every dataset enters replicate r of the overall difference.
* Randomness: item draws come from ``numpy.random.default_rng([seed, k])`` for the k-th dataset in
  name order, so a comparison is reproducible and independent of the argument order's datasets.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from dhp.scoring.analysis import analyse, replicates
from dhp.scoring.pairs import draw_uniforms
from dhp.scoring.results import ItemScores, Result
from dhp.scoring.stats import CombineMethod, avg_min, interval, ranked_pairs
from dhp.spec import MIN_PAIRS, enough_pairs
from dhp.types import Level

__all__ = [
    "AGGREGATES",
    "PRECISION",
    "Bounds",
    "CompareError",
    "Comparison",
    "DatasetComparison",
    "Difference",
    "compare_results",
    "credible",
    "difference",
    "verdict",
]

FloatArray = npt.NDArray[np.float64]
#: The aggregate D values compared, per dataset and overall.
AGGREGATES = ("d_avg_ew", "d_min_ew")


class CompareError(ValueError):
    """Two sets of results that cannot be compared; the message says why, in one line."""


Bounds = tuple[float, float]


@dataclass(frozen=True)
class Difference:
    """A − B of one D value: the point difference, its paired-bootstrap interval, the verdict, and
    each judge's own interval of that D on the same replicates."""

    diff: float | None
    ci: Bounds | None
    verdict: str | None  # "A" | "B" | "tie" | "neither" | "few pairs"; None when one judge has no D here
    ci_a: Bounds | None = None
    ci_b: Bounds | None = None


@dataclass(frozen=True)
class DatasetComparison:
    n_items: int  # items both judges scored
    aggregates: Mapping[str, Difference]  # "d_avg_ew", "d_min_ew"
    perturbations: Mapping[str, Difference]  # perturbation id -> D^EW difference
    compared: tuple[str, ...] = ()  # the perturbations the aggregates are over (both have a D)
    left_out: Mapping[str, str] | None = None  # perturbation id -> why it is not in the aggregates
    qualified: Mapping[str, bool | None] | None = None  # "A", "B" -> the result's summary.qualified
    effects: Mapping[str, Difference] | None = (
        None  # perturbation id -> difference of the effect (share lower)
    )
    effect_points: Mapping[str, Bounds] | None = None  # perturbation id -> (A's effect, B's effect)


@dataclass(frozen=True)
class Comparison:
    judge_a: str
    judge_b: str
    n_boot: int
    seed: int
    confidence: float
    datasets: Mapping[str, DatasetComparison]
    overall: Mapping[str, Difference]


#: Differences are printed to two decimals; one that rounds to 0.00 is a tie, whatever its interval.
PRECISION = 0.005


def credible(ci: Bounds | None, point: float) -> bool:
    """Whether a judge credibly discerns: its D's interval lies above D = 1 (the point D, without one)."""
    return ci[0] > 1.0 if ci is not None else point > 1.0


def verdict(diff: float, ci: Bounds, ci_a: Bounds | None, ci_b: Bounds | None, points: Bounds) -> str:
    """The verdict on A − B, in this order: ``tie`` when the difference is below the printed
    precision (:data:`PRECISION`); ``neither`` when neither judge credibly discerns (:func:`credible`:
    an order between two judges that do not notice the issue is noise, and D cannot fall below 0,
    so chance would otherwise beat blindness); else ``A`` (interval above 0), ``B`` (below) or
    ``tie`` (it contains 0)."""
    if abs(diff) < PRECISION:
        return "tie"
    if not credible(ci_a, points[0]) and not credible(ci_b, points[1]):
        return "neither"
    return "A" if ci[0] > 0 else "B" if ci[1] < 0 else "tie"


# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Paired:
    """One judge's item-aligned scores on the common items, perturbations and metrics."""

    orig: Mapping[str, FloatArray]  # metric -> scores
    pert: Mapping[str, Mapping[str, FloatArray]]  # perturbation -> metric -> scores


@dataclass(frozen=True)
class _Side:
    """One judge's point D^EW and its replicates on the shared draw."""

    point: FloatArray  # (perturbations,) D^EW
    boot: FloatArray  # (n_boot, perturbations) D^EW
    sizes: tuple[int | None, ...]  # (perturbations,) ranked_pairs of each D^EW's tests
    effect: FloatArray  # (perturbations,) share of pairs scored lower
    effect_boot: FloatArray  # (n_boot, perturbations)
    n_pairs: tuple[int, ...]  # (perturbations,) what the few-pairs rule reads


def _vec(values: Sequence[float | None], rows: Sequence[int]) -> FloatArray:
    return np.array([math.nan if values[i] is None else values[i] for i in rows], dtype=np.float64)


def _pair(a: Result, b: Result) -> tuple[tuple[str, ...], _Paired, _Paired]:
    """The common perturbations, and both judges' scores on the common items and metrics."""
    if a.scores is None or b.scores is None:
        who = a if a.scores is None else b
        raise CompareError(f"{who.judge.name} on {who.dataset.name}: the result holds no item scores")
    sa, sb = a.scores, b.scores
    in_b = {item: i for i, item in enumerate(sb.item_ids)}
    common = [(i, in_b[item]) for i, item in enumerate(sa.item_ids) if item in in_b]
    if not common:
        raise CompareError(f"{a.dataset.name}: the two results share no item")
    metrics = tuple(m for m in sa.original if m in sb.original)
    pids = tuple(p for p in sa.perturbed if p in sb.perturbed)
    if not metrics or not pids:
        raise CompareError(f"{a.dataset.name}: the two results share no scored perturbation and metric")
    rows_a, rows_b = [i for i, _ in common], [j for _, j in common]

    def side(s: ItemScores, rows: list[int]) -> _Paired:
        return _Paired(
            {m: _vec(s.original[m], rows) for m in metrics},
            {p: {m: _vec(s.perturbed[p][m], rows) for m in metrics} for p in pids},
        )

    return pids, side(sa, rows_a), side(sb, rows_b)


Setting = tuple[Mapping[str, Level], Mapping[str, Mapping[str, float]], CombineMethod]


def _side(sc: _Paired, setting: Setting, u: FloatArray, n_rows: Mapping[str, int]) -> _Side:
    """Point D^EW (by :func:`analyse`) and D^EW of every replicate (rows of ``idx``) of one judge,
    each replicate tested by its point test's method (:func:`replicates`)."""
    levels, weights, method = setting
    point = analyse(sc.orig, sc.pert, levels, weights, method, n_boot=0, n_rows=n_rows)
    rep = replicates(sc.orig, sc.pert, levels, weights, point, u)
    sizes = tuple(
        ranked_pairs(list(pa.tests.values()), [float(weights[pa.perturbation].get(m, 0.0)) for m in pa.tests])
        for pa in point.perturbations
    )
    per = point.perturbations
    return _Side(
        np.array([pa.d_ew for pa in per], dtype=np.float64),
        rep.d_ew,
        sizes,
        np.array([pa.effect for pa in per], dtype=np.float64),
        rep.effect,
        tuple(pa.n_pairs for pa in per),
    )


def _bounds(samples: FloatArray, confidence: float, estimate: float, n_items: int | None) -> Bounds | None:
    iv = interval(samples, confidence, estimate, n_items)
    return None if iv is None else (iv.low + 0.0, iv.high + 0.0)


#: One judge's D: (point, replicates on the shared draw, the sample size its interval is expanded for:
#: :func:`~dhp.scoring.stats.ranked_pairs` of its tests, the items for an aggregate).
Estimate = tuple[float, FloatArray, int | None]


def _fewer(na: int | None, nb: int | None) -> int | None:
    return nb if na is None else na if nb is None else min(na, nb)


def difference(a: Estimate, b: Estimate, confidence: float) -> Difference:
    """A − B from each judge's :data:`Estimate`: the interval around the point difference (expanded
    for the smaller of the two sizes), the verdict read off it, and each judge's own interval, all
    by :func:`~dhp.scoring.stats.interval`."""
    (pa, sa, na), (pb, sb, nb) = a, b
    point = pa - pb
    ci = _bounds(sa - sb, confidence, point, _fewer(na, nb)) if math.isfinite(point) else None
    if ci is None:
        return Difference(None, None, None)
    ci_a, ci_b = _bounds(sa, confidence, pa, na), _bounds(sb, confidence, pb, nb)
    return Difference(point + 0.0, ci, verdict(point, ci, ci_a, ci_b, (pa, pb)), ci_a, ci_b)


def _setting(a: Result, b: Result) -> tuple[Mapping[str, Mapping[str, float]], CombineMethod]:
    if a.scoring.combine_method != b.scoring.combine_method:
        raise CompareError(
            f"{a.dataset.name}: the results combine p-values differently "
            f"({a.scoring.combine_method.value} vs {b.scoring.combine_method.value}); rescore one of them"
        )
    if dict(a.scoring.weights) != dict(b.scoring.weights):
        raise CompareError(f"{a.dataset.name}: the results were scored with different expert weights")
    return a.scoring.weights, a.scoring.combine_method


@dataclass(frozen=True)
class _DatasetRun:
    comparison: DatasetComparison
    agg: Mapping[str, tuple[Estimate, Estimate]]  # key -> (A, B)


def _left_out(a: Result, b: Result, pids: Sequence[str], ra: _Side, rb: _Side) -> dict[str, str]:
    """The perturbations of either result that the aggregates leave out, with why."""
    out: dict[str, str] = {}
    for who, r in (("A", a), ("B", b)):
        for p in r.perturbations:
            if p.id not in pids:
                out.setdefault(p.id, f"no item scores for {'B' if who == 'A' else 'A'}")
    for i, pid in enumerate(pids):
        missing = [w for w, side in (("A", ra), ("B", rb)) if math.isnan(side.point[i])]
        few = min(ra.n_pairs[i], rb.n_pairs[i])
        if not enough_pairs(few):
            out[pid] = f"few pairs (n={few} < {MIN_PAIRS})"
        elif missing:
            out[pid] = f"no D for {' and '.join(missing)}"
    return out


def _compare_dataset(a: Result, b: Result, rng: np.random.Generator, n_boot: int, conf: float) -> _DatasetRun:
    weights, method = _setting(a, b)
    pids, pa, pb = _pair(a, b)
    levels = {p.id: p.level for p in a.perturbations}
    n = next(iter(pa.orig.values())).size
    u = draw_uniforms(n, n_boot, rng)
    # the pairs the data gives on the common items: what each result counted, at most the items in common
    rows = {r.id: r.n_pairs for r in a.perturbations}
    n_rows = {p: min(rows[p], next(r.n_pairs for r in b.perturbations if r.id == p), n) for p in pids}
    ra = _side(pa, (levels, weights, method), u, n_rows)
    rb = _side(pb, (levels, weights, method), u, n_rows)
    counted = np.array(
        [enough_pairs(min(x, y)) for x, y in zip(ra.n_pairs, rb.n_pairs, strict=True)], dtype=bool
    )
    per = {}
    effects = {}
    for i, pid in enumerate(pids):
        d = difference(
            (ra.point[i], ra.boot[:, i], ra.sizes[i]), (rb.point[i], rb.boot[:, i], rb.sizes[i]), conf
        )
        per[pid] = d if counted[i] or d.diff is None else replace(d, verdict="few pairs")
        size = min(ra.n_pairs[i], rb.n_pairs[i])
        effects[pid] = difference(
            (ra.effect[i], ra.effect_boot[:, i], size), (rb.effect[i], rb.effect_boot[:, i], size), conf
        )
    # missing stays missing: only what both have a D for, and the few-pairs rule holds for both
    both = ~np.isnan(ra.point) & ~np.isnan(rb.point) & counted
    lv = [levels[p] for p, keep in zip(pids, both, strict=True) if keep]
    agg: dict[str, tuple[Estimate, Estimate]] = {}
    for key, k in (("d_avg_ew", 0), ("d_min_ew", 1)):
        sides: list[Estimate] = []
        for s in (ra, rb):
            boot = s.boot[:, both]
            sides.append((float(avg_min(s.point[both], lv)[k]), avg_min(boot, lv)[k], n))
        agg[key] = (sides[0], sides[1])
    comparison = DatasetComparison(
        n_items=n,
        aggregates={k: difference(*agg[k], conf) for k in AGGREGATES},
        perturbations=per,
        compared=tuple(p for p, keep in zip(pids, both, strict=True) if keep),
        left_out=_left_out(a, b, pids, ra, rb),
        qualified={"A": a.summary.qualified, "B": b.summary.qualified},
        effects={p: replace(e, verdict=None) for p, e in effects.items()},
        effect_points={p: (float(ra.effect[i]), float(rb.effect[i])) for i, p in enumerate(pids)},
    )
    return _DatasetRun(comparison, agg)


def _overall(runs: Mapping[str, _DatasetRun], confidence: float) -> dict[str, Difference]:
    """Overall D_avg^EW = the mean of the datasets' D_avg^EW, D_min^EW their minimum (each over the
    perturbations both judges have); each judge's overall is formed per replicate before the
    difference is taken. A dataset without a common D leaves the overall without one."""
    out: dict[str, Difference] = {}
    n_items = sum(r.comparison.n_items for r in runs.values())  # every dataset's items are resampled
    for key, reduce in (("d_avg_ew", np.mean), ("d_min_ew", np.min)):
        sides: list[Estimate] = []
        for s in (0, 1):
            point = float(reduce(np.array([r.agg[key][s][0] for r in runs.values()])))
            boot = reduce(np.stack([r.agg[key][s][1] for r in runs.values()]), axis=0)
            sides.append((point, boot, n_items))
        out[key] = difference(sides[0], sides[1], confidence)
    return out


def compare_results(
    a: Mapping[str, Result],
    b: Mapping[str, Result],
    *,
    n_boot: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> Comparison:
    """Compare judge A with judge B on the datasets both have results for (``dataset name -> Result``)."""
    if n_boot < 1:
        raise CompareError("a comparison needs at least one bootstrap replicate (--n-boot >= 1)")
    names = sorted(set(a) & set(b))
    if not names:
        raise CompareError(
            f"no dataset in common: A has {', '.join(sorted(a)) or 'none'}, B has {', '.join(sorted(b)) or 'none'}"
        )
    runs = {}
    for k, name in enumerate(names):
        rng = np.random.default_rng([seed, k])
        runs[name] = _compare_dataset(a[name], b[name], rng, n_boot, confidence)
    first_a, first_b = a[names[0]], b[names[0]]
    return Comparison(
        judge_a=first_a.judge.name,
        judge_b=first_b.judge.name,
        n_boot=n_boot,
        seed=seed,
        confidence=confidence,
        datasets={n: r.comparison for n, r in runs.items()},
        overall=_overall(runs, confidence),
    )
