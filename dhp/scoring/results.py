"""The versioned result of scoring one judge on one dataset revision (JSON, validated).

One :class:`Result` per (judge, dataset, dataset revision, prompt set, cue). It keeps the per-(perturbation, metric)
p-values and the item-level scores, so D^EW can be recomputed for new expert weights
(:func:`reweight`) without a single new request. Parsing is pure (:func:`parse_result` takes text);
reading and writing files stays at the edges (:func:`read_result`, :func:`write_result`).

Schema 1.5 (1.0-1.4 files are still read: :data:`MIGRATIONS` makes them current before validation):

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
  of 1.0-1.2 (``name``, ``kind``, ``protocol``, ``endpoint_hosts``, ...) are read as that record;
* 1.4: the few-pairs rule (:data:`dhp.spec.MIN_PAIRS`): ``PerturbationResult.n_pairs`` (the pairs
  the data gives: items with a row of it) and ``counted`` (n_pairs >= MIN_PAIRS); a perturbation that is
  not counted keeps its D but is left out of D_avg, D_min, ``by_level`` and ``qualified``, and
  counted in ``Summary.n_few_pairs``. The effect beside D: ``PerturbationResult.effect`` (the share
  of pairs scored lower, ties half, metrics by expert weight; :func:`dhp.scoring.stats.share_lower`)
  with ``effect_ci``, and ``Summary.effect_avg`` (level-balanced, counted perturbations) with
  ``Summary.ci["effect_avg"]``. A 1.3 file is read with both worked out from its item scores; its
  aggregate intervals are dropped when the rule leaves a perturbation out of them.
* 1.5: the private split (issue 39): ``DatasetRef.split`` (``"public"``, or ``"private"`` for a private
  split's result) and ``DatasetRef.commitment`` (the private split's commitment, the SHA-256 over its
  seed and rows; null for a public result). A private result holds aggregates only, as the model
  checks: no item scores (``scores`` null), no raw judge outputs (``coverage.unparsed_examples`` empty),
  and ``Summary.fixed_n``, D_avg^EW at a fixed number of pairs in each bootstrap replicate, what the
  public-vs-private check (:mod:`dhp.scoring.fits`) reads. A 1.4 file is a public result.

Where a result lives (:func:`result_path`, the one place that decides)::

    <out>/<judge_slug>/<dataset>@<revision_slug>.json                        default prompt set, no cue
    <out>/<judge_slug>/<dataset>@<revision_slug>~<prompt_set_slug>.json      another prompt set
    <out>/<judge_slug>/<dataset>@<revision_slug>[~<prompt_set_slug>]~cue-<sha256(cue)[:8]>.json   with a cue
    <out>/<judge_slug>/<dataset>@<revision_slug>[~...]~private-<commitment[:12]>.json           a private split
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

from dhp.inference.judge import Judge, PublishedJudge, published
from dhp.scoring.stats import CombineMethod, Interval
from dhp.types import Level, ScoringMode

__all__ = [
    "DEFAULT_PROMPT_SET",
    "PRIVATE",
    "PUBLIC",
    "SCHEMA_VERSION",
    "CIModel",
    "Coverage",
    "DatasetRef",
    "FixedNReplicates",
    "InvocationsCost",
    "ItemScores",
    "JudgeInfo",
    "LevelSummary",
    "MetricStats",
    "PerturbationResult",
    "PromptInfo",
    "Result",
    "ResultError",
    "ScoringSettings",
    "Summary",
    "Timing",
]

#: The version written. Older versions are read through :data:`MIGRATIONS` (the one list of them).
SCHEMA_VERSION = "1.5"
#: The splits a result can be scored on (:data:`dhp.data.private.SPLITS`).
PUBLIC, PRIVATE = "public", "private"
#: The prompt set a plain ``dhp score`` uses (G-Eval style); its results keep the historic file name.
DEFAULT_PROMPT_SET = "default"
#: A :class:`dhp.types.ScoringMode` value, kept as its plain string in results.
ModeName = Annotated[str, AfterValidator(lambda v: ScoringMode(v).value)]


def _split(v: str) -> str:
    if v not in (PUBLIC, PRIVATE):
        raise ValueError(f"split {v!r} is not {PUBLIC!r} or {PRIVATE!r}")
    return v


class ResultError(ValueError):
    """A results file that cannot be read or does not validate; the message names the file."""


def _current_version(v: str) -> str:
    """A validated result is of the current schema: older documents are migrated before validation."""
    if v != SCHEMA_VERSION:
        raise ValueError(f"schema_version {v!r} is not the current {SCHEMA_VERSION!r} (migrate it first)")
    return v


class _ResultModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class JudgeInfo(_ResultModel):
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


class DatasetRef(_ResultModel):
    name: str
    repo: str
    revision: str  # commit sha or tag of the dataset repo, or "local:<sha256 of files>"
    version: str | None = None  # semantic dataset version, e.g. v1.0.0
    n_items: int
    split: Annotated[str, AfterValidator(lambda v: _split(v))] = PUBLIC  # 1.5
    commitment: str | None = None  # the private split's commitment (1.5); None for a public result

    @property
    def private(self) -> bool:
        return self.split == PRIVATE


class PromptInfo(_ResultModel):
    template_hash: str
    template: str


class ScoringSettings(_ResultModel):
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


class CIModel(_ResultModel):
    low: float
    high: float

    @classmethod
    def of(cls, iv: Interval | None) -> CIModel | None:
        return None if iv is None else cls(low=iv.low, high=iv.high)


class MetricStats(_ResultModel):
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


class PerturbationResult(_ResultModel):
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
    n_pairs: int = 0  # the pairs the data gives: items with a row of this perturbation (1.4)
    counted: bool = True  # n_pairs >= MIN_PAIRS: it enters D_avg, D_min, qualified (1.4)
    effect: float | None = None  # share of pairs scored lower, ties half (1.4); None: no pair
    effect_ci: CIModel | None = None


class LevelSummary(_ResultModel):
    """Level-restricted D_avg (the plain mean of the level's D values; None when none has a D)."""

    d_avg: float | None
    d_avg_ew: float | None


class FixedNReplicates(_ResultModel):
    """A private split's D_avg^EW with every counted perturbation resampled at ``sizes[perturbation]`` pairs
    (half its own), in each bootstrap replicate (1.5): what :mod:`dhp.scoring.fits` compares with the public
    split's at the same numbers of pairs (D grows with the number of pairs, and the splits' rows differ)."""

    sizes: Mapping[str, int]  # counted perturbation -> the pairs each replicate draws of it
    d_avg_ew: tuple[float | None, ...]  # one per replicate; None where a replicate has none


class Summary(_ResultModel):
    d_avg: float | None
    d_min: float | None
    d_avg_ew: float | None
    d_min_ew: float | None
    ci: Mapping[str, CIModel] = Field(default_factory=dict)
    n_without_d: int = 0  # perturbations with no D, left out of D_avg and D_min (1.1)
    by_level: Mapping[Level, LevelSummary] = Field(default_factory=dict)  # each level the dataset has (1.1)
    # D_min^EW > 1 (DHP v2's advice) and every counted perturbation has a D (1.2); None when D_min^EW is missing (1.1)
    qualified: bool | None = None
    n_few_pairs: int = 0  # perturbations left out of the aggregates by the few-pairs rule (1.4)
    effect_avg: float | None = None  # level-balanced mean effect of the counted perturbations (1.4)
    # D_avg^EW at a fixed number of pairs in each bootstrap replicate (1.5; a private split's result only)
    fixed_n: FixedNReplicates | None = None


class Coverage(_ResultModel):
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


class InvocationsCost(_ResultModel):
    """The cost of every invocation that worked on a result: a run killed and resumed sends part of
    its requests in each (:mod:`dhp.scoring.cost`)."""

    invocations: int
    requests_sent: int
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    wall_seconds: float = 0.0


class Timing(_ResultModel):
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


class ItemScores(_ResultModel):
    """Item-aligned per-text scores (None = no score) for recomputation and the score plots."""

    item_ids: tuple[str, ...]
    original: Mapping[str, tuple[float | None, ...]]  # metric -> scores
    perturbed: Mapping[str, Mapping[str, tuple[float | None, ...]]]  # perturbation -> metric -> scores
    # words of each item's original text (1.2; None in older results): the length tertiles' key
    original_words: tuple[int, ...] | None = None


class Result(_ResultModel):
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

    @model_validator(mode="after")
    def _private_holds_aggregates_only(self) -> Result:
        """A private split's result names its commitment and holds no item score and no judge output."""
        if self.dataset.private:
            if not self.dataset.commitment:
                raise ValueError("a private split's result must name its commitment")
            if self.scores is not None or self.coverage.unparsed_examples:
                raise ValueError(
                    "a private split's result holds aggregates only (no item scores, no outputs)"
                )
        elif self.dataset.commitment is not None:
            raise ValueError("a public result has no commitment")
        return self
