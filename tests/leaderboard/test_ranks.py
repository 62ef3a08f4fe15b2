"""Rank ranges (issue 20): judges whose Overall intervals overlap share ranks; rows stay sorted by
the point estimate."""

from __future__ import annotations

import math

import pandas as pd

from dhp.leaderboard import table
from dhp.leaderboard.ranks import rank_range, rank_ranges

NAN = math.nan


def test_overlapping_intervals_share_ranks_and_separated_ones_do_not() -> None:
    values = [5.0, 4.0, 3.8, 1.0, NAN]
    lows = [4.5, 3.5, 3.0, 0.5, NAN]
    highs = [5.5, 4.2, 4.1, 1.5, NAN]
    assert rank_ranges(values, lows, highs) == [(1, 1), (2, 3), (2, 3), (4, 4), None]
    assert [rank_range(*r) for r in rank_ranges(values, lows, highs)[:4]] == ["1", "2–3", "2–3", "4"]
    # an interval spanning everything ranks anywhere
    assert rank_ranges([3.0, 2.0, 1.0], [0.0, 1.9, 0.9], [9.0, 2.1, 1.1]) == [(1, 3), (1, 2), (2, 3)]
    # no interval: the estimate is its own interval (ties share the rank)
    assert rank_ranges([2.0, 2.0, 1.0], [NAN] * 3, [NAN] * 3) == [(1, 2), (1, 2), (3, 3)]


def test_the_board_shows_rank_ranges_sorted_by_the_estimate() -> None:
    overall = "Overall D_avg^EW"
    lo, hi = table.interval_columns(overall)
    df = pd.DataFrame(
        {
            "Judge": ["a", "b", "c", "d"],
            "Family": ["x"] * 4,
            "Model": ["m"] * 4,
            overall: [3.0, 5.0, 4.8, 1.0],
            lo: [2.5, 4.5, 4.0, 0.5],
            hi: [3.5, 5.5, 5.0, 1.5],
        }
    )
    out = table._rank_and_sort(df, overall, table.DEFAULT_SORT)
    assert list(out["Judge"]) == ["b", "c", "a", "d"]
    assert list(out[table.RANK]) == ["1–2", "1–2", "3", "4"]
