"""The expert-weight survey (paper v1, appendix C and Figure 5) and weights derived from its votes.

For every task and quality issue a voter picks the metric the issue affects most. A ballot is one
voter's answers for one task, stored as ``<task>/<voter>.json`` in a votes store (a later ballot
from the same voter replaces the earlier one). Vote shares become expert weights with
:func:`dhp.weights.weights_from_votes`, for every perturbation of that task's datasets whose issue
got votes; issues without votes keep the default weights. D^EW is then recomputed from the
p-values stored in each result (:func:`dhp.scoring.summary.reweight`): no new judge request.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, ValidationError

from dhp.errors import first_validation_problem
from dhp.leaderboard.board.loading import LoadedResult
from dhp.leaderboard.board.stores import Store
from dhp.leaderboard.submissions.queue import utcnow
from dhp.scoring.results import Summary
from dhp.scoring.summary import reweight
from dhp.spec import BENCHMARK, OPERATIONS, task_kind
from dhp.types import DatasetSpec, ExpertWeights, Operation, WeightEntry
from dhp.weights import weights_from_votes

__all__ = [
    "TASKS",
    "Ballot",
    "Issue",
    "SurveyTask",
    "Tally",
    "VotesStore",
    "WeightsVersion",
    "derive_weights",
    "reweighted_summaries",
    "tally",
]


@dataclass(frozen=True)
class Issue:
    id: str  # the Operation value, e.g. "char_typo"
    text: str
    perturbations: Mapping[str, tuple[str, ...]]  # dataset -> perturbation ids with this issue


@dataclass(frozen=True)
class SurveyTask:
    id: str  # e.g. "summarization"
    label: str
    datasets: tuple[str, ...]
    metrics: tuple[tuple[str, str, str], ...]  # (name, label, definition)
    issues: tuple[Issue, ...]


def _build_tasks(datasets: Mapping[str, DatasetSpec]) -> tuple[SurveyTask, ...]:
    by_task: dict[str, list[DatasetSpec]] = {}
    for d in datasets.values():
        by_task.setdefault(d.task, []).append(d)
    out: list[SurveyTask] = []
    for task, specs in by_task.items():
        metrics = specs[0].metrics
        if len(metrics) < 2 or any(s.metric_names != specs[0].metric_names for s in specs):
            continue  # one metric: nothing to choose (Answer Equivalence); mixed metrics: not one task
        text = kind.noun if (kind := task_kind(task)) else "text"
        issues: dict[Operation, dict[str, list[str]]] = {}
        for s in specs:
            for p in s.perturbations:
                issues.setdefault(p.operation, {}).setdefault(s.name, []).append(p.id)
        out.append(
            SurveyTask(
                id=task,
                label=task.replace("_", " ").capitalize(),
                datasets=tuple(s.name for s in specs),
                metrics=tuple((m.name, m.label, m.definition) for m in metrics),
                issues=tuple(
                    Issue(
                        op.value,
                        OPERATIONS[op].symptom.format(t=text),
                        {k: tuple(v) for k, v in per.items()},
                    )
                    for op, per in issues.items()
                ),
            )
        )
    return tuple(out)


TASKS: tuple[SurveyTask, ...] = _build_tasks(BENCHMARK)


def get_task(task_id: str, tasks: Sequence[SurveyTask] = TASKS) -> SurveyTask:
    for t in tasks:
        if t.id == task_id:
            return t
    raise KeyError(f"unknown survey task {task_id!r}")


class Ballot(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    task: str
    voter: str  # hash_user(...) pseudonym
    answers: Mapping[str, str]  # issue id -> metric name
    created_at: str


def validate_ballot(task: SurveyTask, answers: Mapping[str, str | None]) -> dict[str, str]:
    """Every issue answered with one of the task's metrics; raises ValueError naming what is missing."""
    metric_names = {m[0] for m in task.metrics}
    out: dict[str, str] = {}
    missing = []
    for issue in task.issues:
        a = answers.get(issue.id)
        if not a:
            missing.append(issue.text)
            continue
        if a not in metric_names:
            raise ValueError(f"{a!r} is not a metric of {task.label}")
        out[issue.id] = a
    if missing:
        raise ValueError(f"Please answer every question ({len(missing)} unanswered): {missing[0]}")
    return out


Tally = Mapping[str, Mapping[str, Mapping[str, int]]]  # task -> issue -> metric -> votes


class VotesStore:
    """Ballots in a :class:`Store`; invalid files are reported and skipped."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def cast(self, task: SurveyTask, voter: str, answers: Mapping[str, str | None]) -> Ballot:
        ballot = Ballot(
            task=task.id, voter=voter, answers=validate_ballot(task, answers), created_at=utcnow()
        )
        self.store.write(
            f"{task.id}/{voter}.json", (ballot.model_dump_json(indent=2) + "\n").encode(), "vote"
        )
        return ballot

    def ballots(self) -> tuple[list[Ballot], list[str]]:
        out: list[Ballot] = []
        bad: list[str] = []
        for path in self.store.list(".json"):
            try:
                out.append(Ballot.model_validate_json(self.store.read(path)))
            except FileNotFoundError:
                continue
            except ValidationError as e:
                bad.append(f"{path}: invalid ballot {first_validation_problem(e)}")
        out.sort(key=lambda b: (b.created_at, b.voter))
        return out, bad


def tally(
    ballots: Iterable[Ballot], tasks: Sequence[SurveyTask] = TASKS
) -> dict[str, dict[str, dict[str, int]]]:
    """Pure: votes per task, issue and metric (unknown tasks, issues or metrics are ignored)."""
    out: dict[str, dict[str, dict[str, int]]] = {
        t.id: {i.id: {m[0]: 0 for m in t.metrics} for i in t.issues} for t in tasks
    }
    for b in ballots:
        per = out.get(b.task)
        if per is None:
            continue
        for issue, metric in b.answers.items():
            if issue in per and metric in per[issue]:
                per[issue][metric] += 1
    return out


@dataclass(frozen=True)
class WeightsVersion:
    """Expert weights derived from a tally: an id that changes with the votes, and the weights."""

    id: str  # "survey-<n ballots>-<hash>"
    n_ballots: int
    weights: Mapping[str, ExpertWeights]  # dataset -> complete weights (defaults where no votes)


def derive_weights(
    counts: Tally,
    n_ballots: int,
    tasks: Sequence[SurveyTask] = TASKS,
    datasets: Mapping[str, DatasetSpec] = BENCHMARK,
) -> WeightsVersion:
    """Pure: vote shares as expert weights for every dataset of every surveyed task."""
    digest = hashlib.sha256(json.dumps(counts, sort_keys=True).encode()).hexdigest()[:8]
    vid = f"survey-{n_ballots}-{digest}"
    out: dict[str, ExpertWeights] = {}
    for t in tasks:
        metric_names = tuple(m[0] for m in t.metrics)
        for ds in t.datasets:
            spec = datasets[ds]
            entries: dict[str, WeightEntry] = dict(spec.weights.entries)
            for issue in t.issues:
                votes = dict(counts.get(t.id, {}).get(issue.id, {}))
                if sum(votes.values()) <= 0:
                    continue
                w = weights_from_votes(votes, metric_names)
                for pid in issue.perturbations.get(ds, ()):
                    entries[pid] = WeightEntry(weights=w, reason=f"survey votes ({vid})", votes=votes)
            ew = ExpertWeights(entries, source=f"survey:{vid}")
            ew.validate(spec.metric_names, spec.perturbation_ids, where=f"survey weights of {ds}")
            out[ds] = ew
    return WeightsVersion(vid, n_ballots, out)


def reweighted_summaries(results: Iterable[LoadedResult], version: WeightsVersion) -> dict[str, Summary]:
    """Pure: D^EW recomputed from each result's stored p-values with the version's weights.

    Results on datasets the version does not cover (or with perturbations it does not know) keep
    their stored summary, so they are simply left out of the mapping.
    """
    out: dict[str, Summary] = {}
    for lr in results:
        ew = version.weights.get(lr.result.dataset.name)
        if ew is None:
            continue
        w = {pid: dict(e.weights) for pid, e in ew.entries.items()}
        try:
            out[lr.path] = reweight(lr.result, w)
        except KeyError:
            continue
    return out


def _in_use(default: str, survey: str, n_ballots: int, min_ballots: int) -> str:
    if n_ballots < min_ballots:
        return f"{default} (default; the survey's weights are offered from {min_ballots} ballots)"
    if not survey:
        return f"{default} (default; this issue has no votes)"
    return f"{default} (default), or {survey} when the survey's weights are chosen"


def weights_rows(
    counts: Tally, version: WeightsVersion, min_ballots: int, tasks: Sequence[SurveyTask] = TASKS
) -> list[dict[str, str]]:
    """Rows for the survey tab: per task and issue, the votes, the survey's weights and the weights
    the board uses: the defaults until the survey has ``min_ballots`` ballots, then the defaults or
    (when chosen above the table) the survey's."""
    rows: list[dict[str, str]] = []
    for t in tasks:
        for issue in t.issues:
            votes = counts.get(t.id, {}).get(issue.id, {})
            n = sum(votes.values())
            ds0 = next(iter(issue.perturbations))
            pid = issue.perturbations[ds0][0]
            derived = version.weights[ds0].entries[pid].weights if ds0 in version.weights else {}
            default = BENCHMARK[ds0].weights.entries[pid].weights

            def fmt(w: Mapping[str, float]) -> str:
                return ", ".join(f"{m} {v:.2f}" for m, v in sorted(w.items(), key=lambda kv: -kv[1]) if v > 0)

            rows.append(
                {
                    "Task": t.label,
                    "Quality issue": issue.text,
                    "Votes": ", ".join(f"{m}: {v}" for m, v in votes.items()) if n else "no votes yet",
                    "Ballots": str(n),
                    "Survey weights": fmt(derived) if n else "no votes yet",
                    "Weights in use": _in_use(
                        fmt(default), fmt(derived) if n else "", version.n_ballots, min_ballots
                    ),
                    "Default weights": fmt(default),
                }
            )
    return rows
