"""Stage 3 of a run, conclude: outcomes collected, the statistics run, the result written.

Unparsed outputs and failed requests are counted with their reasons and never become scores, so
their pairs drop out of that metric's test (:func:`collect`); the score vectors go to
:func:`dhp.scoring.analysis.analyse`, and the result to :func:`dhp.scoring.result_files.write_result`
at :func:`dhp.scoring.plan.result_file`. A dataset with more failed scores than
``max_failure_rate`` allows gets no result (a rerun asks only what failed). :class:`ConcludeSettings`
is all that concluding reads of the run's settings, beside the request form and mode the run settled.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

import dhp
from dhp.inference.judge import Judge
from dhp.inference.protocol import (
    RequestFailure,
)
from dhp.scoring.analysis import DatasetAnalysis, analyse
from dhp.scoring.config import repeat_count, sampling
from dhp.scoring.data import LoadedDataset
from dhp.scoring.fits import PRIVATE_STREAM, half_sizes, split_draw, to_stored
from dhp.scoring.judge_io import ORIGINAL, ParsedScore, Unparsed
from dhp.scoring.parse import aggregate
from dhp.scoring.plan import Plan, Run, Templates, TextKey, result_file
from dhp.scoring.result_files import write_result
from dhp.scoring.results import (
    Coverage,
    DatasetRef,
    FixedNReplicates,
    ItemScores,
    JudgeInfo,
    PromptInfo,
    Result,
    ScoringSettings,
    Timing,
)
from dhp.scoring.send import Scoring, Sending, cancel_all
from dhp.scoring.stats import CombineMethod
from dhp.scoring.summary import result_from_analysis
from dhp.types import TGI_MAX_TOP_N_TOKENS, DatasetSpec, EndpointProtocol, ScoringMode

__all__ = [
    "ConcludeSettings",
    "Scored",
    "collect",
    "conclude",
    "finish",
]

log = logging.getLogger("dhp.scoring")

_EXAMPLES_PER_REASON = 3
_EXAMPLE_CHARS = 200


# ---------------------------------------------------------------------------------------------
# Scores, coverage, result
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ConcludeSettings:
    """What concluding a dataset reads of the run's settings (made once by the run's edge): the
    statistics' settings, the failure limit, and what the result records of the judge."""

    judge: Judge  # recorded in the result (dhp.scoring.results.JudgeInfo)
    model: str | None  # the model name the judge's requests carried
    n_replicas: int
    timeout_s: float  # the retry policy's, recorded
    max_retries: int  # the retry policy's, recorded
    combine: CombineMethod
    n_boot: int
    seed: int
    split: str  # "private": aggregates only, and the fixed-n draw for dhp fits
    max_failure_rate: float  # above this share of failed scores, no result is written


@dataclass
class Scored:
    scores: dict[TextKey, float]
    coverage: Coverage


def collect(plan: Plan, outcomes: Sequence[Scoring]) -> Scored:
    """Scores per text and the coverage, from each request's parsed output or failure."""
    by_key: dict[TextKey, list[Scoring]] = {}
    for req, out in zip(plan.requests, outcomes, strict=True):
        by_key.setdefault((req.role, req.item_id, req.metric), []).append(out)
    scores: dict[TextKey, float] = {}
    unparsed_reasons: Counter[str] = Counter()
    failure_reasons: Counter[str] = Counter()
    examples: dict[str, list[str]] = {}
    n_outputs = n_unparsed_outputs = n_parsed = n_unparsed = n_failed = 0
    for key in plan.text_keys:
        outs = by_key[key]
        failures = [o for o in outs if isinstance(o, RequestFailure)]
        parsed: list[ParsedScore | Unparsed] = []
        for o in outs:
            if isinstance(o, RequestFailure):
                continue
            n_outputs += 1
            s = o
            if isinstance(s, Unparsed):
                n_unparsed_outputs += 1
                unparsed_reasons[s.reason] += 1
                ex = examples.setdefault(s.reason, [])
                if len(ex) < _EXAMPLES_PER_REASON:
                    ex.append(s.raw[:_EXAMPLE_CHARS])
            parsed.append(s)
        if failures:
            n_failed += 1
            failure_reasons[failures[0].reason] += 1
            continue
        agg = aggregate(parsed)
        if isinstance(agg, ParsedScore):
            n_parsed += 1
            scores[key] = agg.value
        else:
            n_unparsed += 1
    coverage = Coverage(
        expected_scores=len(plan.text_keys),
        parsed_scores=n_parsed,
        unparsed=n_unparsed,
        failed=n_failed,
        unparsed_reasons=dict(sorted(unparsed_reasons.items())),
        failure_reasons=dict(sorted(failure_reasons.items())),
        outputs=n_outputs,
        unparsed_outputs=n_unparsed_outputs,
        unparsed_examples={k: tuple(v) for k, v in sorted(examples.items())},
    )
    return Scored(scores, coverage)


def _vectors(
    plan: Plan, scored: Scored, spec: DatasetSpec
) -> tuple[dict[str, np.ndarray], dict[str, dict[str, np.ndarray]]]:
    def vec(role: str, metric: str) -> np.ndarray:
        return np.array(
            [scored.scores.get((role, i, metric), math.nan) for i in plan.items], dtype=np.float64
        )

    original = {m: vec(ORIGINAL, m) for m in spec.metric_names}
    perturbed = {pid: {m: vec(pid, m) for m in spec.metric_names} for pid in plan.perturbations}
    return original, perturbed


def _tuple(v: np.ndarray) -> tuple[float | None, ...]:
    return tuple(None if math.isnan(x) else float(x) for x in v)


def _judge_info(settings: ConcludeSettings, run: Run) -> JudgeInfo:
    j, mode, form = settings.judge, run.mode, run.form
    recorded: dict[str, object] = {"mode": mode.value}
    if not j.sends_requests:
        recorded["seed"] = settings.seed
        return JudgeInfo.of(j, model=settings.model, settings=recorded)
    s0 = sampling(form, mode, 0)
    recorded.update(
        temperature=s0.temperature,
        max_tokens=s0.max_tokens,
        repeats=repeat_count(form, mode),
        timeout_s=settings.timeout_s,
        max_retries=settings.max_retries,
    )
    if mode is ScoringMode.EXPECTED:
        tgi = j.protocol_name == EndpointProtocol.TGI.value
        recorded["top_logprobs"] = min(form.top_logprobs, TGI_MAX_TOP_N_TOKENS) if tgi else form.top_logprobs
    if j.over_http:
        recorded["replicas"] = settings.n_replicas
    return JudgeInfo.of(j, model=settings.model, settings=recorded)


@dataclass(frozen=True)
class _Analysed:
    analysis: DatasetAnalysis
    scores: ItemScores
    weights: dict[str, dict[str, float]]
    fixed_n: FixedNReplicates | None = None  # a private split's draw for dhp.scoring.fits


def _too_many_failures(spec: DatasetSpec, cov: Coverage, settings: ConcludeSettings) -> bool:
    if cov.expected_scores and cov.failed / cov.expected_scores > settings.max_failure_rate:
        log.error(
            "%s: %d of %d scores failed (%s); no result written. Run again to retry only the failed requests.",
            spec.name,
            cov.failed,
            cov.expected_scores,
            dict(cov.failure_reasons),
        )
        return True
    return False


def _analyse(plan: Plan, scored: Scored, spec: DatasetSpec, settings: ConcludeSettings) -> _Analysed:
    original, perturbed = _vectors(plan, scored, spec)
    levels = {p.id: p.level for p in spec.perturbations if p.id in plan.perturbations}
    weights = {pid: dict(spec.weights.for_perturbation(pid)) for pid in plan.perturbations}
    analysis = analyse(
        original,
        perturbed,
        levels,
        weights,
        method=settings.combine,
        n_boot=settings.n_boot,
        seed=settings.seed,
        n_rows=plan.rows,
    )
    item_scores = ItemScores(
        item_ids=plan.items,
        original={m: _tuple(v) for m, v in original.items()},
        perturbed={pid: {m: _tuple(v) for m, v in per.items()} for pid, per in perturbed.items()},
    )
    fixed = None
    if settings.split == "private" and settings.n_boot > 0 and half_sizes(analysis):  # for dhp fits
        rng = np.random.default_rng((settings.seed, PRIVATE_STREAM))
        sizes = half_sizes(analysis)
        fixed = to_stored(
            split_draw(original, perturbed, levels, weights, analysis, settings.n_boot, sizes, rng)
        )
    return _Analysed(analysis, item_scores, weights, fixed)


def _aggregates_only(result: Result, done: _Analysed, data: LoadedDataset) -> Result:
    """A private split's result (issue 39): its commitment named, aggregates only (no item scores, no
    judge output), D_avg^EW's fixed-n replicates kept for the public-vs-private check."""
    doc = result.model_dump(mode="json")
    doc["dataset"].update(split="private", commitment=data.commitment)
    doc["coverage"]["unparsed_examples"] = {}
    doc["summary"]["fixed_n"] = None if done.fixed_n is None else done.fixed_n.model_dump(mode="json")
    doc["scores"] = None
    return Result.model_validate(doc)


def _result(
    settings: ConcludeSettings,
    run: Run,
    data: LoadedDataset,
    plan: Plan,
    scored: Scored,
    done: _Analysed,
    templates: Templates,
    timing: Timing,
) -> Result:
    spec = data.spec
    scoring = ScoringSettings(
        mode=run.mode.value,
        repeats=repeat_count(run.form, run.mode),
        combine_method=CombineMethod(settings.combine),
        weights_source=spec.weights.source,
        weights=done.weights,
        n_boot=settings.n_boot,
        seed=settings.seed,
        prompts={}
        if templates is None
        else {m: PromptInfo(template_hash=t.hash, template=t.instruction) for m, t in templates.items()},
        prompt_set=run.place.prompt_set,
        cue=run.place.cue,
    )
    return result_from_analysis(
        done.analysis,
        judge=_judge_info(settings, run),
        dataset=DatasetRef(
            name=spec.name,
            repo=data.repo,
            revision=data.revision,
            version=data.version,
            n_items=len(plan.items),
        ),
        scoring=scoring,
        coverage=scored.coverage,
        timing=timing,
        scores=_with_lengths(done.scores, data),
        created_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        dhp_version=dhp.__version__,
    )


def _with_lengths(scores: ItemScores, data: LoadedDataset) -> ItemScores:
    """The item scores with the word count of each item's original text (for the length tertiles)."""
    words = {item.id: len(item.original.split()) for item in data.items}
    return scores.model_copy(update={"original_words": tuple(words[i] for i in scores.item_ids)})


async def finish(settings: ConcludeSettings, run: Run, s: Sending, worker: ThreadPoolExecutor) -> Path | None:
    """Wait for one dataset's outcomes; then collect, analyse and write its result in the run's worker thread.

    One worker thread does all of a run's loading and analysis, one job at a time: bounded memory
    when datasets end together, and one malloc arena rather than one per thread.
    """
    try:
        outcomes = list(await asyncio.gather(*s.tasks))
    except BaseException:
        await cancel_all(s.tasks)
        raise
    finally:
        s.progress.close()
        s.nearly_done.set()
    return await asyncio.get_running_loop().run_in_executor(worker, conclude, settings, run, s, outcomes)


def conclude(settings: ConcludeSettings, run: Run, s: Sending, outcomes: Sequence[Scoring]) -> Path | None:
    """collect -> analyse -> result, for one dataset (None: too many failures, nothing written)."""
    data, plan = s.prepared.data, s.plan
    spec = data.spec
    scored = collect(plan, outcomes)
    if _too_many_failures(spec, scored.coverage, settings):
        return None
    done = _analyse(plan, scored, spec, settings)
    timing = Timing(
        wall_seconds=round(time.monotonic() - s.prepared.t0, 3),
        requests_sent=s.tally.sent if settings.judge.sends_requests else 0,  # built-in judges send nothing
        requests_cached=s.tally.cached,
        retries=s.tally.retries,
        requests_failed=s.tally.failed,
        prompt_tokens=s.tally.prompt_tokens,
        completion_tokens=s.tally.completion_tokens,
        all_invocations=s.ledger.total(s.tally),
    )
    result = _result(settings, run, data, plan, scored, done, s.prepared.templates, timing)
    if data.commitment is not None:
        result = _aggregates_only(result, done, data)
    path = result_file(run, data)
    return write_result(result, path)
