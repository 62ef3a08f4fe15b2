"""The versioned result of scoring one judge on one dataset revision (JSON, validated).

One :class:`Result` per (judge, dataset, dataset revision, prompt set, cue). It keeps the per-(perturbation, metric)
p-values and the item-level scores, so D^EW can be recomputed for new expert weights
(:func:`reweight`) without a single new request. Parsing is pure (:func:`parse_result` takes text);
reading and writing files stays at the edges (:func:`read_result`, :func:`write_result`).

Schema 1.3 (1.0-1.2 files are still read: :data:`MIGRATIONS` makes them current before validation):

* missing means missing: a metric with no usable pair (``n_pairs == 0``) has ``p = null`` and is
  left out of its perturbation's combination; ``PerturbationResult.n_metrics_used`` counts the
  metrics that entered it; a perturbation with none has ``p``/``p_ew``/``d``/``d_ew`` null and is
  left out of D_avg/D_min, counted in ``Summary.n_without_d``;
* ``Summary.by_level``: ``{"C"|"W"|"S": {"d_avg", "d_avg_ew"}}`` for each level the dataset has
  (null where that level has no D); ``Summary.qualified``: D_min^EW > 1 (DHP v2's advice), null
  when D_min^EW is missing;
* 1.2: ``ItemScores.original_words`` (words of each original text, for D by length tertile);
  ``Summary.qualified`` also needs every perturbation to have a D (``n_without_d == 0``): a judge
  that returns no score for a whole perturbation has not shown it discerns that issue;
* ``ScoringSettings.prompt_set`` (``"default"``, ``"minimal"``, ``"rubric"`` or a folder's name)
  and ``ScoringSettings.cue`` (the misleading prior-rating text added to every judged text, or null);
* 1.3: ``JudgeInfo.judge`` is the judge record itself (:data:`dhp.inference.judge.PublishedJudge`, as
  :func:`dhp.inference.judge.published` makes it), next to ``model`` and ``settings``; the flat judge fields
  of 1.0-1.2 (``name``, ``kind``, ``protocol``, ``endpoint_hosts``, ...) are read as that record.

Where a result lives (:func:`result_path`, the one place that decides)::

    <out>/<judge_slug>/<dataset>@<revision_slug>.json                        default prompt set, no cue
    <out>/<judge_slug>/<dataset>@<revision_slug>~<prompt_set_slug>.json      another prompt set
    <out>/<judge_slug>/<dataset>@<revision_slug>[~<prompt_set_slug>]~cue-<sha256(cue)[:8]>.json   with a cue
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Mapping, Sequence
from itertools import pairwise
from pathlib import Path
from typing import Annotated, Any

import numpy as np
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
)

from dhp.errors import first_validation_problem
from dhp.fsutil import atomic_write_text
from dhp.inference.judge import Judge, PublishedJudge, published
from dhp.naming import judge_slug, revision_slug
from dhp.naming import slug as naming_slug
from dhp.scoring.analysis import DatasetAnalysis, PerturbationAnalysis
from dhp.scoring.stats import CombineMethod, Interval, avg_min, perturbation_d
from dhp.types import Level, ScoringMode

__all__ = [
    "DEFAULT_PROMPT_SET",
    "MIGRATIONS",
    "READABLE_SCHEMA_VERSIONS",
    "SCHEMA_VERSION",
    "CIModel",
    "Coverage",
    "DatasetRef",
    "InvocationsCost",
    "JudgeInfo",
    "LevelSummary",
    "MetricStats",
    "Migration",
    "PerturbationResult",
    "Result",
    "ResultError",
    "ScoringSettings",
    "Summary",
    "Timing",
    "check_chain",
    "cue_slug",
    "dump_result",
    "migrate",
    "no_d_mark",
    "parse_result",
    "qualified",
    "read_result",
    "result_from_analysis",
    "result_path",
    "reweight",
    "summarise",
    "write_result",
]

#: The version written. Older versions are read through :data:`MIGRATIONS` (the one list of them).
SCHEMA_VERSION = "1.3"
#: The prompt set a plain ``dhp score`` uses (G-Eval style); its results keep the historic file name.
DEFAULT_PROMPT_SET = "default"
#: A :class:`dhp.types.ScoringMode` value, kept as its plain string in results.
ModeName = Annotated[str, AfterValidator(lambda v: ScoringMode(v).value)]


class ResultError(ValueError):
    """A results file that cannot be read or does not validate; the message names the file."""


def _current_version(v: str) -> str:
    """A validated result is of the current schema: older documents are migrated before validation."""
    if v != SCHEMA_VERSION:
        raise ValueError(f"schema_version {v!r} is not the current {SCHEMA_VERSION!r} (migrate it first)")
    return v


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class JudgeInfo(_Model):
    """Who was judged (1.3): the judge's record (:data:`dhp.inference.judge.PublishedJudge`) as
    :func:`dhp.inference.judge.published` makes it, never an API key or a full endpoint URL (an endpoint's hosts only, and only when its
    submitter published them), the model name its requests carried, and how it was called.

    Records of 1.0-1.2 held the judge's fields flat (``name``, ``kind``, ``protocol``,
    ``endpoint_hosts``, a Hub judge as an endpoint with ``settings.provider``); their migration
    makes them this record before validation (:func:`_judge_record`)."""

    judge: PublishedJudge
    model: str | None = None  # the model name the requests carried (an endpoint's own, when discovered)
    settings: Mapping[str, Any] = Field(default_factory=dict)  # mode, temperature, top_logprobs, ...

    @classmethod
    def of(cls, judge: Judge, *, model: str | None, settings: Mapping[str, Any]) -> JudgeInfo:
        """The record of ``judge`` as scored (``model``: the name its requests carried)."""
        return cls(judge=published(judge), model=model, settings=settings)

    @property
    def name(self) -> str:
        return self.judge.name

    @property
    def kind(self) -> str:
        return self.judge.kind

    @property
    def protocol(self) -> str:
        """How it was called: an endpoint's protocol, ``openai`` for a Hub judge, else its kind."""
        return self.judge.protocol_name

    @property
    def hf_model_id(self) -> str | None:
        return self.judge.hf_model_id

    @property
    def revision(self) -> str | None:
        return self.judge.revision

    @property
    def n_params(self) -> float | None:
        return self.judge.n_params

    @property
    def endpoint_hosts(self) -> tuple[str, ...]:
        return self.judge.shown_hosts


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
    mode: ModeName
    repeats: int = 1
    combine_method: CombineMethod = CombineMethod.PAPER
    weights_source: str = "default"
    weights: Mapping[str, Mapping[str, float]]  # perturbation -> metric -> weight
    n_boot: int = 0
    seed: int = 0
    confidence: float = 0.95
    prompts: Mapping[str, PromptInfo] = Field(default_factory=dict)  # metric -> template
    prompt_set: str = DEFAULT_PROMPT_SET  # a packaged set's name or a prompt folder's name (1.1)
    cue: str | None = None  # the misleading prior-rating text added to every judged text; None: no cue (1.1)


class CIModel(_Model):
    low: float
    high: float

    @classmethod
    def of(cls, iv: Interval | None) -> CIModel | None:
        return None if iv is None else cls(low=iv.low, high=iv.high)


class MetricStats(_Model):
    p: float | None  # one-sided Wilcoxon p; None: no usable pair (n_pairs == 0); 1.0: pairs but no difference
    statistic: float
    n_pairs: int
    n_nonzero: int
    test_method: str
    mean_original: float | None = None
    mean_perturbed: float | None = None

    @field_validator("p")
    @classmethod
    def _p_range(cls, v: float | None) -> float | None:
        if v is not None and not (0.0 <= v <= 1.0):
            raise ValueError(f"p-value {v} outside [0, 1]")
        return v


class PerturbationResult(_Model):
    id: str
    level: Level
    metrics: Mapping[str, MetricStats]
    n_metrics_used: int  # metrics with a usable pair, i.e. those combined into p (1.1)
    p: float | None  # None: not computable (no metric had a usable pair)
    p_ew: float | None  # None also when the expert weights give every usable metric weight 0
    d: float | None
    d_ew: float | None
    d_ci: CIModel | None = None
    d_ew_ci: CIModel | None = None


class LevelSummary(_Model):
    """Level-restricted D_avg (the plain mean of the level's D values; None when none has a D)."""

    d_avg: float | None
    d_avg_ew: float | None


class Summary(_Model):
    d_avg: float | None
    d_min: float | None
    d_avg_ew: float | None
    d_min_ew: float | None
    ci: Mapping[str, CIModel] = Field(default_factory=dict)
    n_without_d: int = 0  # perturbations with no D, left out of D_avg and D_min (1.1)
    by_level: Mapping[Level, LevelSummary] = Field(default_factory=dict)  # each level the dataset has (1.1)
    # D_min^EW > 1 (DHP v2's advice) and every perturbation has a D (1.2); None when D_min^EW is missing (1.1)
    qualified: bool | None = None


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
    unparsed_examples: Mapping[str, tuple[str, ...]] = Field(
        default_factory=dict
    )  # reason -> a few raw outputs

    @property
    def coverage(self) -> float:
        return self.parsed_scores / self.expected_scores if self.expected_scores else 0.0

    @property
    def percent(self) -> str:
        """The coverage as reports write it, by their one rounding rule: down to 0.1% in integer
        arithmetic, so a run that lost a score never reads 100% (766 of 1000: "76.6%"; 7659 of
        10000: "76.5%")."""
        tenths = 1000 * self.parsed_scores // self.expected_scores if self.expected_scores else 0
        return f"{tenths // 10}.{tenths % 10}%"


class InvocationsCost(_Model):
    """The cost of every invocation that worked on a result: a run killed and resumed sends part of
    its requests in each (:mod:`dhp.scoring.cost`)."""

    invocations: int
    requests_sent: int
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    wall_seconds: float = 0.0


class Timing(_Model):
    wall_seconds: float = 0.0
    requests_sent: int = 0
    requests_cached: int = 0
    retries: int = 0
    requests_failed: int = 0  # requests that got no output after retries (added in the scorer)
    # run cost (issue 20): tokens the endpoint reported for the answers it sent this run (cached
    # answers cost none); None when it reported none (built-in judges, older results, TGI without details)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    # the sum over every invocation that worked on this result, and their count (issue 27); the
    # fields above are the last invocation's. None in results written before (optional, so they read)
    all_invocations: InvocationsCost | None = None


class ItemScores(_Model):
    """Item-aligned per-text scores (None = no score) for recomputation and the score plots."""

    item_ids: tuple[str, ...]
    original: Mapping[str, tuple[float | None, ...]]  # metric -> scores
    perturbed: Mapping[str, Mapping[str, tuple[float | None, ...]]]  # perturbation -> metric -> scores
    # words of each item's original text (1.2; None in older results): the length tertiles' key
    original_words: tuple[int, ...] | None = None


class Result(_Model):
    schema_version: Annotated[str, AfterValidator(_current_version)] = SCHEMA_VERSION
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

    D_avg is level-balanced and D_min the minimum, both over the perturbations that have a D
    (:func:`dhp.scoring.stats.avg_min`); the others are counted in ``n_without_d``.
    """
    levels = [pr.level for pr in perturbations]
    d = np.array([_nan(pr.d) for pr in perturbations], dtype=np.float64)
    d_ew = np.array([_nan(pr.d_ew) for pr in perturbations], dtype=np.float64)
    (a, mn), (a_ew, mn_ew) = avg_min(d, levels), avg_min(d_ew, levels)
    by_level: dict[Level, LevelSummary] = {}
    for level in sorted(set(levels), key=lambda v: "CWS".index(v.value)):
        mask = np.array([lv is level for lv in levels])
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
    )


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
    """Assemble a :class:`Result` from the statistics of :func:`dhp.scoring.stats.analyse`."""
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
    return summarise([_recombine(pr, weights, meth) for pr in result.perturbations])


def _recombine(
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


# ---------------------------------------------------------------------------------------------
# Results layout: <out>/<judge_slug>/<dataset>@<revision_slug>.json
# ---------------------------------------------------------------------------------------------
def cue_slug(cue: str) -> str:
    """A cue's part of a file name: ``cue-`` and the first 8 hex digits of its SHA-256."""
    return "cue-" + hashlib.sha256(cue.encode("utf-8")).hexdigest()[:8]


def result_path(
    root: str | Path,
    judge_name: str,
    dataset: str,
    revision: str,
    prompt_set: str = DEFAULT_PROMPT_SET,
    cue: str | None = None,
) -> Path:
    """Where ``dhp score`` writes the result of one (judge, dataset, revision, prompt set, cue).

    The default prompt set without a cue keeps ``<dataset>@<revision>.json``; another prompt set
    adds ``~<prompt set>``, a cue adds ``~cue-<hash>`` (see the module docstring).
    """
    name = f"{dataset}@{revision_slug(revision)}"
    if prompt_set != DEFAULT_PROMPT_SET:
        slug = naming_slug(prompt_set)
        if not slug or set(slug) <= {"."}:
            raise ValueError(f"invalid prompt set name {prompt_set!r}")
        name += f"~{slug}"
    if cue is not None:
        name += f"~{cue_slug(cue)}"
    return Path(root) / judge_slug(judge_name) / f"{name}.json"


# ---------------------------------------------------------------------------------------------
# Edges: text <-> Result, files
# ---------------------------------------------------------------------------------------------
# ---------------------------------------------------------------------------------------------
# Migrations: an older document made current, one version at a time, before validation
# ---------------------------------------------------------------------------------------------
#: One step: a document of one version (a JSON object) -> the same document in the next version's meaning.
Migration = Callable[[dict[str, Any]], dict[str, Any]]


def _object(data: Mapping[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key)
    if not isinstance(value, dict):
        raise ValueError(f"{key} must be a JSON object")
    return value


def _no_pair_is_missing(pr: Any, scoring: ScoringSettings) -> PerturbationResult:
    """One 1.0 perturbation in 1.1's meaning: a metric with no pair had p = 1 and counted; now it is
    missing. With no usable metric left it has no p and no D; one that lost some is recombined
    without them (its intervals, computed with them, dropped)."""
    if not isinstance(pr, dict):
        raise ValueError("a perturbation must be a JSON object")
    metrics = {
        m: {**ms, "p": None} if isinstance(ms, dict) and ms.get("n_pairs") == 0 else ms
        for m, ms in _object(pr, "metrics").items()
    }
    used = sum(1 for ms in metrics.values() if isinstance(ms, dict) and ms.get("p") is not None)
    upgraded = {**pr, "metrics": metrics, "n_metrics_used": used}
    if used == 0:
        upgraded.update(p=None, p_ew=None, d=None, d_ew=None, d_ci=None, d_ew_ci=None)
    out = PerturbationResult.model_validate(upgraded)
    if used in (0, len(out.metrics)):
        return out
    return _recombine(out, scoring.weights, scoring.combine_method).model_copy(
        update={"d_ci": None, "d_ew_ci": None}
    )


def _1_0_to_1_1(data: dict[str, Any]) -> dict[str, Any]:
    """1.0 -> 1.1: missing means missing (:func:`_no_pair_is_missing`); the summary recomputed from
    the perturbations' D values (:func:`summarise`, its stored intervals kept)."""
    scoring = ScoringSettings.model_validate(_object(data, "scoring"))
    perturbations = data.get("perturbations")
    if not isinstance(perturbations, list):
        raise ValueError("perturbations must be a JSON array")
    per = tuple(_no_pair_is_missing(pr, scoring) for pr in perturbations)
    summary = summarise(per, Summary.model_validate(_object(data, "summary")).ci)
    return {**data, "perturbations": [pr.model_dump() for pr in per], "summary": summary.model_dump()}


def _1_1_to_1_2(data: dict[str, Any]) -> dict[str, Any]:
    """1.1 -> 1.2: ``qualified`` recomputed (a perturbation without D now disqualifies); nothing else."""
    s = _object(data, "summary")
    return {**data, "summary": {**s, "qualified": qualified(s.get("d_min_ew"), s.get("n_without_d", 0))}}


def _judge_record(old: dict[str, Any]) -> dict[str, Any]:
    """A flat judge record of 1.0-1.2 -> the same judge, described once (1.3's ``JudgeInfo``)."""
    settings = dict(old.get("settings") or {})
    name, kind, model = old.get("name"), old.get("kind"), old.get("model")
    ids = {k: old.get(k) for k in ("hf_model_id", "revision", "n_params")}
    judge: dict[str, Any]
    if kind == "builtin":
        judge = {"kind": "builtin", "name": name, "control": model}
    elif kind == "local":
        judge = {"kind": "local", "name": name, "model": model or ids["hf_model_id"] or name, **ids}
    elif "provider" in settings:  # a Hub judge, recorded as the router's endpoint
        judge = {"kind": "hub", "name": name, "model_id": ids["hf_model_id"],
                 "provider": settings.pop("provider"), "revision": ids["revision"], "n_params": ids["n_params"]}  # fmt: skip
    else:
        hosts = tuple(old.get("endpoint_hosts") or ())
        judge = {"kind": "endpoint", "name": name, "endpoints": hosts, "protocol": old.get("protocol"),
                 "model": model, "publish_host": bool(hosts), **ids}  # fmt: skip
    return {"judge": judge, "model": model, "settings": settings}


def _1_2_to_1_3(data: dict[str, Any]) -> dict[str, Any]:
    """1.2 -> 1.3: the flat judge fields become the judge record (:func:`_judge_record`); a record
    that already holds one (a document relabelled by hand) is kept."""
    info = _object(data, "judge")
    return data if "judge" in info else {**data, "judge": _judge_record(info)}


#: The results schema's history, oldest first: each version before the current one and the step that
#: makes its documents the next version's (the next entry's, the last one's :data:`SCHEMA_VERSION`).
#: The one list of the versions; every reader of results goes through it (:func:`migrate`).
MIGRATIONS: tuple[tuple[str, Migration], ...] = (
    ("1.0", _1_0_to_1_1),
    ("1.1", _1_1_to_1_2),
    ("1.2", _1_2_to_1_3),
)


def _minor(version: str) -> tuple[int, int]:
    major, minor = version.split(".")
    return int(major), int(minor)


def check_chain(chain: Sequence[tuple[str, Migration]], current: str) -> tuple[str, ...]:
    """The versions ``chain`` reads, current last; raises ValueError naming a missing step (each step
    goes one minor version up, the last one to ``current``)."""
    versions = (*(v for v, _ in chain), current)
    for a, b in pairwise(versions):
        (ma, na), (mb, nb) = _minor(a), _minor(b)
        if (mb, nb) != (ma, na + 1):
            raise ValueError(
                f"the results migrations have no step from {a} to {ma}.{na + 1} (next listed: {b})"
            )
    return versions


#: Versions :func:`parse_result` reads (derived from :data:`MIGRATIONS`).
READABLE_SCHEMA_VERSIONS = check_chain(MIGRATIONS, SCHEMA_VERSION)


def migrate(
    data: dict[str, Any],
    source: str = "<string>",
    chain: Sequence[tuple[str, Migration]] = MIGRATIONS,
    current: str = SCHEMA_VERSION,
) -> dict[str, Any]:
    """A result document (a JSON object) of any readable version, made ``current`` by the steps of
    ``chain`` from its version on. Raises :class:`ResultError` naming ``source`` for a version it
    cannot read and for a step the document does not fit; ValueError for a chain with a gap."""
    versions = check_chain(chain, current)
    version = data.get("schema_version")
    if version not in versions:
        raise ResultError(
            f"{source}: unsupported schema_version {version!r}; expected one of {', '.join(versions)}"
        )
    start = versions.index(version)
    for (old, step), new in zip(chain[start:], versions[start + 1 :], strict=True):
        try:
            data = {**step(data), "schema_version": new}
        except ValidationError:
            raise  # the caller names the first problem, as for a current document
        except (KeyError, ValueError) as e:
            raise ResultError(f"{source}: cannot upgrade from {old}: {e.args[0]}") from e
    return data


def parse_result(text: str, source: str = "<string>") -> Result:
    """Validate a result document. Raises :class:`ResultError` naming `source` and the problem.

    A document of an older schema is first made current by :func:`migrate` (:data:`MIGRATIONS`).
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ResultError(f"{source}: not valid JSON ({e})") from e
    if not isinstance(data, dict):
        raise ResultError(f"{source}: a result must be a JSON object")
    try:
        data = migrate(data, source)
        return Result.model_validate(data)  # its judge is a PublishedJudge: hosts, not URLs
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
