"""`dhp build` of several datasets checks every dataset's inputs before it writes any (#30)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dhp.cli import main


def test_a_dataset_short_of_items_stops_the_build_before_any_is_written(
    capsys: pytest.CaptureFixture[str], sources_dir: Path, tmp_path: Path
) -> None:
    """story-cloze's source is fine, answer-equivalence's copy has 62 eligible items of 100: without
    --allow-fewer nothing is built, not story-cloze first and then an error."""
    out = tmp_path / "out"
    argv = ["build", "--datasets", "story-cloze,answer-equivalence", "--sources", str(sources_dir),
            "--out", str(out), "--no-progress"]  # fmt: skip
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "answer-equivalence" in err and "--allow-fewer" in err and "nothing built" in err
    assert "Traceback" not in err
    assert not out.exists() or not any(out.iterdir())  # story-cloze was not written either
