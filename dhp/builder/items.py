"""The in-memory shapes of a dataset item and of source metadata, shared by the builder and the scorer."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["OTHER_REFERENCES", "WRONG_ENDING", "Item", "SourceData", "SourceFile"]

#: the :attr:`Item.extras` key of a story's own wrong ending (Story Cloze), which its wrong-ending rule uses
WRONG_ENDING = "wrong_ending"
#: the :attr:`Item.extras` key of the other human references of the same input, one a line (SummEval): the
#: offline rewriting takes rephrasings people wrote from them
OTHER_REFERENCES = "other_references"


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
