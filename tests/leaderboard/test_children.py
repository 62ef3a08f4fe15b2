"""The board's child processes (the rank job's and the judge pages' renderers) share one request/answer
exchange: :func:`rankjob.ask` on the app's side, :func:`rankjob.serve_jobs` in the child. A job
round-trips, a job the child cannot answer is that job's one-line error (the child serves on), and a
child that is gone is a clear error naming it and how it ended."""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from dhp.leaderboard.board.rankjob import ChildDied, ChildError, ask, spawn_child
from dhp.leaderboard.board.ranks import replicate_pvalues
from dhp.scoring.result_files import dump_result
from tests.leaderboard.factory import make_result

WAIT_S = 120  # generous: the machine is shared; nothing here is a timing assertion


def _close_pipes(proc: subprocess.Popen[bytes]) -> None:
    for pipe in (proc.stdin, proc.stdout):
        if pipe is not None:
            with contextlib.suppress(BrokenPipeError):  # a job left unsent in the buffer of a dead child
                pipe.close()


@pytest.fixture()
def ranks_child() -> Iterator[subprocess.Popen[bytes]]:
    proc = spawn_child("dhp.leaderboard.board.rankjob")
    try:
        yield proc
    finally:
        proc.kill()
        proc.wait(WAIT_S)
        _close_pipes(proc)


def test_a_job_round_trips_and_a_bad_one_is_its_own_error(ranks_child: subprocess.Popen[bytes]) -> None:
    r = make_result("J", "summeval", n_items=20, n_boot=10)
    text = dump_result(r)
    got = ask(ranks_child, ("j/summeval@v1.json", text))
    want = replicate_pvalues(r)
    assert got is not None and want is not None
    assert (got.perturbations, got.levels, got.metrics) == (want.perturbations, want.levels, want.metrics)
    assert np.array_equal(got.log_p, want.log_p, equal_nan=True)
    with pytest.raises(ChildError, match=r"^ResultError: .*broken\.json") as e:
        ask(ranks_child, ("broken.json", "{not json"))
    assert "\n" not in str(e.value)
    again = ask(ranks_child, ("again.json", text))  # it serves on
    assert np.array_equal(again.log_p, want.log_p, equal_nan=True)


def test_a_dead_child_is_a_clear_error(ranks_child: subprocess.Popen[bytes]) -> None:
    proc = ranks_child
    proc.kill()
    proc.wait(WAIT_S)
    with pytest.raises(ChildDied) as e:
        ask(proc, ("x.json", "{}"))
    assert str(e.value).startswith(
        "the child process dhp.leaderboard.board.rankjob is gone: killed by SIGKILL"
    )


def test_a_child_killed_while_answering_is_a_clear_error(tmp_path: Path) -> None:
    """The renderer's side: a page job round-trips; a renderer killed (out of memory) mid-page is named."""
    r = make_result("J", "summeval", n_items=20)
    path = tmp_path / "j" / "summeval@v1.json"
    path.parent.mkdir()
    path.write_text(dump_result(r), encoding="utf-8")
    proc = spawn_child("dhp.leaderboard.page.judge_pages")
    try:
        page = json.loads(ask(proc, ("judge", "J", [(str(path), path.read_text())], None, str(tmp_path))))
        assert page["name"] == "J" and page["datasets"] == ["summeval"]
        with pytest.raises(ChildError, match=r"^ResultError: "):
            ask(proc, ("dataset", "J", [(str(path), "{}")], None, str(tmp_path)))
        proc.send_signal(signal.SIGKILL)
        with pytest.raises(ChildDied, match=r"judge_pages is gone: killed by SIGKILL"):
            ask(proc, ("judge", "J", [(str(path), path.read_text())], None, str(tmp_path)))
    finally:
        proc.kill()
        proc.wait(WAIT_S)
        _close_pipes(proc)
