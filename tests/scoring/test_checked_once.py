"""Each input of ``dhp score`` is checked once, at the edge, and passed inward as a resolved value."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import dhp.scoring.prompts
import dhp.scoring.run
import dhp.weights
from dhp.cli import main
from dhp.scoring.result_files import read_result


def _counting(calls: Counter[str], name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        calls[name] += 1
        return fn(*args, **kwargs)

    return wrapped


def test_the_prompt_set_and_the_weights_file_are_checked_once_per_run(
    tiny_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    calls: Counter[str] = Counter()
    resolve = _counting(calls, "prompt set", dhp.scoring.prompts.resolve_prompt_set)
    monkeypatch.setattr(dhp.scoring.prompts, "resolve_prompt_set", resolve)
    monkeypatch.setattr(dhp.scoring.run, "resolve_prompt_set", resolve)
    monkeypatch.setattr(
        dhp.weights, "_read_mapping", _counting(calls, "weights file", dhp.weights._read_mapping)
    )
    weights = tmp_path / "w.json"
    weights.write_text(json.dumps({"summeval": {"char_typo_minor": {"fluency": 1.0}}}), encoding="utf-8")
    argv = ["score", "--judge", "random", "--data", str(tiny_root), "--datasets", "summeval,story-cloze"]
    argv += ["--out", str(tmp_path / "o"), "--weights", str(weights), "--prompt-set", "minimal"]
    assert main([*argv, "--n-boot", "10", "--limit", "5", "--no-progress"]) == 0
    paths = capsys.readouterr().out.split()
    assert len(paths) == 2  # two datasets scored, each result naming the set and the weights
    results = [read_result(Path(p)) for p in paths]
    assert [r.scoring.prompt_set for r in results] == ["minimal", "minimal"]
    assert results[0].scoring.weights["char_typo_minor"] == {"fluency": 1.0}
    assert calls == Counter({"prompt set": 1, "weights file": 1})


def test_a_bad_prompt_set_is_still_one_line_before_any_work(
    tiny_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["score", "--judge", "random", "--data", str(tiny_root), "--out", str(tmp_path / "o")]
    assert main([*argv, "--prompt-set", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("dhp score: error: prompt set") and "\n" not in err
    assert not (tmp_path / "o").exists()
