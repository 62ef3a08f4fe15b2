"""English closed-class words: the one table the lexicon, the grammar checks and the offline generators share.

Closed classes (modals, auxiliaries, pronouns, determiners, prepositions, subordinators, months,
weekdays, number words) do not grow with the data, so they are code here rather than data files;
open-class lists (names, places, synonyms) live in ``data/``. Every set is lower case.
"""

from __future__ import annotations

__all__ = [
    "ARTICLES",
    "BE",
    "CORE_DET",
    "DETERMINERS",
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
]

# -- verbs ---------------------------------------------------------------------------------------
MODALS = frozenset("can could will would shall should may might must".split())
DO = frozenset("do does did".split())
HAVE = frozenset("have has had having".split())
BE = frozenset("be am is are was were been being".split())

# -- pronouns ------------------------------------------------------------------------------------
#: third-person singular subject pronouns (take a verb in -s)
SG_PRON = frozenset("he she it".split())
#: the other subject pronouns (take the bare verb)
PL_PRON = frozenset("i you we they".split())
#: personal pronoun -> (person and number, the cases it can have: subj / obj / poss)
PRONOUN_CASE: dict[str, tuple[str, str]] = {
    "i": ("1sg", "subj"),
    "me": ("1sg", "obj"),
    "my": ("1sg", "poss"),
    "we": ("1pl", "subj"),
    "us": ("1pl", "obj"),
    "our": ("1pl", "poss"),
    "he": ("3sg", "subj"),
    "him": ("3sg", "obj"),
    "his": ("3sg", "poss"),
    "she": ("3sg", "subj"),
    "her": ("3sg", "obj poss"),
    "its": ("3sg", "poss"),
    "it": ("3sg", "subj obj"),
    "they": ("3pl", "subj"),
    "them": ("3pl", "obj"),
    "their": ("3pl", "poss"),
}
#: subject pronoun -> its object form
SUBJECT_TO_OBJECT: dict[str, str] = {
    "he": "him",
    "she": "her",
    "they": "them",
    "we": "us",
    "i": "me",
    "it": "it",
    "you": "you",
}

# -- determiners ---------------------------------------------------------------------------------
ARTICLES = frozenset({"a", "an", "the"})
#: articles, demonstratives and possessives: the words that open a definite or indefinite noun phrase
CORE_DET = frozenset("the a an this that these those his her its their my our your".split())
#: every determiner the generators and checks treat as closed-class: the core ones and the quantifiers
DETERMINERS = CORE_DET | frozenset("some any no each every another".split())
SG_DET = frozenset("a an one this that each every another".split())
PL_DET = frozenset("these those many several both few two three four five six seven eight nine ten".split())

# -- connectives ---------------------------------------------------------------------------------
SUBORDINATORS = frozenset(
    "because although though which who whom whose while whereas since if unless after before as "
    "when where until so that".split()
)
PREPOSITIONS = frozenset(
    "about above across after against along among around at before behind below beneath beside "
    "between beyond by despite down during except for from in inside into like near of off on onto "
    "out outside over past since through throughout to toward towards under until up upon with "
    "within without".split()
)

# -- time and numbers ----------------------------------------------------------------------------
MONTHS_IN_ORDER: tuple[str, ...] = tuple(
    "january february march april may june july august september october november december".split()
)
MONTHS = frozenset(MONTHS_IN_ORDER)
MONTH_ABBR = frozenset("jan feb mar apr jun jul aug sep sept oct nov dec".split())
WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
NUMBER_WORDS = frozenset(
    "two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred "
    "thousand million billion trillion dozen dozens hundreds thousands millions billions".split()
)
#: the small number words and their digits ("seven points" and "7 points" state the same number)
NUMERALS = {w: str(n) for n, w in enumerate("two three four five six seven eight nine ten".split(), start=2)}
#: ordinal number words; "first" and "second" are left out (mostly "at first", "a second")
ORDINAL_WORDS = frozenset(
    "third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth twentieth thirtieth fiftieth hundredth".split()
)
