"""Endpoint backends on one lean aiohttp path: OpenAI-compatible chat and TGI's ``/generate``.

* :class:`OpenAIChat` — ``POST {base}/v1/chat/completions`` with ``logprobs``/``top_logprobs``:
  what TGI, vLLM, SGLang, llama.cpp and ``transformers serve`` all serve. The primary path.
* :class:`TGIGenerate` — TGI's native ``POST {base}/generate`` with ``details`` and ``top_n_tokens``.

The hot path is kept close to a bare aiohttp loop: one ``aiohttp.ClientSession`` per replica with a
connection pool sized to the run's concurrency and kept alive, request bodies encoded once with
``orjson``, responses decoded with ``orjson`` and only the fields the scorer uses read, headers
built once. Retries, timeouts, caching and concurrency are the pool's (:mod:`dhp.inference.pool`).

Backends only translate: prompt and sampling parameters in, :class:`RawText` out, every failure
classified once into a transient, permanent or fatal :class:`~dhp.inference.types.JudgeError`.
Bodies that are not JSON (a proxy's login page, an HTML error page) are summarised in one line
(:func:`body_summary`), never printed; a 200 answer that is not JSON at all is not the judge's API,
so it stops the run at once (:class:`FatalJudgeError` ``not-json``) rather than being retried.
Silent degradation is refused: an OpenAI-compatible server that ignores ``logprobs`` answers
``RawText(tokens=None)`` (the runner then refuses ``--mode expected``), and a server that rejects
TGI's ``details`` is not TGI (:class:`CapabilityError`).

API keys: given by the caller (the scorer reads ``DHP_JUDGE_API_KEY``, else ``HF_TOKEN``; the
perturber ``DHP_PERTURBER_API_KEY``, else ``HF_TOKEN``). Without one, no ``Authorization`` header
is sent. Nothing here consults the Hub, so ``HF_HUB_OFFLINE=1`` does not stop a loopback endpoint.
"""

from __future__ import annotations

import asyncio
import email.utils
import math
import re
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import orjson

from dhp.inference.types import (
    CapabilityError,
    FatalJudgeError,
    JudgeError,
    JudgeOutput,
    PermanentJudgeError,
    RawText,
    Request,
    TokenAlternatives,
    TokenUsage,
    TransientJudgeError,
)
from dhp.types import TGI_MAX_TOP_N_TOKENS, EndpointProtocol

__all__ = [
    "OpenAIChat",
    "TGIGenerate",
    "body_summary",
    "discover_model",
    "host_label",
    "make_endpoint_backend",
    "parse_retry_after",
]

_MESSAGE_CHARS = 300


def host_label(url: str) -> str:
    """``host:port`` of a URL: what logs and results may show (never a path, query or key)."""
    parts = urlsplit(url)
    host = parts.hostname or "?"
    return f"{host}:{parts.port}" if parts.port else host


def server_root(url: str) -> str:
    """The server's root URL: trailing ``/`` and ``/v1`` removed (``http://h:8080/v1`` -> ``http://h:8080``)."""
    base = url.rstrip("/")
    return base[: -len("/v1")] if base.endswith("/v1") else base


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


_TITLE = re.compile(rb"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)


def body_summary(raw: bytes, content_type: str | None = None) -> str:
    """One line saying what a body that is not JSON holds: an HTML page and its title, or its first words."""
    head = raw[:200].lstrip().lower()
    if "html" in (content_type or "").lower() or head.startswith((b"<!doctype html", b"<html")):
        m = _TITLE.search(raw[:65536])
        title = " ".join(m.group(1).decode("utf-8", "replace").split())[:80] if m else ""
        return f"an HTML page{f' titled {title!r}' if title else ''} ({len(raw):,} bytes)"
    flat = " ".join(raw[:1000].decode("utf-8", "replace").split())
    if not flat:
        return "an empty body"
    return f"text {flat[:120]!r}{'...' if len(flat) > 120 else ''} ({len(raw):,} bytes)"


def _error_message(raw: bytes, content_type: str | None = None) -> str:
    """The server's error message: OpenAI's ``error.message``, TGI's ``error``, or what the body is."""
    try:
        doc = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return body_summary(raw, content_type)
    if isinstance(doc, Mapping):
        err = doc.get("error", doc.get("detail", doc.get("message")))
        if isinstance(err, Mapping):
            err = err.get("message", err)
        if err is not None:
            return str(err)[:_MESSAGE_CHARS]
    return str(doc)[:_MESSAGE_CHARS]


def http_error(status: int, message: str, retry_after: float | None) -> JudgeError:
    """A non-200 answer, classified: retry (429, 408, 5xx), stop the run (401/403/404/405), or fail one request."""
    msg = message[:_MESSAGE_CHARS]
    reason = f"http-{status}"
    if status == 429 or status == 408 or status >= 500:
        return TransientJudgeError(reason, msg, retry_after=retry_after)
    if status in (401, 403):
        return FatalJudgeError(reason, "the endpoint refused the credentials (set the API key variable)")
    if status in (404, 405):
        return FatalJudgeError(reason, f"no such route on the endpoint (wrong URL or --protocol?): {msg}")
    return PermanentJudgeError(reason, msg)


def _bad_response(what: str) -> TransientJudgeError:
    return TransientJudgeError("bad-response", what)


class _Client:
    """One keep-alive connection pool to one server, created on first use inside the running loop."""

    def __init__(self, api_key: str | None, timeout: float, connections: int) -> None:
        self._headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"
        self._timeout = timeout
        self._connections = max(1, connections)
        self._session: aiohttp.ClientSession | None = None

    def _open(self) -> aiohttp.ClientSession:
        connector = aiohttp.TCPConnector(limit=self._connections, keepalive_timeout=60.0, ttl_dns_cache=300)
        self._session = aiohttp.ClientSession(
            connector=connector,
            timeout=aiohttp.ClientTimeout(total=self._timeout),
            cookie_jar=aiohttp.DummyCookieJar(),
            headers=self._headers,  # the session's defaults: nothing to merge per request
        )
        return self._session

    async def get(self, url: str) -> tuple[int, bytes]:
        session = self._session or self._open()
        async with session.get(url) as resp:
            return resp.status, await resp.read()

    async def post(self, url: str, body: Mapping[str, Any]) -> Any:
        """POST a JSON body; the decoded JSON answer, or a classified :class:`JudgeError`."""
        session = self._session or self._open()
        try:
            async with session.post(url, data=orjson.dumps(body)) as resp:
                raw = await resp.read()
                ctype = resp.headers.get("Content-Type")
                if resp.status != 200:
                    raise http_error(
                        resp.status,
                        _error_message(raw, ctype),
                        parse_retry_after(resp.headers.get("Retry-After")),
                    )
        except aiohttp.ClientPayloadError as e:
            raise TransientJudgeError("bad-json", f"truncated body: {e}"[:_MESSAGE_CHARS]) from e
        except (aiohttp.ClientConnectionError, aiohttp.ClientResponseError) as e:
            raise TransientJudgeError("connection", f"{type(e).__name__}: {e}"[:_MESSAGE_CHARS]) from e
        except asyncio.TimeoutError as e:  # aiohttp's own deadline (the pool's usually fires first)
            raise TransientJudgeError("timeout", f"no answer within {self._timeout:g} s") from e
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError as e:
            if not raw.strip() or raw.lstrip()[:1] in (
                b"{",
                b"[",
            ):  # JSON cut short or damaged: worth a retry
                raise TransientJudgeError("bad-json", str(e)[:_MESSAGE_CHARS]) from e
            raise FatalJudgeError(
                "not-json",
                f"{host_label(url)}{urlsplit(url).path} answered {body_summary(raw, ctype)} instead of JSON: "
                "is the URL the judge's API?",
            ) from e

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None


def _top(alternatives: Any, token_key: str) -> tuple[tuple[str, float], ...]:
    return tuple((str(t[token_key]), float(t["logprob"])) for t in alternatives or ())


def _count(value: Any) -> int | None:
    """A token count as reported (a non-negative int), else None: a count is never guessed."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def openai_usage(doc: Any) -> TokenUsage | None:
    """``usage.prompt_tokens`` / ``usage.completion_tokens`` of an OpenAI-compatible answer; None when absent."""
    usage = doc.get("usage") if isinstance(doc, Mapping) else None
    if not isinstance(usage, Mapping):
        return None
    u = TokenUsage(_count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens")))
    return None if u.prompt is None and u.completion is None else u


def tgi_usage(details: Any) -> TokenUsage | None:
    """TGI's ``details``: ``generated_tokens`` (completion) and, when the input details were asked
    for, the ``prefill`` tokens (prompt); None without details (TGI reports nothing else)."""
    if not isinstance(details, Mapping):
        return None
    prefill = details.get("prefill")
    u = TokenUsage(
        len(prefill) if isinstance(prefill, list) and prefill else None,
        _count(details.get("generated_tokens")),
    )
    return None if u.prompt is None and u.completion is None else u


class OpenAIChat:
    """``/v1/chat/completions``: one user message holding the rendered prompt."""

    def __init__(
        self,
        base_url: str,
        model: str | None,
        api_key: str | None,
        timeout: float = 120.0,
        connections: int = 8,
    ) -> None:
        self.label = host_label(base_url)
        self.model = model
        self._url = server_root(base_url) + "/v1/chat/completions"
        self._client = _Client(api_key, timeout, connections)

    def body(self, request: Request) -> dict[str, Any]:
        s = request.sampling
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": "user", "content": request.prompt}],
            "max_tokens": s.max_tokens,
            "temperature": s.temperature,
        }
        if s.top_p is not None:
            body["top_p"] = s.top_p
        if s.seed is not None:
            body["seed"] = s.seed
        if s.logprobs:
            body["logprobs"] = True
            body["top_logprobs"] = s.top_logprobs
        return body

    async def __call__(self, request: Request) -> JudgeOutput:
        doc = await self._client.post(self._url, self.body(request))
        try:
            choice = doc["choices"][0]
            text = choice["message"].get("content") or ""
            finish = choice.get("finish_reason")
            lp = choice.get("logprobs") if request.sampling.logprobs else None
            content = lp.get("content") if isinstance(lp, Mapping) else None
            tokens = (
                None
                if content is None
                else tuple(
                    TokenAlternatives(
                        str(c["token"]), float(c["logprob"]), _top(c.get("top_logprobs"), "token")
                    )
                    for c in content
                )
            )
        except (AttributeError, IndexError, KeyError, TypeError, ValueError) as e:
            raise _bad_response(
                f"an unexpected chat completion ({type(e).__name__}: {e})"[:_MESSAGE_CHARS]
            ) from e
        return RawText(
            text=str(text),
            tokens=tokens,
            finish_reason=None if finish is None else str(finish),
            usage=openai_usage(doc),
        )

    async def aclose(self) -> None:
        await self._client.aclose()


class TGIGenerate:
    """TGI's native ``/generate``; ``details`` and ``top_n_tokens`` when log-probabilities are asked for."""

    def __init__(
        self,
        base_url: str,
        model: str | None,
        api_key: str | None,
        timeout: float = 120.0,
        connections: int = 8,
    ) -> None:
        self.label = host_label(base_url)
        self.model = model
        self._url = server_root(base_url) + "/generate"
        self._client = _Client(api_key, timeout, connections)

    def body(self, request: Request) -> dict[str, Any]:
        s = request.sampling
        params: dict[str, Any] = {"max_new_tokens": s.max_tokens}
        if s.temperature > 0:
            params.update(do_sample=True, temperature=s.temperature)
        else:
            params["do_sample"] = False  # TGI refuses temperature 0: greedy decoding instead
        if s.top_p is not None:
            params["top_p"] = s.top_p
        if s.seed is not None:
            params["seed"] = s.seed
        if s.logprobs:
            params["details"] = True
            params["top_n_tokens"] = max(1, min(s.top_logprobs, TGI_MAX_TOP_N_TOKENS))
        return {"inputs": request.prompt, "parameters": params}

    async def __call__(self, request: Request) -> JudgeOutput:
        try:
            doc = await self._client.post(self._url, self.body(request))
        except PermanentJudgeError as e:
            if request.sampling.logprobs and "model_kwargs" in e.message:
                raise CapabilityError(
                    "not-tgi",
                    f"{self.label} rejects TGI's details/top_n_tokens (not a TGI server?), so it returns no "
                    "token log-probabilities: use --protocol openai, or --mode sample / --mode paper",
                ) from e
            raise
        try:
            out = doc[0] if isinstance(doc, list) else doc  # non-TGI servers answer a list
            text = out["generated_text"]
            details = out.get("details") if request.sampling.logprobs else None
            tokens: tuple[TokenAlternatives, ...] | None = None
            finish = None
            if isinstance(details, Mapping):
                finish = details.get("finish_reason")
                top = details.get("top_tokens") or ()
                tokens = tuple(
                    TokenAlternatives(
                        str(t["text"]), float(t["logprob"]), _top(top[i] if i < len(top) else (), "text")
                    )
                    for i, t in enumerate(details["tokens"])
                )
        except (AttributeError, IndexError, KeyError, TypeError, ValueError) as e:
            raise _bad_response(f"an unexpected generation ({type(e).__name__}: {e})"[:_MESSAGE_CHARS]) from e
        if not isinstance(text, str):
            raise _bad_response("a generation without generated_text")
        return RawText(
            text=text,
            tokens=tokens,
            finish_reason=None if finish is None else str(finish),
            usage=tgi_usage(details),
        )

    async def aclose(self) -> None:
        await self._client.aclose()


def make_endpoint_backend(
    url: str,
    *,
    protocol: EndpointProtocol | str,
    model: str | None,
    api_key: str | None,
    timeout: float = 120.0,
    connections: int = 8,
) -> OpenAIChat | TGIGenerate:
    proto = EndpointProtocol(protocol)
    if proto is EndpointProtocol.OPENAI:
        return OpenAIChat(url, model, api_key, timeout, connections)
    return TGIGenerate(url, model, api_key, timeout, connections)


async def discover_model(
    base_url: str,
    protocol: EndpointProtocol | str,
    api_key: str | None,
    timeout: float = 30.0,
    flag: str = "--model",
) -> str:
    """The one model-discovery rule: the single model ``/v1/models`` lists, or TGI's ``/info`` ``model_id``.

    An endpoint serving several models (or none) is refused: name one with ``flag``, never the first taken.
    """
    proto = EndpointProtocol(protocol)
    root = server_root(base_url)
    where = host_label(base_url)
    url = root + ("/info" if proto is EndpointProtocol.TGI else "/v1/models")
    client = _Client(api_key, timeout, 1)
    try:
        status, raw = await client.get(url)
    except (aiohttp.ClientError, asyncio.TimeoutError) as e:
        raise FatalJudgeError("unreachable", f"{where}: {type(e).__name__}: {e}"[:_MESSAGE_CHARS]) from e
    finally:
        await client.aclose()
    if status == 404 and proto is EndpointProtocol.TGI:
        raise CapabilityError("not-tgi", f"{where} has no /info: not a TGI server? Use --protocol openai")
    if status != 200:
        raise FatalJudgeError(
            f"http-{status}", f"cannot list the models of {where}; pass {flag} (status {status})"
        )
    try:
        doc = orjson.loads(raw)
    except orjson.JSONDecodeError as e:
        raise FatalJudgeError(
            "not-json",
            f"{where}{urlsplit(url).path} answered {body_summary(raw)} instead of JSON: is it the "
            "judge's API?",
        ) from e
    if proto is EndpointProtocol.TGI:
        model_id = doc.get("model_id") if isinstance(doc, Mapping) else None
        if not isinstance(model_id, str) or not model_id:
            raise CapabilityError("not-tgi", f"{where}/info has no model_id: not a TGI server?")
        return model_id
    data = doc.get("data") if isinstance(doc, Mapping) else None
    ids = [m.get("id") for m in data if isinstance(m, Mapping)] if isinstance(data, list) else []
    names = [i for i in ids if isinstance(i, str) and i]
    if len(names) != 1:
        raise FatalJudgeError(
            "model-unknown", f"{where} serves {len(names)} models {names[:5]}: choose one with {flag}"
        )
    return names[0]
