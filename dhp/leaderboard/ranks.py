"""Ranks with their uncertainty (issue 20): a rank range per judge from the bootstrap intervals.

Arena-style: judge i cannot rank better than 1 + the number of judges whose interval lies wholly
above its own, nor worse than the number of judges minus those whose interval lies wholly below.
Judges whose intervals overlap thus share ranks. The rows stay sorted by the point estimate. A
judge without an interval uses its point estimate as one (a judge without an estimate has no rank).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["rank_range", "rank_ranges"]


def rank_range(best: int, worst: int) -> str:
    """``"3"`` or ``"2–5"``."""
    return str(best) if best == worst else f"{best}–{worst}"


def rank_ranges(
    values: Sequence[float], lows: Sequence[float], highs: Sequence[float]
) -> list[tuple[int, int] | None]:
    """(best, worst) rank of each judge (None without an estimate), from the intervals [low, high]."""
    spans: list[tuple[float, float] | None] = []
    for v, lo, hi in zip(values, lows, highs, strict=True):
        if not math.isfinite(v):
            spans.append(None)
        elif math.isfinite(lo) and math.isfinite(hi):
            spans.append((min(lo, v), max(hi, v)))
        else:
            spans.append((v, v))
    ranked = [s for s in spans if s is not None]
    out: list[tuple[int, int] | None] = []
    for s in spans:
        if s is None:
            out.append(None)
            continue
        above = sum(1 for o in ranked if o[0] > s[1])
        below = sum(1 for o in ranked if o[1] < s[0])
        out.append((1 + above, len(ranked) - below))
    return out
