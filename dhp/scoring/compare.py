"""``dhp compare``: is judge A really better than judge B, on the same items? (issue 20)

Pure functions over two judges' stored results; no request is sent. Per dataset, the two judges
are paired on the items and perturbations both scored (the metrics both scored, too), and the
difference A − B of D_avg^EW, D_min^EW and of every perturbation's D^EW is estimated with a
*paired* bootstrap: each replicate draws one set of item indices and scores both judges on it, so
the item-to-item variation that both judges share cancels out of the difference.

* D values are recomputed with the public functions of :mod:`dhp.scoring.stats` (the point estimate
  with :func:`~dhp.scoring.stats.analyse`, the replicates with its batch Wilcoxon test, combination
  and aggregation), under the combination method and expert weights both results were scored with
  (they must agree).
* ``overall``: D_avg^EW is the mean over the datasets compared (as the leaderboard's Overall),
  D_min^EW the minimum; replicate r of every dataset enters replicate r of the overall difference.
* Verdict: ``A`` when the interval lies above 0, ``B`` when below, ``tie`` when it contains 0;
  ``None`` (no diff, no interval) when one judge has no D there.
* Randomness: item draws come from ``numpy.random.default_rng([seed, k])`` for the k-th dataset in
  name order, so a comparison is reproducible and independent of the argument order's datasets.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from dhp.scoring.results import DEFAULT_PROMPT_SET, ItemScores, Result
from dhp.scoring.stats import (
    CombineMethod,
    analyse,
    avg_min,
    combine_pvalues,
    discernment,
    wilcoxon_greater_batch,
)
from dhp.types import Level

__all__ = [
    "AGGREGATES",
    "CompareError",
    "Comparison",
    "DatasetComparison",
    "Difference",
    "compare_results",
    "comparison_json",
    "pick_results",
    "render_comparison",
]

FloatArray = npt.NDArray[np.float64]
#: The aggregate D values compared, per dataset and overall.
AGGREGATES = ("d_avg_ew", "d_min_ew")


class CompareError(ValueError):
    """Two sets of results that cannot be compared; the message says why, in one line."""


@dataclass(frozen=True)
class Difference:
    """A − B of one D value: the point difference, its paired-bootstrap interval and the verdict."""

    diff: float | None
    ci: tuple[float, float] | None
    verdict: str | None  # "A" | "B" | "tie"; None when one judge has no D here


@dataclass(frozen=True)
class DatasetComparison:
    n_items: int  # items both judges scored
    aggregates: Mapping[str, Difference]  # "d_avg_ew", "d_min_ew"
    perturbations: Mapping[str, Difference]  # perturbation id -> D^EW difference


@dataclass(frozen=True)
class Comparison:
    judge_a: str
    judge_b: str
    n_boot: int
    seed: int
    confidence: float
    datasets: Mapping[str, DatasetComparison]
    overall: Mapping[str, Difference]


# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Paired:
    """One judge's item-aligned scores on the common items, perturbations and metrics."""

    orig: Mapping[str, FloatArray]  # metric -> scores
    pert: Mapping[str, Mapping[str, FloatArray]]  # perturbation -> metric -> scores


@dataclass(frozen=True)
class _Replicates:
    point: FloatArray  # (perturbations,) D^EW
    boot: FloatArray  # (n_boot, perturbations) D^EW
    agg_point: Mapping[str, float]
    agg_boot: Mapping[str, FloatArray]  # (n_boot,)


def _vec(values: Sequence[float | None], rows: Sequence[int]) -> FloatArray:
    return np.array([math.nan if values[i] is None else values[i] for i in rows], dtype=np.float64)


def _pair(a: Result, b: Result) -> tuple[tuple[str, ...], tuple[str, ...], _Paired, _Paired]:
    """The common perturbations and metrics, and both judges' scores on the common items."""
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

    return pids, metrics, side(sa, rows_a), side(sb, rows_b)


def _replicates(
    sc: _Paired,
    pids: tuple[str, ...],
    metrics: tuple[str, ...],
    setting: tuple[Mapping[str, Level], Mapping[str, Mapping[str, float]], CombineMethod],
    idx: npt.NDArray[np.int64],
) -> _Replicates:
    """Point D^EW (by :func:`analyse`) and D^EW of every replicate (rows of ``idx``) of one judge."""
    levels, weights, method = setting
    point = analyse(sc.orig, sc.pert, levels, weights, method, n_boot=0)
    lv = [levels[p] for p in pids]
    boot = np.empty((idx.shape[0], len(pids)))
    for i, pid in enumerate(pids):
        pmat = np.empty((idx.shape[0], len(metrics)))
        for j, m in enumerate(metrics):
            xo, xp = sc.orig[m][idx], sc.pert[pid][m][idx]
            no_pair = ~(~np.isnan(xo) & ~np.isnan(xp)).any(axis=1)
            pmat[:, j] = np.where(no_pair, np.nan, wilcoxon_greater_batch(xo, xp))
        w = np.array([float(weights[pid].get(m, 0.0)) for m in metrics])
        boot[:, i] = discernment(combine_pvalues(pmat, w, method))
    b_avg, b_min = avg_min(boot, lv)
    return _Replicates(
        point=np.array([pa.d_ew for pa in point.perturbations], dtype=np.float64),
        boot=boot,
        agg_point={"d_avg_ew": point.d_avg_ew, "d_min_ew": point.d_min_ew},
        agg_boot={"d_avg_ew": b_avg, "d_min_ew": b_min},
    )


def _difference(point: float, samples: FloatArray, confidence: float) -> Difference:
    """The point difference, the percentile interval of the replicate differences, the verdict."""
    s = samples[~np.isnan(samples)]
    if not math.isfinite(point) or s.size == 0:
        return Difference(None, None, None)
    alpha = (1.0 - confidence) / 2.0
    lo, hi = (float(v) for v in np.quantile(s, [alpha, 1.0 - alpha]))
    verdict = "A" if lo > 0 else "B" if hi < 0 else "tie"
    return Difference(float(point) + 0.0, (lo + 0.0, hi + 0.0), verdict)


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
    a: _Replicates
    b: _Replicates


def _compare_dataset(a: Result, b: Result, rng: np.random.Generator, n_boot: int, conf: float) -> _DatasetRun:
    weights, method = _setting(a, b)
    pids, metrics, pa, pb = _pair(a, b)
    levels = {p.id: p.level for p in a.perturbations}
    n = next(iter(pa.orig.values())).size
    idx = rng.integers(0, n, size=(n_boot, n))
    ra = _replicates(pa, pids, metrics, (levels, weights, method), idx)
    rb = _replicates(pb, pids, metrics, (levels, weights, method), idx)
    per = {
        pid: _difference(ra.point[i] - rb.point[i], ra.boot[:, i] - rb.boot[:, i], conf)
        for i, pid in enumerate(pids)
    }
    aggs = {
        k: _difference(ra.agg_point[k] - rb.agg_point[k], ra.agg_boot[k] - rb.agg_boot[k], conf)
        for k in AGGREGATES
    }
    return _DatasetRun(DatasetComparison(n, aggs, per), ra, rb)


def _overall(runs: Sequence[_DatasetRun], confidence: float) -> dict[str, Difference]:
    """Overall D_avg^EW = the mean of the datasets' D_avg^EW, D_min^EW their minimum; each judge's
    overall is formed per replicate before the difference is taken."""
    out: dict[str, Difference] = {}
    for key, reduce in (("d_avg_ew", np.mean), ("d_min_ew", np.min)):
        point = [
            float(reduce(np.array([getattr(r, side).agg_point[key] for r in runs]))) for side in ("a", "b")
        ]
        boot = [
            reduce(np.stack([getattr(r, side).agg_boot[key] for r in runs]), axis=0) for side in ("a", "b")
        ]
        out[key] = _difference(point[0] - point[1], boot[0] - boot[1], confidence)
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
        overall=_overall(list(runs.values()), confidence),
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


def _difference_json(d: Difference) -> dict[str, object]:
    return {"diff": d.diff, "ci": None if d.ci is None else list(d.ci), "verdict": d.verdict}


def comparison_json(c: Comparison) -> dict[str, object]:
    """The ``--json`` document: ``{"datasets": {NAME: {"d_avg_ew", "d_min_ew", "perturbations"}},
    "overall": {"d_avg_ew", "d_min_ew"}}``, plus the judges and bootstrap settings."""
    return {
        "judge_a": c.judge_a,
        "judge_b": c.judge_b,
        "n_boot": c.n_boot,
        "seed": c.seed,
        "confidence": c.confidence,
        "datasets": {
            name: {
                **{k: _difference_json(ds.aggregates[k]) for k in AGGREGATES},
                "n_items": ds.n_items,
                "perturbations": {p: _difference_json(d) for p, d in ds.perturbations.items()},
            }
            for name, ds in c.datasets.items()
        },
        "overall": {k: _difference_json(c.overall[k]) for k in AGGREGATES},
    }


def _cell(d: Difference) -> str:
    if d.diff is None or d.ci is None:
        return "– | – | no D"
    return f"{d.diff:+.2f} | [{d.ci[0]:+.2f}, {d.ci[1]:+.2f}] | {d.verdict}"


def render_comparison(c: Comparison) -> str:
    """Markdown: overall, then per dataset the aggregates and every perturbation's D^EW difference."""
    head = ["| | A − B | interval | better |", "|---|---|---|---|"]
    lines = [
        f"# {c.judge_a} (A) vs {c.judge_b} (B)",
        "",
        f"Differences A − B of D^EW on the items both scored; {c.confidence:.0%} paired bootstrap intervals "
        f"({c.n_boot} replicates, seed {c.seed}). 'tie': the interval contains 0.",
        "",
        "## Overall",
        "",
        *head,
        *(f"| {k} | {_cell(c.overall[k])} |" for k in AGGREGATES),
        "",
    ]
    for name, ds in c.datasets.items():
        lines += [f"## {name} ({ds.n_items} items)", "", *head]
        lines += [f"| {k} | {_cell(ds.aggregates[k])} |" for k in AGGREGATES]
        lines += [f"| {p} D^EW | {_cell(d)} |" for p, d in ds.perturbations.items()]
        lines.append("")
    return "\n".join(lines)
