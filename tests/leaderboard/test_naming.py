"""One slug rule: the scorer (`dhp score`) and the queue worker file a judge under the same folder."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from dhp.leaderboard.board.stores import LocalStore
from dhp.leaderboard.submissions.queue import RequestQueue, State, new_request
from dhp.leaderboard.submissions.validation import validate_submission
from dhp.leaderboard.submissions.worker import Worker, WorkerConfig
from dhp.naming import judge_slug, slug
from dhp.scoring.result_files import dump_result, result_path
from tests.leaderboard.factory import make_result

NAME = "GPT-4o (temp 0)"


def test_slug_rule() -> None:
    assert judge_slug(NAME) == "gpt-4o--temp-0-" == slug(NAME)
    assert judge_slug("  Llama_3.1.8B ") == "llama_3.1.8b"
    for bad in ("a/b", "a\\b", "", "..", "x\u200by"):
        with pytest.raises(ValueError):
            judge_slug(bad)


def test_worker_and_scorer_use_one_folder(tmp_path: Path) -> None:
    requests, results = LocalStore(tmp_path / "requests"), LocalStore(tmp_path / "results")
    form = dict(endpoint_url="", protocol="builtin", model="random", hf_model_id=None, revision=None,
                mode=None, contact="me@example.org")  # fmt: skip
    sub = validate_submission(judge_name=NAME, app_mode="local", **form)  # type: ignore[arg-type]
    RequestQueue(requests).submit(new_request(sub, "u"))
    scorer_path = result_path(tmp_path / "scored", NAME, "summeval", "abc")

    def runner(cmd: list[str], **kw: Any) -> subprocess.CompletedProcess[str]:
        """What `dhp score` does: write the result where result_path says, under --out."""
        out = Path(cmd[cmd.index("--out") + 1])
        path = result_path(out, NAME, "summeval", "abc")
        path.parent.mkdir(parents=True)
        path.write_text(dump_result(make_result(NAME, "summeval", protocol="builtin", n_items=14)))
        return subprocess.CompletedProcess(cmd, 0, "", "")

    Worker(requests, results, WorkerConfig(data=tmp_path), runner=runner).drain(once=True)
    (req,), _ = RequestQueue(requests).load()
    assert req.state is State.FINISHED, req.reason
    assert [Path(p).parent.name for p in req.results] == [scorer_path.parent.name] == ["gpt-4o--temp-0-"]
    assert "-gpt-4o--temp-0--" in req.id
