"""Builder fixtures: every dataset is built once per run (offline generators, --allow-fewer), and shared by
the run's parallel workers."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest
from filelock import FileLock

from dhp.builder.build import BuildOptions, BuildReport, build_dataset
from dhp.builder.sources import SourceLocator
from dhp.spec import BENCHMARK


@pytest.fixture(scope="session")
def locator(sources_dir: Path) -> SourceLocator:
    return SourceLocator(sources_dir)


def _build_all(locator: SourceLocator, out: Path) -> dict[str, BuildReport]:
    opts = BuildOptions(allow_fewer=True, progress=False)
    return {name: build_dataset(spec, locator, out, opts) for name, spec in BENCHMARK.items()}


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory, locator: SourceLocator) -> dict[str, BuildReport]:
    """All six datasets built into one folder: name -> report. Under pytest-xdist the first worker to ask
    builds them into the run's temporary folder (shared by its workers) while the others wait on a file
    lock, then read its reports; the tests only read the folder."""
    if "PYTEST_XDIST_WORKER" not in os.environ:  # no workers: this process's own temporary folder
        return _build_all(locator, tmp_path_factory.mktemp("datasets"))
    shared = tmp_path_factory.getbasetemp().parent  # pytest-N/, above each worker's popen-gwK/
    reports = shared / "datasets.pickle"
    with FileLock(str(shared / "datasets.lock")):
        if not reports.is_file():
            reports.write_bytes(pickle.dumps(_build_all(locator, shared / "datasets")))
        loaded: dict[str, BuildReport] = pickle.loads(reports.read_bytes())
    return loaded


@pytest.fixture(scope="session")
def built_root(built: dict[str, BuildReport]) -> Path:
    return next(iter(built.values())).folder.parent
