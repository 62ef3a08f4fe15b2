"""`dhp export`: built or downloaded dataset folders as plain jsonl / csv / parquet files."""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from pathlib import Path

from dhp.builder.dataset_io import read_build_info, read_pairs, write_parquet
from dhp.builder.errors import BuildError
from dhp.types import DatasetSpec

__all__ = ["FORMATS", "export_datasets"]

FORMATS = ("jsonl", "csv", "parquet")


def export_datasets(
    specs: Sequence[DatasetSpec],
    folder: Path,
    out: Path,
    fmt: str,
    perturbations: Sequence[str] | None = None,
) -> list[Path]:
    """Write ``out/<dataset>.<fmt>`` for each dataset found in ``folder``; return the paths."""
    if fmt not in FORMATS:
        raise BuildError(f"unknown export format {fmt!r}; valid: {', '.join(FORMATS)}")
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for spec in specs:
        if perturbations is not None:
            for pid in perturbations:
                spec.perturbation(pid)  # raises with the valid names
        src = folder / spec.name
        if not src.is_dir():
            raise BuildError(
                f"{src}: no such dataset folder; build it (dhp build) or download it (dhp download)"
            )
        info = read_build_info(src)
        built = [p.id for p in info.perturbations if p.rows > 0]
        wanted = built if perturbations is None else [p for p in perturbations if p in built]
        rows = read_pairs(src, wanted)
        columns = list(info.columns)
        dest = out / f"{spec.name}.{fmt}"
        tmp = dest.with_name(f".{dest.name}.part")
        if fmt == "jsonl":
            tmp.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
        elif fmt == "csv":
            with tmp.open("w", encoding="utf-8", newline="") as f:
                w = csv.DictWriter(f, fieldnames=columns)
                w.writeheader()
                w.writerows(rows)
        else:
            write_parquet(rows, columns, tmp)
        tmp.replace(dest)
        written.append(dest)
    return written
