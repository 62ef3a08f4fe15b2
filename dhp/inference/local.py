"""An in-process ``transformers`` causal LM as a judge (the ``local`` extra: torch + transformers).

``expected`` mode reads the model's exact next-token distribution right after the prompt (chat
template applied, generation prompt added): the probabilities of every vocabulary token that
decodes to a score on the metric's scale (``"4"``, ``" 4"``, ...) are summed per score and returned
as a :class:`ScoreDistribution`; the parser renormalises over the valid scores (G-Eval's
``Σ p(s)·s``). No sampling, no top-k truncation. ``paper`` and ``sample`` modes generate text (greedy,
or sampling seeded per request with ``torch.manual_seed``) and return it for parsing.

The model runs in a worker thread, one request at a time (a lock), so the event loop stays free;
the runner loads it before the first request and sends requests one at a time.

``MODEL`` is a folder, or a Hub model id taken from the local Hugging Face cache or else the Hub. A
missing folder, or a Hub id the Hub cannot give (offline, unreachable, unknown), is one
:class:`FatalJudgeError` line before transformers is asked (it would retry for most of a minute).
"""

from __future__ import annotations

import asyncio
import re
import threading
from pathlib import Path
from typing import Any

from dhp.inference.protocol import (
    FatalJudgeError,
    JudgeOutput,
    RawText,
    ScoreDistribution,
    ScoringRequest,
    token_score,
)

__all__ = ["LocalModel", "check_model"]

_HUB_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)?$")


def check_model(model: str, revision: str | None = None) -> None:
    """Refuse, in one line, a model transformers could not load: no such folder, or a Hub id out of reach."""
    if Path(model).is_dir():
        return
    if not _HUB_ID.match(model):
        raise FatalJudgeError("no-model", f"--local {model}: no such folder (nor a Hub model id ORG/NAME)")
    from huggingface_hub import HfApi, try_to_load_from_cache

    if isinstance(try_to_load_from_cache(model, "config.json", revision=revision), str):
        return  # in the local Hugging Face cache: no network needed
    from dhp.inference.hub import hub_failure, hub_unusable_errors

    try:
        HfApi().model_info(model, revision=revision)
    except hub_unusable_errors() as e:
        line = hub_failure(f"model {model}", e)
        raise FatalJudgeError("no-model", f"--local {model}: not a folder, and {line}") from e


class LocalModel:
    def __init__(self, model: str, revision: str | None = None, seed: int = 0, device: str = "cpu") -> None:
        self.model_name = model
        self.revision = revision
        self.seed = seed
        self.device = device
        self.label = f"local:{Path(model).name or model}"
        self._lock = threading.Lock()
        self._loaded: tuple[Any, Any] | None = None
        self._score_ids: dict[tuple[int, int], dict[int, list[int]]] = {}

    # -- loading (lazy, in the worker thread) ------------------------------------------------------
    def _load(self) -> tuple[Any, Any]:
        if self._loaded is None:
            check_model(self.model_name, self.revision)
            try:
                from transformers import AutoModelForCausalLM, AutoTokenizer
            except ImportError as e:  # pragma: no cover - depends on the installed extras
                from dhp.extras import install_command

                raise FatalJudgeError(
                    "no-extra", f"the local judge needs the `local` extra: {install_command('local')}"
                ) from e
            try:
                tok: Any = AutoTokenizer.from_pretrained(self.model_name, revision=self.revision)
                model: Any = AutoModelForCausalLM.from_pretrained(self.model_name, revision=self.revision)
            except OSError as e:  # transformers' one type for files it cannot find or fetch
                cause = " ".join(str(e).split())[:300]
                raise FatalJudgeError(
                    "no-model", f"--local {self.model_name}: cannot load it ({cause})"
                ) from e
            model.to(self.device)
            model.eval()
            self._loaded = (tok, model)
        return self._loaded

    def _ids_by_score(self, tok: Any, scale: tuple[int, int]) -> dict[int, list[int]]:
        """Vocabulary ids per score: every token that decodes to the score (with or without a space)."""
        if scale not in self._score_ids:
            found: dict[int, list[int]] = {s: [] for s in range(scale[0], scale[1] + 1)}
            special = set(getattr(tok, "all_special_ids", []) or [])
            for i in range(len(tok)):
                if i in special:
                    continue
                v = token_score(tok.decode([i]), scale)
                if v is not None:
                    found[v].append(i)
            self._score_ids[scale] = found
        return self._score_ids[scale]

    def _inputs(self, tok: Any, prompt: str) -> Any:
        if getattr(tok, "chat_template", None):
            enc = tok.apply_chat_template(
                [{"role": "user", "content": prompt}],
                add_generation_prompt=True,
                return_dict=True,
                return_tensors="pt",
            )
        else:
            enc = tok(prompt, return_tensors="pt")
        return enc.to(self.device)

    # -- one request -------------------------------------------------------------------------------
    def _run(self, request: ScoringRequest) -> JudgeOutput:
        import torch

        with self._lock:
            tok, model = self._load()
            enc = self._inputs(tok, request.prompt)
            s = request.sampling
            if s.logprobs:
                with torch.no_grad():
                    logits = model(**enc).logits[0, -1].float()
                probs = torch.softmax(logits, dim=-1)
                ids = self._ids_by_score(tok, request.scale)
                return ScoreDistribution(
                    tuple(
                        (float(score), float(probs[v].sum()) if v else 0.0)
                        for score, v in sorted(ids.items())
                    )
                )
            gen_kwargs: dict[str, Any] = {"max_new_tokens": s.max_tokens, "pad_token_id": tok.pad_token_id}
            if s.temperature > 0:
                torch.manual_seed(s.seed if s.seed is not None else self.seed)
                gen_kwargs.update(do_sample=True, temperature=s.temperature, top_p=1.0, top_k=0)
            else:
                gen_kwargs["do_sample"] = False
            with torch.no_grad():
                out = model.generate(**enc, **gen_kwargs)
            new = out[0, enc["input_ids"].shape[1] :]
            return RawText(text=tok.decode(new, skip_special_tokens=True), tokens=None)

    def _load_locked(self) -> None:
        with self._lock:
            self._load()

    async def load(self) -> None:
        """Load tokenizer and model now (outside any per-request timeout)."""
        await asyncio.to_thread(self._load_locked)

    async def __call__(self, request: ScoringRequest) -> JudgeOutput:
        return await asyncio.to_thread(self._run, request)

    async def aclose(self) -> None:
        self._loaded = None
