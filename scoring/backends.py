"""Endpoint judges through ``huggingface_hub.AsyncInferenceClient``: one async call each.

* :class:`OpenAIChatJudge` — ``POST /v1/chat/completions`` with ``logprobs``/``top_logprobs``: what
  TGI, vLLM, SGLang, llama.cpp and ``transformers serve`` all serve. The primary path.
* :class:`TGIGenerateJudge` — TGI's native ``POST /generate`` with ``details`` and ``top_n_tokens``.

Backends only translate: prompt and sampling parameters in, :class:`RawText` out, every failure
classified once (:func:`classify_error`) into a transient, permanent or fatal
:class:`~dhp.scoring.types.JudgeError`. Retries, timeouts, caching and concurrency are the pool's.

Silent degradation is refused, not tolerated. ``AsyncInferenceClient.text_generation`` drops
``details``/``top_n_tokens`` when a server is not TGI and returns bare text, and OpenAI-compatible
servers may ignore ``logprobs`` (``transformers serve`` does). Both surface here as
``RawText(tokens=None)``, which the runner turns into a :class:`CapabilityError` whenever the
scoring mode needs log-probabilities.

API keys: given by the caller (read from ``DHP_JUDGE_API_KEY``, else ``HF_TOKEN``). Without one,
no ``Authorization`` header is sent at all: the client would otherwise send the machine's stored
Hugging Face token to whatever URL it is given.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import math
import time
from collections.abc import Mapping
from typing import Any, cast
from urllib.parse import urlsplit

import httpx2
from huggingface_hub import AsyncInferenceClient
from huggingface_hub.errors import (
    HfHubHTTPError,
    InferenceTimeoutError,
    OfflineModeIsEnabled,
    OverloadedError,
    TextGenerationError,
    ValidationError,
)

from dhp.scoring.types import (
    CapabilityError,
    FatalJudgeError,
    JudgeError,
    JudgeOutput,
    JudgeRequest,
    PermanentJudgeError,
    RawText,
    TokenAlternatives,
    TransientJudgeError,
)
from dhp.types import TGI_MAX_TOP_N_TOKENS

__all__ = [
    "TGI_MAX_TOP_N_TOKENS",
    "OpenAIChatJudge",
    "TGIGenerateJudge",
    "classify_error",
    "discover_model",
    "host_label",
    "make_endpoint_judge",
    "parse_retry_after",
]

_MESSAGE_CHARS = 300


def host_label(url: str) -> str:
    """``host:port`` of a URL: what logs and results may show (never a path, query or key)."""
    parts = urlsplit(url)
    host = parts.hostname or "?"
    return f"{host}:{parts.port}" if parts.port else host


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: delta-seconds or an HTTP date."""
    if value is None or not value.strip():
        return None
    v = value.strip()
    try:
        secs = float(v)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(v)
        except (TypeError, ValueError):
            return None
        secs = when.timestamp() - (time.time() if now is None else now)
    if not math.isfinite(secs):
        return None
    return max(0.0, secs)


def _headers(api_key: str | None) -> dict[str, str]:
    # A None value removes the Authorization header the client would build from the stored token.
    return {} if api_key else cast(dict[str, str], {"authorization": None})


def _http_error(status: int, message: str, retry_after: float | None) -> JudgeError:
    msg = message[:_MESSAGE_CHARS]
    reason = f"http-{status}"
    if status == 429 or status == 408 or status >= 500:
        return TransientJudgeError(reason, msg, retry_after=retry_after)
    if status in (401, 403):
        return FatalJudgeError(reason, "the endpoint refused the credentials (set DHP_JUDGE_API_KEY)")
    if status in (404, 405):
        return FatalJudgeError(reason, f"no such route on the endpoint (wrong URL or --protocol?): {msg}")
    return PermanentJudgeError(reason, msg)


def classify_error(exc: BaseException) -> JudgeError:
    """Map a client exception to a transient, permanent or fatal :class:`JudgeError`."""
    if isinstance(exc, JudgeError):
        return exc
    if isinstance(exc, OfflineModeIsEnabled):
        return FatalJudgeError(
            "offline-mode",
            "HF_HUB_OFFLINE is set, and huggingface_hub's client then refuses every URL, the judge "
            "endpoint included: unset HF_HUB_OFFLINE for dhp score (local --data folders need no Hub)",
        )
    if isinstance(exc, TextGenerationError):
        cause = exc.__cause__
        if isinstance(exc, OverloadedError):
            ra = cause.response.headers.get("retry-after") if isinstance(cause, HfHubHTTPError) else None
            return TransientJudgeError("overloaded", str(exc)[:_MESSAGE_CHARS], parse_retry_after(ra))
        if isinstance(cause, HfHubHTTPError):
            return classify_error(cause)
        if isinstance(exc, ValidationError):
            return PermanentJudgeError("validation", str(exc)[:_MESSAGE_CHARS])
        return TransientJudgeError("generation", str(exc)[:_MESSAGE_CHARS])
    if isinstance(exc, HfHubHTTPError):
        resp = exc.response
        return _http_error(
            resp.status_code, exc.server_message or str(exc), parse_retry_after(resp.headers.get("retry-after"))
        )
    if isinstance(exc, (InferenceTimeoutError, httpx2.TimeoutException, asyncio.TimeoutError)):
        return TransientJudgeError("timeout", str(exc)[:_MESSAGE_CHARS])
    if isinstance(exc, httpx2.TransportError):
        return TransientJudgeError("connection", f"{type(exc).__name__}: {exc}"[:_MESSAGE_CHARS])
    if isinstance(exc, (json.JSONDecodeError, UnicodeDecodeError)):
        return TransientJudgeError("bad-json", str(exc)[:_MESSAGE_CHARS])
    raise TypeError(f"unclassified judge error {type(exc).__name__}: {exc}") from exc


def _bad_response(what: str) -> TransientJudgeError:
    return TransientJudgeError("bad-response", what)


def _get(obj: Any, name: str) -> Any:
    """A field of a parsed response object, or of a plain dict (nested lists stay dicts)."""
    if isinstance(obj, Mapping):
        return obj[name]
    return getattr(obj, name)


# ---------------------------------------------------------------------------------------------
async def discover_model(base_url: str, protocol: str, api_key: str | None, timeout: float = 30.0) -> str:
    """The model an endpoint serves: ``/v1/models`` (one model) or TGI's ``/info`` ``model_id``."""
    base = base_url.rstrip("/")
    if protocol == "tgi":
        url = base + "/info"
    else:
        url = (base + "/models") if base.endswith("/v1") else (base + "/v1/models")
    headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        async with httpx2.AsyncClient(timeout=timeout) as client:
            resp = await client.get(url, headers=headers)
    except httpx2.HTTPError as e:
        raise FatalJudgeError("unreachable", f"{host_label(base_url)}: {type(e).__name__}: {e}") from e
    if resp.status_code == 404 and protocol == "tgi":
        raise CapabilityError("not-tgi", f"{host_label(base_url)} has no /info: not a TGI server? Use --protocol openai")
    if resp.status_code != 200:
        raise FatalJudgeError(
            f"http-{resp.status_code}",
            f"cannot list the models of {host_label(base_url)}; pass --model (status {resp.status_code})",
        )
    try:
        doc = resp.json()
    except ValueError as e:
        raise FatalJudgeError("bad-json", f"{url}: not JSON") from e
    if protocol == "tgi":
        model_id = doc.get("model_id") if isinstance(doc, Mapping) else None
        if not isinstance(model_id, str):
            raise CapabilityError("not-tgi", f"{host_label(base_url)}/info has no model_id: not a TGI server?")
        return model_id
    data = doc.get("data") if isinstance(doc, Mapping) else None
    ids = [m.get("id") for m in data if isinstance(m, Mapping)] if isinstance(data, list) else []
    names = [i for i in ids if isinstance(i, str)]
    if len(names) != 1:
        raise FatalJudgeError(
            "model-unknown", f"{host_label(base_url)} serves {len(names)} models {names[:5]}: choose one with --model"
        )
    return names[0]


class OpenAIChatJudge:
    """``/v1/chat/completions``: one user message holding the rendered prompt."""

    def __init__(self, base_url: str, model: str | None, api_key: str | None, timeout: float = 120.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.label = host_label(base_url)
        self.model = model
        self._client = AsyncInferenceClient(
            base_url=self.base_url, api_key=api_key or None, timeout=timeout, headers=_headers(api_key)
        )

    async def __call__(self, request: JudgeRequest) -> JudgeOutput:
        s = request.sampling
        kwargs: dict[str, Any] = {
            "model": self.model,
            "max_tokens": s.max_tokens,
            "temperature": s.temperature,
        }
        if s.seed is not None:
            kwargs["seed"] = s.seed
        if s.logprobs:
            kwargs["logprobs"] = True
            kwargs["top_logprobs"] = s.top_logprobs
        try:
            resp = await self._client.chat_completion(
                messages=[{"role": "user", "content": request.prompt}], stream=False, **kwargs
            )
        except Exception as e:  # classified, never swallowed: classify_error raises on the unknown
            raise classify_error(e) from e
        choices = getattr(resp, "choices", None)
        if not choices:
            raise _bad_response("a chat completion without choices")
        choice = choices[0]
        message = getattr(choice, "message", None)
        if message is None:
            raise _bad_response("a choice without a message")
        text = message.content or ""
        tokens: tuple[TokenAlternatives, ...] | None = None
        lp = getattr(choice, "logprobs", None)
        if s.logprobs and lp is not None and getattr(lp, "content", None) is not None:
            try:
                tokens = tuple(
                    TokenAlternatives(
                        token=str(_get(c, "token")),
                        logprob=float(_get(c, "logprob")),
                        top=tuple(
                            (str(_get(t, "token")), float(_get(t, "logprob"))) for t in (_get(c, "top_logprobs") or ())
                        ),
                    )
                    for c in lp.content
                )
            except (AttributeError, KeyError, TypeError, ValueError) as e:
                raise _bad_response(f"malformed logprobs ({e})") from e
        return RawText(text=text, tokens=tokens, finish_reason=getattr(choice, "finish_reason", None))

    async def aclose(self) -> None:
        await self._client.close()  # type: ignore[no-untyped-call]


class TGIGenerateJudge:
    """TGI's native ``/generate`` with ``details`` (and ``top_n_tokens`` for log-probabilities)."""

    def __init__(self, base_url: str, model: str | None, api_key: str | None, timeout: float = 120.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.label = host_label(base_url)
        self.model = model
        self._generate_url = self.base_url + "/generate"
        self._client = AsyncInferenceClient(api_key=api_key or None, timeout=timeout, headers=_headers(api_key))

    async def __call__(self, request: JudgeRequest) -> JudgeOutput:
        s = request.sampling
        kwargs: dict[str, Any] = {"max_new_tokens": s.max_tokens, "details": True}
        if s.temperature > 0:
            kwargs.update(do_sample=True, temperature=s.temperature)
        else:
            kwargs["do_sample"] = False  # TGI refuses temperature 0: greedy decoding instead
        if s.seed is not None:
            kwargs["seed"] = s.seed
        if s.logprobs:
            kwargs["top_n_tokens"] = max(1, min(s.top_logprobs, TGI_MAX_TOP_N_TOKENS))
        try:
            out = await self._client.text_generation(request.prompt, model=self._generate_url, stream=False, **kwargs)
        except Exception as e:  # classified, never swallowed
            raise classify_error(e) from e
        if isinstance(out, str):
            # the client dropped `details` (it decided the server is not TGI): text only
            return RawText(text=out, tokens=None)
        details = getattr(out, "details", None)
        text = getattr(out, "generated_text", None)
        if not isinstance(text, str):
            raise _bad_response("a generation without generated_text")
        if details is None:
            return RawText(text=text, tokens=None)
        tokens: tuple[TokenAlternatives, ...] | None = None
        top = getattr(details, "top_tokens", None)
        if s.logprobs and top:
            try:
                gen = list(details.tokens)
                tokens = tuple(
                    TokenAlternatives(
                        token=str(_get(tok, "text")),
                        logprob=float(_get(tok, "logprob")),
                        top=tuple(
                            (str(_get(t, "text")), float(_get(t, "logprob"))) for t in (top[i] if i < len(top) else ())
                        ),
                    )
                    for i, tok in enumerate(gen)
                )
            except (AttributeError, KeyError, TypeError, ValueError) as e:
                raise _bad_response(f"malformed details ({e})") from e
        finish = getattr(details, "finish_reason", None)
        return RawText(text=text, tokens=tokens, finish_reason=None if finish is None else str(finish))

    async def aclose(self) -> None:
        await self._client.close()  # type: ignore[no-untyped-call]


def make_endpoint_judge(
    url: str, *, protocol: str, model: str | None, api_key: str | None, timeout: float = 120.0
) -> OpenAIChatJudge | TGIGenerateJudge:
    if protocol == "openai":
        return OpenAIChatJudge(url, model, api_key, timeout)
    if protocol == "tgi":
        return TGIGenerateJudge(url, model, api_key, timeout)
    raise ValueError(f"unknown protocol {protocol!r}; valid: openai, tgi")
