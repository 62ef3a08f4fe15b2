"""Stage 2 of a run, send: a dataset's requests through the pool, the endpoint's capabilities settled.

:func:`start_sending` hands every request of one dataset to the :class:`~dhp.inference.pool.Pool`
(cache, concurrency, retries, replicas) with a progress bar and the dataset's cost ledger; outputs
are parsed on arrival. :func:`start_first` starts the first dataset; for an endpoint in ``auto``
or ``expected`` mode the first ``concurrency`` requests go out at once in ``expected``'s form and
the first answer settles the endpoint's capabilities (:func:`settle`; the probe idles no slot):
log-probabilities -> ``expected``; none -> ``sample`` under ``auto``, refused under ``expected``
(:class:`~dhp.inference.protocol.CapabilityError`); ``top_logprobs`` refused -> TGI's limit of 5. In
the last two cases the dataset is planned again in that form once the wave's outcomes are in.
:class:`SendSettings` is all that sending reads of the run's settings, beside the request form.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from dhp.inference.pool import Pool, Tally
from dhp.inference.protocol import (
    CapabilityError,
    FatalJudgeError,
    JudgeOutput,
    RawText,
    RequestFailure,
)
from dhp.scoring.config import RequestForm
from dhp.scoring.cost import CostLedger, ledger_path
from dhp.scoring.judge_io import JudgeRequest, ParsedScore, Unparsed
from dhp.scoring.parse import score_output
from dhp.scoring.plan import Plan, PlanSettings, Prepared, ResultPlace, Run, planned, result_file
from dhp.types import TGI_MAX_TOP_N_TOKENS, ScoringMode

__all__ = [
    "Outcome",
    "ProbeVerdict",
    "Progress",
    "Scoring",
    "SendSettings",
    "Sending",
    "Wave",
    "cancel_all",
    "check_capability",
    "fixed_mode",
    "settle",
    "start_first",
    "start_sending",
]

log = logging.getLogger("dhp.scoring")


# ---------------------------------------------------------------------------------------------
# Sending
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SendSettings:
    """What sending reads of the run's settings (made once by the run's edge); the request form is the run's."""

    mode: Literal["auto", "expected", "paper", "sample"]  # the mode asked for
    progress: bool | None  # progress bars; None: on when stderr is a terminal
    own_mode: ScoringMode | None  # the judge's own mode (built-ins), which no request settles
    probes_capabilities: bool  # whether the judge's first answers settle ``auto``/``expected``
    sends_requests: bool  # whether the judge sends requests (its cost ledger counts them)


class Progress:
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


def check_capability(out: JudgeOutput, mode: ScoringMode, label: str) -> None:
    if mode is ScoringMode.EXPECTED and isinstance(out, RawText) and out.tokens is None:
        raise CapabilityError(
            "no-logprobs",
            f"endpoint {label} returned no token log-probabilities, which --mode expected needs; "
            "use --mode sample (G-Eval's sampling estimate) or --mode paper",
        )


Outcome = JudgeOutput | RequestFailure
Scoring = ParsedScore | Unparsed | RequestFailure  # an outcome once parsed (outputs are parsed on arrival)
Wave = Sequence["asyncio.Future[Outcome]"]


@dataclass
class Sending:
    """One dataset's requests on their way; ``tally`` is its share of the pool's counts."""

    prepared: Prepared
    plan: Plan
    tally: Tally
    progress: Progress
    tasks: Sequence[asyncio.Future[Scoring]]
    nearly_done: (
        asyncio.Event
    )  # at most `concurrency` requests left (or it ended): the next dataset may start
    ledger: CostLedger  # this invocation's cost, beside the result, kept through kills (issue 27)


def start_sending(
    settings: SendSettings, run: Run, prep: Prepared, plan: Plan, tally: Tally, wave: Wave = ()
) -> Sending:
    """Hand every request of one dataset to the pool (``wave``: its first requests, already on their way)."""
    pool, mode = run.pool, run.mode
    progress = Progress(len(plan.requests), prep.data.spec.name, settings.progress, tally)
    ledger = CostLedger.of(
        tally, ledger_path(result_file(run, prep.data)), prep.t0, sends=settings.sends_requests
    )
    nearly_done = asyncio.Event()
    left = len(plan.requests)

    async def one(i: int, req: JudgeRequest) -> Scoring:
        nonlocal left
        out = await (wave[i] if i < len(wave) else pool.submit(req, tally))
        failed = isinstance(out, RequestFailure)
        if not isinstance(out, RequestFailure):
            check_capability(out, mode, pool.identity)
        progress.done(failed)
        left -= 1
        if left <= pool.concurrency:
            nearly_done.set()
        # parsed now, so a dataset holds small scores, not every output's log-probabilities
        return (
            out if isinstance(out, RequestFailure) else score_output(out, mode, req.scale, req.metric_label)
        )

    if left <= pool.concurrency:
        nearly_done.set()
    tasks: list[asyncio.Future[Scoring]] = []
    try:
        for i, r in enumerate(plan.requests):
            tasks.append(asyncio.ensure_future(one(i, r)))
    except BaseException:
        # Ctrl-C or SIGTERM while thousands are made: none of them, nor the wave, goes on alone once the
        # pool has closed (each would fail on the closed session, an exception no one retrieves)
        for t in tasks:
            t.cancel()
        for w in wave:
            w.cancel()
        raise
    return Sending(prep, plan, tally, progress, tasks, nearly_done, ledger)


async def cancel_all(tasks: Iterable[asyncio.Future[Any]]) -> None:
    """Cancel what still runs and wait for all: every outcome is retrieved, so a second fatal error
    of the same wave is not reported later as a task exception never retrieved."""
    every = list(tasks)
    for t in every:
        if not t.done():
            t.cancel()
    await asyncio.gather(*every, return_exceptions=True)


def fixed_mode(settings: SendSettings) -> ScoringMode | None:
    """The mode when no request has to settle it: built-in, an explicit text mode, or a local model."""
    if settings.own_mode is not None:
        return settings.own_mode
    if settings.mode not in ("auto", "expected"):
        return ScoringMode(settings.mode)
    return None if settings.probes_capabilities else ScoringMode.EXPECTED


ProbeVerdict = Literal["keep", "sample", "fewer-top-logprobs"]


async def settle(settings: SendSettings, form: RequestForm, wave: Wave, label: str) -> ProbeVerdict:
    """What the first outcome of the wave (sent in ``expected``'s form) says of the endpoint.

    ``keep``: it returned log-probabilities. ``sample``: it returned none (``auto``; ``expected``
    is refused). ``fewer-top-logprobs``: it refused ``top_logprobs`` above TGI's limit (400/422).
    Other failures wait for another outcome; a wave of failures only stops the run (``probe-failed``).
    A fatal error or a refusal cancels the wave.
    """
    order = {t: i for i, t in enumerate(wave)}
    pending: set[asyncio.Future[Outcome]] = set(wave)
    first_failure: RequestFailure | None = None
    try:
        while pending:
            done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            for t in sorted(done, key=order.__getitem__):  # those answered together: in plan order
                out = t.result()  # a fatal or capability error propagates
                if not isinstance(out, RequestFailure):
                    if isinstance(out, RawText) and out.tokens is None:
                        if settings.mode == "expected":
                            check_capability(out, ScoringMode.EXPECTED, label)
                        log.warning(
                            "endpoint returned no log-probabilities: scoring with --mode sample (%d samples)",
                            form.samples,
                        )
                        return "sample"
                    return "keep"
                if out.reason in ("http-400", "http-422") and form.top_logprobs > TGI_MAX_TOP_N_TOKENS:
                    log.warning("the endpoint refused top_logprobs=%d (%s); trying %d, TGI's limit",
                                form.top_logprobs, out.message[:120], TGI_MAX_TOP_N_TOKENS)  # fmt: skip
                    return "fewer-top-logprobs"
                first_failure = first_failure or out
    except BaseException:
        await cancel_all(wave)
        raise
    assert first_failure is not None
    msg = f"the first requests to the judge failed ({first_failure.reason}: {first_failure.message})"
    raise FatalJudgeError("probe-failed", msg)


async def start_first(
    settings: SendSettings,
    plan_settings: PlanSettings,
    place: ResultPlace,
    form: RequestForm,
    pool: Pool[JudgeRequest],
    prep: Prepared,
    tally: Tally,
) -> tuple[Run, Sending]:
    """Start the first dataset; for an endpoint in ``auto``/``expected`` mode its first answer settles the mode.

    The probe idles no slot: the first ``concurrency`` requests go out at once in the form
    ``expected`` needs, and the first answer settles the endpoint's capabilities. Then the wave's
    requests are the run's own (nothing is sent twice), or, where the endpoint needs another form
    (no log-probabilities: ``sample``; ``top_logprobs`` refused: TGI's limit), the wave's outcomes
    are awaited (each answered or counted as failed, in the dataset's tally, never sent again in the
    same form) and the dataset is planned again in the form the endpoint takes.
    """
    mode = fixed_mode(settings)
    run = Run(plan_settings, place, pool, form, mode or ScoringMode.EXPECTED)
    plan = planned(run, prep.data, prep.templates)
    if mode is not None:
        return run, start_sending(settings, run, prep, plan, tally)
    CostLedger.of(tally, ledger_path(result_file(run, prep.data)), prep.t0)  # records the wave too
    wave = [asyncio.ensure_future(pool.submit(r, tally)) for r in plan.requests[: pool.concurrency]]
    verdict = await settle(settings, form, wave, pool.identity)
    if verdict == "keep":
        return run, start_sending(settings, run, prep, plan, tally, wave)
    await asyncio.gather(
        *wave
    )  # each ends answered (and cached) or counted as failed, in this dataset's tally
    if verdict == "fewer-top-logprobs":
        fewer = replace(form, top_logprobs=TGI_MAX_TOP_N_TOKENS)
        return await start_first(settings, plan_settings, place, fewer, pool, prep, tally)
    run = replace(run, mode=ScoringMode.SAMPLE)
    return run, start_sending(settings, run, prep, planned(run, prep.data, prep.templates), tally)
