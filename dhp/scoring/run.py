"""The scoring run: judge + DHP datasets -> one validated result file per dataset.

:func:`score_datasets` is the Python entry point behind ``dhp score``. For each dataset it

1. loads the pairs (:mod:`dhp.scoring.data`) and builds one request per (text, metric, repeat):
   each **original is scored once per (item, metric)**, not once per perturbation; the requests of
   one item and metric (original and all its perturbed versions, which share the prompt prefix)
   are issued together;
2. sends them through one :class:`~dhp.inference.pool.Pool` (cache, concurrency, retries,
   replicas) with a progress bar. Datasets overlap so that the endpoint never idles between two:
   the next one is loaded and planned in a worker thread while the previous one is sent, and its
   requests join the queue once at most ``concurrency`` of the previous one's are left;
3. parses every output (:mod:`dhp.scoring.parse`); unparsed outputs and failed requests are
   counted with their reasons and never become scores, so their pairs drop out of that metric's
   test;
4. runs the DHP statistics (:func:`dhp.scoring.stats.analyse`) and writes the result
   (:mod:`dhp.scoring.results`) to ``<out>/<judge_slug>/<dataset>@<revision_slug>.json``.

Scoring modes: ``expected`` (G-Eval probability-weighted score, one request), ``paper`` (temperature
0, parsed, ``repeats`` requests averaged), ``sample`` (``samples`` requests at temperature 1, parsed
and averaged; for endpoints without log-probabilities). ``auto`` and ``expected`` send the first
``concurrency`` requests at once in ``expected``'s form and let the first answer settle the
endpoint's capabilities (the probe idles no slot): log-probabilities -> ``expected``; none ->
``sample`` under ``auto``, refused under ``expected`` (:class:`CapabilityError`) rather than silently
degraded; ``top_logprobs`` refused -> TGI's limit of 5. In the last two cases the dataset is
planned again in that form once the wave's outcomes are in; every request sent stays counted.
"""

from __future__ import annotations

import asyncio
import logging
import math
import sys
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

import numpy as np

import dhp
from dhp.errors import DataError
from dhp.inference.cache import CacheError, ResponseCache
from dhp.inference.judge import Judge
from dhp.inference.pool import Pool, RetryPolicy, Tally
from dhp.inference.registry import BackendOptions, BackendSetupError, build_backends
from dhp.inference.types import (
    CapabilityError,
    FatalJudgeError,
    JudgeOutput,
    RawText,
    RequestFailure,
    SamplingParams,
)
from dhp.naming import judge_slug
from dhp.scoring.analysis import DatasetAnalysis, analyse
from dhp.scoring.cost import CostLedger, ledger_path
from dhp.scoring.data import LoadedDataset, load_hub, load_local
from dhp.scoring.parse import aggregate, score_output
from dhp.scoring.prompts import PromptSet, PromptTemplate, load_template, render_context, resolve_prompt_set
from dhp.scoring.results import (
    Coverage,
    DatasetRef,
    ItemScores,
    JudgeInfo,
    PromptInfo,
    Result,
    ScoringSettings,
    Timing,
    result_from_analysis,
    result_path,
    write_result,
)
from dhp.scoring.stats import CombineMethod
from dhp.scoring.types import ORIGINAL, JudgeBackend, JudgeRequest, ParsedScore, Unparsed
from dhp.spec import resolve_datasets
from dhp.types import TGI_MAX_TOP_N_TOKENS, DatasetSpec, EndpointProtocol, ScoringMode
from dhp.weights import apply_weights, load_weights

__all__ = [
    "RunError",
    "ScoreConfig",
    "score_datasets",
    "score_datasets_async",
]

log = logging.getLogger("dhp.scoring")

_EXAMPLES_PER_REASON = 3
_EXAMPLE_CHARS = 200


class RunError(Exception):
    """A run that could not produce (all) results; the message says why."""


@dataclass(frozen=True)
class ScoreConfig:
    judge: Judge  # which judge (dhp.inference.judge): built-in, endpoint replicas, Hub model id or in-process
    out: Path
    datasets: str = "all"
    specs: tuple[DatasetSpec, ...] | None = (
        None  # datasets declared elsewhere (task files); replaces `datasets`
    )
    data: str = "dhp"  # "dhp" (the Hub) or a folder holding <dataset-name>/ folders
    revision: str | None = None  # Hub revision of the datasets
    hub_org: str | None = None  # Hub organisation (default: each spec's org)
    mode: Literal["auto", "expected", "paper", "sample"] = "auto"
    repeats: int = 5  # paper mode
    samples: int = 10  # sample mode
    top_logprobs: int = 20  # openai; TGI uses min(top_logprobs, 5) top_n_tokens
    max_tokens: int | None = None  # default: 8 (expected) or 32 (paper, sample)
    concurrency: int = 8
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    n_boot: int = 1000
    seed: int = 0
    combine: CombineMethod = CombineMethod.PAPER
    weights: Path | None = None
    cache: Path | None = None  # default: <out>/.cache/<judge_slug>.sqlite (not for built-ins)
    use_cache: bool = True
    prompts_dir: Path | None = None
    prompt_set: str = "default"  # a packaged prompt set's name or a folder of templates
    cue: str | None = None  # a misleading prior rating added to every judged text
    limit: int | None = None  # score only the first N items of each dataset (trials)
    max_failure_rate: float = 0.02  # above this share of failed scores, a dataset's result is not written
    progress: bool | None = None  # None: on when stderr is a terminal


# ---------------------------------------------------------------------------------------------
# Judges
# ---------------------------------------------------------------------------------------------
async def _build_replicas(cfg: ScoreConfig) -> tuple[list[JudgeBackend], str | None]:
    """The judge's replicas (built by the inference layer's registry) and the model name that goes
    into cache keys and results."""
    options = BackendOptions(seed=cfg.seed, timeout=cfg.policy.timeout, connections=cfg.concurrency)
    try:
        built = await build_backends(cfg.judge, options)
    except BackendSetupError as e:
        raise RunError(str(e)) from None
    return list(built.replicas), built.model


# ---------------------------------------------------------------------------------------------
# Requests
# ---------------------------------------------------------------------------------------------
def _sampling(cfg: ScoreConfig, mode: ScoringMode, repeat: int) -> SamplingParams:
    if mode is ScoringMode.BUILTIN:
        return SamplingParams(temperature=0.0, max_tokens=0)
    if mode is ScoringMode.EXPECTED:
        return SamplingParams(
            temperature=0.0, max_tokens=cfg.max_tokens or 8, logprobs=True, top_logprobs=cfg.top_logprobs
        )
    if mode is ScoringMode.PAPER:
        return SamplingParams(temperature=0.0, max_tokens=cfg.max_tokens or 32)
    return SamplingParams(temperature=1.0, max_tokens=cfg.max_tokens or 32, seed=cfg.seed * 100_003 + repeat)


def _repeats(cfg: ScoreConfig, mode: ScoringMode) -> int:
    return {ScoringMode.PAPER: cfg.repeats, ScoringMode.SAMPLE: cfg.samples}.get(mode, 1)


TextKey = tuple[str, str, str]  # (role, item id, metric)
_Templates = Mapping[str, PromptTemplate] | None  # metric -> template; None for built-in judges


@dataclass
class _Plan:
    """The requests of one dataset, grouped by text score."""

    requests: list[JudgeRequest]
    text_keys: list[TextKey]  # one per (text, metric), in request order
    items: tuple[str, ...]
    perturbations: tuple[str, ...]  # those with at least one row


def _plan(
    data: LoadedDataset,
    cfg: ScoreConfig,
    mode: ScoringMode,
    templates: Mapping[str, PromptTemplate] | None,
) -> _Plan:
    spec = data.spec
    items = data.items[: cfg.limit] if cfg.limit else data.items
    pids = tuple(p for p in spec.perturbation_ids if data.perturbed.get(p))
    severity = {p.id: p.severity.value for p in spec.perturbations}
    samplings = [_sampling(cfg, mode, r) for r in range(_repeats(cfg, mode))]  # one object per repeat
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
                for r, sampling in enumerate(samplings):
                    requests.append(
                        JudgeRequest(
                            dataset=spec.name,
                            item_id=item.id,
                            metric=metric.name,
                            role=role,
                            text=text,
                            context=item.context,
                            prompt=prompt,
                            sampling=sampling,
                            repeat=r,
                            severity=None if role == ORIGINAL else severity[role],
                            scale=(metric.scale_min, metric.scale_max),
                            metric_label=metric.label,
                        )
                    )
    return _Plan(requests, keys, tuple(i.id for i in items), pids)


# ---------------------------------------------------------------------------------------------
# Sending
# ---------------------------------------------------------------------------------------------
class _Progress:
    """One dataset's progress bar; its failed and cached counts are the dataset's share of the pool's."""

    def __init__(self, total: int, desc: str, enabled: bool | None, tally: Tally) -> None:
        from tqdm import tqdm

        disable = (not sys.stderr.isatty()) if enabled is None else not enabled
        self._bar = tqdm(
            total=total, desc=desc, unit="req", disable=disable, dynamic_ncols=True, smoothing=0.1
        )
        self._tally = tally

    def done(self, failed: bool) -> None:
        bar = self._bar
        if bar.disable:
            return
        bar.update(1)
        if failed or bar.n % 50 == 0:
            bar.set_postfix(failed=self._tally.failed, cached=self._tally.cached, refresh=False)

    def close(self) -> None:
        self._bar.set_postfix(failed=self._tally.failed, cached=self._tally.cached, refresh=False)
        self._bar.close()


def _check_capability(out: JudgeOutput, mode: ScoringMode, label: str) -> None:
    if mode is ScoringMode.EXPECTED and isinstance(out, RawText) and out.tokens is None:
        raise CapabilityError(
            "no-logprobs",
            f"endpoint {label} returned no token log-probabilities, which --mode expected needs; "
            "use --mode sample (G-Eval's sampling estimate) or --mode paper",
        )


_Outcome = JudgeOutput | RequestFailure
_Scoring = ParsedScore | Unparsed | RequestFailure  # an outcome once parsed (outputs are parsed on arrival)
_Wave = Sequence["asyncio.Future[_Outcome]"]


@dataclass(frozen=True)
class _Prepared:
    """One dataset loaded, its templates read and (once the run's mode is known) its requests planned."""

    data: LoadedDataset
    templates: _Templates
    plan: _Plan | None
    t0: float  # when its preparation began (its wall time runs from there to its result)


@dataclass
class _Sending:
    """One dataset's requests on their way; ``tally`` is its share of the pool's counts."""

    prepared: _Prepared
    plan: _Plan
    tally: Tally
    progress: _Progress
    tasks: Sequence[asyncio.Future[_Scoring]]
    nearly_done: (
        asyncio.Event
    )  # at most `concurrency` requests left (or it ended): the next dataset may start
    ledger: CostLedger  # this invocation's cost, beside the result, kept through kills (issue 27)


def _prepare(spec: DatasetSpec, cfg: ScoreConfig, prompt_set: PromptSet, run: _Run | None) -> _Prepared:
    """Load, read templates and plan (a worker thread runs this while the previous dataset is sent)."""
    t0 = time.monotonic()
    data = _load(spec, cfg)
    templates = (
        {m: load_template(spec, m, cfg.prompts_dir, prompt_set, cfg.cue) for m in spec.metric_names}
        if cfg.judge.uses_prompts
        else None
    )
    return _Prepared(data, templates, None if run is None else _planned(run, data, templates), t0)


def _planned(run: _Run, data: LoadedDataset, templates: _Templates) -> _Plan:
    spec = data.spec
    plan = _plan(data, run.cfg, run.mode, templates)
    if not plan.perturbations:
        raise DataError(f"{spec.name}: no perturbed rows at all")
    for pid in spec.perturbation_ids:
        if pid not in plan.perturbations:
            log.warning("%s: perturbation %s has no rows; it is left out of the analysis", spec.name, pid)
    return plan


def _start(run: _Run, prep: _Prepared, plan: _Plan, tally: Tally, wave: _Wave = ()) -> _Sending:
    """Hand every request of one dataset to the pool (``wave``: its first requests, already on their way)."""
    pool, mode = run.pool, run.mode
    progress = _Progress(len(plan.requests), prep.data.spec.name, run.cfg.progress, tally)
    ledger = CostLedger(
        ledger_path(_result_file(run, prep.data)), prep.t0, sends=run.cfg.judge.sends_requests
    )
    nearly_done = asyncio.Event()
    left = len(plan.requests)

    async def one(i: int, req: JudgeRequest) -> _Scoring:
        nonlocal left
        out = await (wave[i] if i < len(wave) else pool.submit(req, tally))
        failed = isinstance(out, RequestFailure)
        if not isinstance(out, RequestFailure):
            _check_capability(out, mode, pool.identity)
        progress.done(failed)
        ledger.tick(tally)
        left -= 1
        if left <= pool.concurrency:
            nearly_done.set()
        # parsed now, so a dataset holds small scores, not every output's log-probabilities
        return (
            out if isinstance(out, RequestFailure) else score_output(out, mode, req.scale, req.metric_label)
        )

    if left <= pool.concurrency:
        nearly_done.set()
    tasks = [asyncio.ensure_future(one(i, r)) for i, r in enumerate(plan.requests)]
    return _Sending(prep, plan, tally, progress, tasks, nearly_done, ledger)


async def _cancel(tasks: Iterable[asyncio.Future[Any]]) -> None:
    """Cancel what still runs and wait for all: every outcome is retrieved, so a second fatal error
    of the same wave is not reported later as a task exception never retrieved."""
    every = list(tasks)
    for t in every:
        if not t.done():
            t.cancel()
    await asyncio.gather(*every, return_exceptions=True)


def _fixed_mode(cfg: ScoreConfig) -> ScoringMode | None:
    """The mode when no request has to settle it: built-in, an explicit text mode, or a local model."""
    if cfg.judge.own_mode is not None:
        return cfg.judge.own_mode
    if cfg.mode not in ("auto", "expected"):
        return ScoringMode(cfg.mode)
    return None if cfg.judge.probes_capabilities else ScoringMode.EXPECTED


_Verdict = Literal["keep", "sample", "fewer-top-logprobs"]


async def _settle(cfg: ScoreConfig, wave: _Wave, label: str) -> _Verdict:
    """What the first outcome of the wave (sent in ``expected``'s form) says of the endpoint.

    ``keep``: it returned log-probabilities. ``sample``: it returned none (``auto``; ``expected``
    is refused). ``fewer-top-logprobs``: it refused ``top_logprobs`` above TGI's limit (400/422).
    Other failures wait for another outcome; a wave of failures only stops the run (``probe-failed``).
    A fatal error or a refusal cancels the wave.
    """
    order = {t: i for i, t in enumerate(wave)}
    pending: set[asyncio.Future[_Outcome]] = set(wave)
    first_failure: RequestFailure | None = None
    try:
        while pending:
            done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            for t in sorted(done, key=order.__getitem__):  # those answered together: in plan order
                out = t.result()  # a fatal or capability error propagates
                if not isinstance(out, RequestFailure):
                    if isinstance(out, RawText) and out.tokens is None:
                        if cfg.mode == "expected":
                            _check_capability(out, ScoringMode.EXPECTED, label)
                        log.warning(
                            "endpoint returned no log-probabilities: scoring with --mode sample (%d samples)",
                            cfg.samples,
                        )
                        return "sample"
                    return "keep"
                if out.reason in ("http-400", "http-422") and cfg.top_logprobs > TGI_MAX_TOP_N_TOKENS:
                    log.warning("the endpoint refused top_logprobs=%d (%s); trying %d, TGI's limit",
                                cfg.top_logprobs, out.message[:120], TGI_MAX_TOP_N_TOKENS)  # fmt: skip
                    return "fewer-top-logprobs"
                first_failure = first_failure or out
    except BaseException:
        await _cancel(wave)
        raise
    assert first_failure is not None
    msg = f"the first requests to the judge failed ({first_failure.reason}: {first_failure.message})"
    raise FatalJudgeError("probe-failed", msg)


async def _first(
    cfg: ScoreConfig,
    pool: Pool[JudgeRequest],
    model: str | None,
    n_replicas: int,
    prompt_set: PromptSet,
    prep: _Prepared,
    tally: Tally,
) -> tuple[_Run, _Sending]:
    """Start the first dataset; for an endpoint in ``auto``/``expected`` mode its first answer settles the mode.

    The probe idles no slot: the first ``concurrency`` requests go out at once in the form
    ``expected`` needs, and the first answer settles the endpoint's capabilities. Then the wave's
    requests are the run's own (nothing is sent twice), or, where the endpoint needs another form
    (no log-probabilities: ``sample``; ``top_logprobs`` refused: TGI's limit), the wave's outcomes
    are awaited (each answered or counted as failed, in the dataset's tally, never sent again in the
    same form) and the dataset is planned again in the form the endpoint takes.
    """
    mode = _fixed_mode(cfg)
    run = _Run(cfg, pool, mode or ScoringMode.EXPECTED, model, n_replicas, prompt_set)
    plan = _planned(run, prep.data, prep.templates)
    if mode is not None:
        return run, _start(run, prep, plan, tally)
    wave = [asyncio.ensure_future(pool.submit(r, tally)) for r in plan.requests[: pool.concurrency]]
    verdict = await _settle(cfg, wave, pool.identity)
    if verdict == "keep":
        return run, _start(run, prep, plan, tally, wave)
    await asyncio.gather(
        *wave
    )  # each ends answered (and cached) or counted as failed, in this dataset's tally
    if verdict == "fewer-top-logprobs":
        return await _first(
            replace(cfg, top_logprobs=TGI_MAX_TOP_N_TOKENS), pool, model, n_replicas, prompt_set, prep, tally
        )
    run = replace(run, mode=ScoringMode.SAMPLE)
    return run, _start(run, prep, _planned(run, prep.data, prep.templates), tally)


# ---------------------------------------------------------------------------------------------
# Scores, coverage, result
# ---------------------------------------------------------------------------------------------
@dataclass
class _Scored:
    scores: dict[TextKey, float]
    coverage: Coverage


def _collect(plan: _Plan, outcomes: Sequence[_Scoring]) -> _Scored:
    """Scores per text and the coverage, from each request's parsed output or failure."""
    by_key: dict[TextKey, list[_Scoring]] = {}
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
    return _Scored(scores, coverage)


def _vectors(
    plan: _Plan, scored: _Scored, spec: DatasetSpec
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


def _judge_info(cfg: ScoreConfig, mode: ScoringMode, n_replicas: int, model: str | None) -> JudgeInfo:
    j = cfg.judge
    settings: dict[str, object] = {"mode": mode.value}
    if not j.sends_requests:
        settings["seed"] = cfg.seed
        return JudgeInfo.of(j, model=model, settings=settings)
    s0 = _sampling(cfg, mode, 0)
    settings.update(
        temperature=s0.temperature,
        max_tokens=s0.max_tokens,
        repeats=_repeats(cfg, mode),
        timeout_s=cfg.policy.timeout,
        max_retries=cfg.policy.max_retries,
    )
    if mode is ScoringMode.EXPECTED:
        tgi = j.protocol_name == EndpointProtocol.TGI.value
        settings["top_logprobs"] = min(cfg.top_logprobs, TGI_MAX_TOP_N_TOKENS) if tgi else cfg.top_logprobs
    if j.over_http:
        settings["replicas"] = n_replicas
    return JudgeInfo.of(j, model=model, settings=settings)


def _load(spec: DatasetSpec, cfg: ScoreConfig) -> LoadedDataset:
    if cfg.data == "dhp":
        return load_hub(spec, revision=cfg.revision, org=cfg.hub_org)
    folder = Path(cfg.data) / spec.name
    if not folder.is_dir():
        raise DataError(f"no dataset folder {folder} (expected <data>/{spec.name}/ in the Hub layout)")
    return load_local(spec, folder)


@dataclass(frozen=True)
class _Run:
    """What every dataset of one run shares: the settings, the pool, the resolved mode, the judge."""

    cfg: ScoreConfig
    pool: Pool[JudgeRequest]
    mode: ScoringMode
    model: str | None
    n_replicas: int
    prompt_set: PromptSet  # resolved once, at the edge (score_datasets_async)


@dataclass(frozen=True)
class _Analysed:
    analysis: DatasetAnalysis
    scores: ItemScores
    weights: dict[str, dict[str, float]]


def _too_many_failures(spec: DatasetSpec, cov: Coverage, cfg: ScoreConfig) -> bool:
    if cov.expected_scores and cov.failed / cov.expected_scores > cfg.max_failure_rate:
        log.error(
            "%s: %d of %d scores failed (%s); no result written. Run again to retry only the failed requests.",
            spec.name,
            cov.failed,
            cov.expected_scores,
            dict(cov.failure_reasons),
        )
        return True
    return False


def _analyse(plan: _Plan, scored: _Scored, spec: DatasetSpec, cfg: ScoreConfig) -> _Analysed:
    original, perturbed = _vectors(plan, scored, spec)
    levels = {p.id: p.level for p in spec.perturbations if p.id in plan.perturbations}
    weights = {pid: dict(spec.weights.for_perturbation(pid)) for pid in plan.perturbations}
    analysis = analyse(
        original, perturbed, levels, weights, method=cfg.combine, n_boot=cfg.n_boot, seed=cfg.seed
    )
    item_scores = ItemScores(
        item_ids=plan.items,
        original={m: _tuple(v) for m, v in original.items()},
        perturbed={pid: {m: _tuple(v) for m, v in per.items()} for pid, per in perturbed.items()},
    )
    return _Analysed(analysis, item_scores, weights)


def _result(
    run: _Run,
    data: LoadedDataset,
    plan: _Plan,
    scored: _Scored,
    done: _Analysed,
    templates: _Templates,
    timing: Timing,
) -> Result:
    cfg, spec = run.cfg, data.spec
    settings = ScoringSettings(
        mode=run.mode.value,
        repeats=_repeats(cfg, run.mode),
        combine_method=CombineMethod(cfg.combine),
        weights_source=spec.weights.source,
        weights=done.weights,
        n_boot=cfg.n_boot,
        seed=cfg.seed,
        prompts={}
        if templates is None
        else {m: PromptInfo(template_hash=t.hash, template=t.instruction) for m, t in templates.items()},
        prompt_set=run.prompt_set.name,
        cue=cfg.cue,
    )
    return result_from_analysis(
        done.analysis,
        judge=_judge_info(cfg, run.mode, run.n_replicas, run.model),
        dataset=DatasetRef(
            name=spec.name,
            repo=data.repo,
            revision=data.revision,
            version=data.version,
            n_items=len(plan.items),
        ),
        scoring=settings,
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


async def _finish(run: _Run, s: _Sending, worker: ThreadPoolExecutor) -> Path | None:
    """Wait for one dataset's outcomes; then collect, analyse and write its result in the run's worker thread.

    One worker thread does all of a run's loading and analysis, one job at a time: bounded memory
    when datasets end together, and one malloc arena rather than one per thread.
    """
    try:
        outcomes = list(await asyncio.gather(*s.tasks))
    except BaseException:
        await _cancel(s.tasks)
        raise
    finally:
        s.progress.close()
        s.nearly_done.set()
    return await asyncio.get_running_loop().run_in_executor(worker, _conclude, run, s, outcomes)


def _conclude(run: _Run, s: _Sending, outcomes: Sequence[_Scoring]) -> Path | None:
    """collect -> analyse -> result, for one dataset (None: too many failures, nothing written)."""
    data, cfg, plan = s.prepared.data, run.cfg, s.plan
    spec = data.spec
    scored = _collect(plan, outcomes)
    if _too_many_failures(spec, scored.coverage, cfg):
        return None
    done = _analyse(plan, scored, spec, cfg)
    timing = Timing(
        wall_seconds=round(time.monotonic() - s.prepared.t0, 3),
        requests_sent=s.tally.sent if run.cfg.judge.sends_requests else 0,  # built-in judges send nothing
        requests_cached=s.tally.cached,
        retries=s.tally.retries,
        requests_failed=s.tally.failed,
        prompt_tokens=s.tally.prompt_tokens,
        completion_tokens=s.tally.completion_tokens,
        all_invocations=s.ledger.total(s.tally),
    )
    result = _result(run, data, plan, scored, done, s.prepared.templates, timing)
    path = _result_file(run, data)
    return write_result(result, path)


def _result_file(run: _Run, data: LoadedDataset) -> Path:
    """Where this run writes the dataset's result (and keeps its cost ledger beside it)."""
    cfg = run.cfg
    return result_path(cfg.out, cfg.judge.name, data.spec.name, data.revision, run.prompt_set.name, cfg.cue)


@dataclass(frozen=True)
class _Inputs:
    """The run's inputs, checked once at the edge: the prompt set and the (re-weighted) datasets."""

    prompt_set: PromptSet
    specs: tuple[DatasetSpec, ...]


def _checked_inputs(cfg: ScoreConfig) -> _Inputs:
    """Resolve the prompt set and the datasets, reading the weights file (if any) once."""
    prompt_set = resolve_prompt_set(cfg.prompt_set)  # an unknown prompt set is a PromptError
    specs = list(cfg.specs) if cfg.specs is not None else list(resolve_datasets(cfg.datasets))
    if cfg.weights is not None:
        reweighted = apply_weights(load_weights(cfg.weights))
        specs = [reweighted.get(s.name, s) for s in specs]
    return _Inputs(prompt_set, tuple(specs))


@dataclass(frozen=True)
class _OpenCache:
    """The run's response cache and what opening it created (the file, folders that were missing)."""

    cache: ResponseCache
    created: tuple[Path, ...]  # the file first, then its new folders, innermost first

    def close(self, failed: bool) -> None:
        """Close the cache; after a failed run, remove what opening it created when it holds no
        answer (a failed command leaves nothing behind; answers are kept: a rerun reuses them)."""
        try:
            discard = failed and bool(self.created) and len(self.cache) == 0
        finally:
            self.cache.close()
        if not discard:
            return
        path = self.created[0]
        for f in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
            f.unlink(missing_ok=True)
        for folder in self.created[1:]:
            if any(folder.iterdir()):
                break
            folder.rmdir()


async def _open_cache(cfg: ScoreConfig, judges: Sequence[JudgeBackend]) -> _OpenCache | None:
    if not cfg.use_cache or not cfg.judge.cacheable:
        return None
    path = cfg.cache or cfg.out / ".cache" / f"{judge_slug(cfg.judge.name)}.sqlite"
    new_folders = tuple(d for d in (path.parent, *path.parent.parents) if not d.exists())
    created = () if path.exists() else (path, *new_folders)
    try:
        return _OpenCache(ResponseCache(path), created)
    except CacheError as e:
        for j in judges:
            await j.aclose()
        raise RunError(str(e)) from e


async def _turn(sending: _Sending, finishing: Sequence[asyncio.Future[Path | None]]) -> None:
    """Until at most ``concurrency`` of this dataset's requests are left; a dataset that failed stops the run."""
    await sending.nearly_done.wait()
    for f in finishing:
        if f.done():
            f.result()


async def _run_all(
    cfg: ScoreConfig, pool: Pool[JudgeRequest], model: str | None, n_replicas: int, inputs: _Inputs
) -> list[Path]:
    """The datasets in turn, overlapped so that the endpoint never waits between two of them.

    The first dataset's first answer settles the mode (:func:`_first`). Each next dataset is loaded
    and planned in the run's worker thread while the previous one is sent, and its requests join the
    pool's queue once at most ``concurrency`` of the previous one's are left; a dataset's result is
    analysed and written in the same worker thread once its last answer is in. Results are in spec order.
    """
    prompt_set, specs = inputs.prompt_set, inputs.specs
    if not specs:
        return []
    finishing: list[asyncio.Future[Path | None]] = []
    preparing: asyncio.Future[_Prepared] | None = None
    worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="dhp-score")
    loop = asyncio.get_running_loop()
    try:
        prep = await loop.run_in_executor(worker, _prepare, specs[0], cfg, prompt_set, None)
        run, sending = await _first(cfg, pool, model, n_replicas, prompt_set, prep, Tally())
        for spec in specs[1:]:
            finishing.append(asyncio.ensure_future(_finish(run, sending, worker)))
            preparing = loop.run_in_executor(worker, _prepare, spec, run.cfg, prompt_set, run)
            await _turn(sending, finishing)
            prep = await preparing
            assert prep.plan is not None
            sending = _start(run, prep, prep.plan, Tally())
        finishing.append(asyncio.ensure_future(_finish(run, sending, worker)))
        paths = await asyncio.gather(*finishing)
    except BaseException:
        await _cancel([*finishing, *([preparing] if preparing is not None else [])])
        raise
    finally:
        worker.shutdown(wait=False, cancel_futures=True)  # a job already running ends on its own
    written = [p for p in paths if p is not None]
    skipped = [s.name for s, p in zip(specs, paths, strict=True) if p is None]
    if skipped:
        raise RunError(
            f"too many failed requests for {', '.join(skipped)}: no result written for them "
            f"({len(written)} written). Run the same command again to retry only what failed."
        )
    return written


async def score_datasets_async(
    cfg: ScoreConfig, replicas: Sequence[JudgeBackend] | None = None
) -> list[Path]:
    """The async body of :func:`score_datasets`, for callers that run their own event loop.

    The edge of the scorer: the prompt set, the datasets and the weights file are checked here,
    once, before any work (:func:`_checked_inputs`), and passed inward as resolved values. The
    judge's name needs no check here: ``cfg.judge`` is a :data:`dhp.inference.judge.Judge`, whose name was
    checked (:func:`dhp.naming.judge_slug`) when it was built.
    """
    inputs = _checked_inputs(cfg)
    if replicas is not None:
        judges, model = list(replicas), cfg.judge.request_model
    else:
        judges, model = await _build_replicas(cfg)
    opened = await _open_cache(cfg, judges)
    pool = Pool(
        judges,
        identity=cfg.judge.name,
        model=model,
        cache=None if opened is None else opened.cache,
        concurrency=1 if cfg.judge.one_at_a_time else cfg.concurrency,  # one model, one request at a time
        policy=cfg.policy,
        seed=cfg.seed,
        coalesce=cfg.judge.uses_prompts,  # prompt-less requests (built-ins): their keys do not tell them apart
    )
    failed = True
    try:
        paths = await _run_all(cfg, pool, model, len(judges), inputs)
        failed = False
        return paths
    finally:
        await pool.aclose()
        if opened is not None:
            opened.close(failed)


def score_datasets(cfg: ScoreConfig, replicas: Sequence[JudgeBackend] | None = None) -> list[Path]:
    """Score the judge on the chosen datasets; return the result files written.

    ``replicas`` overrides the judge backends built from ``cfg.judge`` (tests, custom judges).
    """
    return asyncio.run(score_datasets_async(cfg, replicas))
