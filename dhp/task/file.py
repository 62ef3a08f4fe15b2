"""Task files: DHP on a user's own texts, metrics and perturbations (bring your own task).

This module reads them (schema, catalogue, prompts, a built folder's spec) without the builder;
:mod:`dhp.task.build_task` builds, checks and starts one.

A task file (YAML or JSON) declares a dataset the way :mod:`dhp.spec` declares the six built-in
ones; it is validated with pydantic (every error located: file, key path, one line each) and
converted to a :class:`~dhp.types.DatasetSpec` through :meth:`DatasetSpec.from_dict`, so builder,
scorer and reports treat it exactly like a built-in dataset::

    name: my-summaries
    source: {path: data/summaries.csv}          # or {hub: org/name, split: test, revision: v1}
    judged: summary
    context: [article]
    select: {n: 100, seed: 0, min_chars: 150}
    task: summarization                          # prompt style; optional
    metrics:
      - {name: faithfulness, definition: "Only states facts supported by the article."}
      - {name: fluency, definition: "Well-formed, grammatical sentences."}
    perturbations: [char_typo, word_fictional_ne, sent_reorder]
    weights: equal

Perturbations are chosen from the built-in catalogue (:func:`catalogue`) by base id; each expands
to its catalogue severities and k, or to the severities given (``{id: char_typo, k: {minor: 3}}``,
``{id: word_grammar, severities: [major]}``). Weights are ``equal`` (every metric 1/M, recorded as
the weights source ``equal`` in cards and results) or a mapping perturbation -> metric -> weight
(a base id applies to all its severities). Prompts: a metric's own ``template`` (the variables of
:mod:`dhp.scoring.prompts`), else the packaged ``<task>.<metric>.txt`` of the prompt style, else
one rendered from the definition in the default prompt set's style (:func:`render_prompt`).
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal, get_args

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PositiveInt,
    ValidationError,
    field_validator,
    model_validator,
)

from dhp.data.items import FILE_FORMATS, TableRef
from dhp.errors import SpecError
from dhp.records import from_data, problem, to_data
from dhp.scoring.prompts import PROMPT_SETS, PromptError, load_template
from dhp.spec import BENCHMARK, DATASET_NAMES, OPERATIONS, get_dataset
from dhp.types import DatasetSpec, Perturbation, Severity, TaskKind

__all__ = [
    "PROMPTS_DIR",
    "PROMPT_STYLES",
    "TASK_FILE_NAME",
    "CatalogueEntry",
    "Task",
    "TaskError",
    "TaskFile",
    "catalogue",
    "folder_spec",
    "load_task",
    "parse_task",
    "render_prompt",
    "spec_json",
    "task_for_scoring",
]

PROMPT_STYLES = tuple(k.value for k in TaskKind)
SevName = Literal["minor", "major", "single"]
_SEV_SUFFIX = re.compile(r"_(minor|major)$")


class TaskError(SpecError):
    """A task file that cannot be read or does not validate; one line per problem, located."""


# ---------------------------------------------------------------------------------------------
# The perturbation catalogue, derived from the six built-in datasets (one source of truth)
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CatalogueEntry:
    """A built-in perturbation family (base id) with its severities, as first declared in dhp.spec."""

    base: str
    rows: tuple[Perturbation, ...]  # one per severity
    noun: str  # the judged label its descriptions speak of (e.g. "summary")

    @property
    def severities(self) -> tuple[Severity, ...]:
        return tuple(p.severity for p in self.rows)

    @property
    def takes_k(self) -> bool:
        return any(p.k is not None for p in self.rows)


@cache
def catalogue() -> Mapping[str, CatalogueEntry]:
    """Base id -> entry, from the first built-in dataset declaring it (``dhp.spec`` order).

    ``sent_wrong_ending`` is left out: it needs each item's own wrong alternative, which a table
    source does not have.
    """

    out: dict[str, CatalogueEntry] = {}
    for ds in BENCHMARK.values():
        groups: dict[str, list[Perturbation]] = {}
        for p in ds.perturbations:
            if OPERATIONS[p.operation].item_extra is None:
                groups.setdefault(_base_id(p.id), []).append(p)
        for base, rows in groups.items():
            out.setdefault(base, CatalogueEntry(base, tuple(rows), ds.judged_label.lower()))
    return out


def by_sev_desc(entry: CatalogueEntry, sev: str) -> str:
    """The catalogue description of one severity of ``entry``."""
    return next(p.description for p in entry.rows if p.severity.value == sev).rstrip(".")


def _base_id(pid: str) -> str:
    return _SEV_SUFFIX.sub("", pid)


def _expand(
    entry: CatalogueEntry, k: Mapping[SevName, int] | None, severities: Sequence[SevName] | None, noun: str
) -> list[dict[str, Any]]:
    """The perturbations (``Perturbation.to_dict`` form) of one catalogue choice, for a task's judged text."""
    have = {s.value for s in entry.severities}
    every: list[SevName] = [
        v for v in get_args(SevName) if v in have
    ]  # catalogue order: minor, major, single
    chosen: list[SevName] = (
        list(k) if k is not None else list(severities) if severities is not None else every
    )
    by_sev = {p.severity.value: p for p in entry.rows}
    out: list[dict[str, Any]] = []
    for sev in chosen:
        p = by_sev[sev]
        d = to_data(p)
        desc = re.sub(rf"\b{re.escape(entry.noun)}\b", noun, p.description)
        if k is not None:
            new_k = k[sev]
            desc = re.sub(rf"\b{p.k}\b", str(new_k), desc, count=1)
            d["k"] = new_k
        d["description"] = desc
        out.append(d)
    return out


# ---------------------------------------------------------------------------------------------
# The file schema (pydantic): what a user writes
# ---------------------------------------------------------------------------------------------
class _TaskModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)


class SourceDecl(_TaskModel):
    path: str | None = None
    hub: str | None = None
    split: str | None = None
    revision: str | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> SourceDecl:

        if (self.path is None) == (self.hub is None):
            raise ValueError("give exactly one of path (a local file) or hub (a Hub dataset id)")
        if self.path is not None:
            if self.split is not None or self.revision is not None:
                raise ValueError("split and revision belong to a hub source, not a file")
            if Path(self.path).suffix.lower() not in FILE_FORMATS:
                raise ValueError(f"path must end in one of {', '.join(FILE_FORMATS)}, got {self.path!r}")
            if Path(self.path).is_absolute():
                raise ValueError("path must be relative to the task file's folder")
        elif not self.split or not self.revision:
            raise ValueError("a hub source needs split and revision (e.g. split: test, revision: main)")
        return self


class ContextDecl(_TaskModel):
    name: str = Field(min_length=1)
    label: str | None = None
    required: bool = True


class SelectDecl(_TaskModel):
    n: PositiveInt
    seed: int = 0
    min_chars: int | None = Field(default=None, ge=0)


class MetricDecl(_TaskModel):
    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    definition: str = Field(min_length=1)
    label: str | None = None
    template: str | None = None


class PerturbationDecl(_TaskModel):
    id: str
    k: dict[SevName, PositiveInt] | None = None
    severities: list[SevName] | None = Field(default=None, min_length=1)

    @model_validator(mode="after")
    def _known(self) -> PerturbationDecl:
        cat = catalogue()
        entry = cat.get(self.id)
        if entry is None:
            raise ValueError(f"unknown perturbation {self.id!r}; valid: {', '.join(cat)}")
        have = [s.value for s in entry.severities]
        if self.k is not None and self.severities is not None:
            raise ValueError("give k per severity or severities, not both")
        wanted = list(self.k or self.severities or [])
        bad = [s for s in wanted if s not in have]
        if bad:
            raise ValueError(f"{self.id} has no severity {bad[0]!r}; valid: {', '.join(have)}")
        fixed = [p.severity.value for p in entry.rows if p.k is None]
        if self.k is not None and any(s in fixed for s in self.k):
            sev = next(s for s in self.k if s in fixed)
            raise ValueError(
                f"{self.id} takes no k at severity {sev!r} ({by_sev_desc(entry, sev)}); use severities"
            )
        return self


class TaskFile(_TaskModel):
    """A task file, as written."""

    name: str = Field(pattern=r"^[a-z][a-z0-9-]*$")
    pretty_name: str | None = None
    source: SourceDecl
    judged: str = Field(min_length=1)
    judged_label: str | None = None
    context: list[ContextDecl] = []
    select: SelectDecl
    task: TaskKind = TaskKind.CUSTOM
    metrics: list[MetricDecl] = Field(min_length=1)
    perturbations: list[PerturbationDecl] = Field(min_length=1)
    weights: Literal["equal"] | dict[str, dict[str, float]]
    licence: str = "unknown"
    homepage: str = ""
    citation: str = ""
    terms: str = ""

    @field_validator("context", mode="before")
    @classmethod
    def _context_names(cls, v: Any) -> Any:
        v = [v] if isinstance(v, str) else v
        return [{"name": c} if isinstance(c, str) else c for c in v] if isinstance(v, list) else v

    @field_validator("perturbations", mode="before")
    @classmethod
    def _perturbation_ids(cls, v: Any) -> Any:
        v = [v] if isinstance(v, str) else v
        return [{"id": p} if isinstance(p, str) else p for p in v] if isinstance(v, list) else v

    @field_validator("weights", mode="before")
    @classmethod
    def _weights_kind(cls, v: Any) -> Any:
        if v != "equal" and not isinstance(v, Mapping):
            raise ValueError(f"must be 'equal' or a mapping perturbation -> metric -> weight, got {v!r}")
        return v

    @field_validator("name")
    @classmethod
    def _not_builtin(cls, v: str) -> str:

        if v in DATASET_NAMES:
            raise ValueError(f"{v!r} is a built-in dataset; choose another name")
        return v

    @model_validator(mode="after")
    def _distinct(self) -> TaskFile:
        for what, names in (
            ("metric", [m.name for m in self.metrics]),
            ("perturbation", [p.id for p in self.perturbations]),
            ("context column", [c.name for c in self.context]),
        ):
            dup = sorted({n for n in names if names.count(n) > 1})
            if dup:
                raise ValueError(f"duplicate {what} {dup[0]!r}")
        if self.judged in {c.name for c in self.context}:
            raise ValueError(f"the judged column {self.judged!r} cannot also be context")
        return self


def _located(e: ValidationError, where: str) -> str:
    errs = e.errors()

    def union_noise(
        err: Any,
    ) -> bool:  # the failed 'equal' branch of a mapping's union, beside the real error
        tagged = any(str(x).startswith("literal[") for x in err["loc"])
        return tagged and any(o is not err and o["loc"][:1] == err["loc"][:1] for o in errs)

    lines = []
    for err in errs:
        if union_noise(err):
            continue
        loc = ".".join(str(x) for x in err["loc"] if "[" not in str(x)) or "(top level)"
        msg = str(err["msg"]).removeprefix("Value error, ")
        lines.append(f"{where}: {loc}: {msg}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Conversion to the benchmark's types
# ---------------------------------------------------------------------------------------------
def _label(name: str) -> str:
    return name.replace("_", " ").replace("-", " ").strip().title()


def _selection_rule(s: SelectDecl) -> str:
    longer = f" with judged texts longer than {s.min_chars} characters" if s.min_chars is not None else ""
    return f"{s.n} random items{longer} (seed {s.seed})."


def _weights(tf: TaskFile, pids: list[str], where: str) -> dict[str, Any]:
    metrics = [m.name for m in tf.metrics]
    if tf.weights == "equal":
        reason = "equal weights: the task file gives no expert weights"
        return {pid: {"weights": {m: 1 / len(metrics) for m in metrics}, "reason": reason} for pid in pids}
    out: dict[str, Any] = {}
    for key, w in tf.weights.items():
        targets = [key] if key in pids else [p for p in pids if _base_id(p) == key]
        if not targets:
            raise TaskError(f"{where}: weights.{key}: unknown perturbation; valid: {', '.join(pids)}")
        for pid in targets:
            out[pid] = {"weights": dict(w), "reason": f"from the task file ({key})"}
    return out


def _spec_dict(tf: TaskFile, where: str) -> dict[str, Any]:
    """``tf`` as a :class:`~dhp.types.DatasetSpec`'s data (:func:`dhp.records.from_data`), its weights
    the entries alone."""

    src = tf.source
    ref = (
        TableRef(file=src.path)
        if src.path
        else TableRef(hub=src.hub or "", split=src.split or "", revision=src.revision or "")
    )
    judged_label = tf.judged_label or _label(tf.judged)
    noun = judged_label.lower()
    perturbations = [d for p in tf.perturbations for d in _expand(catalogue()[p.id], p.k, p.severities, noun)]
    pids = [d["id"] for d in perturbations]
    return {
        "name": tf.name,
        "pretty_name": tf.pretty_name or tf.name,
        "task": tf.task.value,
        "source": {
            "name": tf.pretty_name or tf.name,
            "citation": tf.citation,
            "homepage": tf.homepage,
            "licence": tf.licence,
            "redistribution": "restricted",
            "terms": tf.terms or "The user's own data: terms as its owner sets them.",
            "origin_urls": ref.origin(),
            "hub_source_id": src.hub or "",
        },
        "selection": {
            "rule": _selection_rule(tf.select),
            "n_items": tf.select.n,
            "seed": tf.select.seed,
            "min_chars": tf.select.min_chars,
            "sample": True,
        },
        "judged_field": tf.judged,
        "judged_label": judged_label,
        "context_fields": [
            {"name": c.name, "label": c.label or _label(c.name), "required": c.required} for c in tf.context
        ],
        "metrics": [
            {"name": m.name, "label": m.label or _label(m.name), "definition": m.definition}
            for m in tf.metrics
        ],
        "perturbations": perturbations,
        "weights": _weights(tf, pids, where),
        "org": "local",
    }


# ---------------------------------------------------------------------------------------------
# Prompts
# ---------------------------------------------------------------------------------------------
def _packaged_template(name: str) -> str | None:
    """A packaged prompt template of the default set, or None."""

    res = resources.files("dhp.scoring").joinpath("prompts", PROMPT_SETS[0], name)
    return res.read_text(encoding="utf-8") if res.is_file() else None


def _intro(spec: DatasetSpec) -> str:
    """The first line of the default set's prompts for the task's style, else one for the task's texts."""
    for m in ("coherence", "fluency", "accuracy", "answer_quality", "consistency", "relevance"):
        raw = _packaged_template(f"{spec.task}.{m}.txt") if spec.task != TaskKind.CUSTOM.value else None
        if raw is not None:
            return raw.split("\n", 1)[0]
    noun = spec.judged_label.lower()
    ctx = " and ".join(c.label.lower() for c in spec.context_fields)
    given = f"a {noun} written for a {ctx}" if ctx else f"a {noun}"
    return (
        f"You will be given {given}. Your task is to rate the {noun} on one metric. Please make sure you read and "
        "understand these instructions carefully. Please keep this document open while reviewing, and refer to "
        "it as needed."
    )


def render_prompt(spec: DatasetSpec, metric: str, template: str | None = None) -> str:
    """The prompt template of one metric of a task (``string.Template`` text, as packaged templates).

    ``template`` (the task file's own) wins; else the packaged ``<task>.<metric>.txt``; else a template
    in the default set's style: intro, the criterion with its definition, evaluation steps, the
    context and the judged text, and the score form.
    """
    if template is not None:
        return template if template.endswith("\n") else template + "\n"
    packaged = _packaged_template(f"{spec.task}.{metric}.txt") if spec.task != TaskKind.CUSTOM.value else None
    if packaged is not None:
        return packaged
    noun = spec.judged_label.lower()
    m = spec.metric(metric)
    steps = [f"Read the {c.label}: understand what the {noun} is written for." for c in spec.context_fields]
    steps += [
        f"Read the {spec.judged_label} carefully, with the criterion in mind.",
        f"Look for every problem the criterion names, and decide how much each one matters for {m.label.lower()}.",
        f"Rate the {spec.judged_label}: Based on the above steps, assign a score between ${{scale_min}}-${{scale_max}} "
        f"for {m.label.lower()}.",
    ]
    body = "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1))
    text = (
        f"{_intro(spec)}\n\nEvaluation Criterion:\n\n${{metric_label}} (${{scale_min}}-${{scale_max}}) - ${{definition}}"
        f"\n\nEvaluation Steps:\n\n{body}\n\n${{context}}${{text_label}}:\n\n${{text}}\n\n"
        "Evaluation Score (please don't give any feedback, just give a score ONLY) - ${metric_label}:\n"
    )
    return text


# ---------------------------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------------------------
TASK_FILE_NAME = "task.yaml"
PROMPTS_DIR = "prompts"


@dataclass(frozen=True)
class Task:
    """A validated task: its dataset spec, its prompt templates, and the file it came from."""

    spec: DatasetSpec
    prompts: Mapping[str, str]  # metric -> template text
    prompt_sources: Mapping[
        str, str
    ]  # metric -> "task file", "packaged <file>" or "rendered from the definition"
    text: str  # the task file as written (stored in the built folder)
    path: Path

    @property
    def folder(self) -> Path:
        """The folder the source path is relative to."""
        return self.path.parent

    @property
    def equal_weights(self) -> bool:
        return self.spec.weights.source == "equal"

    def prompt_files(self) -> dict[str, str]:
        """``prompts/<name>.<metric>.txt`` -> template, as stored in a built folder."""
        return {f"{PROMPTS_DIR}/{self.spec.name}.{m}.txt": t for m, t in self.prompts.items()}


def _prompt_source(spec: DatasetSpec, m: MetricDecl) -> str:
    if m.template is not None:
        return "task file"
    if spec.task != TaskKind.CUSTOM.value and _packaged_template(f"{spec.task}.{m.name}.txt") is not None:
        return f"packaged {spec.task}.{m.name}.txt"
    return "rendered from the definition"


def parse_task(text: str, path: Path) -> Task:
    """Validate the text of a task file; raise :class:`TaskError` with located one-line messages."""
    where = str(path)
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise TaskError(f"{where}: not valid YAML or JSON ({' '.join(str(e).split())})") from None
    if not isinstance(raw, Mapping):
        raise TaskError(f"{where}: a task file must be a mapping of keys (name, source, judged, ...)")
    try:
        tf = TaskFile.model_validate(raw)
    except ValidationError as e:
        raise TaskError(_located(e, where)) from None
    data = _spec_dict(tf, where)
    data["weights"] = {
        "entries": data["weights"],
        "source": "equal" if tf.weights == "equal" else f"task:{tf.name}",
    }
    try:
        spec = from_data(DatasetSpec, data)
    except ValueError as e:  # a pydantic ValidationError, or a SpecError of a record's own checks
        raise TaskError(f"{where}: {problem(e)}") from None
    prompts = {m.name: render_prompt(spec, m.name, m.template) for m in tf.metrics}
    sources = {m.name: _prompt_source(spec, m) for m in tf.metrics}
    task = Task(spec=spec, prompts=prompts, prompt_sources=sources, text=text, path=path)
    _check_prompts(task)
    return task


def _check_prompts(task: Task) -> None:
    """Every template goes through the scorer's own loader (variables known, ${text} and ${context} present)."""

    with tempfile.TemporaryDirectory(prefix="dhp-task-") as tmp:
        root = Path(tmp)
        for rel, text in task.prompt_files().items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
        for i, m in enumerate(task.spec.metric_names):
            try:
                load_template(task.spec, m, root / PROMPTS_DIR)
            except PromptError as e:
                raise TaskError(f"{task.path}: metrics.{i}.template: {e}") from None


def load_task(path: str | Path) -> Task:
    """Read and validate a task file, or a built folder that carries one (``<folder>/task.yaml``)."""
    p = Path(path)
    if p.is_dir():
        p = p / TASK_FILE_NAME
    if not p.is_file():
        raise TaskError(
            f"{path}: no task file (give a task YAML/JSON file or a built folder holding {TASK_FILE_NAME})"
        )
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise TaskError(f"{p}: cannot read ({e})") from None
    return parse_task(text, p)


def spec_json(task: Task) -> str:
    """The task's dataset spec as deterministic JSON (what ``dhp task check --json`` prints)."""
    return json.dumps(to_data(task.spec), indent=2, sort_keys=True, ensure_ascii=False)


def task_for_scoring(
    where: Path,
    data: str,
    prompts: Path | None,
    datasets: str,
    prompt_set: str = "default",
    weights: Path | None = None,
) -> tuple[Task, str, Path | None]:
    """``dhp score --task``: the task, the data root holding its folder, and its stored prompts folder.

    ``where`` is a built folder carrying its task file, or a task file whose built folder lies in
    ``data``; the built folder's stored task must declare the same dataset as the file. The stored
    prompts are the default set's; with another ``--prompt-set`` that set's templates are used
    (``<set>/<task name>.<metric>.txt`` or ``<set>/<prompt style>.<metric>.txt``), so no folder.
    """
    if prompts is not None or datasets != "all" or weights is not None:
        raise TaskError(
            "--task scores the task's own dataset with its stored prompts and weights: drop --prompts, --datasets "
            "and --weights (set weights in the task file)"
        )
    if where.is_dir():
        task = load_task(where)
        folder = where
    else:
        task = load_task(where)
        if data == "dhp":
            raise TaskError(
                f"--task {where}: give --data FOLDER (where `dhp build --task` wrote {task.spec.name}/), "
                "or pass the built folder itself as --task"
            )
        folder = Path(data) / task.spec.name
        if not (folder / TASK_FILE_NAME).is_file():
            raise TaskError(
                f"{folder}: no built task folder (run `dhp build --task {where} --out {data}` first)"
            )
        built = load_task(folder)
        if built.spec != task.spec or dict(built.prompts) != dict(task.prompts):
            raise TaskError(f"{folder}: built from a different version of {where}; rebuild it")
    return task, str(folder.parent), folder / PROMPTS_DIR if prompt_set == "default" else None


def folder_spec(folder: Path) -> DatasetSpec:
    """The dataset spec of a built folder: its task file's when it carries one, else the built-in named after it."""
    if (folder / TASK_FILE_NAME).is_file():
        return load_task(folder).spec

    return get_dataset(folder.name)
