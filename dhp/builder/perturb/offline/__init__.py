"""Offline, rule-based stand-in for the LLM-based perturbations (used when no ``--perturber`` is given).

One module per operation, all randomness from the ``random.Random`` passed in:

* :mod:`.entities` - fictional entities: typed entity spans replaced by seeded fictional ones of their type;
* :mod:`.grammar` - grammatical errors from a catalogue of real error types, inflected with lemminflect;
* :mod:`.paraphrase` - rewriting and insertion: a sentence of the sources (the article, other human
  references) that says the same in other words, inserted right after its original sentence.

Minor / single severity makes one change; major makes two or three (an item with a single
candidate is *not applicable* at major severity, with the reason). Every row records
``generator = offline-rules/<OFFLINE_VERSION>``; the CLI and the card say these rows were not
written by an LLM. Each function is named as its operation's offline generator in
:mod:`dhp.builder.perturb.registry`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from dhp.builder.perturb.base import Outcome
from dhp.builder.perturb.offline import entities, grammar, paraphrase
from dhp.types import Severity

__all__ = [
    "OFFLINE_GENERATOR",
    "OFFLINE_VERSION",
    "fictional_entities",
    "grammatical_errors",
    "rewrite_insert",
]

OFFLINE_VERSION = "26"
OFFLINE_GENERATOR = f"offline-rules/{OFFLINE_VERSION}"


def fictional_entities(
    text: str, severity: Severity, rng: random.Random, sources: Sequence[str] = ()
) -> Outcome:
    """Replace one (minor/single) or two to three (major) entities by fictional ones of the same type."""
    return entities.fictional_entities(text, severity, rng, OFFLINE_GENERATOR)


def grammatical_errors(
    text: str, severity: Severity, rng: random.Random, sources: Sequence[str] = ()
) -> Outcome:
    """Introduce one (minor/single) or two to three (major) grammatical errors."""
    return grammar.grammatical_errors(text, severity, rng, OFFLINE_GENERATOR)


def rewrite_insert(text: str, severity: Severity, rng: random.Random, sources: Sequence[str] = ()) -> Outcome:
    """Insert a rephrasing people wrote (found in ``sources``) of one (minor) or two to three (major) sentences,
    each right after its original."""
    return paraphrase.rewrite_insert(text, severity, rng, OFFLINE_GENERATOR, sources)
