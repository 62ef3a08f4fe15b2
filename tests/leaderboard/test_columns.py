"""The board's column names (:mod:`dhp.leaderboard.board.columns`): every column of a full view falls
in exactly one class (a public value or its bound, a private column, anything else), and the private
columns' cells are numbers exactly where they are not text."""

from __future__ import annotations

import pytest

from dhp.leaderboard.board.columns import (
    PRIVATE_SPLIT,
    VIEW_KINDS,
    column_kind,
    dataset_columns,
    effect_column,
    holds_value,
    interval_columns,
    is_private_column,
    is_text_column,
    private_columns,
    unbounded,
)
from dhp.spec import DATASET_NAMES


def _public(ds: str) -> list[str]:
    values = [*dataset_columns(ds, True), *dataset_columns(ds, False), effect_column(ds)]
    return [x for c in values for x in (c, *interval_columns(c))]


def _private(ds: str) -> list[str]:
    priv, diff, flag = private_columns(ds)
    return [priv, *interval_columns(priv), diff, *interval_columns(diff), flag]


@pytest.mark.parametrize("ds", DATASET_NAMES)
def test_every_column_is_in_one_class(ds: str) -> None:
    for c in _public(ds):
        assert holds_value(c) and not is_private_column(c), c
    for c in _private(ds):
        assert is_private_column(c) and not holds_value(c), c
    for c in ("Judge", "Caveats", "Overall", "Rank", "Prompt spread"):
        assert not holds_value(c) and not is_private_column(c), c
    assert is_private_column(PRIVATE_SPLIT) and is_text_column(PRIVATE_SPLIT)


@pytest.mark.parametrize("ds", DATASET_NAMES)
def test_a_bound_names_its_value_and_a_value_its_dataset(ds: str) -> None:
    kinds = {column_kind(c) for c in _public(ds) if unbounded(c) == c}
    assert kinds == {(ds, k) for k in VIEW_KINDS}
    for c in _public(ds) + _private(ds):
        low, high = interval_columns(unbounded(c))
        assert c in (unbounded(c), low, high)
        assert column_kind(low) is None and column_kind(high) is None
    assert [is_text_column(c) for c in _private(ds)] == [False] * 6 + [True]
