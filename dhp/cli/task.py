"""``dhp task init`` and ``dhp task check``: write and validate task files (see :mod:`dhp.task`).

The handlers import :mod:`dhp.task` when they run, so that every ``dhp`` command (``--help``
included) does not load the builder and scorer it imports; no import loop hides here (the stage
test, ``tests/core/test_stages.py``, puts this module above the task stage).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from dhp.cli.args import out_file
from dhp.errors import UserError

__all__ = ["register"]


def _cmd_init(args: argparse.Namespace) -> int:
    from dhp.task.build_task import starter_yaml

    dest: Path = args.out
    if dest.exists() and not args.force:
        raise UserError(f"{dest} exists; pass --force to overwrite it")
    if args.from_file is not None and not args.from_file.is_file():
        raise UserError(f"--from {args.from_file}: no such file")
    dest.write_text(starter_yaml(dest, args.from_file), encoding="utf-8")
    print(dest)
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    from dhp.task.build_task import check_task, describe
    from dhp.task.file import load_task, spec_json

    task = load_task(args.file)
    report = check_task(task, allow_fewer=args.allow_fewer)
    print(spec_json(task) if args.json else describe(task, report))
    return 0


def register(sub: Any) -> None:
    """Add ``task init`` and ``task check`` to the ``dhp`` parser."""
    p = sub.add_parser("task", help="your own task: write (init) and validate (check) a task file")
    tsub = p.add_subparsers(dest="task_command", metavar="SUBCOMMAND", required=True)
    i = tsub.add_parser("init", help="write a commented starter task file")
    i.add_argument(
        "--from", dest="from_file", type=Path, help="a CSV, JSONL or parquet file to guess columns from"
    )
    i.add_argument(
        "--out", type=out_file, default=Path("task.yaml"), help="where to write it (default: task.yaml)"
    )
    i.add_argument("--force", action="store_true", help="overwrite an existing file")
    i.set_defaults(func=_cmd_init)
    c = tsub.add_parser("check", help="validate a task file and print what would be built")
    c.add_argument(
        "file", type=Path, help="the task file (YAML or JSON), or a built folder holding task.yaml"
    )
    c.add_argument("--allow-fewer", action="store_true", help="accept fewer eligible items than N")
    c.add_argument("--json", action="store_true", help="print the dataset spec as JSON")
    c.set_defaults(func=_cmd_check)
