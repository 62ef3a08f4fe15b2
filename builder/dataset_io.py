"""Reading and writing built dataset folders (the Hub layout).

A built dataset folder ``<out>/<name>/`` holds:

* ``README.md`` - the dataset card, whose YAML ``configs:`` declare the ``default`` config (all
  pairs, ``data/*.parquet``) and one config per perturbation (``data/<perturbation>.parquet``),
  each with a single ``test`` split;
* ``data/<perturbation>.parquet`` - the pairs, columns :func:`row_columns`;
* ``not_applicable.jsonl`` - one line per (perturbation, item) that the perturbation could not apply
  to, with the reason (no row is written for those);
* ``build_info.json`` - version, builder version, seed, source checksums, counts and statistics.

Scoring and the leaderboard read folders through :func:`read_pairs` / :func:`read_build_info`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from dhp.builder.errors import BuildError
from dhp.types import DatasetSpec, pair_columns

__all__ = [
    "BUILD_INFO",
    "DATA_DIR",
    "NOT_APPLICABLE",
    "SPLIT",
    "dump_json",
    "read_build_info",
    "read_not_applicable",
    "read_pairs",
    "row_columns",
    "write_parquet",
]

DATA_DIR = "data"
BUILD_INFO = "build_info.json"
NOT_APPLICABLE = "not_applicable.jsonl"
SPLIT = "test"
EXTRA_COLUMNS = ("generator_settings",)  # JSON string: k, seeds, or the LLM model and settings


def row_columns(spec: DatasetSpec) -> tuple[str, ...]:
    """Parquet column order: :func:`dhp.types.pair_columns` then ``generator_settings``."""
    return (*pair_columns(spec), *EXTRA_COLUMNS)


def dump_json(obj: Any) -> str:
    """Deterministic JSON (sorted keys, UTF-8, two-space indent, trailing newline)."""
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, indent=2) + "\n"


def write_parquet(rows: Sequence[Mapping[str, str]], columns: Sequence[str], path: Path) -> int:
    """Write ``rows`` (all string columns) with fixed pyarrow settings, so rebuilds are byte-identical.

    Returns the Arrow in-memory size of the table (the Hub's ``num_bytes`` of a split).
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([(c, pa.string()) for c in columns])
    table = pa.Table.from_pylist([{c: r[c] for c in columns} for r in rows], schema=schema)
    pq.write_table(
        table,
        path,
        compression="zstd",
        compression_level=9,
        use_dictionary=True,
        write_statistics=True,
        version="2.6",
        data_page_version="1.0",
        row_group_size=1 << 20,
        store_schema=False,
    )
    return int(table.nbytes)


def _folder(folder: Path) -> Path:
    if not (folder / DATA_DIR).is_dir():
        raise BuildError(f"{folder} is not a built DHP dataset folder (no {DATA_DIR}/ inside)")
    return folder


def read_pairs(folder: Path, perturbations: Iterable[str] | None = None) -> list[dict[str, str]]:
    """All pair rows of a built dataset folder (optionally only some perturbations), in file order.

    Rows are dicts with the columns of :func:`row_columns`; files are read in the order of the
    card's perturbation table (``build_info.json``), items in selection order.
    """
    import pyarrow.parquet as pq

    folder = _folder(folder)
    info = read_build_info(folder)
    order = [p["id"] for p in info["perturbations"] if p["rows"] > 0]
    wanted = order if perturbations is None else list(perturbations)
    unknown = [p for p in wanted if p not in order]
    if unknown:
        raise BuildError(f"{folder.name}: no perturbation {unknown}; valid: {', '.join(order)}")
    rows: list[dict[str, str]] = []
    for pid in wanted:
        rows.extend(pq.read_table(folder / DATA_DIR / f"{pid}.parquet").to_pylist())
    return rows


def read_build_info(folder: Path) -> dict[str, Any]:
    """The folder's ``build_info.json``."""
    path = folder / BUILD_INFO
    if not path.is_file():
        raise BuildError(f"{folder} is not a built DHP dataset folder (no {BUILD_INFO})")
    info: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return info


def read_not_applicable(folder: Path) -> list[dict[str, str]]:
    """The (perturbation, id, reason) records of items a perturbation could not apply to."""
    path = folder / NOT_APPLICABLE
    if not path.is_file():
        return []
    return [json.loads(ln) for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]
