"""Stage 1 of a run, plan: a dataset loaded, its templates read, one request per (text, metric, repeat).

Each **original is scored once per (item, metric)**, not once per perturbation; the requests of one
item and metric (the original and all its perturbed versions, which share the prompt prefix) are
planned together (:func:`plan_requests`). :class:`Run` is what every dataset of one run shares;
:func:`result_file` is where a dataset's result (and its cost ledger) goes.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from dhp.errors import DataError
from dhp.inference.pool import Pool
from dhp.scoring.config import ScoreConfig, repeat_count, sampling
from dhp.scoring.data import LoadedDataset, load_hub, load_local
from dhp.scoring.judge_io import ORIGINAL, JudgeRequest
from dhp.scoring.prompts import PromptSet, PromptTemplate, load_template, render_context
from dhp.scoring.result_files import result_path
from dhp.types import DatasetSpec, ScoringMode

__all__ = [
    "Plan",
    "Prepared",
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
    cfg: ScoreConfig,
    mode: ScoringMode,
    templates: Mapping[str, PromptTemplate] | None,
) -> Plan:
    spec = data.spec
    items = data.items[: cfg.limit] if cfg.limit else data.items
    pids = tuple(p for p in spec.perturbation_ids if data.perturbed.get(p))
    severity = {p.id: p.severity.value for p in spec.perturbations}
    samplings = [sampling(cfg, mode, r) for r in range(repeat_count(cfg, mode))]  # one object per repeat
    requests: list[JudgeRequest] = []
    keys: list[TextKey] = []
    for item in items:
        context_block = render_context(spec, item.context) if templates is not None else ""
        texts: list[tuple[str, str]] = [(ORIGINAL, item.original)]
        texts += [(pid, data.perturbed[pid][item.id]) for pid in pids if item.id in data.perturbed[pid]]
        for metric in spec.metrics:
            for role, text in texts:
                prompt = templates[metric.name].render(text, context_block) if templates is not None else ""
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
                            prompt=prompt,
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
    """What every dataset of one run shares: the settings, the pool, the resolved mode, the judge."""

    cfg: ScoreConfig
    pool: Pool[JudgeRequest]
    mode: ScoringMode
    model: str | None
    n_replicas: int
    prompt_set: PromptSet  # resolved once, at the edge (score_datasets_async)


@dataclass(frozen=True)
class Prepared:
    """One dataset loaded, its templates read and (once the run's mode is known) its requests planned."""

    data: LoadedDataset
    templates: Templates
    plan: Plan | None
    t0: float  # when its preparation began (its wall time runs from there to its result)


def prepare(spec: DatasetSpec, cfg: ScoreConfig, prompt_set: PromptSet, run: Run | None) -> Prepared:
    """Load, read templates and plan (a worker thread runs this while the previous dataset is sent)."""
    t0 = time.monotonic()
    data = load_dataset(spec, cfg)
    templates = (
        {m: load_template(spec, m, cfg.prompts_dir, prompt_set, cfg.cue) for m in spec.metric_names}
        if cfg.judge.uses_prompts
        else None
    )
    return Prepared(data, templates, None if run is None else planned(run, data, templates), t0)


def planned(run: Run, data: LoadedDataset, templates: Templates) -> Plan:
    spec = data.spec
    plan = plan_requests(data, run.cfg, run.mode, templates)
    if not plan.perturbations:
        raise DataError(f"{spec.name}: no perturbed rows at all")
    for pid in spec.perturbation_ids:
        if pid not in plan.perturbations:
            log.warning("%s: perturbation %s has no rows; it is left out of the analysis", spec.name, pid)
    return plan


def load_dataset(spec: DatasetSpec, cfg: ScoreConfig) -> LoadedDataset:
    if cfg.data == "dhp":
        return checked_split(load_hub(spec, revision=cfg.revision, org=cfg.hub_org), cfg.split)
    folder = Path(cfg.data) / spec.name
    if not folder.is_dir():
        raise DataError(f"no dataset folder {folder} (expected <data>/{spec.name}/ in the Hub layout)")
    return checked_split(load_local(spec, folder), cfg.split)


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
    cfg = run.cfg
    return result_path(
        cfg.out, cfg.judge.name, data.spec.name, data.revision, run.prompt_set.name, cfg.cue, data.commitment
    )
