"""Run strict mypy over the whole `dhp` namespace, the tests and the benchmarks.

The three code folders are mapped into `dhp.*` by setuptools' package-dir, which mypy cannot
follow; this assembles the namespace as a symlink tree (with `tests/` and `benchmarks/` beside it,
so that `tests.*` imports resolve) and checks that. The tree lives at a fixed place inside mypy's
cache folder, so the incremental cache stays valid between runs.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CACHE = REPO / ".mypy_cache"
TREE = CACHE / "tree"
MAPPING = {"builder": "builder", "scoring": "scoring", "leaderboard": "leaderboard", "dataset_cards": "dataset_cards"}
BESIDE = ("tests", "benchmarks")


def assemble(tree: Path) -> None:
    """(Re)build the symlink tree: `dhp/` with its mapped subpackages, and the folders in BESIDE."""
    if tree.exists():
        shutil.rmtree(tree)
    root = tree / "dhp"
    root.mkdir(parents=True)
    for item in (REPO / "dhp").iterdir():
        if item.name != "__pycache__":
            (root / item.name).symlink_to(item)
    for sub, folder in MAPPING.items():
        (root / sub).symlink_to(REPO / folder, target_is_directory=True)
    for folder in BESIDE:
        (tree / folder).symlink_to(REPO / folder, target_is_directory=True)


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
