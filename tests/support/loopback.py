"""The fake judge server (:mod:`tests.scoring.fake_server`) in a process of its own, on 127.0.0.1.

A client under measurement (the scoring runner, a bare HTTP loop, a ``dhp score`` subprocess) then
does not share its interpreter with the server. :func:`spawned_server` starts it, waits for its
``PORT`` line (with a deadline, never a sleep) and stops it; :class:`ServerHandle` reads its counters.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


@dataclass
class ServerHandle:
    url: str
    proc: subprocess.Popen[str]

    def stats(self, reset: bool = False) -> dict[str, Any]:
        """The server's counters (``requests``, ``answered``, ``max_inflight``, ``first_at``, ``last_at``)."""
        with urllib.request.urlopen(f"{self.url}/stats{'?reset=1' if reset else ''}", timeout=10) as resp:
            out: dict[str, Any] = json.loads(resp.read())
        return out


@contextlib.contextmanager
def spawned_server(
    latency: float = 0.0, *, logprobs: bool = True, start_timeout: float = 30.0
) -> Iterator[ServerHandle]:
    cmd = [sys.executable, "-m", "tests.scoring.fake_server", "--latency", str(latency)]
    if not logprobs:
        cmd.append("--no-logprobs")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + start_timeout
        port = None
        while port is None:
            left = deadline - time.monotonic()
            if left <= 0 or proc.poll() is not None:
                raise RuntimeError(f"the fake judge server did not start (exit status {proc.poll()})")
            ready, _, _ = select.select([proc.stdout], [], [], left)
            if ready:
                line = proc.stdout.readline()
                if line.startswith("PORT "):
                    port = int(line.split()[1])
        yield ServerHandle(f"http://127.0.0.1:{port}", proc)
    finally:
        stop_process(proc)


def stop_process(proc: subprocess.Popen[Any], grace: float = 10.0) -> None:
    """Terminate a server process; kill it if it has not exited after `grace` seconds."""
    proc.terminate()
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)
