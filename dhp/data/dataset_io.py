"""The one format of a built dataset folder (the Hub layout): its records, its writer and its reader.

A built dataset folder ``<out>/<name>/`` holds:

* ``README.md`` - the dataset card, whose YAML ``configs:`` declare the ``default`` config (all
  pairs, ``data/*.parquet``) and one config per perturbation (``data/<perturbation>.parquet``),
  each with a single ``test`` split;
* ``data/<perturbation>.parquet`` - the pairs, all string columns :func:`row_columns`;
* ``not_applicable.jsonl`` - one :class:`NotApplicableRecord` per (perturbation, item) that the
  perturbation could not apply to, with the reason (no row is written for those);
* ``build_info.json`` - the :class:`BuildInfo` record: version, builder version, seed, source
  checksums, counts, validator pass rates, coverage and statistics.

The records are frozen dataclasses written and read by :mod:`dhp.records` (derived from their fields).
The builder writes folders with :func:`write_dataset`; everything else (the scorer, export,
publish, ``dhp show``) reads them, local or downloaded from the Hub, with :func:`read_build_info`,
:func:`read_pairs` (column -> value dicts), :func:`read_rows` (typed :class:`~dhp.types.PairRow` s),
:func:`read_not_applicable` and :func:`read_items`.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from dhp.data.items import Item, SourceFile
from dhp.errors import DataError
from dhp.fsutil import make_temp_folder
from dhp.records import OMIT_NONE, from_data, problem, to_data
from dhp.types import DatasetSpec, PairRow

__all__ = [
    "BUILD_INFO",
    "CARD",
    "DATA_DIR",
    "NOT_APPLICABLE",
    "SPLIT",
    "BuildInfo",
    "DatasetRows",
    "NotApplicableRecord",
    "PerturbationInfo",
    "PerturberInfo",
    "PrivateInfo",
    "Row",
    "SelectionInfo",
    "SourceInfo",
    "StatisticsInfo",
    "TextStatistics",
    "dump_json",
    "read_build_info",
    "read_items",
    "read_not_applicable",
    "read_pairs",
    "read_rows",
    "write_dataset",
    "write_parquet",
]

DATA_DIR = "data"
BUILD_INFO = "build_info.json"
NOT_APPLICABLE = "not_applicable.jsonl"
CARD = "README.md"
SPLIT = "test"

#: One pair row as written to parquet: column name -> value (:meth:`dhp.types.PairRow.record`).
Row = Mapping[str, str | None]


def dump_json(obj: Any) -> str:
    """Deterministic JSON (sorted keys, UTF-8, two-space indent, trailing newline)."""
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, indent=2) + "\n"


# --------------------------------------------------------------------------------------------
# The build-info record
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SelectionInfo:
    """How many items the selection rule saw, let through and picked."""

    rule: str
    n_requested: int
    n_selected: int
    n_eligible: int
    n_candidates: int

    @property
    def fewer_than_requested(self) -> bool:
        return self.n_selected < self.n_requested

    def derived(self) -> dict[str, Any]:
        """Written beside the counts for readers of ``build_info.json``; ignored when read back."""
        return {"fewer_than_requested": self.fewer_than_requested}


@dataclass(frozen=True)
class SourceInfo:
    """The source the items came from: terms, whether the copy is partial, and every file read."""

    name: str
    licence: str
    redistribution: str
    terms: str
    homepage: str
    partial: bool
    notes: tuple[str, ...]
    files: tuple[SourceFile, ...]


@dataclass(frozen=True)
class PerturberInfo:
    """What made the LLM-method rows: ``offline`` (the rule-based stand-in) or ``llm`` (an endpoint)."""

    kind: str  # "offline" | "llm"
    generator: str
    url_protocol: str | None = field(default=None, metadata=OMIT_NONE)


@dataclass(frozen=True)
class TextStatistics:
    """Mean characters, words and sentences of the judged texts."""

    chars: float
    words: float
    sentences: float


@dataclass(frozen=True)
class StatisticsInfo:
    """This build's text statistics beside the paper's (``None`` for a dataset the paper lacks)."""

    splitter: str
    ours: TextStatistics
    paper: TextStatistics | None


@dataclass(frozen=True)
class PrivateInfo:
    """What a private split records about itself (``build_info.json``'s ``private``): never its seed.

    ``commitment`` is the SHA-256 over the seed and the rows (:func:`dhp.builder.private.commitment`);
    ``basis`` says how its items relate to the public split's: ``disjoint`` (other items of the source),
    ``other-texts`` (the public items, another text of each) or ``same-items`` (the public items and
    texts, fresh perturbations only); ``public_version`` is the version it is the twin of.
    """

    commitment: str
    basis: str
    public_version: str
    note: str


@dataclass(frozen=True)
class PerturbationInfo:
    """One perturbation of a build: its definition, rows, exclusions and validator results.

    ``checked`` counts the generator outputs the validator saw (retries included) and ``passed`` the
    ones it accepted; ``failed_validation`` counts the items left out because no output passed.
    """

    id: str
    level: str
    method: str
    operation: str
    severity: str
    k: int | None
    description: str
    rows: int
    not_applicable: int
    failed_validation: int
    checked: int
    passed: int
    n_items: int  # items selected for the dataset
    generators: Mapping[str, int] = field(default_factory=dict)
    num_bytes: int = 0
    #: items the generator's rule can apply to (fictional entities: those naming enough replaceable
    #: entities for the severity); None where every selected item is applicable
    applicable: int | None = None

    @property
    def pass_rate(self) -> float | None:
        """Share of checked outputs the validator accepted (``None`` when nothing was checked)."""
        return None if self.checked == 0 else self.passed / self.checked

    @property
    def coverage(self) -> float:
        """Items with a row / items selected."""
        return self.rows / self.n_items if self.n_items else 0.0

    @property
    def applicable_coverage(self) -> float:
        """Items with a row / applicable items (all selected items where ``applicable`` is None)."""
        n = self.n_items if self.applicable is None else self.applicable
        return self.rows / n if n else 0.0

    @property
    def eligible_coverage(self) -> float:
        """Items with a row / items the perturbation's rule can apply to (those not left out for another reason
        than failed validation)."""
        eligible = self.n_items - self.not_applicable + self.failed_validation
        return self.rows / eligible if eligible else 0.0

    def derived(self) -> dict[str, Any]:
        """The rates written beside the counts (rounded to 4 places; ``pass_rate`` None when nothing was checked)."""
        return {
            "pass_rate": None if self.pass_rate is None else round(self.pass_rate, 4),
            "coverage": round(self.coverage, 4),
            "applicable_coverage": round(self.applicable_coverage, 4),
        }


@dataclass(frozen=True)
class BuildInfo:
    """Everything ``build_info.json`` records about one built dataset folder."""

    dataset: str
    pretty_name: str
    hub_repo: str
    dataset_version: str
    builder_version: str
    seed: int | None  # None in a private split: its seed is never written
    columns: tuple[str, ...]
    selection: SelectionInfo
    source: SourceInfo
    perturber: PerturberInfo
    statistics: StatisticsInfo
    perturbations: tuple[PerturbationInfo, ...]
    split: str = SPLIT
    #: the private split's commitment and basis (:mod:`dhp.data.private`); absent in a public build
    private: PrivateInfo | None = field(default=None, metadata=OMIT_NONE)

    @property
    def n_rows(self) -> int:
        return sum(p.rows for p in self.perturbations)

    @property
    def n_not_applicable(self) -> int:
        return sum(p.not_applicable for p in self.perturbations)

    def perturbation(self, pid: str) -> PerturbationInfo:
        for p in self.perturbations:
            if p.id == pid:
                return p
        raise DataError(
            f"{self.dataset}: no perturbation {pid!r}; valid: {', '.join(q.id for q in self.perturbations)}"
        )

    def derived(self) -> dict[str, Any]:
        """The totals, written for readers of ``build_info.json``; ignored when read back."""
        return {"n_rows": self.n_rows, "n_not_applicable": self.n_not_applicable}


@dataclass(frozen=True)
class NotApplicableRecord:
    """A (perturbation, item) that got no row, and why."""

    perturbation: str
    id: str
    reason: str

    def to_json(self) -> str:
        """One line of ``not_applicable.jsonl``: the fields in order."""
        return json.dumps(to_data(self), ensure_ascii=False)


# --------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------
def write_parquet(rows: Sequence[Row], columns: Sequence[str], path: Path) -> int:
    """Write ``rows`` (string columns, nulls allowed) with fixed pyarrow settings, so rebuilds are byte-identical.

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


def _swap_into_place(tmp: Path, target: Path) -> None:
    old: Path | None = None
    if target.exists():
        old = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.old-"))
        old.rmdir()
        target.rename(old)
    tmp.rename(target)
    if old is not None:
        shutil.rmtree(old)


def _write_files(
    tmp: Path,
    info: BuildInfo,
    rows: Mapping[str, Sequence[Row]],
    not_applicable: Sequence[NotApplicableRecord],
) -> BuildInfo:
    (tmp / DATA_DIR).mkdir()
    perts = []
    for p in info.perturbations:
        these = rows.get(p.id, ())
        if len(these) != p.rows:
            raise DataError(f"{info.dataset}/{p.id}: build info says {p.rows} rows, {len(these)} given")
        size = write_parquet(these, info.columns, tmp / DATA_DIR / f"{p.id}.parquet") if these else 0
        perts.append(replace(p, num_bytes=size))
    done = replace(info, perturbations=tuple(perts))
    (tmp / NOT_APPLICABLE).write_text("".join(r.to_json() + "\n" for r in not_applicable), encoding="utf-8")
    (tmp / BUILD_INFO).write_text(dump_json(to_data(done)), encoding="utf-8")
    return done


def write_dataset(
    out_root: Path,
    info: BuildInfo,
    rows: Mapping[str, Sequence[Row]],
    not_applicable: Sequence[NotApplicableRecord],
    card: Callable[[BuildInfo], str],
    extra_files: Mapping[str, str] | None = None,
) -> tuple[Path, BuildInfo]:
    """Write ``out_root/<info.dataset>/`` and return it with the final info (``num_bytes`` filled in).

    ``extra_files`` (relative path -> text) are written into the folder too (a task's file and prompts).

    ``rows`` maps each perturbation id to its rows (in item order). The folder is written into a
    temporary sibling and moved into place only when complete, so an interrupted write never
    leaves a half-written dataset; an existing folder is replaced.
    """
    out_root.mkdir(parents=True, exist_ok=True)
    tmp = make_temp_folder(out_root, f".{info.dataset}.tmp-")  # the umask's mode, not mkdtemp's 0700
    try:
        done = _write_files(tmp, info, rows, not_applicable)
        (tmp / CARD).write_text(card(done), encoding="utf-8")
        for rel, text in (extra_files or {}).items():
            (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp / rel).write_text(text, encoding="utf-8")
        _swap_into_place(tmp, out_root / info.dataset)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out_root / info.dataset, done


# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------
def _folder(folder: Path) -> Path:
    for needed in (CARD, BUILD_INFO, DATA_DIR):
        if not (folder / needed).exists():
            raise DataError(f"{folder} is not a built DHP dataset folder (no {needed} inside)")
    return folder


def read_build_info(folder: Path) -> BuildInfo:
    """The folder's ``build_info.json`` as a :class:`BuildInfo`."""
    path = _folder(folder) / BUILD_INFO
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise DataError(f"{path}: not valid JSON ({e})") from e
    if not isinstance(raw, Mapping):
        raise DataError(f"{path}: not a JSON object")
    try:
        return from_data(BuildInfo, raw)
    except ValueError as e:
        raise DataError(f"{path}: not a build-info record of this builder ({problem(e)})") from e


def read_pairs(folder: Path, perturbations: Iterable[str] | None = None) -> list[dict[str, str | None]]:
    """All pair rows of a built dataset folder (optionally only some perturbations), in file order.

    Rows are dicts of the columns the folder was written with (:func:`row_columns` for the
    builder's folders); files are read in the order of ``build_info.json``, items in selection order.
    """
    import pyarrow.parquet as pq

    info = read_build_info(folder)
    order = [p.id for p in info.perturbations if p.rows > 0]
    wanted = order if perturbations is None else list(perturbations)
    unknown = [p for p in wanted if p not in order]
    if unknown:
        raise DataError(f"{folder.name}: no perturbation {unknown}; valid: {', '.join(order)}")
    rows: list[dict[str, str | None]] = []
    for pid in wanted:
        path = folder / DATA_DIR / f"{pid}.parquet"
        try:
            with pq.ParquetFile(path) as f:  # not pq.read_table: its dataset layer loads pandas (0.3-0.7 s)
                rows.extend(f.read().to_pylist())
        except (
            OSError,
            ValueError,
        ) as e:  # missing or corrupt parquet (pyarrow raises ArrowInvalid, a ValueError)
            raise DataError(f"{path}: cannot read the pairs ({type(e).__name__}: {e})") from e
    return rows


def read_rows(
    spec: DatasetSpec, folder: Path, perturbations: Iterable[str] | None = None, where: str | None = None
) -> list[PairRow]:
    """:func:`read_pairs` as typed rows of ``spec`` (its context fields); a :class:`DataError` naming
    ``where`` (default: the dataset and folder) for a row missing a required column."""
    context = [c.name for c in spec.context_fields]
    here = where or f"{spec.name} ({folder})"
    return [PairRow.from_record(rec, context, here) for rec in read_pairs(folder, perturbations)]


def read_not_applicable(folder: Path) -> list[NotApplicableRecord]:
    """The (perturbation, id, reason) records of items a perturbation could not apply to."""
    path = folder / NOT_APPLICABLE
    if not path.is_file():
        return []
    out = []
    for ln in path.read_text(encoding="utf-8").splitlines():
        if ln.strip():
            out.append(from_data(NotApplicableRecord, json.loads(ln)))
    return out


@dataclass(frozen=True)
class DatasetRows:
    """A built folder read for scoring: its info, its items (sorted by id) and the perturbed texts."""

    info: BuildInfo
    items: tuple[Item, ...]
    perturbed: Mapping[str, Mapping[str, str]]  # perturbation id -> item id -> perturbed text


def _check_columns(spec: DatasetSpec, info: BuildInfo, where: str) -> None:
    missing = [c for c in PairRow.required_columns() if c not in info.columns]
    missing += [c.name for c in spec.context_fields if c.required and c.name not in info.columns]
    if missing:
        raise DataError(f"{where}: missing columns {missing}; found {list(info.columns)}")


def _add_row(
    spec: DatasetSpec, row: PairRow, items: dict[str, Item], perturbed: dict[str, dict[str, str]], where: str
) -> None:
    item_id, pid = row.id, row.perturbation
    if pid not in spec.perturbation_ids:
        raise DataError(
            f"{where}: unknown perturbation {pid!r} in row {item_id}; valid: {', '.join(spec.perturbation_ids)}"
        )
    prev = items.setdefault(item_id, Item(item_id, row.original, row.context))
    if prev.original != row.original or prev.context != row.context:
        raise DataError(f"{where}: item {item_id} has different originals or contexts across rows")
    per = perturbed.setdefault(pid, {})
    if item_id in per:
        raise DataError(f"{where}: duplicate row for item {item_id}, perturbation {pid}")
    if row.perturbed == row.original:
        raise DataError(f"{where}: row {item_id}/{pid}: the perturbed text equals the original")
    per[item_id] = row.perturbed


def read_items(spec: DatasetSpec, folder: Path, where: str | None = None) -> DatasetRows:
    """Read and check a built folder (local, or a downloaded Hub snapshot) against ``spec``'s schema."""
    where = where or f"{spec.name} ({folder})"
    info = read_build_info(folder)
    _check_columns(spec, info, where)
    items: dict[str, Item] = {}
    perturbed: dict[str, dict[str, str]] = {}
    for row in read_rows(spec, folder, where=where):
        _add_row(spec, row, items, perturbed, where)
    if not items:
        raise DataError(f"{where}: no rows")
    return DatasetRows(info, tuple(items[k] for k in sorted(items)), perturbed)
