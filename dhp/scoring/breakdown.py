"""D^EW by length tertile of the original text (issue 20; DHP v2: "Are judgments stable across
context length?"). Pure functions over a result's stored item scores; no request.

The items are ordered by the word count of their original text (``ItemScores.original_words``, ties
kept in item order) and cut into three groups as equal as possible (:func:`numpy.array_split`);
each group's D^EW per perturbation and D_avg^EW are recomputed with
:func:`dhp.scoring.stats.analyse` (no bootstrap) under the result's weights and combination.
Fewer items per group mean less power: compare tertiles with each other, not with the full D.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dhp.scoring.results import Result
from dhp.scoring.stats import analyse

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


def _nan_vec(values: tuple[float | None, ...], rows: np.ndarray) -> np.ndarray:
    return np.array([math.nan if values[i] is None else values[i] for i in rows], dtype=np.float64)


def _opt(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def length_tertiles(result: Result) -> list[Tertile]:
    """Three tertiles of the result's items by original length; empty when the result lacks the
    item scores or the lengths (results before schema 1.2) or has fewer than 3 items."""
    s = result.scores
    if s is None or s.original_words is None or len(s.item_ids) < 3:
        return []
    words = np.array(s.original_words)
    order = np.argsort(words, kind="stable")
    levels = {p.id: p.level for p in result.perturbations}
    out = []
    for name, rows in zip(TERTILE_NAMES, np.array_split(order, 3), strict=True):
        rows = np.sort(rows)
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
            )
        )
    return out
