"""The offline stand-in for the LLM perturbations: hand-written examples per operation, every bug
quoted in issue 9, determinism, and pass rates/coverage of the validator on a real offline build."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from dhp.builder.build import BuildReport
from dhp.builder.perturb import closed_class, lexicon
from dhp.builder.perturb.base import NotApplicable, Perturbed
from dhp.builder.perturb.offline import (
    OFFLINE_GENERATOR,
    fictional_entities,
    grammatical_errors,
    rewrite_insert,
)
from dhp.builder.perturb.offline.entities import entity_candidates, replaceable_entities
from dhp.builder.perturb.offline.grammar import ERROR_KINDS, grammar_edits
from dhp.builder.perturb.registry import lookup, validate
from dhp.builder.perturb.rules import sentence_reorder
from dhp.builder.perturb.validate import word_type_jaccard
from dhp.builder.textstats import split_sentences
from dhp.spec import BENCHMARK
from dhp.types import Method, Operation, Severity

NEWS = (
    "Paul Merson has restarted his row with Andros Townsend after the Tottenham midfielder was brought on. "
    "He said on 12 March that he is not good enough. Townsend went to London with his family."
)
NE_MINOR = BENCHMARK["summeval"].perturbation("word_fictional_ne_minor")
SUMPUBMED = (
    "autophagy is a conserved cellular process that degrades and recycles cytoplasmic components via a "
    "lysosomal pathway. the phosphatidylethanolamine -conjugation of the atg <dig> protein plays an important "
    "role in the yeast autophagy process. in humans, six atg <dig> homologs, including map1lc3a, map1lc3b and "
    "gabarapl <dig> have been reported."
)


def _perturbed(out: object) -> Perturbed:
    assert isinstance(out, Perturbed), out
    return out


def _changed_words(a: str, b: str) -> list[tuple[str, str]]:
    """(old, new) word pairs where two texts of the same word count differ."""
    x, y = a.split(" "), b.split(" ")
    assert len(x) == len(y), (a, b)
    return [(u, v) for u, v in zip(x, y, strict=True) if u != v]


# -- fictional entities ---------------------------------------------------------------------------------
def test_entities_keep_the_organisation_keyword_and_the_type() -> None:
    text = "She studied at Brown University before moving to Chicago."
    for seed in range(20):
        out = _perturbed(fictional_entities(text, Severity.MINOR, random.Random(seed)))
        (change,) = out.settings["changes"]
        if change["from"] == "Brown University":
            assert change["to"].endswith(" University") and change["to"] != "Brown University"
        new_type = lexicon.classify_span(change["to"])
        assert new_type is not None and new_type.value == change["type"]
        assert change["to"].lower() not in text.lower()


def test_entities_never_cross_a_sentence_end_nor_take_common_words() -> None:
    text = (
        "The match was played on Wednesday. But the former champion lost in Paris. Everyone had a great time."
    )
    for seed in range(20):
        out = _perturbed(fictional_entities(text, Severity.MAJOR, random.Random(seed)))
        for change in out.settings["changes"]:
            assert "." not in change["from"] and change["from"] not in {"But", "Everyone", "The"}
        assert out.text.count(".") == 3 and out.text.endswith("Everyone had a great time.")
    assert isinstance(
        fictional_entities("Everyone had a great time.", Severity.SINGLE, random.Random(0)), NotApplicable
    )


def test_a_number_changed_at_every_occurrence_keeps_each_range_in_order() -> None:
    # read in the offline-rules/8 build: "two" changed everywhere gave "one, twelve or ten outlets"
    text = (
        "A pump with two or more outlets makes sense for a large aquarium. "
        "The HK series has one, two or four outlets depending on the model."
    )
    major = BENCHMARK["wmt22-de-en"].perturbation("word_fictional_ne_major")
    for seed in range(30):
        out = fictional_entities(text, Severity.MAJOR, random.Random(seed))
        if isinstance(out, Perturbed):
            assert validate(major, text, out.text).ok, out.text


def test_a_person_after_an_office_of_several_words_is_replaced_whole_and_the_office_kept() -> None:
    # read in the offline-rules/8 build: "Federal Health Minister Karl Lauterbach" -> "... Dral Lauterbach"
    text = "The Federal Health Minister Karl Lauterbach (SPD) added that the rules stay."
    names = []
    for seed in range(20):
        out = _perturbed(fictional_entities(text, Severity.MINOR, random.Random(seed)))
        assert out.text.startswith("The Federal Health Minister "), out.text
        names += [c["to"] for c in out.settings["changes"] if c["from"] == "Karl Lauterbach"]
    assert names and all("Lauterbach" not in n and len(n.split()) == 2 for n in names), names


def test_entities_replace_a_whole_unicode_name() -> None:
    text = "Yûki Tanaka won the race in Osaka."
    for seed in range(10):
        out = _perturbed(fictional_entities(text, Severity.MINOR, random.Random(seed)))
        assert "ûki" not in out.text or out.text.startswith("Yûki Tanaka")


def test_entities_in_lowercase_text_keep_the_number_mask() -> None:
    for seed in range(30):
        out = _perturbed(fictional_entities(SUMPUBMED, Severity.MAJOR, random.Random(seed)))
        assert out.text.count("<dig>") == SUMPUBMED.count("<dig>")
        assert out.text == out.text.lower()
        for change in out.settings["changes"]:
            assert change["from"] not in {"disease", "protein", "process"}  # ordinary words are not terms
        assert 2 <= len(out.settings["changes"]) <= 3


def test_entities_never_replace_an_untyped_name() -> None:
    text = "There were 2,242 new infections of the Sars CoV2 Virus and 16 deaths in the region."
    for seed in range(20):
        out = _perturbed(fictional_entities(text, Severity.MINOR, random.Random(seed)))
        assert "Sars CoV2 Virus" in out.text, out.text
        assert validate(NE_MINOR, text, out.text).ok


def test_entities_keep_nationalities_documents_and_whole_state_names() -> None:
    text = (
        "The settlers were of mostly English American ancestry. Power is set out in the Constitution of "
        "Kazakhstan. Egypt joined the United Arab Republic in 1958."
    )
    major = BENCHMARK["summeval"].perturbation("word_fictional_ne_major")
    for seed in range(20):
        out = _perturbed(fictional_entities(text, Severity.MAJOR, random.Random(seed)))
        assert "the Constitution of " in out.text, out.text
        # a nationality is kept or replaced whole by a fictional people ("Valdorian American ancestry")
        assert re.search(r"mostly (English|[A-Z][a-z]+(?:ian|n)) American ancestry", out.text), out.text
        assert "the United " in out.text or "Arab Republic" in out.text, (
            out.text
        )  # never split, always a place
        assert validate(major, text, out.text).ok, out.text


@pytest.mark.parametrize(
    ("text", "name", "gender"),
    [
        ("Jake waited for his leg to heal. He was bored.", "Jake", "male"),
        ("Don knew he would win the race.", "Don", "male"),
        ("Mary Jones knew she would win the race.", "Mary Jones", "female"),
    ],
)
def test_entities_replace_a_first_name_by_one_of_the_same_gender(text: str, name: str, gender: str) -> None:
    story = BENCHMARK["story-cloze"].perturbation("word_fictional_ne")
    genders = []
    for seed in range(20):
        out = fictional_entities(text, Severity.MINOR, random.Random(seed))
        changes = out.settings["changes"] if isinstance(out, Perturbed) else []
        for change in (c for c in changes if c["from"] == name):
            genders.append(lexicon.first_name_gender(change["to"].split()[0]))
            assert validate(story, text, out.text).ok  # type: ignore[union-attr]
    assert genders and set(genders) == {gender}, genders


@pytest.mark.parametrize(
    "term", ["454-sequencing", "bacteriocin", "SpaceX", "LinkedIn", "VT40X", "map1lc3a", "il-6"]
)
def test_fictional_terms_keep_the_shape_and_are_pronounceable(term: str) -> None:
    import re

    from dhp.builder.perturb.offline.entities import _term

    def shape(s: str) -> str:
        return re.sub(r"[a-z]", "a", re.sub(r"[A-Z]", "A", re.sub(r"\d", "0", s)))

    for seed in range(20):
        new = _term(term, random.Random(seed))
        assert shape(new) == shape(term), (term, new)
        for run in re.findall(r"[a-z]{4,}", new):  # syllables: never four consonants or vowels in a row
            assert not re.search(r"[^aeiou]{4}|[aeiou]{3}", run), (term, new)
    assert _term("454-sequencing", random.Random(0)) != "601-ojrmluesld"


def test_entities_in_cased_text_leave_ordinary_lowercase_words() -> None:
    text = "Darwin did not see evolution as a teleological plan. The plan of imatinib was 3 pages long."
    for seed in range(20):
        out = _perturbed(fictional_entities(text, Severity.MINOR, random.Random(seed)))
        # learned terms ("teleological", "imatinib") are technical terms; "evolution", "plan", "pages" are not
        assert {c["from"] for c in out.settings["changes"]} <= {"Darwin", "3", "teleological", "imatinib"}, (
            out.settings
        )
        assert validate(NE_MINOR, text, out.text).ok, out.text


def test_entities_keep_the_capitalisation() -> None:
    text = "the wild cat (Felis silvestris) was seen near the 3G mast by Tamsin Oakley in 2019 ."
    for seed in range(20):
        out = _perturbed(fictional_entities(text, Severity.MAJOR, random.Random(seed)))
        for change in out.settings["changes"]:
            old, new = change["from"], change["to"]
            assert old[:1].isupper() == new[:1].isupper() and old.islower() == new.islower(), change


def test_entities_keep_the_compass_word_and_leave_nationalities() -> None:
    # offline-rules/19: a nationality is never replaced; the reads found one changed where the text keeps its
    # other form ("English" in one of three places, "European" beside "EU", "the American democracy" beside "the
    # U.S."): 22 of 27 labelled rows valid
    for seed in range(10):
        text = "Officials said the plant in North Brabant closed."
        out = _perturbed(fictional_entities(text, Severity.MINOR, random.Random(seed)))
        (change,) = out.settings["changes"]
        assert change["from"] == "North Brabant" and change["to"].startswith("North "), change
        assert validate(NE_MINOR, text, out.text).ok, out.text
    for text in ("French officials said the plant closed.", "In the last round the Dutchman passed the car."):
        assert replaceable_entities(text) == [], text
        assert isinstance(fictional_entities(text, Severity.MINOR, random.Random(0)), NotApplicable), text
    text = "French officials said the plant in Brabant closed."
    assert replaceable_entities(text) == ["Brabant"]


def test_names_are_replaced_before_numbers_dates_and_nationalities() -> None:
    """Offline-rules/17: where a text names a person, organisation or place, those are replaced (the readers
    found them valid in 88-100% of the rows, numbers, dates and terms in 65-71%); the others only after them."""
    text = "French officials said on Monday that 40 workers at the Hamburg plant run by Maria Schneider lost their jobs."
    minor: set[str] = set()
    for seed in range(20):
        minor |= {
            c["from"]
            for c in _perturbed(fictional_entities(text, Severity.MINOR, random.Random(seed))).settings[
                "changes"
            ]
        }
        major = _perturbed(fictional_entities(text, Severity.MAJOR, random.Random(seed))).settings["changes"]
        assert {"Hamburg", "Maria Schneider"} <= {c["from"] for c in major}, major
    assert minor == {"Hamburg", "Maria Schneider"}, minor


def test_entities_in_an_answer_span_that_starts_in_lower_case() -> None:
    text = "continued to support Republican presidential candidates, except when Jimmy Carter ran in Georgia"
    out = _perturbed(fictional_entities(text, Severity.MINOR, random.Random(0)))
    assert out.settings["changes"][0]["from"] in {"Jimmy Carter", "Georgia", "Republican"}


def test_entities_minor_changes_exactly_one_span() -> None:
    out = _perturbed(fictional_entities(NEWS, Severity.MINOR, random.Random(3)))
    assert len(out.settings["changes"]) == 1
    diff = [w for w in zip(NEWS.split(), out.text.split(), strict=False) if w[0] != w[1]]
    assert 1 <= len(diff) <= 3  # one entity of up to three words


@pytest.mark.parametrize(
    ("text", "old", "shape"),
    [
        # issue 9 round 2: each new kind is replaced by a fictional one of the same kind and shape
        ("The SPD would agree, he said.", "SPD", r"[B-Z]{3}"),  # acronym: as many capitals, no word
        (
            "Register at www.bosch-pt.com/warranty today.",
            "www.bosch-pt.com/warranty",
            r"www\.[a-z]{5}-[a-z]{2}\.com/warranty",
        ),
        ("It considers imatinib separately.", "imatinib", r"[a-z]+nib"),  # the suffix stays
        ("Gaddafi was popular at school.", "Gaddafi", r"[A-Z][a-z]{3,}"),
        (
            "The composition of NEKTON Bio helps birds.",
            "NEKTON Bio",
            r"[A-Z]{6} Bio",
        ),  # a brand keeps its capitals
        ("During the Spring Festival, shops close.", "Spring Festival", r"[A-Z][a-z]+ Festival"),
        (
            "The Crown Prince of Saudi Arabia arrived.",
            "Crown Prince of Saudi Arabia",
            r"Crown Prince of [A-Z][a-z]+",
        ),
        ("The deal was signed on May 19 in the city.", "May 19", r"[A-Z][a-z]+ 19|May (?:[1-9]|1\d|2[0-8])"),
    ],
)
def test_entities_of_the_new_kinds_keep_kind_and_shape(text: str, old: str, shape: str) -> None:
    made = set()
    for seed in range(12):
        out = _perturbed(fictional_entities(text, Severity.MINOR, random.Random(seed)))
        (change,) = out.settings["changes"]
        assert change["from"] == old, change
        assert re.fullmatch(shape, change["to"]), change
        assert validate(NE_MINOR, text, out.text).ok, (out.text, validate(NE_MINOR, text, out.text).reason)
        made.add(change["to"])
    assert len(made) > 3  # seeded, not fixed


def test_entities_replace_every_occurrence_alike_and_keep_the_article() -> None:
    text = "Gaddafi was popular at school. Friends of Gaddafi got jobs. we saw an organism ."
    for seed in range(12):
        out = _perturbed(fictional_entities(text, Severity.MINOR, random.Random(seed)))
        (change,) = out.settings["changes"]
        assert out.text.count(change["to"]) == text.count(change["from"]) and change["from"] not in out.text
        assert not re.search(r"\ban [^aeiou\s]", out.text), out.text
        assert validate(NE_MINOR, text, out.text).ok, out.text


@pytest.mark.parametrize(
    ("text", "pair"),
    [
        # one person never gets two fictional names
        (
            "Mesut Ozil scored twice for Arsenal. Ozil later thanked the fans in London.",
            {"Mesut Ozil", "Ozil"},
        ),
        # "New Zealander Tim Weston" -> "Faircliffian Faelan Marwick": two entities read as one changed span
        (
            "The crocodile swam in Puerto Vallarta, in Mexico. New Zealander Tim Weston was on holiday and saw it.",
            {"New Zealander", "Tim Weston"},
        ),
    ],
)
def test_entities_never_replace_both_of(text: str, pair: set[str]) -> None:
    major = BENCHMARK["summeval"].perturbation("word_fictional_ne_major")
    for seed in range(30):
        out = _perturbed(fictional_entities(text, Severity.MAJOR, random.Random(seed)))
        froms = {c["from"] for c in out.settings["changes"]}
        assert not pair <= froms, froms
        assert validate(major, text, out.text).ok, out.text


def test_entities_after_a_title_get_a_surname_and_ordinary_words_stay() -> None:
    # lead review of the merged build: "Mr Gordon" -> "Mr Evander", "Mr Katter" -> "Mr Sabine";
    # "Gun was 'secured properly'" -> "Orla" although the text says "the gun" later
    text = "Mr Gordon was forced to quit Labor. Mr Katter accused the Government."
    for seed in range(12):
        out = _perturbed(fictional_entities(text, Severity.MINOR, random.Random(seed)))
        for change in out.settings["changes"]:
            if change["from"] in ("Gordon", "Katter"):
                assert change["to"] in lexicon_last_names(), change
    gun = "Rifle was stolen from a car in Salt Lake City. Gun was secured in a case. The gun has not been found."
    assert "Gun" not in {s.text for s in lexicon.find_entities(gun)}


def lexicon_last_names() -> frozenset[str]:
    from dhp.builder.perturb.offline import entities

    return frozenset(entities._LAST)


def test_entities_leave_contractions_placeholders_and_offices() -> None:
    text = "Don’t worry, #PRS_ORG# will call. The Minister of Justice said the SPD agrees."
    for seed in range(12):
        out = _perturbed(fictional_entities(text, Severity.MINOR, random.Random(seed)))
        assert out.settings["changes"][0]["from"] == "SPD", out.settings


# -- grammatical errors -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "kind", "old", "new"),
    [
        ("He is proud of the team.", "agreement", "is", "are"),
        ("They agree with him.", "agreement", "agree", "agrees"),
        ("She will go home tonight.", "verb_form", "go", "went"),
        ("They want to agree.", "verb_form", "agree", "agrees"),
        ("Jimmy has learned a new trick.", "verb_form", "learned", "learn"),
        ("He said it was late.", "pronoun", "He", "Him"),
        ("They fixed their cars.", "pronoun", "their", "them"),
        ("He bought an apple yesterday.", "article", "an", "a"),
        ("He left early because he was tired.", "fragment", " because", ". Because"),
        ("Kevin bought a house.", "nonfinite", "bought", "buying"),
        ("I never gave the man money again.", "nonfinite", "gave", "giving"),
        ("He bought a car yesterday.", "article", "car", "cars"),
        ("The plan was based on data.", "preposition", "on", "of"),
        ("He was very proud.", "fragment", "was ", ""),
    ],
)
def test_grammar_catalogue_examples(text: str, kind: str, old: str, new: str) -> None:
    edits = {(text[e.start : e.end], e.new) for e in grammar_edits(text) if e.kind == kind}
    assert (old, new) in edits


@pytest.mark.parametrize(
    ("text", "dropped"),
    [  # read in SummEval rows: "He then sacked again", "but twice ignored" read as acts, not as fragments
        ("He was then sacked again following a defeat.", False),
        ("He reported it but was twice ignored by staff.", False),
        ("The game was then exciting and long.", True),
    ],
)
def test_a_passive_keeps_its_be_after_an_adverb(text: str, dropped: bool) -> None:
    frags = [text[e.start : e.end] for e in grammar_edits(text) if e.kind == "fragment"]
    assert ("was " in frags) is dropped, frags


@pytest.mark.parametrize(
    ("text", "split"),
    [  # read in a SummEval row: "... a new contract even. Though Henderson's contract ran ..."
        ("They signed him to a new contract even though his contract ran for months.", False),
        ("They signed him to a new contract though his contract ran for months.", True),
    ],
)
def test_a_connective_is_not_split(text: str, split: bool) -> None:
    frags = [e.new for e in grammar_edits(text) if e.kind == "fragment"]
    assert (". Though" in frags) is split, frags


def test_grammar_fragments_never_delete_a_content_word() -> None:
    # issue 19: "Williams eventually Errani", "why Zuckerberg the name": a deleted verb deletes meaning
    text = "World No 1 Williams eventually beat Errani in Rome. Zuckerberg was proud of the name, because it was short."
    frags = [text[e.start : e.end].strip() for e in grammar_edits(text) if e.kind == "fragment"]
    assert frags and all(f in ("was", ", because") for f in frags), frags
    minor = BENCHMARK["summeval"].perturbation("word_grammar_minor")
    assert not validate(minor, text, text.replace("beat ", "", 1)).ok
    for seed in range(30):
        out = grammatical_errors(text, Severity.MINOR, random.Random(seed))
        if isinstance(out, Perturbed):
            assert "beat" in out.text and validate(minor, text, out.text).ok, out.text


@pytest.mark.parametrize(
    ("text", "left"),
    [  # read in an offline build: titles and a noun after "to" were edited
        ("Thriller by Michael Jackson, I Am... Sasha Fierce by Beyonce.", "I"),
        ("Keeps Gettin Better: A Decade of Hits.", "Decade"),
        ("He had his first return to action after injury.", "action"),
    ],
)
def test_grammar_leaves_titles_and_a_noun_after_to(text: str, left: str) -> None:
    assert not [e for e in grammar_edits(text) if text[e.start : e.end] in (left, f"A {left}")]
    assert [e for e in grammar_edits("I want to go home.") if e.kind == "verb_form"]


def test_grammar_never_makes_a_valid_base_form_nor_swaps_free_prepositions() -> None:
    assert ("find", "found") not in {
        (e.new and "find", e.new) for e in grammar_edits("They wanted to find it.")
    }
    assert all(e.new != "found" for e in grammar_edits("They wanted to find it."))
    assert not [e for e in grammar_edits("The cattle were fed with hay.") if e.kind == "preposition"]


def test_grammar_kinds_are_balanced_and_counts_match_severity() -> None:
    kinds: Counter[str] = Counter()
    for seed in range(120):
        minor = _perturbed(grammatical_errors(NEWS, Severity.MINOR, random.Random(seed)))
        major = _perturbed(grammatical_errors(NEWS, Severity.MAJOR, random.Random(seed)))
        assert len(minor.settings["changes"]) == 1 and 2 <= len(major.settings["changes"]) <= 3
        kinds.update(minor.settings["changes"])
    assert set(kinds) <= set(ERROR_KINDS) and len(kinds) >= 4
    # kinds are drawn by weight (articles, pronouns, gerunds less often: they are in nearly every text),
    # so one three-sentence text is not balanced; datasets are (test_offline_grammar_kinds_are_each_at_most_a_quarter)
    assert max(kinds.values()) / sum(kinds.values()) < 0.45  # not half of one kind


def test_grammar_major_never_makes_one_error_of_two_edits() -> None:
    """A read of a fresh build (seed 5323): "These aspects are" -> "This aspects is" reads as one error (the
    noun's number), not the two a major row claims; and so "increasing numbers of airlines have" -> "on ...
    has"."""
    text = "It adds to the warmth of the amplifier. These aspects are implemented perfectly by the circuit."
    for seed in range(40):
        out = grammatical_errors(text, Severity.MAJOR, random.Random(seed))
        assert not (isinstance(out, Perturbed) and "This aspects is" in out.text), out


def test_rewrite_major_needs_two_rewritable_sentences() -> None:
    out = rewrite_insert("It rained. It rained again.", Severity.MAJOR, random.Random(0), ["Rain fell."])
    assert isinstance(out, NotApplicable) and "have a rephrasing in the sources" in out.reason


# -- reordering: minor and major never coincide ---------------------------------------------------------------
def test_reorder_major_is_never_a_single_swap() -> None:
    text = "One is here. Two is there. Three is far. Four is near."
    sents = split_sentences(text)
    for seed in range(40):
        major = sentence_reorder(text, None, random.Random(seed))
        new = split_sentences(_perturbed(major).text)
        assert sum(a != b for a, b in zip(sents, new, strict=True)) >= 3
    two = sentence_reorder("One is here. Two is there.", None, random.Random(0))
    assert isinstance(two, NotApplicable) and "minor" in two.reason


# -- determinism ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "op", [Operation.FICTIONAL_ENTITIES, Operation.GRAMMATICAL_ERRORS, Operation.REWRITE_INSERT]
)
def test_offline_is_deterministic_and_leaves_global_random_alone(op: Operation) -> None:
    random.seed(5)
    state = random.getstate()
    text = (
        "Naoki Ogane says that Chelsea have made an offer. "
        + NEWS
        + " Kevin Mirallas scored the only goal of the game."
    )
    if op is Operation.REWRITE_INSERT:  # rephrasings people wrote, found in the sources
        text = (
            "Workers were told about the decision by the manager. The mayor praised the new park in a speech."
        )
    # each keeps its sentence's main verb (offline-rules/15 refuses "informed", "hailed" for "told", "praised")
    sources = [
        "The manager told staff about the decision. The new park was praised by the mayor during his address."
    ]
    a = lookup(op).apply_offline(text, Severity.MAJOR, random.Random(11), sources)
    b = lookup(op).apply_offline(text, Severity.MAJOR, random.Random(11), sources)
    assert a == b and random.getstate() == state
    assert isinstance(a, Perturbed) and a.generator == OFFLINE_GENERATOR and a.text != text


# -- the whole offline build, checked by the validator ------------------------------------------------------------
#: Measured floors of this generator (README "What the offline generator can and cannot do");
#: (pass rate of the rows made, coverage of the items) per operation.
FLOORS = {
    # coverage is bound by lexicon.find_entities; issue 28: class nouns ("kinase") are no entities, SumPubMed
    # major 33% on offline-rules/9; issue 36: no word of a multi-word term, viruses a class: 29% on offline-rules/12;
    # a binomial whose genus the text names alone ("legionella pneumophila ... legionella species"), a name's number ("454-sequencing"), a word of a family's
    # name ("the ap2/erf protein family"), a name word the text names alone ("Staats-"): 23% on offline-rules/14;
    # a species' name ("norway spruce"), a dictionary chemical ("ethylene"), a counted abbreviation: 23% on /16;
    # no number word, no lower-case abbreviation ("ppi", "pbmc": about half valid in the reads), no word of a
    # spelled-out name the text abbreviates ("mycobacterium avium" of "map"), a place beside its people, a long
    # name beside its abbreviation ("phosphatidylethanolamine", "pe"): 10% on offline-rules/24; one alga's names
    # ("lobosphaera incisa, formerly myrmecia incisa"): 9% on /25
    Operation.FICTIONAL_ENTITIES: (0.97, 0.09),
    # issue 19: no content-verb fragment, no "an" before a consonant: short answers (answer-equivalence
    # major 60%) and story endings (87%) have fewer sites left; the rest go to not_applicable.jsonl
    Operation.GRAMMATICAL_ERRORS: (0.97, 0.55),
    # issue 28: only rephrasings people wrote, found in the sources: measured 2% (SummEval major) to 21%
    # (SumPubMed minor) of the items on offline-rules/9; issue 36, only whole restatements: 1% (both majors) to
    # 18% (SummEval minor) on offline-rules/12; issue 36, a restatement that says more or less refused: 0% (both
    # majors, no row) to 7% (SummEval minor) on offline-rules/15
    Operation.REWRITE_INSERT: (0.97, 0.0),
}


def _rows(folder: Path, pid: str) -> pd.DataFrame:
    """The rows of perturbation ``pid``; none where the build wrote no file (no item had a row)."""
    path = folder / "data" / f"{pid}.parquet"
    return pd.read_parquet(path) if path.exists() else pd.DataFrame(columns=["original", "perturbed"])


@pytest.mark.slow
def test_offline_build_passes_the_validator(built: dict[str, BuildReport]) -> None:
    table = []
    for name, report in built.items():
        spec = BENCHMARK[name]
        n_items = json.loads((report.folder / "build_info.json").read_text())["selection"]["n_selected"]
        for p in spec.perturbations:
            df = _rows(report.folder, p.id)
            ok = sum(validate(p, o, q).ok for o, q in zip(df["original"], df["perturbed"], strict=True))
            rate, cover = ok / len(df) if len(df) else 1.0, len(df) / n_items  # no row: none fails
            table.append(f"{name} {p.id} pass={rate:.3f} coverage={cover:.2f}")
            if p.method is Method.RULE:
                assert rate >= 0.99, table[-1]
            else:
                floor_pass, floor_cover = FLOORS[p.operation]
                assert rate >= floor_pass and cover >= floor_cover, table[-1]
    print("\n".join(table))


@pytest.mark.slow
def test_offline_grammar_kinds_are_each_at_most_a_quarter(built: dict[str, BuildReport]) -> None:
    """Issue 19: no error kind is more than 25% of a dataset's edits (one edit of rounding allowed)."""
    for name, report in built.items():
        kinds: Counter[str] = Counter()
        for p in BENCHMARK[name].perturbations:
            if p.operation is Operation.GRAMMATICAL_ERRORS:
                df = _rows(report.folder, p.id)
                kinds.update(k for g in df["generator_settings"] for k in json.loads(g)["changes"])
        total = sum(kinds.values())
        assert total and max(kinds.values()) <= 0.25 * total + 1, (name, kinds)


@pytest.mark.slow
def test_offline_rewrites_reword_and_cover_the_summaries(built: dict[str, BuildReport]) -> None:
    """Issue 19: on SummEval and SumPubMed every inserted sentence shares < 80% of its word types with
    its source and none is a cleft; issue 28: none is a word swap of it (<= 2 content words swapped with
    the word order kept); issue 36: none shares a verbatim run of 8 or more words with its sentence or keeps the
    tokeniser's " ." / " ,". The rows are the measured floors of offline-rules/15 (SummEval 7 / 0, SumPubMed
    1 / 0: it refuses a rephrasing that says more or less than its sentence), not issue 19's 50 / 30."""
    from dhp.builder.perturb.validate import rewrite_distance, verbatim_run

    floors = {"summeval": {"minor": 7, "major": 0}, "sumpubmed": {"minor": 1, "major": 0}}
    for name, by_severity in floors.items():
        for sev, floor in by_severity.items():
            df = _rows(built[name].folder, f"sent_rewrite_insert_{sev}")
            assert len(df) >= floor, (name, sev, len(df))
            for o, q in zip(df["original"], df["perturbed"], strict=True):
                orig = split_sentences(o)
                for new in (x for x in split_sentences(q) if x not in orig):
                    assert max(word_type_jaccard(x, new) for x in orig) < 0.8, new
                    assert max(rewrite_distance(x, new)[1] for x in orig) < 0.75, new  # order not kept
                    assert not re.match(r"What\b.*\b(?:did|do|does|done)\b.*\b(?:is|was)\b", new), new
                    assert max(verbatim_run(x, new) for x in orig) < 8 and not re.search(r" [.,]", new), new


# -- fictional entities, review 3 of the offline build ------------------------------------------------------
def _every_minor(text: str, seeds: int = 12) -> list[Perturbed]:
    """The minor rows of ``seeds`` seeds, each checked by the validator."""
    outs = []
    for seed in range(seeds):
        out = _perturbed(fictional_entities(text, Severity.MINOR, random.Random(seed)))
        assert validate(NE_MINOR, text, out.text).ok, (out.text, validate(NE_MINOR, text, out.text).reason)
        outs.append(out)
    return outs


def _changes_of(outs: list[Perturbed], name: str) -> list[dict[str, str]]:
    return [c for out in outs for c in out.settings["changes"] if c["from"] == name]


def test_entities_replace_a_club_by_a_fictional_town_never_a_person() -> None:
    # review: "Chelsea" (the club) -> "Delphine", "Isolde", "Marisol", "Linnea"
    text = (
        "Filipe Luis signed for Chelsea from Atletico Madrid. He has struggled to make the side at Chelsea."
    )
    changes = _changes_of(_every_minor(text, 30), "Chelsea")
    assert changes and all(c["type"] == "org" and c["to"] in lexicon.FICTIONAL_TOWNS for c in changes), (
        changes
    )


def test_entities_replace_a_holiday_by_a_fictional_holiday() -> None:
    # review: "Christmas" -> "Temolnars", "Christmas Eve" -> "Christmas Rodu"
    outs = _every_minor("On Christmas, Amy got exactly what she wanted.", 20)
    changes = _changes_of(outs, "Christmas")
    assert changes and all(c["to"] in lexicon.FICTIONAL_HOLIDAYS for c in changes), changes
    eve = _changes_of(_every_minor("Gift giving was pushed onto Christmas Eve by then.", 6), "Christmas Eve")
    assert eve and all(
        c["to"].endswith(" Eve") and c["to"].split()[0] in lexicon.FICTIONAL_HOLIDAYS for c in eve
    )


def test_entities_replace_a_binomial_whole_with_its_short_form() -> None:
    # review: "p. nigromaculata" -> "p. pidraselkrare", "sinorhizobium" of "sinorhizobium meliloti" alone
    text = "infection with mycobacterium bovis is common . m. bovis causes tb in cattle ."
    pubmed = BENCHMARK["sumpubmed"].perturbation("word_fictional_ne_minor")
    for seed in range(12):
        out = _perturbed(fictional_entities(text, Severity.MINOR, random.Random(seed)))
        assert validate(pubmed, text, out.text).ok, out.text
        (change,) = out.settings["changes"]
        new = change["to"]
        assert change["from"] == "mycobacterium bovis" and lexicon.is_binomial(new), change
        assert f"{new[0]}. {new.split()[1]}" in out.text and "bovis" not in out.text and new[0] != "m", (
            out.text
        )


def test_entities_change_a_surname_with_the_full_name() -> None:
    # review: "Ian Guffick ... banned Guffick" -> "... banned Gaiplal" (the real and a fictional name)
    text = "Ian Guffick, 31, allowed pupils to cheat. The panel banned Guffick from teaching for two years."
    outs = _every_minor(text, 20)
    for out in outs:
        full = [c for c in out.settings["changes"] if c["from"] == "Ian Guffick"]
        assert "Guffick" not in {c["from"] for c in out.settings["changes"]}  # never alone
        if full:
            assert "Guffick" not in out.text and out.text.count(full[0]["to"].split()[-1]) == 2, out.text
    assert any(c["from"] == "Ian Guffick" for out in outs for c in out.settings["changes"])


@pytest.mark.parametrize(
    ("text", "name", "check"),
    [
        # review: "Los Angeles County Fire Department" -> "Wexley Angeles County Fire Department"
        (
            "The Los Angeles County Fire Department is investigating a fire.",
            "Los Angeles County Fire Department",
            r"[A-Z][a-z]+ County Fire Department",
        ),
        # review: "Greg Dyke" -> "Grer Dyke", "Elon Musk" -> "Tior Musk": a person, whole
        ("Greg Dyke wants to increase the number of home players.", "Greg Dyke", r"[A-Z][a-z]+ [A-Z][a-z]+"),
        # review: "Pep Guardiola" -> "Pep Strand" ("Pep" is an ordinary word, yet no title)
        (
            "Bayern Munich boss Pep Guardiola ripped a hole in his trousers.",
            "Pep Guardiola",
            r"[A-Z][a-z]+ [A-Z][a-z]+",
        ),
        # review: "South Los Angeles" -> "South Los Brenmoria"; "10th-minute" -> "55bo-thiosi"
        (
            "It happened at a station in South Los Angeles on Monday.",
            "South Los Angeles",
            r"South [A-Z][a-z]+",
        ),
        ("Ross Barkley had earlier missed a 10th-minute penalty.", "10th-minute", r"\d+(st|nd|rd|th)-minute"),
    ],
)
def test_entities_review3_whole_names_of_their_kind(text: str, name: str, check: str) -> None:
    # a name is replaced first (offline-rules/17): major rows, two or three changes, reach the other kinds too
    major = [fictional_entities(text, Severity.MAJOR, random.Random(seed)) for seed in range(30)]
    changes = _changes_of(_every_minor(text, 30) + [o for o in major if isinstance(o, Perturbed)], name)
    assert changes, name
    for c in changes:
        assert re.fullmatch(check, c["to"]), c
        assert not set(c["to"].split()) & set(name.split()) - {"County", "Fire", "Department", "South"}, c


def test_a_nationality_before_a_name_stays_whole() -> None:
    # review: "New Zealander Tim Weston" -> "New Zanthe Strand"; offline-rules/17 replaces the name first, and a
    # nationality right before a replaced name stays (one changed span), so none is half replaced
    text = "It swam in Mexico. New Zealander Tim Weston was on holiday there."
    major = [fictional_entities(text, Severity.MAJOR, random.Random(seed)) for seed in range(30)]
    outs = _every_minor(text, 30) + [o for o in major if isinstance(o, Perturbed)]
    assert _changes_of(outs, "Tim Weston") and not _changes_of(outs, "New Zealander")
    assert all("New Zealander" in o.text or re.search(r"\b[A-Z][a-z]+ian [A-Z]", o.text) for o in outs)


def test_entities_give_a_surname_for_a_surname_and_the_pronouns_gender() -> None:
    # review: "The person, Phillips, was found ... his death" -> "The person, Bryony, ..."
    text = "He fell to his death from a cliff. The person, Phillips, was found at the base."
    for c in _changes_of(_every_minor(text, 20), "Phillips"):
        assert c["to"] in lexicon_last_names(), c
    female = lexicon.first_name_pool("female")
    for c in _changes_of(_every_minor("Kelly cleaned up in time and she was happy.", 12), "Kelly"):
        assert c["to"] in female, c


def test_a_name_of_no_known_gender_beside_another_person_gets_a_name_of_either_gender() -> None:
    # a held-out read (seed 3131): "Demelza Poldark" -> "Gerald Larkspur" ("his" is Ross Poldark's)
    text = "Demelza Poldark is now the proud mother. Ross Poldark gazes lovingly at his new baby daughter."
    either = lexicon.first_name_pool("either")
    assert len(either) >= 40 and not set(either) & {
        *lexicon.first_name_pool("male"),
        *lexicon.first_name_pool("female"),
    }
    changes = _changes_of(_every_minor(text, 30), "Demelza Poldark")
    assert changes and all(c["to"].split()[0] in either for c in changes), changes


def test_a_held_out_read_kinds_of_seed_8317() -> None:
    # a phone number keeps its length ("18912251735" -> "9668828252" before); "Bosnia and Herzegovina" is one
    # country ("Othland and Herzegovina" before); "Wikipedia" is no place by its "-ia" ("Galdavia" before)
    text = "Our phone number is 18912251735; we look forward to meeting you again."
    for c in _changes_of(_every_minor(text, 8), "18912251735"):
        assert len(c["to"]) == 11 and c["to"][0] == "1", c
    text = "Kvesic, president of Bosnia and Herzegovina Olympic Committee, said Bosnia was looking forward."
    assert "Bosnia" not in replaceable_entities(text)
    assert lexicon.classify_name("Wikipedia") is not lexicon.EntityType.PLACE


def test_first_names_come_from_a_large_pool() -> None:
    # issue 19: Story Cloze drew one name in 7 rows from a pool of twenty
    pools = [lexicon.first_name_pool(g) for g in ("male", "female")]
    assert all(len(pool) >= 150 for pool in pools) and not set(pools[0]) & set(pools[1])
    assert all(
        lexicon.first_name_gender(n) == g
        for g, pool in zip(("male", "female"), pools, strict=True)
        for n in pool
    )
    names = {c["to"] for c in _changes_of(_every_minor("Amy went to the fair. She loved it.", 40), "Amy")}
    assert len(names) >= 25, names


def test_entities_keep_an_ordinary_word_after_of_in_a_title() -> None:
    # "A Decade of Hits" -> "A Decade of Ellerburg" (a fictional place for an ordinary word)
    text = "Keeps Gettin' Better: A Decade of Hits by Christina Aguilera was sold."
    for out in _every_minor(text, 20):
        assert "Decade of Hits" in out.text or "of Hits" in out.text, out.text


def test_a_scale_word_is_no_entity_and_no_term_is_replaced_by_its_own_suffix() -> None:
    # offline-rules/8: "thousands" -> "millions", "one hundred years" -> "one dozen years" (read in a
    # wmt22-zh-en row); a scale states an order of magnitude, no value to make fictional
    for text in (
        "Dozens of trending topics are on the list.",
        "In the past one hundred years, thousands came.",
    ):
        assert not {"Dozens", "hundred", "thousands"} & set(replaceable_entities(text)), text
    # SumPubMed: "phages" -> "grephages" once; "bacteriophages" names a kind of thing, no entity now
    text = "specific bacteriophages have been proposed as an alternative ."
    assert isinstance(fictional_entities(text, Severity.MINOR, random.Random(0)), NotApplicable)


def test_entities_replace_every_name_word_of_an_organisation() -> None:
    # WMT zh-en: "Zhi Yun Restaurant" -> "Jessup Yun Restaurant"
    text = "Thank you for choosing Zhi Yun Restaurant, and we are deeply sorry."
    changes = _changes_of(_every_minor(text, 12), "Zhi Yun Restaurant")
    assert changes and all(re.fullmatch(r"[A-Z][a-z]+ Restaurant", c["to"]) for c in changes), changes


@pytest.mark.parametrize(
    ("text", "kind", "at"),
    [
        ("here, we study msc plasticity on the level of cells.", "article", "we"),  # lemminflect: "we" a noun
        ("Carragher stated this while receiving a lifetime award.", "determiner", "this"),  # a pronoun "this"
    ],
)
def test_grammar_catalogue_skips_pronouns(text: str, kind: str, at: str) -> None:
    """Seen in the build: "here, an we study" and "stated these while" (grammatical: "these" is a pronoun)."""
    from dhp.builder.perturb.offline.grammar import grammar_edits

    i = text.index(at)
    assert not [e for e in grammar_edits(text) if e.kind == kind and e.start <= i <= e.end], grammar_edits(
        text
    )


def test_entities_replace_a_lowercased_country_by_a_fictional_one() -> None:
    text = "samples from new zealand were analysed . in vivo assays used <dig> mice ."
    pubmed = BENCHMARK["sumpubmed"].perturbation("word_fictional_ne_minor")
    places = {p.lower() for p in lexicon.FICTIONAL_PLACES}
    for seed in range(8):
        out = _perturbed(fictional_entities(text, Severity.MINOR, random.Random(seed)))
        assert validate(pubmed, text, out.text).ok, out.text
        (change,) = out.settings["changes"]
        assert change["from"] == "new zealand" and change["to"] in places, change  # never "vivo" of "in vivo"


@pytest.mark.parametrize("decade", ["70s", "'90s", "1970s"])
def test_a_decade_becomes_another_decade(decade: str) -> None:
    """Seen in the build: "in the 70s" -> "in the 85s" (digits of the same shape are no decade)."""
    from dhp.builder.perturb.offline.entities import _number

    for seed in range(20):
        out = _number(decade, random.Random(seed))
        assert out != decade and re.fullmatch(r"['’]?(?:19)?[1-9]0s", out), out


def test_entities_keep_numbers_plausible_and_leave_numbering_alone() -> None:
    # read in the offline-rules/5 build: "57 November", "68-year-old girl", "1 international airlines", "6) Are you"
    for text, old in [
        ("The replay was on 20 November 2015 at the stadium.", "20"),
        ("He watched the 15-year-old girl at the park.", "15-year-old"),
        ("Five said it. 5 international airlines fly there.", "5"),
    ]:
        for c in _changes_of(_every_minor(text, 20), old):
            assert c["to"] not in {"0", "1"} and not lexicon.implausible_number(
                c["to"], text[text.index(old) + len(old) :]
            )
    assert replaceable_entities("1) What do you do? 2) Are you happy?") == []


def test_an_enumerating_ordinal_is_no_entity() -> None:
    # read in a SumPubMed row: "first, ... second, ... third, an allele" became "ninth, an allele"
    text = "This is hard for four reasons. First, errors matter. Third, an allele may be missed in the third pool."
    for seed in range(12):
        out = fictional_entities(text, Severity.MAJOR, random.Random(seed))
        if isinstance(out, Perturbed):
            assert "Third, an allele" in out.text, out.text
            assert "four reasons" not in out.text or "the third pool" not in out.text, out.text


def test_a_numbered_item_keeps_its_number() -> None:
    # read in a wmt22-de-en row: the list item "1. The heroes ..." became "8. The heroes ..."
    text = "Two endings are possible. 1. The heroes fall and are healed by 3 monks. 2. They win."
    for seed in range(12):
        out = fictional_entities(text, Severity.MINOR, random.Random(seed))
        if isinstance(out, Perturbed):
            assert "possible. 1. The heroes" in out.text and " 2. They" in out.text, out.text


def test_a_year_never_moves_into_the_future() -> None:
    # read in a wmt22-zh-en row: "when he visited China during the Beijing 2008 Summer Olympics" -> "2035" (since
    # offline-rules/16 a year beside the Olympics stays: the rule is tested on a year beside no event)
    text = (
        "When he visited in the summer of 2008, the work left a deep impression."  # no name, replaced first
    )
    years: set[int] = set()
    for seed in range(30):
        out = fictional_entities(text, Severity.MINOR, random.Random(seed))
        if isinstance(out, Perturbed):
            years.update(int(y) for y in re.findall(r"\b\d{4}\b", out.text))
    assert years and max(years) <= 2022 and years != {2008}, years


def test_an_organisation_named_after_two_places_is_left_whole() -> None:
    # read in a wmt22-zh-en row: "Bosnia and Herzegovina Olympic Committee" -> "Bosnia and Wexley Committee"
    text = "Kvesic, president of Bosnia and Herzegovina Olympic Committee, said that the Red Cross helped."
    assert "Herzegovina Olympic Committee" not in entity_candidates(text)
    assert "Red Cross" in entity_candidates(text)


def test_a_season_is_left_whole() -> None:
    # read in an answer-equivalence row: "from 1991–92" -> "from 1979–92"
    text = "Replays were played three days later, but from 1991–92 they were staged 10 days later."
    assert {"1991", "92"}.isdisjoint(entity_candidates(text)) and "three" in entity_candidates(text)


def test_a_capitalised_name_is_no_verb_to_make_a_gerund() -> None:
    # read in a SummEval row: "Manchester United striker" -> "Manchester Uniting striker"
    text = "River Plate dream of Manchester United striker Falcao. Kevin bought a house."
    gerunds = {text[e.start : e.end]: e.new for e in grammar_edits(text) if e.kind == "nonfinite"}
    assert "United" not in gerunds and gerunds.get("bought") == "buying", gerunds


def test_a_number_in_a_name_is_left_and_a_scale_moves_one_step() -> None:
    # read in wmt22-de-en rows: "his first Formula 1 title" -> "Formula 9", "Thousands of people" -> "Billions"
    text = (
        "Verstappen dashed to his first Formula 1 title after 3 laps. Thousands of people crossed the border."
    )
    assert "1" not in entity_candidates(text) and "3" in entity_candidates(text)
    scales: set[str] = set()
    for seed in range(30):
        out = fictional_entities(text, Severity.MAJOR, random.Random(seed))
        if isinstance(out, Perturbed):
            assert "Formula 1 title" in out.text, out.text
            scales.update(re.findall(r"(\w+) of people", out.text))
    assert scales and scales <= {"Thousands", "Hundreds", "Millions"}, scales


def test_a_score_stays_a_plausible_score() -> None:
    # read in a wmt22-de-en row: a handball score "3-10 after 20 minutes" became "8-82"
    text = "The game was over early with 3-10 after 20 minutes."
    seen: set[tuple[int, int]] = set()
    for seed in range(30):
        out = fictional_entities(text, Severity.MINOR, random.Random(seed))
        if isinstance(out, Perturbed) and (m := re.search(r"(\d+)-(\d+)", out.text)):
            seen.add((int(m.group(1)), int(m.group(2))))
    changed = seen - {(3, 10)}  # a minor row may change "20" instead
    assert changed and all(a <= 6 and b <= 20 for a, b in changed), seen


# the hand read of the offline-rules/5 build: five rows rejected, none of them made again


def test_a_prefixed_general_word_is_left() -> None:
    # read in a SumPubMed row: "a multigene supermatrix" -> "a duldilene supermatrix"
    text = "here we use a multigene supermatrix to study imatinib genes ."
    assert "multigene" not in entity_candidates(text) and "imatinib" in entity_candidates(text)
    for seed in range(10):
        out = fictional_entities(text, Severity.MINOR, random.Random(seed))
        assert isinstance(out, Perturbed) and "a multigene supermatrix" in out.text, out


def test_a_range_stays_ordered() -> None:
    # read in an answer-equivalence row: "between 1958 and 1961" -> "between 1973 and 1961"
    text = "The United Arab Republic existed between 1958 and 1961, prices rose from 5 to 10 dollars."
    seen: set[tuple[int, int]] = set()
    for seed in range(30):
        out = fictional_entities(text, Severity.MAJOR, random.Random(seed))
        if isinstance(out, Perturbed):
            ranges = re.findall(r"(?:between|from) (\d+) (?:and|to) (\d+)", out.text)
            assert len(ranges) == 2 and all(int(a) < int(b) for a, b in ranges), out.text
            seen.update((int(a), int(b)) for a, b in ranges)
    assert seen - {(1958, 1961), (5, 10)}, seen  # the ranges did change


def test_an_abbreviation_of_a_name_with_a_number_is_left() -> None:
    # read in a wmt22-de-en row: "the Version 2 (V2) update" -> "the Version 2 (F7) update"
    text = "The series got a new look with the Version 2 (V2) update in Berlin."
    assert {"V2", "2"}.isdisjoint(entity_candidates(text)) and "Berlin" in entity_candidates(text)
    for seed in range(10):
        out = fictional_entities(text, Severity.MINOR, random.Random(seed))
        assert isinstance(out, Perturbed) and "the Version 2 (V2) update" in out.text, out


def test_a_brand_named_like_a_person_is_no_person() -> None:
    # read in a wmt22-de-en row: "Max Verstappen of Red Bull" -> "Max Verstappen of Christopher Jessup"
    text = "It was a violation from Max Verstappen of Red Bull in the last phase of the race."
    assert entity_candidates(text)["Red Bull"][0].type is lexicon.EntityType.ORG
    for seed in range(10):
        out = fictional_entities(text, Severity.MINOR, random.Random(seed))
        assert isinstance(out, Perturbed) and validate(NE_MINOR, text, out.text).ok, out
        (change,) = out.settings["changes"]
        assert change["from"] != "Red Bull" or change["type"] == "org", change


def test_a_bracketed_gloss_is_left() -> None:
    # read in a wmt22-zh-en row: "[Cliff] means collective evacuation" -> "[Julian] means ..."
    text = "[Zigzag] refers to periodic heating in Beijing; [Cliff] means collective evacuation."
    assert {"Zigzag", "Cliff"}.isdisjoint(entity_candidates(text)) and "Beijing" in entity_candidates(text)
    for seed in range(10):
        out = fictional_entities(text, Severity.MINOR, random.Random(seed))
        assert isinstance(out, Perturbed) and "[Cliff] means" in out.text and "[Zigzag]" in out.text, out


def test_a_number_word_is_never_replaced_and_a_date_of_three_numbers_is_left() -> None:
    # read in the offline-rules/6 build: "2022-01-17" -> "1852-43-27"; number words, read in every build since:
    # "the two" -> "the twelve", "the two sides of the fault" -> "the thirty sides" (offline-rules/8), "three
    # standard methods" before the three it names (seeds 6481 and 7919), "lost two of your best clients" where
    # the text names the two (7919): counts the text fixes, 13 of the 29 labelled rows valid (offline-rules/18)
    text = (
        "It migrates between domain and instance, and back between the two. Guam was visited on 2022-01-17."
    )
    replaceable = replaceable_entities(text)
    assert {"two", "2022", "01", "17", "2022-01-17"}.isdisjoint(replaceable) and "Guam" in replaceable
    for text in (
        "It migrates between two systems in Guam.",
        "It came tenth in the race in Guam.",
        "Six-time Olympic gold medalist says he will run in Guam.",
        "You lost two of your best clients in Guam, and 24 of the chairs broke.",
    ):
        replaceable = replaceable_entities(text)
        assert "Guam" in replaceable and not any(
            w[:1].isalpha() and lexicon.word_value(w.split("-")[0]) for w in replaceable
        ), replaceable
    text = "You lost two of your best clients in Guam, and 24 of the chairs broke."
    outs = [fictional_entities(text, Severity.MAJOR, random.Random(seed)) for seed in range(10)]
    assert all(isinstance(o, Perturbed) and " two " in o.text and "24" not in o.text for o in outs), outs


# offline-rules/8, read: "Gemma, 23" -> "Claudia, 90"; "Ian Guffick, 31" -> "11" for a teacher; a set "4-6"
# -> "2-11"; "A four year old kid" -> "forty"; "between 10,000 and 6,000 BC" -> "59,299 and 9,303 BC"
@pytest.mark.parametrize(
    ("text", "old", "low", "high"),
    [
        ("Ian Guffick, 31, was a teacher at the school.", "31", 18, 62),
        ("Mr Lawler, now 68, claims he reported it.", "68", 18, 99),
        ("A 6 year old kid fired the toy gun.", "6", 2, 12),
        ("The 15-year-old girl won the race.", "15-year-old", 1, 17),
        ("He lost the first set 4-6 to the champion.", "4-6", 0, 7),
        ("Tools dating to between 10,000 and 6,000 BC were found.", "10,000", 5_000, 20_000),
        ("The fund held 0.4 percent of the shares.", "0.4 percent", 0.2, 0.8),
        ("Some 150 western gray whales are left.", "150", 75, 300),
    ],
)
def test_a_replaced_number_stays_a_plausible_value(text: str, old: str, low: float, high: float) -> None:
    made = set()
    # a person is replaced first (offline-rules/17): where the text names one, a major row reaches the number
    # (a number word, "A four year old kid" -> "forty" read in offline-rules/8, is never replaced: offline-rules/18)
    named = any(spans[0].type is lexicon.EntityType.PERSON for spans in entity_candidates(text).values())
    for seed in range(30):
        out = fictional_entities(text, Severity.MAJOR if named else Severity.MINOR, random.Random(seed))
        assert isinstance(out, Perturbed), out
        for change in out.settings["changes"]:
            if change["from"] != old:
                continue
            new = change["to"]
            values = [float(v.replace(",", "")) for v in re.findall(r"[\d,]*\d(?:\.\d+)?", new)]
            assert all(low <= v <= high for v in values), (text, new)
            assert re.sub(r"\d", "0", new).replace(",", "") != "" and ("," in new) == ("," in old), new
            made.add(new)
    assert len(made) >= 2, made  # seeded, not fixed


def test_the_validator_rejects_a_number_moved_by_a_factor_of_five() -> None:
    text = "Tools dating to between 10,000 and 6,000 BC were found in the cave."
    ok, bad = text.replace("10,000", "12,000"), text.replace("10,000", "59,299")
    assert validate(NE_MINOR, text, ok).ok
    verdict = validate(NE_MINOR, text, bad)
    assert not verdict.ok and "factor" in verdict.reason, verdict
    kid = "A four year old kid fired the toy gun."
    assert not validate(NE_MINOR, kid, kid.replace("four", "forty")).ok


# a second read of the offline-rules/6 build (seed 5): "il-4rα q576r" -> "do-0fk q576r", a short
# lower-case piece of a term made a real word
def test_a_short_lower_case_piece_of_a_term_becomes_no_word() -> None:
    from dhp.builder.perturb import lexicon
    from dhp.builder.perturb.offline.entities import _term

    for seed in range(40):
        new = _term("il-4rα", random.Random(seed))
        piece = new.split("-")[0]
        assert len(piece) == 2 and piece.islower() and not set(piece) & set("aeiouy"), (
            new
        )  # letters, never "do"
        assert not lexicon.lemmas(piece), new
    assert _term("IL-4", random.Random(0)).split("-")[0].isupper()  # capitals stay capitals


def test_a_nationality_in_an_organisation_becomes_a_fictional_one() -> None:
    # read in the offline-rules/9 build (wmt22-zh-en): "Chinese Foreign Ministry" -> "Strand Foreign Ministry"
    text = "According to the statement made by Chinese Foreign Ministry on Saturday, the report is wrong."
    changes = _changes_of(_every_minor(text, 12), "Chinese Foreign Ministry")
    assert changes, "the ministry was never replaced"
    for c in changes:
        assert c["to"].endswith(" Foreign Ministry") and c["to"].split()[0].endswith(("n", "ian")), c


def test_entities_leave_what_their_text_fixes() -> None:
    # issue 36 (the read of offline-rules/11): a count the text enumerates, a weekday beside a holiday, a word of a
    # multi-word technical term; and a surname in a list of surnames gets a surname, never a first name
    for text, fixed in (
        (
            "It was subtle in 2012 for at least three reasons. first, errors. second, reads. third, depth.",
            "three",
        ),
        (
            "Last week was Ascension Day. People had a day off before the weekend on Friday. Smith agreed.",
            "Friday",
        ),
        (
            "in 2010, rcc1 was shown to be the guanine nucleotide exchange factor for ran gtpase.",
            "guanine",
        ),
        ("In 2014 we sequenced two species: amorphophallus konjac and a. bulbifer.", "two species"),
        ("Jim was hurt in Boston and had to call 911.", "911"),
        ("Philip persecuted Protestants in Flanders.", "Protestants"),
    ):
        for out in _every_minor(text, 12):
            assert fixed in out.text, out.text
    names = _changes_of(
        _every_minor("Owen bitterly attacked Huxley, Hooker and Darwin in 1860.", 30), "Darwin"
    )
    assert names and all(lexicon.first_name_gender(c["to"]) is None for c in names), names


def test_fictional_places_come_from_a_large_pool_of_place_shaped_names() -> None:
    # issue 36: one invented place in 19 rows of a dataset; only place-shaped names type as places
    shaped = [p for p in lexicon.FICTIONAL_PLACES if lexicon.classify_name(p) is lexicon.EntityType.PLACE]
    assert len(shaped) >= 150 and not any(lexicon.is_known_place(p) for p in shaped)
    text = "He moved to Hokkaido last year."
    places = Counter(c["to"] for c in _changes_of(_every_minor(text, 40), "Hokkaido"))
    assert len(places) >= 25 and max(places.values()) <= 4, places


def test_entities_keep_ranks_standards_and_class_nouns_of_a_read() -> None:
    # issue 36, a read of offline-rules/12 (seed 8123): "fifth-placed" -> "fourth-placed" beside "currently fourth",
    # "Ethernet 10/100" -> "10/150", "the subtribe mycalesina" -> "krerella kailserum", "arbovirus" -> "basavirus"
    text = (
        "Manuel Pellegrini's team are currently fourth, only four points ahead of fifth-placed Southampton."
    )
    for out in _every_minor(text, 20):
        assert "fourth-placed" not in out.text, out.text
    for out in _every_minor("Files stream via Ethernet 10/100 to Control4 in 2015.", 12):
        assert "10/100" in out.text, out.text
    assert not lexicon.is_binomial("subtribe mycalesina") and lexicon.is_binomial("escherichia coli")
    assert not lexicon.is_domain_word("arbovirus") and not lexicon.is_domain_word("coronaviruses")


def test_grammar_leaves_the_verb_of_a_collective_noun() -> None:
    """ "Security was said to be ..." -> "Security were": British English, no error (a read of seed 5323)."""
    text = (
        "The parents bought a replacement toy. Security was said to be a little over zealous in the airport."
    )
    assert not [e for e in grammar_edits(text) if e.kind == "agreement" and text[e.start : e.end] == "was"]


def test_one_end_of_a_range_changes() -> None:
    """Seed 8317's read (offline-rules/14): "increased from 35 to 40" -> "from 22 to 58"; offline-rules/16 moves one
    end at most, and keeps the ratio of the ends within 1.5 (never "from 22 to 40")."""
    text = "The plan cuts 30,000 jobs, and weekly hours will be increased from 35 to 40 hours for 12 months."
    seen = 0
    for seed in range(20):
        out = fictional_entities(text, Severity.MAJOR, random.Random(seed))
        if isinstance(out, Perturbed):
            m = re.search(r"from (\d+) to (\d+) hours", out.text)
            assert m and (m[1] == "35" or m[2] == "40"), out.text
            assert max(int(m[2]) / int(m[1]), 40 / 35) < 1.5 * min(int(m[2]) / int(m[1]), 40 / 35), out.text
            seen += m[0] != "from 35 to 40 hours"
    assert seen, "no seed moved an end of the range"


def test_an_abbreviation_its_spelled_out_name_and_an_ordinal_of_a_name_are_left() -> None:
    # the held-out read of offline-rules/17 (seed 7919): "ppi" -> "tnl" beside "protein-protein interaction";
    # "mycobacterium avium" renamed while "map" stays; zh-en: "the 20th CPC National Congress" (an event's number)
    cases = [
        ("interactions from protein-protein interaction data in europe . the ppi networks are static .", "ppi"),
        ("disease caused by mycobacterium avium spp. paratuberculosis in europe . it prevents map infection .",
         "mycobacterium avium"),
        ("Delegates to the 20th CPC National Congress met in Beijing.", "20th"),
    ]  # fmt: skip
    for text, left in cases:
        replaceable = replaceable_entities(text)
        assert left not in replaceable and replaceable, (text, replaceable)
    # the read of offline-rules/18 at seed 2604: "pha", "igg", "pbmc", "epc" (a kind, or spelled out beside it);
    # offline-rules/19 leaves every lower-case abbreviation (the validator accepts "dlb" -> "zrs", as the reader did),
    # a gene or strain symbol with a digit still changes
    text = "dementia with lewy bodies ( dlb ) is common in c57bl mice in europe . we studied dlb and pbmc ."
    assert replaceable_entities(text) == ["c57bl", "europe"]


def test_a_place_in_capitals_or_beside_its_people_is_left() -> None:
    # the held-out read of offline-rules/19 (seed 3847): "EU" -> "Jorvland" while "European competence" stays,
    # "Germany" -> "Harrburg" beside "The German giants" (the validator lets both be, as earlier readers did)
    for text, left in [
        ("powers exclusively of European competence or shared between EU and Lyon are retained.", "EU"),
        ("The club from Germany lost 6-1 in Madrid. The German giants were beaten.", "Germany"),
        ("we sampled the west africa region and madagascar . african samples were rare .", "west africa"),
    ]:
        replaceable = replaceable_entities(text)
        assert left not in replaceable and replaceable, (text, replaceable)
    assert "Germany" in replaceable_entities(
        "The club from Germany lost 6-1 in Madrid. The giants were beaten."
    )


def test_a_month_the_text_names_in_another_date_stays() -> None:
    # the held-out read of offline-rules/19 (seed 3847): "from December 4 to December 17" -> "from April 4"
    text = "The meteor shower runs from December 4 to December 17 this year."
    days = set()
    for seed in range(12):
        out = _perturbed(fictional_entities(text, Severity.MINOR, random.Random(seed)))
        assert out.text.count("December") == 2, out.text
        days |= set(re.findall(r"December (\d+)", out.text))
    assert days - {"4", "17"}, days  # the days change instead
    months = set()
    for seed in range(12):
        out = _perturbed(
            fictional_entities("The shower peaks on December 14.", Severity.MINOR, random.Random(seed))
        )
        months |= {w for w in out.text.split() if w in {m.capitalize() for m in closed_class.MONTHS}}
    assert months - {"December"}, months  # alone, the month may change


def test_no_sacred_name_and_a_year_the_text_names_again_stays() -> None:
    # the held-out read of offline-rules/21 (seed 6917): "Bob" -> "Jesus"; "as of September 2019" -> "2013"
    # beside "the 20-year report (1999-2019)"
    assert not {"Jesus", "Muhammad", "Mohammed"} & {
        n for g in ("male", "female", "either") for n in lexicon.first_name_pool(g)
    }
    text = "The 20-year report (1999-2019) counts members as of September 2019 in the region."
    dates = []
    for seed in range(12):
        out = _perturbed(fictional_entities(text, Severity.MINOR, random.Random(seed)))
        dates += [c["to"] for c in out.settings["changes"] if c["from"] == "September 2019"]
    assert dates and all(d.endswith(" 2019") and d != "September 2019" for d in dates), dates


def test_an_event_of_ordinary_words_and_one_of_two_slashed_names_are_left() -> None:
    # the held-out read of offline-rules/23 (seed 8803): "Beijing 2008 Summer Olympics" -> "Molplu Olympics";
    # "ipf1/pdx <dig>" -> "czm0/pdx <dig>" (one gene's two names)
    text = "When he visited Lyon during the Summer Olympics, the work impressed him."
    assert replaceable_entities(text) == ["Lyon"]
    text = "the transcription factor ipf1/pdx <dig> acts in the pancreas of mice from europe ."
    assert "ipf1" not in replaceable_entities(text) and "europe" in replaceable_entities(text)


def test_a_name_before_a_role_is_no_place() -> None:
    # the held-out reads of seeds 5150 and 9433: "According to Buckley, CEO of" -> "According to Pelloria"
    text = "According to Buckley, CEO of the foundation, the biennale in Saudi Arabia will grow."
    assert "Buckley" not in replaceable_entities(text) and "Saudi Arabia" in replaceable_entities(text)
