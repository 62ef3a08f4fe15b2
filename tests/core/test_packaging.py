"""The wheel installs everything under the one `dhp` namespace, with the data files it needs."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel_build(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], str, str]:
    """The wheel's file names, what building it printed, and its METADATA."""
    from dhp.leaderboard.deploy.space import checkout_build_lock

    out = tmp_path_factory.mktemp("wheel")
    with checkout_build_lock(REPO):  # not at once with a `dhp space init` of another worker
        proc = subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(out), str(REPO)],
            check=True,
            capture_output=True,
            text=True,
        )
    (whl,) = out.glob("dhp_bench-*.whl")
    with zipfile.ZipFile(whl) as z:
        names = z.namelist()
        metadata = z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
        return names, proc.stdout + proc.stderr, metadata


@pytest.fixture(scope="module")
def wheel_names(wheel_build: tuple[list[str], str, str]) -> list[str]:
    return wheel_build[0]


def test_building_prints_no_setuptools_warning(wheel_build: tuple[list[str], str, str]) -> None:
    """The package declaration is exact: no data folder missing from `packages`, no glob for a folder
    that does not exist (setuptools prints a 35-line BuildBackendWarning for each)."""
    log = wheel_build[1]
    assert "Successfully built dhp-bench" in log or "Saved " in log, log  # the log is pip's, not empty
    assert "Warning" not in log, log


def test_only_the_dhp_namespace_lands_in_site_packages(wheel_names: list[str]) -> None:
    tops = {n.split("/")[0] for n in wheel_names}
    assert tops == {"dhp", next(t for t in tops if t.endswith(".dist-info"))}
    for sub in ("data", "builder", "scoring", "task", "leaderboard", "cli", "builder/card_templates"):
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


def test_the_core_requires_neither_the_board_nor_the_generator(
    wheel_build: tuple[list[str], str, str],
) -> None:
    """The wheel's metadata: the board, the offline generator and the plots come with extras, not with the
    core (`pip install dhp-bench` stays light); the embedded sample ships in the package."""
    from email.parser import Parser

    from packaging.requirements import Requirement

    names, _, metadata = wheel_build
    assert {"dhp/builder/sources/sample/manifest.json", "dhp/builder/sources/sample/summeval.jsonl"} <= set(
        names
    )
    requires = [Requirement(r) for r in Parser().parsestr(metadata).get_all("Requires-Dist") or []]
    core = {r.name for r in requires if r.marker is None}
    assert {"pyarrow", "scipy", "huggingface_hub"} <= core
    assert not core & {"gradio", "wordfreq", "lemminflect", "faker", "matplotlib", "datasets", "pandas"}
    for name, extra in (
        ("gradio", "board"),
        ("wordfreq", "build"),
        ("faker", "build"),
        ("matplotlib", "report"),
    ):
        assert any(
            r.name == name and r.marker is not None and r.marker.evaluate({"extra": extra}) for r in requires
        )
