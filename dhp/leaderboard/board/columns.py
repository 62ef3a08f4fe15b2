"""How the board names its columns, in one place: a dataset's D and effect columns, the private split's
columns, and the ``<column> low`` / ``<column> high`` bounds of each one's interval.

The table (:mod:`dhp.leaderboard.board.table`), the private split (:mod:`.private_split`) and the page
(:mod:`dhp.leaderboard.page.board_html`) all classify a column by these functions, so a name means
one thing everywhere: a value column holds a number with an interval, a bound holds one end of it.
"""

from __future__ import annotations

import pandas as pd

__all__ = [
    "BOUNDS",
    "EFFECT",
    "KINDS",
    "PRIVATE_SPLIT",
    "VIEW_KINDS",
    "column_kind",
    "d_columns",
    "dataset_columns",
    "effect_column",
    "holds_value",
    "interval_columns",
    "is_private_column",
    "is_text_column",
    "private_columns",
    "unbounded",
    "value_columns",
]

#: The suffixes of a value column's interval bounds.
BOUNDS = (" low", " high")
KINDS: tuple[str, ...] = ("D_avg", "D_min")
#: The effect beside D (issue 35): a dataset's level-balanced mean share of pairs scored lower (ties
#: half; metrics by the benchmark's expert weights), which does not grow with the number of pairs.
EFFECT = "effect"
#: What a view can show per dataset: the D kinds and the effect.
VIEW_KINDS: tuple[str, ...] = (*KINDS, EFFECT)
#: The Columns choice that shows the private split's columns, and the column naming its commitments.
PRIVATE_SPLIT = "Private split"
_PRIVATE_SUFFIXES = (" private", " public-private", " fits")


def interval_columns(col: str) -> tuple[str, str]:
    """The columns holding the bootstrap interval of a value column."""
    return f"{col}{BOUNDS[0]}", f"{col}{BOUNDS[1]}"


def unbounded(col: str) -> str:
    """The value column an interval bound belongs to (``col`` itself for any other column)."""
    return next((col.removesuffix(b) for b in BOUNDS if col.endswith(b)), col)


def dataset_columns(dataset: str, weighted: bool) -> tuple[str, str]:
    """The two D column labels of a dataset, e.g. ``summeval D_avg^EW``, ``summeval D_min^EW``."""
    suffix = "^EW" if weighted else ""
    return tuple(f"{dataset} {k}{suffix}" for k in KINDS)  # type: ignore[return-value]


def effect_column(dataset: str) -> str:
    """The column of a dataset's effect, e.g. ``summeval effect``."""
    return f"{dataset} {EFFECT}"


def column_kind(col: str) -> tuple[str, str] | None:
    """``(dataset, kind)`` of a public value column (a D or an effect, not an interval bound), e.g.
    ``("summeval", "D_avg")`` for ``summeval D_avg^EW``; ``None`` for any other column."""
    if col.endswith(BOUNDS):
        return None
    if " D_" in col:
        ds, _, rest = col.partition(" D_")
        return ds, "D_" + rest.removesuffix("^EW")
    if col.endswith(f" {EFFECT}"):
        return col.removesuffix(f" {EFFECT}"), EFFECT
    return None


def holds_value(col: str) -> bool:
    """Whether ``col`` is a public value column (a D or an effect) or one of its interval's bounds."""
    return column_kind(unbounded(col)) is not None


def d_columns(df: pd.DataFrame) -> list[str]:
    """The discernment columns of a frame (every column holding a D value, not its interval)."""
    return [c for c in df.columns if " D_" in c and not c.endswith(BOUNDS)]


def value_columns(df: pd.DataFrame) -> list[str]:
    """The columns holding a number with an interval: D values and effects, in frame order."""
    return [c for c in df.columns if column_kind(c) is not None]


def private_columns(dataset: str) -> tuple[str, str, str]:
    """A dataset's private columns: private D_avg^EW, public − private (at the same pairs), the flag."""
    return tuple(dataset + s for s in _PRIVATE_SUFFIXES)  # type: ignore[return-value]


def is_private_column(col: str) -> bool:
    """Whether ``col`` is one of the private split's columns (an interval bound included)."""
    base = unbounded(col)
    return base == PRIVATE_SPLIT or base.endswith(_PRIVATE_SUFFIXES)


def is_text_column(col: str) -> bool:
    """Whether ``col`` is a private column holding text: a flag or the commitments."""
    return col == PRIVATE_SPLIT or col.endswith(_PRIVATE_SUFFIXES[2])
