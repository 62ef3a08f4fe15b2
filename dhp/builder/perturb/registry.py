"""The one place an :class:`~dhp.types.Operation` becomes code: one :class:`OperationRecord` per operation.

A record is plain data (lighteval-style: no subclasses, no names of functions in a config file):
how the operation is produced (:class:`~dhp.types.Method`), its rule or its offline generator and
LLM prompt, the validator check every output must pass, and the few facts the builder, the card
and the LLM client need about it. :data:`REGISTRY` holds exactly one record per operation (checked
when this module is imported); everything else looks an operation up with :func:`lookup` and never
compares operation names itself.

To add an operation: add its value to :class:`dhp.types.Operation`, write its rule (or offline
generator and prompt adjustment) and its check, and add one :class:`OperationRecord` to
:data:`_RECORDS` below.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from dhp.builder.perturb import offline, prompts, rules
from dhp.builder.perturb import validate as checks
from dhp.builder.perturb.base import Outcome
from dhp.builder.perturb.offline.edits import change_count
from dhp.builder.perturb.offline.entities import replaceable_entities
from dhp.builder.perturb.prompts import Adjustment, PerturbPrompt
from dhp.builder.perturb.validate import Verdict
from dhp.data.items import Item
from dhp.errors import SpecError
from dhp.spec import OPERATIONS, WRONG_ENDING
from dhp.types import DatasetSpec, Method, Operation, Perturbation, Severity

__all__ = ["REGISTRY", "OperationRecord", "build_prompt", "lookup", "validate"]

#: (perturbation, item, pool of (id, judged text) of all selected items, rng) -> outcome
RuleFn = Callable[[Perturbation, Item, Sequence[tuple[str, str]], random.Random], Outcome]
#: (judged text, severity, rng, source texts) -> outcome: the offline stand-in of an LLM operation; the
#: sources (the input article, other human references) are texts people wrote about the same input
OfflineFn = Callable[[str, Severity, random.Random, Sequence[str]], Outcome]
#: (perturbation, original, perturbed) -> verdict: the operation's own validator check
CheckFn = Callable[[Perturbation, str, str], Verdict]
#: (severity, noun of the judged text) -> the change an LLM prompt asks for
PromptFn = Callable[[Severity, str], Adjustment]
#: (judged text, severity) -> can the operation apply to this text at all
ApplicableFn = Callable[[str, Severity], bool]


@dataclass(frozen=True)
class OperationRecord:
    """Everything the benchmark does with one operation.

    A rule operation has ``rule`` and neither ``offline`` nor ``prompt``; an LLM operation has
    ``offline`` (the rule-based stand-in used without an endpoint) and ``prompt``, and no ``rule``.
    ``check`` is the validator every output of either kind must pass.
    """

    operation: Operation
    check: CheckFn
    rule: RuleFn | None = None
    offline: OfflineFn | None = None
    prompt: PromptFn | None = None
    #: what the offline stand-in does, for the dataset card (LLM operations)
    offline_summary: str = ""
    #: the output is the original with text inserted (an LLM output may be about three times longer)
    inserts: bool = False
    #: an item's minor and major outputs must differ; where they do not, the major row is not applicable
    severities_differ: bool = False
    #: whether the operation can apply to a text at a severity, where that depends on the text
    #: (build info reports how many items could); None: every item
    applicable: ApplicableFn | None = None

    @property
    def method(self) -> Method:
        """Rule or LLM: the operation's fact in :data:`dhp.spec.OPERATIONS`."""
        return OPERATIONS[self.operation].method

    @property
    def item_extra(self) -> str | None:
        """The item extra the rule needs, if any (:data:`dhp.spec.OPERATIONS`)."""
        return OPERATIONS[self.operation].item_extra

    def __post_init__(self) -> None:
        is_rule, llm_parts = self.method is Method.RULE, self.offline is not None or self.prompt is not None
        if is_rule != (self.rule is not None) or is_rule == llm_parts:
            raise SpecError(
                f"operation {self.operation.value!r}: a rule operation needs a rule and no offline generator or "
                "prompt; an LLM operation needs an offline generator and a prompt and no rule"
            )

    def apply_rule(
        self, p: Perturbation, item: Item, pool: Sequence[tuple[str, str]], rng: random.Random
    ) -> Outcome:
        """The rule's outcome on ``item``; a :class:`SpecError` for an LLM operation."""
        if self.rule is None:
            raise SpecError(
                f"perturbation {p.id!r}: operation {self.operation.value!r} is not a rule operation"
            )
        return self.rule(p, item, pool, rng)

    def apply_offline(
        self, text: str, severity: Severity, rng: random.Random, sources: Sequence[str] = ()
    ) -> Outcome:
        """The offline stand-in's outcome on ``text`` (``sources``: texts people wrote about the same input);
        a ValueError for a rule operation."""
        if self.offline is None:
            raise ValueError(f"no offline generator for operation {self.operation.value!r}")
        return self.offline(text, severity, rng, sources)

    def adjustment(self, severity: Severity, noun: str) -> Adjustment:
        """The change the LLM prompt asks for; a ValueError for a rule operation."""
        if self.prompt is None:
            raise ValueError(f"operation {self.operation.value!r} is rule-based and has no LLM prompt")
        return self.prompt(severity, noun)


# --------------------------------------------------------------------------- rule adapters


def _k(p: Perturbation) -> int:
    if p.k is None:
        raise SpecError(f"perturbation {p.id!r} ({p.operation.value}) needs k")
    return p.k


def _char_deletion(p: Perturbation, it: Item, pool: Sequence[tuple[str, str]], rng: random.Random) -> Outcome:
    return rules.char_deletion(it.original, _k(p), rng)


def _char_typo(p: Perturbation, it: Item, pool: Sequence[tuple[str, str]], rng: random.Random) -> Outcome:
    return rules.char_typo(it.original, _k(p), rng)


def _word_deletion(p: Perturbation, it: Item, pool: Sequence[tuple[str, str]], rng: random.Random) -> Outcome:
    return rules.word_deletion(it.original, _k(p), rng)


def _sentence_reorder(
    p: Perturbation, it: Item, pool: Sequence[tuple[str, str]], rng: random.Random
) -> Outcome:
    return rules.sentence_reorder(it.original, p.k, rng)


def _other_item(p: Perturbation, it: Item, pool: Sequence[tuple[str, str]], rng: random.Random) -> Outcome:
    return rules.other_item(it.id, it.original, pool, rng)


def _wrong_ending(p: Perturbation, it: Item, pool: Sequence[tuple[str, str]], rng: random.Random) -> Outcome:
    return rules.wrong_ending(it.original, it.extras.get(WRONG_ENDING))


def _names_enough_entities(text: str, severity: Severity) -> bool:
    """Does ``text`` name as many replaceable entities as the severity replaces?"""
    return len(replaceable_entities(text)) >= change_count(severity)[0]


# --------------------------------------------------------------------------- the records

_RECORDS: tuple[OperationRecord, ...] = (
    OperationRecord(Operation.CHAR_DELETION, check=checks.check_char_deletion, rule=_char_deletion),
    OperationRecord(Operation.CHAR_TYPO, check=checks.check_char_typo, rule=_char_typo),
    OperationRecord(Operation.WORD_DELETION, check=checks.check_word_deletion, rule=_word_deletion),
    OperationRecord(
        Operation.FICTIONAL_ENTITIES,
        check=checks.check_fictional_entities,
        offline=offline.fictional_entities,
        prompt=prompts.fictional_entities,
        offline_summary="fictional entities replace named entities, numbers, dates and known domain "
        "terms with seeded fictional ones of the same type",
        applicable=_names_enough_entities,
    ),
    OperationRecord(
        Operation.GRAMMATICAL_ERRORS,
        check=checks.check_grammatical_errors,
        offline=offline.grammatical_errors,
        prompt=prompts.grammatical_errors,
        offline_summary="grammatical errors come from a catalogue of real error types (agreement, "
        "tense, prepositions, articles)",
    ),
    OperationRecord(
        Operation.SENTENCE_REORDER,
        check=checks.check_sentence_reorder,
        rule=_sentence_reorder,
        severities_differ=True,
    ),
    OperationRecord(
        Operation.REWRITE_INSERT,
        check=checks.check_rewrite_insert,
        offline=offline.rewrite_insert,
        prompt=prompts.rewrite_insert,
        offline_summary="rewriting-and-insertion inserts, after a sentence, a sentence of the sources "
        "(the article, other references) that says the same in other words, written by people; it refuses "
        "rather than emits, so an item whose sources hold no whole restatement of one of its sentences (no "
        "verbatim run of 8+ words, no fact, name or number the text lacks, at most two other words it lacks, the "
        "main verb kept) gets no row, and major rewriting needs two: the counts are what the sources allow",
        inserts=True,
    ),
    OperationRecord(Operation.OTHER_ITEM, check=checks.check_replacement_text, rule=_other_item),
    OperationRecord(Operation.WRONG_ENDING, check=checks.check_replacement_text, rule=_wrong_ending),
)


def _registry(records: Sequence[OperationRecord]) -> Mapping[Operation, OperationRecord]:
    """Operation -> its record; a :class:`SpecError` unless every operation has exactly one."""
    ops = [r.operation for r in records]
    missing = [op.value for op in Operation if op not in ops]
    doubled = sorted({op.value for op in ops if ops.count(op) > 1})
    if missing or doubled:
        raise SpecError(f"operation registry: missing records {missing}, doubled records {doubled}")
    return MappingProxyType({op: next(r for r in records if r.operation is op) for op in Operation})


#: Operation -> its record, in :class:`~dhp.types.Operation` order.
REGISTRY: Mapping[Operation, OperationRecord] = _registry(_RECORDS)


def lookup(operation: Operation) -> OperationRecord:
    """The record of ``operation``."""
    return REGISTRY[operation]


def validate(p: Perturbation, original: str, perturbed: str) -> Verdict:
    """Does ``perturbed`` do to ``original`` what perturbation ``p`` describes?

    An empty output or the original itself always fails; then the operation's own check decides
    (whitespace-only changes fail there, but a typo may be a whitespace change).
    """
    if not perturbed.strip():
        return Verdict(False, "the perturbed text is empty")
    if perturbed == original:
        return Verdict(False, "the perturbed text equals the original")
    return lookup(p.operation).check(p, original, perturbed)


def build_prompt(spec: DatasetSpec, p: Perturbation, text: str) -> PerturbPrompt:
    """The Auto-CoT prompt asking the model to apply ``p`` (an LLM operation) to ``text``."""
    adj = lookup(p.operation).adjustment(p.severity, prompts.judged_noun(spec))
    return prompts.render_prompt(spec, adj, text)
