"""Issue 19: an inserted sentence is a paraphrase (reworded, not reordered), grammatical, no cleft template."""

from __future__ import annotations

import pytest

from dhp.builder.perturb.validate import paraphrase_verdict, word_type_jaccard

HULL = "Hull were beaten 2-0 by Southampton at St Mary's on Saturday."
BRUCE = "Steve Bruce adamant that Hull will avoid relegation from Premier League."
PASSPORT = (
    "The passport offices made huge profits last year, but despite that when a newspaper contacted 12 people "
    "it was reported that only one got money back."
)

#: (source, inserted sentence, words the reason must contain): every example quoted in issue 19
QUOTED = [
    (HULL, "On Saturday Hull were beaten 2-0 by Southampton at St Mary's", ("word types",)),
    (HULL, "On Saturday Hull were beaten 2-0 by Southampton at St Mary's.", ("word types",)),
    (
        BRUCE,
        "What Steve Bruce adamant that Hull will do is avoid relegation from Premier League.",
        ("cleft",),
    ),
    (
        PASSPORT,
        "Though the passport offices made enormous profits last year, in spite of that when a newspaper "
        "contacted 12 people it was reported that only one got money back.",
        ("two connectives",),
    ),
]


@pytest.mark.parametrize(("source", "para", "words"), QUOTED)
def test_quoted_issue_examples_are_rejected(source: str, para: str, words: tuple[str, ...]) -> None:
    verdict = paraphrase_verdict(source, para)
    assert not verdict.ok
    assert all(w in verdict.reason for w in words), verdict.reason


@pytest.mark.parametrize(
    ("source", "para"),
    [
        ("Tim found the perfect name for the dog.", "What Tim did was find the perfect name for the dog."),
        (
            "Chelsea have signed a new deal with the player.",
            "What Chelsea have done is sign a new deal with the player.",
        ),
    ],
)
def test_cleft_is_rejected(source: str, para: str) -> None:
    assert "cleft" in paraphrase_verdict(source, para).reason


def test_jaccard_is_over_lower_cased_word_types() -> None:
    assert word_type_jaccard("The cat sat.", "the CAT sat") == 1.0
    assert word_type_jaccard("They didn't go.", "They did not go.") == 1.0
    assert word_type_jaccard("a b c d", "a b e f") == pytest.approx(2 / 6)


def test_reworded_paraphrase_passes() -> None:
    source = "Southampton beat Hull 2-0 at St Mary's on Saturday, the manager said."
    para = "According to the manager, Hull lost 2-0 to Southampton at St Mary's on Saturday."
    assert word_type_jaccard(source, para) < 0.8
    assert paraphrase_verdict(source, para).ok, paraphrase_verdict(source, para).reason


def test_a_quotation_is_kept_verbatim() -> None:
    # read in an offline build: the synonym table reached inside a quotation
    source = "Man posted advertisement seeking 'girlfriend/wife' on Gumtree."
    para = "Man published advertisement seeking 'girlfriend/spouse' on Gumtree."
    assert "quotation" in paraphrase_verdict(source, para).reason
    kept = "A man published an advertisement on Gumtree that sought a 'girlfriend/wife'."
    assert "quotation" not in paraphrase_verdict(source, kept).reason


def test_a_reported_claim_leaves_no_adverb_behind() -> None:
    from dhp.builder.perturb.offline.paraphrase import _Ctx, paraphrase

    out = paraphrase("The girl also claims Rebbie watched her undress at night.", _Ctx(False, frozenset()))
    assert out is None or ("girl also," not in out and "girl additionally," not in out), out


@pytest.mark.parametrize(
    ("sentence", "bad"),
    [  # read in an offline build
        ("The Russian agency has stated that the manner of flight was to identify the craft.", "agency has,"),
        ("Post says the lucky girl would get a gym membership and a car.", "According to Post"),
        ("Police said the man was arrested on Monday after the match.", "According to Police"),
    ],
)
def test_reported_speech_cites_a_speaker(sentence: str, bad: str) -> None:
    from dhp.builder.perturb.offline.paraphrase import _Ctx, paraphrase

    out = paraphrase(sentence, _Ctx(False, frozenset()))
    assert out is None or bad not in out, out
