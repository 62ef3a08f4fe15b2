"""Attacks by a submitter on the public board (#31), each against loopback servers only: a redirect to
another loopback port stands for the private network, a body holding a token for what it serves.

The worker path is the real one: form -> queue -> worker -> `dhp score` subprocess -> Queue tab."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import threading
import zlib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from dhp.leaderboard.board.stores import LocalStore
from dhp.leaderboard.page.service import AppConfig, BoardService
from dhp.leaderboard.submissions.queue import RequestQueue, State, hash_user, new_request
from dhp.leaderboard.submissions.validation import ValidationError, validate_submission
from dhp.leaderboard.submissions.worker import Worker, WorkerConfig
from dhp.secrets import hide_hosts
from dhp.spec import BENCHMARK
from tests.support.tiny_data import write_tiny_dataset

SECRET = "INTERNAL-SECRET-TOKEN-abc123"


class _Server(ThreadingHTTPServer):
    hits: int
    status: int
    content_type: str
    body: bytes
    location: str | None


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def _answer(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.server.hits += 1
        self.send_response(self.server.status)
        if self.server.location:
            self.send_header("Location", self.server.location)
        self.send_header("Content-Type", self.server.content_type)
        self.send_header("Content-Length", str(len(self.server.body)))
        self.end_headers()
        self.wfile.write(self.server.body)

    do_GET = do_POST = _answer

    def log_message(self, *args: object) -> None:  # quiet
        return


@contextlib.contextmanager
def _serve(
    status: int, body: bytes, content_type: str = "text/plain", location: str | None = None
) -> Iterator[_Server]:
    server = _Server(("127.0.0.1", 0), _Handler)
    server.hits, server.status, server.body = 0, status, body
    server.content_type, server.location = content_type, location
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def _port(server: _Server) -> int:
    return int(server.server_address[1])


@pytest.fixture(scope="module")
def tiny_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tiny") / "data"
    write_tiny_dataset(root, BENCHMARK["answer-equivalence"])
    return root


def _visible(root: Path, requests: LocalStore) -> str:
    """All a visitor can read of the queue and the results: the Queue tab's rows and every result file."""
    be = BoardService(AppConfig(results=LocalStore(root / "results"), requests=requests,
                           votes=LocalStore(root / "votes")))  # fmt: skip
    frame, problems = be.queue_frame()
    results = "".join(p.read_text() for p in (root / "results").rglob("*.json"))
    return frame.to_csv() + "".join(problems) + results


def _submit_and_run(root: Path, data: Path, endpoint: str) -> tuple[str, str]:
    """An endpoint judge submitted in the form (host not published) and run by the real worker:
    its failure reason and everything public."""
    requests, results = LocalStore(root / "requests"), LocalStore(root / "results")
    sub = validate_submission(
        judge_name="Innocent judge", endpoint_url=endpoint, protocol="openai", model="m", hf_model_id="",
        revision="", mode="expected", contact="me@example.org", app_mode="local",
    )  # fmt: skip
    RequestQueue(requests).submit(new_request(sub, hash_user("mallory")))
    cfg = WorkerConfig(
        data=data, mode="local", datasets="answer-equivalence", n_boot=0, seed=1, timeout_s=120
    )
    assert Worker(requests, results, cfg, runner=subprocess.run).drain(once=True) == 1
    (req,), _ = RequestQueue(requests).load()
    assert req.state is State.FAILED
    return req.reason or "", _visible(root, requests)


def _nothing_leaks(visible: str, *ports: int) -> None:
    assert SECRET not in visible and "abc123" not in visible
    assert "127.0.0.1" not in visible and "localhost" not in visible
    for port in ports:
        assert str(port) not in visible


# -- SSRF through a redirect ---------------------------------------------------------------------------
def test_a_redirect_to_a_private_address_is_not_followed_and_nothing_of_it_is_published(
    tmp_path: Path, tiny_data: Path
) -> None:
    """The endpoint answers every request with 307 to a "private" server (another loopback port)
    that holds a secret: the worker must not reach it, and the Queue tab must not quote it."""
    with (
        _serve(200, f"{SECRET} internal config".encode()) as private,
        _serve(307, b"", location=f"http://127.0.0.1:{_port(private)}/secret") as endpoint,
    ):
        reason, visible = _submit_and_run(tmp_path, tiny_data, f"http://127.0.0.1:{_port(endpoint)}/v1")
    assert private.hits == 0  # the redirect was not followed
    assert endpoint.hits >= 1
    assert "redirect" in reason and "not followed" in reason
    _nothing_leaks(visible, _port(private), _port(endpoint))


@pytest.mark.parametrize(
    ("status", "content_type", "body"),
    [
        (200, "text/plain", f"{SECRET} internal config".encode()),  # not the judge's API at all
        (400, "application/json", b'{"error": {"message": "%s"}}' % SECRET.encode()),  # an error doc
        (404, "text/html", b"<html><head><title>%s</title></head></html>" % SECRET.encode()),
    ],
    ids=["text", "json-error", "html-title"],
)
def test_a_failure_reason_never_quotes_what_the_endpoint_answered(
    tmp_path: Path, tiny_data: Path, status: int, content_type: str, body: bytes
) -> None:
    """The submitted URL itself answers internal content (a DNS answer that changed after the check):
    the reason says what kind of answer it was, never what it said."""
    with _serve(status, body, content_type) as endpoint:
        reason, visible = _submit_and_run(tmp_path, tiny_data, f"http://127.0.0.1:{_port(endpoint)}/v1")
    assert f"HTTP {status}" in reason or "instead of JSON" in reason
    assert content_type in reason and f"{len(body):,} bytes" in reason
    _nothing_leaks(visible, _port(endpoint))


def test_a_reason_stored_before_answers_went_unquoted_shows_none_of_the_answer(tmp_path: Path) -> None:
    """A Space upgraded with failures on record: the Queue tab no longer shows what they quoted."""
    requests = LocalStore(tmp_path / "requests")
    q = RequestQueue(requests)
    sub = validate_submission(
        judge_name="Old failure", endpoint_url="http://127.0.0.1:8000/v1", protocol="openai", model="m",
        hf_model_id="", revision="", mode="expected", contact="me@example.org", app_mode="local",
    )  # fmt: skip
    q.submit(new_request(sub, hash_user("mallory")))
    claimed = q.claim_next("w")
    assert claimed is not None
    q.fail(claimed, f"dhp score exited with status 2: dhp score: error: not-json: 127.0.0.1:8000/v1/chat/completions "
                    f"answered text '{SECRET} internal config' (37 bytes) instead of JSON: is the URL the judge's "
                    f"API? (before: http-502: an HTML page titled '{SECRET}' (159 bytes))")  # fmt: skip
    visible = _visible(tmp_path, requests)
    assert "answered text [not shown] (37 bytes)" in visible and "titled [not shown]" in visible
    _nothing_leaks(visible, 8000)


# -- hidden hosts and their ports -------------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_unreachable_hidden_endpoint_shows_neither_host_nor_port(tmp_path: Path, tiny_data: Path) -> None:
    port = _free_port()  # nothing listens there
    reason, visible = _submit_and_run(tmp_path, tiny_data, f"http://127.0.0.1:{port}/v1")
    assert "connection refused" in reason and "[host hidden]" in reason
    _nothing_leaks(visible, port)


def test_hide_hosts_hides_the_port_beside_a_hidden_host() -> None:
    text = (
        "Cannot connect to host judge.internal.example:59999 ssl:default "
        "[Connect call failed ('10.0.0.7', 59999)] or ('::1', 59998, 0, 0); judge.internal.example port 59997"
    )
    hidden = hide_hosts(text, ["http://judge.internal.example:59999/v1"])
    assert "5999" not in hidden and "10.0.0.7" not in hidden and "::1" not in hidden
    assert "judge.internal" not in hidden and "[host hidden]" in hidden


# -- names: plain text that cannot pass for another ------------------------------------------------------
def _form(name: str) -> dict[str, str | None]:
    return {"judge_name": name, "endpoint_url": "https://judge.example.org/v1", "protocol": "openai",
            "model": f"org/m{zlib.crc32(name.encode())}", "hf_model_id": "", "revision": "", "mode": "expected",
            "contact": "me@example.org"}  # fmt: skip


PUBLIC = lambda host: ["93.184.216.34"]  # noqa: E731  (the resolver: no DNS query leaves the machine)


@pytest.fixture
def board(tmp_path: Path, results_dir: Path) -> BoardService:
    """The app's backend in Space mode with the three rows of the test results (one is 'Mid Qwen 7B')."""
    return BoardService(AppConfig(results=LocalStore(results_dir), requests=LocalStore(tmp_path / "requests"),
                             votes=LocalStore(tmp_path / "votes"), mode="space", resolver=PUBLIC,
                             sign_in=True, rate_limit=100))  # fmt: skip


@pytest.mark.parametrize(
    "name",
    ["Judge ![a](http:evil.example?x)", "Judge [x](http:evil.example)", "Judge [x] (javascript:alert(1))",
     "see www.evil.example"],
    ids=["markdown-image", "markdown-link", "spaced-link", "bare-link"],
)  # fmt: skip
def test_a_name_with_link_markup_is_refused_at_submission(board: BoardService, name: str) -> None:
    with pytest.raises(ValidationError) as e:
        board.submit(_form(name), "hf:mallory")
    assert e.value.field == "judge_name" and "link" in e.value.message and "\n" not in e.value.message
    assert name not in board.queue_frame()[0].to_csv()


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("Mid Qwen 7\u0412", "reads like 'Mid Qwen 7B'"),  # a Cyrillic В, a word of its own
        ("\uff2d\uff49\uff44 Qwen 7B", "reads like 'Mid Qwen 7B'"),  # full-width: an NFKC twin
        ("Mid Qwen 7b", "is taken"),  # a case twin: one folder
        ("Strong Llama 7OB", "reads like 'Strong Llama 70B'"),  # O for 0
        ("Weak\u200b Phi-2", "control characters"),  # a zero-width space
        ("Mid Qw\u0435n 7B", "mixes Cyrillic and Latin letters in 'Qw\u0435n'"),  # a Cyrillic е inside a word
    ],
    ids=["cyrillic-letter", "full-width", "case", "o-for-zero", "zero-width", "mixed-script"],
)
def test_a_name_that_reads_like_a_row_is_refused_at_submission(
    board: BoardService, name: str, why: str
) -> None:
    with pytest.raises(ValidationError) as e:
        board.submit(_form(name), "hf:mallory")
    assert why in e.value.message and "\n" not in e.value.message
    assert board.queue_frame()[0].empty


def test_a_homoglyph_of_a_queued_name_is_refused_and_other_scripts_are_welcome(board: BoardService) -> None:
    board.submit(_form("deepseek judge"), "hf:alice")
    with pytest.raises(ValidationError, match="mixes Cyrillic and Latin"):
        board.submit(_form("d\u0435epseek judge"), "hf:mallory")  # "dеepseek", a Cyrillic е
    with pytest.raises(ValidationError, match="reads like 'deepseek judge'"):
        board.submit(_form("deepseek judge\u0307"), "hf:mallory")  # a combining dot above the e
    for fine in ("Qwen2 中文版", "Llama-3 (русский)", "GPT-4o [beta] (temp 0)", "Judge: v2"):
        assert "PENDING" in board.submit(_form(fine), "hf:bob")
    assert len(board.queue_frame()[0]) == 5


# -- DNS rebinding: a name checked as public answers a private address by the time the scorer connects ---
async def test_a_name_that_resolves_to_a_private_address_at_connection_time_is_not_contacted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from dhp.inference.addresses import PUBLIC_ONLY_ENV
    from dhp.inference.http import OpenAIChat
    from dhp.inference.protocol import FatalJudgeError, Generation, SamplingParams

    real = socket.getaddrinfo

    def rebound(host: object, port: object, *args: object, **kw: object) -> object:
        if host == "judge.rebind.example":  # it answered a public address when it was checked
            return real("127.0.0.1", port, *args, **kw)  # type: ignore[arg-type]
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", rebound)
    monkeypatch.setenv(PUBLIC_ONLY_ENV, "1")
    request = Generation("Rate this text.", SamplingParams(temperature=0.0, max_tokens=4))
    with _serve(200, f"{SECRET} internal config".encode()) as private:
        judge = OpenAIChat(f"http://judge.rebind.example:{_port(private)}/v1", "m", None, timeout=10.0)
        try:
            with pytest.raises(FatalJudgeError, match="resolves to a loopback address now") as e:
                await judge(request)
        finally:
            await judge.aclose()
    assert private.hits == 0 and e.value.reason == "not-public"


def test_the_space_worker_makes_the_scorer_contact_public_addresses_only(tmp_path: Path) -> None:
    from dhp.inference.addresses import PUBLIC_ONLY_ENV

    requests, results = LocalStore(tmp_path / "requests"), LocalStore(tmp_path / "results")
    sub = validate_submission(**_form("Space judge"), app_mode="space", resolver=PUBLIC)  # type: ignore[arg-type]
    RequestQueue(requests).submit(new_request(sub, hash_user("alice")))
    envs: list[dict[str, str]] = []

    def runner(cmd: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
        envs.append(dict(kw["env"]))  # type: ignore[call-overload]
        return subprocess.CompletedProcess(cmd, 2, "", "dhp score: error: stopped here")

    cfg = WorkerConfig(data=tmp_path, mode="space", resolver=PUBLIC)
    assert Worker(requests, results, cfg, runner=runner).drain(once=True) == 1
    assert [e.get(PUBLIC_ONLY_ENV) for e in envs] == ["1"]
