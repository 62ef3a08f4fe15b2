"""Perturbations: each :class:`dhp.types.Operation` is looked up in :mod:`~dhp.builder.perturb.registry`.

Rule operations run their rule (:mod:`~dhp.builder.perturb.rules`); LLM operations run the endpoint
client (:mod:`~dhp.builder.perturb.llm`) or, without an endpoint, the offline stand-in
(:mod:`~dhp.builder.perturb.offline`). All randomness comes from :func:`item_rng`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from dhp.builder.hashing import derive_rng, derive_seed
from dhp.builder.perturb.base import NotApplicable, Outcome, Perturbed
from dhp.builder.perturb.offline import OFFLINE_GENERATOR
from dhp.builder.perturb.registry import lookup
from dhp.data.items import OTHER_REFERENCES, Item
from dhp.types import Perturbation

__all__ = [
    "OFFLINE_GENERATOR",
    "NotApplicable",
    "Outcome",
    "Perturbed",
    "apply_offline",
    "apply_rule",
    "item_rng",
    "item_seed",
]


def item_seed(version: str, dataset: str, item_id: str, perturbation_id: str, seed: int) -> int:
    """The seed of one (dataset version, item, perturbation): sha256 of the ``|``-joined parts."""
    return derive_seed(version, dataset, item_id, perturbation_id, seed)


def item_rng(version: str, dataset: str, item_id: str, perturbation_id: str, seed: int) -> random.Random:
    """A private RNG for one (dataset version, item, perturbation)."""
    return derive_rng(version, dataset, item_id, perturbation_id, seed)


def apply_rule(p: Perturbation, item: Item, pool: Sequence[tuple[str, str]], rng: random.Random) -> Outcome:
    """Apply the rule operation of ``p`` to ``item``; ``pool`` is (id, judged text) of all selected items."""
    return lookup(p.operation).apply_rule(p, item, pool, rng)


def apply_offline(p: Perturbation, item: Item, rng: random.Random) -> Outcome:
    """Apply the offline stand-in of an LLM operation; its sources are the item's context texts and the
    other human references of its input."""
    others = item.extras.get(OTHER_REFERENCES, "")
    sources = [*(t for t in item.context.values() if t), *(r for r in others.split("\n") if r)]
    return lookup(p.operation).apply_offline(item.original, p.severity, rng, sources)
