"""Average characters / words / sentences of judged texts, to compare with the paper's NLTK numbers.

NLTK's punkt data cannot be downloaded here, so sentences are split with **pysbd** (rule-based,
installs from PyPI, English rules), then two kinds of false breaks are joined again (pysbd breaks
lower-cased scientific prose, SumPubMed, after them): an abbreviated genus before its species
("m. bovis", "e. coli": the next word is lower-case and no frequent English word, by wordfreq) and
a scholarly abbreviation before lower-case text, a digit, the ``<dig>`` mask or a bracket
("approx. <dig> cells", "et al. <dig>", "fig. 2", "i.e. the", "cf. the"); also joined: a break before
lower-case text where no sentence ended ("... although | b. cepacia ...") and a part without a word
("... pimpin now!!" | "!'"). Words are whitespace-separated tokens; characters are Python
``len``. The paper's numbers (SPEC §2) are shown beside ours in each card.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["SPLITTER", "TextStats", "compute_stats", "split_sentences"]

SPLITTER = "pysbd 0.3.4 (English, clean=False), abbreviation breaks joined"


@functools.lru_cache(maxsize=1)
def _segmenter() -> object:
    import pysbd

    return pysbd.Segmenter(language="en", clean=False)


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text`` by pysbd, stripped, empty ones dropped, false breaks after an abbreviation
    joined (see the module's doc; memoised: pysbd is slow)."""
    return list(_split_cached(text))


#: abbreviations of scholarly prose that end no sentence before lower-case text, a number or a bracket
_ABBREVIATIONS = frozenset(
    "al approx ca cf e.g eg fig figs i.e ie eq eqs ref refs resp vs viz no nos vol sp spp var subsp".split()
)
_LAST_WORD = re.compile(r"(?:^|[\s(\[])([A-Za-z](?:\.[A-Za-z])*|[A-Za-z]+)\.$")
_GENUS = re.compile(r"(?:^|[\s(\[])[A-Za-z]\.$")  # a one-letter genus abbreviation: "m." of "m. bovis"
_SPECIES = re.compile(r"([a-z][a-z-]+)\b")
_HAS_WORD = re.compile(r"\w")
_SENTENCE_END = re.compile(r"[.!?…][\"'”’)\]]*$")
_CONTINUES = re.compile(r"[a-z\d(\[]|<dig>")
#: a species name is no frequent English word ("coli" 3.3, "bovis" 2.3; "the" 7.7, "results" 5.2)
_SPECIES_MAX_ZIPF = 4.0


def _false_break(before: str, after: str) -> bool:
    """Does pysbd's break between ``before`` and ``after`` fall inside a sentence: after an abbreviation,
    before lower-case text with no sentence end before it ("... although | b. cepacia is ..."), or
    around a part with no word in it ("... now!!" | "!'", "." | "Replays were ...")?"""
    if not _HAS_WORD.search(before) or not _HAS_WORD.search(after):
        return True
    if not _SENTENCE_END.search(before) and after[:1].islower():
        return True
    if _GENUS.search(before) and (m := _SPECIES.match(after)):
        from wordfreq import zipf_frequency

        return zipf_frequency(m.group(1), "en") < _SPECIES_MAX_ZIPF
    word = _LAST_WORD.search(before)
    return (
        word is not None and word.group(1).lower() in _ABBREVIATIONS and _CONTINUES.match(after) is not None
    )


@functools.lru_cache(maxsize=4096)
def _split_cached(text: str) -> tuple[str, ...]:
    seg = _segmenter()
    parts: list[str] = seg.segment(text)  # type: ignore[attr-defined]
    spans: list[tuple[int, int]] = []  # offsets of the stripped parts in ``text``
    cursor = 0
    for part in (p.strip() for p in parts):
        at = text.find(part, cursor) if part else -1
        if at < 0:  # pysbd normalised something: keep its part as it is
            return tuple(p.strip() for p in parts if p.strip())
        if spans and _false_break(text[spans[-1][0] : spans[-1][1]], part):
            spans[-1] = (spans[-1][0], at + len(part))
        else:
            spans.append((at, at + len(part)))
        cursor = at + len(part)
    return tuple(text[a:b] for a, b in spans)


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
