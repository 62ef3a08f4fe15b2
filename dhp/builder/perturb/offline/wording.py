"""Lexical rewrites for paraphrases: a curated synonym table, multi-word phrase swaps, contractions.

Every entry keeps the meaning in the contexts it can match: a word-sense that could change
("major" in "major histocompatibility", "new" in "new zealand") is left out of the tables, and a
phrase swap whose grammar depends on its context carries a guard (a number after "more than",
no "be" before "due to"). Only lower-case text outside names is rewritten; "a"/"an" are fixed
after a swap.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from dhp.builder.perturb import closed_class
from dhp.builder.perturb.closed_class import data_table
from dhp.builder.perturb.grammar_check import CONTRACTIONS
from dhp.builder.perturb.offline.edits import WORD, compiled

__all__ = ["contractions", "phrases", "synonyms"]

_TABLE = Path(__file__).resolve().parent.parent / "data" / "synonyms.tsv"


@dataclass(frozen=True)
class _Guard:
    """Where a table swap may not be made: before or after certain words, or only before some."""

    not_before: frozenset[str] = frozenset()
    not_after: frozenset[str] = frozenset()
    only_before: frozenset[str] = frozenset()  # "#" stands for a number
    only_after: frozenset[str] = frozenset()
    before_word: bool = False  # a lower-case word must follow ("seven points", not "two 1-0 wins")

    def allows(self, prev: str, nxt: str, rest: str) -> bool:
        """The swap fits between the previous word ``prev`` and the next word ``nxt`` (lower case);
        ``rest`` is the text after the word."""
        if (
            nxt in self.not_before
            or prev in self.not_after
            or (self.before_word and not re.match(r" [a-z]", rest))
        ):
            return False
        if self.only_after and prev not in self.only_after:
            return False
        if not self.only_before:
            return True
        number = "#" in self.only_before and bool(re.match(r"\s+\d", rest))
        return number or nxt in self.only_before


@functools.lru_cache(maxsize=1)
def _table() -> dict[str, tuple[str, _Guard]]:
    """The curated synonym table (data/synonyms.tsv): word -> (synonym, where the swap is barred).

    The third column lists guard words, comma-separated: a bare word bars the swap before it
    ("because of" -> "since of"), ``<word`` bars it after that word ("at large"), ``+word`` allows it
    only before one of the ``+`` words ("forced to"; ``+#``: before a number), ``>word`` only after one
    of the ``>`` words ("is now" -> "is currently", not "a good place currently")."""
    table: dict[str, tuple[str, _Guard]] = {}
    for line in _TABLE.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        word, new, *rest = line.split("\t")
        marks = [g for g in (rest[0].split(",") if rest else []) if g]
        table[word] = (
            new,
            _Guard(
                frozenset(g for g in marks if g[0] not in "<+>"),
                frozenset(g[1:] for g in marks if g[0] == "<"),
                frozenset(g[1:] for g in marks if g[0] == "+"),
                frozenset(g[1:] for g in marks if g[0] == ">"),
            ),
        )
    for word, digits in closed_class.NUMERALS.items():
        table[word] = (digits, _NUMERAL_GUARD)
    return table


#: a number word is written in digits only where a count of things follows ("seven points"), not in
#: "one or two", "two of the", "the two sides" (after a determiner the word reads as part of the phrase)
_NUMERAL_GUARD = _Guard(
    frozenset("of or and to more other hundred thousand million billion dozen".split()),
    frozenset(
        "the these those all both his her their its our my your first last next every one or to and between".split()
    ),
    before_word=True,
)

#: multi-word phrase (regex) -> its rewrite (``data/phrases.tsv``), and last the role rule below; applied in
#: one pass, so no swap undoes another
_PHRASES: tuple[tuple[str, str | None], ...] = (
    *(
        (pattern, rewrite)
        for pattern, rewrite in (line.split("\t") for line in data_table("phrases.tsv").splitlines())
        if not pattern.startswith("#")
    ),
    ("(plays?) an? (important|key|crucial|critical|major|central|vital) role in", None),
)


def _role(m: re.Match[str]) -> str:
    return (
        f"{'are' if m.group(1) == 'play' else 'is'} {m.group(2)} in"  # "plays a key role in" -> "is key in"
    )


_CALLBACKS = {len(_PHRASES) - 1: _role}


@functools.lru_cache(maxsize=1)
def _phrase_pattern() -> tuple[re.Pattern[str], tuple[re.Pattern[str], ...]]:
    parts = tuple(re.compile(rf"\b{old}\b", re.I) for old, _ in _PHRASES)
    return re.compile("|".join(f"(?P<p{i}>{p.pattern})" for i, p in enumerate(parts)), re.I), parts


def phrases(s: str) -> tuple[str, int]:
    """``s`` with the phrase table applied in one pass (a rewrite is never rewritten), and the count."""
    combined, parts = _phrase_pattern()
    n = 0

    def swap(m: re.Match[str]) -> str:
        nonlocal n
        i = int(next(k for k, v in m.groupdict().items() if v is not None)[1:])
        old = m.group(0)
        sub = parts[i].match(s, m.start())
        if sub is None or sub.end() != m.end():
            return old
        n += 1
        new = _CALLBACKS[i](sub) if i in _CALLBACKS else sub.expand(str(_PHRASES[i][1]))
        return new[:1].upper() + new[1:] if old[:1].isupper() else new

    return combined.sub(swap, s), n


_CONTRACTION = re.compile(r"\b([A-Za-z]+)(['’])(t|m|re|ve|ll|s)\b")


def contractions(s: str) -> tuple[str, int]:
    """Contractions written out ("didn't" -> "did not"); "it's" only where it is "it is"."""
    n = 0

    def expand(m: re.Match[str]) -> str:
        nonlocal n
        word = m.group(0).replace("’", "'")
        full = CONTRACTIONS.get(word.lower())
        if full is None:
            return m.group(0)
        n += 1
        if word[:1].isupper() and not full.startswith("I "):
            return full[:1].upper() + full[1:]
        return full

    return _CONTRACTION.sub(expand, s), n


def _inside_name(toks: list[re.Match[str]], i: int) -> bool:
    """The word is capitalised mid-sentence, starts a name ("Big Ben") or sits inside one ("Bank of England")."""
    word = toks[i].group(0)
    after = i + 1 < len(toks) and toks[i + 1].group(0)[:1].isupper()
    if word[:1].isupper():
        return bool(i) or after
    return i > 1 and toks[i - 1].group(0)[:1].isupper() and after


def _opener(word: str) -> bool:
    """A capitalised sentence opener the table may swap: an adverb or connective, never a word that
    may be a name ("Rich, 31, says ..." keeps "Rich")."""
    return word.lower().endswith("ly") or word.lower() in _CONNECTIVES


_CONNECTIVES = frozenset(
    "however therefore thus moreover furthermore although because despite perhaps maybe often afterwards".split()
)


def synonyms(s: str) -> tuple[str, int]:
    """``s`` with every table word outside a name swapped for its synonym; a/an fixed; the count."""
    out: list[str] = []
    n = last = 0
    toks = list(WORD.finditer(s))
    one_number = sum(t.group(0).lower() in closed_class.NUMERALS for t in toks) == 1
    for i, m in enumerate(toks):
        w = m.group(0)
        if i == 0 and not _opener(w):
            continue  # "methods homology-based cloning ...": a heading or a name may open the sentence
        if w.lower() in closed_class.NUMERALS and not one_number:
            continue  # "3 people ... two passengers": digits for all the numbers or for none
        entry = _table().get(w.lower() if i == 0 else w)
        nxt = toks[i + 1].group(0).lower() if i + 1 < len(toks) else ""
        prev = toks[i - 1].group(0).lower() if i else ""
        if entry is None or _inside_name(toks, i) or not entry[1].allows(prev, nxt, s[m.end() :]):
            continue
        new = entry[0]
        before = _fix_article(s[last : m.start()], new)
        out.append(before + (new[:1].upper() + new[1:] if w[:1].isupper() else new))
        last = m.end()
        n += 1
    out.append(s[last:])
    return "".join(out), n


def _fix_article(before: str, word: str) -> str:
    """``before`` with a final "a "/"an " made to fit ``word`` (only the article before a swapped word:
    "pheophorbide a oxygenase" is a name)."""
    return compiled(r"\b([Aa])n? $").sub(lambda a: _article(a.group(1), word[:1]), before)


def _article(a: str, following: str) -> str:
    """The article "a"/"an" (case of ``a`` kept) for a word starting with ``following``."""
    word = "an " if following.lower() in "aeio" else "a "
    return a + word[1:]
