"""The versioned result of scoring one judge on one dataset revision (JSON, validated).

One :class:`Result` per (judge, dataset, dataset revision). It keeps the per-(perturbation, metric)
p-values and the item-level scores, so D^EW can be recomputed for new expert weights
(:func:`reweight`) without a single new request. Parsing is pure (:func:`parse_result` takes text);
reading and writing files stays at the edges (:func:`read_result`, :func:`write_result`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from dhp.errors import first_validation_problem
from dhp.fsutil import atomic_write_text
from dhp.naming import judge_slug, revision_slug
from dhp.scoring.stats import (
    CombineMethod,
    DatasetAnalysis,
    Interval,
    combine_pvalues,
    discernment,
    level_balanced_weights,
)
from dhp.types import Level

__all__ = [
    "SCHEMA_VERSION",
    "CIModel",
    "Coverage",
    "DatasetRef",
    "JudgeInfo",
    "MetricStats",
    "PerturbationResult",
    "Result",
    "ResultError",
    "ScoringSettings",
    "Summary",
    "Timing",
    "dump_result",
    "judge_slug",
    "parse_result",
    "read_result",
    "result_from_analysis",
    "result_path",
    "revision_slug",
    "reweight",
    "write_result",
]

SCHEMA_VERSION = "1.0"
ScoringMode = Literal["expected", "paper", "sample", "builtin"]


class ResultError(ValueError):
    """A results file that cannot be read or does not validate; the message names the file."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class JudgeInfo(_Model):
    """Who was judged. Never holds an API key or a full endpoint URL (only its host)."""

    name: str = Field(min_length=1, max_length=100)
    kind: Literal["endpoint", "builtin", "local"]
    protocol: Literal["openai", "tgi", "local", "builtin"]
    model: str | None = None  # model name on the endpoint
    hf_model_id: str | None = None
    revision: str | None = None
    n_params: float | None = None  # parameters, when known
    endpoint_hosts: tuple[str, ...] = ()
    settings: Mapping[str, Any] = Field(default_factory=dict)  # temperature, top_logprobs, max_tokens, ...


class DatasetRef(_Model):
    name: str
    repo: str
    revision: str  # commit sha or tag of the dataset repo, or "local:<sha256 of files>"
    version: str | None = None  # semantic dataset version, e.g. v1.0.0
    n_items: int


class PromptInfo(_Model):
    template_hash: str
    template: str


class ScoringSettings(_Model):
    mode: ScoringMode
    repeats: int = 1
    combine_method: CombineMethod = CombineMethod.PAPER
    weights_source: str = "default"
    weights: Mapping[str, Mapping[str, float]]  # perturbation -> metric -> weight
    n_boot: int = 0
    seed: int = 0
    confidence: float = 0.95
    prompts: Mapping[str, PromptInfo] = Field(default_factory=dict)  # metric -> template


class CIModel(_Model):
    low: float
    high: float

    @classmethod
    def of(cls, iv: Interval | None) -> CIModel | None:
        return None if iv is None else cls(low=iv.low, high=iv.high)


class MetricStats(_Model):
    p: float  # one-sided Wilcoxon p (1.0 when no evidence)
    statistic: float
    n_pairs: int
    n_nonzero: int
    test_method: str
    mean_original: float | None = None
    mean_perturbed: float | None = None

    @field_validator("p")
    @classmethod
    def _p_range(cls, v: float) -> float:
        if not (0.0 <= v <= 1.0):
            raise ValueError(f"p-value {v} outside [0, 1]")
        return v


class PerturbationResult(_Model):
    id: str
    level: Level
    metrics: Mapping[str, MetricStats]
    p: float | None  # None: not computable (no metric had pairs)
    p_ew: float | None
    d: float | None
    d_ew: float | None
    d_ci: CIModel | None = None
    d_ew_ci: CIModel | None = None


class Summary(_Model):
    d_avg: float | None
    d_min: float | None
    d_avg_ew: float | None
    d_min_ew: float | None
    ci: Mapping[str, CIModel] = Field(default_factory=dict)


class Coverage(_Model):
    """Request and parsing accounting. `coverage` = parsed / expected scores."""

    expected_scores: int
    parsed_scores: int
    unparsed: int
    failed: int
    unparsed_reasons: Mapping[str, int] = Field(default_factory=dict)
    failure_reasons: Mapping[str, int] = Field(default_factory=dict)
    # added in the scorer (optional, so older files still validate):
    outputs: int = 0  # judge outputs received (one per request; `paper`/`sample` send several per score)
    unparsed_outputs: int = 0  # outputs that yielded no score (`unparsed_reasons` counts these by reason)
    unparsed_examples: Mapping[str, tuple[str, ...]] = Field(default_factory=dict)  # reason -> a few raw outputs

    @property
    def coverage(self) -> float:
        return self.parsed_scores / self.expected_scores if self.expected_scores else 0.0


class Timing(_Model):
    wall_seconds: float = 0.0
    requests_sent: int = 0
    requests_cached: int = 0
    retries: int = 0
    requests_failed: int = 0  # requests that got no output after retries (added in the scorer)


class ItemScores(_Model):
    """Item-aligned per-text scores (None = no score) for recomputation and the score plots."""

    item_ids: tuple[str, ...]
    original: Mapping[str, tuple[float | None, ...]]  # metric -> scores
    perturbed: Mapping[str, Mapping[str, tuple[float | None, ...]]]  # perturbation -> metric -> scores


class Result(_Model):
    schema_version: Literal["1.0"] = "1.0"
    dhp_version: str
    created_at: str  # ISO 8601, UTC
    judge: JudgeInfo
    dataset: DatasetRef
    scoring: ScoringSettings
    perturbations: tuple[PerturbationResult, ...]
    summary: Summary
    coverage: Coverage
    timing: Timing = Field(default_factory=Timing)
    scores: ItemScores | None = None


# ---------------------------------------------------------------------------------------------
def _f(x: float) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


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
    """Assemble a :class:`Result` from the statistics of :func:`dhp.scoring.stats.analyse`."""
    per = []
    for pa in analysis.perturbations:
        means_o: dict[str, float | None] = {}
        means_p: dict[str, float | None] = {}
        if scores is not None:
            for m in pa.tests:
                o = np.array([np.nan if v is None else v for v in scores.original[m]], dtype=float)
                q = np.array([np.nan if v is None else v for v in scores.perturbed[pa.perturbation][m]], dtype=float)
                both = ~(np.isnan(o) | np.isnan(q))
                means_o[m] = _f(float(o[both].mean())) if both.any() else None
                means_p[m] = _f(float(q[both].mean())) if both.any() else None
        per.append(
            PerturbationResult(
                id=pa.perturbation,
                level=pa.level,
                metrics={
                    m: MetricStats(
                        p=t.pvalue,
                        statistic=t.statistic,
                        n_pairs=t.n_pairs,
                        n_nonzero=t.n_nonzero,
                        test_method=t.method,
                        mean_original=means_o.get(m),
                        mean_perturbed=means_p.get(m),
                    )
                    for m, t in pa.tests.items()
                },
                p=_f(pa.p),
                p_ew=_f(pa.p_ew),
                d=_f(pa.d),
                d_ew=_f(pa.d_ew),
                d_ci=CIModel.of(pa.d_ci),
                d_ew_ci=CIModel.of(pa.d_ew_ci),
            )
        )
    return Result(
        dhp_version=dhp_version,
        created_at=created_at,
        judge=judge,
        dataset=dataset,
        scoring=scoring,
        perturbations=tuple(per),
        summary=Summary(
            d_avg=_f(analysis.d_avg),
            d_min=_f(analysis.d_min),
            d_avg_ew=_f(analysis.d_avg_ew),
            d_min_ew=_f(analysis.d_min_ew),
            ci={k: CIModel(low=v.low, high=v.high) for k, v in analysis.ci.items()},
        ),
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
    """
    meth = CombineMethod(method) if method is not None else result.scoring.combine_method
    d_un: list[float] = []
    d_ew: list[float] = []
    levels: list[Level] = []
    for pr in result.perturbations:
        metrics = list(pr.metrics)
        if pr.id not in weights:
            raise KeyError(f"no weights for perturbation {pr.id!r}")
        pv = np.array([pr.metrics[m].p for m in metrics])
        w = np.array([float(weights[pr.id].get(m, 0.0)) for m in metrics])
        d_un.append(float(discernment(combine_pvalues(pv, None, meth))))
        d_ew.append(float(discernment(combine_pvalues(pv, w, meth))))
        levels.append(pr.level)

    def agg(ds: list[float]) -> tuple[float | None, float | None]:
        keep = [i for i, v in enumerate(ds) if math.isfinite(v)]
        if not keep:
            return None, None
        lw = level_balanced_weights([levels[i] for i in keep])
        vals = np.array([ds[i] for i in keep])
        return float(np.dot(lw, vals)), float(vals.min())

    (a, mn), (a_ew, mn_ew) = agg(d_un), agg(d_ew)
    return Summary(d_avg=a, d_min=mn, d_avg_ew=a_ew, d_min_ew=mn_ew)


# ---------------------------------------------------------------------------------------------
# Results layout: <out>/<judge_slug>/<dataset>@<revision_slug>.json
# ---------------------------------------------------------------------------------------------
def result_path(root: str | Path, judge_name: str, dataset: str, revision: str) -> Path:
    """Where ``dhp score`` writes the result of one (judge, dataset, revision)."""
    return Path(root) / judge_slug(judge_name) / f"{dataset}@{revision_slug(revision)}.json"


# ---------------------------------------------------------------------------------------------
# Edges: text <-> Result, files
# ---------------------------------------------------------------------------------------------
def parse_result(text: str, source: str = "<string>") -> Result:
    """Validate a result document. Raises :class:`ResultError` naming `source` and the problem."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ResultError(f"{source}: not valid JSON ({e})") from e
    if not isinstance(data, dict):
        raise ResultError(f"{source}: a result must be a JSON object")
    if data.get("schema_version") != SCHEMA_VERSION:
        raise ResultError(
            f"{source}: unsupported schema_version {data.get('schema_version')!r}; expected {SCHEMA_VERSION!r}"
        )
    try:
        return Result.model_validate(data)
    except ValidationError as e:
        raise ResultError(f"{source}: invalid result {first_validation_problem(e)}") from e


def dump_result(result: Result) -> str:
    return result.model_dump_json(indent=2) + "\n"


def read_result(path: str | Path) -> Result:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise ResultError(f"{p}: cannot read ({e.strerror})") from e
    return parse_result(text, source=str(p))


def write_result(result: Result, path: str | Path) -> Path:
    """Write atomically (temp file + rename), so a crash never leaves half a result."""
    return atomic_write_text(path, dump_result(result))
