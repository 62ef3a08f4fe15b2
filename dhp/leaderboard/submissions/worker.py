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

**The private split** (issue 39): with ``private_data`` (a folder of ``dhp build --split private``'s
datasets; a Space downloads it from a private dataset repository, :mod:`dhp.leaderboard.deploy.space`),
each request is scored on both splits, the public one first, then ``dhp score --split private``; the
request finishes, and its results are stored, only when both runs did (a private result holds aggregates
only: the scorer writes no item score, no item id and no judge output into it, and the worker refuses one
that holds any). It doubles a submission's requests; ``skip_private`` (``dhp worker --skip-private``, a
Space's ``DHP_SKIP_PRIVATE=1``) scores the public split only. A private run's failure is stored and
logged without the scorer's output, which may quote the private split.
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

from dhp.data.private import SEED_ENV
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
    "fetch_private_split",
    "private_datasets",
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
    private_data: Path | None = None  # the private split's dataset folders: each request scored on it too
    skip_private: bool = False  # score the public split only, even with private_data

    @property
    def scores_private(self) -> bool:
        """Whether each request is scored on the private split too."""
        return self.private_data is not None and not self.skip_private


def private_datasets(folder: Path, selection: str) -> str | None:
    """The request's ``selection`` (``all`` or a comma-separated list) as the private split at ``folder``
    holds it: ``all``, the listed datasets built there, or None when it holds none of them."""
    if selection.strip() == "all":
        return "all"
    built = [d.strip() for d in selection.split(",") if d.strip() and (folder / d.strip()).is_dir()]
    return ",".join(built) or None


def fetch_private_split(repo_id: str, folder: Path, revision: str | None = None) -> list[str]:
    """Download the private split from the private Hub dataset repository ``repo_id`` (``dhp build --split
    private``'s output folder, one folder per dataset) into ``folder``, with the ``HF_TOKEN`` of the
    environment; the names of the private split's datasets there. A repository anyone can read is refused
    before anything is downloaded, as a folder that holds no private split is after. ValueError, one line."""
    from huggingface_hub import HfApi, snapshot_download

    from dhp.data.dataset_io import read_build_info
    from dhp.data.private import is_private_version

    token = os.environ.get(HF_TOKEN_ENV) or None
    info = HfApi(token=token).repo_info(repo_id, repo_type="dataset", revision=revision)
    if not info.private:
        raise ValueError(
            f"the private split's repository {repo_id} is public: anyone can read it; make it private "
            "(and rebuild the split with a new seed: it has been exposed)"
        )
    snapshot_download(repo_id, repo_type="dataset", revision=revision, local_dir=folder, token=token)
    names = []
    for sub in sorted(p for p in folder.iterdir() if (p / "build_info.json").is_file()):
        if not is_private_version(read_build_info(sub).dataset_version):
            raise ValueError(f"{repo_id}: {sub.name} is not a private split (dhp build --split private)")
        names.append(sub.name)
    if not names:
        raise ValueError(f"{repo_id} holds no dataset folder of a private split (dhp build --split private)")
    return names


def score_command(
    req: QueuedRequest, cfg: WorkerConfig, judge_file: Path, out_dir: Path, datasets: str | None = None
) -> list[str]:
    """The ``dhp score`` argument vector for a request: the judge travels whole in ``judge_file``
    (:func:`dhp.inference.judge.write_judge`, no secret in it); the rest are scoring settings. With
    ``datasets`` (:func:`private_datasets`), the private split's run: ``--split private`` on
    ``cfg.private_data``, with the public run's mode, seed and replicates."""
    cmd = [cfg.python, "-m", "dhp", "score", "--judge-file", str(judge_file)]
    if req.judge.own_mode is None:  # a built-in judge has one mode, its own
        cmd += ["--mode", req.mode]
    if datasets is None:
        cmd += ["--data", str(cfg.data), "--datasets", cfg.datasets or req.datasets]
    else:
        cmd += ["--split", "private", "--data", str(cfg.private_data), "--datasets", datasets]
    cmd += ["--out", str(out_dir), "--no-progress"]
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
    env.pop(SEED_ENV, None)  # the private split's seed: no scorer needs it (the split is built)
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
        """Run a claimed (RUNNING) request to FINISHED or FAILED; never raises for scoring errors. With a
        private split (:attr:`WorkerConfig.scores_private`) the request is scored on both splits, and its
        results are stored only when both runs succeeded."""
        secrets = [os.environ.get(name, "") for name in JUDGE_KEY_VARS]
        try:
            for url in req.judge.submitted_urls:  # DNS may have changed
                check_endpoint_url(url, self.cfg.mode, self.cfg.resolver, self.cfg.allowed_ports)
            with tempfile.TemporaryDirectory(prefix="dhp-worker-") as tmp:
                out = Path(tmp) / "out"
                judge_file = Path(tmp) / "judge.json"
                write_judge(judge_file, req.judge)
                failed = self._score(req, self._command(req, judge_file, out), secrets)
                if failed is not None:
                    return failed
                staged = self._staged(req, out, private=False)
                if not staged:
                    return self.queue.fail(req, "dhp score finished but wrote no result file")
                private = self._private(req, judge_file, Path(tmp) / "private", secrets)
                if isinstance(private, QueuedRequest):
                    return private
            return self.queue.finish(req, tuple(self._store(req, [*staged, *private])))
        except ValidationError as e:
            return self.queue.fail(req, f"endpoint refused at run time: {e.message}")
        except (ResultError, OSError, ValueError) as e:
            return self.queue.fail(req, scrub(f"{type(e).__name__}: {e}", secrets))
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM (dhp.cli): the scorer ended, the request waits again
            self.queue.release(req)
            log.warning("request %s: the worker was stopped; back in the queue (PENDING)", req.id)
            raise

    def _command(
        self, req: QueuedRequest, judge_file: Path, out: Path, datasets: str | None = None
    ) -> list[str]:
        cmd = score_command(req, self.cfg, judge_file, out, datasets)
        log.info("running %s%s", " ".join(cmd[:6]), "" if datasets is None else " --split private")
        return cmd

    def _score(
        self, req: QueuedRequest, cmd: list[str], secrets: list[str], private: bool = False
    ) -> QueuedRequest | None:
        """Run the scorer: None when it succeeded, else the request marked FAILED. A private run's
        failure says its exit status only: the scorer's output may quote the private split."""
        env = scorer_env(req.judge, os.environ)
        if self.cfg.mode == "space":  # the scorer contacts public addresses only, whatever DNS says by then
            env[PUBLIC_ONLY_ENV] = "1"
        split = "the private split's " if private else ""
        try:
            proc = self.runner(cmd, capture_output=True, text=True, env=env, timeout=self.cfg.timeout_s)
        except subprocess.TimeoutExpired:
            return self.queue.fail(req, f"{split}scoring timed out after {self.cfg.timeout_s:g} s")
        if proc.returncode == 0:
            return None
        if private:
            log.warning("request %s: the private split's dhp score exited with status %d (its output is not "
                        "logged: it may quote the private split)", req.id, proc.returncode)  # fmt: skip
            return self.queue.fail(
                req, f"the private split's dhp score exited with status {proc.returncode} (its output is not "
                "shown: it may quote the private split); the public split was scored, nothing was stored",
            )  # fmt: skip
        tail = (proc.stderr or proc.stdout or "").strip()[-1500:]
        return self.queue.fail(req, scrub(f"dhp score exited with status {proc.returncode}: {tail}", secrets))

    def _private(
        self, req: QueuedRequest, judge_file: Path, out: Path, secrets: list[str]
    ) -> list[tuple[str, bytes]] | QueuedRequest:
        """The private split's results of the request, staged (none when the worker has no private split,
        or it holds none of the request's datasets), or the request marked FAILED."""
        if not self.cfg.scores_private or self.cfg.private_data is None:
            return []
        datasets = private_datasets(self.cfg.private_data, self.cfg.datasets or req.datasets)
        if datasets is None:
            log.info(
                "request %s: the private split holds none of its datasets; scored on the public split", req.id
            )
            return []
        failed = self._score(req, self._command(req, judge_file, out, datasets), secrets, private=True)
        if failed is not None:
            return failed
        staged = self._staged(req, out, private=True)
        if not staged:
            return self.queue.fail(req, "the private split's dhp score finished but wrote no result file")
        return staged

    def _staged(self, req: QueuedRequest, out: Path, private: bool) -> list[tuple[str, bytes]]:
        """Every result the scorer wrote, validated, with its path in the store: the scorer had the whole
        judge, so its record must already be the request's (a result of another judge is refused), and a
        run's results must be of its split (a private one holds aggregates only: :func:`parse_result`
        refuses one with item scores or outputs)."""
        staged: list[tuple[str, bytes]] = []
        for f in sorted(out.rglob("*.json")):
            if any(part.startswith(".") for part in f.relative_to(out).parts):
                continue  # the scorer's cache and temporary files
            data = f.read_bytes()
            res = parse_result(data.decode("utf-8"), source=f.name)
            if res.judge.judge != published(req.judge):
                raise ResultError(f"{f.name}: the result is of judge {res.judge.name!r}, not the request's")
            if res.dataset.private != private:
                raise ResultError(f"{f.name}: a {res.dataset.split} split's result from the "
                                  f"{'private' if private else 'public'} split's run")  # fmt: skip
            staged.append((f"{judge_slug(req.judge.name)}/{f.name}", data))
        return staged

    def _store(self, req: QueuedRequest, staged: list[tuple[str, bytes]]) -> list[str]:
        """Store the results as written; their paths in the store."""
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
