"""English closed-class words: the one table the lexicon, the grammar checks and the offline generators share.

The words are data (``data/closed_class.json``: modals, auxiliaries, pronouns and their cases,
determiners, prepositions, subordinators, discourse markers, months, weekdays, number words), read once here and
exposed as frozen sets; :func:`data_table` reads every table of ``data/`` for the package. Every
word is lower case.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

__all__ = [
    "ARTICLES",
    "BE",
    "COLLECTIVE_NOUNS",
    "CONTRACTIONS",
    "CORE_DET",
    "DETERMINERS",
    "DISCOURSE_MARKERS",
    "DO",
    "HAVE",
    "MODALS",
    "MONTHS",
    "MONTHS_IN_ORDER",
    "MONTH_ABBR",
    "NUMBER_WORDS",
    "NUMERALS",
    "ORDINAL_WORDS",
    "PL_DET",
    "PL_PRON",
    "PREPOSITIONS",
    "PRONOUN_CASE",
    "SG_DET",
    "SG_PRON",
    "SUBJECT_TO_OBJECT",
    "SUBORDINATORS",
    "WEEKDAYS",
    "data_table",
    "word_set",
]


def data_table(name: str) -> str:
    """The text of ``data/<name>``, a table packaged with :mod:`dhp.builder.perturb`."""
    return resources.files("dhp.builder.perturb").joinpath("data", name).read_text("utf-8")


_TABLE: dict[str, Any] = json.loads(data_table("closed_class.json"))


def _words(key: str) -> tuple[str, ...]:
    return tuple(_TABLE[key].split())


def word_set(key: str) -> frozenset[str]:
    """The words of table ``key`` (the lists the checks and generators keep: "takes_infinitive", ...)."""
    return frozenset(_words(key))


#: contractions and their full forms ("didn't" -> "did not"); "it's"/"he's" are left out ("is" or "has")
CONTRACTIONS: dict[str, str] = dict(_TABLE["contractions"])
MODALS = frozenset(_words("modals"))
DO = frozenset(_words("do"))
HAVE = frozenset(_words("have"))
BE = frozenset(_words("be"))
#: third-person singular subject pronouns (take a verb in -s)
SG_PRON = frozenset(_words("sg_pron"))
#: the other subject pronouns (take the bare verb)
PL_PRON = frozenset(_words("pl_pron"))
#: personal pronoun -> (person and number, the cases it can have: subj / obj / poss)
PRONOUN_CASE: dict[str, tuple[str, str]] = {w: tuple(v) for w, v in _TABLE["pronoun_case"].items()}
#: subject pronoun -> its object form
SUBJECT_TO_OBJECT: dict[str, str] = dict(_TABLE["subject_to_object"])
ARTICLES = frozenset(_words("articles"))
#: nouns of a group of people that British English gives either number ("Security were said to be ...")
COLLECTIVE_NOUNS = frozenset(_words("collective_nouns"))
#: articles, demonstratives and possessives: the words that open a definite or indefinite noun phrase
CORE_DET = frozenset(_words("core_det"))
#: every determiner the generators and checks treat as closed-class: the core ones and the quantifiers
DETERMINERS = CORE_DET | frozenset(_words("quantifiers"))
SG_DET = frozenset(_words("sg_det"))
PL_DET = frozenset(_words("pl_det"))
SUBORDINATORS = frozenset(_words("subordinators"))
PREPOSITIONS = frozenset(_words("prepositions"))
MONTHS_IN_ORDER = _words("months_in_order")
MONTHS = frozenset(MONTHS_IN_ORDER)
MONTH_ABBR = frozenset(_words("month_abbr"))
WEEKDAYS = frozenset(_words("weekdays"))
NUMBER_WORDS = frozenset(_words("number_words"))
#: the small number words and their digits ("seven points" and "7 points" state the same number)
NUMERALS = {w: str(n) for n, w in enumerate(_words("numerals"), start=2)}
#: discourse markers that announce a restatement ("in other words", "i.e."); a copy behind one is still a copy
DISCOURSE_MARKERS: tuple[str, ...] = tuple(_TABLE["discourse_markers"])
#: ordinal number words; "first" and "second" are left out (mostly "at first", "a second")
ORDINAL_WORDS = frozenset(_words("ordinal_words"))
