"""Run strict mypy over the whole `dhp` namespace.

The three code folders are mapped into `dhp.*` by setuptools' package-dir, which mypy cannot
follow; this assembles the namespace as a symlink tree in a temporary folder and checks that.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MAPPING = {"builder": "builder", "scoring": "scoring", "leaderboard": "leaderboard", "dataset_cards": "dataset_cards"}


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="dhp-mypy-") as tmp:
        root = Path(tmp) / "dhp"
        root.mkdir()
        for item in (REPO / "dhp").iterdir():
            if item.name != "__pycache__":
                (root / item.name).symlink_to(item)
        for sub, folder in MAPPING.items():
            (root / sub).symlink_to(REPO / folder, target_is_directory=True)
        cmd = [sys.executable, "-m", "mypy", "--config-file", str(REPO / "pyproject.toml"), str(root)]
        proc = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True)
        sys.stdout.write(proc.stdout.replace(str(root), "dhp"))
        sys.stderr.write(proc.stderr)
        return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
