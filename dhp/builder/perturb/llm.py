"""LLM-based perturbations through an inference endpoint (OpenAI-compatible chat or TGI).

Requests go through the scorer's inference layer (:mod:`dhp.inference`), so the perturber has the
same model discovery, retry policy, cache and HTTP client as the scorer:

* Protocols: ``openai`` posts to ``{url}/v1/chat/completions``; ``tgi`` posts to ``{url}/generate``
  (:mod:`dhp.inference.http`). Without ``model``, the endpoint must name exactly one model
  (:func:`dhp.inference.http.discover_model`); an endpoint serving several is refused.
* One budget for outputs: at most ``max_outputs`` (3) model outputs per row. An output is a text the endpoint
  answered with; every one is validated (:func:`validate_output`, then the job's ``check``: the project's
  validator, issue 28), and an invalid one is asked again with the next seed until the budget is spent; a row
  that never gets a valid output is recorded as not applicable, with the last reason ("LLM output invalid
  after 3 output(s): ..."): an endpoint that always answers with invalid text gets exactly 3 requests a row.
* Transport is separate and never spends the output budget: a request that got no output (429, 5xx, a
  timeout, a reset connection, a truncated or malformed body) is the *same* request (same seed, same cache
  key) sent again by the pool (:mod:`dhp.inference.pool`), up to ``http_retries`` (3) times with jittered
  exponential backoff and ``Retry-After`` honoured. If it still has no output, the build stops with
  :class:`~dhp.errors.PerturberError` (the endpoint is failing; nothing is left out silently). Per row: at
  most 3 outputs, each after at most 1 + 3 sends.
* The API key, if any, comes only from the environment (``DHP_PERTURBER_API_KEY``, else
  ``HF_TOKEN``); it is sent as a bearer token and never stored or logged.
* Validation (:func:`validate_output`): non-empty, changed, no preamble or commentary, not an echo
  of the prompt, length within sane bounds of the original.
* Every answer is cached by content address (model, protocol, prompt, sampling settings and seed)
  in the hardened response cache (:mod:`dhp.inference.cache`: WAL, damaged entries re-asked, a
  foreign file named and left alone), so a rebuild of the same version makes no new calls. The
  model and settings are stored with every row.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dhp.builder.hashing import sha256_text
from dhp.builder.perturb.base import FAILED_VALIDATION, NotApplicable, Outcome, Perturbed, squash
from dhp.builder.perturb.registry import lookup
from dhp.errors import PerturberError
from dhp.inference.cache import CacheError, ResponseCache
from dhp.inference.http import discover_model, host_label, make_endpoint_backend
from dhp.inference.pool import Pool, RetryPolicy
from dhp.inference.protocol import Generation, InferenceError, RawText, RequestFailure, SamplingParams
from dhp.secrets import PERTURBER_KEY_VARS
from dhp.secrets import api_key_from_env as _key_from_env
from dhp.types import EndpointProtocol, Operation

__all__ = ["InvalidOutput", "LLMJob", "LLMPerturber", "LLMSettings", "api_key_from_env", "validate_output"]


def api_key_from_env() -> str | None:
    """The perturber API key from the environment (DHP_PERTURBER_API_KEY, else HF_TOKEN), if set."""
    return _key_from_env(PERTURBER_KEY_VARS)


@dataclass(frozen=True)
class LLMSettings:
    """Endpoint and sampling settings of the LLM perturber."""

    url: str
    protocol: EndpointProtocol | str = EndpointProtocol.OPENAI
    model: str | None = None  # discovered from the endpoint when None
    temperature: float = 0.7
    top_p: float = 0.95
    max_outputs: int = 3  # model outputs asked per row, the invalid ones included (the one output budget)
    concurrency: int = 8
    timeout_s: float = 120.0
    http_retries: int = 3  # re-sends of one request that got no output (the pool's; spends no output)


@dataclass(frozen=True)
class LLMJob:
    """One perturbation request: the prompt, the original text and what the output must look like."""

    prompt: str
    label: str  # "Revised Summary:" - stripped when the model repeats it
    original: str
    operation: Operation
    seed: int
    #: the validator's verdict on an output (a reason, "" when it passes): checked inside the one output
    #: budget, so a rejected output is asked again with the next seed, never in a second loop
    check: Callable[[str], str] | None = None


class InvalidOutput(ValueError):
    """A model output that fails validation; the message says why."""


_PREAMBLE = re.compile(
    r"^(?:(?:sure|certainly|of course|okay|ok|absolutely|great)\s*[,!.:]"
    r"|(?:here(?:'s| is| are)|below is|the revised|this revised|revised version)\b)",
    re.IGNORECASE,
)
_COMMENTARY = re.compile(
    r"^\s*[(*\[]*\s*(note|notes|explanation|changes?(?: made)?|adjustments?|in this revision|i replaced|"
    r"i changed|i introduced|i substituted|the (?:named )?entity|the errors?|substitut\w*|replaced|modified)\b",
    re.IGNORECASE,
)
_ECHO = ("Adjustment Steps", "Your task is to adjust", "Please make sure you read and understand")
_FENCE = re.compile(r"^```\w*\s*|\s*```$")


def validate_output(raw: str, job: LLMJob) -> str:
    """The cleaned output, or :class:`InvalidOutput` saying why it is unusable.

    Cleaning only removes what never belongs to the text: code fences, the repeated ``Revised X:``
    label and quotes wrapped around the whole answer. Anything else unexpected is rejected.
    """
    out = _FENCE.sub("", raw.strip()).strip()
    if out.lower().startswith(job.label.lower()):
        out = out[len(job.label) :].strip()
    if (len(out) >= 2 and out[0] == out[-1] and out[0] in "\"'“" and job.original[:1] != out[0]) or (
        out[:1] == "“" and out[-1:] == "”" and job.original[:1] != "“"
    ):
        out = out[1:-1].strip()
    if not out:
        raise InvalidOutput("empty output")
    if any(e in out for e in _ECHO):
        raise InvalidOutput("the output echoes the prompt")
    if _PREAMBLE.match(out):
        raise InvalidOutput("the output starts with a preamble")
    lines = [ln for ln in out.splitlines() if ln.strip()]
    if any(_COMMENTARY.match(ln) for ln in lines[1:]) or (
        len(lines) > 1 and _COMMENTARY.match(lines[0]) and not _COMMENTARY.match(job.original)
    ):
        raise InvalidOutput("the output adds commentary")
    if squash(out) == squash(job.original):
        raise InvalidOutput("the output is unchanged")
    n, m = len(job.original), len(out)
    lo, hi = (n + 5.0, 3.2 * n + 60) if lookup(job.operation).inserts else (0.5 * n - 20, 1.6 * n + 40)
    if not lo <= m <= hi:
        raise InvalidOutput(
            f"output length {m} is outside {max(0, int(lo))}-{int(hi)} for an original of {n}"
        )
    return out


class LLMPerturber:
    """Runs :class:`LLMJob` s against an endpoint, with validation, retries and the cache."""

    def __init__(self, settings: LLMSettings, cache_path: Path) -> None:
        if settings.max_outputs < 1:
            raise PerturberError(
                f"the perturber needs at least one output per row, got {settings.max_outputs}"
            )
        self.settings = settings
        self.protocol = EndpointProtocol(settings.protocol)
        try:
            self.cache = ResponseCache(cache_path)
        except CacheError as e:
            raise PerturberError(str(e).replace("--cache", "--perturber-cache")) from e
        self.model: str | None = settings.model
        self.calls = 0  # generation requests sent, retries included (tests assert that rebuilds make none)

    @property
    def generator(self) -> str:
        return f"llm:{self.model}"

    @property
    def identity(self) -> str:
        """What the cache files the answers under (with the model): the perturber and its protocol."""
        return f"perturber/{self.protocol.value}"

    def _request_settings(self, job: LLMJob, attempt: int) -> dict[str, Any]:
        n = len(job.original)
        return {
            "temperature": self.settings.temperature,
            "top_p": self.settings.top_p,
            "max_tokens": min(4096, n if lookup(job.operation).inserts else n // 2) + 256,
            "seed": (job.seed + attempt) % (2**31),
        }

    def cache_key(self, job: LLMJob) -> str:
        """sha256 of (model, protocol, prompt, first-attempt settings): the prompt hash of a request."""
        payload = {
            "model": self.model,
            "protocol": self.protocol.value,
            "prompt": job.prompt,
            "settings": self._request_settings(job, 0),
        }
        return sha256_text(json.dumps(payload, sort_keys=True, ensure_ascii=False))

    def _row(self, job: LLMJob, output: str | None, reason: str, attempts: int) -> Outcome:
        if output is None:
            if reason.startswith(FAILED_VALIDATION):  # the validator's, counted as such by the build
                return NotApplicable(f"{reason} (the last of {attempts} LLM output(s))")
            return NotApplicable(f"LLM output invalid after {attempts} output(s): {reason}")
        settings = {
            "protocol": self.protocol.value,
            "model": self.model,
            **self._request_settings(job, attempts - 1),  # temperature, top_p, max_tokens, seed
            "attempts": attempts,
            "prompt_sha256": self.cache_key(job),
        }
        return Perturbed(output, self.generator, settings)

    async def _one(self, pool: Pool[Generation], job: LLMJob) -> Outcome:
        reason = ""
        for attempt in range(self.settings.max_outputs):
            request = Generation(job.prompt, SamplingParams(**self._request_settings(job, attempt)))
            out = await pool.submit(request)
            if isinstance(out, RequestFailure):
                raise PerturberError(
                    f"the perturber endpoint {self._where()} failed: {out.reason}: {out.message}"
                )
            if not isinstance(out, RawText):
                raise PerturberError(f"the perturber endpoint {self._where()} returned no text")
            try:
                text = validate_output(out.text, job)
            except InvalidOutput as e:
                reason = str(e)
                continue
            if not (why := job.check(text) if job.check is not None else ""):
                return self._row(job, text, "", attempt + 1)
            reason = FAILED_VALIDATION + why
        return self._row(job, None, reason, self.settings.max_outputs)

    def _where(self) -> str:
        return host_label(self.settings.url)

    def _pool(self, key: str | None) -> Pool[Generation]:
        s = self.settings
        backend = make_endpoint_backend(
            s.url,
            protocol=self.protocol,
            model=self.model,
            api_key=key,
            timeout=s.timeout_s,
            connections=s.concurrency,
        )
        policy = RetryPolicy(max_retries=s.http_retries, timeout=s.timeout_s)
        return Pool(
            [backend],
            identity=self.identity,
            model=self.model,
            cache=self.cache,
            concurrency=s.concurrency,
            policy=policy,
        )

    async def run_async(
        self, jobs: Sequence[LLMJob], on_done: Callable[[], None] | None = None
    ) -> list[Outcome]:
        """Outcomes of ``jobs`` in order; at most ``concurrency`` requests in flight."""
        key = api_key_from_env()
        try:
            if self.model is None:
                self.model = await discover_model(
                    self.settings.url, self.protocol, key, self.settings.timeout_s, flag="--perturber-model"
                )
        except InferenceError as e:
            raise PerturberError(f"cannot discover the perturber model: {e}") from e
        pool = self._pool(key)

        async def step(job: LLMJob) -> Outcome:
            res = await self._one(pool, job)
            if on_done is not None:
                on_done()
            return res

        tasks = [asyncio.ensure_future(step(j)) for j in jobs]
        try:
            return list(await asyncio.gather(*tasks))
        except InferenceError as e:  # fatal: refused credentials, wrong route, endpoint down
            raise PerturberError(f"the perturber endpoint {self._where()} failed: {e}") from e
        finally:
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self.calls += pool.stats.sent
            await pool.aclose()

    def run(self, jobs: Sequence[LLMJob], on_done: Callable[[], None] | None = None) -> list[Outcome]:
        """Synchronous wrapper of :meth:`run_async`."""
        return asyncio.run(self.run_async(jobs, on_done))

    def close(self) -> None:
        self.cache.close()
