"""Nothing a user types breaks it (issue 40): bad values, file errors, signals, unreadable requests,
the umask, temporary folders.

Each bad command line of :mod:`tests.hardening.bad_args` is refused in one line, exit 2, with nothing
written; the processes started here (``dhp leaderboard``) end on Ctrl-C or SIGTERM with one line and
exit 130 or 143, children included, and leave no temporary folder.
"""

from __future__ import annotations

import io
import logging
import os
import re
import signal
import socket
import stat
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from dhp.cli import main
from tests.hardening.bad_args import CASES, Place, run_case
from tests.leaderboard.factory import result_json
from tests.support.processes import children, running

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory) -> Place:
    return Place(tmp_path_factory.mktemp("place")).make()


@pytest.mark.parametrize(("case", "argv", "words"), CASES, ids=[c[0] for c in CASES])
def test_a_bad_command_line_is_one_line_exit_2_and_writes_nothing(
    place: Place, case: str, argv: tuple[str, ...], words: str
) -> None:
    o = run_case(place, case, argv)
    assert o.code == 2, o.lines
    assert len(o.lines) == 1 and words in o.lines[0], o.lines
    assert o.lines[0].startswith("dhp") and "error: " in o.lines[0]
    assert o.changed == [], o.changed


def test_the_matrix_holds_every_case_of_the_issue() -> None:
    names = {c[0] for c in CASES}
    assert {"show: -n negative", "score: --seed -1", "build: --samples-n -1", "leaderboard: --refresh -1",
            "leaderboard: --refresh nan", "build: --out is a file", "show: unknown dataset"} <= names  # fmt: skip
    assert len(CASES) >= 80


def _one_line(fn: Callable[[], int]) -> tuple[int, list[str]]:
    err = io.StringIO()
    with redirect_stderr(err), redirect_stdout(io.StringIO()):
        rc = fn()
    return rc, [ln for ln in err.getvalue().splitlines() if ln.strip()]


@pytest.mark.parametrize(
    ("error", "words"),
    [
        (
            PermissionError(13, "Permission denied", "/d/summeval/data/x.parquet"),
            "x.parquet: permission denied",
        ),
        (FileExistsError(17, "File exists", "/o/summeval"), "/o/summeval: exists already"),
        (
            NotADirectoryError(20, "Not a directory", "/o/a-file/r"),
            "a-file/r: a file where a folder is needed",
        ),
        (IsADirectoryError(21, "Is a directory", "/w.json"), "/w.json: a folder where a file is needed"),
        (
            PermissionError("Failed to open local file '/d/x.parquet'"),
            "permission denied: Failed to open local",
        ),
    ],
    ids=["permission", "exists", "not-a-folder", "is-a-folder", "pyarrow-words"],
)
def test_a_file_system_error_is_one_line_in_words_exit_2(
    error: OSError, words: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dhp import cli

    def fails(args: object) -> int:
        raise error

    monkeypatch.setattr(cli, "_cmd_spec", fails)
    rc, lines = _one_line(lambda: cli.main(["spec"]))
    assert rc == 2 and lines == [f"dhp spec: error: {lines[0].split('error: ', 1)[1]}"]
    assert words in lines[0] and type(error).__name__ not in lines[0]


def test_an_unreadable_weights_file_is_refused_as_the_command_line_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    weights = tmp_path / "w.json"
    weights.write_text("{}", encoding="utf-8")
    real = os.access
    monkeypatch.setattr(
        os, "access", lambda p, mode: False if Path(p) == weights else real(p, mode)
    )  # root reads all

    def run() -> int:
        try:
            return main(
                ["score", "--judge", "random", "--weights", str(weights), "--out", str(tmp_path / "r")]
            )
        except SystemExit as e:
            return int(e.code or 0)

    rc, lines = _one_line(run)
    assert rc == 2 and len(lines) == 1 and "w.json: not readable (permission denied)" in lines[0]
    assert not (tmp_path / "r").exists()


def test_score_with_a_negative_seed_starts_nothing(tmp_path: Path) -> None:
    """The issue's `--seed -1`: a 54-line traceback from numpy, and a cost ledger left in the results."""
    out = tmp_path / "results"
    res = subprocess.run([sys.executable, "-m", "dhp", "score", "--judge", "random", "--seed", "-1", "--out",
                          str(out)], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(REPO)})  # fmt: skip
    assert res.returncode == 2 and len(res.stderr.splitlines()) == 1, res.stderr
    assert "argument --seed: must be a whole number from 0 to 4294967295, got '-1'" in res.stderr
    assert not out.exists()


def test_a_closed_output_pipe_ends_quietly(tmp_path: Path) -> None:
    """`dhp spec | head -1`: the reader goes away; no BrokenPipeError traceback."""
    proc = subprocess.Popen([sys.executable, "-m", "dhp", "spec"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "PYTHONPATH": str(REPO)})  # fmt: skip
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()  # as head does after its line
    err = proc.stderr.read().decode()
    proc.wait(timeout=120)
    assert "Traceback" not in err and "BrokenPipeError" not in err, err


# -- the worker names every request file it cannot read ----------------------------------------------
def test_the_worker_names_every_unreadable_request_file_in_its_log_and_the_queue_shows_it_failed(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from dhp.leaderboard.board.stores import LocalStore
    from dhp.leaderboard.page.service import AppConfig, BoardService

    (tmp_path / "data").mkdir()
    q = tmp_path / "q"
    q.mkdir()
    (q / "zz-corrupt.json").write_bytes(b'{"id": "zz-corrupt", "state": "RUNN')
    (q / "binary.json").write_bytes(b"\xff\xfe\x00")
    (q / "not-a-request.json").write_text('{"hello": "world"}', encoding="utf-8")
    before = {p.name: p.read_bytes() for p in q.iterdir()}
    out = io.StringIO()
    with caplog.at_level(logging.ERROR), redirect_stdout(out):
        rc = main(["worker", "--once", "--data", str(tmp_path / "data"), "--requests", str(q), "--results",
                   str(tmp_path / "r")])  # fmt: skip
    assert rc == 0
    logged = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    for name in before:
        assert sum(name in m for m in logged) == 1, logged  # once each, by name
        assert name in out.getvalue()
    assert "3 unreadable request file(s)" in out.getvalue()
    assert {p.name: p.read_bytes() for p in q.iterdir()} == before  # named, never rewritten
    frame, _ = BoardService(AppConfig(results=LocalStore(tmp_path / "r"), requests=LocalStore(q),
                                 votes=LocalStore(tmp_path / "v"))).queue_frame()  # fmt: skip
    shown = dict(zip(frame["Request"], frame["State"], strict=True))
    assert shown == {"binary": "FAILED", "not-a-request": "FAILED", "zz-corrupt": "FAILED"}


def test_a_request_file_that_cannot_be_read_at_all_is_named_not_fatal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dhp.leaderboard.board.stores import LocalStore
    from dhp.leaderboard.submissions.queue import RequestQueue

    store = LocalStore(tmp_path / "q")
    store.write("locked.json", b"{}")
    real = LocalStore.read

    def read(self: LocalStore, path: str) -> bytes:
        if path == "locked.json":
            raise PermissionError(13, "Permission denied", path)
        return real(self, path)

    monkeypatch.setattr(LocalStore, "read", read)
    queue = RequestQueue(store)
    reqs, problems = queue.load()
    assert reqs == [] and problems == ["locked.json: cannot read it (Permission denied)"]
    assert queue.unreadable() == {"locked.json": "locked.json: cannot read it (Permission denied)"}


# -- files and folders follow the umask; temporary folders go with their process --------------------
def test_a_dataset_written_under_umask_022_is_readable_by_another_user(tmp_path: Path) -> None:
    code = ("import sys; from pathlib import Path; from dhp.spec import get_dataset; "
            "from tests.support.tiny_data import write_tiny_dataset; "
            "write_tiny_dataset(Path(sys.argv[1]), get_dataset('answer-equivalence'), n_items=4)")  # fmt: skip
    subprocess.run([sys.executable, "-c", code, str(tmp_path / "out")], cwd=REPO, check=True, umask=0o022,
                   env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=120)  # fmt: skip
    paths = [tmp_path / "out", *(tmp_path / "out").rglob("*")]
    assert len(paths) > 4
    for p in paths:
        mode = stat.S_IMODE(p.stat().st_mode)
        want = 0o755 if p.is_dir() else 0o644
        assert mode == want, f"{p}: {oct(mode)}"


def test_atomic_writes_follow_the_umask(tmp_path: Path) -> None:
    from dhp.fsutil import atomic_write_text, make_temp_folder

    old = os.umask(0o027)
    try:
        f = atomic_write_text(tmp_path / "a" / "r.json", "{}")
        d = make_temp_folder(tmp_path, ".x-")
    finally:
        os.umask(old)
    assert stat.S_IMODE(f.stat().st_mode) == 0o640 and stat.S_IMODE(d.stat().st_mode) == 0o750


def test_a_board_configuration_leaves_no_temporary_folder_when_its_process_ends(tmp_path: Path) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    code = ("from dhp.leaderboard.page.service import AppConfig; from dhp.leaderboard.board.stores import "
            "LocalStore; import sys; s = LocalStore(sys.argv[1]); c = AppConfig(results=s, requests=s, votes=s); "
            "assert c.csv_dir.is_dir(); print(c.csv_dir)")  # fmt: skip
    res = subprocess.run([sys.executable, "-c", code, str(tmp_path / "store")], cwd=REPO, capture_output=True,
                         text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(REPO), "TMPDIR": str(tmp)})  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert Path(res.stdout.strip()).parent == tmp
    assert list(tmp.iterdir()) == []


# -- Ctrl-C and SIGTERM at any moment of `dhp leaderboard` ---------------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_for(cond: Callable[[], bool], what: str, timeout: float = 240.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def _said(err: str) -> list[str]:
    """The lines of ``err`` but a third-party library's Python warning (file:line: XWarning: ..., and its
    source line), which an import may print at start-up whatever dhp does."""
    lines = err.splitlines()
    drop: set[int] = set()
    for i, line in enumerate(lines):
        if re.match(r"^\S+\.py:\d+: \w*Warning: ", line) and "/dhp/" not in line:
            drop.add(i)
            if i + 1 < len(lines) and lines[i + 1].startswith("  "):
                drop.add(i + 1)
    return [line for i, line in enumerate(lines) if i not in drop and line.strip()]


def _descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        kids = [p.pid for p in children(todo.pop())]
        found += kids
        todo += kids
    return found


@pytest.fixture
def board_results(tmp_path: Path) -> Path:
    results = tmp_path / "results"
    for i in range(6):
        (results / f"judge-{i}").mkdir(parents=True)
        (results / f"judge-{i}" / f"summeval@local-{i:012d}.json").write_text(result_json(f"judge {i}"))
    return results


@pytest.fixture
def board(
    tmp_path: Path, board_results: Path
) -> Iterator[Callable[[], tuple[subprocess.Popen[bytes], Path]]]:
    """Starts `dhp leaderboard` in its own process group (as a terminal runs it), its temp dir its own;
    returns it once it has announced its URL and a page view has started the rank job."""
    started: list[subprocess.Popen[bytes]] = []

    def start() -> tuple[subprocess.Popen[bytes], Path]:
        tmp = tmp_path / "tmp"
        tmp.mkdir()
        port = _free_port()
        env = {
            **os.environ,
            "PYTHONPATH": str(REPO),
            "TMPDIR": str(tmp),
            "GRADIO_TEMP_DIR": str(tmp_path / "g"),
        }
        with (tmp_path / "out").open("wb") as out, (tmp_path / "err").open("wb") as err:
            proc = subprocess.Popen([sys.executable, "-m", "dhp", "leaderboard", "--results", str(board_results),
                                     "--requests", str(tmp_path / "requests"), "--port", str(port)], cwd=tmp_path,
                                    stdout=out, stderr=err, env=env, start_new_session=True)  # fmt: skip
        started.append(proc)
        _wait_for(lambda: b"DHP leaderboard on" in (tmp_path / "out").read_bytes() or proc.poll() is not None,
                  "the board to start")  # fmt: skip
        assert proc.poll() is None, (tmp_path / "err").read_text()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/dhp/view", timeout=120) as r:
            assert r.status == 200  # its first view starts the rank ranges' child process
        return proc, tmp

    yield start
    for proc in started:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=60)


@pytest.mark.slow  # a `dhp leaderboard` process per case (~5-10 s each)
@pytest.mark.parametrize(
    ("sig", "after_s"),
    [
        (signal.SIGINT, 0.5),
        (signal.SIGINT, 1.0),
        (signal.SIGINT, 2.0),
        (signal.SIGINT, 3.0),
        (signal.SIGTERM, 0.5),
        (signal.SIGTERM, 2.0),
    ],
    ids=["ctrl-c-0.5s", "ctrl-c-1s", "ctrl-c-2s", "ctrl-c-3s", "sigterm-0.5s", "sigterm-2s"],
)
def test_ctrl_c_or_sigterm_on_the_board_is_one_line_and_ends_its_children(
    board: Callable[[], tuple[subprocess.Popen[bytes], Path]], tmp_path: Path, sig: int, after_s: float
) -> None:
    proc, tmp = board()
    time.sleep(after_s)  # the moment of the Ctrl-C: the scenario, not a wait for anything
    kids = _descendants(proc.pid)
    os.killpg(proc.pid, sig)  # as a terminal sends Ctrl-C: to the whole foreground group
    rc = proc.wait(timeout=120)
    word, code = ("interrupted", 130) if sig == signal.SIGINT else ("terminated", 143)
    err = (tmp_path / "err").read_text()
    assert rc == code and _said(err) == [f"dhp leaderboard: {word}"], err
    _wait_for(lambda: not any(running(k) for k in kids), "the board's children to end", timeout=60)
    assert "Traceback" not in (tmp_path / "err").read_text()  # nor from a child, once it ended
    assert [p.name for p in tmp.iterdir() if p.name.startswith("dhp-leaderboard")] == []


# -- Ctrl-C and SIGTERM in the worker, the scorer and the builder ----------------------------------------
def test_a_worker_stopped_mid_run_puts_its_request_back_in_the_queue(tmp_path: Path) -> None:
    from dhp.leaderboard.board.stores import LocalStore
    from dhp.leaderboard.submissions.queue import RequestQueue, State, new_request
    from dhp.leaderboard.submissions.validation import validate_submission
    from dhp.leaderboard.submissions.worker import Worker, WorkerConfig

    requests, results = LocalStore(tmp_path / "requests"), LocalStore(tmp_path / "results")
    sub = validate_submission(judge_name="J", endpoint_url="http://127.0.0.1:9/v1", protocol="openai", model="m",
                              hf_model_id="", revision="", mode="expected", contact="me@example.org", app_mode="local")  # fmt: skip
    RequestQueue(requests).submit(new_request(sub, "u"))

    def interrupted(cmd: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
        raise KeyboardInterrupt  # Ctrl-C while the scorer ran (subprocess.run ends the child, then raises)

    w = Worker(requests, results, WorkerConfig(data=tmp_path, mode="local"), runner=interrupted)
    with pytest.raises(KeyboardInterrupt):
        w.drain(once=True)
    (req,), _ = RequestQueue(requests).load()
    assert req.state is State.PENDING and req.worker is None and req.started_at is None


def _ends_in_one_line(proc: subprocess.Popen[bytes], err: Path, command: str, sig: int) -> None:
    os.killpg(proc.pid, sig)
    rc = proc.wait(timeout=120)
    word, code = ("interrupted", 130) if sig == signal.SIGINT else ("terminated", 143)
    text = err.read_text()
    assert rc == code and _said(text)[-1] == f"dhp {command}: {word}", text
    assert "Traceback" not in text and text.count(word) == 1, text


@pytest.mark.slow  # a `dhp score` process against a slow loopback judge (~5 s each)
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_ctrl_c_or_sigterm_mid_score_is_one_line(tmp_path: Path, sig: int) -> None:
    from dhp.spec import get_dataset
    from tests.scoring.fake_server import FakeJudgeServer, hashed_answer
    from tests.support.tiny_data import write_tiny_dataset

    write_tiny_dataset(tmp_path / "data", get_dataset("answer-equivalence"), n_items=20)
    with FakeJudgeServer(hashed_answer, latency=0.2) as srv:
        with (tmp_path / "err").open("wb") as err:
            proc = subprocess.Popen([sys.executable, "-m", "dhp", "score", "--endpoint", srv.url, "--judge-name", "j",
                                     "--data", str(tmp_path / "data"), "--out", str(tmp_path / "r"), "--no-progress"],
                                    cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=err, start_new_session=True,
                                    env={**os.environ, "PYTHONPATH": str(REPO)})  # fmt: skip
        try:
            _wait_for(lambda: srv.answered >= 1 or proc.poll() is not None, "the first answer")
            assert proc.poll() is None, (tmp_path / "err").read_text()
            _ends_in_one_line(proc, tmp_path / "err", "score", sig)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=60)


def test_an_interruption_while_a_dataset_s_requests_are_handed_out_leaves_none_of_them_running(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Ctrl-C or SIGTERM can land while ``start_sending`` makes a dataset's tasks (thousands: a CI run's
    SIGTERM did): the tasks made so far and the first wave are cancelled, so none goes on once the pool
    has closed, to end in an exception no one retrieves ("Session is closed", logged after the one line)."""
    import asyncio
    import gc

    from dhp.inference.judge import EndpointJudge
    from dhp.scoring.config import ScoreConfig
    from dhp.scoring.run import score_datasets
    from dhp.spec import get_dataset
    from tests.scoring.fake_server import FakeJudgeServer, hashed_answer
    from tests.support.tiny_data import write_tiny_dataset

    write_tiny_dataset(tmp_path / "data", get_dataset("answer-equivalence"), n_items=20)
    real, made = asyncio.ensure_future, list[asyncio.Future[Any]]()

    def interrupted_at_the_fifth(coro: Any, **kw: Any) -> Any:
        if getattr(coro, "__qualname__", "") != "start_sending.<locals>.one":
            return real(coro, **kw)
        if len(made) == 4:
            coro.close()
            raise KeyboardInterrupt
        made.append(real(coro, **kw))
        return made[-1]

    monkeypatch.setattr(asyncio, "ensure_future", interrupted_at_the_fifth)
    with FakeJudgeServer(hashed_answer, latency=0.05) as srv:
        cfg = ScoreConfig(
            judge=EndpointJudge(name="j", endpoints=(srv.url,)), out=tmp_path / "r", datasets="answer-equivalence",
            data=str(tmp_path / "data"), n_boot=0, concurrency=4, progress=False,
        )  # fmt: skip
        with caplog.at_level(logging.ERROR, logger="asyncio"), pytest.raises(KeyboardInterrupt):
            score_datasets(cfg)
        gc.collect()  # a task that ended in an exception no one read is reported when it is collected
    assert len(made) == 4 and all(t.cancelled() for t in made), made
    assert "never retrieved" not in caplog.text, caplog.text


@pytest.mark.slow  # a `dhp build` from the sources (~5 s before the signal)
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_ctrl_c_or_sigterm_mid_build_is_one_line_and_leaves_no_dataset(
    tmp_path: Path, sources_dir: Path, sig: int
) -> None:
    out = tmp_path / "out"
    with (tmp_path / "err").open("wb") as err:
        proc = subprocess.Popen([sys.executable, "-m", "dhp", "build", "--sources", str(sources_dir), "--datasets",
                                 "summeval", "--no-progress", "--out", str(out)], cwd=tmp_path,
                                stdout=subprocess.DEVNULL, stderr=err, start_new_session=True,
                                env={**os.environ, "PYTHONPATH": str(REPO)})  # fmt: skip
    try:
        _wait_for(lambda: b"no --perturber given" in (tmp_path / "err").read_bytes() or proc.poll() is not None,
                  "the build to start")  # fmt: skip
        assert proc.poll() is None, (tmp_path / "err").read_text()
        _ends_in_one_line(proc, tmp_path / "err", "build", sig)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=60)
    assert not out.exists() or list(out.iterdir()) == []  # no dataset folder, not even a partial one


# -- the scripts the README gives ------------------------------------------------------------------------
def test_same_as_takes_a_relative_sources_folder(tmp_path: Path) -> None:
    """`DHP_SOURCES=../shared/sources scripts/same_as.sh REV` (the README's line): the script works in a
    temporary folder, so a relative folder is made absolute first. A stand-in Python prints what it was
    given and fails, which ends the script after its first command."""
    (tmp_path / "sources").mkdir()
    fake = tmp_path / "bin" / "python"
    fake.parent.mkdir()
    fake.write_text('#!/bin/sh\necho "ARGS: $*"\nexit 1\n', encoding="utf-8")
    fake.chmod(0o755)
    rel = os.path.relpath(tmp_path / "sources", REPO)  # run from the clone, as the README's line is
    env = {**os.environ, "DHP_SOURCES": rel, "PYTHON": os.path.relpath(fake, REPO)}
    res = subprocess.run(["bash", "scripts/same_as.sh", "HEAD"], cwd=REPO, env=env, capture_output=True, text=True,
                         timeout=300)  # fmt: skip
    assert res.returncode == 1 and f"--sources {(tmp_path / 'sources').resolve()} " in res.stderr, res.stderr
    env["DHP_SOURCES"] = "nowhere"
    res = subprocess.run(["bash", "scripts/same_as.sh", "HEAD"], cwd=REPO, env=env, capture_output=True, text=True,
                         timeout=300)  # fmt: skip
    assert res.returncode == 2 and res.stderr == "scripts/same_as.sh: DHP_SOURCES=nowhere is not a folder\n"


@pytest.mark.skipif(
    not (REPO.parent / "shared" / "sources").is_dir(), reason="no ../shared/sources beside the clone"
)
def test_the_demo_script_reads_the_local_sources_as_make_does(tmp_path: Path) -> None:
    """The README times `DHP_DEMO_SERVE=0 bash scripts/demo.sh` "with the local sources": without
    DHP_SOURCES the script takes ../shared/sources beside the clone, as make does. A stand-in Python
    prints what it was given and fails, which ends the script at its build."""
    fake = tmp_path / "python"
    fake.write_text('#!/bin/sh\necho "ARGS: $*"\nexit 1\n', encoding="utf-8")
    fake.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("DHP_SOURCES", "STORY_CLOZE")}
    env.update(PYTHON=str(fake), DHP_DEMO_SERVE="0")
    res = subprocess.run(["bash", "scripts/demo.sh", str(tmp_path / "out")], cwd=REPO, env=env, capture_output=True,
                         text=True, timeout=120)  # fmt: skip
    sources = (REPO.parent / "shared" / "sources").resolve()
    assert res.returncode == 1 and f"--sources {sources}" in res.stdout, res.stdout + res.stderr
    assert f"build the datasets from {sources}" in res.stdout


def test_a_file_error_that_names_no_path_keeps_its_own_words(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Hub client's LocalEntryNotFoundError (offline) is a FileNotFoundError without a path: not a
    path the user gave, so it keeps its class and message, exit 1, as the Hub's failures do."""
    from dhp import cli

    def fails(args: object) -> int:
        raise FileNotFoundError("cannot find the requested files in the local cache (offline)")

    monkeypatch.setattr(cli, "_cmd_spec", fails)
    rc, lines = _one_line(lambda: cli.main(["spec"]))
    assert rc == 1 and lines == ["dhp spec: error: FileNotFoundError: cannot find the requested files in the "
                                 "local cache (offline)"]  # fmt: skip


@pytest.mark.slow  # a `dhp worker` process running a `dhp score` child against a slow loopback judge (~10 s)
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_ctrl_c_or_sigterm_on_the_worker_ends_its_scorer_and_requeues_the_request(
    tmp_path: Path, sig: int
) -> None:
    from dhp.leaderboard.board.stores import LocalStore
    from dhp.leaderboard.submissions.queue import RequestQueue, State, new_request
    from dhp.leaderboard.submissions.validation import validate_submission
    from dhp.spec import get_dataset
    from tests.scoring.fake_server import FakeJudgeServer, hashed_answer
    from tests.support.tiny_data import write_tiny_dataset

    write_tiny_dataset(tmp_path / "data", get_dataset("answer-equivalence"), n_items=20)
    with FakeJudgeServer(hashed_answer, latency=0.2) as srv:
        sub = validate_submission(judge_name="Slow", endpoint_url=srv.url, protocol="openai", model="fake-judge",
                                  hf_model_id="", revision="", mode="expected", contact="me@example.org",
                                  app_mode="local")  # fmt: skip
        RequestQueue(LocalStore(tmp_path / "q")).submit(new_request(sub, "u"))
        with (tmp_path / "err").open("wb") as err:
            proc = subprocess.Popen([sys.executable, "-m", "dhp", "worker", "--once", "--data", str(tmp_path / "data"),
                                     "--requests", str(tmp_path / "q"), "--results", str(tmp_path / "r")],
                                    cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=err, start_new_session=True,
                                    env={**os.environ, "PYTHONPATH": str(REPO)})  # fmt: skip
        try:
            _wait_for(lambda: srv.answered >= 1 or proc.poll() is not None, "the scorer's first answer")
            assert proc.poll() is None, (tmp_path / "err").read_text()
            kids = _descendants(proc.pid)
            assert kids  # the `dhp score` child
            _ends_in_one_line(proc, tmp_path / "err", "worker", sig)
            _wait_for(lambda: not any(running(k) for k in kids), "the scorer to end", timeout=60)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=60)
    (req,), _ = RequestQueue(LocalStore(tmp_path / "q")).load()
    assert req.state is State.PENDING and req.worker is None  # waits for the next worker, not RUNNING forever


def test_the_story_cloze_hint_names_the_make_form_too(tmp_path: Path) -> None:
    """`make demo` takes STORY_CLOZE=FILE, not --story-cloze FILE: the hint names both."""
    from dhp.builder.sources import story_cloze
    from dhp.builder.sources.fetch import SourceLocator

    why = story_cloze.missing(SourceLocator(tmp_path), None)
    assert why is not None and "--story-cloze FILE (through make: STORY_CLOZE=FILE)" in why


#: `python -m dhp` with a Ctrl-C that lands while `dhp.cli` is being imported (before main() runs)
_CTRL_C_WHILE_LOADING = """import runpy, sys
class CtrlC:
    def find_spec(self, name, path, target=None):
        if name == "dhp.cli":
            raise KeyboardInterrupt
        return None
sys.meta_path.insert(0, CtrlC())
sys.argv = ["dhp", "spec"]
runpy.run_module("dhp", run_name="__main__")
"""


def test_ctrl_c_while_the_command_loads_is_one_line() -> None:
    res = subprocess.run([sys.executable, "-c", _CTRL_C_WHILE_LOADING], cwd=REPO, capture_output=True, text=True,
                         timeout=120, env={**os.environ, "PYTHONPATH": str(REPO)})  # fmt: skip
    assert res.returncode == 130 and res.stderr == "dhp: interrupted\n", res.stderr


def test_ctrl_c_while_the_command_line_is_read_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from dhp import cli

    def ctrl_c(*argv: object) -> object:  # build_parser(argv)
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", ctrl_c)
    rc, lines = _one_line(lambda: cli.main(["spec"]))
    assert rc == 130 and lines == ["dhp: interrupted"]
