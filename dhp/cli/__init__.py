"""The `dhp` command: every subcommand lives in this package, one module per group; bodies stay thin.

Each module (:mod:`~dhp.cli.datasets`, :mod:`~dhp.cli.show`, :mod:`~dhp.cli.score`, :mod:`~dhp.cli.choice`,
:mod:`~dhp.cli.board`, :mod:`~dhp.cli.task`) has a ``register(subparsers)`` that :func:`build_parser`
calls by name, and only for the command given (:data:`COMMANDS`: ``dhp score`` loads no other command's
module); shared argument helpers are in :mod:`dhp.cli.args`. Heavy imports happen inside the handlers so that
``dhp --help`` stays fast and every command is there in the core install (``pip install dhp-bench``):
a command whose extra is not installed fails with one line naming it (:mod:`dhp.extras`).
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any

from dhp.cli.args import DATASETS_HELP, DefaultsFormatter, OneLineParser, in_file
from dhp.errors import SpecError, UserError


def _cmd_spec(args: argparse.Namespace) -> int:
    from dhp.render import spec_json, spec_table
    from dhp.spec import BENCHMARK, resolve_datasets
    from dhp.weights import apply_weights, load_weights

    datasets = dict(BENCHMARK)
    if args.weights:
        datasets = apply_weights(load_weights(args.weights))
    chosen = [datasets[d.name] for d in resolve_datasets(args.datasets)]
    print(spec_json(chosen) if args.json else spec_table(chosen))
    return 0


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The ``dhp`` parser; given the arguments, with only the command modules they name (``dhp score``
    imports neither the builder's nor the board's command modules), else with every command."""
    from dhp import __version__

    parser = OneLineParser(
        prog="dhp",
        description="DHP benchmark for LLM judges: build the perturbed datasets, score a judge, "
        "serve the leaderboard.",
        formatter_class=DefaultsFormatter,
    )
    parser.add_argument("--version", action="version", version=f"dhp-bench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    p = sub.add_parser("spec", help="print the benchmark: datasets, metrics, perturbations, weights")
    p.add_argument("--datasets", default="all", help=DATASETS_HELP)
    p.add_argument(
        "--weights", type=in_file, help="expert-weights file (JSON or YAML) to show instead of the defaults"
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of tables")
    p.set_defaults(func=_cmd_spec)
    command = argv[0] if argv and not argv[0].startswith("-") else None  # `dhp -h ...`: every command
    known = command == "spec" or any(command in names for names, _ in COMMANDS)
    for names, register in COMMANDS:
        if command in names or not known:  # its own module only; every one for --help or an unknown name
            register(sub)
    _describe(parser)
    return parser


# each command module imports without the extras (its handlers import them), and only for its commands
def _build(sub: Any) -> None:
    from dhp.cli import datasets, show

    datasets.register(sub)
    show.register(sub, datasets.DEFAULT_OUT)  # dhp show reads where dhp build writes


def _score(sub: Any) -> None:
    from dhp.cli import score

    score.register(sub)


def _choice(sub: Any) -> None:
    from dhp.cli import choice

    choice.register(sub)


def _board(sub: Any) -> None:
    from dhp.cli import board

    board.register(sub)


def _task(sub: Any) -> None:
    from dhp.cli import task

    task.register(sub)


#: the commands each module registers (a test holds them to what it registers), in ``dhp --help`` order
COMMANDS: tuple[tuple[frozenset[str], Callable[[Any], None]], ...] = (
    (frozenset({"build", "publish", "download", "export", "show"}), _build),
    (frozenset({"score", "report", "stability", "robustness"}), _score),
    (frozenset({"compare", "fits", "misses"}), _choice),
    (frozenset({"space", "leaderboard", "worker"}), _board),
    (frozenset({"task"}), _task),
)


def _describe(parser: argparse.ArgumentParser) -> None:
    """Give each subcommand without a description its one-line help as one (shown by `dhp X --help`),
    and the formatter that shows defaults."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help for a in action._choices_actions}
            for name, sub in action.choices.items():
                sub.formatter_class = DefaultsFormatter
                line = helps.get(name)
                if sub.description is None and line:
                    sub.description = f"{line[:1].upper()}{line[1:]}."
                _describe(sub)


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread like Ctrl-C's KeyboardInterrupt: the same clean-up runs
    (a partial dataset removed, the response cache kept), then one line and exit 143."""


def _on_sigterm(signum: int, frame: object) -> None:
    raise Terminated()


def _quiet_from_now() -> None:
    """After the first Ctrl-C or SIGTERM, while the command ends: a second one changes nothing, and what
    the interruption left half-done (an asyncio task whose exception nobody will read, an object whose
    finaliser fails at exit) says nothing more than the one line."""
    import logging
    import warnings

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_IGN)
    logging.getLogger("asyncio").setLevel(logging.CRITICAL + 1)
    sys.unraisablehook = lambda unraisable: None
    # a coroutine made the instant the interruption came, before its task: garbage, not news
    warnings.filterwarnings("ignore", "coroutine .* was never awaited", RuntimeWarning)


#: what a file-system error means, in words (its class -> words)
_FILE_ERRORS: dict[type[OSError], str] = {
    PermissionError: "permission denied",
    FileExistsError: "exists already",
    NotADirectoryError: "a file where a folder is needed",
    IsADirectoryError: "a folder where a file is needed",
    FileNotFoundError: "no such file or folder",
}


def _file_error(e: OSError) -> str | None:
    """One line for a file-system error the user can fix (a path, its kind or its permissions), or None."""
    words = next((w for kind, w in _FILE_ERRORS.items() if isinstance(e, kind)), None)
    if words is None:
        return None
    if e.filename is None:
        if isinstance(e, PermissionError):  # in a library's words ("Failed to open local file ...")
            return f"{words}: {' '.join(str(e).split())[:300]}"
        return None  # not about a path the user gave (the Hub client's LocalEntryNotFoundError, offline)
    where = f"{e.filename} -> {e.filename2}" if e.filename2 else str(e.filename)
    return f"{where}: {words}"


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``dhp`` on ``argv`` (None: the command line, as the ``dhp`` program; then SIGTERM ends the
    command like Ctrl-C, and once either came a second one is ignored while the command ends)."""
    try:
        args = build_parser(sys.argv[1:] if argv is None else argv).parse_args(argv)
    except KeyboardInterrupt:  # Ctrl-C while the command line is read: one line, as later
        print("dhp: interrupted", file=sys.stderr)
        return 130
    whole = argv is None and threading.current_thread() is threading.main_thread()
    if whole:
        signal.signal(signal.SIGTERM, _on_sigterm)
    return _run(args, whole)


def _run(args: argparse.Namespace, whole: bool) -> int:
    try:
        rc: int = args.func(args)
    except (UserError, SpecError) as e:
        print(f"dhp {args.command}: error: {e}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as e:
        from dhp.extras import missing_extra

        line = missing_extra(e, args.command)
        if line is None:
            raise
        print(f"dhp {args.command}: error: {line}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:
        if whole:
            _quiet_from_now()
        term = isinstance(e, Terminated)
        print(f"dhp {args.command}: {'terminated' if term else 'interrupted'}", file=sys.stderr, flush=True)
        return 143 if term else 130
    except BrokenPipeError:  # the reader of the output went away (dhp spec | head): quietly
        _stdout_to_devnull()
        return 141
    except (
        _edge_errors()
    ) as e:  # a file, network or Hub failure no command put in its own words: one line too
        if isinstance(e, OSError) and (line := _file_error(e)) is not None:
            print(f"dhp {args.command}: error: {line}", file=sys.stderr)
            return 2
        cause = " ".join(str(e).split())[:300] or type(e).__name__
        print(f"dhp {args.command}: error: {type(e).__name__}: {cause}", file=sys.stderr)
        return 1
    return rc


def _stdout_to_devnull() -> None:
    """Point stdout at /dev/null, so that the interpreter's last flush of a closed pipe says nothing."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _edge_errors() -> tuple[type[BaseException], ...]:
    from dhp.inference.hub import hub_unusable_errors

    return (
        hub_unusable_errors()
    )  # OSError (files, sockets, offline mode) and the Hub client's transport errors


if __name__ == "__main__":
    sys.exit(main())
