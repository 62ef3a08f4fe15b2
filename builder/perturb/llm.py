"""LLM-based perturbations through an inference endpoint (OpenAI-compatible chat or TGI).

* Protocols: ``openai`` posts to ``{url}/v1/chat/completions``; ``tgi`` posts to ``{url}/generate``.
* The API key, if any, comes only from the environment (``DHP_PERTURBER_API_KEY``, else
  ``HF_TOKEN``); it is sent as a bearer token and never stored or logged.
* Every output is validated (:func:`validate_output`): non-empty, changed, no preamble or commentary,
  not an echo of the prompt, length within sane bounds of the original. Invalid outputs are retried
  with a new seed, up to ``max_attempts``; an item that never gets a valid output is recorded as
  not applicable, with the last reason.
* Results (valid or exhausted) are cached in SQLite keyed by the sha256 of (model, protocol, prompt,
  settings), so a rebuild of the same version makes no new calls. The model and settings are
  stored with every row.
"""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from dhp.builder.errors import PerturberError
from dhp.builder.hashing import sha256_text
from dhp.builder.perturb.base import NotApplicable, Outcome, Perturbed
from dhp.secrets import PERTURBER_KEY_VARS
from dhp.secrets import api_key_from_env as _key_from_env
from dhp.types import Operation

__all__ = [
    "InvalidOutput",
    "LLMJob",
    "LLMPerturber",
    "LLMSettings",
    "PromptCache",
    "api_key_from_env",
    "validate_output",
]

Protocol = Literal["openai", "tgi"]
API_KEY_VARS = PERTURBER_KEY_VARS


def api_key_from_env() -> str | None:
    """The perturber API key from the environment (DHP_PERTURBER_API_KEY, else HF_TOKEN), if set."""
    return _key_from_env(API_KEY_VARS)


@dataclass(frozen=True)
class LLMSettings:
    """Endpoint and sampling settings of the LLM perturber."""

    url: str
    protocol: Protocol = "openai"
    model: str | None = None  # discovered from the endpoint when None
    temperature: float = 0.7
    top_p: float = 0.95
    max_attempts: int = 4
    concurrency: int = 8
    timeout_s: float = 120.0
    http_retries: int = 3


@dataclass(frozen=True)
class LLMJob:
    """One perturbation request: the prompt, the original text and what the output must look like."""

    prompt: str
    label: str  # "Revised Summary:" - stripped when the model repeats it
    original: str
    operation: Operation
    seed: int


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


def _norm(s: str) -> str:
    return " ".join(s.split())


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
    if _norm(out) == _norm(job.original):
        raise InvalidOutput("the output is unchanged")
    n, m = len(job.original), len(out)
    lo: float
    hi: float
    if job.operation is Operation.REWRITE_INSERT:
        lo, hi = n + 5.0, 3.2 * n + 60
    else:
        lo, hi = 0.5 * n - 20, 1.6 * n + 40
    if not lo <= m <= hi:
        raise InvalidOutput(
            f"output length {m} is outside {max(0, int(lo))}-{int(hi)} for an original of {n}"
        )
    return out


class PromptCache:
    """SQLite cache of final perturber results keyed by a request hash."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(path)
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS results (key TEXT PRIMARY KEY, model TEXT NOT NULL, status TEXT NOT NULL, "
            "output TEXT, reason TEXT, attempts INTEGER NOT NULL)"
        )
        self._db.commit()

    def get(self, key: str) -> tuple[str, str | None, str | None, int] | None:
        """(status, output, reason, attempts) for ``key``, if cached."""
        row = self._db.execute(
            "SELECT status, output, reason, attempts FROM results WHERE key = ?", (key,)
        ).fetchone()
        return None if row is None else (str(row[0]), row[1], row[2], int(row[3]))

    def put(
        self, key: str, model: str, status: str, output: str | None, reason: str | None, attempts: int
    ) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO results VALUES (?, ?, ?, ?, ?, ?)",
            (key, model, status, output, reason, attempts),
        )
        self._db.commit()

    def close(self) -> None:
        self._db.close()


class LLMPerturber:
    """Runs :class:`LLMJob` s against an endpoint, with validation, retries and the cache."""

    def __init__(self, settings: LLMSettings, cache_path: Path) -> None:
        self.settings = settings
        self.cache = PromptCache(cache_path)
        self.model: str | None = settings.model
        self.calls = 0  # HTTP generation requests made (tests assert that rebuilds make none)
        base = settings.url.rstrip("/")
        self._base = base[: -len("/v1")] if base.endswith("/v1") else base

    @property
    def generator(self) -> str:
        return f"llm:{self.model}"

    def _headers(self) -> dict[str, str]:
        key = api_key_from_env()
        return {"Authorization": f"Bearer {key}"} if key else {}

    def _request_settings(self, job: LLMJob, attempt: int) -> dict[str, Any]:
        return {
            "temperature": self.settings.temperature,
            "top_p": self.settings.top_p,
            "max_tokens": min(
                4096,
                len(job.original) if job.operation is Operation.REWRITE_INSERT else len(job.original) // 2,
            )
            + 256,
            "seed": (job.seed + attempt) % (2**31),
        }

    def cache_key(self, job: LLMJob) -> str:
        """sha256 of (model, protocol, prompt, first-attempt settings): the prompt hash of a request."""
        payload = {
            "model": self.model,
            "protocol": self.settings.protocol,
            "prompt": job.prompt,
            "settings": self._request_settings(job, 0),
        }
        return sha256_text(json.dumps(payload, sort_keys=True, ensure_ascii=False))

    async def _discover_model(self, client: Any) -> str:
        import httpx

        try:
            if self.settings.protocol == "tgi":
                r = await client.get(f"{self._base}/info", headers=self._headers())
                r.raise_for_status()
                model = r.json().get("model_id")
            else:
                r = await client.get(f"{self._base}/v1/models", headers=self._headers())
                r.raise_for_status()
                data = r.json().get("data") or []
                model = data[0].get("id") if data else None
        except (httpx.HTTPError, ValueError) as e:
            raise PerturberError(
                f"cannot discover the perturber model at {self._base} ({e}); pass --perturber-model"
            ) from e
        if not isinstance(model, str) or not model:
            raise PerturberError(f"the endpoint {self._base} does not name its model; pass --perturber-model")
        return model

    async def _generate(self, client: Any, prompt: str, st: dict[str, Any]) -> str:
        import httpx

        if self.settings.protocol == "tgi":
            url = f"{self._base}/generate"
            body: dict[str, Any] = {
                "inputs": prompt,
                "parameters": {
                    "temperature": st["temperature"],
                    "top_p": st["top_p"],
                    "max_new_tokens": st["max_tokens"],
                    "seed": st["seed"],
                    "do_sample": True,
                    "return_full_text": False,
                },
            }
        else:
            url = f"{self._base}/v1/chat/completions"
            body = {"model": self.model, "messages": [{"role": "user", "content": prompt}], **st}
        last: Exception | None = None
        for i in range(self.settings.http_retries + 1):
            try:
                self.calls += 1
                r = await client.post(url, json=body, headers=self._headers())
                if r.status_code == 429 or r.status_code >= 500:
                    last = PerturberError(f"{url}: HTTP {r.status_code}")
                    await asyncio.sleep(min(8.0, 0.5 * 2**i))  # back off before retrying the endpoint
                    continue
                r.raise_for_status()
                data = r.json()
                if self.settings.protocol == "tgi":
                    text = data[0]["generated_text"] if isinstance(data, list) else data["generated_text"]
                else:
                    text = data["choices"][0]["message"]["content"]
                if not isinstance(text, str):
                    raise PerturberError(f"{url}: the response has no text")
                return text
            except httpx.TransportError as e:
                last = e
                await asyncio.sleep(min(8.0, 0.5 * 2**i))
            except httpx.HTTPStatusError as e:
                raise PerturberError(f"{url}: HTTP {e.response.status_code}: {e.response.text[:200]}") from e
            except (KeyError, IndexError, TypeError, ValueError) as e:
                raise PerturberError(f"{url}: unexpected response shape ({e})") from e
        raise PerturberError(f"{url}: failed after {self.settings.http_retries + 1} tries ({last})")

    def _row(
        self, job: LLMJob, key: str, status: str, output: str | None, reason: str | None, attempts: int
    ) -> Outcome:
        if status != "ok" or output is None:
            return NotApplicable(f"LLM output invalid after {attempts} attempt(s): {reason}")
        st = self._request_settings(job, attempts - 1)
        settings = {
            "protocol": self.settings.protocol,
            "model": self.model,
            "temperature": st["temperature"],
            "top_p": st["top_p"],
            "max_tokens": st["max_tokens"],
            "seed": st["seed"],
            "attempts": attempts,
            "prompt_sha256": key,
        }
        return Perturbed(output, self.generator, settings)

    async def _one(self, client: Any, sem: asyncio.Semaphore, job: LLMJob) -> Outcome:
        key = self.cache_key(job)
        hit = self.cache.get(key)
        if hit is not None:
            return self._row(job, key, *hit)
        reason = ""
        async with sem:
            for attempt in range(self.settings.max_attempts):
                raw = await self._generate(client, job.prompt, self._request_settings(job, attempt))
                try:
                    out = validate_output(raw, job)
                except InvalidOutput as e:
                    reason = str(e)
                    continue
                self.cache.put(key, str(self.model), "ok", out, None, attempt + 1)
                return self._row(job, key, "ok", out, None, attempt + 1)
        self.cache.put(key, str(self.model), "invalid", None, reason, self.settings.max_attempts)
        return self._row(job, key, "invalid", None, reason, self.settings.max_attempts)

    async def run_async(
        self, jobs: Sequence[LLMJob], on_done: Callable[[], None] | None = None
    ) -> list[Outcome]:
        """Outcomes of ``jobs`` in order; at most ``concurrency`` requests in flight."""
        import httpx

        sem = asyncio.Semaphore(self.settings.concurrency)
        async with httpx.AsyncClient(timeout=self.settings.timeout_s) as client:
            if self.model is None:
                self.model = await self._discover_model(client)

            async def step(job: LLMJob) -> Outcome:
                res = await self._one(client, sem, job)
                if on_done is not None:
                    on_done()
                return res

            return list(await asyncio.gather(*(step(j) for j in jobs)))

    def run(self, jobs: Sequence[LLMJob], on_done: Callable[[], None] | None = None) -> list[Outcome]:
        """Synchronous wrapper of :meth:`run_async`."""
        return asyncio.run(self.run_async(jobs, on_done))

    def close(self) -> None:
        self.cache.close()
