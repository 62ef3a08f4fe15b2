"""Fail fast, leave nothing (#30): a judge that cannot be reached stops `dhp score` at once, in one
line, with no folder left behind. Loopback only: the unknown host and the Hugging Face router are
never looked up (the resolver is replaced, and refuses every name that is not loopback)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dhp.inference.hub import ROUTER_URL_ENV
from dhp.inference.judge import EndpointJudge, HubJudge
from dhp.inference.protocol import FatalJudgeError
from dhp.scoring.config import RunError, ScoreConfig
from dhp.scoring.run import score_datasets
from dhp.spec import BENCHMARK
from tests.support.tiny_data import write_tiny_dataset

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tiny") / "data"
    write_tiny_dataset(root, BENCHMARK["answer-equivalence"])
    return root


@pytest.fixture
def lookups(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every host name looked up; any that is not loopback fails as unknown, without a DNS query."""
    seen: list[str] = []
    real = socket.getaddrinfo

    def getaddrinfo(host: Any, *args: Any, **kw: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else str(host)
        seen.append(name)
        if name not in ("127.0.0.1", "::1", "localhost"):
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real(host, *args, **kw)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return seen


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("out_exists", [False, True], ids=["new-out", "existing-out"])
def test_a_refused_connection_fails_at_once_in_one_line_and_leaves_nothing(
    tmp_path: Path, data: Path, out_exists: bool
) -> None:
    """`dhp score --endpoint http://127.0.0.1:PORT --model m` with nothing listening: the first refusal
    stops the run (before: 6 retries of each of the first 8 requests, 47 s), and the cache file and
    folders the run created are gone (an --out that was there stays, empty)."""
    out = tmp_path / "results"
    if out_exists:
        out.mkdir()
    cmd = [sys.executable, "-m", "dhp", "score", "--endpoint", f"http://127.0.0.1:{_free_port()}", "--model", "m",
           "--judge-name", "down", "--data", str(data), "--datasets", "answer-equivalence", "--out", str(out)]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=30, cwd=tmp_path)
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert res.returncode == 2 and len(lines) == 1, res.stderr
    assert "unreachable" in lines[0] and "connection refused" in lines[0] and "retrying" not in res.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == (["results"] if out_exists else [])
    assert not out_exists or not any(out.iterdir())


def test_an_unknown_host_fails_at_once_without_retries(
    tmp_path: Path, data: Path, lookups: list[str]
) -> None:
    judge = EndpointJudge(name="nowhere", endpoints=("http://judge.invalid:8080/v1",), model="m")
    cfg = ScoreConfig(judge=judge, out=tmp_path / "out", data=str(data), datasets="answer-equivalence",
                      n_boot=0, progress=False)  # fmt: skip
    with pytest.raises(FatalJudgeError) as e:
        score_datasets(cfg)
    assert e.value.reason == "unreachable" and "does not resolve" in e.value.message
    assert 1 <= lookups.count("judge.invalid") <= cfg.concurrency  # the first wave only: no retry
    assert not (tmp_path / "out").exists()


def test_hf_hub_offline_stops_a_hub_model_id_before_any_request(
    tmp_path: Path, data: Path, lookups: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_TOKEN", "hf_aTokenThatIsNeverSent1")
    monkeypatch.delenv(ROUTER_URL_ENV, raising=False)
    cfg = ScoreConfig(judge=HubJudge(name="hub judge", model_id="org/judge-7b"), out=tmp_path / "out",
                      data=str(data), datasets="answer-equivalence", n_boot=0, progress=False)  # fmt: skip
    with pytest.raises(RunError, match="HF_HUB_OFFLINE is set") as e:
        score_datasets(cfg)
    assert "\n" not in str(e.value) and "hf_aToken" not in str(e.value)
    assert lookups == []  # the router was not even looked up
    assert not (tmp_path / "out").exists()


async def test_a_refusal_after_the_endpoint_answered_is_a_restart_and_retried() -> None:
    """The same refused connection is a wrong URL before the first answer (the run stops) and a server
    restarting after it (transient: the pool retries)."""
    from dhp.inference.http import OpenAIChat
    from dhp.inference.protocol import Generation, SamplingParams, TransientJudgeError
    from tests.scoring.fake_server import FakeJudgeServer

    request = Generation("Rate this text.", SamplingParams(temperature=0.0, max_tokens=4))
    with FakeJudgeServer() as srv:
        judge = OpenAIChat(srv.url, "fake-judge", None, timeout=10.0)
        assert (await judge(request)).text == "4"  # type: ignore[union-attr]
    messages = []
    try:
        for _ in range(2):  # the kept-alive connection is closed under it first, then a new one is refused
            with pytest.raises(TransientJudgeError) as e:
                await judge(request)  # the server has gone: nothing listens on its port now
            assert e.value.reason == "connection"
            messages.append(e.value.message)
        assert "connection refused" in messages[-1], messages
    finally:
        await judge.aclose()
    fresh = OpenAIChat(srv.url, "fake-judge", None, timeout=10.0)
    try:
        with pytest.raises(FatalJudgeError, match="unreachable"):
            await fresh(request)
    finally:
        await fresh.aclose()
