"""What a scoring run is asked to do (:class:`ScoreConfig`, built by ``dhp score``) and the request form it implies.

:class:`ScoreConfig` is the user-facing record (the command line, the submission worker and the Python
API build it); the run's edge (:mod:`dhp.scoring.run`) splits it once into the settings each stage reads:
:class:`~dhp.scoring.plan.PlanSettings`, :class:`~dhp.scoring.send.SendSettings`,
:class:`~dhp.scoring.conclude.ConcludeSettings`, and :class:`RequestForm`, which all three read.
:func:`sampling` is the form of one request by scoring mode (temperature, tokens, log-probabilities,
the seed of each sampled repeat); :func:`repeat_count` how many requests one text score takes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from dhp.inference.judge import Judge
from dhp.inference.pool import RetryPolicy
from dhp.inference.protocol import (
    SamplingParams,
)
from dhp.scoring.stats import CombineMethod
from dhp.types import DatasetSpec, ScoringMode

__all__ = [
    "RequestForm",
    "RunError",
    "ScoreConfig",
    "repeat_count",
    "sampling",
]


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
    split: str = "public"  # "private": score private split folders (aggregates only; issue 39)


# ---------------------------------------------------------------------------------------------
# Requests
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RequestForm:
    """What the form of a request reads by scoring mode (:func:`sampling`, :func:`repeat_count`).

    The first answers may change it (``top_logprobs`` refused: TGI's limit;
    :func:`dhp.scoring.send.start_first`), so a run carries its own (:class:`dhp.scoring.plan.Run`).
    """

    repeats: int  # paper mode
    samples: int  # sample mode
    top_logprobs: int  # expected mode
    max_tokens: int | None  # default: 8 (expected) or 32 (paper, sample)
    seed: int  # the seed of each sampled repeat


def sampling(form: RequestForm, mode: ScoringMode, repeat: int) -> SamplingParams:
    if mode is ScoringMode.BUILTIN:
        return SamplingParams(temperature=0.0, max_tokens=0)
    if mode is ScoringMode.EXPECTED:
        return SamplingParams(
            temperature=0.0, max_tokens=form.max_tokens or 8, logprobs=True, top_logprobs=form.top_logprobs
        )
    if mode is ScoringMode.PAPER:
        return SamplingParams(temperature=0.0, max_tokens=form.max_tokens or 32)
    return SamplingParams(
        temperature=1.0, max_tokens=form.max_tokens or 32, seed=form.seed * 100_003 + repeat
    )


def repeat_count(form: RequestForm, mode: ScoringMode) -> int:
    return {ScoringMode.PAPER: form.repeats, ScoringMode.SAMPLE: form.samples}.get(mode, 1)
