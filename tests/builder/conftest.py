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


#: what `dhp build --allow-fewer` does, without progress bars
_OPTS = BuildOptions(allow_fewer=True, progress=False)


def _build_all(locator: SourceLocator, out: Path) -> dict[str, BuildReport]:
    return {name: build_dataset(spec, locator, out, _OPTS) for name, spec in BENCHMARK.items()}


def _build_shared(locator: SourceLocator, shared: Path, worker: int) -> dict[str, BuildReport]:
    """Each dataset built once into ``shared`` by whichever worker takes its lock first. Worker K starts
    at the K-th dataset, so two workers build different datasets at once instead of one building all six
    while the other waits: the two long ones (SummEval 7 s, SumPubMed 10 s) come first, the other four
    take 4 s together."""
    names = list(BENCHMARK)
    start = worker % len(names)
    reports: dict[str, BuildReport] = {}
    for name in names[start:] + names[:start]:
        pickled = shared / f"{name}.pickle"
        with FileLock(str(shared / f"{name}.lock")):
            if not pickled.is_file():
                report = build_dataset(BENCHMARK[name], locator, shared / "datasets", _OPTS)
                pickled.write_bytes(pickle.dumps(report))
            reports[name] = pickle.loads(pickled.read_bytes())
    return {name: reports[name] for name in names}


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory, locator: SourceLocator) -> dict[str, BuildReport]:
    """All six datasets built into one folder: name -> report. Under pytest-xdist the run's workers build
    them into the run's temporary folder (shared by its workers), each dataset once, under a file lock
    per dataset, then read each other's reports; the tests only read the folder."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker is None:  # no workers: this process's own temporary folder
        return _build_all(locator, tmp_path_factory.mktemp("datasets"))
    shared = tmp_path_factory.getbasetemp().parent  # pytest-N/, above each worker's popen-gwK/
    return _build_shared(locator, shared, int(worker.removeprefix("gw")))


@pytest.fixture(scope="session")
def built_root(built: dict[str, BuildReport]) -> Path:
    return next(iter(built.values())).folder.parent
