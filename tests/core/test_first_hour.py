"""A newcomer's first hour: every network, file or port failure of a command is at most three lines
on stderr and a non-zero exit, leaves no stray folder, and says why; a judge that gives no usable
score fails the run and says how many scores were unparsed and why.

Nothing here leaves loopback: the Hub is either forbidden (``HF_HUB_OFFLINE=1``) or pointed at a
closed loopback port (``HF_ENDPOINT``), and judges are loopback servers.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.metadata import version as md_version
from pathlib import Path

import pytest

from dhp.leaderboard.deploy.space import init_space
from dhp.scoring.result_files import read_result
from dhp.spec import get_dataset
from tests.scoring.fake_server import Answer, FakeJudgeServer
from tests.support.tiny_data import write_tiny_dataset

REPO = Path(__file__).resolve().parents[2]
AE = "answer-equivalence"


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def _dhp(
    tmp_path: Path, *args: str, hub: str = "offline", cwd: Path | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """`dhp ARGS` in a subprocess with a private HF_HOME; ``hub``: offline, closed (a closed port) or none."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
    env.update(HF_HOME=str(tmp_path / "hf"), PYTHONPATH=str(REPO), NO_COLOR="1")
    if hub == "offline":
        env["HF_HUB_OFFLINE"] = "1"
    elif hub == "closed":
        env["HF_ENDPOINT"] = f"http://127.0.0.1:{_closed_port()}"
    return subprocess.run(
        [sys.executable, "-m", "dhp", *args],
        capture_output=True,
        text=True,
        cwd=cwd or REPO,
        env=env,
        timeout=timeout,
        check=False,
    )


def _short_failure(res: subprocess.CompletedProcess[str]) -> str:
    """The stderr of a failed command, checked: non-zero exit, 1 to 3 lines, no traceback."""
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert res.returncode != 0, res.stdout + res.stderr
    assert 1 <= len(lines) <= 3 and "Traceback" not in res.stderr, res.stderr
    return res.stderr


@pytest.fixture
def data(tmp_path: Path) -> Path:
    root = tmp_path / "datasets"
    write_tiny_dataset(root, get_dataset(AE), n_items=4)
    return root


# -- the Hub, out of reach --------------------------------------------------------------------------
@pytest.mark.parametrize("hub", ["offline", "closed"])
def test_score_from_the_hub_without_it(tmp_path: Path, hub: str) -> None:
    res = _dhp(tmp_path, "score", "--judge", "random", "--data", "dhp", "--datasets", AE, "--out",
               str(tmp_path / "r"), hub=hub)  # fmt: skip
    err = _short_failure(res)
    assert "dataset dhp/answer-equivalence@main: " in err
    assert (
        "HF_HUB_OFFLINE is set" if hub == "offline" else "cannot reach the Hub at http://127.0.0.1:"
    ) in err


def test_score_defaults_to_the_built_folder_and_says_how_to_make_it(tmp_path: Path) -> None:
    res = _dhp(tmp_path, "score", "--judge", "random", "--out", "r", cwd=tmp_path)
    err = _short_failure(res)
    assert "--data out/datasets: not a folder" in err and "dhp build --out out/datasets" in err
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("hub", ["offline", "closed"])
def test_a_local_judge_out_of_reach(tmp_path: Path, data: Path, hub: str) -> None:
    t0 = time.monotonic()
    res = _dhp(tmp_path, "score", "--local", "someone/no-such-model", "--judge-name", "x", "--data", str(data),
               "--out", str(tmp_path / "r"), hub=hub)  # fmt: skip
    err = _short_failure(res)
    assert time.monotonic() - t0 < 20  # asked once, not retried for most of a minute
    assert "--local someone/no-such-model: not a folder, and model someone/no-such-model: " in err


def test_a_local_judge_folder_that_is_missing(tmp_path: Path, data: Path) -> None:
    res = _dhp(tmp_path, "score", "--local", str(tmp_path / "no" / "model"), "--judge-name", "x", "--data",
               str(data), "--out", str(tmp_path / "r"))  # fmt: skip
    assert "no such folder" in _short_failure(res)


@pytest.mark.parametrize("hub", ["offline", "closed"])
def test_space_push_without_the_hub(tmp_path: Path, hub: str) -> None:
    init_space(tmp_path / "space")
    res = _dhp(
        tmp_path, "space", "push", "--dir", str(tmp_path / "space"), "--repo", "someone/board", hub=hub
    )
    err = _short_failure(res)
    assert "cannot push the Space someone/board: " in err
    assert ("HF_HUB_OFFLINE is set" if hub == "offline" else "check the network") in err


def _project(root: Path, requires: list[str]) -> Path:
    """A minimal dhp-bench checkout layout (with this checkout's lock) whose build backend needs ``requires``."""
    (root / "requirements").mkdir(parents=True)
    (root / "requirements" / "lock.txt").write_bytes((REPO / "requirements" / "lock.txt").read_bytes())
    (root / "pyproject.toml").write_text(
        f'[build-system]\nrequires = {requires!r}\nbuild-backend = "setuptools.build_meta"\n\n'
        '[project]\nname = "dhp-bench"\nversion = "0.0.1"\n'.replace("'", '"')
    )
    return root


def test_space_init_with_an_older_build_backend_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plain venv has setuptools 65 while the checkout builds with setuptools>=69: the wheel is built in
    an isolated environment pip fills from the index (not against the old setuptools, which failed with
    pip's "metadata-generation-failed"); without the index, one line says what to install."""
    from dhp.leaderboard.deploy import space
    from dhp.leaderboard.deploy.space import SpaceError, build_wheel, missing_build_requirements

    root = _project(tmp_path / "checkout", ["setuptools>=9999", "wheel"])
    assert missing_build_requirements(root) == [f"setuptools>=9999 (installed: {md_version('setuptools')})"]
    assert missing_build_requirements(REPO) == []  # this environment builds the checkout itself
    for project in (root, REPO):  # Python 3.10 (no tomllib) reads the same two keys
        text = (project / "pyproject.toml").read_text()
        with_tomllib = space._build_system(text)
        with monkeypatch.context() as m:
            m.setitem(sys.modules, "tomllib", None)
            assert space._build_system(text) == with_tomllib
        assert with_tomllib[1] == "setuptools" and "setuptools>=" in with_tomllib[0][0]
    monkeypatch.setenv("PIP_NO_INDEX", "1")  # no index, as offline: the isolated build cannot be filled
    with pytest.raises(SpaceError) as err:
        build_wheel(root, tmp_path / "wheel")
    monkeypatch.setattr(space, "source_root", lambda: root)
    with pytest.raises(SpaceError, match="pass --wheel FILE"):
        init_space(tmp_path / "space")
    assert not (tmp_path / "space").exists()  # a failed init leaves no folder
    line = str(err.value)
    assert "\n" not in line and "metadata-generation-failed" not in line
    assert line.endswith(f"run `{sys.executable} -m pip install 'setuptools>=9999'`, or pass --wheel FILE")


def test_a_hub_task_source_out_of_reach_fails_at_once(tmp_path: Path) -> None:
    task = tmp_path / "task.yaml"
    task.write_text(
        "name: hub-answers\nsource: {hub: someone/answers, split: test, revision: main}\njudged: answer\n"
        "select: {n: 2, seed: 0}\nmetrics:\n  - {name: fluency, definition: Well-formed sentences.}\n"
        "perturbations: [char_typo]\nweights: equal\n",
        encoding="utf-8",
    )
    t0 = time.monotonic()
    res = _dhp(tmp_path, "build", "--task", str(task), "--out", str(tmp_path / "built"), "--no-progress",
               hub="closed")  # fmt: skip
    err = _short_failure(res)
    assert time.monotonic() - t0 < 20  # no half minute of retries before the line
    assert "source hub someone/answers (split test, revision main): cannot reach the Hub" in err


@pytest.mark.parametrize("hub", ["offline", "closed"])
def test_a_worker_on_a_hub_store_without_the_hub(tmp_path: Path, data: Path, hub: str) -> None:
    res = _dhp(tmp_path, "worker", "--once", "--data", str(data), "--results", "hf://datasets/someone/results",
               "--requests", "hf://datasets/someone/requests", hub=hub)  # fmt: skip
    err = _short_failure(res)
    assert "dhp worker: error: store hf://datasets/someone/requests: " in err
    assert (
        "HF_HUB_OFFLINE is set" if hub == "offline" else "cannot reach the Hub at http://127.0.0.1:"
    ) in err


# -- files and ports --------------------------------------------------------------------------------
def test_leaderboard_on_a_port_in_use(tmp_path: Path) -> None:
    (tmp_path / "results").mkdir()
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        res = _dhp(tmp_path, "leaderboard", "--results", str(tmp_path / "results"), "--port", str(port))
    err = _short_failure(res)
    assert f"cannot listen on 127.0.0.1:{port}" in err and "--port" in err
    assert "http://" not in res.stdout  # the URL is not announced for a server that never starts


def test_leaderboard_with_a_mistyped_results_folder_creates_nothing(tmp_path: Path) -> None:
    res = _dhp(tmp_path, "leaderboard", "--results", str(tmp_path / "resluts"), "--port", str(_closed_port()))
    assert "--results" in _short_failure(res) and "no such folder" in res.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no resluts/, requests/ or votes/


def test_a_failed_export_leaves_no_output_folder(tmp_path: Path, data: Path) -> None:
    out = tmp_path / "exports" / "jsonl"
    res = _dhp(tmp_path, "export", "--from", str(data), "--datasets", f"{AE},summeval", "--out", str(out))
    assert "summeval: no such dataset folder" in _short_failure(res)
    assert not (tmp_path / "exports").exists()
    ok = _dhp(tmp_path, "export", "--from", str(data), "--datasets", AE, "--out", str(out))
    assert ok.returncode == 0 and (out / f"{AE}.jsonl").is_file()  # the same export, from a good folder


def test_a_file_system_failure_no_command_words_itself_is_still_one_line(tmp_path: Path, data: Path) -> None:
    (tmp_path / "a-file").write_text("not a folder", encoding="utf-8")
    res = _dhp(tmp_path, "score", "--judge", "random", "--data", str(data), "--n-boot", "0", "--out",
               str(tmp_path / "a-file" / "results"))  # fmt: skip
    assert res.returncode == 2 and "dhp score: error: argument --out: " in _short_failure(res)
    assert "a-file is a file, not a folder" in res.stderr  # in words, refused before any work


# -- judges that give nothing usable ----------------------------------------------------------------
def test_a_judge_that_refuses_everything_fails_and_says_why(tmp_path: Path, data: Path) -> None:
    refusal = Answer(("I cannot rate this text.",), {})
    with FakeJudgeServer(lambda prompt: refusal, logprobs=False) as server:
        res = _dhp(tmp_path, "score", "--endpoint", server.url, "--model", "fake-judge", "--judge-name", "no",
                   "--mode", "paper", "--repeats", "1", "--data", str(data), "--n-boot", "0", "--out",
                   str(tmp_path / "r"))  # fmt: skip
    assert res.returncode == 1, res.stderr
    (path,) = (tmp_path / "r").rglob("*.json")  # the result is kept: it shows what the judge said
    cov = read_result(path).coverage
    n = cov.expected_scores
    assert n > 0 and f"{n}/{n} unparsed (refusal {n})" in res.stderr
    assert f"no perturbation got a D on {AE}" in res.stderr and "Traceback" not in res.stderr


def test_every_run_prints_its_unparsed_count(tmp_path: Path, data: Path) -> None:
    res = _dhp(tmp_path, "score", "--judge", "oracle", "--data", str(data), "--n-boot", "0",
               "--out", str(tmp_path / "r"))  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert f"{AE}: D_avg " in res.stderr and " 0/" in res.stderr and " unparsed" in res.stderr


class _HTMLPage(BaseHTTPRequestHandler):
    """A proxy's login page, for every request, with the status the server was built with."""

    status = 200
    page = (b"<!DOCTYPE html>\n<html>\n<head>\n<title>Sign in</title>\n</head>\n<body>\n<h1>Please sign in"
            b"</h1>\n<form></form>\n</body>\n</html>\n")  # fmt: skip

    def _answer(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(self.status)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(self.page)))
        self.end_headers()
        self.wfile.write(self.page)

    do_GET = do_POST = _answer

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def html_server(request: pytest.FixtureRequest) -> Iterator[str]:
    handler = type("Page", (_HTMLPage,), {"status": request.param})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("html_server", [200], indirect=True)
@pytest.mark.parametrize("model", [["--model", "m"], []], ids=["chat", "discovery"])
def test_an_endpoint_answering_html_is_summarised_at_once(
    tmp_path: Path, data: Path, html_server: str, model: list[str]
) -> None:
    t0 = time.monotonic()
    res = _dhp(tmp_path, "score", "--endpoint", html_server, *model, "--judge-name", "h", "--data", str(data),
               "--out", str(tmp_path / "r"))  # fmt: skip
    err = _short_failure(res)
    assert time.monotonic() - t0 < 20  # a 200 that is not JSON is not the judge's API: no retries
    assert "answered an HTML page (text/html" in err and "<" not in err
    assert "Sign in" not in err  # what the page says is never quoted: only its kind, type and length


@pytest.mark.parametrize("html_server", [502], indirect=True)
def test_an_html_error_page_is_summarised_and_its_retries_announced(
    tmp_path: Path, data: Path, html_server: str
) -> None:
    res = _dhp(tmp_path, "score", "--endpoint", html_server, "--model", "m", "--judge-name", "h", "--data",
               str(data), "--max-retries", "1", "--out", str(tmp_path / "r"))  # fmt: skip
    err = _short_failure(res)
    assert (
        "retrying failed requests, up to 1 times each (first: http-502: HTTP 502 with an HTML page (text/html"
        in err
    )
    assert "<" not in err and "Sign in" not in err


async def test_a_wave_of_fatal_errors_is_retrieved_whole(caplog: pytest.LogCaptureFixture) -> None:
    """Several requests of one wave fail fatally together: the run stops on the first, and the others'
    errors are retrieved too, not printed later as 'Task exception was never retrieved' tracebacks."""
    import asyncio
    import gc

    from dhp.inference.protocol import FatalJudgeError
    from dhp.scoring.send import cancel_all as _cancel

    async def fatal() -> None:
        raise FatalJudgeError("not-json", "an HTML page")

    tasks = [asyncio.ensure_future(fatal()) for _ in range(4)]
    await asyncio.wait(tasks)  # all done, none retrieved
    with pytest.raises(FatalJudgeError):
        tasks[0].result()  # what the run reports
    await _cancel(tasks)
    del tasks
    gc.collect()
    assert "never retrieved" not in caplog.text


def test_version() -> None:
    import dhp

    res = subprocess.run([sys.executable, "-m", "dhp", "--version"], capture_output=True, text=True,
                         cwd=REPO, check=True)  # fmt: skip
    assert res.stdout.strip() == f"dhp-bench {dhp.__version__}"
