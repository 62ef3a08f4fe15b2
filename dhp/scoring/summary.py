"""A :class:`~dhp.scoring.results.Result`'s numbers: its summary, its assembly from an analysis, re-weighting.

:func:`summarise` is the one place a dataset summary (D_avg, D_min, per level, qualified) is made
from per-perturbation D values; :func:`result_from_analysis` assembles a result from
:func:`dhp.scoring.analysis.analyse`; :func:`reweight` recombines stored p-values under other
expert weights without a request.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from dhp.scoring.analysis import DatasetAnalysis, PerturbationAnalysis
from dhp.scoring.results import (
    CIModel,
    Coverage,
    DatasetRef,
    ItemScores,
    JudgeInfo,
    LevelSummary,
    MetricStats,
    PerturbationResult,
    Result,
    ScoringSettings,
    Summary,
    Timing,
)
from dhp.scoring.stats import CombineMethod, avg_min, perturbation_d
from dhp.types import Level

__all__ = [
    "few_pairs_note",
    "no_d_mark",
    "qualified",
    "recombine",
    "result_from_analysis",
    "reweight",
    "summarise",
]


# ---------------------------------------------------------------------------------------------
def _f(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


def _nan(x: float | None) -> float:
    return math.nan if x is None else x


def qualified(d_min_ew: float | None, n_without_d: int) -> bool | None:
    """Qualified: D_min^EW > 1 and no perturbation without a D (every issue discerned at p < 0.05);
    None when there is no D_min^EW at all. The one rule, used by the summary and the 1.1 -> 1.2 migration."""
    return None if d_min_ew is None else (d_min_ew > 1.0 and n_without_d == 0)


def no_d_mark(n_without_d: int) -> str:
    """The mark D_min carries when perturbations without D were left out of it, e.g. `` (1 no D)``."""
    return f" ({n_without_d} no D)" if n_without_d else ""


def summarise(
    perturbations: Sequence[PerturbationResult], ci: Mapping[str, CIModel] | None = None
) -> Summary:
    """The dataset summary of per-perturbation D values (the one place it is computed from them).

    D_avg is level-balanced and D_min the minimum (:func:`dhp.scoring.stats.avg_min`), both over the
    counted perturbations (the few-pairs rule, ``counted``) that have a D; the counted ones without
    a D are counted in ``n_without_d``, those the rule leaves out in ``n_few_pairs``. ``effect_avg``
    is the level-balanced mean effect of the counted perturbations.
    """
    counted = [pr for pr in perturbations if pr.counted]
    levels = [pr.level for pr in counted]
    d = np.array([_nan(pr.d) for pr in counted], dtype=np.float64)
    d_ew = np.array([_nan(pr.d_ew) for pr in counted], dtype=np.float64)
    effect = np.array([_nan(pr.effect) for pr in counted], dtype=np.float64)
    (a, mn), (a_ew, mn_ew) = avg_min(d, levels), avg_min(d_ew, levels)
    by_level: dict[Level, LevelSummary] = {}
    for level in sorted({pr.level for pr in perturbations}, key=lambda v: "CWS".index(v.value)):
        mask = np.array([lv is level for lv in levels], dtype=bool)
        by_level[level] = LevelSummary(
            d_avg=_f(float(np.nanmean(d[mask]))) if np.any(~np.isnan(d[mask])) else None,
            d_avg_ew=_f(float(np.nanmean(d_ew[mask]))) if np.any(~np.isnan(d_ew[mask])) else None,
        )
    d_min_ew = _f(float(mn_ew))
    n_without_d = int(np.isnan(d).sum())
    return Summary(
        d_avg=_f(float(a)),
        d_min=_f(float(mn)),
        d_avg_ew=_f(float(a_ew)),
        d_min_ew=d_min_ew,
        ci=dict(ci or {}),
        n_without_d=n_without_d,
        by_level=by_level,
        qualified=qualified(d_min_ew, n_without_d),
        n_few_pairs=len(perturbations) - len(counted),
        effect_avg=_f(float(avg_min(effect, levels)[0])),
    )


def few_pairs_note(perturbations: Sequence[PerturbationResult]) -> str:
    """The perturbations the few-pairs rule leaves out, with their n, e.g.
    ``rewriting_major (n=4)``; empty when none is."""
    return ", ".join(f"{pr.id} (n={pr.n_pairs})" for pr in perturbations if not pr.counted)


def _means(scores: ItemScores, pid: str, metric: str) -> tuple[float | None, float | None]:
    """Mean original and perturbed score over the complete pairs of one (perturbation, metric)."""
    o = np.array([np.nan if v is None else v for v in scores.original[metric]], dtype=float)
    q = np.array([np.nan if v is None else v for v in scores.perturbed[pid][metric]], dtype=float)
    both = ~(np.isnan(o) | np.isnan(q))
    if not both.any():
        return None, None
    return _f(float(o[both].mean())), _f(float(q[both].mean()))


def _perturbation_result(pa: PerturbationAnalysis, scores: ItemScores | None) -> PerturbationResult:
    metrics: dict[str, MetricStats] = {}
    for m, t in pa.tests.items():
        mean_o, mean_p = _means(scores, pa.perturbation, m) if scores is not None else (None, None)
        metrics[m] = MetricStats(
            p=t.pvalue if t.n_pairs > 0 else None,
            statistic=t.statistic,
            n_pairs=t.n_pairs,
            n_nonzero=t.n_nonzero,
            test_method=t.method,
            mean_original=mean_o,
            mean_perturbed=mean_p,
        )
    return PerturbationResult(
        id=pa.perturbation,
        level=pa.level,
        metrics=metrics,
        n_metrics_used=sum(1 for t in pa.tests.values() if t.n_pairs > 0),
        p=_f(pa.p),
        p_ew=_f(pa.p_ew),
        d=_f(pa.d),
        d_ew=_f(pa.d_ew),
        d_ci=CIModel.of(pa.d_ci),
        d_ew_ci=CIModel.of(pa.d_ew_ci),
        n_pairs=pa.n_pairs,
        counted=pa.counted,
        effect=_f(pa.effect),
        effect_ci=CIModel.of(pa.effect_ci),
    )


def result_from_analysis(
    analysis: DatasetAnalysis,
    *,
    judge: JudgeInfo,
    dataset: DatasetRef,
    scoring: ScoringSettings,
    coverage: Coverage,
    timing: Timing,
    scores: ItemScores | None,
    created_at: str,
    dhp_version: str,
) -> Result:
    """Assemble a :class:`Result` from the statistics of :func:`dhp.scoring.analysis.analyse`."""
    per = tuple(_perturbation_result(pa, scores) for pa in analysis.perturbations)
    return Result(
        dhp_version=dhp_version,
        created_at=created_at,
        judge=judge,
        dataset=dataset,
        scoring=scoring,
        perturbations=per,
        summary=summarise(per, {k: CIModel(low=v.low, high=v.high) for k, v in analysis.ci.items()}),
        coverage=coverage,
        timing=timing,
        scores=scores,
    )


def reweight(
    result: Result,
    weights: Mapping[str, Mapping[str, float]],
    method: CombineMethod | str | None = None,
) -> Summary:
    """D_avg^EW and D_min^EW (and the unweighted ones) recomputed from stored p-values.

    No request and no bootstrap: intervals are left out because they need the item scores.
    Metrics without a p-value (no usable pair) stay out of the combination, as in the analysis.
    """
    meth = CombineMethod(method) if method is not None else result.scoring.combine_method
    return summarise([recombine(pr, weights, meth) for pr in result.perturbations])


def recombine(
    pr: PerturbationResult, weights: Mapping[str, Mapping[str, float]], method: CombineMethod
) -> PerturbationResult:
    """The perturbation with p, p^EW, D and D^EW recombined from its stored metric p-values."""
    metrics = list(pr.metrics)
    if pr.id not in weights:
        raise KeyError(f"no weights for perturbation {pr.id!r}")
    pv = np.array([_nan(pr.metrics[m].p) for m in metrics], dtype=np.float64)
    w = np.array([float(weights[pr.id].get(m, 0.0)) for m in metrics])
    (p_un, d_un), (p_ew, d_ew) = perturbation_d(pv, None, method), perturbation_d(pv, w, method)
    return pr.model_copy(
        update={"p": _f(float(p_un)), "p_ew": _f(float(p_ew)), "d": _f(float(d_un)), "d_ew": _f(float(d_ew))}
    )
