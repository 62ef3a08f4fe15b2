"""The queue worker: claims PENDING requests and runs ``dhp score`` on each, in a subprocess.

The request's judge (:mod:`dhp.inference.judge`) goes to the scorer whole, as a judge file in the worker's
temporary folder (``dhp score --judge-file``); the scorer writes the results' judge record from it,
so the worker only validates results (``parse_result``) and stores them as written. A subprocess
isolates crashes and memory; its stderr tail (with secrets scrubbed) becomes the failure reason
shown in the Queue tab. Secrets reach the scorer only through the worker's environment, never
through arguments or files: an endpoint judge gets ``DHP_JUDGE_API_KEY``, a judge by Hub model id
the operator's ``HF_TOKEN`` (:func:`scorer_env`). In Space mode the scorer also gets
``DHP_PUBLIC_ENDPOINTS_ONLY=1``: it contacts a host only while every address the host resolves to
is public (:mod:`dhp.inference.addresses`), as the endpoint's check here said when it ran.
"""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from dhp.inference.addresses import PUBLIC_ONLY_ENV
from dhp.inference.judge import Judge, published, write_judge
from dhp.leaderboard.board.stores import Store
from dhp.leaderboard.submissions.queue import QueuedRequest, RequestQueue
from dhp.leaderboard.submissions.validation import (
    Mode,
    Resolver,
    ValidationError,
    allowed_ports_from_env,
    check_endpoint_url,
)
from dhp.naming import judge_slug
from dhp.scoring.result_files import parse_result
from dhp.scoring.results import ResultError
from dhp.secrets import JUDGE_KEY_VARS, scrub

__all__ = [
    "API_KEY_ENV",
    "HF_TOKEN_ENV",
    "Worker",
    "WorkerConfig",
    "score_command",
    "scorer_env",
]

log = logging.getLogger(__name__)
#: Seconds a worker waits between looks at an empty queue (``dhp worker --poll``, a Space's
#: ``DHP_WORKER_POLL_S``).
POLL_S = 30.0

API_KEY_ENV = JUDGE_KEY_VARS[0]  # an endpoint judge's key
HF_TOKEN_ENV = JUDGE_KEY_VARS[1]  # the operator's HF token, for judges by Hub model id


@dataclass
class WorkerConfig:
    data: Path  # dataset folders (published layout) passed to `dhp score --data`
    mode: Mode = "local"
    datasets: str | None = None  # override every request's dataset selection
    n_boot: int | None = None
    seed: int | None = None
    timeout_s: float = 6 * 3600
    worker_id: str = field(default_factory=lambda: f"{socket.gethostname()}-{os.getpid()}")
    python: str = sys.executable
    resolver: Resolver | None = None
    allowed_ports: frozenset[int] = field(
        default_factory=allowed_ports_from_env
    )  # space mode: endpoint ports


def score_command(req: QueuedRequest, cfg: WorkerConfig, judge_file: Path, out_dir: Path) -> list[str]:
    """The ``dhp score`` argument vector for a request: the judge travels whole in ``judge_file``
    (:func:`dhp.inference.judge.write_judge`, no secret in it); the rest are scoring settings."""
    cmd = [cfg.python, "-m", "dhp", "score", "--judge-file", str(judge_file)]
    if req.judge.own_mode is None:  # a built-in judge has one mode, its own
        cmd += ["--mode", req.mode]
    cmd += ["--data", str(cfg.data), "--datasets", cfg.datasets or req.datasets, "--out", str(out_dir)]
    cmd += ["--no-progress"]
    if cfg.seed is not None:
        cmd += ["--seed", str(cfg.seed)]
    if cfg.n_boot is not None:
        cmd += ["--n-boot", str(cfg.n_boot)]
    return cmd


def scorer_env(judge: Judge, environ: Mapping[str, str]) -> dict[str, str]:
    """The scorer's environment: each kind of judge gets only its own secret. An endpoint judge gets
    ``DHP_JUDGE_API_KEY`` (never the operator's HF token: a submitted endpoint is anyone's server), a
    Hub judge the operator's ``HF_TOKEN`` (sent only to the router), a built-in judge neither."""
    env = dict(environ)
    keep = judge.secret_variable
    for name in JUDGE_KEY_VARS:
        if name != keep:
            env.pop(name, None)
    return env


class Worker:
    def __init__(
        self,
        requests: Store,
        results: Store,
        cfg: WorkerConfig,
        runner: Callable[..., subprocess.CompletedProcess[str]] = subprocess.run,
    ) -> None:
        self.queue = RequestQueue(requests)
        self.results = results
        self.cfg = cfg
        self.runner = runner
        self.unreadable: dict[str, str] = {}  # request files that could not be read: path -> why

    def _name_unreadable(self) -> None:
        """Name each request file the queue could not read (once per file and problem): the worker skips
        it, the Queue tab shows it FAILED."""
        for path, why in self.queue.unreadable().items():
            if self.unreadable.get(path) != why:
                log.error("request file %s is unreadable, skipped (FAILED on the Queue; fix or delete it): %s",
                          path, why)  # fmt: skip
            self.unreadable[path] = why

    def run_one(self, req: QueuedRequest) -> QueuedRequest:
        """Run a claimed (RUNNING) request to FINISHED or FAILED; never raises for scoring errors."""
        secrets = [os.environ.get(name, "") for name in JUDGE_KEY_VARS]
        try:
            for url in req.judge.submitted_urls:  # DNS may have changed
                check_endpoint_url(url, self.cfg.mode, self.cfg.resolver, self.cfg.allowed_ports)
            with tempfile.TemporaryDirectory(prefix="dhp-worker-") as tmp:
                out = Path(tmp) / "out"
                judge_file = Path(tmp) / "judge.json"
                write_judge(judge_file, req.judge)
                written = self._score(req, self._command(req, judge_file, out), out, secrets)
            if isinstance(written, QueuedRequest):
                return written
            if not written:
                return self.queue.fail(req, "dhp score finished but wrote no result file")
            return self.queue.finish(req, tuple(written))
        except ValidationError as e:
            return self.queue.fail(req, f"endpoint refused at run time: {e.message}")
        except (ResultError, OSError, ValueError) as e:
            return self.queue.fail(req, scrub(f"{type(e).__name__}: {e}", secrets))
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM (dhp.cli): the scorer ended, the request waits again
            self.queue.release(req)
            log.warning("request %s: the worker was stopped; back in the queue (PENDING)", req.id)
            raise

    def _command(self, req: QueuedRequest, judge_file: Path, out: Path) -> list[str]:
        cmd = score_command(req, self.cfg, judge_file, out)
        log.info("running %s", " ".join(cmd[:6]))
        return cmd

    def _score(
        self, req: QueuedRequest, cmd: list[str], out: Path, secrets: list[str]
    ) -> list[str] | QueuedRequest:
        """Run the scorer; the results it wrote (stored), or the request marked FAILED."""
        env = scorer_env(req.judge, os.environ)
        if self.cfg.mode == "space":  # the scorer contacts public addresses only, whatever DNS says by then
            env[PUBLIC_ONLY_ENV] = "1"
        try:
            proc = self.runner(cmd, capture_output=True, text=True, env=env, timeout=self.cfg.timeout_s)
        except subprocess.TimeoutExpired:
            return self.queue.fail(req, f"scoring timed out after {self.cfg.timeout_s:g} s")
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout or "").strip()[-1500:]
            return self.queue.fail(
                req, scrub(f"dhp score exited with status {proc.returncode}: {tail}", secrets)
            )
        return self._publish(req, out)

    def _publish(self, req: QueuedRequest, out: Path) -> list[str]:
        """Validate every result the scorer wrote and store it as written: the scorer had the whole
        judge, so its record must already be the request's (a result of another judge is refused)."""
        staged: list[tuple[str, bytes]] = []
        for f in sorted(out.rglob("*.json")):
            if any(part.startswith(".") for part in f.relative_to(out).parts):
                continue  # the scorer's cache and temporary files
            data = f.read_bytes()
            res = parse_result(data.decode("utf-8"), source=f.name)
            if res.judge.judge != published(req.judge):
                raise ResultError(f"{f.name}: the result is of judge {res.judge.name!r}, not the request's")
            staged.append((f"{judge_slug(req.judge.name)}/{f.name}", data))
        for path, data in staged:
            self.results.write(path, data, message=f"results of {req.judge.name}")
        return [p for p, _ in staged]

    def drain(self, once: bool = True, poll_s: float = POLL_S, stale_after_s: float | None = None) -> int:
        """Run requests until the queue is empty (``once``) or forever; returns how many ran."""
        n = 0
        while True:
            if stale_after_s:
                for rid in self.queue.requeue_stale(stale_after_s):
                    log.warning("requeued stale request %s", rid)
            req = self.queue.claim_next(self.cfg.worker_id)
            self._name_unreadable()
            if req is None:
                if once:
                    return n
                time.sleep(poll_s)
                continue
            done = self.run_one(req)
            n += 1
            log.info("request %s: %s", done.id, done.state.value)
