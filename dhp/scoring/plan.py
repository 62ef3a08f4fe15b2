"""Stage 1 of a run, plan: a dataset loaded, its templates read, one request per (text, metric, repeat).

Each **original is scored once per (item, metric)**, not once per perturbation; the requests of one
item and metric (the original and all its perturbed versions, which share the prompt prefix) are
planned together (:func:`plan_requests`). :class:`PlanSettings` is all that planning reads of the
run's settings; :class:`Run` is what every dataset of one run shares; :func:`result_file` is where a
dataset's result (and its cost ledger) goes (:class:`ResultPlace`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from dhp.errors import DataError
from dhp.inference.pool import Pool
from dhp.scoring.config import RequestForm, repeat_count, sampling
from dhp.scoring.data import LoadedDataset, load_hub, load_local
from dhp.scoring.judge_io import ORIGINAL, JudgeRequest, PromptFill, json_escaped
from dhp.scoring.prompts import PromptSet, PromptTemplate, load_template, render_context
from dhp.scoring.result_files import result_path
from dhp.types import DatasetSpec, ScoringMode

__all__ = [
    "Plan",
    "PlanSettings",
    "Prepared",
    "ResultPlace",
    "Run",
    "Templates",
    "TextKey",
    "load_dataset",
    "plan_requests",
    "planned",
    "prepare",
    "result_file",
]

log = logging.getLogger("dhp.scoring")


@dataclass(frozen=True)
class PlanSettings:
    """What loading and planning a dataset read of the run's settings (made once by the run's edge)."""

    data: str  # "dhp" (the Hub) or a folder holding <dataset-name>/ folders
    revision: str | None  # Hub revision of the datasets
    hub_org: str | None  # Hub organisation (default: each spec's org)
    split: str  # "public" or "private": the split the datasets must be
    limit: int | None  # plan only the first N items of each dataset
    prompts_dir: Path | None  # templates that replace the prompt set's
    cue: str | None  # a misleading prior rating added to every judged text
    uses_prompts: bool  # whether the judge reads prompts (built-ins do not: no template is read)


@dataclass(frozen=True)
class ResultPlace:
    """Where a run files its results: the parts of a result's path that are the run's, not the dataset's."""

    out: Path
    judge_name: str
    prompt_set: str  # the prompt set's name
    cue: str | None

    def of(self, data: LoadedDataset) -> Path:
        """Where this run writes the dataset's result (and keeps its cost ledger beside it)."""
        return result_path(
            self.out,
            self.judge_name,
            data.spec.name,
            data.revision,
            self.prompt_set,
            self.cue,
            data.commitment,
        )


TextKey = tuple[str, str, str]  # (role, item id, metric)
Templates = Mapping[str, PromptTemplate] | None  # metric -> template; None for built-in judges


@dataclass
class Plan:
    """The requests of one dataset, grouped by text score."""

    requests: list[JudgeRequest]
    text_keys: list[TextKey]  # one per (text, metric), in request order
    items: tuple[str, ...]
    perturbations: tuple[str, ...]  # those with at least one row
    rows: dict[str, int]  # perturbation -> items planned that have its row: what the few-pairs rule reads


def plan_requests(
    data: LoadedDataset,
    limit: int | None,
    form: RequestForm,
    mode: ScoringMode,
    templates: Mapping[str, PromptTemplate] | None,
) -> Plan:
    spec = data.spec
    items = data.items[:limit] if limit else data.items
    pids = tuple(p for p in spec.perturbation_ids if data.perturbed.get(p))
    severity = {p.id: p.severity.value for p in spec.perturbations}
    samplings = [sampling(form, mode, r) for r in range(repeat_count(form, mode))]  # one object per repeat
    requests: list[JudgeRequest] = []
    keys: list[TextKey] = []
    for template in (templates or {}).values():
        template.render("", "")  # a template that cannot render fails here, before any request
    for item in items:
        context_block = render_context(spec, item.context) if templates is not None else ""
        context_json = json_escaped(context_block) if templates is not None else None  # once per item
        texts: list[tuple[str, str]] = [(ORIGINAL, item.original)]
        texts += [(pid, data.perturbed[pid][item.id]) for pid in pids if item.id in data.perturbed[pid]]
        for metric in spec.metrics:
            # the prompts are rendered when read (JudgeRequest.prompt), not held by the plan
            rendering = (
                ""
                if templates is None
                else PromptFill.of(templates[metric.name], context_block, context_json)
            )
            for role, text in texts:
                keys.append((role, item.id, metric.name))
                for r, params in enumerate(samplings):
                    requests.append(
                        JudgeRequest(
                            dataset=spec.name,
                            item_id=item.id,
                            metric=metric.name,
                            role=role,
                            text=text,
                            context=item.context,
                            rendering=rendering,
                            sampling=params,
                            repeat=r,
                            severity=None if role == ORIGINAL else severity[role],
                            scale=(metric.scale_min, metric.scale_max),
                            metric_label=metric.label,
                        )
                    )
    rows = {pid: sum(1 for item in items if item.id in data.perturbed[pid]) for pid in pids}
    return Plan(requests, keys, tuple(i.id for i in items), pids, rows)


@dataclass(frozen=True)
class Run:
    """What every dataset of one run shares: its planning settings, where its results go, the pool, and
    the request form and mode its first answers settled (:func:`dhp.scoring.send.start_first`)."""

    settings: PlanSettings
    place: ResultPlace
    pool: Pool[JudgeRequest]
    form: RequestForm
    mode: ScoringMode


@dataclass(frozen=True)
class Prepared:
    """One dataset loaded, its templates read and (once the run's mode is known) its requests planned."""

    data: LoadedDataset
    templates: Templates
    plan: Plan | None
    t0: float  # when its preparation began (its wall time runs from there to its result)


def prepare(spec: DatasetSpec, settings: PlanSettings, prompt_set: PromptSet, run: Run | None) -> Prepared:
    """Load, read templates and plan (a worker thread runs this while the previous dataset is sent)."""
    t0 = time.monotonic()
    data = load_dataset(spec, settings)
    templates = (
        {m: load_template(spec, m, settings.prompts_dir, prompt_set, settings.cue) for m in spec.metric_names}
        if settings.uses_prompts
        else None
    )
    return Prepared(data, templates, None if run is None else planned(run, data, templates), t0)


def planned(run: Run, data: LoadedDataset, templates: Templates) -> Plan:
    spec = data.spec
    plan = plan_requests(data, run.settings.limit, run.form, run.mode, templates)
    if not plan.perturbations:
        raise DataError(f"{spec.name}: no perturbed rows at all")
    for pid in spec.perturbation_ids:
        if pid not in plan.perturbations:
            log.warning("%s: perturbation %s has no rows; it is left out of the analysis", spec.name, pid)
    return plan


def load_dataset(spec: DatasetSpec, settings: PlanSettings) -> LoadedDataset:
    if settings.data == "dhp":
        return checked_split(load_hub(spec, revision=settings.revision, org=settings.hub_org), settings.split)
    folder = Path(settings.data) / spec.name
    if not folder.is_dir():
        raise DataError(f"no dataset folder {folder} (expected <data>/{spec.name}/ in the Hub layout)")
    return checked_split(load_local(spec, folder), settings.split)


def checked_split(data: LoadedDataset, split: str) -> LoadedDataset:
    """``data`` when it is of ``split``; a one-line :class:`DataError` otherwise: a private split scored as
    public would write its item scores and the judge's outputs, a public one scored as private no commitment."""
    where = f"{data.repo} ({data.version})"
    if split == "private" and data.commitment is None:
        raise DataError(f"{where} is not a private split: build one with dhp build --split private")
    if split != "private" and data.commitment is not None:
        raise DataError(
            f"{where} is a private split: score it with --split private (its results hold aggregates only)"
        )
    return data


def result_file(run: Run, data: LoadedDataset) -> Path:
    """Where this run writes the dataset's result (and keeps its cost ledger beside it)."""
    return run.place.of(data)
