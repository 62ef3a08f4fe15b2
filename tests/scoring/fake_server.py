"""A small protocol-faithful judge server with fault injection, for loopback tests.

It answers what ``transformers serve`` cannot: OpenAI chat completions *with* ``logprobs``
(``choices[].logprobs.content[].top_logprobs``, the OpenAI API's documented schema), and TGI's
native ``/generate`` with ``details``/``top_n_tokens`` and ``/info`` (TGI's documented schema:
``generated_text`` plus ``details.tokens`` and ``details.top_tokens``; errors as
``{"error", "error_type"}``). What it answers is decided by a *script*: prompt -> :class:`Answer`.

Faults are injected from a queue consumed one per request, or for every request:
``"ok"`` (no fault), ``"429"`` (with ``Retry-After``), ``"503"``, ``"500"``, ``"hang"`` (never answers: the client's
timeout fires), ``"reset"`` (the connection is closed mid-request), ``"truncated"`` (a 200 whose
JSON body is cut short), ``"kwargs"`` (TGI's 400 for ``model_kwargs`` a non-TGI server does not use).
Requests interleave under concurrency, so a fault meant for one text is given by ``fault_for``.

The server runs on 127.0.0.1 (a free port) in a thread with its own event loop, so synchronous
code (subprocesses, ``asyncio.run``) can talk to it. Every request is logged with its arrival time
(``keep_log=False`` keeps only the counters, for long benchmark runs).

``latency`` adds a fixed, non-blocking delay (``asyncio.sleep``) to every judge request, so a client
with concurrency C can reach at most C / latency requests per second. ``GET /stats`` returns the
counters (judge requests, answered, in flight, the most ever in flight, first arrival and last
answer times). Run as a program (``python -m tests.scoring.fake_server --latency 0.1``) the server
prints ``PORT <n>`` and serves until it is terminated, with the deterministic :func:`hashed_answer`
script: a process of its own, so that a client under measurement does not share its interpreter.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import math
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web


@dataclass(frozen=True)
class Answer:
    """What the judge says: generated tokens, and the distribution at the score token."""

    tokens: tuple[str, ...] = ("4",)
    score_dist: dict[str, float] = field(default_factory=lambda: {"4": 1.0})  # at the first digit token

    @property
    def text(self) -> str:
        return "".join(self.tokens)


Script = Callable[[str], Answer]


def hashed_answer(prompt: str) -> Answer:
    """A deterministic judge that depends on the whole prompt: score 2..5 and a spread-out distribution."""
    h = hashlib.sha256(prompt.encode("utf-8")).digest()
    top = 2 + h[0] % 4
    near = top - 1 if top > 1 else top + 1
    p = 0.5 + (h[1] / 255.0) * 0.45
    return Answer((str(top),), {str(top): p, str(near): 1.0 - p})


def judged_text(prompt: str) -> str:
    """The judged text inside a rendered DHP prompt (after its label, before the score form)."""
    head = prompt.rsplit("\n\nEvaluation Score", 1)[0]
    return head.rsplit(":\n\n", 1)[1]


@dataclass
class Logged:
    path: str
    body: dict[str, Any]
    headers: dict[str, str]
    at: float
    fault: str | None


class FakeJudgeServer:
    def __init__(
        self,
        script: Script | None = None,
        *,
        model: str = "fake-judge",
        logprobs: bool = True,
        tgi: bool = True,
        faults: list[str] | None = None,
        always: str | None = None,
        retry_after: str = "1",
        fail_after: int | None = None,
        fault_for: Callable[[str], str | None] | None = None,
        max_top_logprobs: int | None = None,
        latency: float = 0.0,
        keep_log: bool = True,
    ) -> None:
        self.script: Script = script or (lambda prompt: Answer())
        self.model = model
        self.logprobs = logprobs  # False: ignore `logprobs` silently, like transformers serve
        self.tgi = tgi  # False: /generate behaves like a non-TGI server; /info is absent
        self.faults: deque[str] = deque(faults or [])
        self.always = always
        self.retry_after = retry_after
        self.fail_after = fail_after  # after this many answered requests, every request gets a 500
        self.fault_for = fault_for  # prompt -> fault, for faults tied to one text
        self.max_top_logprobs = max_top_logprobs  # chat: a 422 above this, as TGI's chat route does
        self.latency = latency  # seconds added to every judge request, without blocking the loop
        self.keep_log = keep_log
        self.log: list[Logged] = []
        self.answered = 0
        self.requests = 0  # judge requests received (chat or generate), faulty ones included
        self.inflight = 0
        self.max_inflight = 0
        self.first_at: float | None = None
        self.last_at: float | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self._never: asyncio.Event | None = None
        self.port = 0
        self._lock = threading.Lock()

    # -- lifecycle ------------------------------------------------------------------------------
    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> FakeJudgeServer:
        started = threading.Event()
        self._loop = asyncio.new_event_loop()

        async def start() -> None:
            app = web.Application()
            app.router.add_post("/v1/chat/completions", self._chat)
            app.router.add_get("/v1/models", self._models)
            app.router.add_post("/generate", self._generate)
            app.router.add_get("/info", self._info)
            app.router.add_get("/stats", self._stats)
            self._runner = web.AppRunner(app, access_log=None)
            await self._runner.setup()
            site = web.TCPSite(self._runner, "127.0.0.1", 0)
            await site.start()
            server = site._server
            assert isinstance(server, asyncio.Server)
            self.port = server.sockets[0].getsockname()[1]
            self._never = asyncio.Event()

        def run() -> None:
            assert self._loop is not None
            asyncio.set_event_loop(self._loop)
            self._loop.run_until_complete(start())
            started.set()
            self._loop.run_forever()

        self._thread = threading.Thread(target=run, name="fake-judge", daemon=True)
        self._thread.start()
        if not started.wait(10):
            raise RuntimeError("fake judge server did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._loop is not None and self._thread is not None

        async def stop() -> None:
            if self._never is not None:
                self._never.set()
            if self._runner is not None:
                await self._runner.cleanup()

        asyncio.run_coroutine_threadsafe(stop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()

    # -- faults ---------------------------------------------------------------------------------
    def _next_fault(self, body: dict[str, Any]) -> str | None:
        if self.fault_for is not None:
            msgs = body.get("messages")
            prompt = msgs[-1]["content"] if isinstance(msgs, list) else str(body.get("inputs", ""))
            targeted = self.fault_for(prompt)
            if targeted is not None:
                return targeted
        with self._lock:
            if self.faults:
                return self.faults.popleft()
            if self.fail_after is not None and self.answered >= self.fail_after:
                return "500"
            return self.always

    async def _apply_fault(self, fault: str | None, request: web.Request) -> web.StreamResponse | None:
        if fault is None or fault == "ok":
            return None
        if fault == "429":
            return web.json_response(
                {"error": "rate limited", "error_type": "overloaded"},
                status=429,
                headers={"Retry-After": self.retry_after},
            )
        if fault in ("500", "503"):
            return web.json_response({"error": "unavailable", "error_type": "generation"}, status=int(fault))
        if fault == "hang":
            assert self._never is not None
            await self._never.wait()
            return web.json_response({"error": "shutting down"}, status=503)
        if fault == "reset":
            transport = request.transport
            assert transport is not None
            transport.abort()
            raise ConnectionResetError("fault: reset")
        if fault == "truncated":
            return web.Response(
                body=b'{"id": "x", "choices": [{"index": 0, "mess', content_type="application/json"
            )
        if fault == "kwargs":
            return None  # handled by /generate
        raise ValueError(f"unknown fault {fault!r}")

    async def _begin(
        self, request: web.Request
    ) -> tuple[dict[str, Any], str | None, web.StreamResponse | None]:
        body = await request.json() if request.can_read_body else {}
        fault = self._next_fault(body)
        now = time.monotonic()
        with self._lock:
            self.requests += 1
            if self.first_at is None:
                self.first_at = now
            if self.keep_log:
                self.log.append(Logged(request.path, body, dict(request.headers), now, fault))
        if self.latency > 0:
            self.inflight += 1  # only touched on the server's loop
            self.max_inflight = max(self.max_inflight, self.inflight)
            try:
                await asyncio.sleep(self.latency)
            finally:
                self.inflight -= 1
        early = await self._apply_fault(fault, request)
        return body, fault, early

    def _answered(self) -> None:
        with self._lock:
            self.answered += 1
            self.last_at = time.monotonic()

    def stats(self) -> dict[str, Any]:
        with self._lock:
            return {
                "requests": self.requests,
                "answered": self.answered,
                "inflight": self.inflight,
                "max_inflight": self.max_inflight,
                "first_at": self.first_at,
                "last_at": self.last_at,
            }

    def reset_counters(self) -> None:
        with self._lock:
            self.requests = self.answered = self.max_inflight = 0
            self.first_at = self.last_at = None
            self.log.clear()

    async def _stats(self, request: web.Request) -> web.StreamResponse:
        if request.query.get("reset"):
            out = self.stats()
            self.reset_counters()
            return web.json_response(out)
        return web.json_response(self.stats())

    # -- OpenAI-compatible ----------------------------------------------------------------------
    async def _models(self, request: web.Request) -> web.StreamResponse:
        return web.json_response(
            {"object": "list", "data": [{"id": self.model, "object": "model", "owned_by": "test"}]}
        )

    def _top(self, ans: Answer, token: str, k: int) -> list[tuple[str, float]]:
        if any(c.isdigit() for c in token):
            items = sorted(ans.score_dist.items(), key=lambda kv: -kv[1])[:k]
            return [(t, math.log(p)) for t, p in items if p > 0]
        return [(token, 0.0)]

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body, _fault, early = await self._begin(request)
        if early is not None:
            return early
        if body.get("model") != self.model:
            return web.json_response(
                {"error": {"message": f"model {body.get('model')!r} not found"}}, status=404
            )
        if self.max_top_logprobs is not None and int(body.get("top_logprobs") or 0) > self.max_top_logprobs:
            return web.json_response(
                {
                    "error": f"Input validation error: `top_n_tokens` must be <= {self.max_top_logprobs}",
                    "error_type": "validation",
                },
                status=422,
            )
        prompt = body["messages"][-1]["content"]
        ans = self.script(prompt)
        choice: dict[str, Any] = {
            "index": 0,
            "message": {"role": "assistant", "content": ans.text},
            "logprobs": None,
            "finish_reason": "stop",
        }
        if body.get("logprobs") and self.logprobs:
            k = int(body.get("top_logprobs") or 0)
            content = []
            for tok in ans.tokens:
                top = self._top(ans, tok, max(k, 1))
                lp = dict(top).get(tok, top[0][1])
                content.append(
                    {
                        "token": tok,
                        "logprob": lp,
                        "bytes": list(tok.encode()),
                        "top_logprobs": [
                            {"token": t, "logprob": v, "bytes": list(t.encode())} for t, v in top[:k]
                        ],
                    }
                )
            choice["logprobs"] = {"content": content}
        self._answered()
        return web.json_response(
            {
                "id": f"chatcmpl-{len(self.log)}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": self.model,
                "choices": [choice],
                "usage": {
                    "prompt_tokens": len(prompt.split()),
                    "completion_tokens": len(ans.tokens),
                    "total_tokens": 0,
                },
            }
        )

    # -- TGI --------------------------------------------------------------------------------------
    async def _info(self, request: web.Request) -> web.StreamResponse:
        if not self.tgi:
            return web.json_response({"detail": "Not Found"}, status=404)
        return web.json_response(
            {
                "model_id": self.model,
                "model_sha": None,
                "model_pipeline_tag": "text-generation",
                "max_concurrent_requests": 128,
                "max_best_of": 2,
                "max_stop_sequences": 4,
                "max_input_tokens": 8191,
                "max_total_tokens": 8192,
                "validation_workers": 2,
                "max_client_batch_size": 4,
                "router": "text-generation-router",
                "version": "3.3.6",
                "sha": None,
                "docker_label": None,
            }
        )

    async def _generate(self, request: web.Request) -> web.StreamResponse:
        body, fault, early = await self._begin(request)
        if early is not None:
            return early
        params = body.get("parameters") or {}
        if not self.tgi or fault == "kwargs":
            unused = [k for k in ("details", "top_n_tokens", "decoder_input_details") if params.get(k)]
            if unused:
                msg = f"The following `model_kwargs` are not used by the model: {unused} (note: typos in the generate arguments will also show up in this list)"
                return web.json_response({"error": msg}, status=400)
            ans = self.script(body["inputs"])
            self._answered()
            return web.json_response([{"generated_text": ans.text}])
        if params.get("top_n_tokens") and int(params["top_n_tokens"]) > 5:
            return web.json_response(
                {"error": "top_n_tokens must be <= 5", "error_type": "validation"}, status=422
            )
        ans = self.script(body["inputs"])
        k = int(params.get("top_n_tokens") or 0)
        tokens = []
        top_tokens = []
        for i, tok in enumerate(ans.tokens):
            top = self._top(ans, tok, max(k, 1))
            lp = dict(top).get(tok, top[0][1])
            tokens.append({"id": 100 + i, "text": tok, "logprob": lp, "special": False})
            top_tokens.append(
                [
                    {"id": 200 + j, "text": t, "logprob": v, "special": False}
                    for j, (t, v) in enumerate(top[:k])
                ]
            )
        details: dict[str, Any] = {
            "finish_reason": "eos_token",
            "generated_tokens": len(tokens),
            "seed": params.get("seed"),
            "prefill": [],
            "tokens": tokens,
        }
        if k:
            details["top_tokens"] = top_tokens
        self._answered()
        out: dict[str, Any] = {"generated_text": ans.text}
        if params.get("details"):
            out["details"] = details
        return web.Response(text=json.dumps(out), content_type="application/json")


def main(argv: list[str] | None = None) -> int:
    """Serve in the foreground (``PORT <n>`` on stdout) until terminated; counters at ``/stats``."""
    ap = argparse.ArgumentParser(description="fake OpenAI/TGI judge server on 127.0.0.1")
    ap.add_argument("--latency", type=float, default=0.0, help="seconds added to every judge request")
    ap.add_argument("--no-logprobs", action="store_true", help="ignore `logprobs` silently")
    args = ap.parse_args(argv)
    srv = FakeJudgeServer(hashed_answer, latency=args.latency, logprobs=not args.no_logprobs, keep_log=False)
    with srv:
        print(f"PORT {srv.port}", flush=True)
        threading.Event().wait()  # until SIGTERM / SIGKILL
    return 0


if __name__ == "__main__":
    sys.exit(main())
