"""The queue worker: real `dhp score` runs (a control judge, a loopback endpoint, a Hub model id through a
loopback replay of the HF router) with the judge handed over whole, failures with scrubbed reasons."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dhp.inference.hub import ROUTER_URL_ENV
from dhp.inference.judge import (
    BuiltinJudge,
    EndpointJudge,
    HubJudge,
    Judge,
    dump_judge,
    published,
    read_judge,
)
from dhp.leaderboard.board.loading import ResultsIndex
from dhp.leaderboard.board.stores import LocalStore
from dhp.leaderboard.submissions.queue import QueuedRequest, RequestQueue, State, hash_user, new_request
from dhp.leaderboard.submissions.validation import Submission, validate_submission
from dhp.leaderboard.submissions.worker import (
    API_KEY_ENV,
    HF_TOKEN_ENV,
    Worker,
    WorkerConfig,
    score_command,
    scorer_env,
)
from dhp.scoring.result_files import parse_result
from dhp.secrets import scrub
from dhp.spec import BENCHMARK
from dhp.types import ControlJudge
from tests.scoring.fake_server import FakeJudgeServer, hashed_answer
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
    return Submission(judge=judge, mode="expected", contact="c")


def test_score_command_passes_the_judge_whole_and_no_secret(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(API_KEY_ENV, "sk-very-secret-key")
    req = new_request(_endpoint(), "u")
    cmd = score_command(
        req, WorkerConfig(data=tmp_path, n_boot=10), tmp_path / "judge.json", tmp_path / "out"
    )
    assert "sk-very-secret-key" not in " ".join(cmd)
    assert cmd[:6] == [sys.executable, "-m", "dhp", "score", "--judge-file", str(tmp_path / "judge.json")]
    for flag in (
        "--endpoint",
        "--judge",
        "--judge-name",
        "--model",
        "--protocol",
        "--hf-model-id",
        "--model-revision",
    ):
        assert flag not in cmd  # the judge is not re-spelled as arguments
    assert cmd[cmd.index("--mode") + 1] == "expected"
    assert cmd[cmd.index("--n-boot") + 1] == "10"


def test_scrub() -> None:
    text = "401 for key sk-abcdef123456 and hf_abcdefghijk, Authorization: Bearer xyz.123 api_key=foo mine=s3cr3t!"
    out = scrub(text, ["s3cr3t!"])
    for secret in ("sk-abcdef123456", "hf_abcdefghijk", "xyz.123", "foo", "s3cr3t!"):
        assert secret not in out
    assert "401" in out
    prose = "--model-id needs a Hugging Face token: set HF_TOKEN or log in with `hf auth login`"
    assert scrub(prose) == prose  # a sentence about a token is no token
    assert "hunter22" not in scrub("password: hunter22") and "x7Yq" not in scrub("token:x7Yq")


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
    cfg = WorkerConfig(
        data=tmp_path, mode="space", resolver=lambda host: ["10.0.0.7"]
    )  # DNS now points inside
    w = Worker(requests, results, cfg, runner=lambda *a, **k: calls.append(a))  # type: ignore[arg-type,return-value]
    w.drain(once=True)
    (req,), _ = q.load()
    assert req.state is State.FAILED and "refused at run time" in (req.reason or "")
    assert not calls


@pytest.mark.slow
def test_worker_runs_a_control_judge_end_to_end(tmp_path: Path, tiny_data: Path) -> None:
    requests, results = LocalStore(tmp_path / "requests"), LocalStore(tmp_path / "results")
    q = RequestQueue(requests)
    sub = Submission(
        judge=BuiltinJudge(name="Random control", control=ControlJudge.RANDOM), mode="builtin", contact="ci"
    )
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


# -- the judge travels whole: queue -> worker -> `dhp score --judge-file` -> results ---------------
class _Spy:
    """Runs the real scorer subprocess and keeps what it was handed and what it wrote."""

    def __init__(self) -> None:
        self.judges: list[Judge] = []
        self.written: dict[str, bytes] = {}
        self.cmd: list[str] = []

    def __call__(self, cmd: list[str], **kw: Any) -> subprocess.CompletedProcess[str]:
        self.cmd = cmd
        self.judges.append(read_judge(Path(cmd[cmd.index("--judge-file") + 1])))
        proc = subprocess.run(cmd, **kw)
        out = Path(cmd[cmd.index("--out") + 1])
        self.written = {f.name: f.read_bytes() for f in out.rglob("*.json") if not f.name.startswith(".")}
        return proc


def _run_worker(tmp_path: Path, data: Path, sub: Submission) -> tuple[QueuedRequest, _Spy, LocalStore]:
    requests, results = LocalStore(tmp_path / "requests"), LocalStore(tmp_path / "results")
    q = RequestQueue(requests)
    q.submit(new_request(sub, hash_user("alice")))
    spy = _Spy()
    cfg = WorkerConfig(data=data, mode="local", datasets="answer-equivalence", n_boot=0, seed=3)
    assert Worker(requests, results, cfg, runner=spy).drain(once=True) == 1
    (req,), _ = q.load()
    return req, spy, results


@pytest.mark.slow
def test_the_worker_hands_the_judge_whole_and_stores_results_unpatched(
    tmp_path: Path, tiny_data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(API_KEY_ENV, "sk-endpointKey123")
    monkeypatch.setenv(HF_TOKEN_ENV, "hf_operatorToken456")  # never sent to a submitted endpoint
    with FakeJudgeServer(hashed_answer, model="org/m") as srv:
        judge = EndpointJudge(name="Loopback judge (7B)", endpoints=(srv.url + "/",), model="org/m",
                              hf_model_id="org/m", revision="abc123", n_params=7e9)  # fmt: skip
        req, spy, results = _run_worker(
            tmp_path, tiny_data, Submission(judge=judge, mode="expected", contact="c")
        )
    assert req.state is State.FINISHED, req.reason
    assert spy.judges == [judge]  # exactly the submitted judge, as one record
    assert {e.headers.get("Authorization") for e in srv.log} == {"Bearer sk-endpointKey123"}
    (path,) = req.results
    assert path == f"loopback-judge--7b-/{next(iter(spy.written))}"
    assert results.read(path) == next(
        iter(spy.written.values())
    )  # stored byte for byte as the scorer wrote it
    j = parse_result(results.read(path).decode(), source=path).judge
    assert (j.name, j.kind, j.protocol, j.model) == ("Loopback judge (7B)", "endpoint", "openai", "org/m")
    assert (j.hf_model_id, j.revision, j.n_params, j.endpoint_hosts) == ("org/m", "abc123", 7e9, ())
    assert f"127.0.0.1:{srv.port}" not in results.read(path).decode()  # the host was not published
    assert j.settings["mode"] == "expected"
    stored = b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())
    assert b"sk-endpointKey123" not in stored and b"hf_operatorToken456" not in stored


@pytest.mark.slow
def test_a_hub_model_id_submission_is_scored_through_the_router_with_the_operators_token(
    tmp_path: Path, tiny_data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Form -> queue -> worker -> results for a Hub model id, against the loopback replay of the HF router."""
    monkeypatch.setenv(API_KEY_ENV, "sk-meantForEndpoints1")  # not the router's
    monkeypatch.setenv(HF_TOKEN_ENV, "hf_operatorToken456")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    sub = validate_submission(
        judge_name="Judge 7B via novita", endpoint_url="", protocol="openai", model="", hf_model_id="test-org/judge-7b",
        provider="novita", revision="", mode="expected", contact="me@example.org", app_mode="local",
    )  # fmt: skip
    assert sub.judge == HubJudge(name="Judge 7B via novita", model_id="test-org/judge-7b", provider="novita")
    with FakeJudgeServer(hashed_answer, model="test-org/judge-7b:novita") as srv:
        monkeypatch.setenv(ROUTER_URL_ENV, srv.url)
        req, spy, results = _run_worker(tmp_path, tiny_data, sub)
    assert req.state is State.FINISHED, req.reason
    assert spy.judges == [sub.judge] and "--mode" in spy.cmd
    assert {e.headers.get("Authorization") for e in srv.log} == {"Bearer hf_operatorToken456"}
    assert {e.path for e in srv.log} == {"/v1/chat/completions"}
    assert {e.body["model"] for e in srv.log} == {"test-org/judge-7b:novita"}
    (path,) = req.results
    j = parse_result(results.read(path).decode(), source=path).judge
    assert j.judge == published(sub.judge)  # the provider is the judge's
    assert j.model == "test-org/judge-7b:novita"
    stored = b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())
    assert b"hf_operatorToken456" not in stored and b"sk-meantForEndpoints1" not in stored


def test_a_hub_judge_without_a_token_fails_with_a_one_line_reason(
    tmp_path: Path, tiny_data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(API_KEY_ENV, "sk-meantForEndpoints1")  # an endpoint key is no HF token
    monkeypatch.delenv(HF_TOKEN_ENV, raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "no-login"))
    monkeypatch.setenv(ROUTER_URL_ENV, "http://127.0.0.1:9")
    sub = Submission(
        judge=HubJudge(name="Hub judge", model_id="test-org/judge-7b"), mode="expected", contact="c"
    )
    req, _, _ = _run_worker(tmp_path, tiny_data, sub)
    assert req.state is State.FAILED and "needs a Hugging Face token" in (req.reason or "")
    assert "Traceback" not in (req.reason or "") and "sk-meantForEndpoints1" not in (req.reason or "")


def test_each_kind_of_judge_gets_only_its_own_secret() -> None:
    env = {API_KEY_ENV: "sk-x", HF_TOKEN_ENV: "hf_y", "PATH": "/bin"}
    ep = EndpointJudge(name="ep", endpoints=("https://judge.example.org/v1",))
    assert scorer_env(ep, env) == {API_KEY_ENV: "sk-x", "PATH": "/bin"}
    assert scorer_env(HubJudge(name="hub", model_id="o/m"), env) == {HF_TOKEN_ENV: "hf_y", "PATH": "/bin"}
    assert scorer_env(BuiltinJudge(name="r", control=ControlJudge.RANDOM), env) == {"PATH": "/bin"}


@pytest.mark.slow
def test_a_result_of_another_judge_is_refused_not_patched(tmp_path: Path, tiny_data: Path) -> None:
    """The scorer is trusted to write the request's judge; a result naming another is a failure."""
    requests, results = LocalStore(tmp_path / "requests"), LocalStore(tmp_path / "results")
    q = RequestQueue(requests)
    q.submit(
        new_request(
            Submission(
                judge=BuiltinJudge(name="Random control", control=ControlJudge.RANDOM),
                mode="builtin",
                contact="c",
            ),
            "u",
        )
    )

    def runner(cmd: list[str], **kw: Any) -> subprocess.CompletedProcess[str]:
        i = cmd.index("--judge-file") + 1
        other = BuiltinJudge(name="Someone else", control=ControlJudge.RANDOM)
        Path(cmd[i]).write_text(dump_judge(other))
        return subprocess.run(cmd, **kw)

    cfg = WorkerConfig(data=tiny_data, datasets="story-cloze", n_boot=0)
    Worker(requests, results, cfg, runner=runner).drain(once=True)
    (req,), _ = q.load()
    assert req.state is State.FAILED and "'Someone else', not the request's" in (req.reason or "")
    assert not results.list(".json")


# -- hosts: published only when the submitter ticked "publish host" --------------------------------
_ACME = "https://api.acme-llm.example.com/v1"
_ACME_TAIL = (  # what aiohttp prints when the endpoint cannot be reached (host, port, resolved address)
    "aiohttp.client_exceptions.ClientConnectorError: Cannot connect to host api.acme-llm.example.com:443 "
    "ssl:default [Connect call failed ('203.0.113.77', 443)]\nHTTP error at https://API.acme-llm.example.com/v1/chat"
)


def _visible(tmp_path: Path, q: RequestQueue) -> str:
    """Everything a visitor can read about the queue and the results: the Queue tab's rows (as the
    app builds them) and every result file."""
    from dhp.leaderboard.page.service import AppConfig, BoardService

    be = BoardService(AppConfig(results=LocalStore(tmp_path / "results"), requests=q.store,
                           votes=LocalStore(tmp_path / "votes")))  # fmt: skip
    frame, _ = be.queue_frame()
    results = "".join(p.read_text() for p in (tmp_path / "results").rglob("*.json"))
    return frame.to_csv() + results


@pytest.mark.parametrize("publish", [False, True])
def test_a_hidden_host_is_nowhere_a_visitor_can_read_after_a_failure(tmp_path: Path, publish: bool) -> None:
    requests, results = LocalStore(tmp_path / "requests"), LocalStore(tmp_path / "results")
    q = RequestQueue(requests)
    judge = EndpointJudge(name="Acme judge", endpoints=(_ACME,), model="acme-1")
    q.submit(
        new_request(
            Submission(
                judge=judge.model_copy(update={"publish_host": publish}),
                mode="expected",
                contact="me@example.org",
            ),
            "u",
        )
    )

    def runner(cmd: list[str], **kw: Any) -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess(cmd, 1, "", "Traceback (most recent call last):\n" + _ACME_TAIL)

    assert Worker(requests, results, WorkerConfig(data=tmp_path), runner=runner).drain(once=True) == 1
    (req,), _ = q.load()
    assert req.state is State.FAILED and "Cannot connect to host" in (req.reason or "")
    visible = _visible(tmp_path, q).lower()
    if publish:
        assert "api.acme-llm.example.com" in visible
    else:
        assert "acme-llm" not in visible and "203.0.113.77" not in visible
        assert "[host hidden]" in (req.reason or "") and "hidden" in visible


@pytest.mark.slow
def test_a_hidden_loopback_host_is_hidden_from_a_real_scorer_failure(tmp_path: Path, tiny_data: Path) -> None:
    """The real `dhp score` against a loopback port with nothing listening: its error names the host."""
    judge = EndpointJudge(name="Down judge", endpoints=("http://127.0.0.1:9/v1",), model="m")
    req, spy, _ = _run_worker(tmp_path, tiny_data, Submission(judge=judge, mode="expected", contact="c"))
    assert req.state is State.FAILED and req.reason
    assert "127.0.0.1" not in req.reason and "[host hidden]" in req.reason
    assert spy.judges[0] == judge.model_copy(update={"publish_host": False})


def test_a_run_time_refusal_hides_the_host(tmp_path: Path) -> None:
    requests, results = LocalStore(tmp_path / "requests"), LocalStore(tmp_path / "results")
    q = RequestQueue(requests)
    q.submit(new_request(_endpoint(), "u"))
    cfg = WorkerConfig(data=tmp_path, mode="space", resolver=lambda host: ["10.0.0.7"])
    Worker(requests, results, cfg, runner=subprocess.run).drain(once=True)
    (req,), _ = q.load()
    assert req.state is State.FAILED and "refused at run time" in (req.reason or "")
    assert "judge.example.org" not in (req.reason or "") and "10.0.0.7" not in (req.reason or "")


@pytest.mark.slow
def test_results_record_the_host_only_when_published(tmp_path: Path, tiny_data: Path) -> None:
    with FakeJudgeServer(hashed_answer, model="org/m") as srv:
        judge = EndpointJudge(name="Published judge", endpoints=(srv.url + "/",), model="org/m")
        req, spy, results = _run_worker(
            tmp_path,
            tiny_data,
            Submission(judge=judge.model_copy(update={"publish_host": True}), mode="expected", contact="c"),
        )
    assert req.state is State.FINISHED, req.reason
    assert isinstance(spy.judges[0], EndpointJudge) and spy.judges[0].publish_host is True
    (path,) = req.results
    assert parse_result(results.read(path).decode(), source=path).judge.endpoint_hosts == (
        f"127.0.0.1:{srv.port}",
    )


@pytest.mark.parametrize("poll", ["0", "-1", "inf", "nan"])
def test_a_poll_that_is_not_a_positive_number_of_seconds_is_one_line(
    poll: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from dhp.cli import main

    (tmp_path / "data").mkdir()
    args = ["worker", "--data", str(tmp_path / "data"), "--requests", str(tmp_path / "q"),
            "--results", str(tmp_path / "r"), "--poll", poll]  # fmt: skip
    with pytest.raises(SystemExit) as e:  # refused as the command line is read
        main(args)
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("dhp worker: error: argument --poll: must be a number of seconds above 0") and (
        "\n" not in err
    )
