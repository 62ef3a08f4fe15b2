"""Fixtures shared by every test folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent


def find_sources() -> Path | None:
    """The raw source files: $DHP_SOURCES, else ../shared/sources beside the checkout."""
    env = os.environ.get("DHP_SOURCES")
    candidates = [Path(env)] if env else []
    candidates.append(REPO_ROOT.parent / "shared" / "sources")
    for c in candidates:
        if (c / "SOURCES.md").is_file():
            return c
    return None


@pytest.fixture(scope="session")
def sources_dir() -> Path:
    found = find_sources()
    if found is None:
        pytest.skip("raw sources not found: set DHP_SOURCES or place shared/sources beside the checkout")
    return found
