"""Lint and strict typing are part of the test suite."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def _tool(name: str) -> str:
    found = BIN / name
    if found.exists():
        return str(found)
    which = shutil.which(name)
    if which is None:
        pytest.skip(f"{name} not installed (pip install -e '.[dev]')")
    return which


def test_ruff_clean() -> None:
    r = subprocess.run(
        [_tool("ruff"), "check", "dhp", "builder", "scoring", "leaderboard", "tests", "benchmarks", "scripts"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_mypy_strict_clean() -> None:
    _tool("mypy")
    r = subprocess.run([sys.executable, str(REPO / "scripts" / "typecheck.py")], cwd=REPO, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
