"""Builder fixtures: every dataset is built once per session (offline generators, --allow-fewer)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dhp.builder.build import BuildOptions, BuildReport, build_dataset
from dhp.builder.sources import SourceLocator
from dhp.spec import BENCHMARK


@pytest.fixture(scope="session")
def locator(sources_dir: Path) -> SourceLocator:
    return SourceLocator(sources_dir)


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory, locator: SourceLocator) -> dict[str, BuildReport]:
    """All six datasets built into one folder: name -> report."""
    out = tmp_path_factory.mktemp("datasets")
    opts = BuildOptions(allow_fewer=True, progress=False)
    return {name: build_dataset(spec, locator, out, opts) for name, spec in BENCHMARK.items()}


@pytest.fixture(scope="session")
def built_root(built: dict[str, BuildReport]) -> Path:
    return next(iter(built.values())).folder.parent
