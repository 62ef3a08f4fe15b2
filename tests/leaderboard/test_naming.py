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


#: (submitted, taken): names that read alike, refused (issue 37: whole words of another script)
LOOKALIKES = [
    ("ԁеерѕеек-v3-t0-071", "deepseek-v3-t0-071"),  # every letter Cyrillic or Komi, к included
    ("огасӏе", "oracle"),  # Cyrillic, with the palochka
    ("dеepseek", "deepseek"),  # one Cyrillic е
    ("ＤeepSeek", "deepseek"),
    ("вот", "BOT"),  # в reads as a small capital B
]
#: distinct names that only a lossy slug made one
DISTINCT = [("评审二号", "评审一号"), ("сору judge", "соре judge"), ("评审一号", "评审一")]


@pytest.mark.parametrize(("name", "taken"), LOOKALIKES)
def test_names_that_read_alike_share_a_key(name: str, taken: str) -> None:
    from dhp.naming import name_key

    assert name_key(name) == name_key(taken)


@pytest.mark.parametrize(("a", "b"), DISTINCT)
def test_distinct_names_in_any_script_get_distinct_keys_and_folders(a: str, b: str) -> None:
    from dhp.naming import name_key

    assert name_key(a) != name_key(b)
    assert judge_slug(a) != judge_slug(b)


def test_folders_keep_ascii_slugs_and_tell_every_other_name_apart() -> None:
    assert judge_slug("deepseek-v3-t0-071") == "deepseek-v3-t0-071"  # stored results keep their folder
    assert judge_slug("GPT-4o (temp 0)") == "gpt-4o--temp-0-"
    lookalike = judge_slug("ԁеерѕеек-v3-t0-071")
    assert lookalike.startswith("deepseek-v3-t0-071-") and lookalike != "deepseek-v3-t0-071"
    assert judge_slug("Café Judge").startswith("cafe-judge-")
    folders = {
        judge_slug(n)
        for n in ("评审一号", "评审二号", "评审三号", "сору judge", "соре judge", "Café", "Cafe\u0301")
    }
    assert len(folders) == 6  # "Café" typed precomposed or combined is one name (NFC): one folder
    assert all(slug(f) == f for f in folders)  # plain file names


def _sub(name: str, model: str) -> Any:
    form = dict(endpoint_url="http://localhost:8000/v1", protocol="openai", model=model, hf_model_id=None,
                revision=None, mode="expected", contact="me@example.org")  # fmt: skip
    return validate_submission(judge_name=name, app_mode="local", **form)  # type: ignore[arg-type]


def test_taken_only_when_a_name_really_is() -> None:
    from dhp.leaderboard.submissions.validation import Existing, find_duplicate

    existing = [Existing("评审一号", ("a",), "leaderboard row '评审一号'"),
                Existing("deepseek-v3-t0-071", ("b",), "leaderboard row 'deepseek-v3-t0-071'")]  # fmt: skip
    assert find_duplicate(_sub("评审二号", "m1"), existing) is None
    assert "is taken" in str(find_duplicate(_sub("评审一号", "m2"), existing))
    assert "reads like 'deepseek-v3-t0-071'" in str(
        find_duplicate(_sub("ԁеерѕеек-v3-t0-071", "m3"), existing)
    )
