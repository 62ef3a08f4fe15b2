"""The session-end check of tests/conftest.py: a process the tests leave running is found and ended."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.processes import running

ROOT = Path(__file__).resolve().parents[2]

#: a run that starts a shell which leaves a `sleep` behind, then makes the session's end check
_LEAVES_AN_ORPHAN = """import os, subprocess, sys
from tests.support.processes import adopt_orphans, children, survivors
assert adopt_orphans()
subprocess.run(["sh", "-c", "sleep 300 >/dev/null 2>&1 & echo $! > " + sys.argv[1]], check=True)
orphan = int(open(sys.argv[1]).read())
print("adopted" if orphan in [p.pid for p in children(os.getpid())] else "not adopted")
print(" ".join(str(p.pid) for p in survivors(grace=1)))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the check reads /proc")
def test_a_process_left_running_is_found_and_ended(tmp_path: Path) -> None:
    pid_file = tmp_path / "orphan.pid"
    r = subprocess.run([sys.executable, "-c", _LEAVES_AN_ORPHAN, str(pid_file)], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)  # fmt: skip
    orphan = int(pid_file.read_text())
    try:
        assert r.returncode == 0, r.stderr
        # the shell ended at once: its sleep became the run's child, not PID 1's, and the check named it
        assert r.stdout.splitlines() == ["adopted", str(orphan)]
        assert not running(orphan)
    finally:
        if running(orphan):
            os.kill(orphan, signal.SIGKILL)
