"""``benchmarks/draw_rows.py`` draws a read of a build reproducibly: the same seed gives the same rows, 4
of each fictional-entity and grammar file and every rewriting row."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.benchmarks import load_benchmark

draw_rows = load_benchmark("draw_rows")


def test_the_same_seed_draws_the_same_rows_and_the_counts(tiny_root: Path, tmp_path: Path) -> None:
    files = draw_rows.build_files(tiny_root)
    sampled = sum(1 for _, _, cat in files if cat in draw_rows.SAMPLED)
    rewriting = [f for f in files if f[2] == "rewriting/insertion"]
    assert sampled >= 20 and rewriting  # the six datasets' fictional-entity and grammar files, and some
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    draw_rows.main([str(tiny_root), "--seed", "5150", "--out", str(first)])
    draw_rows.main([str(tiny_root), "--seed", "5150", "--out", str(second)])
    assert first.read_bytes() == second.read_bytes()
    rows = [json.loads(line) for line in first.read_text(encoding="utf-8").splitlines()]
    assert all(list(r) == list(draw_rows.FIELDS) and r["verdict"] == r["reason"] == "" for r in rows)
    every_rewriting_row = 20 * len(rewriting)  # the tiny build applies every perturbation to its 20 items
    assert len(rows) == 4 * sampled + every_rewriting_row
    assert [r["category"] for r in rows] == sorted((r["category"] for r in rows), key=_order)
    other = draw_rows.draw(tiny_root, 8317)
    assert len(other) == len(rows) and [r["id"] for r in other] != [r["id"] for r in rows]


def test_a_file_with_fewer_rows_than_drawn_gives_them_all(tiny_root: Path) -> None:
    rows = draw_rows.draw(tiny_root, 1, per_file=25)
    assert len(rows) == 20 * len(draw_rows.build_files(tiny_root))


def _order(category: str) -> int:
    return ["fictional entities", "grammar", "rewriting/insertion"].index(category)
