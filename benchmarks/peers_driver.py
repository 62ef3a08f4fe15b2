"""One client of ``bench_peers.py``: send the prompts once, print one JSON line with the rate.

Run by ``bench_peers.py`` in a process of its own, with the interpreter that has the client:
the project's virtual environment for ``dhp`` and ``aiohttp``, the peers' environment
(``bench_peers.py --install``) for ``lmeval``, ``inspect``, ``openai`` and ``hub``. Every client
sends the same requests: one user message, ``max_tokens`` 8, temperature 0, ``logprobs`` with
``top_logprobs`` 20, at most C in flight.

Boundaries, the same for every client: the client's modules are imported first (``IMPORTS``;
timed apart as ``import_s``); then the clock and the process's CPU time (user + system, which a
loaded machine disturbs less than wall time) run from the client's set-up to its close
(``seconds``, ``cpu``: Inspect's evaluation set-up and logging included). ``bench_peers.py`` takes
the rate from the server's side (first request in to last answer out), which no client's set-up
or teardown touches.

Usage: ``python peers_driver.py CLIENT URL PROMPTS_JSON CONCURRENCY``.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

MODEL = "fake-judge"
MAX_TOKENS = 8
TOP_LOGPROBS = 20


def _body(prompt: str) -> dict[str, Any]:
    return {
        "model": MODEL,
        "messages": [{"role": "user", "content": prompt}],
        "max_tokens": MAX_TOKENS,
        "temperature": 0.0,
        "logprobs": True,
        "top_logprobs": TOP_LOGPROBS,
    }


async def bare_aiohttp(url: str, prompts: list[str], c: int) -> int:
    """The physical limit of a Python client here: a semaphore, one session, post, decode, read one field."""
    import aiohttp

    sem = asyncio.Semaphore(c)
    ok = 0
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=c)) as session:

        async def one(prompt: str) -> None:
            nonlocal ok
            async with sem, session.post(url + "/v1/chat/completions", json=_body(prompt)) as r:
                doc = await r.json()
                ok += bool(doc["choices"][0]["message"]["content"])

        await asyncio.gather(*(one(p) for p in prompts))
    return ok


async def dhp(url: str, prompts: list[str], c: int) -> int:
    """dhp's inference layer as ``dhp score`` uses it: pool (cache, coalescing, retries) + OpenAI backend."""
    from dhp.inference.cache import ResponseCache
    from dhp.inference.http import OpenAIChat
    from dhp.inference.pool import Pool
    from dhp.inference.protocol import Generation, RawText, SamplingParams

    sampling = SamplingParams(
        temperature=0.0, max_tokens=MAX_TOKENS, logprobs=True, top_logprobs=TOP_LOGPROBS
    )
    with tempfile.TemporaryDirectory() as tmp, ResponseCache(Path(tmp) / "cache.sqlite") as cache:
        pool = Pool(
            [OpenAIChat(url, MODEL, None, connections=c)],
            identity="bench",
            model=MODEL,
            cache=cache,
            concurrency=c,
        )
        outs = await asyncio.gather(*(pool.submit(Generation(p, sampling)) for p in prompts))
        await pool.aclose()
    return sum(isinstance(o, RawText) and o.tokens is not None for o in outs)


async def openai_sdk(url: str, prompts: list[str], c: int) -> int:
    from openai import AsyncOpenAI

    client = AsyncOpenAI(base_url=url + "/v1", api_key="unused")
    sem = asyncio.Semaphore(c)

    async def one(prompt: str) -> int:
        async with sem:
            r = await client.chat.completions.create(**_body(prompt))
            return int(bool(r.choices[0].message.content))

    ok = sum(await asyncio.gather(*(one(p) for p in prompts)))
    await client.close()
    return ok


async def hub(url: str, prompts: list[str], c: int) -> int:
    from huggingface_hub import AsyncInferenceClient

    client = AsyncInferenceClient(base_url=url, timeout=120, headers={"authorization": None})  # type: ignore[dict-item]
    sem = asyncio.Semaphore(c)

    async def one(prompt: str) -> int:
        async with sem:
            r = await client.chat_completion(
                messages=[{"role": "user", "content": prompt}], model=MODEL, max_tokens=MAX_TOKENS,
                temperature=0.0, logprobs=True, top_logprobs=TOP_LOGPROBS, stream=False,
            )  # fmt: skip
            return int(bool(r.choices[0].message.content))

    ok = sum(await asyncio.gather(*(one(p) for p in prompts)))
    await client.close()  # type: ignore[no-untyped-call]
    return ok


def lmeval(url: str, prompts: list[str], c: int) -> int:
    """lm-evaluation-harness's ``local-chat-completions`` model (aiohttp), its ``generate_until``."""
    from lm_eval.api.instance import Instance
    from lm_eval.models.api_models import JsonChatStr
    from lm_eval.models.openai_completions import LocalChatCompletion

    lm = LocalChatCompletion(
        base_url=url + "/v1/chat/completions", model=MODEL, num_concurrent=c, max_retries=3,
        tokenized_requests=False, tokenizer_backend=None,
    )  # fmt: skip
    gen = {
        "max_gen_toks": MAX_TOKENS,
        "temperature": 0,
        "until": [],
        "logprobs": True,
        "top_logprobs": TOP_LOGPROBS,
    }
    reqs = [
        Instance(
            "generate_until", {}, (JsonChatStr(json.dumps([{"role": "user", "content": p}])), dict(gen)), i
        )
        for i, p in enumerate(prompts)
    ]
    outs = lm.generate_until(reqs, disable_tqdm=True)
    return sum(bool(o) for o in outs)


def inspect(url: str, prompts: list[str], c: int) -> int:
    """Inspect AI's ``openai-api`` provider, one sample per prompt, ``generate()`` solver, default logging."""
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.solver import generate

    os.environ["FAKE_API_KEY"] = "unused"
    with tempfile.TemporaryDirectory() as tmp:
        task = Task(dataset=[Sample(input=p, id=i) for i, p in enumerate(prompts)], solver=generate())
        [log] = inspect_eval(
            task, model=f"openai-api/fake/{MODEL}", model_base_url=url + "/v1", max_connections=c,
            max_tokens=MAX_TOKENS, temperature=0.0, logprobs=True, top_logprobs=TOP_LOGPROBS,
            log_dir=tmp, display="none", max_samples=c,
        )  # fmt: skip
        samples = log.samples or []
        return (
            sum(bool(s.output.completion) for s in samples)
            if samples
            else len(prompts) * (log.status == "success")
        )


#: what each client imports before the clock starts (its functions' own imports are then no-ops)
IMPORTS: dict[str, tuple[str, ...]] = {
    "aiohttp": ("aiohttp",),
    "dhp": ("dhp.inference.cache", "dhp.inference.http", "dhp.inference.pool", "dhp.inference.protocol"),
    "openai": ("openai",),
    "hub": ("huggingface_hub",),
    "lmeval": ("lm_eval.api.instance", "lm_eval.models.api_models", "lm_eval.models.openai_completions"),
    "inspect": ("inspect_ai", "inspect_ai.dataset", "inspect_ai.solver"),
}
ASYNC: dict[str, Callable[[str, list[str], int], Any]] = {
    "aiohttp": bare_aiohttp, "dhp": dhp, "openai": openai_sdk, "hub": hub,
}  # fmt: skip
SYNC: dict[str, Callable[[str, list[str], int], int]] = {"lmeval": lmeval, "inspect": inspect}


def main(argv: list[str]) -> int:
    client, url, prompts_file, conc = argv
    prompts: list[str] = json.loads(Path(prompts_file).read_text())
    c = int(conc)
    t_import = time.perf_counter()
    for module in IMPORTS[client]:
        importlib.import_module(module)
    import_s = time.perf_counter() - t_import
    r0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    ok = asyncio.run(ASYNC[client](url, prompts, c)) if client in ASYNC else SYNC[client](url, prompts, c)
    seconds = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)  # this process's CPU (threads included)
    print(
        json.dumps(
            {
                "client": client,
                "n": len(prompts),
                "ok": ok,
                "seconds": seconds,
                "cpu": cpu,
                "import_s": import_s,
            }
        ),
        flush=True,
    )
    return 0 if ok == len(prompts) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
