"""Run strict mypy over the whole `dhp` namespace, the tests, the benchmarks and this script.

The three code folders are mapped into `dhp.*` by setuptools' package-dir, which mypy cannot
follow; this assembles the namespace as a symlink tree (with `tests/`, `benchmarks/`, `scripts/` beside it,
so that `tests.*` imports resolve) and checks that. The tree lives at a fixed place inside mypy's
cache folder, so the incremental cache stays valid between runs.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CACHE = REPO / ".mypy_cache"
TREE = CACHE / "tree"
MAPPING = {"builder": "builder", "scoring": "scoring", "leaderboard": "leaderboard", "dataset_cards": "dataset_cards"}
BESIDE = ("tests", "benchmarks", "scripts")


def assemble(tree: Path) -> None:
    """Make `tree` hold `dhp/` (with its mapped subpackages) and the folders in BESIDE, as symlinks.

    Idempotent and without a removal of the whole tree, so that two runs at once (the test suite and
    `make typecheck`) do not pull the tree from under each other.
    """
    wanted = {tree / folder: REPO / folder for folder in BESIDE}
    wanted |= {tree / "dhp" / item.name: item for item in (REPO / "dhp").iterdir() if item.name != "__pycache__"}
    wanted |= {tree / "dhp" / sub: REPO / folder for sub, folder in MAPPING.items()}
    (tree / "dhp").mkdir(parents=True, exist_ok=True)
    for stale in [*(tree / "dhp").iterdir(), *tree.iterdir()]:
        if stale.is_symlink() and stale not in wanted:
            stale.unlink()
    for link, target in wanted.items():
        if link.is_symlink() and link.readlink() == target:
            continue
        link.unlink(missing_ok=True)
        with contextlib.suppress(FileExistsError):  # made by a run beside this one, to the same target
            link.symlink_to(target, target_is_directory=target.is_dir())


def main() -> int:
    assemble(TREE)
    cmd = [sys.executable, "-m", "mypy", "--config-file", str(REPO / "pyproject.toml"),
           "--cache-dir", str(CACHE), "--explicit-package-bases", "dhp", *BESIDE]
    proc = subprocess.run(cmd, cwd=TREE, capture_output=True, text=True)
    sys.stdout.write(proc.stdout)
    sys.stderr.write(proc.stderr)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
