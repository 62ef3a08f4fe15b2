"""The README's main job, end to end (without serving): build, score the controls, report."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dhp.scoring.results import Result, read_result
from dhp.spec import DATASET_NAMES

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_demo_script_builds_scores_and_reports(tmp_path: Path, sources_dir: Path) -> None:
    env = {
        **os.environ,
        "DHP_SOURCES": str(sources_dir),
        "DHP_DEMO_SERVE": "0",
        "VENV": str(Path(sys.executable).parent.parent),
        "HF_DATASETS_CACHE": str(tmp_path / "hf-cache"),
    }
    out = tmp_path / "out"
    proc = subprocess.run(
        ["bash", str(REPO / "scripts" / "demo.sh"), str(out)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "OFFLINE RULE-BASED" in proc.stdout + proc.stderr  # the CLI says plainly who made the LLM rows
    for name in DATASET_NAMES:
        assert (out / "datasets" / name / "README.md").is_file()
    results = sorted((out / "results").glob("*/*.json"))
    assert len(results) == 3 * len(DATASET_NAMES)
    by_judge: dict[str, list[Result]] = {}
    for f in results:
        r = read_result(f)
        by_judge.setdefault(r.judge.name, []).append(r)
    # the controls behave as controls: the oracle discerns everything, the random judge (EW) nothing much
    assert all(r.summary.d_min_ew is not None and r.summary.d_min_ew > 1 for r in by_judge["oracle"])
    assert all(r.summary.d_avg_ew is not None and r.summary.d_avg_ew < 1 for r in by_judge["random"])
    assert (out / "report" / "report.md").is_file()
    assert list((out / "report").glob("discernment_*.png"))
