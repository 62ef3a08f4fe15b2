"""Perturbations, dispatched on :class:`dhp.types.Operation` with ``k`` from the :class:`Perturbation`.

Rule operations run :mod:`~dhp.builder.perturb.rules`; LLM operations run the endpoint client
(:mod:`~dhp.builder.perturb.llm`) or, without an endpoint, the offline stand-in
(:mod:`~dhp.builder.perturb.offline`). All randomness comes from :func:`item_rng`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from dhp.builder.hashing import derive_rng, derive_seed
from dhp.builder.items import Item
from dhp.builder.perturb import rules
from dhp.builder.perturb.base import NotApplicable, Outcome, Perturbed
from dhp.builder.perturb.offline import OFFLINE_GENERATOR, offline_perturb
from dhp.types import Operation, Perturbation, SpecError

__all__ = [
    "LLM_OPERATIONS",
    "OFFLINE_GENERATOR",
    "NotApplicable",
    "Outcome",
    "Perturbed",
    "apply_offline",
    "apply_rule",
    "item_rng",
    "item_seed",
]

#: Operations produced by an LLM (or the offline stand-in); all others are rules.
LLM_OPERATIONS = frozenset(
    {Operation.FICTIONAL_ENTITIES, Operation.GRAMMATICAL_ERRORS, Operation.REWRITE_INSERT}
)


def item_seed(version: str, dataset: str, item_id: str, perturbation_id: str, seed: int) -> int:
    """The seed of one (dataset version, item, perturbation): sha256 of the ``|``-joined parts."""
    return derive_seed(version, dataset, item_id, perturbation_id, seed)


def item_rng(version: str, dataset: str, item_id: str, perturbation_id: str, seed: int) -> random.Random:
    """A private RNG for one (dataset version, item, perturbation)."""
    return derive_rng(version, dataset, item_id, perturbation_id, seed)


def _k(p: Perturbation) -> int:
    if p.k is None:
        raise SpecError(f"perturbation {p.id!r} ({p.operation.value}) needs k")
    return p.k


def apply_rule(p: Perturbation, item: Item, pool: Sequence[tuple[str, str]], rng: random.Random) -> Outcome:
    """Apply the rule operation of ``p`` to ``item``; ``pool`` is (id, judged text) of all selected items."""
    op, text = p.operation, item.original
    if op is Operation.CHAR_DELETION:
        return rules.char_deletion(text, _k(p), rng)
    if op is Operation.CHAR_TYPO:
        return rules.char_typo(text, _k(p), rng)
    if op is Operation.WORD_DELETION:
        return rules.word_deletion(text, _k(p), rng)
    if op is Operation.SENTENCE_REORDER:
        return rules.sentence_reorder(text, p.k, rng)
    if op is Operation.OTHER_ITEM:
        return rules.other_item(item.id, text, pool, rng)
    if op is Operation.WRONG_ENDING:
        return rules.wrong_ending(text, item.extras.get("wrong_ending"))
    raise SpecError(f"perturbation {p.id!r}: operation {op.value!r} is not a rule operation")


def apply_offline(p: Perturbation, item: Item, rng: random.Random) -> Outcome:
    """Apply the offline stand-in of an LLM operation."""
    return offline_perturb(p.operation, item.original, p.severity, rng)
