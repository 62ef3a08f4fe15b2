"""`dhp leaderboard` (serve the Space locally) and `dhp worker` (drain the evaluation queue)."""

from __future__ import annotations

import argparse
import gc
import logging
import math
import tempfile
from pathlib import Path
from typing import Any

from dhp.cli.args import nonneg_int, port, seconds, seed
from dhp.errors import UserError
from dhp.naming import DEFAULT_DATA

__all__ = ["register"]


def _store_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--results", default="out/results", help="results store: a folder or hf://datasets/ORG/REPO"
    )
    p.add_argument(
        "--requests", default="out/requests", help="requests store: a folder or hf://datasets/ORG/REPO"
    )


def _store(spec: str) -> Any:
    """The store of ``spec``; a Hub store the Hub cannot give (offline, unreachable, refused) is one line."""
    from dhp.inference.hub import hub_failure, hub_unusable_errors
    from dhp.leaderboard.board.stores import open_store

    try:
        return open_store(spec)
    except hub_unusable_errors() as e:
        if not spec.startswith("hf://"):
            raise
        raise UserError(hub_failure(f"store {spec}", e)) from None


def _check_port(host: str, port: int) -> None:
    """Refuse, before anything is printed or built, a port this host cannot listen on (in use, or not allowed)."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as e:
        raise UserError(f"--host {host}: cannot resolve it ({e})") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server binds: TIME_WAIT is free
        try:
            probe.bind(address)
        except OSError as e:
            raise UserError(
                f"cannot listen on {host}:{port} ({e.strerror or e}); choose another --port"
            ) from None


def _cmd_leaderboard(args: argparse.Namespace) -> int:

    if args.mode == "space" and args.host in ("127.0.0.1", "localhost"):
        logging.getLogger(__name__).info("space mode on a loopback host: fine for trying it out")
    if not (1 <= args.port <= 65535):
        raise UserError(f"--port must be in 1..65535, got {args.port}")
    if not args.results.startswith("hf://") and not Path(args.results).is_dir():
        raise UserError(
            f"--results {args.results}: no such folder; score a judge into it first "
            f"(dhp score --judge random --out {args.results})"
        )
    _check_port(args.host, args.port)
    votes = args.votes
    if votes is None and not args.results.startswith("hf://"):
        votes = str(Path(args.results).parent / "votes")
    if not votes:
        raise UserError("--votes is required when --results is a Hub store")
    from dhp.leaderboard.page.app import build_app, dump_threads_on_usr1, launch
    from dhp.leaderboard.page.service import AppConfig

    # The imports' objects (Gradio's, pandas'...) live as long as the process: out of the collector's
    # reach, its full collections during the cold scan of 3,000 results no longer walk them (issue 37)
    gc.freeze()
    dump_threads_on_usr1()  # kill -USR1 writes every thread's stack, as on a Space, and the board goes on

    kw: dict[str, Any] = {"mode": args.mode, "refresh_s": args.refresh}
    if args.data is not None:
        kw["data"] = args.data
    if args.mode == "space":
        kw.update(rate_limit=3, rate_window_s=86400.0)
    # the CSV downloads' folder goes with the process, whichever way it ends (Ctrl-C, SIGTERM, an error)
    with tempfile.TemporaryDirectory(prefix="dhp-leaderboard-csv-") as csv_dir:
        cfg = AppConfig(results=_store(args.results), requests=_store(args.requests), votes=_store(votes),
                        csv_dir=Path(csv_dir), **kw)  # fmt: skip
        app = build_app(cfg)
        try:
            launch(app, host=args.host, port=args.port, block=False)
        except OSError as e:  # the port was taken between the check and the launch
            raise UserError(
                f"cannot listen on {args.host}:{args.port} ({e}); choose another --port"
            ) from None
        try:
            # announced once it answers: the URL can be opened as soon as it is printed
            print(f"DHP leaderboard on http://{args.host}:{args.port} ({args.mode} mode; results "
                  f"{cfg.results.name})", flush=True)  # fmt: skip
            _serve_until_stopped()
        finally:
            _close_watched(app)
    return 0


#: the name of the thread that watches the board's closing (:func:`_close_watched`)
CLOSE_WATCH = "dhp-close-watch"


def _close_watched(app: Any, within_s: float = 20) -> None:
    """``app.close()``; should the board take longer than ``within_s`` to end, every thread's stack goes
    to stderr (then the process goes on ending): a hang at the end says where it is. A Python thread writes
    them, with the GIL held, as the USR1 dump does: ``faulthandler.dump_traceback_later``'s C thread reads
    the other threads' frames unlocked, which can crash the process it reads."""
    import threading

    watch = threading.Timer(within_s, _write_stacks, args=(within_s,))
    watch.name, watch.daemon = CLOSE_WATCH, True
    watch.start()
    try:
        app.close()
    finally:
        watch.cancel()


def _write_stacks(within_s: float) -> None:
    import faulthandler
    import sys

    print(
        f"dhp leaderboard: not closed after {within_s:g} s; every thread's stack:",
        file=sys.stderr,
        flush=True,
    )
    faulthandler.dump_traceback(file=sys.stderr, all_threads=True)


#: how long the main thread sleeps between looks at the signals that arrived (:func:`_serve_until_stopped`)
WAKE_S = 1.0


def _serve_until_stopped() -> None:
    """Wait while the server's threads serve, until Ctrl-C or SIGTERM (raised here, in the main thread:
    :func:`dhp.cli.main` says it in one line). Gradio's own wait would swallow both and exit 0.

    The wait wakes every ``WAKE_S``: a signal the kernel hands to one of the server's threads only marks
    the handler pending, and Python runs it in the main thread at its next bytecode; a long sleep would
    leave SIGTERM or USR1's stack dump waiting up to that long (a CI run's USR1 test waited 240 s)."""
    import time

    while True:
        time.sleep(WAKE_S)


def _cmd_worker(args: argparse.Namespace) -> int:
    from dhp.leaderboard.submissions.worker import POLL_S, Worker, WorkerConfig

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    data = Path(args.data)
    if not data.is_dir():
        raise UserError(f"--data {data} is not a folder of built datasets")
    poll_s = POLL_S if args.poll is None else args.poll
    if not (poll_s > 0 and math.isfinite(poll_s)):
        raise UserError(f"--poll must be a positive number of seconds, got {args.poll}")
    cfg = WorkerConfig(
        data=data,
        mode=args.mode,
        datasets=args.datasets,
        n_boot=args.n_boot,
        seed=args.seed,
        timeout_s=args.timeout,
        private_data=_private_data(args),
        skip_private=args.skip_private,
    )
    worker = Worker(_store(args.requests), _store(args.results), cfg)
    n = worker.drain(once=args.once, poll_s=poll_s, stale_after_s=args.requeue_after)
    bad = worker.unreadable
    skipped = f"; {len(bad)} unreadable request file(s) skipped (FAILED on the Queue): {', '.join(bad)}"
    print(f"dhp worker: ran {n} request(s){skipped if bad else ''}")
    return 0


def _private_data(args: argparse.Namespace) -> Path | None:
    """``--private-data``, downloaded first from ``--private-repo`` when it is not there yet; None without
    a private split or with ``--skip-private``."""
    from dhp.leaderboard.submissions.worker import fetch_private_split

    if args.private_repo and not args.private_data:
        raise UserError("--private-repo needs --private-data: the folder to download the private split into")
    if args.private_data is None or args.skip_private:
        return None
    folder = Path(args.private_data)
    if args.private_repo and not folder.is_dir():
        repo, _, revision = args.private_repo.removeprefix("hf://datasets/").partition("@")
        try:
            names = fetch_private_split(repo, folder, revision or None)
        except ValueError as e:
            raise UserError(str(e)) from None
        except _hub_errors() as e:
            raise UserError(_hub_failure(f"the private split {repo}", e)) from None
        logging.getLogger(__name__).info("private split: %d dataset(s) from %s", len(names), repo)
    if not folder.is_dir():
        raise UserError(
            f"--private-data {folder} is not a folder of a private split (dhp build --split private)"
        )
    return folder


def _hub_errors() -> tuple[type[BaseException], ...]:
    from dhp.inference.hub import hub_unusable_errors

    return hub_unusable_errors()


def _hub_failure(what: str, e: BaseException) -> str:
    from dhp.inference.hub import hub_failure

    return hub_failure(what, e)


def _cmd_space_init(args: argparse.Namespace) -> int:
    from dhp.extras import require

    require("board")  # the Space's requirements are pinned from the installed board (gradio and its closure)
    from dhp.leaderboard.deploy.space import SECRETS, SpaceError, init_space

    try:
        folder = init_space(args.dir, package=args.package, wheel=args.wheel, title=args.title)
    except SpaceError as e:
        raise UserError(str(e)) from None
    print(f"wrote a Space folder {folder.path}: {', '.join(folder.files)}")
    print(f"next: dhp space push --dir {folder.path} --repo ORG/NAME --var DHP_RESULTS=hf://datasets/ORG/...; "
          f"set the secrets {', '.join(SECRETS)} in the Space's settings")  # fmt: skip
    return 0


def _cmd_space_push(args: argparse.Namespace) -> int:
    from dhp.inference.hub import hub_failure, hub_unusable_errors
    from dhp.leaderboard.deploy.space import SpaceError, push_space

    variables: dict[str, str] = {}
    for item in args.var or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UserError(f"--var must be NAME=VALUE, got {item!r}")
        variables[key] = value
    try:
        url = push_space(args.dir, args.repo, variables, private=args.private)
    except SpaceError as e:
        raise UserError(str(e)) from None
    except hub_unusable_errors() as e:  # network, offline mode or the Hub's refusal: one line
        raise UserError(hub_failure(f"cannot push the Space {args.repo}", e)) from None
    print(f"pushed {args.dir} to {url} ({len(variables)} variable(s) set)")
    return 0


def _register_space(subparsers: Any) -> None:
    sp = subparsers.add_parser("space", help="write a deployable Hugging Face Space folder, or push it")
    ssub = sp.add_subparsers(dest="space_command", metavar="SPACE_COMMAND", required=True)
    i = ssub.add_parser(
        "init", help="write a Space folder: README front matter, app.py, fully pinned requirements"
    )
    i.add_argument("dir", help="the folder to write (new or empty)")
    src = i.add_mutually_exclusive_group()
    src.add_argument(
        "--package", help="pip requirement for the dhp package (default: dhp-bench[board]==<this version>)"
    )
    src.add_argument(
        "--wheel", help="a dhp-bench wheel to unpack into the folder (the Space imports it from there)"
    )
    i.add_argument("--title", help="the Space's title")
    i.set_defaults(func=_cmd_space_init)
    p = ssub.add_parser(
        "push", help="create or update the Space through HfApi and set its variables (never secrets)"
    )
    p.add_argument("--repo", required=True, help="the Space, ORG/NAME")
    p.add_argument("--dir", default="space", help="the folder written by `dhp space init` (default: space)")
    p.add_argument("--var", action="append", metavar="NAME=VALUE", help="a Space variable (repeatable)")
    p.add_argument("--private", action="store_true", help="create the Space private")
    p.set_defaults(func=_cmd_space_push)


def register(subparsers: Any) -> None:
    _register_space(subparsers)
    p = subparsers.add_parser("leaderboard", help="serve the discernment leaderboard (Gradio) locally")
    _store_args(p)
    p.add_argument("--votes", help="survey votes store (default: votes/ beside the results folder)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: %(default)s)")
    p.add_argument("--port", type=port, default=7860, help="port to listen on (default: %(default)s)")
    p.add_argument("--mode", choices=("local", "space"), default="local",
                   help="space: https-only public endpoints, HF login for submissions and votes")  # fmt: skip
    p.add_argument("--refresh", type=seconds, default=15.0, help="seconds between checks for new results")
    p.add_argument("--data", help="where the judge page reads missed pairs' texts: a folder of built dataset "
                   "folders, or 'dhp' for the Hub datasets (default: $DHP_LEADERBOARD_DATA; none: scores only)")  # fmt: skip
    p.set_defaults(func=_cmd_leaderboard)

    w = subparsers.add_parser("worker", help="run queued leaderboard requests with `dhp score`")
    _store_args(w)
    w.add_argument("--data", default=DEFAULT_DATA, help="folder holding the built dataset folders")
    w.add_argument("--once", action="store_true", help="stop when the queue is empty")
    w.add_argument(
        "--poll",
        type=seconds,
        help="seconds between looks at an empty queue (default: 30, the worker's POLL_S)",
    )
    w.add_argument("--mode", choices=("local", "space"), default="local", help="endpoint checks at run time")
    w.add_argument("--datasets", help="override the datasets of every request (all, or a list)")
    w.add_argument(
        "--n-boot", type=nonneg_int, dest="n_boot", help="bootstrap replicates passed to dhp score"
    )
    w.add_argument("--seed", type=seed, help="seed passed to dhp score (default: dhp score's)")
    w.add_argument(
        "--timeout", type=seconds, default=6 * 3600.0, help="seconds before a scoring run is failed"
    )
    w.add_argument("--private-data", dest="private_data",
                   help="a private split's dataset folders (dhp build --split private): each request is scored on "
                   "it too (aggregates only; doubles a submission's requests)")  # fmt: skip
    w.add_argument("--private-repo", dest="private_repo", metavar="ORG/NAME[@REVISION]",
                   help="a private Hub dataset repository holding the private split, downloaded into "
                   "--private-data (with $HF_TOKEN) when that folder is missing; a public one is refused")  # fmt: skip
    w.add_argument("--skip-private", dest="skip_private", action="store_true",
                   help="score the public split only, even with --private-data")  # fmt: skip
    w.add_argument("--requeue-after", type=seconds, dest="requeue_after",
                   help="requeue RUNNING requests older than this many seconds (their worker died)")  # fmt: skip
    w.set_defaults(func=_cmd_worker)
