"""The inference layer's vocabulary: sampling settings, outputs, requests, backends and errors.

A *backend* (:class:`Backend`) turns one request into one :data:`JudgeOutput`:

* :class:`RawText` — what an endpoint generated, with the top log-probabilities per generated
  token when the endpoint returned them (``tokens is None`` means it did not), or
* :class:`ScoreDistribution` — probabilities over score values (an in-process model's exact
  next-token probabilities, or a built-in control judge's point mass).

Any object with a ``prompt``, ``sampling``, ``group`` and ``cache_key`` is a request
(:class:`Request`): the scorer's :class:`dhp.scoring.judge_io.JudgeRequest` and the builder's
:class:`Generation`. Backends raise the errors below, classified once; the pool
(:mod:`dhp.inference.pool`) handles them once. Nothing in this module does I/O.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import orjson

__all__ = [
    "Backend",
    "CapabilityError",
    "FatalJudgeError",
    "Generation",
    "InferenceError",
    "JudgeError",
    "JudgeOutput",
    "PermanentJudgeError",
    "RawText",
    "Request",
    "RequestFailure",
    "SamplingParams",
    "ScoreDistribution",
    "ScoringRequest",
    "TokenAlternatives",
    "TokenUsage",
    "TransientJudgeError",
    "content_key",
    "escaped_content_key",
    "output_from_json",
    "output_to_json",
    "token_score",
]


@dataclass(frozen=True)
class SamplingParams:
    """Generation settings of one request; part of the cache key."""

    temperature: float
    max_tokens: int
    logprobs: bool = False
    top_logprobs: int = 0
    seed: int | None = None
    top_p: float | None = None  # None: the server's default (and absent from the cache key)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "logprobs": self.logprobs,
            "top_logprobs": self.top_logprobs,
            "seed": self.seed,
        }
        if self.top_p is not None:
            d["top_p"] = self.top_p
        return d


def _key_payload(judge: str, model: str | None, prompt: str, sampling: SamplingParams, repeat: int) -> str:
    """The JSON the content address hashes (``json.dumps(..., sort_keys=True, ensure_ascii=False)``)."""
    return json.dumps(
        {"judge": judge, "model": model, "prompt": prompt, "sampling": sampling.to_dict(), "repeat": repeat},
        sort_keys=True,
        ensure_ascii=False,
    )


@functools.lru_cache(maxsize=256)
def _sampling_json(sampling: SamplingParams) -> str:
    return json.dumps(sampling.to_dict(), sort_keys=True, ensure_ascii=False)


def content_key(judge: str, model: str | None, prompt: str, sampling: SamplingParams, repeat: int = 0) -> str:
    """The content address of a request: SHA-256 over (judge, model, prompt, sampling, repeat).

    The hashed text is exactly :func:`_key_payload`'s, so cache files stay valid across versions;
    it is assembled with ``orjson`` (which escapes strings as ``json.dumps(ensure_ascii=False)``
    does, several times faster on long prompts) and falls back to ``json`` where orjson refuses
    (strings holding lone surrogates).
    """
    try:
        return escaped_content_key(judge, model, (orjson.dumps(prompt),), sampling, repeat)
    except orjson.JSONEncodeError:
        payload = _key_payload(judge, model, prompt, sampling, repeat).encode("utf-8", "surrogatepass")
    return hashlib.sha256(payload).hexdigest()


def escaped_content_key(
    judge: str, model: str | None, prompt_json: Iterable[bytes], sampling: SamplingParams, repeat: int = 0
) -> str:
    """:func:`content_key` of the prompt whose JSON string (quotes included, escaped as ``orjson.dumps``
    escapes it) is the concatenation of ``prompt_json``: JSON escapes each character on its own, so
    a prompt made of parts escaped once each (a template's text, an item's context) is addressed
    without being rendered. Raises ``orjson.JSONEncodeError`` where orjson refuses ``judge`` or ``model``.
    """
    h = hashlib.sha256(
        b'{"judge": ' + orjson.dumps(judge) + b', "model": ' + orjson.dumps(model) + b', "prompt": '
    )
    for part in prompt_json:
        h.update(part)
    h.update(
        b', "repeat": '
        + str(int(repeat)).encode()
        + b', "sampling": '
        + _sampling_json(sampling).encode()
        + b"}"
    )
    return h.hexdigest()


class Request(Protocol):
    """What the pool and the HTTP backends read of a request."""

    @property
    def prompt(self) -> str: ...

    @property
    def sampling(self) -> SamplingParams: ...

    @property
    def group(self) -> str:
        """Requests of one group share a prompt prefix: the pool keeps them on one replica."""
        ...

    def cache_key(self, judge: str, model: str | None) -> str: ...


class ScoringRequest(Request, Protocol):
    """A request that says what it scores (the scorer's :class:`dhp.scoring.judge_io.JudgeRequest`): what
    the built-in control judges and the in-process model read beyond the prompt."""

    @property
    def dataset(self) -> str: ...

    @property
    def item_id(self) -> str: ...

    @property
    def metric(self) -> str: ...

    @property
    def role(self) -> str: ...

    @property
    def text(self) -> str: ...

    @property
    def context(self) -> Mapping[str, str | None]: ...

    @property
    def repeat(self) -> int: ...

    @property
    def severity(self) -> str | None: ...

    @property
    def scale(self) -> tuple[int, int]: ...


@dataclass(frozen=True)
class Generation:
    """A plain generation request (the builder's LLM perturber): one user message, no metadata."""

    prompt: str
    sampling: SamplingParams
    group: str = ""

    def cache_key(self, judge: str, model: str | None) -> str:
        return content_key(judge, model, self.prompt, self.sampling)


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
class TokenUsage:
    """Tokens one answer cost, as the endpoint reported them (None: that count was not reported)."""

    prompt: int | None = None
    completion: int | None = None


@dataclass(frozen=True)
class RawText:
    """Generated text; ``tokens`` is None when the endpoint returned no log-probabilities.

    ``usage``: the tokens the endpoint said this answer cost (None when it said nothing); not part
    of the answer's identity (left out of comparisons) and not cached: a cached answer cost nothing."""

    text: str
    tokens: tuple[TokenAlternatives, ...] | None = None
    finish_reason: str | None = None
    usage: TokenUsage | None = field(default=None, compare=False)


@dataclass(frozen=True)
class ScoreDistribution:
    """Probabilities over score values (not necessarily normalised; invalid values are ignored)."""

    probs: tuple[tuple[float, float], ...]  # (score value, probability)

    @classmethod
    def point(cls, value: float) -> ScoreDistribution:
        return cls(((float(value), 1.0),))


def token_score(token: str, scale: tuple[int, int] = (1, 5)) -> int | None:
    """The score a token stands for (``"4"``, ``" 4"``, ``"▁4"``, ``"Ġ4"``), or None."""
    t = token.replace("▁", " ").replace("Ġ", " ").replace("Ċ", "\n").strip()
    if not t.isdigit() or len(t) > 2:
        return None
    v = int(t)
    return v if scale[0] <= v <= scale[1] else None


JudgeOutput = RawText | ScoreDistribution


@dataclass(frozen=True)
class RequestFailure:
    """A request that got no output at all (after retries): network, server or request error."""

    reason: str
    message: str = field(default="", compare=False)


def output_to_json(out: JudgeOutput) -> str:
    """An output as JSON (orjson: the cache writes one per answer); :func:`output_from_json` reads it."""
    if isinstance(out, ScoreDistribution):
        return orjson.dumps({"kind": "distribution", "probs": out.probs}).decode("utf-8")
    tokens = (
        None
        if out.tokens is None
        else [{"token": t.token, "logprob": t.logprob, "top": t.top} for t in out.tokens]
    )
    doc = {"kind": "text", "text": out.text, "tokens": tokens, "finish_reason": out.finish_reason}
    try:
        return orjson.dumps(doc).decode("utf-8")
    except orjson.JSONEncodeError:  # lone surrogates in a model's text
        return json.dumps(doc, ensure_ascii=True)


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


R_contra = TypeVar("R_contra", contravariant=True)


class Backend(Protocol[R_contra]):
    """One backend (one replica of a judge or generator): a single async method, nothing else.

    Retries, caching, timeouts, concurrency and replica choice live once in
    :class:`dhp.inference.pool.Pool`, never in a backend. A backend raises the errors below.
    """

    label: str  # for logs and results: "random", "127.0.0.1:8080", "local:/path" (never a key)

    async def __call__(self, request: R_contra, /) -> JudgeOutput: ...

    async def aclose(self) -> None: ...


# ---------------------------------------------------------------------------------------------
# Errors raised by backends (classified once, handled once in dhp.inference.pool)
# ---------------------------------------------------------------------------------------------
class InferenceError(Exception):
    """Base class of the errors of a backend or the pool, a judge's or a generator's (the builder's
    perturber). ``reason`` is a short stable code for accounting."""

    def __init__(self, reason: str, message: str = "") -> None:
        super().__init__(f"{reason}: {message}" if message else reason)
        self.reason = reason
        self.message = message
        #: words of the server's answer a backend classifies by (e.g. TGI's ``model_kwargs``); never shown
        self.mentions: frozenset[str] = frozenset()


class JudgeError(InferenceError):
    """An error of a judge's or generator's backend, classified once: the classes below."""


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
