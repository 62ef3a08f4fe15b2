"""`dhp space init` writes a Space folder that installs into a fresh venv and serves; `dhp space push`
creates the Space on the loopback Hub replay, sets its variables and never uploads a secret."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from dhp.cli import main
from dhp.leaderboard.board.stores import HubStore, LocalStore
from dhp.leaderboard.deploy.space import (
    SECRETS,
    VARIABLES,
    SpaceError,
    init_space,
    lock_versions,
    push_space,
    runtime_closure,
    space_versions,
    start_worker,
    unpack_wheel,
    worker_commands,
)
from dhp.leaderboard.page.app import StoreConfigError, check_space_stores, config_from_env, store_specs
from dhp.leaderboard.page.service import AppConfig
from tests.builder.hub_replay import REPLAY_TOKEN, HubReplay, replay_hub
from tests.support.processes import children, read_proc, running, wait_ended

ROOT = Path(__file__).resolve().parents[2]


def test_init_writes_front_matter_thin_app_pinned_requirements(tmp_path: Path) -> None:
    assert main(["space", "init", str(tmp_path / "sp")]) == 0
    readme = (tmp_path / "sp" / "README.md").read_text(encoding="utf-8")
    front = yaml.safe_load(readme.split("---")[1])
    assert front["sdk"] == "gradio" and front["app_file"] == "app.py" and front["hf_oauth"] is True
    assert front["python_version"] == "3.11"  # a string: YAML would read 3.10 as 3.1
    app = (tmp_path / "sp" / "app.py").read_text(encoding="utf-8")
    assert "run_space()" in app and len(app.splitlines()) < 10
    reqs = [r for r in (tmp_path / "sp" / "requirements.txt").read_text(encoding="utf-8").splitlines()
            if not r.startswith("#")]  # fmt: skip
    # Spaces install requirements.txt alone: it names no other file, and pins every package needed
    assert all(re.fullmatch(r"[a-z0-9-]+(\[oauth\])?==[^=]+", r) for r in reqs), reqs
    locked = lock_versions(ROOT / "requirements" / "lock.txt")
    pins = dict(r.replace("[oauth]", "").split("==") for r in reqs)
    assert pins == {n: locked[n] for n in runtime_closure() if n != "dhp-bench"}
    assert "gradio[oauth]==" + front["sdk_version"] in reqs and {"pandas", "scipy", "authlib"} <= set(pins)
    assert not {"pytest", "torch", "mypy"} & set(pins)  # dev and local extras stay out
    # run from this checkout (no release of its version needed): the package unpacked in the folder
    assert (tmp_path / "sp" / "dhp" / "leaderboard" / "deploy" / "space.py").is_file()
    assert (tmp_path / "sp" / "dhp_bench-0.1.0.dist-info" / "METADATA").is_file()
    assert not (tmp_path / "sp" / "constraints.txt").exists() and not (tmp_path / "sp" / "wheels").exists()
    for name in [*VARIABLES, *SECRETS]:
        assert f"`{name}`" in readme
    assert "DHP_RUN_WORKER" in readme and "dhp worker" in readme
    with pytest.raises(SpaceError, match="not empty"):
        init_space(tmp_path / "sp")


def _worker_env(tmp_path: Path) -> dict[str, str]:
    """A local Space's worker on an empty queue, its datasets already there (no download)."""
    return {"DHP_RUN_WORKER": "1", "DHP_MODE": "local", "DHP_REQUESTS": str(tmp_path / "q"),
            "DHP_RESULTS": str(tmp_path / "r"), "DHP_WORKER_DATA": str(tmp_path)}  # fmt: skip


def _until_stores_opened(tmp_path: Path, pid: int) -> None:
    """Until the worker ``pid`` has opened its request and result stores (it creates their folders)."""
    deadline = time.monotonic() + 120
    while not ((tmp_path / "q").is_dir() and (tmp_path / "r").is_dir()):
        assert running(pid), "the worker ended before opening its stores"
        assert time.monotonic() < deadline, "the worker did not open its stores within 120 s"
        time.sleep(0.1)


def test_worker_starts_only_when_asked(tmp_path: Path) -> None:
    assert start_worker({"DHP_RUN_WORKER": "0"}) is None
    proc = start_worker(_worker_env(tmp_path))
    assert proc is not None
    try:
        _until_stores_opened(tmp_path, proc.pid)
        assert proc.poll() is None  # an empty queue: the worker waits for requests
        proc_info = read_proc(proc.pid)
        assert (
            proc_info is not None and "-m dhp worker --mode local" in proc_info.cmdline
        )  # the worker itself
    finally:
        proc.kill()
        proc.wait()
    assert children(proc.pid) == []


_APP = """import json, sys
from dhp.leaderboard.deploy.space import start_worker
print(start_worker(json.loads(sys.argv[1])).pid, flush=True)
sys.stdin.read()
"""


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
def test_the_worker_dies_with_the_app_however_it_ends(tmp_path: Path) -> None:
    """kill -9 on the Space's app (nothing to clean up after itself): its worker ends too, not adopted."""
    app = subprocess.Popen([sys.executable, "-c", _APP, json.dumps(_worker_env(tmp_path))], cwd=ROOT,
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)  # fmt: skip
    assert app.stdout is not None and app.stdin is not None
    worker = int(app.stdout.readline())
    try:
        _until_stores_opened(tmp_path, worker)
        app.kill()
        app.wait()
        assert wait_ended([worker], 30) == [], "the worker runs on after its app was killed"
    finally:
        app.stdin.close()
        app.stdout.close()
        if running(worker):
            os.kill(worker, signal.SIGKILL)


_STEP = "import os, sys; print(os.getpid(), flush=True); sys.stdin.read()"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
def test_a_step_before_the_worker_dies_with_the_workers_process(tmp_path: Path) -> None:
    """The download before the worker runs as a child of the worker's process: killing that process ends
    the step too (here a step that waits forever, as a download stuck on the network would)."""
    script = "import sys\nfrom dhp.leaderboard.deploy.space import run_worker_commands\nrun_worker_commands(sys.argv[1:])\n"
    cmds = [[sys.executable, "-c", _STEP], [sys.executable, "-c", "pass"]]
    proc = subprocess.Popen([sys.executable, "-c", script, str(os.getpid()), json.dumps(cmds)], cwd=ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)  # fmt: skip
    assert proc.stdout is not None and proc.stdin is not None
    step = int(proc.stdout.readline())
    try:
        assert running(step)
        proc.kill()
        proc.wait()
        assert wait_ended([step], 30) == [], "the step runs on after the worker's process was killed"
    finally:
        proc.stdin.close()
        proc.stdout.close()
        if running(step):
            os.kill(step, signal.SIGKILL)


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[HubReplay]:
    with replay_hub(monkeypatch, tmp_path) as h:
        yield h


def test_push_creates_the_space_sets_variables_and_no_secret(tmp_path: Path, hub: HubReplay) -> None:
    folder = init_space(tmp_path / "sp").path
    push_space(folder, "org/board", {"DHP_RESULTS": "hf://datasets/org/res", "DHP_MODE": "space"})
    space = hub.state.repos["org/board"]
    files = space.commits[space.branches["main"]].files
    assert {"README.md", "app.py", "requirements.txt", "dhp/leaderboard/deploy/space.py"} <= set(files)
    assert any(f.startswith("dhp_bench-") and f.endswith(".dist-info/METADATA") for f in files)
    assert space.variables["DHP_RESULTS"]["value"] == "hf://datasets/org/res"
    assert ("POST", "/api/spaces/org/board/variables") in hub.state.log
    push_space(folder, "org/board", {"DHP_MODE": "space"})  # again: the Space is updated, not refused
    with pytest.raises(SpaceError, match="secret"):
        push_space(folder, "org/board", {"HF_TOKEN": "x"})
    with pytest.raises(SpaceError, match="secret"):
        push_space(folder, "org/board", {"MY_API_KEY": "x"})
    (folder / "notes.txt").write_text(f"token {REPLAY_TOKEN}\n")
    with pytest.raises(SpaceError, match=r"notes\.txt contains the value of a secret"):
        push_space(folder, "org/board", {})
    (folder / "notes.txt").unlink()
    (folder / "dhp" / "__pycache__").mkdir(exist_ok=True)
    (folder / "dhp" / "__pycache__" / "cli.cpython-311.pyc").write_bytes(b"\0")
    (folder / ".env").write_text("HF_TOKEN=hf_other\n")
    push_space(folder, "org/board", {})
    space = hub.state.repos["org/board"]
    assert ".env" not in space.commits[space.branches["main"]].files  # .env files are never uploaded
    assert not [
        f for f in space.commits[space.branches["main"]].files if "__pycache__" in f or f.endswith(".pyc")
    ]
    assert all(REPLAY_TOKEN.encode() not in d for d in space.commits[space.branches["main"]].files.values())


# -- stores in Space mode: on the Hub by default, the request store private ------------------------
class _RepoInfoApi:
    """The one HfApi call the policy makes, answering whether the repository is private."""

    def __init__(self, private: bool) -> None:
        self.private = private
        self.asked: list[str] = []

    def repo_info(self, repo_id: str, repo_type: str, revision: str = "main") -> SimpleNamespace:
        self.asked.append(repo_id)
        return SimpleNamespace(private=self.private, sha="0" * 40)


def test_space_mode_defaults_to_the_owners_hub_stores() -> None:
    specs = store_specs("space", {"SPACE_ID": "acme/board"})
    assert specs == {k: f"hf://datasets/acme/dhp-{k}" for k in ("results", "requests", "votes")}
    assert store_specs("space", {"SPACE_ID": "acme/board", "DHP_RESULTS": "hf://datasets/x/r"})[
        "results"
    ] == ("hf://datasets/x/r")
    assert store_specs("local", {"SPACE_ID": "acme/board"})["results"] == str(Path("out") / "results")


def test_space_mode_refuses_local_stores_unless_told(tmp_path: Path) -> None:
    env = {"DHP_MODE": "space", "DHP_STORE_ROOT": str(tmp_path)}
    with pytest.raises(
        StoreConfigError, match=r"DHP_RESULTS is the local folder .* DHP_ALLOW_LOCAL_STORES=1"
    ):
        config_from_env(env)
    assert config_from_env({**env, "DHP_ALLOW_LOCAL_STORES": "1"}).mode == "space"
    assert config_from_env({"DHP_MODE": "local", "DHP_STORE_ROOT": str(tmp_path)}).mode == "local"


@pytest.mark.parametrize("private", [False, True])
def test_space_mode_refuses_a_public_request_store(tmp_path: Path, private: bool) -> None:
    api = _RepoInfoApi(private)
    cfg = AppConfig(results=LocalStore(tmp_path / "r"), requests=HubStore("org/dhp-requests", api=api),
                    votes=LocalStore(tmp_path / "v"), mode="space")  # fmt: skip
    if private:
        check_space_stores(cfg, allow_local=True)
    else:
        with pytest.raises(StoreConfigError, match="request store hf://datasets/org/dhp-requests is public"):
            check_space_stores(cfg, allow_local=True)
    assert api.asked == ["org/dhp-requests"]


def test_init_pins_a_release_when_asked(tmp_path: Path) -> None:
    assert main(["space", "init", str(tmp_path / "sp"), "--package", "dhp-bench==0.1.0"]) == 0
    reqs = (tmp_path / "sp" / "requirements.txt").read_text(encoding="utf-8").splitlines()
    assert reqs[1] == "dhp-bench==0.1.0" and not (tmp_path / "sp" / "dhp").exists()


def test_a_wheel_is_unpacked_as_pip_installs_it(tmp_path: Path) -> None:
    whl = tmp_path / "pkg-1.0-py3-none-any.whl"
    with zipfile.ZipFile(whl, "w") as zf:
        zf.writestr("pkg/__init__.py", "X = 1\n")
        zf.writestr("pkg-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n")
    assert unpack_wheel(whl, tmp_path / "a") == ["pkg", "pkg-1.0.dist-info"]
    assert (tmp_path / "a" / "pkg" / "__init__.py").read_text() == "X = 1\n"
    bad = tmp_path / "bad-1.0-py3-none-any.whl"
    with zipfile.ZipFile(bad, "w") as zf:
        zf.writestr("../escape.py", "")
    with pytest.raises(SpaceError, match="outside the folder"):
        unpack_wheel(bad, tmp_path / "b")
    data = tmp_path / "d-1.0-py3-none-any.whl"
    with zipfile.ZipFile(data, "w") as zf:
        zf.writestr("d-1.0.data/scripts/x", "")
    with pytest.raises(SpaceError, match="pure-Python"):
        unpack_wheel(data, tmp_path / "c")


def test_a_package_missing_from_the_lock_stops_init(tmp_path: Path) -> None:
    lock = tmp_path / "lock.txt"
    lock.write_text("# header\ngradio==6.0.0  # a comment\n", encoding="utf-8")
    assert lock_versions(lock) == {"gradio": "6.0.0"}
    with pytest.raises(SpaceError, match=r"not pinned in requirements/lock\.txt"):
        space_versions(lock)


def test_the_worker_fetches_the_pinned_datasets_first(tmp_path: Path) -> None:
    env = {"DHP_REQUESTS": "hf://datasets/o/q", "DHP_RESULTS": "hf://datasets/o/r", "DHP_MODE": "space",
           "DHP_WORKER_DATA": str(tmp_path / "data"), "DHP_DATASETS_VERSION": "v1.0.1"}  # fmt: skip
    fetch, work = worker_commands(env)
    assert fetch[2:] == [
        "dhp",
        "download",
        "--out",
        str(tmp_path / "data"),
        "--version",
        "v1.0.1",
        "--org",
        "dhp",
    ]
    assert work[2:4] == ["dhp", "worker"] and work[-2:] == ["--data", str(tmp_path / "data")]
    (tmp_path / "data").mkdir()
    assert [c[3] for c in worker_commands(env)] == ["worker"]  # already there: no download
    (only,) = worker_commands({**env, "DHP_WORKER_POLL_S": " 2.5 "})
    assert only[-2:] == ["--poll", "2.5"]  # the operator's interval; unset: dhp worker's own default


def test_the_space_variables_state_the_codes_defaults() -> None:
    """The variables table of a Space's README says what happens when a variable is not set."""
    from dhp.leaderboard.submissions.worker import POLL_S

    assert float(VARIABLES["DHP_REFRESH_S"][0]) == AppConfig.refresh_s
    assert float(VARIABLES["DHP_WORKER_POLL_S"][0]) == POLL_S


def test_the_refresh_interval_comes_from_the_environment_or_is_a_one_line_error(tmp_path: Path) -> None:
    env = {"DHP_MODE": "local", "DHP_STORE_ROOT": str(tmp_path)}
    assert config_from_env(env).refresh_s == AppConfig.refresh_s
    assert config_from_env({**env, "DHP_REFRESH_S": "2"}).refresh_s == 2.0
    for bad in ("soon", "0", "-1", "inf", "nan"):
        with pytest.raises(
            StoreConfigError, match=r"^DHP_REFRESH_S must be a positive number of seconds, got"
        ):
            config_from_env({**env, "DHP_REFRESH_S": bad})


def test_space_mode_on_the_hub_checks_the_request_store_is_private(tmp_path: Path, hub: HubReplay) -> None:
    """Against the loopback Hub replay: the default stores are the owner's Hub datasets, created
    private; a request store made public beforehand stops the app."""
    cfg = config_from_env({"DHP_MODE": "space", "SPACE_ID": "acme/board"})
    assert [s.name for s in (cfg.results, cfg.requests, cfg.votes)] == [
        f"hf://datasets/acme/dhp-{k}" for k in ("results", "requests", "votes")
    ]
    assert isinstance(cfg.requests, HubStore) and cfg.requests.is_private()
    HubStore("other/open-requests", create=True, private=False)
    env = {"DHP_MODE": "space", "SPACE_ID": "acme/board", "DHP_REQUESTS": "hf://datasets/other/open-requests"}
    with pytest.raises(StoreConfigError, match="is public"):
        config_from_env(env)


@pytest.mark.slow  # two wheel builds (~10 s)
def test_two_wheel_builds_of_one_checkout_at_once_both_succeed(tmp_path: Path) -> None:
    """setuptools builds in the checkout: without checkout_build_lock, two at once break each other
    (seen as "Failed building wheel for dhp-bench" when parallel test workers ran `dhp space init`)."""
    import tempfile
    from concurrent.futures import ThreadPoolExecutor

    from dhp.leaderboard.deploy.space import build_wheel

    repo = Path(__file__).resolve().parents[2]
    before = set(Path(tempfile.gettempdir()).glob("dhp-wheel-*.lock"))
    with ThreadPoolExecutor(2) as pool:
        wheels = list(pool.map(lambda i: build_wheel(repo, tmp_path / f"w{i}"), range(2)))
    assert [w.parent.name for w in wheels] == ["w0", "w1"] and all(w.stat().st_size > 0 for w in wheels)
    # the lock leaves no file (another worker's build folder, dhp-wheel-XXXX, may come and go meanwhile)
    assert set(Path(tempfile.gettempdir()).glob("dhp-wheel-*.lock")) <= before
