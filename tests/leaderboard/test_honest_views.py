"""Issue 10 on the leaderboard: missing D stays missing, only tests are coloured (calibrated for the
unweighted D), qualified and per-level numbers, the prompt-stability column, user tasks apart."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pytest

from dhp.leaderboard.board import table
from dhp.leaderboard.board.stores import LocalStore
from dhp.leaderboard.page.formatting import (
    MARK_ABOVE,
    calibrated_d,
    judge_header,
    perturbation_frame,
    summary_frame,
)
from dhp.leaderboard.page.service import AppConfig, BoardService
from dhp.scoring.result_files import dump_result
from dhp.scoring.stability import stability
from dhp.spec import BENCHMARK
from tests.leaderboard.factory import make_result


def test_a_perturbation_without_d_is_shown_missing_never_zero() -> None:
    r = make_result("NA judge", "summeval", skill=0.8, n_items=20, no_scores_for="char_typo_minor")
    df = perturbation_frame(r).data  # type: ignore[attr-defined]  # Styler.data: real, absent from pandas-stubs
    row = df.set_index("Perturbation").loc["char_typo_minor"]
    assert row["D (paper)"] == row["D^EW"] == row["D calibrated"] == "–"
    assert summary_frame([r]).loc[0, "No D"] == 1
    # the figure: no bar, not a bar of 0 (tests/leaderboard/test_judge_figures.py)


def test_only_tests_are_coloured_and_the_unweighted_one_is_calibrated() -> None:
    seen_chance = False
    for seed in range(6):
        r = make_result("random", "summeval", skill=0.0, n_items=30, seed=seed)
        st = perturbation_frame(r)
        styles = st._compute().ctx  # type: ignore[attr-defined]  # private: (row, col) -> [(prop, value)]
        cols = list(st.data.columns)  # type: ignore[attr-defined]  # Styler.data: real, absent from pandas-stubs
        for k, p in enumerate(r.perturbations):
            cal = calibrated_d(p)
            marked = ("background-color", MARK_ABOVE.split(": ")[1]) in styles.get(
                (k, cols.index("D calibrated")), []
            )
            assert marked == (cal is not None and cal > 1)
            assert not styles.get((k, cols.index("D (paper)")))  # the paper's unweighted D is never coloured
            if p.d is not None and p.d > 1 and not marked:
                seen_chance = True  # chance under the paper's formula, not shown as discernment
    assert seen_chance


def test_summary_has_qualified_and_per_level() -> None:
    good = make_result("good", "summeval", skill=1.2, n_items=30)
    rand = make_result("random", "summeval", skill=0.0, n_items=30)
    df = summary_frame([good, rand])
    assert list(df["Qualified"]) == ["✓ yes", "✗ no"]
    levels = df.loc[0, "Per level (EW)"]
    assert isinstance(levels, str)
    assert levels.startswith("C ") and " · W " in levels and " · S " in levels


def test_a_judge_with_a_perturbation_without_d_is_never_qualified() -> None:
    spec = BENCHMARK["summeval"]
    deaf = make_result("deaf", "summeval", skill=3.0, n_items=30, no_scores_for=spec.perturbation_ids[0])
    assert deaf.summary.n_without_d == 1 and deaf.summary.d_min_ew is not None and deaf.summary.d_min_ew > 1
    df = summary_frame([deaf])
    assert list(df["Qualified"]) == ["✗ no"]
    assert str(df.loc[0, "D min EW"]).endswith("(1 no D)") and str(df.loc[0, "D min"]).endswith("(1 no D)")
    header = judge_header([deaf])
    assert "on 0 of 1 dataset(s)" in header


def _backend(tmp_path: Path, results: list[tuple[str, object]]) -> BoardService:
    root = tmp_path / "results"
    for path, res in results:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(dump_result(res))  # type: ignore[arg-type]
    return BoardService(
        AppConfig(
            results=LocalStore(root), requests=LocalStore(tmp_path / "q"), votes=LocalStore(tmp_path / "v")
        )
    )


def test_prompt_stability_column_and_ranking_on_the_default_set(tmp_path: Path) -> None:
    default = make_result("J", "summeval", skill=0.8, n_items=20)
    minimal = make_result("J", "summeval", skill=0.1, n_items=20, prompt_set="minimal", seed=3)
    other = make_result("K", "summeval", skill=0.5, n_items=20)
    be = _backend(tmp_path, [("j/summeval@r.json", default), ("j/summeval@r~minimal.json", minimal),
                             ("k/summeval@r.json", other)])  # fmt: skip
    v = be.view(datasets=["summeval"]).set_index("Judge")
    assert v.loc["J", "summeval D_avg^EW"] == pytest.approx(default.summary.d_avg_ew)  # the default set ranks
    expected = stability([default, minimal])[0].spread["d_avg_ew"].range
    assert expected is not None
    assert v.loc["J", table.STABILITY] == pytest.approx(expected) and expected > 0.5
    missing = v.loc["K", table.STABILITY]
    assert isinstance(missing, float) and math.isnan(missing)
    page, _ = be.render(datasets=["summeval"])
    assert "Prompt spread" in page and f"{expected:.2f}" in page
    only_default = _backend(tmp_path / "b", [("k/summeval@r.json", other)])
    assert table.STABILITY not in only_default.view().columns  # shown only when a judge has several sets


def test_a_judge_scored_again_under_one_prompt_set_has_its_spread_from_the_newest(tmp_path: Path) -> None:
    """Two default-prompt results of one judge on one dataset revision beside another prompt set: the
    spread compares the newest of the two with the other set (building the table raised ValueError)."""
    old = make_result("J", "summeval", skill=0.8, n_items=20)
    new = make_result("J", "summeval", skill=0.3, n_items=20, seed=5, created_at="2025-02-01T12:00:00Z")
    minimal = make_result("J", "summeval", skill=0.1, n_items=20, prompt_set="minimal", seed=3)
    be = _backend(tmp_path, [("j/summeval@r.json", old), ("j/summeval@r-again.json", new),
                             ("j/summeval@r~minimal.json", minimal)])  # fmt: skip
    v = be.view(datasets=["summeval"]).set_index("Judge")
    expected = stability([new, minimal])[0].spread["d_avg_ew"].range
    assert expected is not None and expected != stability([old, minimal])[0].spread["d_avg_ew"].range
    assert v.loc["J", table.STABILITY] == pytest.approx(expected)
    assert v.loc["J", "summeval D_avg^EW"] == pytest.approx(
        new.summary.d_avg_ew
    )  # the newest in the column too


def test_user_tasks_are_shown_apart_never_in_the_overall(tmp_path: Path) -> None:
    spec = dataclasses.replace(BENCHMARK["summeval"], name="my-task", pretty_name="My task")
    bench = make_result("J", "summeval", skill=0.8, n_items=20)
    task = make_result("J", spec, skill=0.1, n_items=20)
    be = _backend(tmp_path, [("j/summeval@r.json", bench), ("j/my-task@r.json", task)])
    v = be.view(
        datasets=["summeval", "my-task"]
    )  # even when asked for, a task stays out of the benchmark view
    assert not [c for c in v.columns if c.startswith("my-task")]
    assert v.loc[0, "Overall D_avg^EW"] == pytest.approx(bench.summary.d_avg_ew)  # the task is not mixed in
    assert be.task_datasets() == ["my-task"]
    tasks_page, _ = be.render(tasks=True)
    main_page, _ = be.render()
    assert "my-task" in tasks_page and "my-task" not in main_page
    assert [lr.result.dataset.name for lr in be.judge_results("J")] == ["summeval", "my-task"]
