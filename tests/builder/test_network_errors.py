"""`dhp download` and `dhp publish` without network: one line naming the cause, exit status 2, no traceback."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from dhp.spec import get_dataset
from tests.support.tiny_data import write_tiny_dataset

REPO = Path(__file__).resolve().parents[2]


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def _dhp(tmp_path: Path, *args: str, offline: bool) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
    env.update(HF_HOME=str(tmp_path / "hf"), HF_TOKEN="hf_not_a_real_token", PYTHONPATH=str(REPO))
    if offline:
        env["HF_HUB_OFFLINE"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "dhp", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=120,
        check=False,
    )


def _one_line_error(res: subprocess.CompletedProcess[str], command: str) -> str:
    assert res.returncode == 2, res.stderr
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith(f"dhp {command}: error: dhp/summeval: ") and "Traceback" not in res.stderr
    return lines[0]


@pytest.mark.parametrize("offline", [False, True], ids=["unreachable", "HF_HUB_OFFLINE"])
def test_download_without_network(tmp_path: Path, offline: bool) -> None:
    endpoint = f"http://127.0.0.1:{_closed_port()}"
    res = _dhp(
        tmp_path,
        "download",
        "--datasets",
        "summeval",
        "--out",
        str(tmp_path / "dl"),
        "--endpoint",
        endpoint,
        offline=offline,
    )
    line = _one_line_error(res, "download")
    if offline:
        assert "HF_HUB_OFFLINE is set" in line and endpoint in line
    else:
        assert f"cannot reach the Hub at {endpoint}" in line and "check the network" in line
    assert "hf_not_a_real_token" not in res.stderr + res.stdout


@pytest.mark.parametrize("offline", [False, True], ids=["unreachable", "HF_HUB_OFFLINE"])
def test_publish_without_network(tmp_path: Path, offline: bool) -> None:
    write_tiny_dataset(tmp_path / "built", get_dataset("summeval"), n_items=3)
    endpoint = f"http://127.0.0.1:{_closed_port()}"
    res = _dhp(
        tmp_path,
        "publish",
        "--datasets",
        "summeval",
        "--from",
        str(tmp_path / "built"),
        "--endpoint",
        endpoint,
        offline=offline,
    )
    line = _one_line_error(res, "publish")
    assert ("HF_HUB_OFFLINE is set" if offline else "ConnectError") in line
    assert "hf_not_a_real_token" not in res.stderr + res.stdout
