"""Waiting for a served app, and building a sample dataset's splits: what the Space tests share."""

from __future__ import annotations

import subprocess
import time
import urllib.request
from pathlib import Path

from dhp.cli import main


def wait_served(port: int, proc: subprocess.Popen[bytes], log: Path, within_s: float) -> None:
    """Returns once the app on ``port`` answers ``/config``; fails with the log's tail if ``proc`` ends
    first, or past ``within_s`` seconds."""
    deadline = time.monotonic() + within_s
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/config", timeout=5) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        assert proc.poll() is None, log.read_text(errors="replace")[-3000:]
        assert time.monotonic() < deadline, f"the Space did not serve within {within_s:g} s"
        time.sleep(1)


def build_sample_split(out: Path, dataset: str, *split: str) -> None:
    """``dhp build`` of one dataset from the embedded sample (no sources) into ``out``; ``split``:
    extra arguments, e.g. ``--split private``."""
    empty = out.parent / "no-sources"
    empty.mkdir(exist_ok=True)
    rc = main(["build", *split, "--sources", str(empty), "--skip-missing", "--sample-fallback",
               "--datasets", dataset, "--out", str(out), "--no-progress"])  # fmt: skip
    assert rc == 0
