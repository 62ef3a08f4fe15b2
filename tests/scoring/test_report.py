"""`dhp report`: markdown plus PNG plots from result files."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dhp.inference.judge import BuiltinJudge
from dhp.scoring.config import ScoreConfig
from dhp.scoring.report import collect_results
from dhp.scoring.run import score_datasets
from dhp.types import ControlJudge
from tests.scoring.helpers import run_dhp

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def results_dir(tiny_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("res")
    for judge in ("random", "oracle"):
        cfg = ScoreConfig(
            judge=BuiltinJudge(name=judge, control=ControlJudge(judge)),
            out=out,
            datasets="summeval,answer-equivalence",
            data=str(tiny_root),
            n_boot=50,
        )
        score_datasets(cfg)
    return out


@pytest.mark.slow
def test_report_writes_markdown_and_plots(results_dir: Path, tmp_path: Path) -> None:
    proc = run_dhp("report", str(results_dir), "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    md_path = Path(proc.stdout.strip())
    md = md_path.read_text()
    assert "| random | summeval |" in md and "| oracle | answer-equivalence |" in md
    assert "none (built-in judge) |" in md and " sent, " not in md  # built-in judges send no requests
    assert "### oracle — summeval" in md and "| char_typo_minor | C |" in md
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md)
    assert len(images) == 2 + 4  # one D figure per dataset, one score figure per (judge, dataset)
    for name in images:
        assert (tmp_path / name).read_bytes().startswith(PNG)
    assert (tmp_path / "discernment_summeval.png").exists()


def test_report_accepts_files_and_refuses_bad_input(results_dir: Path, tmp_path: Path) -> None:
    files = sorted((results_dir / "random").glob("*.json"))
    assert [r.dataset.name for r in collect_results(files)] == ["answer-equivalence", "summeval"]
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema_version": "9"}')
    proc = run_dhp("report", str(bad), "--out", str(tmp_path / "o"))
    assert proc.returncode == 2 and "unsupported schema_version" in proc.stderr
    proc = run_dhp("report", str(tmp_path / "missing"), "--out", str(tmp_path / "o"))
    assert proc.returncode == 2 and "no such file" in proc.stderr
