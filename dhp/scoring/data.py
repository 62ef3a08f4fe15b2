"""Built DHP datasets (local folders or Hub repositories) as items and perturbed texts, for scoring.

There is one reader of the dataset-folder format, :mod:`dhp.data.dataset_io`; this module only
decides where the folder is. A local folder is read in place; a Hub dataset is downloaded as a
snapshot of the commit its revision resolves to (``huggingface_hub``'s cache; nothing is fetched
again for a revision already there) and read the same way. The dataset version is the one
``build_info.json`` records.

An item a perturbation did not apply to simply has no row for it (missing, NaN in the statistics).

Revisions: a Hub dataset is pinned to the commit sha its revision resolves to; a local folder's
revision is ``"local:"`` + the first 12 hex digits of SHA-256 over its parquet files' bytes, in
order of their relative POSIX paths (:func:`local_revision`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from dhp.data.dataset_io import CARD, DatasetRows, read_items
from dhp.data.items import Item
from dhp.errors import DataError
from dhp.scoring.caveats import version_label
from dhp.types import DatasetSpec

__all__ = ["LoadedDataset", "load_hub", "load_local", "local_revision"]


@dataclass(frozen=True)
class LoadedDataset:
    spec: DatasetSpec
    repo: str  # Hub repo id, or the local folder path
    revision: str
    version: str | None
    items: tuple[Item, ...]  # sorted by id
    perturbed: Mapping[str, Mapping[str, str]]  # perturbation id -> item id -> perturbed text
    commitment: str | None = None  # a private split's commitment (build_info's private.commitment), else None

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


def _loaded(spec: DatasetSpec, rows: DatasetRows, repo: str, revision: str) -> LoadedDataset:
    perturber = rows.info.perturber  # an offline-rules build is labelled so: v1.0.0+offline-rules.4
    version = version_label(rows.info.dataset_version, perturber.kind, perturber.generator)
    private = rows.info.private
    commitment = None if private is None else private.commitment
    return LoadedDataset(spec, repo, revision, version, rows.items, rows.perturbed, commitment)


def load_local(spec: DatasetSpec, folder: Path) -> LoadedDataset:
    """Load ``folder``, a built dataset folder (from ``dhp build`` or ``dhp download``)."""
    if not (folder / CARD).is_file():
        raise DataError(f"{folder}: not a dataset folder (no {CARD}); expected <data>/{spec.name}/")
    revision = local_revision(folder)
    return _loaded(spec, read_items(spec, folder), str(folder), revision)


def load_hub(spec: DatasetSpec, revision: str | None = None, org: str | None = None) -> LoadedDataset:
    """Load ``<org>/<name>`` from the Hub, pinned to the commit its revision resolves to.

    A Hub that cannot be reached, offline mode, or a repository or revision the Hub refuses is one
    :class:`DataError` line.
    """
    from huggingface_hub import HfApi

    from dhp.inference.hub import hub_failure, hub_unusable_errors

    api = HfApi()
    repo = f"{org or spec.org}/{spec.name}"
    try:
        sha = api.dataset_info(repo, revision=revision).sha
        if not sha:
            raise DataError(f"{repo}: the Hub returned no commit sha for revision {revision or 'main'}")
        folder = Path(api.snapshot_download(repo, repo_type="dataset", revision=sha))
    except hub_unusable_errors() as e:
        line = hub_failure(f"dataset {repo}@{revision or 'main'}", e)
        raise DataError(f"{line} (or score a local folder: --data out/datasets after dhp build)") from e
    return _loaded(spec, read_items(spec, folder, where=f"{spec.name} ({repo}@{sha[:12]})"), repo, sha)
