"""Reading built DHP datasets (Hub repos or local Hub-layout folders) into items and perturbed texts.

A dataset folder is a `datasets` repository: README.md with YAML ``configs:`` whose default config
holds every pair row, in parquet files. Columns follow :func:`dhp.types.pair_columns` (``id``, the
context fields, ``original``, ``perturbed``, ``perturbation``, ``level``, ``method``, ``severity``,
``generator``); unknown extra columns are ignored. Rows are loaded with the real
``datasets.load_dataset`` and the default config's single split, whatever its name.

An item a perturbation did not apply to simply has no row for it (missing, NaN in the statistics).

Revisions: a Hub dataset is pinned to the commit sha its revision resolves to; a local folder's
revision is ``"local:"`` + the first 12 hex digits of SHA-256 over its parquet files' bytes, in
order of their relative POSIX paths (:func:`local_revision`).
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from dhp.types import DatasetSpec, SpecError

__all__ = ["DataError", "Item", "LoadedDataset", "load_hub", "load_local", "local_revision"]

_REQUIRED = ("id", "original", "perturbed", "perturbation")


class DataError(SpecError):
    """A dataset folder or repo that cannot be read or does not match the benchmark's schema."""


@dataclass(frozen=True)
class Item:
    id: str
    original: str
    context: Mapping[str, str | None]


@dataclass(frozen=True)
class LoadedDataset:
    spec: DatasetSpec
    repo: str  # Hub repo id, or the local folder path
    revision: str
    version: str | None
    items: tuple[Item, ...]  # sorted by id
    perturbed: Mapping[str, Mapping[str, str]]  # perturbation id -> item id -> perturbed text

    @property
    def n_items(self) -> int:
        return len(self.items)


def local_revision(folder: Path) -> str:
    """``local:`` + 12 hex of SHA-256 over the folder's parquet files (sorted by relative path)."""
    files = sorted(folder.rglob("*.parquet"), key=lambda p: p.relative_to(folder).as_posix())
    if not files:
        raise DataError(f"{folder}: no parquet files")
    h = hashlib.sha256()
    for f in files:
        with f.open("rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
    return "local:" + h.hexdigest()[:12]


def _card_version(readme: Path) -> str | None:
    if not readme.is_file():
        return None
    text = readme.read_text(encoding="utf-8")
    if not text.startswith("---"):
        return None
    end = text.find("\n---", 3)
    if end < 0:
        return None
    try:
        meta = yaml.safe_load(text[3:end])
    except yaml.YAMLError as e:
        raise DataError(f"{readme}: invalid YAML header ({e})") from e
    if isinstance(meta, Mapping):
        built = meta.get("dhp")  # the builder's card: dhp.dataset_version
        if isinstance(built, Mapping) and built.get("dataset_version") is not None:
            return str(built["dataset_version"])
        for key in ("dhp_version", "version", "dataset_version"):
            if meta.get(key) is not None:
                return str(meta[key])
    return None


def _rows_from(ds_dict: Any, where: str) -> list[dict[str, Any]]:
    splits = list(ds_dict.keys())
    if len(splits) != 1:
        raise DataError(f"{where}: the default config must have exactly one split, found {splits}")
    ds = ds_dict[splits[0]]
    missing = [c for c in _REQUIRED if c not in ds.column_names]
    if missing:
        raise DataError(f"{where}: missing columns {missing}; found {ds.column_names}")
    rows: list[dict[str, Any]] = ds.to_list()
    return rows


def _build(spec: DatasetSpec, rows: list[dict[str, Any]], repo: str, revision: str, version: str | None) -> LoadedDataset:
    where = f"{spec.name} ({repo})"
    known = set(spec.perturbation_ids)
    items: dict[str, Item] = {}
    perturbed: dict[str, dict[str, str]] = {}
    for cf in spec.context_fields:
        if cf.required and rows and cf.name not in rows[0]:
            raise DataError(f"{where}: missing context column {cf.name!r}")
    for row in rows:
        item_id = str(row["id"])
        pid = str(row["perturbation"])
        if pid not in known:
            raise DataError(f"{where}: unknown perturbation {pid!r} in row {item_id}; valid: {', '.join(sorted(known))}")
        original = row["original"]
        text = row["perturbed"]
        if not isinstance(original, str) or not isinstance(text, str):
            raise DataError(f"{where}: row {item_id}/{pid}: original and perturbed must be strings")
        context = {cf.name: (None if row.get(cf.name) is None else str(row[cf.name])) for cf in spec.context_fields}
        prev = items.get(item_id)
        if prev is None:
            items[item_id] = Item(item_id, original, context)
        elif prev.original != original or prev.context != context:
            raise DataError(f"{where}: item {item_id} has different originals or contexts across rows")
        per = perturbed.setdefault(pid, {})
        if item_id in per:
            raise DataError(f"{where}: duplicate row for item {item_id}, perturbation {pid}")
        if text == original:
            raise DataError(f"{where}: row {item_id}/{pid}: the perturbed text equals the original")
        per[item_id] = text
    if not items:
        raise DataError(f"{where}: no rows")
    return LoadedDataset(
        spec=spec,
        repo=repo,
        revision=revision,
        version=version,
        items=tuple(items[k] for k in sorted(items)),
        perturbed=perturbed,
    )


def load_local(spec: DatasetSpec, folder: Path) -> LoadedDataset:
    """Load ``folder`` (a Hub-layout dataset folder) with ``datasets.load_dataset``."""
    if not (folder / "README.md").is_file():
        raise DataError(f"{folder}: not a dataset folder (no README.md); expected <data>/{spec.name}/")
    import datasets

    datasets.logging.set_verbosity_error()
    datasets.disable_progress_bars()
    revision = local_revision(folder)
    # A private Arrow cache: `datasets` keys its cache of local folders on file names and mtimes,
    # which can hand back stale rows for a rewritten folder; the rows are read out before cleanup.
    with tempfile.TemporaryDirectory(prefix="dhp-load-") as cache_dir:
        try:
            ds_dict = datasets.load_dataset(str(folder), cache_dir=cache_dir)
        except (FileNotFoundError, ValueError, datasets.exceptions.DatasetsError) as e:  # a config to no files, bad YAML
            raise DataError(f"{folder}: cannot load the dataset folder ({type(e).__name__}: {e})") from e
        rows = _rows_from(ds_dict, str(folder))
        del ds_dict
    return _build(spec, rows, str(folder), revision, _card_version(folder / "README.md"))


def load_hub(spec: DatasetSpec, revision: str | None = None, org: str | None = None) -> LoadedDataset:
    """Load ``<org>/<name>`` from the Hub, pinned to the commit its revision resolves to."""
    import datasets
    from huggingface_hub import HfApi, hf_hub_download
    from huggingface_hub.errors import HfHubHTTPError

    repo = f"{org or spec.org}/{spec.name}"
    try:
        info = HfApi().dataset_info(repo, revision=revision)
    except HfHubHTTPError as e:
        raise DataError(f"{repo}: cannot resolve revision {revision or 'main'} on the Hub ({e})") from e
    sha = info.sha
    if not sha:
        raise DataError(f"{repo}: the Hub returned no commit sha for revision {revision or 'main'}")
    datasets.logging.set_verbosity_error()
    datasets.disable_progress_bars()
    ds_dict = datasets.load_dataset(repo, revision=sha)
    version = _card_version(Path(hf_hub_download(repo, "README.md", repo_type="dataset", revision=sha)))
    return _build(spec, _rows_from(ds_dict, repo), repo, sha, version)
