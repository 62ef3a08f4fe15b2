"""The scoring layer's vocabulary: judge requests and parsed scores.

A *judge* (a :class:`dhp.inference.protocol.Backend`) turns one :class:`JudgeRequest` into one
:data:`~dhp.inference.protocol.JudgeOutput` (:class:`RawText` or :class:`ScoreDistribution`). The
outputs, sampling settings and errors are the inference layer's: import them from
:mod:`dhp.inference.protocol`, where they are defined (this module re-exports none).

A parser (:mod:`dhp.scoring.parse`) turns an output into a :class:`ParsedScore` or an
:class:`Unparsed` value that carries its reason; an unparsed output is never turned into a score.
Nothing in this module does I/O.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass

import orjson

from dhp.inference.protocol import Backend, SamplingParams, content_key, escaped_content_key
from dhp.scoring.prompts import PromptTemplate
from dhp.types import Role

__all__ = [
    "ORIGINAL",
    "JudgeBackend",
    "JudgeRequest",
    "ParsedScore",
    "PromptFill",
    "Unparsed",
    "json_escaped",
]

#: The role of an original (unperturbed) text; perturbed texts have their perturbation id as role.
ORIGINAL = Role.ORIGINAL.value


def json_escaped(text: str) -> bytes | None:
    """``text`` as the inside of a JSON string, escaped as ``orjson.dumps`` escapes it (what cache keys
    hash: :func:`dhp.inference.protocol.content_key`); None where orjson refuses it (lone surrogates)."""
    try:
        return orjson.dumps(text)[1:-1]
    except orjson.JSONEncodeError:
        return None  # content_key's json path addresses such a prompt


@functools.lru_cache(maxsize=256)
def _escaped_layout(template: PromptTemplate) -> tuple[bytes | str, ...] | None:
    """The template's layout with each literal JSON-escaped (variables stay names); None: no such layout."""
    if template.layout is None:
        return None
    escaped: list[bytes | str] = []
    for i, piece in enumerate(template.layout):
        part = piece if i % 2 else json_escaped(piece)
        if part is None:
            return None
        escaped.append(part)
    return tuple(escaped)


@dataclass(frozen=True)
class PromptFill:
    """What renders the prompts of one item and metric: the metric's template and the item's context
    block, shared by the requests of every text of that item (each fills in its own ``text``).

    ``key_parts`` is the prompt as a JSON string (quotes included, escaped as orjson escapes it), cut
    where the text goes (``None``): a request's cache key is hashed from it and the text's escape,
    without rendering the prompt (:meth:`JudgeRequest.cache_key`). None where orjson refuses a part.
    """

    template: PromptTemplate
    context_block: str
    key_parts: tuple[bytes | None, ...] | None = None

    @classmethod
    def of(cls, template: PromptTemplate, context_block: str, context_json: bytes | None) -> PromptFill:
        """The fill of ``template`` for the item whose context block is ``context_block`` (``context_json``:
        its :func:`json_escaped`, made once per item for all its metrics)."""
        layout = _escaped_layout(template)
        if layout is None or context_json is None:
            return cls(template, context_block)
        parts: list[bytes | None] = [b'"']
        for p in layout:  # literals as they are, the context's variable as its escape, the text's as None
            parts.append(p if isinstance(p, bytes) else context_json if p == "context" else None)
        parts.append(b'"')
        return cls(template, context_block, tuple(parts))

    def render(self, text: str) -> str:
        return self.template.render(text, self.context_block)

    def key_json(self, text: str) -> list[bytes] | None:
        """The prompt this fill renders for ``text`` as JSON string parts (see ``key_parts``); None: not so."""
        text_json = None if self.key_parts is None else json_escaped(text)
        if self.key_parts is None or text_json is None:
            return None
        return [text_json if p is None else p for p in self.key_parts]


@dataclass(frozen=True)
class JudgeRequest:
    """One request: a prompt for one text, one metric and one repeat.

    The metadata (dataset, item, metric, role, severity, text, context) lets built-in judges work
    without a prompt; endpoint backends only read ``prompt`` and ``sampling``. A planned request
    holds a :class:`PromptFill`, not its prompt: the prompt is rendered each time it is read (for
    the request's body: a few µs; the cache key is hashed from the fill's parts) and kept by nobody,
    so the thousands of requests of a dataset waiting for a slot hold no prompts (each repeats its
    item's context: sumpubmed's prompts and their UTF-8 copies took 110 MB, issue 38).
    """

    dataset: str
    item_id: str
    metric: str
    role: str  # ORIGINAL or a perturbation id
    text: str
    context: Mapping[str, str | None]
    rendering: str | PromptFill  # the prompt itself, or what renders it from ``text``
    sampling: SamplingParams
    repeat: int = 0
    severity: str | None = None  # the perturbation's severity; None for originals
    scale: tuple[int, int] = (1, 5)
    metric_label: str = ""

    @property
    def prompt(self) -> str:
        """The prompt the judge reads (rendered anew at each read for a planned request)."""
        r = self.rendering
        return r if isinstance(r, str) else r.render(self.text)

    @property
    def group(self) -> str:
        """Requests of one group share a prompt prefix (same item and metric)."""
        return f"{self.dataset}|{self.item_id}|{self.metric}"

    def cache_key(self, judge: str, model: str | None) -> str:
        """Content address: judge, endpoint model, prompt, sampling parameters, repeat index (a planned
        request's prompt is addressed from its fill's parts, not rendered: :meth:`PromptFill.key_json`)."""
        r = self.rendering
        parts = r.key_json(self.text) if isinstance(r, PromptFill) else None
        if parts is None:
            return content_key(judge, model, self.prompt, self.sampling, self.repeat)
        try:
            return escaped_content_key(judge, model, parts, self.sampling, self.repeat)
        except orjson.JSONEncodeError:  # a judge or model name orjson refuses: content_key's json path
            return content_key(judge, model, self.prompt, self.sampling, self.repeat)


@dataclass(frozen=True)
class ParsedScore:
    value: float
    detail: str = ""  # how it was read, e.g. "fraction", "expected over 3 tokens (mass 0.97)"


@dataclass(frozen=True)
class Unparsed:
    """An output that yields no score. ``reason`` is a short stable code, ``raw`` the output."""

    reason: str
    raw: str = ""


#: A judge backend (one replica): :class:`dhp.inference.protocol.Backend` of a :class:`JudgeRequest`.
JudgeBackend = Backend[JudgeRequest]
