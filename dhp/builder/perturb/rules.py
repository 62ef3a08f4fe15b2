"""Rule-based perturbations (SPEC §3, method R). Each takes a private seeded RNG and never returns
the original text: it returns a different text or :class:`NotApplicable` with the reason.
"""

from __future__ import annotations

import itertools
import random
import re
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from dhp.builder.perturb.base import NotApplicable, Outcome, Perturbed, squash
from dhp.builder.textstats import split_sentences

__all__ = [
    "TYPO_METHODS",
    "char_deletion",
    "char_typo",
    "other_item",
    "sentence_reorder",
    "word_deletion",
    "wrong_ending",
]

RULE = "rule"
#: `typo.StrErrer` methods used for random typos (all of the package's string error kinds).
TYPO_METHODS: tuple[str, ...] = tuple(
    "char_swap missing_char extra_char nearby_char similar_char skipped_space random_space repeated_char unichar".split()
)
_MAX_TRIES = 50
_typo_lock = threading.Lock()


def char_deletion(text: str, k: int, rng: random.Random) -> Outcome:
    """Delete ``k`` distinct random alphanumeric characters."""
    positions = [i for i, c in enumerate(text) if c.isalnum()]
    if len(positions) <= k:
        return NotApplicable(
            f"only {len(positions)} alphanumeric characters; cannot delete k={k} and keep text"
        )
    drop = set(rng.sample(positions, k))
    return Perturbed("".join(c for i, c in enumerate(text) if i not in drop), RULE, {"k": k})


@contextmanager
def _typo_random(rng: random.Random) -> Iterator[None]:
    """Route the `typo` package's module-level ``random`` to ``rng`` (it otherwise uses the global RNG)."""
    import typo.Errer as errer
    from typo.keyboardlayouts import en_default

    with _typo_lock:
        saved = (errer.random, en_default.random)
        errer.random = rng  # type: ignore[assignment]
        en_default.random = rng  # type: ignore[assignment]
        try:
            yield
        finally:
            errer.random, en_default.random = saved


def char_typo(text: str, k: int, rng: random.Random) -> Outcome:
    """Apply ``k`` random typos with the `typo` package, each one changing the text.

    Each typo is a random :data:`TYPO_METHODS` call on `typo.StrErrer`; a call that happens to leave
    the text unchanged (e.g. swapping two equal letters) is retried with another draw.
    """
    from typo import StrErrer

    if not any(c.isalnum() for c in text):
        return NotApplicable("no word characters to put typos in")
    with _typo_random(rng):
        errer = StrErrer(text, seed=rng.getrandbits(32))
        applied: list[str] = []
        for _ in range(k):
            for _attempt in range(_MAX_TRIES):
                before = errer.result
                method = rng.choice(TYPO_METHODS)
                getattr(errer, method)()
                if squash(errer.result) != squash(before):  # a typo that only moves whitespace is none
                    applied.append(method)
                    break
            else:
                return NotApplicable(f"typo package could not change the text after {_MAX_TRIES} draws")
    out: str = errer.result
    if squash(out) == squash(text):
        return NotApplicable("typos cancelled each other out")
    return Perturbed(out, RULE, {"k": k, "typos": applied})


def word_deletion(text: str, k: int, rng: random.Random) -> Outcome:
    """Delete ``k`` consecutive words (whitespace tokens) at a random position."""
    words = list(re.finditer(r"\S+", text))
    if len(words) <= k:
        return NotApplicable(f"only {len(words)} words; cannot delete k={k} consecutive words and keep text")
    start = rng.randrange(len(words) - k + 1)
    a = words[start].start()
    b = words[start + k].start() if start + k < len(words) else len(text)
    if start + k == len(words):  # deleting the tail: also drop the whitespace before it
        a = words[start - 1].end()
    return Perturbed(text[:a] + text[b:], RULE, {"k": k, "start_word": start})


def _single_swaps(sents: Sequence[str]) -> set[str]:
    """Every text that swapping exactly two sentences of ``sents`` can give (what minor severity makes)."""
    out: set[str] = set()
    for i, j in itertools.combinations(range(len(sents)), 2):
        swapped = list(sents)
        swapped[i], swapped[j] = swapped[j], swapped[i]
        out.add(" ".join(swapped))
    return out


def sentence_reorder(text: str, k: int | None, rng: random.Random) -> Outcome:
    """Shuffle ``k`` random sentences among their positions (``k=None``: all sentences).

    The shuffle is redrawn until the text changes and splits back into the same sentences (pysbd may join
    two sentences after reordering, e.g. one ending in "A & E."); texts with fewer than two (distinct)
    sentences are not applicable. A full shuffle (``k=None``, major severity) is also redrawn until it is
    not a swap of two sentences, so it can never equal a ``k=2`` (minor) row of the same item; where every
    reordering is such a swap (two sentences) it is not applicable.
    """
    sents = split_sentences(text)
    n = len(sents)
    need = n if k is None else k
    if n < 2 or need > n:
        return NotApplicable(f"{n} sentence(s); reordering needs at least {max(2, need)}")
    if len(set(sents)) < 2:
        return NotApplicable("all sentences are identical")
    original = " ".join(sents)
    avoid = {original} | (_single_swaps(sents) if k is None else set())
    if k is None and n == 2:
        return NotApplicable(
            "2 sentences: shuffling all sentences can only swap the two, which is what the minor "
            "severity (swap two sentences) does"
        )
    for _ in range(_MAX_TRIES):
        idx = sorted(rng.sample(range(n), need))
        perm = idx[:]
        while perm == idx:
            rng.shuffle(perm)
        out = sents[:]
        for src, dst in zip(idx, perm, strict=True):
            out[dst] = sents[src]
        joined = " ".join(out)
        if joined not in avoid and split_sentences(joined) == out:  # the splitter reads the same sentences
            return Perturbed(joined, RULE, {"k": "all" if k is None else k, "sentences": n})
    if k is None:
        return NotApplicable(
            f"no shuffle of all {n} sentences found in {_MAX_TRIES} draws that is more than a swap of two "
            "(the minor severity's change) and that the sentence splitter reads back as the same sentences "
            "(e.g. a last sentence without a final stop cannot move)"
        )
    return NotApplicable(f"no reordering of {need} sentence(s) changes the text")


def other_item(item_id: str, text: str, pool: Sequence[tuple[str, str]], rng: random.Random) -> Outcome:
    """Replace the text by the judged text of another random item of the dataset (``pool``: id, text)."""
    others = [(i, t) for i, t in pool if i != item_id and t.strip() != text.strip()]
    if not others:
        return NotApplicable("no other item with a different text")
    oid, otext = others[rng.randrange(len(others))]
    return Perturbed(otext, RULE, {"from_item": oid})


def wrong_ending(text: str, wrong: str | None) -> Outcome:
    """Replace the text by the dataset's own wrong alternative (Story Cloze's wrong ending)."""
    if not wrong or not wrong.strip():
        return NotApplicable("the source has no wrong alternative for this item")
    if wrong.strip() == text.strip():
        return NotApplicable("the wrong alternative equals the right one")
    return Perturbed(wrong.strip(), RULE, {})
