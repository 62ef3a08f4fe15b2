"""Generic table sources of user tasks: a local CSV / JSONL / parquet file, or a Hub dataset.

A task's source is recorded in its :class:`~dhp.types.SourceSpec` (``origin_urls``), so the
declaration round-trips through :class:`~dhp.types.DatasetSpec` like every built-in dataset:

* a local file: ``{"file": "<path relative to the task file's folder>"}``; the path is read through
  the :class:`SourceLocator` rooted at that folder, which records its sha256 for the card;
* a Hub dataset: ``{"hub": "<org/name>", "split": "<split>", "revision": "<revision>"}``, read with
  ``datasets.load_dataset`` (never while ``HF_HUB_OFFLINE`` is set: that is one clear error).

Columns: the spec's ``judged_field`` and its context fields must exist; item ids come from the
``id`` column when there is one (they must then be unique), else from the 1-based row number
(``row-1``, ``row-2``, ...). Every judged text must be non-empty: empty ones are an error, not
silently skipped. All values are read as text.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from dhp.builder.sources.fetch import SourceLocator
from dhp.data.items import FILE_FORMATS, Item, SourceData, SourceFile, TableRef
from dhp.errors import SourceError
from dhp.types import DatasetSpec

__all__ = ["ID_COLUMN", "items_from_rows", "load_table", "read_file_rows"]

ID_COLUMN = "id"


def _text(v: Any) -> str:
    return "" if v is None else v if isinstance(v, str) else str(v)


def read_file_rows(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    """Columns and rows (all values as text) of a CSV, JSONL or parquet file."""
    suffix = path.suffix.lower()
    if suffix not in FILE_FORMATS:
        raise SourceError(f"{path}: unsupported file type {suffix!r}; use one of {', '.join(FILE_FORMATS)}")
    try:
        if suffix == ".csv":
            import pandas as pd

            df = pd.read_csv(path, dtype=str, keep_default_na=False)
            columns = [str(c) for c in df.columns]
            records: list[dict[str, Any]] = [
                {str(k): v for k, v in r.items()} for r in df.to_dict(orient="records")
            ]
        elif suffix == ".jsonl":
            records = []
            with path.open(encoding="utf-8") as fh:
                for n, line in enumerate(fh, 1):
                    if line.strip():
                        rec = json.loads(line)
                        if not isinstance(rec, dict):
                            raise SourceError(f"{path}: line {n} is not a JSON object")
                        records.append(rec)
            columns = list(dict.fromkeys(k for r in records for k in r))
        else:
            import pyarrow.parquet as pq

            table = pq.read_table(path)
            columns = list(table.column_names)
            records = table.to_pylist()
    except (OSError, ValueError, UnicodeDecodeError) as e:
        raise SourceError(f"{path}: cannot read the file ({type(e).__name__}: {e})") from e
    return columns, [{str(k): _text(r.get(k)) for k in columns} for r in records]


def _check_hub(ref: TableRef) -> None:
    """One line, at once, when the Hub cannot give the dataset (offline, unreachable, unknown): asked once,
    without the retries ``datasets.load_dataset`` spends half a minute on."""
    from huggingface_hub import HfApi

    from dhp.inference.hub import hub_failure, hub_unusable_errors

    try:
        HfApi().dataset_info(ref.hub, revision=ref.revision or None)
    except hub_unusable_errors() as e:
        line = hub_failure(f"source hub {ref.describe()}", e)
        raise SourceError(f"{line}; or download the data and declare it as source: {{path: FILE}}") from e


def _hub_rows(ref: TableRef) -> tuple[list[str], list[dict[str, str]]]:
    _check_hub(ref)
    import datasets

    try:
        ds = datasets.load_dataset(ref.hub, split=ref.split, revision=ref.revision)
    except Exception as e:  # datasets raises many types (connection, missing repo, bad split); all end here
        raise SourceError(f"source hub {ref.describe()}: cannot load ({type(e).__name__}: {e})") from e
    columns = list(ds.column_names)
    return columns, [{k: _text(r.get(k)) for k in columns} for r in ds.to_list()]


def items_from_rows(
    spec: DatasetSpec, columns: Sequence[str], rows: Sequence[Mapping[str, str]], where: str
) -> tuple[Item, ...]:
    """Candidate items: judged text, context fields and ids, checked (missing columns, empty texts)."""
    needed = [spec.judged_field, *(c.name for c in spec.context_fields)]
    missing = [c for c in needed if c not in columns]
    if missing:
        raise SourceError(f"{where}: missing column {missing[0]!r}; the columns are: {', '.join(columns)}")
    if not rows:
        raise SourceError(f"{where}: no rows")
    empty = [n for n, r in enumerate(rows, 1) if not r[spec.judged_field].strip()]
    if empty:
        shown = ", ".join(str(n) for n in empty[:5]) + (", ..." if len(empty) > 5 else "")
        raise SourceError(
            f"{where}: judged column {spec.judged_field!r} has {len(empty)} empty text(s) (rows {shown}); "
            "remove those rows or choose another column"
        )
    has_id = ID_COLUMN in columns
    ids = [r[ID_COLUMN] if has_id else f"row-{n}" for n, r in enumerate(rows, 1)]
    if has_id and len(set(ids)) != len(ids):
        dup = sorted({i for i in ids if ids.count(i) > 1})[:3]
        raise SourceError(f"{where}: the {ID_COLUMN!r} column has duplicate ids, e.g. {dup}")
    return tuple(
        Item(id=i, original=r[spec.judged_field], context={c.name: r[c.name] for c in spec.context_fields})
        for i, r in zip(ids, rows, strict=True)
    )


def load_table(spec: DatasetSpec, locator: SourceLocator) -> SourceData:
    """All candidate items of a task's table source, in source order."""
    ref = TableRef.of(spec)
    if ref is None:
        raise SourceError(f"dataset {spec.name!r} declares no file or hub source")
    if ref.file:
        layout = f"{ref.file}   (the task's source file, relative to the task file's folder)"
        fetched = locator.fetch(ref.file, None, layout)
        columns, rows = read_file_rows(fetched.path)
        return SourceData(items=items_from_rows(spec, columns, rows, ref.file), files=(fetched.record,))
    columns, rows = _hub_rows(ref)
    digest = hashlib.sha256(json.dumps(rows, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()
    # sha256 of the rows as read (sorted-key JSON), since a Hub dataset has no single file
    record = SourceFile(
        path=f"{ref.hub}:{ref.split}", origin=f"hf://datasets/{ref.hub}@{ref.revision}", sha256=digest
    )
    return SourceData(items=items_from_rows(spec, columns, rows, ref.describe()), files=(record,))
