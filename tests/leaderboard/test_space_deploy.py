"""The folder `dhp space init` writes deploys as Spaces deploy it, with no manual edit.

The build is reproduced step for step as Spaces build a Gradio Space (their build logs show it):
a fresh Python at the front matter's ``python_version``; ``requirements.txt`` mounted *alone* at
``/tmp/requirements.txt`` and installed with ``gradio[oauth]==<sdk_version> "uvicorn>=0.14.0"
spaces`` from an empty working folder (the repository is copied in only afterwards); then
``python app.py`` in the copied folder. Packages come from the package registry (PyPI).

The app then runs in Space mode against the loopback Hub replay (its stores, its sign-in, the
published datasets): a user signs in with Hugging Face in headless Chromium, submits a judge by Hub
model id, the Space's own background worker (``DHP_RUN_WORKER=1``) fetches the pinned datasets and
scores the judge through a loopback replay of the Inference Providers router, and the judge's row
appears on the board.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from dhp.builder.publish import publish_datasets
from dhp.inference.hub import ROUTER_URL_ENV
from dhp.leaderboard.deploy.space import PYTHON_VERSION, init_space
from dhp.spec import BENCHMARK
from tests.builder.hub_replay import REPLAY_TOKEN, HubReplay, replay_hub
from tests.leaderboard.browser import ARGS, CHROMIUM
from tests.scoring.fake_server import FakeJudgeServer, hashed_answer
from tests.support.serving import wait_served
from tests.support.tiny_data import write_tiny_dataset

#: What the Spaces build installs in the same pip command as requirements.txt (beside gradio[oauth]).
SPACES_BUILD_EXTRAS = ("uvicorn>=0.14.0", "spaces")

pytestmark = [pytest.mark.slow]


@dataclass(frozen=True)
class Deployed:
    """A Space folder built as Spaces build it: ``app`` the copied folder, ``python`` its interpreter."""

    folder: Path
    app: Path
    python: Path
    front: dict[str, Any]
    install_s: float


def front_matter(readme: Path) -> dict[str, Any]:
    text = readme.read_text(encoding="utf-8")
    assert text.startswith("---\n"), "a Space README starts with its YAML front matter"
    data = yaml.safe_load(text.split("---\n")[1])
    assert isinstance(data, dict)
    return data


def _python(version: str) -> str:
    """An interpreter of the Space's Python version (this one, or ``python<version>`` on the PATH)."""
    if f"{sys.version_info.major}.{sys.version_info.minor}" == version:
        return sys.executable
    found = shutil.which(f"python{version}")
    if found is None:
        pytest.fail(f"the Space runs Python {version}; install python{version} to test its deployment")
    return found


def spaces_build(folder: Path, work: Path) -> Deployed:
    """Build ``folder`` as Spaces do: requirements.txt alone, then the folder copied in."""
    front = front_matter(folder / "README.md")
    venv, mount, app = work / "venv", work / "mount", work / "home-user-app"
    subprocess.run([_python(str(front["python_version"])), "-m", "venv", str(venv)], check=True, timeout=300)
    mount.mkdir()
    app.mkdir()
    shutil.copy2(folder / "requirements.txt", mount / "requirements.txt")  # the one file mounted
    py = venv / "bin" / "python"
    t0 = time.monotonic()
    proc = subprocess.run(
        [str(py), "-m", "pip", "install", "-q", "--no-input", "-r", str(mount / "requirements.txt"),
         f"gradio[oauth]=={front['sdk_version']}", *SPACES_BUILD_EXTRAS],
        cwd=app, capture_output=True, text=True, timeout=1500,
    )  # fmt: skip
    install_s = time.monotonic() - t0
    assert proc.returncode == 0, proc.stderr[-3000:]
    shutil.copytree(folder, app, dirs_exist_ok=True)  # COPY ./ /home/user/app
    return Deployed(folder, app, py, front, install_s)


@pytest.fixture(scope="module")
def deployed(tmp_path_factory: pytest.TempPathFactory) -> Deployed:
    work = tmp_path_factory.mktemp("space-build")
    folder = init_space(work / "space").path
    return spaces_build(folder, work)


def _run(py: Path, code: str, cwd: Path) -> str:
    proc = subprocess.run([str(py), "-c", code], cwd=cwd, capture_output=True, text=True, timeout=120,
                          env={"PATH": os.environ.get("PATH", ""), "HOME": str(cwd)})  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout.strip()


def test_the_folder_builds_as_spaces_build_it(deployed: Deployed) -> None:
    front = deployed.front
    assert front["sdk"] == "gradio" and front["hf_oauth"] is True
    assert (deployed.app / front["app_file"]).is_file()
    assert str(front["python_version"]) == PYTHON_VERSION
    assert _run(
        deployed.python, "import sys; print(f'{sys.version_info[0]}.{sys.version_info[1]}')", deployed.app
    ) == (PYTHON_VERSION)
    # the gradio Spaces install (sdk_version) is the one requirements.txt pins: no second resolution
    assert (
        _run(deployed.python, "import gradio; print(gradio.__version__)", deployed.app)
        == front["sdk_version"]
    )
    check = subprocess.run(
        [str(deployed.python), "-m", "pip", "check"], capture_output=True, text=True, timeout=120
    )
    assert check.returncode == 0, check.stdout
    reqs = (deployed.folder / "requirements.txt").read_text(encoding="utf-8").splitlines()
    assert not [r for r in reqs if r.startswith(("-c", "-r", ".", "/"))]  # it names no other file
    # the package travels in the folder: importable where Spaces run app.py, with its metadata
    where = _run(deployed.python, "import dhp, importlib.metadata as m; print(dhp.__file__, m.version('dhp-bench'))",
                 deployed.app)  # fmt: skip
    assert where.startswith(str(deployed.app / "dhp")), where
    print(f"Spaces-style install into a fresh venv: {deployed.install_s:.0f} s")


# -- the deployed Space, in Space mode, against the loopback Hub ----------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _publish_tiny_datasets(root: Path, hub: HubReplay) -> None:
    for spec in BENCHMARK.values():
        write_tiny_dataset(root, spec)
    publish_datasets(list(BENCHMARK.values()), root, org="dhp", version="v1.0.0", confirm_restricted=True,
                     endpoint=hub.endpoint)  # fmt: skip


def _space_env(hub: HubReplay, port: int, home: Path, router: str) -> dict[str, str]:
    """What a Space with ``hf_oauth: true`` runs with (Spaces set SPACE_ID, the OAuth client and the
    OpenID provider), pointed at the replay, plus the variables the operator sets."""
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "HF_HOME": str(home / "hf"),
        "SYSTEM": "spaces",
        "SPACE_ID": "acme/board",
        "SPACE_AUTHOR_NAME": "acme",
        "OAUTH_CLIENT_ID": "replay-client",
        "OAUTH_CLIENT_SECRET": "replay-client-secret",
        "OAUTH_SCOPES": "openid profile",
        "OPENID_PROVIDER_URL": hub.endpoint,
        "HF_ENDPOINT": hub.endpoint,
        "HF_HUB_DISABLE_XET": "1",  # the replay has no Xet storage
        "HF_TOKEN": REPLAY_TOKEN,  # a Space secret
        "GRADIO_SERVER_NAME": "127.0.0.1",
        "GRADIO_SERVER_PORT": str(port),
        "GRADIO_ANALYTICS_ENABLED": "False",
        "DHP_RUN_WORKER": "1",
        "DHP_HUB_TIMEOUT": "10",  # the replay answers in milliseconds: a hung call is retried soon
        "DHP_REFRESH_S": "2",  # the open page and the worker look often (defaults: 15 s and 30 s)
        "DHP_WORKER_POLL_S": "2",
        ROUTER_URL_ENV: router,
    }


@pytest.fixture
def space(deployed: Deployed, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[dict[str, Any]]:
    with (
        replay_hub(monkeypatch, tmp_path) as hub,
        FakeJudgeServer(hashed_answer, model="test-org/judge-7b:novita") as router,
    ):
        _publish_tiny_datasets(tmp_path / "built", hub)
        port = _free_port()
        log = (tmp_path / "space.log").open("wb")
        proc = subprocess.Popen([str(deployed.python), "app.py"], cwd=deployed.app, stdout=log, stderr=subprocess.STDOUT,
                                env=_space_env(hub, port, tmp_path / "home", router.url), start_new_session=True)  # fmt: skip
        try:
            wait_served(port, proc, tmp_path / "space.log", 180)
            yield {
                "url": f"http://localhost:{port}",
                "hub": hub,
                "router": router,
                "log": tmp_path / "space.log",
                "pid": proc.pid,
            }
        finally:
            os.killpg(proc.pid, signal.SIGTERM)  # the app and the worker it started
            proc.wait(timeout=30)
            log.close()


def _why_no_row(space: dict[str, Any], problems: str) -> str:
    """What a missing row's failure shows: the page's problems, the app's requests to the results
    repository, every thread of the app (``kill -USR1``) and the end of its log."""
    hub: HubReplay = space["hub"]
    with hub.state.lock:
        results_calls = [f"{m} {p}" for m, p in hub.state.log if "dhp-results" in p]
    os.kill(space["pid"], signal.SIGUSR1)
    time.sleep(2)
    log = space["log"].read_text(errors="replace")
    return "\n".join(
        ["problems on the page: " + (problems.strip() or "none"), f"{len(results_calls)} calls to dhp-results, the last:",
         *results_calls[-25:], "the app's log:", log[-12000:]]
    )  # fmt: skip


@pytest.mark.browser
@pytest.mark.skipif(not Path(CHROMIUM).exists() and shutil.which("chromium") is None, reason="no chromium")
def test_a_signed_in_submission_runs_through_the_spaces_worker_to_a_row(space: dict[str, Any]) -> None:
    from playwright.sync_api import expect, sync_playwright

    hub: HubReplay = space["hub"]
    hub.state.oauth_user = "alice"
    with sync_playwright() as p:
        exe = CHROMIUM if Path(CHROMIUM).exists() else str(shutil.which("chromium"))
        b = p.chromium.launch(executable_path=exe, args=ARGS)
        try:
            page = b.new_page(viewport={"width": 1440, "height": 900})
            page.goto(space["url"] + "/login/huggingface")  # what the Sign-in button opens
            page.wait_for_url(space["url"] + "/**")
            page.locator("button[role=tab]:has-text('Submit')").first.click()
            for sel, value in (("#s-name", "Judge 7B via novita"), ("#s-contact", "alice@example.org"),
                               ("#s-hf", "test-org/judge-7b")):  # fmt: skip
                page.locator(f"{sel} textarea, {sel} input").first.fill(value)
            page.locator("#s-provider textarea, #s-provider input").first.fill("novita")
            page.locator("#s-submit").click()
            expect(page.locator("#submit-status")).to_contain_text("Queued", timeout=30_000)
            page.locator("button[role=tab]:has-text('Leaderboard')").first.click()
            # The Space's worker polls every 2 s here (DHP_WORKER_POLL_S), fetches the datasets once,
            # then scores; the open page's timer (DHP_REFRESH_S, 2 s) shows the new row, no reload. (A read right after a reload races
            # the load event that fills the board: 3 reads of 15 saw the board's rows on a local one.)
            board = page.locator("#leaderboard-table")
            try:
                expect(board).to_contain_text("Judge 7B via novita", timeout=300_000)
                page.reload()  # and a fresh page shows it too
                expect(board).to_contain_text("Judge 7B via novita", timeout=60_000)
            except AssertionError:
                raise AssertionError(_why_no_row(space, page.locator("#problems").inner_text())) from None
        finally:
            b.close()
    results = hub.state.repos["acme/dhp-results"]
    stored = results.commits[results.branches["main"]].files
    assert any(p.startswith("judge-7b-via-novita/") for p in stored), sorted(stored)
    assert hub.state.repos["acme/dhp-requests"].private
    assert ("GET", "/api/datasets/dhp/summeval/revision/v1.0.0") in hub.state.log  # the pinned version
    assert {e.headers.get("Authorization") for e in space["router"].log} == {f"Bearer {REPLAY_TOKEN}"}
