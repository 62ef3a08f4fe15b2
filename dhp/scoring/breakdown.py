"""D^EW by length tertile of the original text (issue 20; DHP v2: "Are judgments stable across
context length?"). Pure functions over a result's stored item scores; no request.

The items are ordered by the word count of their original text (``ItemScores.original_words``) and
cut into three groups as equal as possible with every length in one group only (a cut moves to the
nearest change of length, so the groups' word ranges never overlap; lengths too uniform for three
non-empty groups give none); each group's D^EW per perturbation and D_avg^EW are recomputed with
:func:`dhp.scoring.analysis.analyse` (no bootstrap) under the result's weights and combination.
Fewer items per group mean less power: compare tertiles with each other, not with the full D.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dhp.scoring.analysis import analyse
from dhp.scoring.results import Result

__all__ = ["Tertile", "length_tertiles"]

TERTILE_NAMES = ("short", "medium", "long")


@dataclass(frozen=True)
class Tertile:
    name: str  # short | medium | long
    n_items: int
    min_words: int
    max_words: int
    d_avg_ew: float | None
    d_ew: dict[str, float | None]  # perturbation -> D^EW
    rows: tuple[int, ...] = ()  # the group's items: indices into ``ItemScores.item_ids``


def _nan_vec(values: tuple[float | None, ...], rows: np.ndarray) -> np.ndarray:
    return np.array([math.nan if values[i] is None else values[i] for i in rows], dtype=np.float64)


def _opt(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def _cut(lengths: np.ndarray, ideal: int) -> int:
    """The position nearest ``ideal`` in sorted ``lengths`` where the length changes (0 or n if none)."""
    changes = np.flatnonzero(lengths[1:] != lengths[:-1]) + 1
    if changes.size == 0:
        return 0
    return int(changes[np.argmin(np.abs(changes - ideal) * 2 + (changes > ideal))])  # a tie: the lower


def _groups(words: np.ndarray) -> list[np.ndarray]:
    """Item indices in three groups by length, as equal as possible, no length in two groups; [] when
    the lengths do not allow three non-empty groups."""
    order = np.argsort(words, kind="stable")
    lengths = words[order]
    sizes = [a.size for a in np.array_split(order, 3)]
    first = _cut(lengths, sizes[0])
    second = _cut(lengths, sizes[0] + sizes[1])
    if not 0 < first < second < len(order):
        return []
    return [np.sort(g) for g in np.split(order, [first, second])]


def length_tertiles(result: Result) -> list[Tertile]:
    """Three tertiles of the result's items by original length; empty when the result lacks the
    item scores or the lengths (results before schema 1.2), or its lengths allow no three groups."""
    s = result.scores
    if s is None or s.original_words is None or len(s.item_ids) < 3:
        return []
    words = np.array(s.original_words)
    levels = {p.id: p.level for p in result.perturbations}
    out = []
    groups = _groups(words)
    for name, rows in zip(TERTILE_NAMES[: len(groups)], groups, strict=True):
        a = analyse(
            {m: _nan_vec(v, rows) for m, v in s.original.items()},
            {p: {m: _nan_vec(v, rows) for m, v in per.items()} for p, per in s.perturbed.items()},
            {p: levels[p] for p in s.perturbed},
            result.scoring.weights,
            result.scoring.combine_method,
            n_boot=0,
        )
        out.append(
            Tertile(
                name,
                int(rows.size),
                int(words[rows].min()),
                int(words[rows].max()),
                _opt(a.d_avg_ew),
                {pa.perturbation: _opt(pa.d_ew) for pa in a.perturbations},
                tuple(int(i) for i in rows),
            )
        )
    return out
