"""The one sentence splitter: pysbd, with its false breaks after abbreviations joined again."""

from __future__ import annotations

import pytest

from dhp.builder.textstats import compute_stats, split_sentences


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Hello world. How are you?  Fine.", ["Hello world.", "How are you?", "Fine."]),
        ("We met Dr. Smith. He was ok.", ["We met Dr. Smith.", "He was ok."]),
        ("", []),
        # SumPubMed: an abbreviated genus is no sentence end (pysbd splits "m." / "bovis causes ...")
        (
            "infection with m. bovis causes tb in cattle. we studied it.",
            ["infection with m. bovis causes tb in cattle.", "we studied it."],
        ),
        ("e. coli was grown. it died.", ["e. coli was grown.", "it died."]),
        (
            "we studied e. coli and b. subtilis. the results were clear.",
            ["we studied e. coli and b. subtilis.", "the results were clear."],
        ),
        # scholarly abbreviations before lower-case text, a number, the mask or a bracket
        (
            "we used approx. <dig> cells. results in fig. <dig> show it.",
            ["we used approx. <dig> cells.", "results in fig. <dig> show it."],
        ),
        ("data from smith et al. <dig> were used. ok", ["data from smith et al. <dig> were used.", "ok"]),
        (
            "some genes, i.e. the ones here, were found. others e.g. x were not.",
            ["some genes, i.e. the ones here, were found.", "others e.g. x were not."],
        ),
        ("see figs. <dig> and <dig>. ok", ["see figs. <dig> and <dig>.", "ok"]),
        ("it was approx. 5 cm. ok.", ["it was approx. 5 cm.", "ok."]),
        # a real sentence end after one letter: the next word is a frequent English word
        ("this needs vitamin b. the next test is hard.", ["this needs vitamin b.", "the next test is hard."]),
        # issue 19: pysbd breaks before a genus after a clause word, and around parts with no word in them
        (
            "it helps plants. although b. cepacia is an endophyte, it has not been deployed to control "
            "c. dematium infection. it failed.",
            [
                "it helps plants.",
                "although b. cepacia is an endophyte, it has not been deployed to control c. dematium infection.",
                "it failed.",
            ],
        ),
        (
            "writing, 'I thank the thieves for me.... This car is pimpin now!!!'",
            ["writing, 'I thank the thieves for me....", "This car is pimpin now!!!'"],
        ),
        (". Replays were played. They were late.", [". Replays were played.", "They were late."]),
    ],
)
def test_split_sentences(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


def test_sentences_are_substrings_in_order() -> None:
    text = "the m. bovis strain  grew. approx. <dig> cells died.\nwe  stopped."
    sents = split_sentences(text)
    assert sents == ["the m. bovis strain  grew.", "approx. <dig> cells died.", "we  stopped."]
    cursor = 0
    for s in sents:  # callers locate each sentence in the text: whitespace inside is kept as it was
        cursor = text.index(s, cursor) + len(s)


def test_stats_count_the_joined_sentences() -> None:
    stats = compute_stats(["e. coli was grown. it died.", "One. Two."])
    assert stats.n == 2 and stats.sentences == 2.0
