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


#: (sentence, what the synonym and phrase tables must write, what they must not): one good and one
#: bad output per guard kind of data/synonyms.tsv and per phrase added for SummEval's summaries
LEXICAL = [
    ("Leicester are seven points adrift.", "7 points", "seven points"),  # a numeral before a counted noun
    ("A gang of three people robbed him and two others.", "of three", "3"),  # two numbers: words kept
    ("He was forced to quit Labor.", "compelled to quit", "forced"),  # "+to": only before "to"
    ("The save forced a corner.", "forced a corner", "compelled"),
    ("The suspects remain at large.", "at large", "at big"),  # no "large" -> "big" at all
    ("a diagnosis of primary large colon impaction.", "large colon", "big colon"),  # an anatomical term
    ("The media has found it difficult.", "found it", "discovered it"),  # not before "it"
    ("The chain has decided to expand.", "has opted to", "has chose"),  # a participle for a participle
    ("The camera may now be taken down.", "may now be", "currently"),  # "now" after a modal stays
    ("The team is now top of the league.", "is currently top", "is now"),
    ("The two are in a good place now however.", "place now", "currently"),  # ">is": only after "be"
    ("They are not weapons, but to benefit society.", "but to", "yet to"),  # "but" before "to" stays
    ("His remarks led to the ban.", "resulted in the ban", "led to"),
    ("He was led to believe it.", "was led to", "resulted"),
    ("Ozil posted to his social media.", "posted to", "published to"),
    ("They restarted their bout of banter.", "bout of", "fight of"),  # read in a SummEval row
    ("He won the bout on points.", "the fight", "bout"),
    ("in the past few years, many methods were proposed.", "in the past few", "previously"),  # SumPubMed row
    ("such methods were tried in the past.", "tried previously", "in the past"),
    ("this is a novel therapy.", "new therapy", "novel therapy"),  # "novel" the adjective
    ("she wrote a novel about the war.", "novel about", "new about"),  # "novel" the noun stays
    # read in SumPubMed rows: a technical term keeps its sense
    ("we investigate the role of wildlife.", "role of wildlife", "part of"),
    ("it plays a key role in growth.", "key part in", "key role"),
    ("the stress is measured by chi squared analysis.", "squared analysis", "examination"),
    ("<dig> colicin types were analysed.", "colicin types", "kinds"),
    ("two types of signal molecules.", "kinds of", "types of"),
    ("microarrays are increasingly being used.", "increasingly being", "more and more"),
    ("marmosets play an increasingly large part.", "increasingly large", "more and more"),
    ("the aim was to identify potential yeast derivatives.", "identify", "detect"),
    ("results depend on accurate data normalization.", "accurate", "precise"),
    ("erfs are involved in response to ethylene.", "in response to", "reaction"),
]


@pytest.mark.parametrize(("sentence", "good", "bad"), LEXICAL)
def test_lexical_tables_keep_grammar_and_sense(sentence: str, good: str, bad: str) -> None:
    from dhp.builder.perturb.offline.paraphrase import _lexical

    out = _lexical(sentence)
    assert good in out and bad not in out, out


@pytest.mark.parametrize(
    ("sentence", "want"),
    [
        (
            "Everton defeated Burnley 1-0 at Goodison Park on Saturday.",
            "Burnley lost 1-0 to Everton at Goodison Park",
        ),
        ("Napoli lost to Roma 1-0 in an Italian Cup match.", "Roma beat Napoli 1-0 in an Italian Cup match."),
        ("The Spaniard beat Murray in straight sets.", None),  # "The Spaniard" is no team's name
    ],
)
def test_a_result_is_told_from_the_other_side(sentence: str, want: str | None) -> None:
    from dhp.builder.perturb.offline.paraphrase import _Ctx, _result

    out = _result(sentence, _Ctx(False, frozenset()))
    assert (out is None) if want is None else (out is not None and out.startswith(want)), out


def test_a_number_in_digits_is_the_same_fact() -> None:
    source = "Leicester are currently seven points adrift at the bottom of the table."
    para = "Leicester are presently 7 points adrift at the foot of the table."
    assert paraphrase_verdict(source, para).ok, paraphrase_verdict(source, para).reason
    wrong = "Leicester are presently 8 points adrift at the foot of the table."
    assert "drops or alters 'seven'" in paraphrase_verdict(source, wrong).reason


def test_an_abstract_heading_is_no_subject() -> None:
    from dhp.builder.perturb.offline.paraphrase import _Ctx, _used_to

    ctx = _Ctx(True, frozenset())
    run_in = "methods homology-based cloning and race techniques were used to obtain the full-length cdna."
    assert (
        _used_to(run_in, ctx) is None
    )  # read in a SumPubMed row: "... was acquired with approaches homology-based"
    good = _used_to("quantitative real-time pcr is often used to analyse gene expression.", ctx)
    assert good == "gene expression is often analysed with quantitative real-time pcr."
