"""Rule-based perturbations and the offline stand-in: exact k, determinism, never the original."""

from __future__ import annotations

import random
import re

import pytest

from dhp.builder.perturb import apply_rule, item_rng
from dhp.builder.perturb.base import NotApplicable, Perturbed
from dhp.builder.perturb.offline import (
    OFFLINE_GENERATOR,
    fictional_entities,
    grammatical_errors,
    rewrite_insert,
)
from dhp.builder.perturb.rules import char_deletion, char_typo, other_item, sentence_reorder, word_deletion
from dhp.data.items import Item
from dhp.spec import BENCHMARK
from dhp.types import Severity

TEXT = (
    "Paul Merson has restarted his row with Andros Townsend after the Tottenham midfielder was brought on. "
    "He said on 12 March that he is not good enough. Townsend went to London with his family."
)


def _alnum(s: str) -> int:
    return sum(c.isalnum() for c in s)


@pytest.mark.parametrize("k", [1, 10, 50])
def test_char_deletion_removes_exactly_k_alphanumerics(k: int) -> None:
    out = char_deletion(TEXT, k, random.Random(k))
    assert isinstance(out, Perturbed)
    assert _alnum(TEXT) - _alnum(out.text) == k
    assert len(TEXT) - len(out.text) == k


def test_char_deletion_not_applicable_when_too_short() -> None:
    assert isinstance(char_deletion("ab c", 5, random.Random(0)), NotApplicable)


def test_typos_are_deterministic_and_leave_global_random_alone() -> None:
    random.seed(123)
    state = random.getstate()
    a = char_typo(TEXT, 10, random.Random(7))
    b = char_typo(TEXT, 10, random.Random(7))
    assert random.getstate() == state
    assert isinstance(a, Perturbed) and a == b and a.text != TEXT
    assert len(a.settings["typos"]) == 10
    c = char_typo(TEXT, 10, random.Random(8))
    assert isinstance(c, Perturbed) and c.text != a.text


def test_word_deletion_removes_k_consecutive_words() -> None:
    out = word_deletion(TEXT, 5, random.Random(3))
    assert isinstance(out, Perturbed)
    words, new = TEXT.split(), out.text.split()
    assert len(words) - len(new) == 5
    start = out.settings["start_word"]
    assert new == words[:start] + words[start + 5 :]
    assert isinstance(word_deletion("one two three", 5, random.Random(0)), NotApplicable)


def test_sentence_reorder_minor_swaps_two_and_major_shuffles_all() -> None:
    minor = sentence_reorder(TEXT, 2, random.Random(1))
    major = sentence_reorder(TEXT, None, random.Random(1))
    for out in (minor, major):
        assert isinstance(out, Perturbed) and out.text != TEXT
        assert sorted(re.split(r"(?<=[.!?]) ", out.text)) == sorted(re.split(r"(?<=[.!?]) ", TEXT))
    one = sentence_reorder("Just one sentence here.", 2, random.Random(0))
    assert isinstance(one, NotApplicable) and "1 sentence" in one.reason


def test_other_item_never_picks_itself() -> None:
    pool = [("a", "text a"), ("b", "text b"), ("c", "text a")]
    for s in range(20):
        out = other_item("a", "text a", pool, random.Random(s))
        assert isinstance(out, Perturbed) and out.text == "text b"


def test_dispatch_uses_k_from_spec() -> None:
    spec = BENCHMARK["sumpubmed"]
    item = Item("x", TEXT * 3, {"article": ""})
    for pid, k in (("char_deletion_minor", 20), ("char_deletion_major", 100)):
        p = spec.perturbation(pid)
        assert p.k == k
        out = apply_rule(p, item, [], item_rng("v1.0.0", spec.name, "x", pid, 2024))
        assert isinstance(out, Perturbed) and _alnum(item.original) - _alnum(out.text) == k


def test_item_rng_depends_on_every_part() -> None:
    base = ("v1.0.0", "summeval", "id1", "char_typo_minor", 2024)
    draws = {item_rng(*base).random()}
    variants = [  # each part changed alone
        ("v1.1.0", *base[1:]),
        (*base[:1], "sumpubmed", *base[2:]),
        (*base[:2], "id2", *base[3:]),
        (*base[:3], "char_typo_major", *base[4:]),
        (*base[:4], 2025),
    ]
    for parts in variants:
        draws.add(item_rng(*parts).random())
    assert len(draws) == 6
    assert item_rng(*base).random() == item_rng(*base).random()


#: Major rewriting needs two sentences the sources rephrase (issue 28: rephrasings people wrote).
REWRITE_TEXT = (
    "The company said on Monday that it would close the plant. Workers were told about the decision by the "
    "manager. Officials in Paris approved the plan last week. The mayor praised the new park in a speech."
)
#: the sources' rephrasings keep each sentence's main verb and add no two words the text lacks side by side
#: (offline-rules/15 refuses "The manager informed staff ...", "The mayor hailed ...": issue 36)
REWRITE_SOURCE = (
    "The manager told staff about the decision. The new park was praised by the mayor during his address."
)


@pytest.mark.parametrize(
    ("fn", "text"),
    [(fictional_entities, TEXT), (grammatical_errors, TEXT), (rewrite_insert, REWRITE_TEXT)],
)
@pytest.mark.parametrize("severity", [Severity.MINOR, Severity.MAJOR, Severity.SINGLE])
def test_offline_generators_change_the_text(fn: object, text: str, severity: Severity) -> None:
    out = fn(text, severity, random.Random(5), [REWRITE_SOURCE])  # type: ignore[operator]
    assert isinstance(out, Perturbed)
    assert out.text != text and out.generator == OFFLINE_GENERATOR
    assert out == fn(text, severity, random.Random(5), [REWRITE_SOURCE])  # type: ignore[operator]


def test_offline_severity_counts() -> None:
    minor = fictional_entities(TEXT, Severity.MINOR, random.Random(2))
    major = fictional_entities(TEXT, Severity.MAJOR, random.Random(2))
    assert isinstance(minor, Perturbed) and isinstance(major, Perturbed)
    assert len(minor.settings["changes"]) == 1 and len(major.settings["changes"]) >= 2
    gmaj = grammatical_errors(TEXT, Severity.MAJOR, random.Random(2))
    assert isinstance(gmaj, Perturbed) and len(gmaj.settings["changes"]) >= 2
    ins = rewrite_insert(REWRITE_TEXT, Severity.MINOR, random.Random(2), [REWRITE_SOURCE])
    assert isinstance(ins, Perturbed)
    n = ins.settings["rewritten_sentences"][0]
    sents = re.split(r"(?<=[.!?]) ", ins.text)
    assert sents[n - 1] == re.split(r"(?<=[.!?]) ", REWRITE_TEXT)[n - 1] and len(sents) == 5


def test_offline_not_applicable_without_entities() -> None:
    out = fictional_entities("he is happy now.", Severity.SINGLE, random.Random(0))
    assert isinstance(out, NotApplicable) and "0 replaceable named entities" in out.reason
    assert isinstance(
        fictional_entities("Laverne eats two of them.", Severity.SINGLE, random.Random(0)), Perturbed
    )
