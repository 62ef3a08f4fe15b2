"""Fixtures shared by every test folder."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from dhp.spec import BENCHMARK
from tests.support.processes import adopt_orphans, survivors
from tests.support.tiny_data import write_tiny_dataset

# A suite started in the background by a shell without job control (`make test &` in a script) inherits
# SIGINT ignored, and so would every process it starts: the Ctrl-C tests (tests/hardening/test_edges.py)
# would then time out on commands that never see the signal. The suite gives its processes the default.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

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


#: seconds a process may take to end after the last test (a browser shutting down)
END_GRACE_S = 30.0


@pytest.fixture(scope="session", autouse=True)
def no_process_outlives_the_suite() -> Iterator[None]:
    """Every process the tests start ends with them. The test process adopts the orphans of what it starts
    (tests/support/processes.py), so a grandchild left running by a killed parent is still its child; after
    the last test (and every other fixture's teardown) whatever still runs fails the session and is killed.
    Each xdist worker checks its own tests."""
    adopted = adopt_orphans()
    yield
    if adopted:
        left = survivors(grace=END_GRACE_S)
        assert not left, "processes started by the tests still ran after them (killed now):\n" + "\n".join(
            map(str, left)
        )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The files holding slow or browser tests first, in their order, then the others: parallel workers
    (`make test`: pytest-xdist, a file at a time, --no-loadscope-reorder) start the long files at once and
    share out the short ones at the end, rather than one worker finishing a long file picked up last."""
    heavy = {
        item.path for item in items if item.get_closest_marker("slow") or item.get_closest_marker("browser")
    }
    items.sort(key=lambda item: item.path not in heavy)  # stable: a file's tests keep their order


@pytest.fixture(scope="session")
def tiny_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """All six datasets, 20 items each, every perturbation applied to every item."""
    root = tmp_path_factory.mktemp("tiny")
    for spec in BENCHMARK.values():
        write_tiny_dataset(root, spec, n_items=20)
    return root
