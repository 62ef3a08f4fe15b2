"""Span edits shared by the offline operations: apply, pick, count per severity, word lookups."""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from dhp.types import Severity

__all__ = [
    "MAJOR_CHANGES",
    "WORD",
    "Edit",
    "apply_edits",
    "case_like",
    "change_count",
    "inflect",
    "lemmas",
    "pick_balanced",
]

MAJOR_CHANGES = 3  # "several": two or three changes
#: A word token: letters with inner apostrophes or hyphens ("don't", "well-known").
WORD = re.compile(r"[A-Za-z]+(?:['’-][A-Za-z]+)*")


@dataclass(frozen=True)
class Edit:
    """Replace ``text[start:end]`` by ``new``; ``kind`` names the rule that made it."""

    start: int
    end: int
    new: str
    kind: str


def apply_edits(text: str, edits: Sequence[Edit]) -> str:
    out = text
    for e in sorted(edits, key=lambda e: e.start, reverse=True):
        out = out[: e.start] + e.new + out[e.end :]
    return out


def change_count(severity: Severity) -> tuple[int, int]:
    """(minimum, maximum) number of changes for a severity: one, or two to three for major."""
    return (2, MAJOR_CHANGES) if severity is Severity.MAJOR else (1, 1)


def pick_balanced(
    cands: Sequence[Edit],
    n: int,
    rng: random.Random,
    gap: int = 0,
    weights: Mapping[str, float] | None = None,
    least: int = 0,
    clash: Callable[[Edit, Edit], bool] | None = None,
) -> list[Edit]:
    """Up to ``n`` non-overlapping edits: a random kind first (equally likely, or by ``weights``, 1 if
    unlisted), then a site.

    A kind is repeated only to reach ``least`` edits, so one frequent rule (e.g. prepositions) cannot dominate a
    row nor, through its rows, a dataset. ``gap`` keeps chosen edits at least that many characters apart, and
    no two chosen edits ``clash``."""
    by_kind: dict[str, list[Edit]] = {}
    for e in cands:
        by_kind.setdefault(e.kind, []).append(e)
    chosen: list[Edit] = []
    used: set[str] = set()
    kinds = sorted(by_kind)
    while len(chosen) < n and kinds:
        fresh = [k for k in kinds if k not in used] or (kinds if len(chosen) < least else [])
        if not fresh:
            break
        kind = rng.choices(fresh, [(weights or {}).get(k, 1.0) for k in fresh])[0]
        sites = [
            e
            for e in by_kind[kind]
            if not any(
                (e.start < c.end + gap and c.start < e.end + gap) or (clash and clash(e, c)) for c in chosen
            )
        ]
        if not sites:
            kinds.remove(kind)
            continue
        chosen.append(rng.choice(sites))
        used.add(kind)
    return chosen


def case_like(src: str, new: str) -> str:
    """``new`` with the capitalisation of ``src`` (Title or lower case)."""
    return new[:1].upper() + new[1:] if src[:1].isupper() else new


@functools.lru_cache(maxsize=65536)
def lemmas(word: str) -> dict[str, tuple[str, ...]]:
    """Part of speech -> lemmas of a lower-case word from lemminflect's bundled lexicon ({} if unknown)."""
    import lemminflect

    out: dict[str, tuple[str, ...]] = lemminflect.getAllLemmas(word)
    return out


@functools.lru_cache(maxsize=65536)
def inflect(lemma: str, tag: str) -> str | None:
    """The first Penn-tag inflection of ``lemma`` (e.g. ``("go", "VBD") -> "went"``), or None."""
    import lemminflect

    forms: tuple[str, ...] = lemminflect.getInflection(lemma, tag=tag)
    return forms[0] if forms else None
