"""The scoring run: judge + DHP datasets -> one validated result file per dataset.

:func:`score_datasets` is the Python entry point behind ``dhp score``. For each dataset it

1. loads the pairs (:mod:`dhp.scoring.data`) and builds one request per (text, metric, repeat):
   each **original is scored once per (item, metric)**, not once per perturbation; the requests of
   one item and metric (original and all its perturbed versions, which share the prompt prefix)
   are issued together;
2. sends them through one :class:`~dhp.inference.pool.JudgePool` (cache, concurrency, retries,
   replicas) with a progress bar;
3. parses every output (:mod:`dhp.scoring.parse`); unparsed outputs and failed requests are
   counted with their reasons and never become scores, so their pairs drop out of that metric's
   test;
4. runs the DHP statistics (:func:`dhp.scoring.stats.analyse`) and writes the result
   (:mod:`dhp.scoring.results`) to ``<out>/<judge_slug>/<dataset>@<revision_slug>.json``.

Scoring modes: ``expected`` (G-Eval probability-weighted score, one request), ``paper`` (temperature
0, parsed, ``repeats`` requests averaged), ``sample`` (``samples`` requests at temperature 1, parsed
and averaged; for endpoints without log-probabilities). ``auto`` probes the endpoint once and picks
``expected`` when it returns log-probabilities, else ``sample``; an explicit ``expected`` on an
endpoint without them is refused (:class:`CapabilityError`) rather than silently degraded.
"""

from __future__ import annotations

import asyncio
import logging
import math
import sys
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Literal

import numpy as np

import dhp
from dhp.inference.cache import CacheError, ResponseCache
from dhp.inference.pool import JudgePool, PoolStats, RetryPolicy
from dhp.judge import BuiltinJudge, EndpointJudge, HubJudge, LocalJudge, request_model
from dhp.judge import Judge as JudgeSpec
from dhp.judge import endpoints as judge_endpoints
from dhp.scoring.data import DataError, LoadedDataset, load_hub, load_local
from dhp.scoring.parse import aggregate, score_output
from dhp.scoring.prompts import PromptTemplate, load_template, render_context, resolve_prompt_set
from dhp.scoring.results import (
    Coverage,
    DatasetRef,
    ItemScores,
    JudgeInfo,
    PromptInfo,
    Result,
    ScoringSettings,
    Timing,
    judge_slug,
    result_from_analysis,
    result_path,
    write_result,
)
from dhp.scoring.stats import CombineMethod, DatasetAnalysis, analyse
from dhp.scoring.types import (
    ORIGINAL,
    CapabilityError,
    FatalJudgeError,
    Judge,
    JudgeOutput,
    JudgeRequest,
    ParsedScore,
    RawText,
    RequestFailure,
    SamplingParams,
    Unparsed,
)
from dhp.secrets import JUDGE_KEY_VARS
from dhp.secrets import api_key_from_env as _key_from_env
from dhp.spec import resolve_datasets
from dhp.types import TGI_MAX_TOP_N_TOKENS, DatasetSpec, EndpointProtocol, ScoringMode

__all__ = ["API_KEY_ENV", "RunError", "ScoreConfig", "api_key_from_env", "score_datasets", "score_datasets_async"]

log = logging.getLogger("dhp.scoring")

#: Environment variables an endpoint API key is read from, in order. Never a CLI flag, never written.
API_KEY_ENV = JUDGE_KEY_VARS
_EXAMPLES_PER_REASON = 3
_EXAMPLE_CHARS = 200


class RunError(Exception):
    """A run that could not produce (all) results; the message says why."""


def api_key_from_env() -> str | None:
    """The judge endpoint's key (DHP_JUDGE_API_KEY, else HF_TOKEN), never from the command line."""
    return _key_from_env(API_KEY_ENV)


@dataclass(frozen=True)
class ScoreConfig:
    judge: JudgeSpec  # which judge (dhp.judge): built-in, endpoint replicas, Hub model id or in-process
    out: Path
    datasets: str = "all"
    specs: tuple[DatasetSpec, ...] | None = None  # datasets declared elsewhere (task files); replaces `datasets`
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
async def _build_replicas(cfg: ScoreConfig) -> tuple[list[Judge], str | None]:
    """The judge's replicas and the model name that goes into cache keys and results."""
    j = cfg.judge
    if isinstance(j, BuiltinJudge):
        from dhp.scoring.builtin import make_builtin

        return [make_builtin(j.control.value, seed=cfg.seed)], j.control.value
    if isinstance(j, LocalJudge):
        from dhp.scoring.local import LocalJudge as LocalModel

        local = LocalModel(j.model, revision=j.revision, seed=cfg.seed)
        await local.load()
        return [local], j.model
    from dhp.inference.http import discover_model, make_endpoint_backend

    key = _endpoint_key(j)
    protocol = j.protocol if isinstance(j, EndpointJudge) else EndpointProtocol.OPENAI
    urls = judge_endpoints(j)
    model = request_model(j)
    if model is None or protocol is EndpointProtocol.TGI:  # TGI: /info also proves the server is TGI
        found = await discover_model(urls[0], protocol.value, key, timeout=min(cfg.policy.timeout, 30.0))
        model = model or found
    judges: list[Judge] = [
        make_endpoint_backend(
            url,
            protocol=protocol.value,
            model=model,
            api_key=key,
            timeout=cfg.policy.timeout,
            connections=cfg.concurrency,  # a replica may carry every slot while another is set aside
        )
        for url in urls
    ]
    return judges, model


def _endpoint_key(j: EndpointJudge | HubJudge) -> str | None:
    """The endpoint's key from the environment; for a Hub model id, the user's Hugging Face token."""
    if isinstance(j, EndpointJudge):
        return api_key_from_env()
    from dhp.inference.hub import hf_token

    token = hf_token()
    if not token:
        raise RunError("--model-id needs a Hugging Face token: set HF_TOKEN or log in with `hf auth login`")
    return token


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
    reps = _repeats(cfg, mode)
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
                for r in range(reps):
                    requests.append(
                        JudgeRequest(
                            dataset=spec.name,
                            item_id=item.id,
                            metric=metric.name,
                            role=role,
                            text=text,
                            context=item.context,
                            prompt=prompt,
                            sampling=_sampling(cfg, mode, r),
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
    def __init__(self, total: int, desc: str, enabled: bool | None) -> None:
        from tqdm import tqdm

        disable = (not sys.stderr.isatty()) if enabled is None else not enabled
        self._bar = tqdm(total=total, desc=desc, unit="req", disable=disable, dynamic_ncols=True, smoothing=0.1)
        self._failed = 0
        self._cached = 0

    def done(self, failed: bool, cached: bool) -> None:
        self._failed += failed
        self._cached += cached
        self._bar.update(1)
        if failed or self._bar.n % 25 == 0:
            self._bar.set_postfix(failed=self._failed, cached=self._cached, refresh=False)

    def close(self) -> None:
        self._bar.set_postfix(failed=self._failed, cached=self._cached, refresh=False)
        self._bar.close()


def _check_capability(out: JudgeOutput, mode: ScoringMode, label: str) -> None:
    if mode is ScoringMode.EXPECTED and isinstance(out, RawText) and out.tokens is None:
        raise CapabilityError(
            "no-logprobs",
            f"endpoint {label} returned no token log-probabilities, which --mode expected needs; "
            "use --mode sample (G-Eval's sampling estimate) or --mode paper",
        )


async def _send_all(
    pool: JudgePool[JudgeRequest],
    requests: Sequence[JudgeRequest],
    mode: ScoringMode,
    progress: _Progress,
    known: Mapping[str, JudgeOutput],
) -> list[JudgeOutput | RequestFailure]:
    """Send every request (``known`` outputs, keyed by cache key, are reused without a request)."""

    async def one(req: JudgeRequest) -> JudgeOutput | RequestFailure:
        reused = known.get(req.cache_key(pool.identity, pool.model)) if known else None
        if reused is not None:
            progress.done(False, True)
            return reused
        before = pool.stats.cached
        out = await pool.submit(req)
        if not isinstance(out, RequestFailure):
            _check_capability(out, mode, pool.identity)
        progress.done(isinstance(out, RequestFailure), pool.stats.cached > before)
        return out

    tasks = [asyncio.ensure_future(one(r)) for r in requests]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


async def _resolve_mode(
    cfg: ScoreConfig, pool: JudgePool[JudgeRequest], probe: JudgeRequest | None
) -> tuple[ScoringMode, dict[str, JudgeOutput], ScoreConfig]:
    """Built-in -> builtin; local -> expected unless asked; endpoint: probe once for log-probabilities.

    Returns the mode, the probe's output (keyed by cache key) for the run to reuse, and the config
    the run uses: an endpoint that refuses ``top_logprobs`` above TGI's limit of 5 (a 400 or 422 on
    the probe) is probed again with 5, and the run then asks for 5.
    """
    kind = cfg.judge.kind
    if kind == "builtin":
        return ScoringMode.BUILTIN, {}, cfg
    if cfg.mode != "auto" and cfg.mode != "expected":
        return ScoringMode(cfg.mode), {}, cfg
    if kind == "local" or probe is None:
        return ScoringMode.EXPECTED, {}, cfg
    out = await pool.submit(probe)
    if (
        isinstance(out, RequestFailure)
        and out.reason in ("http-400", "http-422")
        and probe.sampling.top_logprobs > TGI_MAX_TOP_N_TOKENS
    ):
        log.warning(
            "the endpoint refused top_logprobs=%d (%s); trying %d, TGI's limit",
            probe.sampling.top_logprobs,
            out.message[:120],
            TGI_MAX_TOP_N_TOKENS,
        )
        cfg = replace(cfg, top_logprobs=TGI_MAX_TOP_N_TOKENS)
        probe = replace(probe, sampling=replace(probe.sampling, top_logprobs=TGI_MAX_TOP_N_TOKENS))
        out = await pool.submit(probe)
    if isinstance(out, RequestFailure):
        raise FatalJudgeError("probe-failed", f"the first request to the judge failed ({out.reason}: {out.message})")
    has_logprobs = not (isinstance(out, RawText) and out.tokens is None)
    if has_logprobs:
        return ScoringMode.EXPECTED, {probe.cache_key(pool.identity, pool.model): out}, cfg
    if cfg.mode == "expected":
        _check_capability(out, ScoringMode.EXPECTED, pool.identity)
    log.warning("endpoint returned no log-probabilities: scoring with --mode sample (%d samples)", cfg.samples)
    return ScoringMode.SAMPLE, {}, cfg


# ---------------------------------------------------------------------------------------------
# Scores, coverage, result
# ---------------------------------------------------------------------------------------------
@dataclass
class _Scored:
    scores: dict[TextKey, float]
    coverage: Coverage


def _collect(plan: _Plan, outcomes: Sequence[JudgeOutput | RequestFailure], mode: ScoringMode, spec: DatasetSpec) -> _Scored:
    by_key: dict[TextKey, list[JudgeOutput | RequestFailure]] = {}
    for req, out in zip(plan.requests, outcomes, strict=True):
        by_key.setdefault((req.role, req.item_id, req.metric), []).append(out)
    labels = {m.name: m.label for m in spec.metrics}
    scales = {m.name: (m.scale_min, m.scale_max) for m in spec.metrics}
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
            s = score_output(o, mode, scales[key[2]], labels[key[2]])
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
        return np.array([scored.scores.get((role, i, metric), math.nan) for i in plan.items], dtype=np.float64)

    original = {m: vec(ORIGINAL, m) for m in spec.metric_names}
    perturbed = {pid: {m: vec(pid, m) for m in spec.metric_names} for pid in plan.perturbations}
    return original, perturbed


def _tuple(v: np.ndarray) -> tuple[float | None, ...]:
    return tuple(None if math.isnan(x) else float(x) for x in v)


def _judge_info(cfg: ScoreConfig, mode: ScoringMode, n_replicas: int, model: str | None) -> JudgeInfo:
    j = cfg.judge
    settings: dict[str, object] = {"mode": mode.value}
    if isinstance(j, BuiltinJudge):
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
        tgi = isinstance(j, EndpointJudge) and j.protocol is EndpointProtocol.TGI
        settings["top_logprobs"] = min(cfg.top_logprobs, TGI_MAX_TOP_N_TOKENS) if tgi else cfg.top_logprobs
    if isinstance(j, EndpointJudge | HubJudge):
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
    pool: JudgePool[JudgeRequest]
    mode: ScoringMode
    model: str | None
    n_replicas: int

    @property
    def uses_prompts(self) -> bool:
        return self.cfg.judge.kind != "builtin"


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
    analysis = analyse(original, perturbed, levels, weights, method=cfg.combine, n_boot=cfg.n_boot, seed=cfg.seed)
    item_scores = ItemScores(
        item_ids=plan.items,
        original={m: _tuple(v) for m, v in original.items()},
        perturbed={pid: {m: _tuple(v) for m, v in per.items()} for pid, per in perturbed.items()},
    )
    return _Analysed(analysis, item_scores, weights)


def _result(
    run: _Run, data: LoadedDataset, plan: _Plan, scored: _Scored, done: _Analysed, templates: _Templates, timing: Timing
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
        prompt_set=resolve_prompt_set(cfg.prompt_set).name,
        cue=cfg.cue,
    )
    return result_from_analysis(
        done.analysis,
        judge=_judge_info(cfg, run.mode, run.n_replicas, run.model),
        dataset=DatasetRef(
            name=spec.name, repo=data.repo, revision=data.revision, version=data.version, n_items=len(plan.items)
        ),
        scoring=settings,
        coverage=scored.coverage,
        timing=timing,
        scores=done.scores,
        created_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        dhp_version=dhp.__version__,
    )


def _timing(run: _Run, stats0: PoolStats, t0: float) -> Timing:
    stats = run.pool.stats.minus(stats0)
    return Timing(
        wall_seconds=round(time.monotonic() - t0, 3),
        requests_sent=stats.sent if run.uses_prompts else 0,  # built-in judges send nothing
        requests_cached=stats.cached,
        retries=stats.retries,
        requests_failed=stats.failed,
    )


async def _score_dataset(
    run: _Run, data: LoadedDataset, templates: _Templates, known: Mapping[str, JudgeOutput], t0: float, stats0: PoolStats
) -> Path | None:
    """plan -> send -> collect -> analyse -> result, for one dataset (None: too many failures, nothing written)."""
    spec, cfg = data.spec, run.cfg
    plan = _plan(data, cfg, run.mode, templates)
    if not plan.perturbations:
        raise DataError(f"{spec.name}: no perturbed rows at all")
    for pid in spec.perturbation_ids:
        if pid not in plan.perturbations:
            log.warning("%s: perturbation %s has no rows; it is left out of the analysis", spec.name, pid)
    progress = _Progress(len(plan.requests), spec.name, cfg.progress)
    try:
        outcomes = await _send_all(run.pool, plan.requests, run.mode, progress, known)
    finally:
        progress.close()
    scored = _collect(plan, outcomes, run.mode, spec)
    if _too_many_failures(spec, scored.coverage, cfg):
        return None
    done = _analyse(plan, scored, spec, cfg)
    result = _result(run, data, plan, scored, done, templates, _timing(run, stats0, t0))
    path = result_path(cfg.out, cfg.judge.name, spec.name, data.revision, result.scoring.prompt_set, cfg.cue)
    return write_result(result, path)


def _specs(cfg: ScoreConfig) -> list[DatasetSpec]:
    specs = list(cfg.specs) if cfg.specs is not None else list(resolve_datasets(cfg.datasets))
    if cfg.weights is None:
        return specs
    from dhp.weights import apply_weights, load_weights

    reweighted = apply_weights(load_weights(cfg.weights))
    return [reweighted.get(s.name, s) for s in specs]


async def _open_cache(cfg: ScoreConfig, judges: Sequence[Judge]) -> ResponseCache | None:
    if not cfg.use_cache or cfg.judge.kind == "builtin":
        return None
    try:
        return ResponseCache(cfg.cache or cfg.out / ".cache" / f"{judge_slug(cfg.judge.name)}.sqlite")
    except CacheError as e:
        for j in judges:
            await j.aclose()
        raise RunError(str(e)) from e


async def _run_all(cfg: ScoreConfig, pool: JudgePool[JudgeRequest], model: str | None, n_replicas: int) -> list[Path]:
    """Each dataset in turn; the first one's first request probes the endpoint (``auto`` mode)."""
    written: list[Path] = []
    skipped: list[str] = []
    run: _Run | None = None
    prompt_set = resolve_prompt_set(cfg.prompt_set)
    for spec in _specs(cfg):
        t0, stats0 = time.monotonic(), pool.stats  # the probe counts with the first dataset
        data = _load(spec, cfg)
        uses_prompts = cfg.judge.kind != "builtin"
        templates = (
            {m: load_template(spec, m, cfg.prompts_dir, prompt_set, cfg.cue) for m in spec.metric_names}
            if uses_prompts
            else None
        )
        known: dict[str, JudgeOutput] = {}
        if run is None:
            probe = _plan(data, cfg, ScoringMode.EXPECTED, templates).requests[0] if uses_prompts else None
            mode, known, cfg = await _resolve_mode(cfg, pool, probe)
            run = _Run(cfg, pool, mode, model, n_replicas)
        path = await _score_dataset(run, data, templates, known, t0, stats0)
        if path is None:
            skipped.append(spec.name)
        else:
            written.append(path)
    if skipped:
        raise RunError(
            f"too many failed requests for {', '.join(skipped)}: no result written for them "
            f"({len(written)} written). Run the same command again to retry only what failed."
        )
    return written


async def score_datasets_async(cfg: ScoreConfig, replicas: Sequence[Judge] | None = None) -> list[Path]:
    """The async body of :func:`score_datasets`, for callers that run their own event loop."""
    judge_slug(cfg.judge.name)  # refuse bad names before any work
    resolve_prompt_set(cfg.prompt_set)  # an unknown prompt set,
    _specs(cfg)  # unknown datasets or a bad weights file
    if replicas is not None:
        judges, model = list(replicas), request_model(cfg.judge)
    else:
        judges, model = await _build_replicas(cfg)
    cache = await _open_cache(cfg, judges)
    pool = JudgePool(
        judges,
        identity=cfg.judge.name,
        model=model,
        cache=cache,
        concurrency=1 if cfg.judge.kind == "local" else cfg.concurrency,  # one model, one request at a time
        policy=cfg.policy,
        seed=cfg.seed,
        coalesce=cfg.judge.kind != "builtin",  # built-in judges' requests have no prompt: their keys do not tell them apart
    )
    try:
        return await _run_all(cfg, pool, model, len(judges))
    finally:
        await pool.aclose()
        if cache is not None:
            cache.close()


def score_datasets(cfg: ScoreConfig, replicas: Sequence[Judge] | None = None) -> list[Path]:
    """Score the judge on the chosen datasets; return the result files written.

    ``replicas`` overrides the judge backends built from ``cfg.judge`` (tests, custom judges).
    """
    return asyncio.run(score_datasets_async(cfg, replicas))
