"""`dhp export`: built or downloaded dataset folders as plain jsonl / csv / parquet files.

Everything is checked before anything is written (the format, every dataset folder, every
perturbation id); a failure while writing removes what this export created, so a failed export
leaves no empty or half-filled output folder behind.
"""

from __future__ import annotations

import csv
import json
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from dhp.data.dataset_io import BuildInfo, read_build_info, read_pairs, write_parquet
from dhp.errors import BuildError
from dhp.types import DatasetSpec

__all__ = ["FORMATS", "export_datasets"]

FORMATS = ("jsonl", "csv", "parquet")


def _checked(spec: DatasetSpec, folder: Path, perturbations: Sequence[str] | None) -> BuildInfo:
    """The build info of ``folder/<name>``, after checking the perturbation ids and the folder."""
    for pid in perturbations or ():
        spec.perturbation(pid)  # raises with the valid names
    src = folder / spec.name
    if not src.is_dir():
        raise BuildError(f"{src}: no such dataset folder; build it (dhp build) or download it (dhp download)")
    return read_build_info(src)


def _first_missing(path: Path) -> Path | None:
    """The outermost folder of ``path`` that does not exist yet (what ``mkdir(parents=True)`` creates)."""
    missing = None
    while not path.exists():
        missing, path = path, path.parent
    return missing


def _write(rows: Sequence[Mapping[str, str | None]], columns: list[str], fmt: str, dest: Path) -> None:
    tmp = dest.with_name(f".{dest.name}.part")
    try:
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
    finally:
        tmp.unlink(missing_ok=True)


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
    infos = [_checked(spec, folder, perturbations) for spec in specs]
    created = _first_missing(out)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    try:
        for spec, info in zip(specs, infos, strict=True):
            built = [p.id for p in info.perturbations if p.rows > 0]
            wanted = built if perturbations is None else [p for p in perturbations if p in built]
            dest = out / f"{spec.name}.{fmt}"
            _write(read_pairs(folder / spec.name, wanted), list(info.columns), fmt, dest)
            written.append(dest)
    except BaseException:
        for path in written:
            path.unlink(missing_ok=True)
        if created is not None:
            shutil.rmtree(created, ignore_errors=True)
        raise
    return written
