"""Crash-safe resume: ``dhp score`` killed with SIGKILL at seeded random moments, then run again.

A trial runs the real CLI in a subprocess against the fake judge server (in this process, with a
latency, logging every request), kills it with ``kill -9`` once the server has seen a randomly
chosen number of requests (anywhere from before the first request to after the last one, when
the run is computing statistics or writing results), repeats that ``kills`` times, then lets a
final run finish. It checks that

* the result files equal an uninterrupted run's (everything but wall time, request accounting
  and the creation time), and
* the server saw exactly the minimal number of requests plus the ones that were in flight when a
  process was killed (their answers never reached the cache): no answered request is sent again,
  and ``Trial.recorded`` holds what the results' cost ledgers say was sent over all invocations.

:func:`kill_while_held` kills at a moment where the server has every request the client sent
(it holds them unanswered), so that a ledger's count can be checked to the request.

Waits are on observable conditions with a deadline (server counters, process exit), never sleeps.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.scoring.fake_server import FakeJudgeServer

REPO = Path(__file__).resolve().parents[2]
VOLATILE = ("timing", "created_at")


def _env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("HF_HUB_OFFLINE", None)
    return env


def score_cmd(url: str, data: Path, out: Path, datasets: str, concurrency: int) -> list[str]:
    return [
        sys.executable, "-m", "dhp", "score", "--endpoint", url, "--judge-name", "Resume Judge", "--data", str(data),
        "--datasets", datasets, "--out", str(out), "--concurrency", str(concurrency), "--n-boot", "50",
        "--no-progress", "--max-retries", "2",
    ]  # fmt: skip


def comparable_results(out: Path) -> dict[str, dict[str, Any]]:
    """Result files under ``out`` (relative path -> document without the volatile fields)."""
    docs: dict[str, dict[str, Any]] = {}
    for f in sorted(out.rglob("*.json")):
        rel = f.relative_to(out)
        if any(part.startswith(".") for part in rel.parts):
            continue
        doc = json.loads(f.read_text(encoding="utf-8"))
        for k in VOLATILE:
            doc.pop(k, None)
        docs[rel.as_posix()] = doc
    return docs


def cache_rows(out: Path) -> int:
    files = list((out / ".cache").glob("*.sqlite"))
    if not files:
        return 0
    db = sqlite3.connect(f"file:{files[0]}?mode=ro", uri=True)
    try:
        return int(db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])
    except sqlite3.OperationalError:  # killed before the table was created
        return 0
    finally:
        db.close()


def wait_for(cond: Callable[[], bool], deadline_s: float, what: str) -> None:
    end = time.monotonic() + deadline_s
    while not cond():
        if time.monotonic() > end:
            raise TimeoutError(f"waited {deadline_s:g} s for {what}")
        time.sleep(0.002)  # polling interval of an observable condition, not a synchronisation sleep


@dataclass
class Trial:
    seed: int
    kill_points: list[int]  # server request counts (within each run) at which SIGKILL was sent
    killed_at: list[int] = field(default_factory=list)  # requests the server had seen when the kill landed
    kills_landed: int = 0  # kills that hit a live process (the others found it finished already)
    requests: int = 0  # everything the server saw in the trial
    resent: int = 0  # requests in flight at a kill (seen, never cached), sent again by a later run
    results_equal: bool = False
    final_status: int = -1
    recorded: int = 0  # requests sent over every invocation, as the results' cost ledgers say (issue 35)


def run_trial(
    srv: FakeJudgeServer,
    data: Path,
    out: Path,
    datasets: str,
    minimal: int,
    reference: dict[str, dict[str, Any]],
    seed: int,
    kills: int = 1,
    concurrency: int = 8,
    deadline_s: float = 60.0,
) -> Trial:
    rng = random.Random(f"resume|{seed}")
    trial = Trial(seed, [rng.randint(0, minimal) for _ in range(kills)])
    srv.reset_counters()
    cmd = score_cmd(srv.url, data, out, datasets, concurrency)
    cached_before = 0
    for point in trial.kill_points:
        start = srv.stats()["requests"]
        proc = subprocess.Popen(cmd, cwd=REPO, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:

            def reached(p: subprocess.Popen[bytes] = proc, n: int = point, s: int = start) -> bool:
                return srv.stats()["requests"] - s >= n or p.poll() is not None

            wait_for(reached, deadline_s, f"{point} requests")
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGKILL)
                trial.kills_landed += 1
        finally:
            proc.wait(deadline_s)
            if proc.stderr is not None:
                proc.stderr.close()
        # the dead client's requests still at the server end within one latency: then nothing moves
        wait_for(lambda: srv.stats()["inflight"] == 0, deadline_s, "the killed run's requests to drain")
        seen = srv.stats()["requests"]
        trial.killed_at.append(seen - start)
        rows = cache_rows(out)
        trial.resent += (seen - start) - (rows - cached_before)
        cached_before = rows
    final = subprocess.run(
        cmd, cwd=REPO, env=_env(), capture_output=True, text=True, timeout=deadline_s, check=False
    )
    trial.final_status = final.returncode
    if final.returncode != 0:
        raise RuntimeError(f"the resumed run failed: {final.stderr[-1500:]}")
    trial.requests = srv.stats()["requests"]
    trial.results_equal = comparable_results(out) == reference
    trial.recorded = recorded_requests(out)
    return trial


def recorded_requests(out: Path) -> int:
    """Requests sent over every invocation, summed over the result files under ``out``."""
    sent = 0
    for f in out.rglob("*.json"):
        if not any(part.startswith(".") for part in f.relative_to(out).parts):
            every = json.loads(f.read_text(encoding="utf-8"))["timing"].get("all_invocations") or {}
            sent += int(every.get("requests_sent", 0))
    return sent


def kill_while_held(
    srv: FakeJudgeServer, cmd: list[str], answered: int, concurrency: int, deadline_s: float = 60.0
) -> int:
    """Run ``cmd``; the server answers its first ``answered`` requests and holds every later one
    (never answered), so the client ends with ``concurrency`` requests in flight and sends no more;
    once the server has received those, SIGKILL. Returns the requests the server received in that run:
    all of them are at the server when the kill lands (none half-way in the client)."""
    start = int(srv.stats()["requests"])
    srv.faults.extend(["ok"] * answered + ["hang"] * concurrency)
    expected = answered + concurrency
    proc = subprocess.Popen(cmd, cwd=REPO, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_for(lambda: srv.stats()["requests"] - start >= expected or proc.poll() is not None,
                 deadline_s, f"{expected} requests")  # fmt: skip
        if proc.poll() is not None:
            raise RuntimeError(f"the run ended before the kill: {proc.stderr.read()[-1500:]!r}")  # type: ignore[union-attr]
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(deadline_s)
        if proc.stderr is not None:
            proc.stderr.close()
    srv.faults.clear()
    return int(srv.stats()["requests"]) - start


def run_to_end(cmd: list[str], deadline_s: float = 120.0) -> None:
    """Run ``cmd`` to its end; it must succeed."""
    proc = subprocess.run(
        cmd, cwd=REPO, env=_env(), capture_output=True, text=True, timeout=deadline_s, check=False
    )
    if proc.returncode != 0:
        raise RuntimeError(f"the resumed run failed: {proc.stderr[-1500:]}")


def reference_run(
    srv: FakeJudgeServer, data: Path, out: Path, datasets: str, concurrency: int = 8
) -> tuple[dict[str, dict[str, Any]], int]:
    """An uninterrupted run: its comparable results and the number of requests the server saw."""
    srv.reset_counters()
    proc = subprocess.run(
        score_cmd(srv.url, data, out, datasets, concurrency), cwd=REPO, env=_env(), capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip
    if proc.returncode != 0:
        raise RuntimeError(f"the uninterrupted run failed: {proc.stderr[-1500:]}")
    return comparable_results(out), int(srv.stats()["requests"])
