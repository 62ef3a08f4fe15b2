"""Endpoint backends on one lean aiohttp path: OpenAI-compatible chat and TGI's ``/generate``.

* :class:`OpenAIChat` — ``POST {base}/v1/chat/completions`` with ``logprobs``/``top_logprobs``:
  what TGI, vLLM, SGLang, llama.cpp and ``transformers serve`` all serve. The primary path.
* :class:`TGIGenerate` — TGI's native ``POST {base}/generate`` with ``details`` and ``top_n_tokens``.

The hot path is kept close to a bare aiohttp loop: one ``aiohttp.ClientSession`` per replica with a
connection pool sized to the run's concurrency and kept alive, request bodies encoded once with
``orjson``, responses decoded with ``orjson`` and only the fields the scorer uses read, headers
built once. Retries, timeouts, caching and concurrency are the pool's (:mod:`dhp.inference.pool`).

Backends only translate: prompt and sampling parameters in, :class:`RawText` out, every failure
classified once into a transient, permanent or fatal :class:`~dhp.inference.protocol.InferenceError`.
Silent degradation is refused: an OpenAI-compatible server that ignores ``logprobs`` answers
``RawText(tokens=None)`` (the runner then refuses ``--mode expected``), and a server that rejects
TGI's ``details`` is not TGI (:class:`CapabilityError`).

What an endpoint sends is never quoted: an error or a body that is not JSON is described by its
status, content type and length (:func:`describe_answer`), never by its text, because a failure
reason is shown on the leaderboard's public Queue tab and the endpoint may be anyone's server (or,
through a DNS answer that changed, a private one). A 200 answer that is not JSON at all is not the
judge's API, so it stops the run at once (:class:`FatalJudgeError` ``not-json``). Redirects are not
followed (``allow_redirects=False``): only the submitted URL passed the leaderboard's address
check, so a 3xx answer stops the run (``redirect``) instead of taking the request elsewhere. Under
``DHP_PUBLIC_ENDPOINTS_ONLY=1`` (the leaderboard's worker in Space mode) a host name is contacted
only while every address it resolves to is public (:mod:`dhp.inference.addresses`).

A refused connection or a host name that does not resolve, before the server has ever answered,
is a wrong URL or a server that is not up: the run stops at once (``unreachable``) rather than
retrying for a minute. Once the server has answered, the same errors are transient (a restart).

API keys: given by the caller (the scorer reads ``DHP_JUDGE_API_KEY``, else ``HF_TOKEN``; the
perturber ``DHP_PERTURBER_API_KEY``, else ``HF_TOKEN``). Without one, no ``Authorization`` header
is sent. Nothing here consults the Hub, so ``HF_HUB_OFFLINE=1`` does not stop a loopback endpoint
(the Hugging Face router is refused under it by :func:`dhp.inference.hub.check_router_allowed`).
"""

from __future__ import annotations

import asyncio
import email.utils
import errno
import ipaddress
import math
import os
import re
import socket
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import orjson

from dhp.inference.addresses import address_problem, public_only
from dhp.inference.protocol import (
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
    "HTTPBackend",
    "OpenAIChat",
    "TGIGenerate",
    "describe_answer",
    "discover_model",
    "host_label",
    "make_endpoint_backend",
    "parse_retry_after",
]

_MODEL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,99}")  # what a model name in a message may be


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


def describe_answer(raw: bytes, content_type: str | None = None) -> str:
    """What kind of answer a body is, in one line, without a word of its text: JSON (an object, a
    list), an HTML page, text or an empty body, with its content type and length."""
    ctype = (content_type or "").split(";", 1)[0].strip().lower()
    ctype = ctype if ctype and len(ctype) <= 60 and ctype.isascii() and " " not in ctype else ""
    head = raw[:200].lstrip()
    if not head:
        kind = "an empty body"
    elif "html" in ctype or head.lower().startswith((b"<!doctype html", b"<html")):
        kind = "an HTML page"
    elif head[:1] in (b"{", b"["):
        kind = "a JSON object" if head[:1] == b"{" else "a JSON list"
    else:
        kind = "text"
    return f"{kind} ({', '.join(x for x in (ctype, f'{len(raw):,} bytes') if x)})"


def _mentions(raw: bytes, *words: str) -> frozenset[str]:
    """Which of ``words`` a body holds: read for classification only, never shown."""
    return frozenset(w for w in words if w.encode() in raw[:65536])


def http_error(status: int, answer: str, retry_after: float | None, location: str | None = None,
               url: str = "") -> JudgeError:  # fmt: skip
    """A non-200 answer, classified: retry (429, 408, 5xx), stop the run (3xx, 401/403/404/405), or fail
    one request. ``answer`` says what the body was (:func:`describe_answer`), never what it said."""
    reason = f"http-{status}"
    msg = f"HTTP {status} with {answer}"
    if 300 <= status < 400:
        return FatalJudgeError("redirect", _redirect_message(status, location, url))
    if status == 429 or status == 408 or status >= 500:
        return TransientJudgeError(reason, msg, retry_after=retry_after)
    if status in (401, 403):
        return FatalJudgeError(reason, "the endpoint refused the credentials (set the API key variable)")
    if status in (404, 405):
        return FatalJudgeError(reason, f"no such route on the endpoint (wrong URL or --protocol?): {msg}")
    return PermanentJudgeError(reason, msg)


def _redirect_message(status: int, location: str | None, url: str) -> str:
    """A redirect, described without its target: whether it leads to another host or scheme."""
    where = "elsewhere"
    if location:
        try:
            target = urlsplit(location)
            here = urlsplit(url)
            if target.hostname and (target.hostname, target.port) != (here.hostname, here.port):
                where = "to another host"
            elif target.scheme and target.scheme != here.scheme:
                where = (
                    f"to {target.scheme} on the same host" if target.scheme in ("http", "https") else where
                )
            else:
                where = "to another path on the same host"
        except ValueError:
            where = "to a malformed location"
    return (
        f"the endpoint answered HTTP {status}, a redirect {where}; redirects are not followed: "
        "give the URL the judge's API answers on"
    )


def _connection_error(e: aiohttp.ClientConnectionError, url: str, reached: bool) -> JudgeError:
    """A connection that failed, in our words (aiohttp's own words name the peer's address and port). A refused
    connection or an unknown host before the server ever answered stops the run; afterwards it is
    transient (the server restarts)."""
    where = host_label(url)
    if isinstance(e, aiohttp.ClientConnectorDNSError):
        what, permanent = f"the host of {where} does not resolve (unknown host)", True
    elif isinstance(e, aiohttp.ClientConnectorError):
        code = e.os_error.errno if isinstance(e.os_error, OSError) else None
        permanent = code == errno.ECONNREFUSED
        what = f"cannot connect to {where}: {_os_reason(e.os_error)}"
    elif isinstance(e, aiohttp.ServerDisconnectedError):
        what, permanent = f"{where} closed the connection without an answer", False
    else:
        what, permanent = f"the connection to {where} failed ({type(e).__name__}{_errno_text(e)})", False
    if permanent and not reached:
        return FatalJudgeError("unreachable", f"{what}: is the endpoint up and the URL right?")
    return TransientJudgeError("connection", what)


def _os_reason(err: BaseException | None) -> str:
    """The error number's standard text (``connection refused``): never the error's own text, which
    names the peer's address and port (``Connect call failed ('10.0.0.7', 8080)``)."""
    if isinstance(err, OSError) and err.errno is not None:
        return os.strerror(err.errno).lower()
    return type(err).__name__ if err is not None else "no reason given"


def _errno_text(e: BaseException) -> str:
    return f": {_os_reason(e)}" if isinstance(e, OSError) and e.errno is not None else ""


def _bad_response(what: str) -> TransientJudgeError:
    return TransientJudgeError("bad-response", what)


def _shape_error(e: Exception) -> str:
    """What was wrong with an answer's shape, in our words (a ValueError would quote the answer's text)."""
    if isinstance(e, KeyError) and e.args and isinstance(e.args[0], str):
        return f"no {e.args[0]!r} field"
    return f"{type(e).__name__} reading it"


class _PublicOnlyResolver(aiohttp.ThreadedResolver):
    """The system resolver, refusing a name any of whose addresses is not public (DNS rebinding: the
    name was checked when submitted, and may answer otherwise now). Used under ``DHP_PUBLIC_ENDPOINTS_ONLY``."""

    async def resolve(self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET) -> Any:
        found = await super().resolve(host, port, family)
        for entry in found:
            why = address_problem(ipaddress.ip_address(str(entry["host"]).split("%", 1)[0]))
            if why:
                raise FatalJudgeError(
                    "not-public", f"{host} resolves to {why} now; only public endpoints are contacted here"
                )
        return found


class _Client:
    """One keep-alive connection pool to one server, created on first use inside the running loop."""

    def __init__(self, api_key: str | None, timeout: float, connections: int) -> None:
        self._headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"
        self._timeout = timeout
        self._connections = max(1, connections)
        self._session: aiohttp.ClientSession | None = None
        self._reached = False  # the server has answered once (any status): connection errors are transient

    def _open(self) -> aiohttp.ClientSession:
        connector = aiohttp.TCPConnector(
            limit=self._connections, keepalive_timeout=60.0, ttl_dns_cache=300,
            resolver=_PublicOnlyResolver() if public_only() else None,
        )  # fmt: skip
        self._session = aiohttp.ClientSession(
            connector=connector,
            timeout=aiohttp.ClientTimeout(total=self._timeout),
            cookie_jar=aiohttp.DummyCookieJar(),
            headers=self._headers,  # the session's defaults: nothing to merge per request
        )
        return self._session

    async def get(self, url: str) -> tuple[int, bytes, str | None]:
        """GET ``url`` (no redirect followed): status, body and content type."""
        session = self._session or self._open()
        try:
            async with session.get(url, allow_redirects=False) as resp:
                self._reached = True
                return resp.status, await resp.read(), resp.headers.get("Content-Type")
        except aiohttp.ClientConnectionError as e:
            raise _connection_error(e, url, self._reached) from e

    async def post(self, url: str, body: Mapping[str, Any]) -> Any:
        """POST a JSON body (no redirect followed); the decoded JSON answer, or a classified :class:`InferenceError`."""
        session = self._session or self._open()
        try:
            async with session.post(url, data=orjson.dumps(body), allow_redirects=False) as resp:
                self._reached = True
                raw = await resp.read()
                ctype = resp.headers.get("Content-Type")
                if resp.status != 200:
                    err = http_error(resp.status, describe_answer(raw, ctype),
                                     parse_retry_after(resp.headers.get("Retry-After")),
                                     resp.headers.get("Location"), url)  # fmt: skip
                    err.mentions = _mentions(raw, "model_kwargs")
                    raise err
        except aiohttp.ClientPayloadError as e:
            raise TransientJudgeError("bad-json", "the answer's body was cut short") from e
        except aiohttp.ClientConnectionError as e:
            raise _connection_error(e, url, self._reached) from e
        except aiohttp.ClientResponseError as e:
            raise TransientJudgeError(
                "bad-response", f"an answer aiohttp could not read (HTTP {e.status})"
            ) from e
        except asyncio.TimeoutError as e:  # aiohttp's own deadline (the pool's usually fires first)
            raise TransientJudgeError("timeout", f"no answer within {self._timeout:g} s") from e
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError as e:
            if not raw.strip() or raw.lstrip()[:1] in (
                b"{",
                b"[",
            ):  # JSON cut short or damaged: worth a retry
                raise TransientJudgeError("bad-json", f"damaged JSON: {describe_answer(raw, ctype)}") from e
            raise FatalJudgeError(
                "not-json",
                f"{host_label(url)}{urlsplit(url).path} answered {describe_answer(raw, ctype)} instead of JSON: "
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


class HTTPBackend:
    """One replica of an HTTP judge or generator: the HTTP is here, once (the keep-alive client, the
    error classes, an answer of the wrong shape); a protocol writes only its route, the request's
    body (:meth:`body`) and how an answer is read (:meth:`parse`), as lm-eval's ``TemplateAPI``."""

    route = ""  #: the path under the server's root the requests are posted to
    answer = "answer"  #: what an answer is called when its shape is wrong

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
        self._url = server_root(base_url) + self.route
        self._client = _Client(api_key, timeout, connections)

    def body(self, request: Request) -> dict[str, Any]:
        raise NotImplementedError

    def parse(self, doc: Any, request: Request) -> RawText:
        """The output an answer holds; a missing or mistyped field raises (a bad response)."""
        raise NotImplementedError

    async def post(self, request: Request) -> Any:
        """The decoded answer to the request, or a classified :class:`InferenceError`."""
        return await self._client.post(self._url, self.body(request))

    async def __call__(self, request: Request) -> JudgeOutput:
        doc = await self.post(request)
        try:
            return self.parse(doc, request)
        except (AttributeError, IndexError, KeyError, TypeError, ValueError) as e:
            raise _bad_response(f"an unexpected {self.answer} ({_shape_error(e)})") from e

    async def aclose(self) -> None:
        await self._client.aclose()


class OpenAIChat(HTTPBackend):
    """``/v1/chat/completions``: one user message holding the rendered prompt."""

    route = "/v1/chat/completions"
    answer = "chat completion"

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

    def parse(self, doc: Any, request: Request) -> RawText:
        choice = doc["choices"][0]
        text = choice["message"].get("content") or ""
        finish = choice.get("finish_reason")
        lp = choice.get("logprobs") if request.sampling.logprobs else None
        content = lp.get("content") if isinstance(lp, Mapping) else None
        tokens = (
            None
            if content is None
            else tuple(
                TokenAlternatives(str(c["token"]), float(c["logprob"]), _top(c.get("top_logprobs"), "token"))
                for c in content
            )
        )
        return RawText(
            text=str(text),
            tokens=tokens,
            finish_reason=None if finish is None else str(finish),
            usage=openai_usage(doc),
        )


class TGIGenerate(HTTPBackend):
    """TGI's native ``/generate``; ``details`` and ``top_n_tokens`` when log-probabilities are asked for."""

    route = "/generate"
    answer = "generation"

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

    async def post(self, request: Request) -> Any:
        try:
            return await super().post(request)
        except PermanentJudgeError as e:
            if request.sampling.logprobs and "model_kwargs" in e.mentions:
                raise CapabilityError(
                    "not-tgi",
                    f"{self.label} rejects TGI's details/top_n_tokens (not a TGI server?), so it returns no "
                    "token log-probabilities: use --protocol openai, or --mode sample / --mode paper",
                ) from e
            raise

    def parse(self, doc: Any, request: Request) -> RawText:
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
        if not isinstance(text, str):
            raise _bad_response("a generation without generated_text")
        return RawText(
            text=text,
            tokens=tokens,
            finish_reason=None if finish is None else str(finish),
            usage=tgi_usage(details),
        )


def make_endpoint_backend(
    url: str,
    *,
    protocol: EndpointProtocol | str,
    model: str | None,
    api_key: str | None,
    timeout: float = 120.0,
    connections: int = 8,
) -> HTTPBackend:
    """The backend of one replica that speaks ``protocol``."""
    return _BY_PROTOCOL[EndpointProtocol(protocol)](url, model, api_key, timeout, connections)


_BY_PROTOCOL: Mapping[EndpointProtocol, type[HTTPBackend]] = {
    EndpointProtocol.OPENAI: OpenAIChat,
    EndpointProtocol.TGI: TGIGenerate,
}


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
        status, raw, ctype = await client.get(url)
    except JudgeError as e:
        raise FatalJudgeError("unreachable", e.message) from e
    except asyncio.TimeoutError as e:
        raise FatalJudgeError("unreachable", f"{where}: no answer within {timeout:g} s") from e
    finally:
        await client.aclose()
    if 300 <= status < 400:
        raise http_error(status, describe_answer(raw, ctype), None, None, url)
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
            f"{where}{urlsplit(url).path} answered {describe_answer(raw, ctype)} instead of JSON: is it the "
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
        shown = [n for n in names if _MODEL_NAME.fullmatch(n)][:5]  # names only, never other text
        raise FatalJudgeError(
            "model-unknown", f"{where} serves {len(names)} models {shown}: choose one with {flag}"
        )
    return names[0]
