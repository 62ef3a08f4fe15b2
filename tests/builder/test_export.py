"""`dhp export`: plain jsonl / csv / parquet files from built dataset folders."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from dhp.builder.build import BuildReport
from dhp.builder.export import export_datasets
from dhp.cli import main
from dhp.data.dataset_io import read_pairs
from dhp.errors import SpecError
from dhp.spec import BENCHMARK


def test_export_three_formats(built: dict[str, BuildReport], built_root: Path, tmp_path: Path) -> None:
    spec = BENCHMARK["wmt22-zh-en"]
    expected = read_pairs(built[spec.name].folder)
    [j] = export_datasets([spec], built_root, tmp_path, "jsonl")
    assert [json.loads(ln) for ln in j.read_text(encoding="utf-8").splitlines()] == expected
    [c] = export_datasets([spec], built_root, tmp_path, "csv")
    with c.open(encoding="utf-8", newline="") as f:
        assert list(csv.DictReader(f)) == expected
    [p] = export_datasets([spec], built_root, tmp_path, "parquet")
    assert pq.read_table(p).to_pylist() == expected


def test_export_some_perturbations(built_root: Path, tmp_path: Path) -> None:
    spec = BENCHMARK["summeval"]
    [j] = export_datasets([spec], built_root, tmp_path, "jsonl", ["char_typo_major", "sent_reorder_major"])
    rows = [json.loads(ln) for ln in j.read_text(encoding="utf-8").splitlines()]
    assert {r["perturbation"] for r in rows} == {"char_typo_major", "sent_reorder_major"}
    with pytest.raises(SpecError, match="valid: char_deletion_minor"):
        export_datasets([spec], built_root, tmp_path, "jsonl", ["char_typo_huge"])


def test_cli_export(built_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "export",
                "--from",
                str(built_root),
                "--out",
                str(tmp_path),
                "--format",
                "csv",
                "--datasets",
                "story-cloze",
            ]
        )
        == 0
    )
    assert (tmp_path / "story-cloze.csv").is_file()
    assert (
        main(
            [
                "export",
                "--from",
                str(built_root),
                "--out",
                str(tmp_path),
                "--perturbations",
                "nope",
                "--datasets",
                "story-cloze",
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "no perturbation 'nope'" in err and "sent_wrong_ending" in err
