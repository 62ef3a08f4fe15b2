"""`dhp leaderboard` (serve the Space locally) and `dhp worker` (drain the evaluation queue)."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import Any

__all__ = ["register"]


def _store_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--results", default="out/results", help="results store: a folder or hf://datasets/ORG/REPO"
    )
    p.add_argument(
        "--requests", default="out/requests", help="requests store: a folder or hf://datasets/ORG/REPO"
    )


def _cmd_leaderboard(args: argparse.Namespace) -> int:
    from dhp.cli import UserError
    from dhp.leaderboard.app import AppConfig, build_app, launch
    from dhp.leaderboard.stores import open_store

    if args.mode == "space" and args.host in ("127.0.0.1", "localhost"):
        logging.getLogger(__name__).info("space mode on a loopback host: fine for trying it out")
    if not (1 <= args.port <= 65535):
        raise UserError(f"--port must be in 1..65535, got {args.port}")
    votes = args.votes
    if votes is None and not args.results.startswith("hf://"):
        votes = str(Path(args.results).parent / "votes")
    if not votes:
        raise UserError("--votes is required when --results is a Hub store")
    kw: dict[str, Any] = {"mode": args.mode, "refresh_s": args.refresh}
    if args.mode == "space":
        kw.update(rate_limit=3, rate_window_s=86400.0)
    cfg = AppConfig(
        results=open_store(args.results), requests=open_store(args.requests), votes=open_store(votes), **kw
    )
    print(f"DHP leaderboard on http://{args.host}:{args.port} ({args.mode} mode; results {cfg.results.name})")
    launch(build_app(cfg), host=args.host, port=args.port, block=True)
    return 0


def _cmd_worker(args: argparse.Namespace) -> int:
    from dhp.cli import UserError
    from dhp.leaderboard.stores import open_store
    from dhp.leaderboard.worker import Worker, WorkerConfig

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    data = Path(args.data)
    if not data.is_dir():
        raise UserError(f"--data {data} is not a folder of built datasets")
    if args.poll <= 0:
        raise UserError("--poll must be positive")
    cfg = WorkerConfig(
        data=data,
        mode=args.mode,
        datasets=args.datasets,
        n_boot=args.n_boot,
        seed=args.seed,
        timeout_s=args.timeout,
    )
    worker = Worker(open_store(args.requests), open_store(args.results), cfg)
    n = worker.drain(once=args.once, poll_s=args.poll, stale_after_s=args.requeue_after)
    print(f"dhp worker: ran {n} request(s)")
    return 0


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("leaderboard", help="serve the discernment leaderboard (Gradio) locally")
    _store_args(p)
    p.add_argument("--votes", help="survey votes store (default: votes/ beside the results folder)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=7860)
    p.add_argument("--mode", choices=("local", "space"), default="local",
                   help="space: https-only public endpoints, HF login for submissions and votes")  # fmt: skip
    p.add_argument("--refresh", type=float, default=15.0, help="seconds between checks for new results")
    p.set_defaults(func=_cmd_leaderboard)

    w = subparsers.add_parser("worker", help="run queued leaderboard requests with `dhp score`")
    _store_args(w)
    w.add_argument("--data", required=True, help="folder holding the built dataset folders")
    w.add_argument("--once", action="store_true", help="stop when the queue is empty")
    w.add_argument("--poll", type=float, default=30.0, help="seconds between queue checks")
    w.add_argument("--mode", choices=("local", "space"), default="local", help="endpoint checks at run time")
    w.add_argument("--datasets", help="override the datasets of every request (all, or a list)")
    w.add_argument("--n-boot", type=int, dest="n_boot", help="bootstrap replicates passed to dhp score")
    w.add_argument("--seed", type=int)
    w.add_argument("--timeout", type=float, default=6 * 3600.0, help="seconds before a scoring run is failed")
    w.add_argument("--requeue-after", type=float, dest="requeue_after",
                   help="requeue RUNNING requests older than this many seconds (their worker died)")  # fmt: skip
    w.set_defaults(func=_cmd_worker)
