"""The leaderboard benchmark's modes of issue 37 run at head on tiny inputs: ten readers of different
judge pages (``--judge-readers``) and first-time visitors with a cold cache (``--first-visits``, whose
requests are recorded from headless Chromium). The figures are the benchmark's business, not the test's."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.leaderboard.browser import BROWSER_MARKS

pytestmark = BROWSER_MARKS
ROOT = Path(__file__).resolve().parents[2]


def test_the_judge_page_and_first_visit_modes_run() -> None:
    cmd = [sys.executable, "benchmarks/bench_leaderboard.py", "--smoke", "--server-only", "--judge-readers", "2",
           "--first-visits", "2"]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout
    assert (
        "judge pages, 2 readers, 2 judges' pages never drawn" in out and "+ judge page (whole reader)" in out
    )
    assert "2 first-time visitors (cold cache)" in out and "whole visit p50" in out
    assert "errors 0" in out and "errors 1" not in out and "errors 2" not in out
