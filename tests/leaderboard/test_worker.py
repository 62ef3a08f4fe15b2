"""The queue worker: a real `dhp score --judge random` run, failures with scrubbed reasons."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dhp.judge import BuiltinJudge, EndpointJudge
from dhp.leaderboard.loading import ResultsIndex
from dhp.leaderboard.queue import RequestQueue, State, new_request
from dhp.leaderboard.stores import LocalStore
from dhp.leaderboard.validation import Submission
from dhp.leaderboard.worker import API_KEY_ENV, Worker, WorkerConfig, score_command, scrub
from dhp.spec import BENCHMARK
from dhp.types import ControlJudge
from tests.support.tiny_data import write_tiny_dataset


@pytest.fixture(scope="module")
def tiny_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tiny") / "data"
    for spec in BENCHMARK.values():
        write_tiny_dataset(root, spec)  # 20 items: >13 pairs avoids slow permutation tests
    return root


def _endpoint(name: str = "ep judge") -> Submission:
    judge = EndpointJudge(name=name, endpoints=("https://judge.example.org/v1",), model="org/m", hf_model_id="org/m",
                          revision="abc123")  # fmt: skip
    return Submission(judge, "expected", "c")


def test_score_command_passes_the_judge_whole_and_no_secret(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(API_KEY_ENV, "sk-very-secret-key")
    req = new_request(_endpoint(), "u")
    cmd = score_command(req, WorkerConfig(data=tmp_path, n_boot=10), tmp_path / "judge.json", tmp_path / "out")
    assert "sk-very-secret-key" not in " ".join(cmd)
    assert cmd[:6] == [sys.executable, "-m", "dhp", "score", "--judge-file", str(tmp_path / "judge.json")]
    for flag in ("--endpoint", "--judge", "--judge-name", "--model", "--protocol", "--hf-model-id", "--model-revision"):
        assert flag not in cmd  # the judge is not re-spelled as arguments
    assert cmd[cmd.index("--mode") + 1] == "expected"
    assert cmd[cmd.index("--n-boot") + 1] == "10"


def test_scrub() -> None:
    text = "401 for key sk-abcdef123456 and hf_abcdefghijk, Authorization: Bearer xyz.123 api_key=foo mine=s3cr3t!"
    out = scrub(text, ["s3cr3t!"])
    for secret in ("sk-abcdef123456", "hf_abcdefghijk", "xyz.123", "foo", "s3cr3t!"):
        assert secret not in out
    assert "401" in out


def test_failure_is_stored_with_a_scrubbed_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(API_KEY_ENV, "topsecretvalue")
    requests, results = LocalStore(tmp_path / "requests"), LocalStore(tmp_path / "results")
    q = RequestQueue(requests)
    q.submit(new_request(_endpoint(), "u"))
    seen_env: dict[str, str] = {}

    def runner(cmd: list[str], **kw: Any) -> subprocess.CompletedProcess[str]:
        seen_env.update(kw["env"])
        return subprocess.CompletedProcess(cmd, 3, "", "Traceback...\nHTTP 401: bad key topsecretvalue\n")

    w = Worker(requests, results, WorkerConfig(data=tmp_path, mode="local"), runner=runner)
    assert w.drain(once=True) == 1
    (req,), _ = q.load()
    assert req.state is State.FAILED
    assert req.reason is not None and "status 3" in req.reason and "401" in req.reason
    assert "topsecretvalue" not in req.reason
    assert seen_env[API_KEY_ENV] == "topsecretvalue"  # the key travels in the environment only
    assert "topsecretvalue" not in "".join(p.read_text() for p in (tmp_path / "requests").glob("*.json"))


def test_space_worker_rechecks_the_endpoint(tmp_path: Path) -> None:
    requests, results = LocalStore(tmp_path / "requests"), LocalStore(tmp_path / "results")
    q = RequestQueue(requests)
    q.submit(new_request(_endpoint(), "u"))
    calls: list[Any] = []
    cfg = WorkerConfig(data=tmp_path, mode="space", resolver=lambda host: ["10.0.0.7"])  # DNS now points inside
    w = Worker(requests, results, cfg, runner=lambda *a, **k: calls.append(a))  # type: ignore[arg-type,return-value]
    w.drain(once=True)
    (req,), _ = q.load()
    assert req.state is State.FAILED and "refused at run time" in (req.reason or "")
    assert not calls


@pytest.mark.slow
def test_worker_runs_a_control_judge_end_to_end(tmp_path: Path, tiny_data: Path) -> None:
    requests, results = LocalStore(tmp_path / "requests"), LocalStore(tmp_path / "results")
    q = RequestQueue(requests)
    sub = Submission(BuiltinJudge(name="Random control", control=ControlJudge.RANDOM), "builtin", "ci")
    q.submit(new_request(sub, "u"))
    cmd = [sys.executable, "-m", "dhp", "worker", "--once", "--data", str(tiny_data),
           "--requests", str(tmp_path / "requests"), "--results", str(tmp_path / "results"),
           "--n-boot", "20", "--datasets", "summeval,story-cloze"]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    (req,), _ = q.load()
    assert req.state is State.FINISHED, req.reason
    assert len(req.results) == 2 and all(p.startswith("random-control/") for p in req.results)
    rep = ResultsIndex(results).load()
    assert not rep.problems
    assert {r.result.judge.name for r in rep.results} == {"Random control"}
    assert {r.result.dataset.name for r in rep.results} == {"summeval", "story-cloze"}
