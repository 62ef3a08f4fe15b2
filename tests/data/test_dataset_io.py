"""dhp.data.dataset_io's records: build_info.json and not_applicable.jsonl lines, written and read back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dhp.data.dataset_io import (
    BuildInfo,
    NotApplicableRecord,
    PerturbationInfo,
    PerturberInfo,
    SelectionInfo,
    SourceInfo,
    StatisticsInfo,
    TextStatistics,
    read_build_info,
)
from dhp.data.items import SourceFile
from dhp.errors import DataError
from dhp.records import from_data, to_data


def _info() -> BuildInfo:
    pert = PerturbationInfo(
        "char_typo_minor", "C", "rule", "char_typo", "minor", 2, "Two typos.", 3, 1, 0, 3, 3, 4, {"rule": 3}
    )
    return BuildInfo(
        dataset="demo",
        pretty_name="Demo",
        hub_repo="dhp/demo",
        dataset_version="v1.0.0",
        builder_version="1.1.0",
        seed=7,
        columns=("id", "original", "perturbed"),
        selection=SelectionInfo("all", 5, 4, 4, 9),
        source=SourceInfo(
            "src",
            "MIT",
            "allowed",
            "free",
            "https://example.org",
            False,
            ("n",),
            (SourceFile("a.csv", "local:x", "00"),),
        ),
        perturber=PerturberInfo("offline", "offline-rules/5"),
        statistics=StatisticsInfo("pysbd", TextStatistics(10.5, 2.0, 1.0), None),
        perturbations=(pert,),
    )


def test_build_info_round_trips_with_its_derived_values() -> None:
    info = _info()
    data = json.loads(json.dumps(to_data(info)))
    assert data["n_rows"] == 3 and data["selection"]["fewer_than_requested"] is True
    assert data["perturbations"][0]["pass_rate"] == 1.0 and data["perturbations"][0]["coverage"] == 0.75
    assert "url_protocol" not in data["perturber"]
    assert from_data(BuildInfo, data) == info
    assert to_data(PerturberInfo("llm", "llm:m", "openai"))["url_protocol"] == "openai"


def test_not_applicable_lines_keep_their_field_order() -> None:
    rec = NotApplicableRecord("p", "i1", "too short")
    assert rec.to_json() == '{"perturbation": "p", "id": "i1", "reason": "too short"}'
    assert from_data(NotApplicableRecord, json.loads(rec.to_json())) == rec


def test_a_foreign_build_info_is_one_data_error_line(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("card", encoding="utf-8")
    (tmp_path / "data").mkdir()
    data = to_data(_info())
    del data["seed"]
    (tmp_path / "build_info.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(
        DataError, match=r"not a build-info record of this builder \(at seed: Field required\)$"
    ):
        read_build_info(tmp_path)
