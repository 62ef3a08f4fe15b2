"""The judge page's views (issue 20): misses with their texts marked as ``dhp show`` marks them, the
CSV of every miss, and the run cost; texts that cannot be had are said so, the scores still shown."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from dhp.leaderboard.judge_views import (
    detail_markdown,
    miss_choices,
    misses_csv_path,
    misses_html,
    run_cost_text,
    texts_for,
)
from dhp.scoring.misses import ScoredTexts, find_misses, miss_counts
from dhp.scoring.results import Result, read_result
from tests.leaderboard.factory import make_result
from tests.leaderboard.judge_data import perturbed_text, point_at, write_summeval

N = 12


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Result, Path]:
    root = tmp_path_factory.mktemp("jv")
    data = write_summeval(root / "data", N)
    res = root / "results" / "weak" / "summeval@v1.json"
    res.parent.mkdir(parents=True)
    res.write_text(make_result("Weak", "summeval", skill=0.05, n_items=N).model_dump_json())
    point_at(root / "results", data)
    return read_result(res), data


def test_missed_pairs_show_marked_texts_worst_first(scored: tuple[Result, Path]) -> None:
    r, data = scored
    choices = miss_choices(r)
    counts = miss_counts(r)
    assert choices and [counts[p] for _, p in choices] == sorted(
        (counts[p] for _, p in choices), reverse=True
    )
    pid = choices[0][1]
    texts = texts_for(r, str(data))
    assert isinstance(texts, ScoredTexts)
    page = misses_html(r, pid, texts, n=2)
    worst = find_misses(r, pid)[0]
    assert f"<b>{counts[pid]} of {N}</b>" in page
    assert page.index(worst.item_id) < page.index("</div>")  # the worst miss first
    i = int(worst.item_id.rsplit("-", 1)[1])
    assert "<del>clearly</del>" in page and f"<ins>vaguely-{pid}</ins>" in page
    assert perturbed_text(i, pid).split()[0] in page
    assert page.count("class='dhp-miss'") == min(2, counts[pid])


def test_the_csv_holds_every_miss_of_every_perturbation(scored: tuple[Result, Path], tmp_path: Path) -> None:
    r, data = scored
    path = misses_csv_path(r, texts_for(r, str(data)), tmp_path)
    assert path is not None
    rows = list(csv.DictReader(io.StringIO(Path(path).read_text())))
    assert len(rows) == sum(miss_counts(r).values()) > 0
    assert {row["perturbation"] for row in rows} == {p for p, k in miss_counts(r).items() if k}
    assert all(row["original"].startswith("The summary of article") for row in rows)
    assert misses_csv_path(r, texts_for(r, str(data)), tmp_path) == path  # named by content: written once


def test_without_the_scored_texts_the_scores_are_still_shown(
    scored: tuple[Result, Path], tmp_path: Path
) -> None:
    r, _ = scored
    pid = miss_choices(r)[0][1]
    other = r.model_copy(update={"dataset": r.dataset.model_copy(update={"revision": "local:other"})})
    _, data = scored
    why = texts_for(other, str(data))
    assert isinstance(why, str) and "the result scored local:other" in why
    page = misses_html(other, pid, why)
    assert "Texts not shown:" in page and "<del>" not in page and find_misses(r, pid)[0].item_id in page
    assert "no dataset source configured" in str(texts_for(r, None))
    assert "no folder summeval/" in str(texts_for(r, str(tmp_path)))


def test_run_cost_says_which_tokens_were_reported() -> None:
    r = make_result("J", "summeval", n_items=5)
    t = r.timing.model_copy(
        update={"requests_sent": 1200, "prompt_tokens": 345678, "completion_tokens": None}
    )
    text = run_cost_text(r.model_copy(update={"timing": t}))
    assert "1,200 requests sent" in text and "345,678 prompt" in text and "completion not reported" in text
    b = make_result("random", "summeval", n_items=5, protocol="builtin", model="random")
    assert "no requests (built-in judge)" in run_cost_text(b)
    assert "Where it fails on summeval" in detail_markdown(r)
