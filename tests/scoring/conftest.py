"""Fixtures of the scoring tests: tiny Hub-layout datasets."""

from __future__ import annotations

from pathlib import Path

import pytest

from dhp.spec import BENCHMARK
from tests.support.tiny_data import write_tiny_dataset


@pytest.fixture(scope="session")
def tiny_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """All six datasets, 20 items each, every perturbation applied to every item."""
    root = tmp_path_factory.mktemp("tiny")
    for spec in BENCHMARK.values():
        write_tiny_dataset(root, spec, n_items=20)
    return root
