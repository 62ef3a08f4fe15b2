"""Small synthetic DHP dataset folders, written by the builder's real writer, for scoring and leaderboard tests.

The texts are made up, but the folder is what ``dhp build`` writes: :func:`dhp.data.dataset_io.write_dataset`
with a :class:`~dhp.data.dataset_io.BuildInfo` record, parquet files per perturbation, the real
dataset card and ``not_applicable.jsonl``. Rows follow :func:`dhp.data.dataset_io.row_columns`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from pathlib import Path

from dhp.builder.build import BUILDER_VERSION
from dhp.builder.cards import render_card
from dhp.data.dataset_io import (
    BuildInfo,
    PerturbationInfo,
    PerturberInfo,
    Row,
    SelectionInfo,
    SourceInfo,
    StatisticsInfo,
    TextStatistics,
    write_dataset,
)
from dhp.spec import get_dataset
from dhp.types import DatasetSpec, row_columns

_WORDS = (
    "the council approved a new budget for schools and roads after a long debate on taxes while "
    "residents asked for better parks and cleaner rivers in the northern district"
).split()


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(8, 14))]
    return " ".join(words).capitalize() + "."


def _perturb(text: str, rng: random.Random) -> str:
    chars = list(text)
    alnum = [i for i, c in enumerate(chars) if c.isalnum()]
    for i in sorted(rng.sample(alnum, k=min(5, len(alnum))), reverse=True):
        del chars[i]
    out = "".join(chars)
    return out if out != text else text + " x"


def _perturbation_info(spec: DatasetSpec, pid: str, rows: Sequence[Row], n_items: int) -> PerturbationInfo:
    first = rows[0] if rows else {}
    known = {p.id: p for p in spec.perturbations}.get(pid)
    gens: dict[str, int] = {}
    for r in rows:
        g = str(r.get("generator", "rule"))
        gens[g] = gens.get(g, 0) + 1
    return PerturbationInfo(
        id=pid,
        level=known.level.value if known else str(first.get("level", "C")),
        method=known.method.value if known else str(first.get("method", "rule")),
        operation=known.operation.value if known else "unknown",
        severity=known.severity.value if known else str(first.get("severity", "single")),
        k=known.k if known else None,
        description=known.description if known else "(test data)",
        rows=len(rows),
        not_applicable=max(0, n_items - len(rows)),
        failed_validation=0,
        checked=len(rows),
        passed=len(rows),
        n_items=n_items,
        generators=gens,
    )


def write_rows(
    root: Path,
    spec: DatasetSpec,
    rows: Sequence[Row],
    columns: Sequence[str] | None = None,
    split: str = "test",
) -> Path:
    """Write ``rows`` (any perturbation ids, any columns) as ``root/<spec.name>/`` with the real writer.

    Rows are grouped into one file per ``perturbation`` value, in order of first appearance;
    ``columns`` defaults to the keys of the first row, so a test can leave a column out.
    """
    cols = tuple(columns if columns is not None else (rows[0].keys() if rows else row_columns(spec)))
    by_pid: dict[str, list[Row]] = {}
    for r in rows:
        by_pid.setdefault(str(r["perturbation"]), []).append({c: r.get(c) for c in cols})
    n_items = len({str(r["id"]) for r in rows})
    info = BuildInfo(
        dataset=spec.name,
        pretty_name=spec.pretty_name,
        hub_repo=spec.hub_repo,
        dataset_version="v1.0.0",
        builder_version=BUILDER_VERSION,
        seed=0,
        columns=cols,
        split=split,
        selection=SelectionInfo("test data", n_items, n_items, n_items, n_items),
        source=SourceInfo("test data", "other", "allowed", "made-up test texts", "", False, (), ()),
        perturber=PerturberInfo("offline", "offline-rules/test"),
        statistics=StatisticsInfo("test", TextStatistics(0.0, 0.0, 0.0), None),
        perturbations=tuple(_perturbation_info(spec, pid, rs, n_items) for pid, rs in by_pid.items()),
    )
    folder, _ = write_dataset(root, info, by_pid, (), lambda i: render_card(spec, i))
    return folder


def tiny_rows(spec: DatasetSpec, n_items: int, seed: int) -> list[dict[str, str | None]]:
    """Rows of ``n_items`` made-up items for every perturbation of ``spec`` (perturbation order)."""
    rng = random.Random(f"tiny|{spec.name}|{seed}")
    items = []
    for i in range(n_items):
        ctx = {c.name: " ".join(_sentence(rng) for _ in range(3)) for c in spec.context_fields}
        items.append((f"{spec.name}-{i:03d}", ctx, " ".join(_sentence(rng) for _ in range(2))))
    rows: list[dict[str, str | None]] = []
    for p in spec.perturbations:
        for item_id, ctx, original in items:
            rows.append(
                {
                    "id": item_id,
                    **ctx,
                    "original": original,
                    "perturbed": _perturb(original, rng),
                    "perturbation": p.id,
                    "level": p.level.value,
                    "method": p.method.value,
                    "severity": p.severity.value,
                    "generator": "rule" if p.method.value == "rule" else "offline-rules/test",
                    "generator_settings": "{}",
                }
            )
    return rows


def write_tiny_dataset(root: Path, spec: DatasetSpec, n_items: int = 20, seed: int = 0) -> Path:
    """Write ``root/<spec.name>/`` and return it. Every perturbation applies to every item."""
    return write_rows(root, spec, tiny_rows(spec, n_items, seed), row_columns(spec))


def write_named(
    root: Path, spec_name: str, rows: Sequence[Mapping[str, object]], split: str = "test"
) -> Path:
    """:func:`write_rows` for a built-in dataset named ``spec_name`` (values kept as given, None for null)."""
    clean: list[Row] = [{k: (None if v is None else str(v)) for k, v in r.items()} for r in rows]
    return write_rows(root, get_dataset(spec_name), clean, split=split)
