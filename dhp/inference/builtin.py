"""Built-in control judges that need no endpoint. Their D values are predictable.

* ``random`` — a uniform score on the metric's scale, independent of the text: a negative
  control. Every per-metric p-value is uniform on [0, 1], so D^EW > 1 for about 5% of the
  perturbations (the paper's *unweighted* combination ``1/Σ 1/p_j`` is anti-conservative: with
  M = 4 metrics about a third of the perturbations reach D > 1 by chance).
* ``oracle`` — knows which text is perturbed: originals get the top score, perturbed texts one
  point less (two for major severity). Every paired difference is positive and tied, so for N pairs
  the Wilcoxon z is exactly √N: ``p = Φ̄(√N)`` per metric, D^EW = log_0.05 Φ̄(√N) (4.2 for N = 20,
  17.7 for N = 100) and the unweighted D = log_0.05(Φ̄(√N)/M).
* ``lexical`` — a cheap bag-of-words heuristic: penalises malformed words (no vowel, five
  consonants in a row, a letter tripled, a capital inside a word) and, when the context is
  written in Latin script, words of the text that the context never uses. It sees neither word
  order nor meaning, so it discerns character-level damage and is blind to sentence reordering
  (identical bags of words: D = 0 exactly).

Every random choice uses a ``random.Random`` seeded from (seed, dataset, item, metric, text role,
repeat), so scores do not depend on request order or concurrency.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping

from dhp.inference.protocol import JudgeOutput, ScoreDistribution, ScoringRequest
from dhp.types import CONTROL_JUDGES, ControlJudge, Role, Severity

__all__ = ["BUILTIN_JUDGES", "LexicalJudge", "OracleJudge", "RandomJudge", "lexical_score", "make_builtin"]

BUILTIN_JUDGES = CONTROL_JUDGES


class RandomJudge:
    """Uniform scores on the metric's scale: a negative control."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.label = "random"

    async def __call__(self, request: ScoringRequest) -> JudgeOutput:
        rng = random.Random(
            f"{self.seed}|{request.dataset}|{request.item_id}|{request.metric}|{request.role}|{request.repeat}"
        )
        lo, hi = request.scale
        return ScoreDistribution.point(rng.uniform(lo, hi))

    async def aclose(self) -> None:
        return None


class OracleJudge:
    """Knows which text is perturbed: a positive control."""

    def __init__(self) -> None:
        self.label = "oracle"

    async def __call__(self, request: ScoringRequest) -> JudgeOutput:
        _, hi = request.scale
        if request.role == Role.ORIGINAL.value:
            return ScoreDistribution.point(hi)
        return ScoreDistribution.point(hi - (2.0 if request.severity == Severity.MAJOR.value else 1.0))

    async def aclose(self) -> None:
        return None


_LETTERS = re.compile(r"[^\W\d_]+")
_ASCII_WORD = re.compile(r"^[A-Za-z]+$")
_CONSONANT_RUN = re.compile(r"[bcdfghjklmnpqrstvwxz]{5,}")
_TRIPLE = re.compile(r"(.)\1\1")
_INNER_CAPITAL = re.compile(r"[a-z][A-Z]")
#: metric -> (weight of malformed-word rate, weight of novel-word rate)
_WEIGHTS: Mapping[str, tuple[float, float]] = {
    "fluency": (3.0, 0.5),
    "coherence": (2.0, 0.5),
}
_DEFAULT_WEIGHTS = (1.0, 1.5)  # consistency, relevance, accuracy, answer_quality, custom metrics


def _malformed(word: str) -> bool:
    if not _ASCII_WORD.match(word) or word.isupper():
        return False  # other scripts and acronyms are not judged
    low = word.lower()
    return (
        not any(v in low for v in "aeiouy")
        or _CONSONANT_RUN.search(low) is not None
        or _TRIPLE.search(low) is not None
        or _INNER_CAPITAL.search(word) is not None
    )


def lexical_score(text: str, context: str, metric: str, scale: tuple[int, int] = (1, 5)) -> float:
    """The lexical judge's score: order-invariant in the words of ``text``."""
    lo, hi = scale
    words = [w for w in _LETTERS.findall(text) if len(w) >= 2]
    malformed = sum(_malformed(w) for w in words) / len(words) if words else 1.0
    ctx_words = [w.lower() for w in _LETTERS.findall(context)]
    novel = 0.0
    if sum(1 for w in ctx_words if _ASCII_WORD.match(w)) >= 20:  # context in Latin script
        vocab = set(ctx_words)
        long_words = [w.lower() for w in words if len(w) >= 3]
        novel = sum(w not in vocab for w in long_words) / len(long_words) if long_words else 1.0
    a, b = _WEIGHTS.get(metric, _DEFAULT_WEIGHTS)
    penalty = min(1.0, a * malformed + b * novel)
    return hi - (hi - lo) * penalty


class LexicalJudge:
    """A cheap lexical heuristic (see the module docstring)."""

    def __init__(self) -> None:
        self.label = "lexical"

    async def __call__(self, request: ScoringRequest) -> JudgeOutput:
        context = " ".join(v for v in request.context.values() if v)
        return ScoreDistribution.point(lexical_score(request.text, context, request.metric, request.scale))

    async def aclose(self) -> None:
        return None


def make_builtin(name: str, seed: int = 0) -> RandomJudge | OracleJudge | LexicalJudge:
    if name == ControlJudge.RANDOM.value:
        return RandomJudge(seed)
    if name == ControlJudge.ORACLE.value:
        return OracleJudge()
    if name == ControlJudge.LEXICAL.value:
        return LexicalJudge()
    raise ValueError(f"unknown built-in judge {name!r}; valid: {', '.join(BUILTIN_JUDGES)}")
