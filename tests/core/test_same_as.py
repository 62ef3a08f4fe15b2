"""The refactor proof (``scripts/same_as.sh REV``): its comparison sees every difference, and only those."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.support.benchmarks import load_benchmark

REPO = Path(__file__).resolve().parents[2]
same_as = load_benchmark("same_as")
differences, main = same_as.differences, same_as.main


def _side(root: Path, rows: bytes = b"PAR1 rows", d_avg: float = 0.5, created: str = "2026-01-01") -> Path:
    (root / "ds" / "summeval" / "data").mkdir(parents=True)
    (root / "ds" / "summeval" / "data" / "char_typo_minor.parquet").write_bytes(rows)
    (root / "ds" / "summeval" / "build_info.json").write_text('{"n_rows": 2}')
    result = {
        "created_at": created,
        "timing": {"wall_seconds": 0.1 if created == "2026-01-01" else 9.0, "requests_sent": 0},
        "dataset": {"name": "summeval", "repo": str(root / "ds" / "summeval"), "revision": "local:ab"},
        "summary": {"d_avg": d_avg},
        "scores": {"original": {"fluency": [1.0, 2.0]}},
    }
    (root / "res" / "random").mkdir(parents=True)
    (root / "res" / "random" / "summeval@local-ab.json").write_text(json.dumps(result))
    return root


def test_two_runs_of_the_same_code_are_identical(tmp_path: Path) -> None:
    """The clock, the wall time and the folder's path differ between any two runs: left out."""
    rev, work = _side(tmp_path / "rev"), _side(tmp_path / "work", created="2026-02-02")
    assert differences(rev, work) == []
    assert main([str(rev), str(work)]) == 0


def test_one_changed_byte_of_a_dataset_is_a_difference(tmp_path: Path) -> None:
    rev, work = _side(tmp_path / "rev"), _side(tmp_path / "work", rows=b"PAR1 rowz")
    [line] = differences(rev, work, "21a797c")
    assert line.startswith("dataset file summeval/data/char_typo_minor.parquet: 21a797c ")


def test_a_changed_statistic_is_a_difference(tmp_path: Path) -> None:
    rev, work = _side(tmp_path / "rev"), _side(tmp_path / "work", d_avg=0.5000001)
    assert differences(rev, work) == ["result random/summeval: summary.d_avg: 0.5 != 0.5000001"]
    assert main([str(rev), str(work)]) == 1
    assert main([str(rev), str(work), "--ignore", "summary.d_avg"]) == 0


def test_a_missing_result_or_an_empty_side_is_a_difference(tmp_path: Path) -> None:
    rev, work = _side(tmp_path / "rev"), _side(tmp_path / "work")
    (work / "res" / "random" / "summeval@local-ab.json").unlink()
    problems = differences(rev, work, "REV")
    assert "result random/summeval: only at REV" in problems
    assert any(p.startswith("nothing was scored") for p in problems)


@pytest.mark.slow
@pytest.mark.skipif(
    not os.environ.get("DHP_SAME_AS_REV") or not os.environ.get("DHP_SOURCES"),
    reason="builds and scores twice (about 90 s): set DHP_SAME_AS_REV=REV and DHP_SOURCES=FOLDER",
)
def test_builds_and_results_are_the_same_as_at_rev() -> None:
    r = subprocess.run(
        [str(REPO / "scripts" / "same_as.sh"), os.environ["DHP_SAME_AS_REV"]],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0 and r.stdout.rstrip().endswith("identical"), r.stdout + r.stderr


def test_a_left_out_key_leaves_out_what_it_holds(tmp_path: Path) -> None:
    rev, work = _side(tmp_path / "rev"), _side(tmp_path / "work", d_avg=0.7)
    assert differences(rev, work, ignore=[*same_as.VOLATILE, "summary"]) == []
    assert differences(rev, work, ignore=[*same_as.VOLATILE, "summ"]) != []  # a prefix of a name is not a key


@pytest.mark.slow
def test_as_read_compares_what_the_reader_gets_from_an_older_schema(tmp_path: Path) -> None:
    """A 1.2 file with the flat judge record and the 1.3 file of the same result: different files,
    the same result as read; a changed statistic still shows."""
    from dhp.scoring.result_files import dump_result
    from tests.leaderboard.factory import make_result

    new = json.loads(dump_result(make_result("Random", n_items=8, protocol="builtin", model="random")))
    old = {**new, "schema_version": "1.2",
           "judge": {"name": "Random", "kind": "builtin", "protocol": "builtin", "model": "random",
                     "hf_model_id": None, "revision": None, "n_params": None, "endpoint_hosts": [], "settings": {}}}  # fmt: skip
    sides = {}
    for side, doc in (("rev", old), ("work", new)):
        root = _side(tmp_path / side)
        (root / "res" / "random" / "summeval@local-ab.json").write_text(json.dumps(doc))
        sides[side] = root
    assert differences(sides["rev"], sides["work"]) != []  # the files differ
    assert differences(sides["rev"], sides["work"], as_read=True) == []  # what a reader gets does not
    changed = {**new, "summary": {**new["summary"], "d_avg": 123.0}}
    (sides["work"] / "res" / "random" / "summeval@local-ab.json").write_text(json.dumps(changed))
    assert differences(sides["rev"], sides["work"], as_read=True) == [
        f"result random/summeval: summary.d_avg: {new['summary']['d_avg']!r} != 123.0"
    ]
