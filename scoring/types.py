"""The scoring layer's vocabulary: requests, judge outputs, parsed scores and errors.

A *judge* turns one :class:`JudgeRequest` into one :class:`JudgeOutput`:

* :class:`ScoreDistribution` — probabilities over score values (the ``local`` backend's exact
  next-token probabilities, or a built-in judge's point mass), or
* :class:`RawText` — what an endpoint generated, with the top log-probabilities per generated token
  when the endpoint returned them (``tokens is None`` means it did not).

A parser (:mod:`dhp.scoring.parse`) turns an output into a :class:`ParsedScore` or an
:class:`Unparsed` value that carries its reason; an unparsed output is never turned into a score.
Nothing in this module does I/O.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from dhp.types import Role, ScoringMode

__all__ = [
    "ORIGINAL",
    "CapabilityError",
    "FatalJudgeError",
    "Judge",
    "JudgeError",
    "JudgeOutput",
    "JudgeRequest",
    "ParsedScore",
    "PermanentJudgeError",
    "RawText",
    "RequestFailure",
    "SamplingParams",
    "ScoreDistribution",
    "ScoringMode",
    "TokenAlternatives",
    "TransientJudgeError",
    "Unparsed",
    "output_from_json",
    "output_to_json",
]

#: The role of an original (unperturbed) text; perturbed texts have their perturbation id as role.
ORIGINAL = Role.ORIGINAL.value


@dataclass(frozen=True)
class SamplingParams:
    """Generation settings of one request; part of the cache key."""

    temperature: float
    max_tokens: int
    logprobs: bool = False
    top_logprobs: int = 0
    seed: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "logprobs": self.logprobs,
            "top_logprobs": self.top_logprobs,
            "seed": self.seed,
        }


@dataclass(frozen=True)
class JudgeRequest:
    """One request: a rendered prompt for one text, one metric and one repeat.

    The metadata (dataset, item, metric, role, severity, text, context) lets built-in judges work
    without a prompt; endpoint backends only read ``prompt`` and ``sampling``.
    """

    dataset: str
    item_id: str
    metric: str
    role: str  # ORIGINAL or a perturbation id
    text: str
    context: Mapping[str, str | None]
    prompt: str
    sampling: SamplingParams
    repeat: int = 0
    severity: str | None = None  # the perturbation's severity; None for originals
    scale: tuple[int, int] = (1, 5)
    metric_label: str = ""

    @property
    def group(self) -> str:
        """Requests of one group share a prompt prefix (same item and metric)."""
        return f"{self.dataset}|{self.item_id}|{self.metric}"

    def cache_key(self, judge: str, model: str | None) -> str:
        """Content address: judge, endpoint model, prompt, sampling parameters, repeat index."""
        payload = json.dumps(
            {
                "judge": judge,
                "model": model,
                "prompt": self.prompt,
                "sampling": self.sampling.to_dict(),
                "repeat": self.repeat,
            },
            sort_keys=True,
            ensure_ascii=False,
        )
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()


# ---------------------------------------------------------------------------------------------
# Outputs
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TokenAlternatives:
    """One generated token with its log-probability and the top alternatives at that position."""

    token: str
    logprob: float
    top: tuple[tuple[str, float], ...]  # (token text, logprob), best first


@dataclass(frozen=True)
class RawText:
    """Generated text; ``tokens`` is None when the endpoint returned no log-probabilities."""

    text: str
    tokens: tuple[TokenAlternatives, ...] | None = None
    finish_reason: str | None = None


@dataclass(frozen=True)
class ScoreDistribution:
    """Probabilities over score values (not necessarily normalised; invalid values are ignored)."""

    probs: tuple[tuple[float, float], ...]  # (score value, probability)

    @classmethod
    def point(cls, value: float) -> ScoreDistribution:
        return cls(((float(value), 1.0),))


JudgeOutput = RawText | ScoreDistribution


@dataclass(frozen=True)
class ParsedScore:
    value: float
    detail: str = ""  # how it was read, e.g. "fraction", "expected over 3 tokens (mass 0.97)"


@dataclass(frozen=True)
class Unparsed:
    """An output that yields no score. ``reason`` is a short stable code, ``raw`` the output."""

    reason: str
    raw: str = ""


@dataclass(frozen=True)
class RequestFailure:
    """A request that got no output at all (after retries): network, server or request error."""

    reason: str
    message: str = field(default="", compare=False)


def output_to_json(out: JudgeOutput) -> str:
    if isinstance(out, ScoreDistribution):
        return json.dumps({"kind": "distribution", "probs": [list(p) for p in out.probs]})
    tokens = (
        None
        if out.tokens is None
        else [{"token": t.token, "logprob": t.logprob, "top": [list(a) for a in t.top]} for t in out.tokens]
    )
    return json.dumps(
        {"kind": "text", "text": out.text, "tokens": tokens, "finish_reason": out.finish_reason},
        ensure_ascii=False,
    )


def output_from_json(text: str) -> JudgeOutput:
    d = json.loads(text)
    if not isinstance(d, Mapping):
        raise ValueError("a cached judge output must be a JSON object")
    if d.get("kind") == "distribution":
        return ScoreDistribution(tuple((float(s), float(p)) for s, p in d["probs"]))
    if d.get("kind") == "text":
        toks = d.get("tokens")
        return RawText(
            text=str(d["text"]),
            tokens=None
            if toks is None
            else tuple(
                TokenAlternatives(
                    token=str(t["token"]),
                    logprob=float(t["logprob"]),
                    top=tuple((str(a), float(b)) for a, b in t["top"]),
                )
                for t in toks
            ),
            finish_reason=d.get("finish_reason"),
        )
    raise ValueError(f"unknown cached output kind {d.get('kind')!r}")


class Judge(Protocol):
    """One judge backend (one replica): a single async method, nothing else.

    Retries, caching, timeouts, concurrency and replica choice live once in
    :class:`dhp.scoring.pool.JudgePool`, never in a backend. A backend raises the errors below.
    """

    label: str  # for logs and results: "random", "127.0.0.1:8080", "local:/path" (never a key)

    async def __call__(self, request: JudgeRequest) -> JudgeOutput: ...

    async def aclose(self) -> None: ...


# ---------------------------------------------------------------------------------------------
# Errors raised by backends (classified once, handled once in dhp.scoring.pool)
# ---------------------------------------------------------------------------------------------
class JudgeError(Exception):
    """Base class of judge errors. ``reason`` is a short stable code for accounting."""

    def __init__(self, reason: str, message: str = "") -> None:
        super().__init__(f"{reason}: {message}" if message else reason)
        self.reason = reason
        self.message = message


class TransientJudgeError(JudgeError):
    """Worth retrying: 429, 5xx, timeouts, reset connections, truncated or invalid JSON."""

    def __init__(self, reason: str, message: str = "", retry_after: float | None = None) -> None:
        super().__init__(reason, message)
        self.retry_after = retry_after


class PermanentJudgeError(JudgeError):
    """This request cannot succeed (e.g. 400 or 422: prompt too long); other requests may."""


class FatalJudgeError(JudgeError):
    """No request can succeed (401/403 unauthorised, 404 wrong URL): the run stops."""


class CapabilityError(JudgeError):
    """The endpoint cannot do what the scoring mode needs (e.g. no log-probabilities): the run stops."""
