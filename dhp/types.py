"""The benchmark's vocabulary, as frozen dataclasses. Read this module first.

A *benchmark* is a set of :class:`DatasetSpec`. Each dataset names the text a judge scores
(``judged_field``), the context shown beside it, the quality :class:`Metric` s the judge rates,
the :class:`Perturbation` s that degrade the text, and :class:`ExpertWeights` saying which metric
each perturbation should hurt most.

Everything here is plain data: it round-trips through :func:`dhp.records.to_data` /
:func:`dhp.records.from_data` (derived from the fields, nothing written per class) so that a user
can declare a dataset of their own in a JSON or YAML file (see :mod:`dhp.spec` for the six
built-in datasets and :mod:`dhp.weights` for weights files). Nothing in this module does I/O.
"""

from __future__ import annotations

import enum
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import MISSING, dataclass, field, fields
from typing import Any

from dhp.errors import DataError, SpecError
from dhp.records import OMIT_NONE

__all__ = [
    "CONTROL_JUDGES",
    "K_NONE_MEANS_ALL",
    "MODE_AUTO",
    "MODE_CHOICES",
    "PROTOCOLS",
    "TGI_MAX_TOP_N_TOKENS",
    "ContextField",
    "ControlJudge",
    "DatasetSpec",
    "EndpointProtocol",
    "ExpertWeights",
    "Level",
    "Method",
    "Metric",
    "Operation",
    "PairRow",
    "PaperStats",
    "Perturbation",
    "Redistribution",
    "Role",
    "ScoringMode",
    "Selection",
    "Severity",
    "SourceSpec",
    "TaskKind",
    "WeightEntry",
    "k_text",
    "row_columns",
]

SCORE_MIN = 1
SCORE_MAX = 5
_ID = re.compile(r"^[a-z][a-z0-9_]*$")
_DATASET_NAME = re.compile(r"^[a-z][a-z0-9-]*$")


class Level(str, enum.Enum):
    """Granularity of a perturbation: character, word or sentence."""

    CHARACTER = "C"
    WORD = "W"
    SENTENCE = "S"


class Method(str, enum.Enum):
    """How a perturbation is produced: by a deterministic rule, or by an LLM (or its offline stand-in)."""

    RULE = "rule"
    LLM = "llm"


class Severity(str, enum.Enum):
    MINOR = "minor"
    MAJOR = "major"
    SINGLE = "single"  # datasets too short for two degrees (Story Cloze, some sentence-level ones)


class Operation(str, enum.Enum):
    """What a perturbation does to the judged text. The builder maps each operation to code."""

    CHAR_DELETION = "char_deletion"  # delete k random alphanumeric characters
    CHAR_TYPO = "char_typo"  # k random typos with the `typo` package
    WORD_DELETION = "word_deletion"  # delete k consecutive words
    FICTIONAL_ENTITIES = "fictional_entities"  # replace named entities with fictional ones (LLM)
    GRAMMATICAL_ERRORS = "grammatical_errors"  # introduce grammatical errors (LLM)
    SENTENCE_REORDER = "sentence_reorder"  # shuffle k sentences (k=None: all)
    REWRITE_INSERT = "rewrite_insert"  # rephrase sentence(s), insert right after the original (LLM)
    OTHER_ITEM = "other_item"  # replace the text by the same field of another item
    WRONG_ENDING = "wrong_ending"  # replace the text by the dataset's own wrong alternative


#: Operation values whose ``k=None`` means "all" (reorder every sentence); for the others it means "no k".
K_NONE_MEANS_ALL: frozenset[str] = frozenset({Operation.SENTENCE_REORDER.value})


def k_text(operation: str, k: int | None, none: str = "-") -> str:
    """How listings show a perturbation's ``k``: the number, ``all``, or ``none`` where it has no k.

    ``operation`` is an :class:`Operation` value (a build-info record may hold one this version lacks).
    """
    if k is not None:
        return str(k)
    return "all" if operation in K_NONE_MEANS_ALL else none


class Redistribution(str, enum.Enum):
    """May the derived dataset be republished? `dhp publish` refuses RESTRICTED without a flag."""

    ALLOWED = "allowed"
    RESTRICTED = "restricted"


class TaskKind(str, enum.Enum):
    """What kind of text a dataset's judge scores. ``DatasetSpec.task`` holds one of these values
    (a plain string, so that a user's own dataset may name another kind)."""

    SUMMARIZATION = "summarization"
    STORY_COMPLETION = "story_completion"
    QUESTION_ANSWERING = "question_answering"
    TRANSLATION = "translation"
    CUSTOM = "custom"


class Role(str, enum.Enum):
    """Which text of a pair a score belongs to. Requests carry ``Role.ORIGINAL.value`` or the
    perturbation id of a perturbed text."""

    ORIGINAL = "original"
    PERTURBED = "perturbed"


# --------------------------------------------------------------------------------------------
# Judges and inference
# --------------------------------------------------------------------------------------------
class ScoringMode(str, enum.Enum):
    """How a judge's outputs become one score per (text, metric). ``auto`` is a request, not a mode:
    the runner resolves it to EXPECTED or SAMPLE (see :data:`MODE_CHOICES`)."""

    EXPECTED = "expected"  # G-Eval: sum of p(s)*s over the score tokens, one request
    PAPER = "paper"  # temperature 0, parse the text, `repeats` requests averaged (the DHP paper)
    SAMPLE = "sample"  # `samples` requests at temperature 1, parsed and averaged (no logprobs)
    BUILTIN = "builtin"  # a built-in control judge returns its score directly


#: What a user may ask for with ``--mode``: ``auto`` or a mode an endpoint or local judge can run.
MODE_AUTO = "auto"
MODE_CHOICES: tuple[str, ...] = (
    MODE_AUTO,
    ScoringMode.EXPECTED.value,
    ScoringMode.PAPER.value,
    ScoringMode.SAMPLE.value,
)


class EndpointProtocol(str, enum.Enum):
    """The HTTP API of an inference endpoint."""

    OPENAI = "openai"  # POST {base}/v1/chat/completions (TGI, vLLM, SGLang, llama.cpp, transformers serve)
    TGI = "tgi"  # TGI's native POST {base}/generate with details / top_n_tokens


PROTOCOLS: tuple[str, ...] = tuple(p.value for p in EndpointProtocol)

#: TGI's default ``--max-top-n-tokens``, also its limit for chat ``top_logprobs``: asking for more
#: is a validation error (HTTP 422), so the TGI protocol and the runner's fallback ask for at most this.
TGI_MAX_TOP_N_TOKENS = 5


class ControlJudge(str, enum.Enum):
    """The built-in control judges (:mod:`dhp.inference.builtin`): they need no endpoint."""

    RANDOM = "random"  # negative control: uniform scores
    ORACLE = "oracle"  # positive control: knows which text is perturbed
    LEXICAL = "lexical"  # a bag-of-words heuristic


CONTROL_JUDGES: tuple[str, ...] = tuple(c.value for c in ControlJudge)


def _require(cond: bool, msg: str) -> None:
    if not cond:
        raise SpecError(msg)


@dataclass(frozen=True)
class Metric:
    """A quality metric a judge rates on a 1-5 scale. `name` is the key used everywhere."""

    name: str
    label: str
    definition: str
    scale_min: int = SCORE_MIN
    scale_max: int = SCORE_MAX

    def __post_init__(self) -> None:
        _require(bool(_ID.match(self.name)), f"metric name {self.name!r} must match {_ID.pattern}")
        _require(bool(self.definition.strip()), f"metric {self.name!r} needs a definition")
        _require(self.scale_min < self.scale_max, f"metric {self.name!r}: scale_min must be < scale_max")


@dataclass(frozen=True)
class Perturbation:
    """One way of degrading the judged text, with a stable id such as ``char_typo_minor``.

    ``k`` is the operation's size parameter (characters, typos, words or sentences);
    ``None`` means "not applicable" for LLM rows and "all" for sentence reordering.
    """

    id: str
    level: Level
    method: Method
    operation: Operation
    severity: Severity
    description: str
    k: int | None = None

    def __post_init__(self) -> None:
        _require(bool(_ID.match(self.id)), f"perturbation id {self.id!r} must match {_ID.pattern}")
        _require(self.k is None or self.k > 0, f"perturbation {self.id!r}: k must be positive")
        _require(bool(self.description.strip()), f"perturbation {self.id!r} needs a description")


@dataclass(frozen=True)
class WeightEntry:
    """Expert weights of one perturbation: metric -> share of votes (sums to 1), and why."""

    weights: Mapping[str, float]
    reason: str = ""
    #: raw survey votes, when the weights come from a survey (left out of the data while None)
    votes: Mapping[str, int] | None = field(default=None, metadata=OMIT_NONE)


@dataclass(frozen=True)
class ExpertWeights:
    """Expert weights for every perturbation of one dataset, keyed by perturbation id."""

    entries: Mapping[str, WeightEntry]
    source: str = "default"  # "default", a file path, or "survey:<version>"

    def for_perturbation(self, perturbation_id: str) -> Mapping[str, float]:
        try:
            return self.entries[perturbation_id].weights
        except KeyError:
            raise SpecError(f"no expert weights for perturbation {perturbation_id!r}") from None

    def validate(self, metrics: tuple[str, ...], perturbations: tuple[str, ...], where: str) -> None:
        """Known metrics only, non-negative, sum to 1 per perturbation, every perturbation covered."""
        for pid in perturbations:
            _require(pid in self.entries, f"{where}: missing weights for perturbation {pid!r}")
        for pid, entry in self.entries.items():
            _require(
                pid in perturbations,
                f"{where}: unknown perturbation {pid!r}; valid: {', '.join(perturbations)}",
            )
            for m, w in entry.weights.items():
                _require(m in metrics, f"{where}: {pid}.{m}: unknown metric; valid: {', '.join(metrics)}")
                _require(
                    isinstance(w, (int, float)) and math.isfinite(w) and w >= 0,
                    f"{where}: {pid}.{m}: weight must be a finite non-negative number, got {w!r}",
                )
            total = sum(entry.weights.values())
            _require(
                abs(total - 1.0) <= 1e-6,
                f"{where}: {pid}: weights must sum to 1, got {total:.6g}",
            )


@dataclass(frozen=True)
class SourceSpec:
    """Where a dataset's raw data comes from and under what terms."""

    name: str
    citation: str  # BibTeX
    homepage: str
    licence: str  # SPDX id where one exists, else a short phrase
    redistribution: Redistribution
    terms: str  # plain-language redistribution terms, shown in the card
    origin_urls: Mapping[str, str] = field(default_factory=dict)  # file key -> public URL
    hub_source_id: str = ""  # e.g. "mteb/summeval" for card `source_datasets`


@dataclass(frozen=True)
class Selection:
    """How the N items are chosen from the source (SPEC §2)."""

    rule: str  # one line, human readable
    n_items: int = 100
    seed: int = 2024
    min_chars: int | None = None  # keep judged texts strictly longer than this
    sample: bool = True  # False: take all eligible items (SummEval: one per article)


@dataclass(frozen=True)
class PaperStats:
    """Average characters / words / sentences of the judged texts as the paper reports them."""

    chars: float
    words: float
    sentences: float


@dataclass(frozen=True)
class ContextField:
    """A field shown to the judge beside the judged text (e.g. the source article)."""

    name: str
    label: str  # how the prompt titles it, e.g. "Source Article"
    required: bool = True  # False: prompts must work without it (AE's paragraph offline)


@dataclass(frozen=True)
class DatasetSpec:
    """One DHP dataset: what is judged, on which metrics, and how it is degraded."""

    name: str  # e.g. "summeval"; the Hub repo is f"{org}/{name}"
    pretty_name: str
    task: str  # a TaskKind value (or another name for a user's own kind of dataset)
    source: SourceSpec
    selection: Selection
    judged_field: str  # column name of the judged text in the source, e.g. "summary"
    judged_label: str  # how prompts title it, e.g. "Summary"
    context_fields: tuple[ContextField, ...]
    metrics: tuple[Metric, ...]
    perturbations: tuple[Perturbation, ...]
    weights: ExpertWeights
    paper_stats: PaperStats | None = None
    org: str = "dhp"

    def __post_init__(self) -> None:
        _require(
            bool(_DATASET_NAME.match(self.name)),
            f"dataset name {self.name!r} must match {_DATASET_NAME.pattern}",
        )
        _require(len(self.metrics) > 0, f"dataset {self.name!r} needs at least one metric")
        _require(len(self.perturbations) > 0, f"dataset {self.name!r} needs at least one perturbation")
        mnames = [m.name for m in self.metrics]
        _require(len(set(mnames)) == len(mnames), f"dataset {self.name!r}: duplicate metric names")
        pids = [p.id for p in self.perturbations]
        _require(len(set(pids)) == len(pids), f"dataset {self.name!r}: duplicate perturbation ids")
        self.weights.validate(tuple(mnames), tuple(pids), where=f"weights of {self.name}")

    # -- lookups ---------------------------------------------------------------------------
    @property
    def hub_repo(self) -> str:
        return f"{self.org}/{self.name}"

    @property
    def metric_names(self) -> tuple[str, ...]:
        return tuple(m.name for m in self.metrics)

    @property
    def perturbation_ids(self) -> tuple[str, ...]:
        return tuple(p.id for p in self.perturbations)

    @property
    def levels(self) -> tuple[Level, ...]:
        """Levels present, in C, W, S order."""
        present = {p.level for p in self.perturbations}
        return tuple(lv for lv in Level if lv in present)

    def metric(self, name: str) -> Metric:
        for m in self.metrics:
            if m.name == name:
                return m
        raise SpecError(
            f"dataset {self.name!r} has no metric {name!r}; valid: {', '.join(self.metric_names)}"
        )

    def perturbation(self, pid: str) -> Perturbation:
        for p in self.perturbations:
            if p.id == pid:
                return p
        raise SpecError(
            f"dataset {self.name!r} has no perturbation {pid!r}; valid: {', '.join(self.perturbation_ids)}"
        )

    def with_weights(self, weights: ExpertWeights) -> DatasetSpec:
        """A copy using other expert weights (validated)."""
        from dataclasses import replace

        return replace(self, weights=weights)

    def derived(self) -> dict[str, Any]:
        """Written after the fields by :func:`dhp.records.to_data` (``dhp spec --json``), ignored when read."""
        return {"hub_repo": self.hub_repo}


# --------------------------------------------------------------------------------------------
# The row schema of a built DHP dataset (builder writes it, scoring reads it)
# --------------------------------------------------------------------------------------------
_CONTEXT = "context"  # the PairRow field that spreads into one column per context field


@dataclass(frozen=True)
class PairRow:
    """One pair of a built dataset: the original text, its perturbed version and what made it.

    The field names are the column names, spelled nowhere else: the parquet columns are the fields
    in this order, with ``context`` spread into one column per context field of the dataset
    (:func:`row_columns`). The fields without a default are the columns every folder must have; the
    descriptive ones are ``None`` when read from a folder written without them.
    """

    id: str
    context: Mapping[str, str | None]  # context field name -> text (None: an absent optional field)
    original: str  # the judged text as selected from the source
    perturbed: str  # the degraded text; always differs from `original`
    perturbation: str  # a Perturbation.id
    level: str | None = None  # Level value: C / W / S
    method: str | None = None  # Method value: rule / llm
    severity: str | None = None  # Severity value
    generator: str | None = (
        None  # what produced `perturbed`: "rule", "offline-rules/<version>" or "llm:<model>"
    )
    generator_settings: str | None = None  # JSON: k, seeds, or the LLM model and settings

    @classmethod
    def columns(cls, context: Sequence[str]) -> tuple[str, ...]:
        """Column order of a dataset whose context fields are ``context``."""
        out: list[str] = []
        for f in fields(cls):
            out.extend(context if f.name == _CONTEXT else (f.name,))
        return tuple(out)

    @classmethod
    def required_columns(cls) -> tuple[str, ...]:
        """The columns every folder must have (the dataset's required context fields besides)."""
        return tuple(f.name for f in fields(cls) if f.name != _CONTEXT and f.default is MISSING)

    def record(self) -> dict[str, str | None]:
        """The row as written: column -> value, in :meth:`columns` order."""
        out: dict[str, str | None] = {}
        for f in fields(self):
            if f.name == _CONTEXT:
                out.update(self.context)
            else:
                out[f.name] = getattr(self, f.name)
        return out

    @classmethod
    def from_record(cls, rec: Mapping[str, Any], context: Sequence[str], where: str) -> PairRow:
        """The row of a record read back (column -> value); a :class:`DataError` naming ``where`` if a
        required column is missing or a column holds something other than a string (or null)."""
        values: dict[str, Any] = {_CONTEXT: {name: rec.get(name) for name in context}}
        for f in fields(cls):
            if f.name != _CONTEXT:
                values[f.name] = rec.get(f.name)
        bad = [
            name for name, v in values.items() if name != _CONTEXT and not (v is None or isinstance(v, str))
        ]
        bad += [name for name, v in values[_CONTEXT].items() if not (v is None or isinstance(v, str))]
        missing = [name for name in cls.required_columns() if values[name] is None]
        if bad or missing:
            raise DataError(f"{where}: a row lacks the columns {missing} or holds non-strings in {bad}")
        return cls(**values)


def row_columns(spec: DatasetSpec) -> tuple[str, ...]:
    """Column order of the dataset's parquet files: :meth:`PairRow.columns` of its context fields."""
    return PairRow.columns(tuple(c.name for c in spec.context_fields))
