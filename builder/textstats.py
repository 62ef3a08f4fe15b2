"""Average characters / words / sentences of judged texts, to compare with the paper's NLTK numbers.

NLTK's punkt data cannot be downloaded here, so sentences are split with **pysbd** (rule-based,
installs from PyPI, English rules). Words are whitespace-separated tokens; characters are Python
``len``. The paper's numbers (SPEC §2) are shown beside ours in each card.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["SPLITTER", "TextStats", "compute_stats", "split_sentences"]

SPLITTER = "pysbd 0.3.4 (English, clean=False)"


@functools.lru_cache(maxsize=1)
def _segmenter() -> object:
    import pysbd

    return pysbd.Segmenter(language="en", clean=False)


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text`` by pysbd, stripped, empty ones dropped (memoised: pysbd is slow)."""
    return list(_split_cached(text))


@functools.lru_cache(maxsize=4096)
def _split_cached(text: str) -> tuple[str, ...]:
    seg = _segmenter()
    parts: list[str] = seg.segment(text)  # type: ignore[attr-defined]
    return tuple(p.strip() for p in parts if p.strip())


@dataclass(frozen=True)
class TextStats:
    """Mean characters, words and sentences over a set of texts."""

    n: int
    chars: float
    words: float
    sentences: float


def compute_stats(texts: Iterable[str]) -> TextStats:
    """Means over ``texts`` (all zero for no texts)."""
    ts = list(texts)
    if not ts:
        return TextStats(0, 0.0, 0.0, 0.0)
    n = len(ts)
    return TextStats(
        n=n,
        chars=sum(len(t) for t in ts) / n,
        words=sum(len(t.split()) for t in ts) / n,
        sentences=sum(len(split_sentences(t)) for t in ts) / n,
    )
