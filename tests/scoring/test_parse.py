"""The parsers against a corpus of realistic judge outputs."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dhp.inference.protocol import RawText, ScoreDistribution, TokenAlternatives, token_score
from dhp.scoring.judge_io import ParsedScore, Unparsed
from dhp.scoring.parse import (
    REASONS,
    aggregate,
    expected_from_distribution,
    expected_from_tokens,
    parse_score,
    score_output,
)
from dhp.types import ScoringMode

PARSED = [
    ("4", 4.0),
    ("Score: 4", 4.0),
    ("4/5", 4.0),
    ("**4**", 4.0),
    ("I would rate it 4 out of 5", 4.0),
    ("4.5", 4.5),
    ("4.", 4.0),
    (" 3\n", 3.0),
    ("Coherence: 3", 3.0),
    ("- Coherence: 2", 2.0),
    ("Evaluation Score: 5\n\nThe summary is well organised.", 5.0),
    ("4 - mostly coherent, with a small jump.", 4.0),
    ("4\n\nThe summary flows well.", 4.0),
    ("1. Read the summary\n2. Identify the topic\n3. Rating: 4", 4.0),
    ("Rating: 4/5", 4.0),
    ("Rating: 3 out of 5", 3.0),
    ("The summary deserves a 4.", 4.0),
    ("I would give it a 3.", 3.0),
    ("Overall, I rate this summary as a 2 because it has 3 errors.", 2.0),
    ("Score: 4.0", 4.0),
    ("**Score: 4**", 4.0),
    ("Score - 3 (neutral)", 3.0),
    ("5/5", 5.0),
    ("1", 1.0),
    ("`2`", 2.0),
    ("Fluency: **5**", 5.0),
]

UNPARSED = [
    ("", "empty"),
    ("   \n", "empty"),
    ("**", "empty"),
    ("N/A", "not-applicable"),
    ("n/a.", "not-applicable"),
    ("None", "not-applicable"),
    ("I cannot evaluate this text.", "refusal"),
    ("I'm sorry, but I can't help with that.", "refusal"),
    ("As an AI language model, I do not give ratings.", "refusal"),
    ("7", "out-of-range"),
    ("0", "out-of-range"),
    ("Score: 6", "out-of-range"),
    ("0/5", "out-of-range"),
    ("8/10", "wrong-scale"),
    ("3 or 4", "ambiguous"),
    ("3-4", "ambiguous"),
    ("Score: 3-4", "ambiguous"),
    ("The summary mentions 2 people and 3 places.", "ambiguous"),
    ("The summary is good.", "no-score"),
    ("qwe asd zxc", "no-score"),
]


@pytest.mark.parametrize(("text", "value"), PARSED)
def test_parses_realistic_outputs(text: str, value: float) -> None:
    got = parse_score(text, (1, 5), label="Coherence")
    assert isinstance(got, ParsedScore), (text, got)
    assert got.value == value


@pytest.mark.parametrize(("text", "reason"), UNPARSED)
def test_refuses_with_a_reason(text: str, reason: str) -> None:
    got = parse_score(text, (1, 5), label="Coherence")
    assert isinstance(got, Unparsed), (text, got)
    assert got.reason == reason
    assert got.reason in REASONS
    assert got.raw == text


@given(st.text(max_size=200))
def test_parse_never_raises_and_stays_in_range(text: str) -> None:
    got = parse_score(text)
    if isinstance(got, ParsedScore):
        assert 1.0 <= got.value <= 5.0
    else:
        assert got.reason in REASONS


@given(st.integers(1, 5))
def test_every_bare_score_parses(v: int) -> None:
    assert parse_score(str(v)) == ParsedScore(float(v), "number")


def test_token_score_variants() -> None:
    assert token_score("4") == 4
    assert token_score(" 4") == 4
    assert token_score("▁4") == 4
    assert token_score("Ġ4") == 4
    assert token_score("6") is None
    assert token_score("45") is None
    assert token_score("four") is None


def _tok(token: str, top: dict[str, float]) -> TokenAlternatives:
    return TokenAlternatives(
        token, math.log(top.get(token, 1e-9)), tuple((t, math.log(p)) for t, p in top.items())
    )


def test_expected_score_is_renormalised_over_valid_tokens() -> None:
    # G-Eval: p over the score tokens, renormalised: (0.5*4 + 0.2*3 + 0.1*5) / 0.8; "The" is ignored.
    tokens = (_tok("4", {"4": 0.5, "3": 0.2, " 5": 0.1, "The": 0.2}),)
    got = expected_from_tokens(tokens)
    assert isinstance(got, ParsedScore)
    assert got.value == pytest.approx((0.5 * 4 + 0.2 * 3 + 0.1 * 5) / 0.8)


def test_expected_score_merges_token_variants_and_skips_preamble() -> None:
    tokens = (
        _tok("Score", {"Score": 0.9, "4": 0.1}),
        _tok(":", {":": 1.0}),
        _tok(" 2", {" 2": 0.6, "2": 0.2, " 3": 0.2}),
    )
    got = expected_from_tokens(tokens)
    assert isinstance(got, ParsedScore)
    assert got.value == pytest.approx((0.8 * 2 + 0.2 * 3) / 1.0)
    assert "token 2" in got.detail


def test_expected_score_without_score_token_is_unparsed() -> None:
    got = expected_from_tokens((_tok("Good", {"Good": 0.7, "Bad": 0.3}),), raw="Good")
    assert got == Unparsed("no-score-token", "Good")


def test_distribution_scores() -> None:
    assert expected_from_distribution(ScoreDistribution.point(3.7)) == ParsedScore(
        3.7, "distribution (mass 1.000)"
    )
    d = ScoreDistribution(((1.0, 0.25), (5.0, 0.25), (9.0, 0.5)))
    got = expected_from_distribution(d)
    assert isinstance(got, ParsedScore) and got.value == pytest.approx(3.0)
    assert isinstance(expected_from_distribution(ScoreDistribution(((9.0, 1.0),))), Unparsed)


def test_score_output_by_mode() -> None:
    text = RawText("Score: 2", tokens=None)
    assert score_output(text, ScoringMode.PAPER) == ParsedScore(2.0, "labelled")
    with pytest.raises(ValueError, match="log-probabilities"):
        score_output(text, ScoringMode.EXPECTED)


def test_aggregate_repeats() -> None:
    got = aggregate([ParsedScore(4.0), Unparsed("empty"), ParsedScore(2.0)])
    assert isinstance(got, ParsedScore) and got.value == 3.0
    assert aggregate([Unparsed("refusal", "no"), Unparsed("empty")]) == Unparsed("refusal", "no")
