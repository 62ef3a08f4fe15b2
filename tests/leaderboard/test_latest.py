"""One "newest result per (judge, dataset)" rule: the table row and the judge page show the same result."""

from __future__ import annotations

from pathlib import Path

from dhp.leaderboard.board.loading import LoadedResult, latest_results
from dhp.leaderboard.board.stores import LocalStore
from dhp.leaderboard.page.service import AppConfig, BoardService
from dhp.scoring.result_files import dump_result
from tests.leaderboard.factory import make_result


def test_ties_on_created_at_are_broken_by_path() -> None:
    a = make_result("J", "summeval", skill=0.1, n_items=14, created_at="2025-01-01T00:00:00Z")
    b = make_result("J", "summeval", skill=0.9, n_items=14, created_at="2025-01-01T00:00:00Z")
    old = make_result("J", "summeval", skill=0.5, n_items=14, created_at="2024-12-31T23:59:59Z")
    rows = [
        LoadedResult("j/summeval@b.json", b),
        LoadedResult("j/summeval@a.json", a),
        LoadedResult("j/z.json", old),
    ]
    for order in (rows, rows[::-1]):
        assert latest_results(order)["J"]["summeval"].path == "j/summeval@b.json"


def test_table_and_judge_page_agree(tmp_path: Path) -> None:
    res = tmp_path / "results"
    (res / "j").mkdir(parents=True)
    same_second = "2025-03-01T10:00:00Z"
    for rev, skill in (("b", 0.9), ("a", 0.05)):  # the path order differs from the write order
        r = make_result("Judge J", "summeval", skill=skill, n_items=14, created_at=same_second)
        (res / "j" / f"summeval@{rev}.json").write_text(dump_result(r))
    be = BoardService(
        AppConfig(
            results=LocalStore(res), requests=LocalStore(tmp_path / "q"), votes=LocalStore(tmp_path / "v")
        )
    )
    (page,) = be.judge_results("Judge J")
    assert page.path == "j/summeval@b.json"
    row = be.view(datasets=["summeval"]).iloc[0]
    assert row["summeval D_avg^EW"] == page.result.summary.d_avg_ew
