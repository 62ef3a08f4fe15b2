"""Results of applying a perturbation to one item."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["FAILED_VALIDATION", "NotApplicable", "Outcome", "Perturbed", "squash"]

#: prefix of the not-applicable reason of an output the validator rejected
FAILED_VALIDATION = "failed validation: "


@dataclass(frozen=True)
class Perturbed:
    """A perturbed text (always different from the original), what made it, and its settings."""

    text: str
    generator: str  # "rule", "offline-rules/<version>" or "llm:<model>"
    settings: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class NotApplicable:
    """The perturbation cannot apply to this item (e.g. reordering a one-sentence text), and why."""

    reason: str


Outcome = Perturbed | NotApplicable


def squash(text: str) -> str:
    """``text`` with runs of whitespace as one space: what a reader (and the validator) compares."""
    return " ".join(text.split())
