"""Fixtures for the leaderboard tests: synthetic results in a local results store."""

from __future__ import annotations

from pathlib import Path

import pytest

from dhp.scoring.result_files import dump_result
from tests.leaderboard.browser import browser  # noqa: F401 (the browser tests' fixture, shared from here)
from tests.leaderboard.factory import make_result

ALL = ("summeval", "sumpubmed", "story-cloze", "answer-equivalence", "wmt22-de-en", "wmt22-zh-en")

#: name, skill, hf id, params — a strong, a middling, and a poor judge
JUDGES = (
    ("Strong Llama 70B", 0.9, "meta-llama/Meta-Llama-3-70B-Instruct", 70e9),
    ("Mid Qwen 7B", 0.35, "Qwen/Qwen2-7B-Instruct", None),
    ("Weak Phi-2", 0.02, "microsoft/phi-2", 2.7e9),
)


def write_results(root: Path, judges=JUDGES, datasets=ALL, n_items: int = 25, n_boot: int = 0) -> Path:  # type: ignore[no-untyped-def]
    for name, skill, hf, params in judges:
        for ds in datasets:
            r = make_result(
                name,
                ds,
                skill=skill,
                hf_model_id=hf,
                n_params=params,
                model=hf,
                n_items=n_items,
                n_boot=n_boot,
            )
            p = root / name.lower().replace(" ", "-") / f"{ds}@v1.json"
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(dump_result(r))
    return root


@pytest.fixture()
def results_dir(tmp_path: Path) -> Path:
    return write_results(tmp_path / "results")
