"""Rank ranges (issue 20): judges whose Overall intervals overlap share ranks; rows stay sorted by
the point estimate."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dhp.leaderboard import table
from dhp.leaderboard.ranks import rank_range, rank_ranges

NAN = math.nan


def test_overlapping_intervals_share_ranks_and_separated_ones_do_not() -> None:
    values = [5.0, 4.0, 3.8, 1.0, NAN]
    lows = [4.5, 3.5, 3.0, 0.5, NAN]
    highs = [5.5, 4.2, 4.1, 1.5, NAN]
    assert rank_ranges(values, lows, highs) == [(1, 1), (2, 3), (2, 3), (4, 4), None]
    assert [rank_range(*r) for r in rank_ranges(values, lows, highs) if r is not None] == [
        "1",
        "2–3",
        "2–3",
        "4",
    ]
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


def test_pareto_front_keeps_only_judges_no_smaller_judge_beats() -> None:
    from dhp.leaderboard.plots import pareto_front

    pts = [
        ("big", 70.0, 3.0),
        ("mid", 7.0, 2.0),
        ("bloated", 30.0, 1.5),
        ("tiny", 1.0, 0.5),
        ("twin", 7.0, 2.0),
    ]
    assert pareto_front(pts) == ["tiny", "mid", "big"]
    assert pareto_front([]) == []


def test_size_points_take_declared_sizes_and_controls_as_reference_lines(tmp_path: Path) -> None:
    from matplotlib.lines import Line2D

    from dhp.leaderboard.compare_view import size_points
    from dhp.leaderboard.plots import size_plot
    from dhp.leaderboard.service import AppConfig, Backend
    from dhp.leaderboard.stores import LocalStore
    from dhp.scoring.results import dump_result
    from tests.leaderboard.factory import make_result

    root = tmp_path / "results"
    judges = [("Big", 0.9, 70e9), ("Small", 0.3, 2e9), ("Unsized", 0.5, None)]
    for ds in ("summeval", "story-cloze"):
        for name, skill, params in judges:
            r = make_result(name, ds, skill=skill, n_params=params, n_items=20)
            (root / name / f"{ds}@v1.json").parent.mkdir(parents=True, exist_ok=True)
            (root / name / f"{ds}@v1.json").write_text(dump_result(r))
        r = make_result("random", ds, skill=0.0, protocol="builtin", model="random", n_items=20)
        (root / "random").mkdir(exist_ok=True)
        (root / "random" / f"{ds}@v1.json").write_text(dump_result(r))
    be = Backend(
        AppConfig(
            results=LocalStore(root), requests=LocalStore(tmp_path / "q"), votes=LocalStore(tmp_path / "v")
        )
    )
    full, _ = be.frame()
    points, controls = size_points(full)
    assert sorted((n, s) for n, s, _ in points) == [("Big", 70.0), ("Small", 2.0)]
    assert [n for n, _ in controls] == ["random"]
    big = next(d for n, _, d in points if n == "Big")
    expected = (
        full.loc[full["Judge"] == "Big", ["summeval D_avg^EW", "story-cloze D_avg^EW"]].mean(axis=1)
    ).item()
    assert big == pytest.approx(expected)
    fig = size_plot(points, controls)
    (ax,) = fig.axes
    ys = [list(np.asarray(ln.get_ydata(), dtype=float)) for ln in ax.get_lines() if isinstance(ln, Line2D)]
    flat = [y for y in ys if len(set(y)) == 1]
    assert any(y[0] == pytest.approx(controls[0][1]) for y in flat)  # the control's reference line
    assert ax.get_xscale() == "log"
