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
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from dhp.scoring.analysis import analyse, draw_items, replicates
from dhp.scoring.results import DEFAULT_PROMPT_SET, ItemScores, Result
from dhp.scoring.stats import CombineMethod, avg_min, interval, ranked_pairs
from dhp.types import Level

__all__ = [
    "AGGREGATES",
    "CompareError",
    "Comparison",
    "DatasetComparison",
    "Difference",
    "compare_results",
    "comparison_json",
    "difference",
    "pick_results",
    "render_comparison",
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
    verdict: str | None  # "A" | "B" | "tie" | "neither"; None when one judge has no D here
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


@dataclass(frozen=True)
class Comparison:
    judge_a: str
    judge_b: str
    n_boot: int
    seed: int
    confidence: float
    datasets: Mapping[str, DatasetComparison]
    overall: Mapping[str, Difference]


def verdict(ci: Bounds, ci_a: Bounds | None, ci_b: Bounds | None) -> str:
    """The verdict read off a difference's interval: ``neither`` when both judges' own intervals lie
    below D = 1, else ``A`` (interval above 0), ``B`` (below 0) or ``tie`` (it contains 0)."""
    if ci_a is not None and ci_b is not None and ci_a[1] < 1.0 and ci_b[1] < 1.0:
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


def _side(sc: _Paired, setting: Setting, idx: npt.NDArray[np.int64]) -> _Side:
    """Point D^EW (by :func:`analyse`) and D^EW of every replicate (rows of ``idx``) of one judge,
    each replicate tested by its point test's method (:func:`replicates`)."""
    levels, weights, method = setting
    point = analyse(sc.orig, sc.pert, levels, weights, method, n_boot=0)
    rep = replicates(sc.orig, sc.pert, levels, weights, point, idx)
    sizes = tuple(
        ranked_pairs(list(pa.tests.values()), [float(weights[pa.perturbation].get(m, 0.0)) for m in pa.tests])
        for pa in point.perturbations
    )
    return _Side(np.array([pa.d_ew for pa in point.perturbations], dtype=np.float64), rep.d_ew, sizes)


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
    return Difference(point + 0.0, ci, verdict(ci, ci_a, ci_b), ci_a, ci_b)


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
        if missing:
            out[pid] = f"no D for {' and '.join(missing)}"
    return out


def _compare_dataset(a: Result, b: Result, rng: np.random.Generator, n_boot: int, conf: float) -> _DatasetRun:
    weights, method = _setting(a, b)
    pids, pa, pb = _pair(a, b)
    levels = {p.id: p.level for p in a.perturbations}
    n = next(iter(pa.orig.values())).size
    idx = draw_items(n, n_boot, rng)
    ra = _side(pa, (levels, weights, method), idx)
    rb = _side(pb, (levels, weights, method), idx)
    per = {
        pid: difference(
            (ra.point[i], ra.boot[:, i], ra.sizes[i]), (rb.point[i], rb.boot[:, i], rb.sizes[i]), conf
        )
        for i, pid in enumerate(pids)
    }
    both = ~np.isnan(ra.point) & ~np.isnan(rb.point)  # missing stays missing: only what both have
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


# ---------------------------------------------------------------------------------------------
def pick_results(results: Sequence[Result], side: str) -> dict[str, Result]:
    """One judge's results by dataset: the default prompt set without a cue, one revision each.

    ``side`` ("A" or "B") names the argument in the one-line errors.
    """
    plain = [r for r in results if r.scoring.prompt_set == DEFAULT_PROMPT_SET and r.scoring.cue is None]
    judges = sorted({r.judge.name for r in plain})
    if len(judges) != 1:
        found = ", ".join(judges) if judges else "none with the default prompt set and no cue"
        raise CompareError(f"{side}: give the results of exactly one judge (found {found})")
    by: dict[str, Result] = {}
    for r in plain:
        if r.dataset.name in by:
            raise CompareError(
                f"{side}: {r.dataset.name} has results of several revisions; give one result file per dataset"
            )
        by[r.dataset.name] = r
    return by


def _bounds_json(b: Bounds | None) -> list[float] | None:
    return None if b is None else list(b)


def _difference_json(d: Difference) -> dict[str, object]:
    return {
        "diff": d.diff,
        "ci": _bounds_json(d.ci),
        "verdict": d.verdict,
        "ci_a": _bounds_json(d.ci_a),
        "ci_b": _bounds_json(d.ci_b),
    }


def _dataset_json(ds: DatasetComparison) -> dict[str, object]:
    return {
        **{k: _difference_json(ds.aggregates[k]) for k in AGGREGATES},
        "n_items": ds.n_items,
        "compared": list(ds.compared),
        "left_out": dict(ds.left_out or {}),
        "qualified": dict(ds.qualified or {}),
        "perturbations": {p: _difference_json(d) for p, d in ds.perturbations.items()},
    }


def comparison_json(c: Comparison) -> dict[str, object]:
    """The ``--json`` document: ``{"datasets": {NAME: {"d_avg_ew", "d_min_ew", "n_items", "compared",
    "left_out", "qualified", "perturbations"}}, "overall": {"d_avg_ew", "d_min_ew"}}``, plus the
    judges and bootstrap settings. Each difference: ``diff``, ``ci``, ``verdict`` and each judge's
    own interval (``ci_a``, ``ci_b``)."""
    return {
        "judge_a": c.judge_a,
        "judge_b": c.judge_b,
        "n_boot": c.n_boot,
        "seed": c.seed,
        "confidence": c.confidence,
        "datasets": {name: _dataset_json(ds) for name, ds in c.datasets.items()},
        "overall": {k: _difference_json(c.overall[k]) for k in AGGREGATES},
    }


def _cell(d: Difference) -> str:
    if d.diff is None or d.ci is None:
        return "– | – | no D"
    return f"{d.diff:+.2f} | [{d.ci[0]:+.2f}, {d.ci[1]:+.2f}] | {d.verdict}"


def _qualified_word(q: bool | None) -> str:
    return "no D_min^EW" if q is None else "qualified" if q else "not qualified"


def _dataset_header(name: str, ds: DatasetComparison) -> list[str]:
    """What the aggregates are over, what they leave out, and whether each judge is qualified."""
    total = len(ds.compared) + len(ds.left_out or {})
    q = ds.qualified or {}
    lines = [
        f"## {name} ({ds.n_items} items)",
        "",
        f"A {_qualified_word(q.get('A'))}, B {_qualified_word(q.get('B'))} on {name}. "
        f"Aggregates over the {len(ds.compared)} of {total} perturbations both judges have a D for"
        + (
            "; left out: " + ", ".join(f"{p} ({why})" for p, why in (ds.left_out or {}).items()) + "."
            if ds.left_out
            else "."
        ),
        "",
    ]
    return lines


def render_comparison(c: Comparison) -> str:
    """Markdown: overall, then per dataset the aggregates and every perturbation's D^EW difference."""
    head = ["| | A − B | interval | better |", "|---|---|---|---|"]
    lines = [
        f"# {c.judge_a} (A) vs {c.judge_b} (B)",
        "",
        f"Differences A − B of D^EW on the items both scored; {c.confidence:.0%} paired bootstrap intervals "
        f"({c.n_boot} replicates, seed {c.seed}); the verdict is read off the interval: 'tie' when it "
        "contains 0, 'neither' when both judges' own intervals lie below D = 1 (neither discerns it "
        "at p < 0.05). Aggregates compare only the perturbations both judges have a D for.",
        "",
        "## Overall",
        "",
        *head,
        *(f"| {k} | {_cell(c.overall[k])} |" for k in AGGREGATES),
        "",
    ]
    for name, ds in c.datasets.items():
        lines += [*_dataset_header(name, ds), *head]
        lines += [f"| {k} | {_cell(ds.aggregates[k])} |" for k in AGGREGATES]
        lines += [f"| {p} D^EW | {_cell(d)} |" for p, d in ds.perturbations.items()]
        lines.append("")
    return "\n".join(lines)
