"""The scoring run: judge + DHP datasets -> one validated result file per dataset.

:func:`score_datasets` is the Python entry point behind ``dhp score``; this module is the run's
edge and its loop. The inputs (prompt set, datasets, weights file) are checked once here
(:func:`_checked_inputs`), the judge's replicas built and the response cache opened, the
:class:`~dhp.scoring.config.ScoreConfig` split into the settings each stage reads
(:func:`_stage_settings`), and then each dataset goes through three stages, each a module of its own:

1. :mod:`dhp.scoring.plan`: load the pairs, read the templates, one request per (text, metric,
   repeat), each original once per (item, metric);
2. :mod:`dhp.scoring.send`: the requests through one :class:`~dhp.inference.pool.Pool`, outputs
   parsed on arrival; the first answer settles the endpoint's capabilities (``auto``/``expected``);
3. :mod:`dhp.scoring.conclude`: collect scores and coverage, run the statistics
   (:func:`dhp.scoring.analysis.analyse`), write the result (:mod:`dhp.scoring.results`).

Datasets overlap so that the endpoint never idles between two: the next one is loaded and planned
in a worker thread while the previous one is sent, and its requests join the queue once at most
``concurrency`` of the previous one's are left (:func:`_run_all`).

Scoring modes: ``expected`` (G-Eval probability-weighted score, one request), ``paper`` (temperature
0, parsed, ``repeats`` requests averaged), ``sample`` (``samples`` requests at temperature 1, parsed
and averaged; for endpoints without log-probabilities); ``auto`` picks one from the first answer.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from dhp.fsutil import remove_created, would_create
from dhp.inference.cache import CacheError, ResponseCache
from dhp.inference.pool import Pool, Tally
from dhp.inference.registry import BackendOptions, BackendSetupError, build_backends
from dhp.naming import judge_slug
from dhp.scoring.conclude import ConcludeSettings, finish
from dhp.scoring.config import RequestForm, RunError, ScoreConfig
from dhp.scoring.cost import CostLedger
from dhp.scoring.judge_io import JudgeBackend, JudgeRequest
from dhp.scoring.plan import PlanSettings, Prepared, ResultPlace, prepare
from dhp.scoring.prompts import PromptSet, resolve_prompt_set
from dhp.scoring.send import Sending, SendSettings, cancel_all, start_first, start_sending
from dhp.spec import resolve_datasets
from dhp.types import DatasetSpec
from dhp.weights import apply_weights, load_weights

__all__ = [
    "score_datasets",
    "score_datasets_async",
]

log = logging.getLogger("dhp.scoring")


# ---------------------------------------------------------------------------------------------
# Judges
# ---------------------------------------------------------------------------------------------
async def build_replicas(cfg: ScoreConfig) -> tuple[list[JudgeBackend], str | None]:
    """The judge's replicas (built by the inference layer's registry) and the model name that goes
    into cache keys and results."""
    options = BackendOptions(seed=cfg.seed, timeout=cfg.policy.timeout, connections=cfg.concurrency)
    try:
        built = await build_backends(cfg.judge, options)
    except BackendSetupError as e:
        raise RunError(str(e)) from None
    return list(built.replicas), built.model


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
class _StageSettings:
    """The :class:`ScoreConfig` split once into what each stage reads (no stage sees the whole of it)."""

    plan: PlanSettings
    place: ResultPlace
    form: RequestForm  # as asked: the first answers may change it (dhp.scoring.send.start_first)
    send: SendSettings
    conclude: ConcludeSettings


def _stage_settings(
    cfg: ScoreConfig, prompt_set: PromptSet, model: str | None, n_replicas: int
) -> _StageSettings:
    """The settings of each stage, from the run's config, its resolved prompt set and its judge's replicas."""
    j = cfg.judge
    return _StageSettings(
        plan=PlanSettings(
            data=cfg.data,
            revision=cfg.revision,
            hub_org=cfg.hub_org,
            split=cfg.split,
            limit=cfg.limit,
            prompts_dir=cfg.prompts_dir,
            cue=cfg.cue,
            uses_prompts=j.uses_prompts,
        ),
        place=ResultPlace(out=cfg.out, judge_name=j.name, prompt_set=prompt_set.name, cue=cfg.cue),
        form=RequestForm(
            repeats=cfg.repeats,
            samples=cfg.samples,
            top_logprobs=cfg.top_logprobs,
            max_tokens=cfg.max_tokens,
            seed=cfg.seed,
        ),
        send=SendSettings(
            mode=cfg.mode,
            progress=cfg.progress,
            own_mode=j.own_mode,
            probes_capabilities=j.probes_capabilities,
            sends_requests=j.sends_requests,
        ),
        conclude=ConcludeSettings(
            judge=j,
            model=model,
            n_replicas=n_replicas,
            timeout_s=cfg.policy.timeout,
            max_retries=cfg.policy.max_retries,
            combine=cfg.combine,
            n_boot=cfg.n_boot,
            seed=cfg.seed,
            split=cfg.split,
            max_failure_rate=cfg.max_failure_rate,
        ),
    )


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
        if discard:
            remove_created(self.created, "-wal", "-shm")

    @property
    def answers(self) -> bool:
        """Whether the cache holds an answer (read before :meth:`close`)."""
        return len(self.cache) > 0


async def _open_cache(cfg: ScoreConfig, backends: Sequence[JudgeBackend]) -> _OpenCache | None:
    if not cfg.use_cache or not cfg.judge.cacheable:
        return None
    path = cfg.cache or cfg.out / ".cache" / f"{judge_slug(cfg.judge.name)}.sqlite"
    created = would_create(path)
    try:
        return _OpenCache(ResponseCache(path), created)
    except CacheError as e:
        for b in backends:
            await b.aclose()
        raise RunError(str(e)) from e


async def _turn(sending: Sending, finishing: Sequence[asyncio.Future[Path | None]]) -> None:
    """Until at most ``concurrency`` of this dataset's requests are left; a dataset that failed stops the run."""
    await sending.nearly_done.wait()
    for f in finishing:
        if f.done():
            f.result()


async def _run_all(
    stages: _StageSettings, pool: Pool[JudgeRequest], inputs: _Inputs, tallies: list[Tally]
) -> list[Path]:
    """The datasets in turn, overlapped so that the endpoint never waits between two of them.

    The first dataset's first answer settles the mode (:func:`_first`). Each next dataset is loaded
    and planned in the run's worker thread while the previous one is sent, and its requests join the
    pool's queue once at most ``concurrency`` of the previous one's are left; a dataset's result is
    analysed and written in the same worker thread once its last answer is in. Results are in spec order.
    Each dataset's tally (its share of the pool's counts, and its cost ledger) is added to ``tallies``.
    """
    prompt_set, specs = inputs.prompt_set, inputs.specs
    if not specs:
        return []
    finishing: list[asyncio.Future[Path | None]] = []
    preparing: asyncio.Future[Prepared] | None = None
    sending: Sending | None = None  # the newest, until a finishing task owns it
    worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="dhp-score")
    loop = asyncio.get_running_loop()
    try:
        prep = await loop.run_in_executor(worker, prepare, specs[0], stages.plan, prompt_set, None)
        tallies.append(Tally())
        run, sending = await start_first(
            stages.send, stages.plan, stages.place, stages.form, pool, prep, tallies[-1]
        )
        for spec in specs[1:]:
            finishing.append(asyncio.ensure_future(finish(stages.conclude, run, sending, worker)))
            preparing = loop.run_in_executor(worker, prepare, spec, stages.plan, prompt_set, run)
            await _turn(sending, finishing)
            prep = await preparing
            assert prep.plan is not None
            tallies.append(Tally())
            sending = start_sending(stages.send, run, prep, prep.plan, tallies[-1])
        finishing.append(asyncio.ensure_future(finish(stages.conclude, run, sending, worker)))
        paths = await asyncio.gather(*finishing)
    except BaseException:  # an interruption can land between a dataset's start and its finishing task
        current = sending.tasks if sending is not None else []
        await cancel_all([*finishing, *([preparing] if preparing is not None else []), *current])
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
        backends, model = list(replicas), cfg.judge.request_model
    else:
        backends, model = await build_replicas(cfg)
    opened = await _open_cache(cfg, backends)
    pool = Pool(
        backends,
        identity=cfg.judge.name,
        model=model,
        cache=None if opened is None else opened.cache,
        concurrency=1 if cfg.judge.one_at_a_time else cfg.concurrency,  # one model, one request at a time
        policy=cfg.policy,
        seed=cfg.seed,
        coalesce=cfg.judge.uses_prompts,  # prompt-less requests (built-ins): their keys do not tell them apart
    )
    failed = True
    tallies: list[Tally] = []
    try:
        stages = _stage_settings(cfg, inputs.prompt_set, model, len(backends))
        paths = await _run_all(stages, pool, inputs, tallies)
        failed = False
        return paths
    finally:
        await pool.aclose()
        if failed and not (opened is not None and opened.answers):
            for t in tallies:  # nothing answered: the ledgers this run began go (before the cache: its
                if isinstance(t.on_send, CostLedger):  # folders may hold them) as its cache does
                    t.on_send.discard()
        if opened is not None:
            opened.close(failed)


def score_datasets(cfg: ScoreConfig, replicas: Sequence[JudgeBackend] | None = None) -> list[Path]:
    """Score the judge on the chosen datasets; return the result files written.

    ``replicas`` overrides the judge backends built from ``cfg.judge`` (tests, custom judges).
    """
    return asyncio.run(score_datasets_async(cfg, replicas))
