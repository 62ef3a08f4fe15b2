"""Auto-CoT perturbation prompts in the shape of the DHP paper (v1, appendix B).

Every prompt has: a task line, "Please make sure you read and understand these instructions
carefully.", ``Adjustment:`` stating the change, numbered ``Adjustment Steps:``, the text under its
label, and ``Revised <Label>:`` for the model to complete. There is one adjustment per
(operation, severity); the wording is the paper's where the paper gives it (minor fictional named
entities) and follows its Table 2 descriptions elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass

from dhp.spec import task_kind
from dhp.types import DatasetSpec, Severity

__all__ = [
    "Adjustment",
    "PerturbPrompt",
    "fictional_entities",
    "grammatical_errors",
    "judged_noun",
    "render_prompt",
    "revised_label",
    "rewrite_insert",
]


@dataclass(frozen=True)
class Adjustment:
    """The change an LLM operation asks for at one severity: one line, then numbered steps."""

    adjustment: str
    steps: tuple[str, ...]


def judged_noun(spec: DatasetSpec) -> str:
    """How prompts name the judged text: its label in lower case (``summary``)."""
    return spec.judged_label.lower()


def fictional_entities(sev: Severity, noun: str) -> Adjustment:
    """Substitute one (minor/single) or several (major) named entities with fictional ones."""
    if sev is not Severity.MAJOR:
        return Adjustment(
            f"Please substitute only one critical named entity within the {noun} (e.g., a name, a location, "
            "a specific number, a technical term, etc.) with a fictional counterpart.",
            (
                f"Identify the critical named entity within the {noun}. This could be a person's name, a "
                f"location, a specific number, or any other specific detail that is crucial to the {noun}.",
                "Create a fictional counterpart for the identified entity. This could be a fictional name, a "
                "fictional location, a fictional number, a fictional technical term etc. Make sure that the "
                f"fictional counterpart is appropriate and fits within the context of the {noun}.",
                f"Replace the identified entity with its fictional counterpart in the {noun}. Ensure that the "
                "replacement is grammatically correct and maintains the overall meaning and flow.",
                f"Review the adjusted {noun} to ensure that it still makes sense, despite the change in one "
                "critical named entity.",
            ),
        )
    return Adjustment(
        f"Please substitute several (two or more) named entities within the {noun} (e.g., names, locations, "
        "specific numbers, technical terms, etc.) with fictional counterparts.",
        (
            f"Identify the named entities within the {noun}: people's names, locations, specific numbers, "
            "dates, organisations or technical terms.",
            "Choose two or more of them and create a fictional counterpart for each: a fictional name, "
            "location, number or technical term that fits the context.",
            f"Replace each chosen entity with its fictional counterpart everywhere it occurs in the {noun}, "
            "keeping the sentences grammatical.",
            f"Review the adjusted {noun} to ensure that it still reads naturally apart from the changed entities.",
        ),
    )


def grammatical_errors(sev: Severity, noun: str) -> Adjustment:
    """Introduce one (minor/single) or two or more (major) grammatical errors."""
    amount = "two or more grammatical errors" if sev is Severity.MAJOR else "one grammatical error"
    return Adjustment(
        f"Please modify the {noun} to create {amount}, such as subject-verb disagreement, noun-pronoun "
        "disagreement, incorrect verb tense, misuse of preposition, or a sentence fragment.",
        (
            f"Read the {noun} and find places where a grammatical error can be introduced.",
            f"Introduce {amount} of the kinds listed above, changing as few words as possible.",
            f"Leave the content, the named entities and the rest of the {noun} unchanged.",
            f"Review the adjusted {noun} to make sure it contains exactly the intended error(s) and nothing else "
            "was changed.",
        ),
    )


def rewrite_insert(sev: Severity, noun: str) -> Adjustment:
    """Rephrase one (minor/single) or several (major) sentences, each inserted after its original."""
    amount = "several (two or more) sentences" if sev is Severity.MAJOR else "one sentence"
    return Adjustment(
        f"Please select {amount} from the {noun}, rephrase each of them, and insert each rewritten version "
        "immediately after its original sentence.",
        (
            f"Select {amount} from the {noun}.",
            "Rephrase each selected sentence so that it says the same thing in different words: its whole claim, "
            "every name and number it states and no new fact, without copying any run of eight or more words "
            "from it.",
            "Insert each rephrased sentence immediately after the sentence it rephrases.",
            f"Keep every original sentence of the {noun} unchanged and in its original order.",
        ),
    )


def revised_label(spec: DatasetSpec) -> str:
    """The completion cue, e.g. ``Revised Summary:``."""
    return f"Revised {spec.judged_label}:"


@dataclass(frozen=True)
class PerturbPrompt:
    """A rendered prompt and the label the answer should follow."""

    text: str
    label: str


def render_prompt(spec: DatasetSpec, adj: Adjustment, text: str) -> PerturbPrompt:
    """The Auto-CoT prompt asking the model to make the change ``adj`` (written for :func:`judged_noun`) to ``text``.

    The adjustment comes from the operation's record (:func:`dhp.builder.perturb.registry.build_prompt`).
    """
    noun = judged_noun(spec)
    written = kind.written_for if (kind := task_kind(spec.task)) else f"one {noun}"
    steps = "\n\n".join(f"{i}. {s}" for i, s in enumerate(adj.steps, start=1))
    body = (
        f"You will be given {written}. Your task is to adjust the {noun} by implementing a specific change.\n\n"
        "Please make sure you read and understand these instructions carefully.\n\n"
        f"Adjustment: {adj.adjustment}\n\n"
        f"Adjustment Steps:\n\n{steps}\n\n"
        f"Answer with the revised {noun} only, without any explanation.\n\n"
        f"{spec.judged_label}:\n\n{text}\n\n"
        f"{revised_label(spec)}"
    )
    return PerturbPrompt(body, revised_label(spec))
