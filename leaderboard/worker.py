"""The queue worker: claims PENDING requests and runs ``dhp score`` on each, in a subprocess.

A subprocess isolates crashes and memory; its stderr tail (with secrets scrubbed) becomes the
failure reason shown in the Queue tab. The endpoint API key reaches the scorer only through the
``DHP_JUDGE_API_KEY`` environment variable of the worker, never through arguments or files.
Results are validated with ``parse_result`` before they are copied into the results store.
"""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from dhp.leaderboard.queue import Request, RequestQueue
from dhp.leaderboard.stores import Store
from dhp.leaderboard.validation import (
    Mode,
    Resolver,
    ValidationError,
    allowed_ports_from_env,
    check_endpoint_url,
)
from dhp.naming import judge_slug
from dhp.scoring.results import ResultError, dump_result, parse_result
from dhp.secrets import JUDGE_KEY_VARS, scrub

__all__ = ["API_KEY_ENV", "Worker", "WorkerConfig", "score_command", "scrub"]

log = logging.getLogger(__name__)

API_KEY_ENV = JUDGE_KEY_VARS[0]


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


def score_command(req: Request, cfg: WorkerConfig, out_dir: Path) -> list[str]:
    """The ``dhp score`` argument vector for a request (no secret in it)."""
    cmd = [cfg.python, "-m", "dhp", "score"]
    if req.protocol == "builtin":
        cmd += ["--judge", req.model]
    else:
        cmd += [
            "--endpoint", req.endpoint_url,
            "--protocol", req.protocol,
            "--model", req.model,
            "--judge-name", req.judge_name,
            "--mode", req.mode,
        ]  # fmt: skip
        if req.hf_model_id:
            cmd += ["--hf-model-id", req.hf_model_id]
        if req.revision:
            cmd += ["--model-revision", req.revision]
    cmd += ["--data", str(cfg.data), "--datasets", cfg.datasets or req.datasets, "--out", str(out_dir)]
    cmd += ["--no-progress"]
    if cfg.seed is not None:
        cmd += ["--seed", str(cfg.seed)]
    if cfg.n_boot is not None:
        cmd += ["--n-boot", str(cfg.n_boot)]
    return cmd


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

    def _env(self, req: Request) -> dict[str, str]:
        env = dict(os.environ)
        if req.protocol == "builtin":
            env.pop(API_KEY_ENV, None)
        return env

    def run_one(self, req: Request) -> Request:
        """Run a claimed (RUNNING) request to FINISHED or FAILED; never raises for scoring errors."""
        secrets = [os.environ.get(name, "") for name in JUDGE_KEY_VARS]
        try:
            if req.protocol != "builtin":
                check_endpoint_url(
                    req.endpoint_url, self.cfg.mode, self.cfg.resolver, self.cfg.allowed_ports
                )  # DNS may have changed
            with tempfile.TemporaryDirectory(prefix="dhp-worker-") as tmp:
                out = Path(tmp) / "out"
                cmd = score_command(req, self.cfg, out)
                log.info("running %s", " ".join(cmd[:6]))
                try:
                    proc = self.runner(
                        cmd, capture_output=True, text=True, env=self._env(req), timeout=self.cfg.timeout_s
                    )
                except subprocess.TimeoutExpired:
                    return self.queue.fail(req, f"scoring timed out after {self.cfg.timeout_s:g} s")
                if proc.returncode != 0:
                    tail = (proc.stderr or proc.stdout or "").strip()[-1500:]
                    return self.queue.fail(
                        req, scrub(f"dhp score exited with status {proc.returncode}: {tail}", secrets)
                    )
                written = self._publish(req, out)
            if not written:
                return self.queue.fail(req, "dhp score finished but wrote no result file")
            return self.queue.finish(req, tuple(written))
        except ValidationError as e:
            return self.queue.fail(req, f"endpoint refused at run time: {e.message}")
        except (ResultError, OSError, ValueError) as e:
            return self.queue.fail(req, scrub(f"{type(e).__name__}: {e}", secrets))

    def _publish(self, req: Request, out: Path) -> list[str]:
        """Validate every result the scorer wrote, stamp the request's judge metadata, store it."""
        staged: list[tuple[str, bytes]] = []
        for f in sorted(out.rglob("*.json")):
            if any(part.startswith(".") for part in f.relative_to(out).parts):
                continue  # the scorer's cache and temporary files
            res = parse_result(f.read_text(encoding="utf-8"), source=f.name)
            judge = res.judge.model_copy(
                update={
                    "name": req.judge_name,
                    "hf_model_id": res.judge.hf_model_id or req.hf_model_id,
                    "revision": res.judge.revision or req.revision,
                }
            )
            res = res.model_copy(update={"judge": judge})
            staged.append((f"{judge_slug(req.judge_name)}/{f.name}", dump_result(res).encode()))
        for path, data in staged:
            self.results.write(path, data, message=f"results of {req.judge_name}")
        return [p for p, _ in staged]

    def drain(self, once: bool = True, poll_s: float = 30.0, stale_after_s: float | None = None) -> int:
        """Run requests until the queue is empty (``once``) or forever; returns how many ran."""
        n = 0
        while True:
            if stale_after_s:
                for rid in self.queue.requeue_stale(stale_after_s):
                    log.warning("requeued stale request %s", rid)
            req = self.queue.claim_next(self.cfg.worker_id)
            if req is None:
                if once:
                    return n
                time.sleep(poll_s)
                continue
            done = self.run_one(req)
            n += 1
            log.info("request %s: %s", done.id, done.state.value)
