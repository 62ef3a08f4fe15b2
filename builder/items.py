"""The in-memory shapes that flow through the builder: source items and source metadata."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["Item", "SourceData", "SourceFile"]


@dataclass(frozen=True)
class Item:
    """One candidate item read from a source.

    ``judged`` is the text a judge scores (the reference), ``context`` maps each of the dataset's
    context field names to its text (empty string when a non-required field is unavailable), and
    ``extras`` holds source fields that some perturbations need (e.g. Story Cloze's wrong ending).
    """

    id: str
    judged: str
    context: Mapping[str, str]
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
