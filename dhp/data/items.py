"""The in-memory shapes of a dataset item and of source metadata, shared by the builder and the scorer."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from dhp.types import DatasetSpec

__all__ = ["FILE_FORMATS", "OTHER_REFERENCES", "Item", "SourceData", "SourceFile", "TableRef"]

#: the :attr:`Item.extras` key of the other human references of the same input, one a line (SummEval): the
#: offline rewriting takes rephrasings people wrote from them
OTHER_REFERENCES = "other_references"
#: the file types a task's table source may be
FILE_FORMATS = (".csv", ".jsonl", ".parquet")


@dataclass(frozen=True)
class Item:
    """One item: read from a source by the builder, or from a built dataset folder by the scorer.

    ``original`` is the text a judge scores (the reference; the ``original`` column), ``context``
    maps each of the dataset's context field names to its text (``None`` when a non-required field
    is absent, e.g. Answer Equivalence's paragraph in the partial copy), and ``extras`` holds source
    fields that some perturbations need (e.g. Story Cloze's wrong ending; empty when read back).
    """

    id: str
    original: str
    context: Mapping[str, str | None]
    extras: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class SourceFile:
    """A raw file the build read: its path relative to the sources layout, where it came from, sha256."""

    path: str
    origin: str  # "local:<dir>" or the public URL it was downloaded from
    sha256: str


@dataclass(frozen=True)
class SourceData:
    """Everything a loader returns: the candidate items in source order, the files and notes."""

    items: tuple[Item, ...]
    files: tuple[SourceFile, ...]
    notes: tuple[str, ...] = ()  # human-readable facts about this copy, shown in the card
    partial: bool = False  # True when the copy is known to be a subset of the published source


@dataclass(frozen=True)
class TableRef:
    """Where a task's rows come from: a local ``file`` or a ``hub`` dataset (split and revision)."""

    file: str = ""
    hub: str = ""
    split: str = ""
    revision: str = ""

    def origin(self) -> dict[str, str]:
        """The ``SourceSpec.origin_urls`` mapping that records this reference."""
        if self.file:
            return {"file": self.file}
        return {"hub": self.hub, "split": self.split, "revision": self.revision}

    @classmethod
    def of(cls, spec: DatasetSpec) -> TableRef | None:
        """The reference recorded in ``spec``'s source, or None for a built-in dataset."""
        o = spec.source.origin_urls
        if "file" in o:
            return cls(file=o["file"])
        if "hub" in o:
            return cls(hub=o["hub"], split=o.get("split", ""), revision=o.get("revision", ""))
        return None

    def describe(self) -> str:
        return self.file if self.file else f"{self.hub} (split {self.split}, revision {self.revision})"
