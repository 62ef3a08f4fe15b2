"""The wheel installs everything under the one `dhp` namespace, with the data files it needs."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel_build(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], str]:
    """The wheel's file names and what building it printed."""
    out = tmp_path_factory.mktemp("wheel")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(out), str(REPO)],
        check=True,
        capture_output=True,
        text=True,
    )
    (whl,) = out.glob("dhp_bench-*.whl")
    with zipfile.ZipFile(whl) as z:
        return z.namelist(), proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def wheel_names(wheel_build: tuple[list[str], str]) -> list[str]:
    return wheel_build[0]


def test_building_prints_no_setuptools_warning(wheel_build: tuple[list[str], str]) -> None:
    """The package declaration is exact: no data folder missing from `packages`, no glob for a folder
    that does not exist (setuptools prints a 35-line BuildBackendWarning for each)."""
    log = wheel_build[1]
    assert "Successfully built dhp-bench" in log or "Saved " in log, log  # the log is pip's, not empty
    assert "Warning" not in log, log


def test_only_the_dhp_namespace_lands_in_site_packages(wheel_names: list[str]) -> None:
    tops = {n.split("/")[0] for n in wheel_names}
    assert tops == {"dhp", next(t for t in tops if t.endswith(".dist-info"))}
    for sub in ("builder", "scoring", "leaderboard", "dataset_cards"):
        assert f"dhp/{sub}/__init__.py" in wheel_names


def test_every_source_package_and_data_file_is_in_the_wheel(wheel_names: list[str]) -> None:
    """A subpackage missing from pyproject's `packages` would only fail outside editable installs."""
    missing = []
    for f in (REPO / "dhp").rglob("*"):
        if "__pycache__" in f.parts or not f.is_file() or f.suffix == ".pyc":
            continue
        rel = f.relative_to(REPO).as_posix()
        if rel not in wheel_names:
            missing.append(rel)
    assert not missing, f"not packaged: {missing}"


def test_console_script_declared(wheel_names: list[str]) -> None:
    assert any(n.endswith("entry_points.txt") for n in wheel_names)
    assert "dhp/py.typed" in wheel_names
