"""Parsers: a judge's output -> :class:`ParsedScore` or :class:`Unparsed` (with its reason). Pure.

Text (``paper`` and ``sample`` modes) is read by :func:`parse_score`, in order of evidence:

1. a labelled score: ``Score: 4``, ``Coherence - 4``, ``rating of 4``, ``I would rate it 4``;
2. a fraction on the metric's scale: ``4/5``, ``4 out of 5`` (another denominator is refused);
3. the whole answer is one number: ``4``, ``**4**``, ``4.5``;
4. a number that opens the answer: ``4 - well organised``, ``4\\n\\nThe summary...``;
5. exactly one distinct number anywhere (list markers such as ``1.`` at a line start are ignored).

Otherwise the output is :class:`Unparsed` with a stable reason code: ``empty``, ``refusal``,
``not-applicable``, ``out-of-range``, ``wrong-scale``, ``ambiguous`` or ``no-score``.

Log-probabilities (``expected`` mode, G-Eval) are read by :func:`expected_from_tokens`: the first
generated token that is a score digit marks the score position; the probabilities of the score
tokens among its top alternatives (``"4"``, ``" 4"``, ``"▁4"`` count as the same score) are
renormalised over the valid scores and averaged: ``Σ p(s)·s / Σ p(s)``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from dhp.inference.protocol import JudgeOutput, RawText, ScoreDistribution, TokenAlternatives, token_score
from dhp.scoring.judge_io import ParsedScore, Unparsed
from dhp.types import ScoringMode

__all__ = [
    "REASONS",
    "aggregate",
    "expected_from_distribution",
    "expected_from_tokens",
    "parse_score",
    "score_output",
]

#: Every reason code an :class:`Unparsed` value can carry.
REASONS = (
    "empty",
    "refusal",
    "not-applicable",
    "out-of-range",
    "wrong-scale",
    "ambiguous",
    "no-score",
    "no-score-token",
    "no-score-mass",
)

_NUM = r"(\d+(?:\.\d+)?)"
_MARKDOWN = re.compile(r"[*_`#>]+")
_REFUSAL = re.compile(
    r"\b(?:i\s+(?:cannot|can't|can not|am unable|won't|will not|am not able)|i'm\s+(?:unable|not able|sorry)"
    r"|as an ai\b|sorry\b|unable to (?:rate|evaluate|score|assess))",
    re.IGNORECASE,
)
_NA = re.compile(r"^\W*(?:n\s*/\s*a|na|none|null|not applicable|not available|unknown)\W*$", re.IGNORECASE)
_FRACTION = re.compile(_NUM + r"\s*(?:/|out\s+of|of)\s*(\d+)\b", re.IGNORECASE)
_LABELLED_WORDS = (
    r"score|rating|grade|evaluation|coherence|consistency|fluency|relevance|accuracy|answer\s+quality|quality"
)
_NOT_RANGE = r"(?!\s*(?:/|out\s+of|or|to|-|–)\s*\d)"
_VERB = re.compile(
    r"\b(?:rate|rated|give|gave|assign|assigned|award|awarded)\b(?:\s+[a-z]+){0,4}?\s+"
    + _NUM
    + r"\b"
    + _NOT_RANGE,
    re.IGNORECASE,
)
_RANGE = re.compile(r"^\W*" + _NUM + r"\s*(?:or|to|-|–|and)\s*" + _NUM, re.IGNORECASE)
_LIST_MARKER = re.compile(r"(?m)^\s*\d+[.)]\s+(?=\D)")


def _in_range(v: float, lo: int, hi: int) -> bool:
    return lo <= v <= hi


def _checked(v: float, lo: int, hi: int, raw: str, detail: str) -> ParsedScore | Unparsed:
    if not math.isfinite(v) or not _in_range(v, lo, hi):
        return Unparsed("out-of-range", raw)
    return ParsedScore(v, detail)


def parse_score(text: str, scale: tuple[int, int] = (1, 5), label: str = "") -> ParsedScore | Unparsed:
    """Read one score on ``scale`` from a judge's text answer (see the module docstring)."""
    s = _MARKDOWN.sub("", text).strip()
    found: ParsedScore | Unparsed | None = _nothing_to_read(s, text)
    if found is None:
        found = _labelled_or_fraction(s, scale, label, text)
    return _positional(s, scale, text) if found is None else found


def _nothing_to_read(s: str, raw: str) -> Unparsed | None:
    """An empty answer, ``N/A``, or one without any digit (a refusal or prose); None: read on."""
    if not s:
        return Unparsed("empty", raw)
    if _NA.match(s):
        return Unparsed("not-applicable", raw)
    if re.search(r"\d", s) is None:
        return Unparsed("refusal" if _REFUSAL.search(s) else "no-score", raw)
    return None


def _labelled_or_fraction(
    s: str, scale: tuple[int, int], label: str, raw: str
) -> ParsedScore | Unparsed | None:
    """Steps 1 and 2: a labelled score before any fraction, else a leading range (ambiguous), else a fraction."""
    lo, hi = scale
    # 1. a labelled score ("Score: 4", "Coherence - 4", "I would rate it 4")
    words = _LABELLED_WORDS + (f"|{re.escape(label.lower())}" if label else "")
    labelled = re.search(
        rf"\b(?:{words})\b\s*(?:is|of|:|=|-|–|—|as|at)?\s*(?:a\s+|an\s+)?" + _NUM + _NOT_RANGE,
        s,
        re.IGNORECASE,
    )
    if labelled is None:
        labelled = _VERB.search(s)
    frac = _FRACTION.search(s)
    if labelled is not None and (frac is None or labelled.start(1) < frac.start()):
        return _checked(float(labelled.group(1)), lo, hi, raw, "labelled")
    if _RANGE.match(s):
        return Unparsed("ambiguous", raw)
    # 2. a fraction on the scale ("4/5", "4 out of 5")
    if frac is None:
        return None
    if int(frac.group(2)) != hi:
        return Unparsed("wrong-scale", raw)
    return _checked(float(frac.group(1)), lo, hi, raw, "fraction")


def _positional(s: str, scale: tuple[int, int], raw: str) -> ParsedScore | Unparsed:
    """Steps 3 to 5: the whole answer, a leading number, or the one distinct number anywhere."""
    lo, hi = scale
    # 3. the whole answer is a number ("4", "4.", "4.5")
    whole = re.fullmatch(r"\W*" + _NUM + r"\W*", s)
    if whole is not None:
        return _checked(float(whole.group(1)), lo, hi, raw, "number")

    # 4. a number opening the answer, not a list marker ("4 - good", "4\n\nExplanation")
    lead = re.match(r"\s*" + _NUM + r"(?![.)]\s+\D)(?:\s*[-–—:,.]|\s*\n|\s+(?=\D))", s)
    if lead is not None:
        return _checked(float(lead.group(1)), lo, hi, raw, "leading")

    # 5. exactly one distinct number anywhere, list markers removed
    body = _LIST_MARKER.sub(" ", s)
    nums = {float(m) for m in re.findall(_NUM, body)}
    if not nums:
        return Unparsed("no-score", raw)
    if len(nums) > 1:
        return Unparsed("ambiguous", raw)
    return _checked(nums.pop(), lo, hi, raw, "single")


def expected_from_tokens(
    tokens: Sequence[TokenAlternatives], scale: tuple[int, int] = (1, 5), raw: str = ""
) -> ParsedScore | Unparsed:
    """G-Eval's probability-weighted score at the first generated score token."""
    for pos, tok in enumerate(tokens):
        if token_score(tok.token, scale) is None:
            continue
        mass: dict[int, float] = {}
        alternatives = tok.top if tok.top else ((tok.token, tok.logprob),)
        seen: set[str] = set()
        for text, lp in alternatives:
            if text in seen:  # some servers repeat the chosen token among the alternatives
                continue
            seen.add(text)
            v = token_score(text, scale)
            if v is not None and math.isfinite(lp):
                mass[v] = mass.get(v, 0.0) + math.exp(lp)
        total = sum(mass.values())
        if total <= 0.0:
            return Unparsed("no-score-mass", raw)
        value = sum(s * p for s, p in mass.items()) / total
        return ParsedScore(value, f"expected at token {pos} over {len(mass)} scores (mass {total:.3f})")
    return Unparsed("no-score-token", raw)


def expected_from_distribution(
    dist: ScoreDistribution, scale: tuple[int, int] = (1, 5)
) -> ParsedScore | Unparsed:
    """Σ p(s)·s / Σ p(s) over the values on the scale (a point mass gives its value)."""
    valid = [(s, p) for s, p in dist.probs if scale[0] <= s <= scale[1] and math.isfinite(p) and p > 0]
    total = sum(p for _, p in valid)
    if total <= 0.0:
        return Unparsed("no-score-mass", repr(dist.probs[:5]))
    return ParsedScore(sum(s * p for s, p in valid) / total, f"distribution (mass {total:.3f})")


def score_output(
    out: JudgeOutput, mode: ScoringMode, scale: tuple[int, int] = (1, 5), label: str = ""
) -> ParsedScore | Unparsed:
    """One output -> one score, by the scoring mode. ``expected`` requires token log-probabilities.

    Raises ``ValueError`` if ``expected`` mode gets text without log-probabilities: that is an
    endpoint capability problem, detected by the caller before scoring, never a parse failure.
    """
    if isinstance(out, ScoreDistribution):
        return expected_from_distribution(out, scale)
    if mode is ScoringMode.EXPECTED:
        if out.tokens is None:
            raise ValueError("expected mode needs token log-probabilities; the output has none")
        return expected_from_tokens(out.tokens, scale, raw=out.text)
    return parse_score(out.text, scale, label)


def aggregate(scores: Sequence[ParsedScore | Unparsed]) -> ParsedScore | Unparsed:
    """Repeats of one (text, metric) -> their mean over parsed outputs; none parsed -> first reason."""
    parsed = [s.value for s in scores if isinstance(s, ParsedScore)]
    if parsed:
        return ParsedScore(sum(parsed) / len(parsed), f"mean of {len(parsed)}/{len(scores)}")
    for s in scores:
        if isinstance(s, Unparsed):
            return s
    return Unparsed("empty", "")


def is_text(out: JudgeOutput) -> bool:
    return isinstance(out, RawText)
