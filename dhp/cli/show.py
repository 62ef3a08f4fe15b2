"""A look at the data: original and perturbed texts with their differences highlighted.

``dhp show DATASET PERTURBATION`` prints a few random (seeded) pairs of a built dataset folder in the
terminal, stacked or side by side, deletions in red and insertions in green (plain ``[-old-]`` /
``{+new+}`` marks when the output is not a terminal or ``NO_COLOR`` is set), each with the
validator's verdict. :func:`write_samples_html` writes the same for every perturbation as one HTML
sheet (``<del>`` / ``<ins>``, escaped) for a human check; ``dhp build --samples FILE`` calls it.

Diffs are word-level (difflib over words, spaces and punctuation), so a changed name or a moved
sentence shows as whole words. Everything but the reading of the folder and the writing of the
file is a pure function.
"""

from __future__ import annotations

import argparse
import html
import os
import random
import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from dhp.cli.args import nonneg_int, out_file, positive_int, seed
from dhp.data.diffmark import (
    DIM,
    RESET,
    pair_html,
    render_side_by_side,
    render_stacked,
)
from dhp.types import DatasetSpec

__all__ = [
    "register",
    "sample_pairs",
    "samples_html",
    "show",
    "write_samples_html",
]


def sample_pairs(rows: Sequence[Mapping[str, Any]], n: int, seed: int) -> dict[str, list[Mapping[str, Any]]]:
    """Up to ``n`` random rows per perturbation (seeded, in file order within a perturbation)."""
    by_pid: dict[str, list[Mapping[str, Any]]] = {}
    for row in rows:
        by_pid.setdefault(str(row["perturbation"]), []).append(row)
    out: dict[str, list[Mapping[str, Any]]] = {}
    for pid, group in by_pid.items():
        rng = random.Random(f"{seed}:{pid}")
        picked = sorted(rng.sample(range(len(group)), min(n, len(group))))
        out[pid] = [group[i] for i in picked]
    return out


def _verdict_text(spec: DatasetSpec, pid: str, original: str, perturbed: str) -> str:
    from dhp.builder.perturb.registry import validate

    p = spec.perturbation(pid)
    v = validate(p, original, perturbed)
    return "passes the validator" if v.ok else f"validator: {v.reason}"


_CSS = """body{font-family:system-ui,sans-serif;margin:2em;max-width:80em}
table{border-collapse:collapse;width:100%;margin-bottom:2em}td,th{border:1px solid #ccc;padding:.4em;vertical-align:top}
th{background:#f4f4f4;text-align:left}del{background:#fdd;color:#900}ins{background:#dfd;color:#060;text-decoration:none}
.id{font-family:monospace;font-size:.8em;color:#555}.bad{color:#b00}.ok{color:#070}"""


def samples_html(
    dataset: str,
    samples: Mapping[str, Sequence[Mapping[str, Any]]],
    seed: int,
    spec: DatasetSpec | None = None,
) -> str:
    """A self-contained HTML sheet: per perturbation a table of sampled pairs with diffs marked.

    ``spec`` declares the dataset (a task's); None: the built-in dataset named ``dataset``.
    """
    from dhp.spec import get_dataset

    spec = spec if spec is not None else get_dataset(dataset)
    parts = [
        "<!doctype html>",
        f"<html lang='en'><head><meta charset='utf-8'><title>{html.escape(dataset)}: samples</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>{html.escape(dataset)}: sample pairs</h1>",
        f"<p>Random pairs per perturbation (seed {seed}); <del>deleted</del> and <ins>inserted</ins> words "
        "are marked; the last column is the validator's verdict.</p>",
    ]
    for pid, rows in samples.items():
        parts.append(f"<h2 id='{html.escape(pid)}'>{html.escape(pid)} ({len(rows)} pairs)</h2>")
        parts.append("<table><tr><th>item</th><th>original</th><th>perturbed</th><th>check</th></tr>")
        for row in rows:
            orig, pert = str(row["original"]), str(row["perturbed"])
            left, right = pair_html(orig, pert)
            verdict = _verdict_text(spec, pid, orig, pert)
            cls = "ok" if verdict.startswith("passes") else "bad"
            parts.append(
                f"<tr><td class='id'>{html.escape(str(row['id']))}</td><td>{left}</td><td>{right}</td>"
                f"<td class='{cls}'>{html.escape(verdict)}</td></tr>"
            )
        parts.append("</table>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def write_samples_html(folder: Path, out_file: Path, n_per_perturbation: int = 5, seed: int = 0) -> Path:
    """Write the HTML sample sheet of the built dataset folder ``folder`` (named after its dataset)."""
    from dhp.data.dataset_io import read_pairs

    samples = sample_pairs(read_pairs(Path(folder)), n_per_perturbation, seed)
    out = Path(out_file)
    out.parent.mkdir(parents=True, exist_ok=True)
    from dhp.task.file import folder_spec

    out.write_text(
        samples_html(Path(folder).name, samples, seed, folder_spec(Path(folder))), encoding="utf-8"
    )
    return out


def show(folder: Path, perturbation: str, n: int, seed: int, color: bool, layout: str, width: int) -> str:
    """The terminal text of ``dhp show``: ``n`` seeded random pairs of one perturbation."""
    from dhp.data.dataset_io import read_pairs
    from dhp.task.file import folder_spec

    spec = folder_spec(folder)
    rows = sample_pairs(read_pairs(folder, [perturbation]), n, seed).get(perturbation, [])
    blocks = [f"{folder.name} / {perturbation}: {len(rows)} random pairs (seed {seed})"]
    for row in rows:
        orig, pert = str(row["original"]), str(row["perturbed"])
        if layout == "side":
            body = render_side_by_side(orig, pert, color, width)
        else:
            body = render_stacked(orig, pert, color, width)
        verdict = _verdict_text(spec, perturbation, orig, pert)
        note = f"{DIM}{verdict}{RESET}" if color else verdict
        blocks.append(f"\n== {row['id']}\n{body}\n   {note}")
    return "\n".join(blocks)


def _use_color(choice: str) -> bool:
    if choice != "auto":
        return choice == "always"
    return sys.stdout.isatty() and "NO_COLOR" not in os.environ


def _cmd_show(args: argparse.Namespace) -> int:
    from dhp.errors import UserError

    folder = Path(args.data) / args.dataset
    if not folder.is_dir():
        data = Path(args.data)
        built = (
            sorted(p.name for p in data.iterdir() if p.is_dir() and not p.name.startswith("."))
            if data.is_dir()
            else []
        )
        where = (
            f"built in {data}: {', '.join(built)}"
            if built
            else f"none is built in {data} (dhp build --out {data})"
        )
        raise UserError(f"unknown dataset {args.dataset!r}: no folder {folder}; {where}")
    if args.samples is not None:
        print(write_samples_html(folder, args.samples, args.n, args.seed))
        return 0
    if not args.perturbation:
        raise UserError("give a PERTURBATION (or --samples FILE for all of them)")
    width = shutil.get_terminal_size((100, 24)).columns if args.width is None else args.width
    print(show(folder, args.perturbation, args.n, args.seed, _use_color(args.color), args.layout, width))
    return 0


def register(subparsers: Any, default_data: Path) -> None:
    """Add ``dhp show`` to the ``dhp`` parser."""
    p = subparsers.add_parser(
        "show",
        help="print random original/perturbed pairs of a built dataset with the differences highlighted",
    )
    p.add_argument("dataset", help="dataset name (a folder under --data)")
    p.add_argument("perturbation", nargs="?", help="perturbation id, e.g. word_fictional_ne_minor")
    p.add_argument(
        "-n", type=positive_int, default=5, help="pairs to show (per perturbation with --samples; default: 5)"
    )
    p.add_argument(
        "--data", type=Path, default=default_data, help=f"built datasets folder (default: {default_data})"
    )
    p.add_argument("--seed", type=seed, default=0, help="seed of the random draw (default: 0)")
    p.add_argument("--layout", choices=("stacked", "side"), default="stacked", help="stacked or side by side")
    p.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="ANSI colours (auto: on a terminal unless NO_COLOR is set)",
    )
    p.add_argument("--width", type=nonneg_int, help="line width, 0 for no wrapping (default: the terminal's)")
    p.add_argument(
        "--samples",
        type=out_file,
        metavar="FILE",
        help="write an HTML sheet of -n random pairs of every perturbation to FILE instead",
    )
    p.set_defaults(func=_cmd_show)
