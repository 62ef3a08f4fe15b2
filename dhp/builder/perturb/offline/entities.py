"""Fictional entities: typed spans from :func:`dhp.builder.perturb.lexicon.find_entities`, each replaced by
a seeded fictional value of the same type.

* person -> fictional person (two words for a full name, one for a first or last name);
* place -> fictional place, keeping a place keyword ("Hokkaido Island" -> "Valdoria Island");
* organisation -> fictional organisation of the same kind, keeping its keyword
  ("Brown University" -> "Halvorsen University"; an acronym -> another acronym);
* number -> a different number of the same shape ("52-30" -> "47-18", "29th" -> "61st", "two" -> "five");
* date -> another date (month, weekday, year, decade);
* technical term -> a fictional term of the same shape ("map1lc3a" -> "qev7trz4o", "apoptosis" ->
  "zorvatosis").

Spans never cross a sentence end, the ``<dig>`` mask is never an entity, and every replacement is
checked with the lexicon to have the original's type and not to occur in the original text. Every
chosen entity changes at all its occurrences, alike (the validator counts it once), and an article
before it keeps agreeing ("an organism" never becomes "an mugolism").
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from dhp.builder.perturb import closed_class, lexicon
from dhp.builder.perturb.base import NotApplicable, Outcome, Perturbed
from dhp.builder.perturb.lexicon import EntityType, Span
from dhp.builder.perturb.offline.edits import Edit, apply_edits, change_count
from dhp.types import Severity

_LISTS = lexicon.WORD_LISTS

__all__ = ["entity_candidates", "fictional_entities", "plurals", "replaceable_entities", "short_forms"]

_LAST = list(_LISTS["_LAST"])
_PLACES = list(lexicon.FICTIONAL_PLACES)
_MONTHS = [m.capitalize() for m in sorted(closed_class.MONTHS)]
_WEEKDAYS = [d.capitalize() for d in sorted(closed_class.WEEKDAYS)]
_TRIES = 30
#: replaced first where a text has them (offline-rules/17): 88-100% valid in the reads; numbers, dates, terms 65-71%
_NAMES = frozenset({EntityType.PERSON, EntityType.ORG, EntityType.PLACE, EntityType.HOLIDAY, EntityType.URL})


def _same_shape_digits(s: str, rng: random.Random) -> str:
    """Each digit replaced, a leading digit stays non-zero ("7,000" -> "3,418", never "0,203"); letters and
    separators kept. For the digits of a term ("il-6"), not for a quantity (:func:`_near_number`)."""
    out = []
    for i, c in enumerate(s):
        if c.isdigit():
            lead = i == 0 or not (s[i - 1].isdigit() or (s[i - 1] in ",." and i > 1 and s[i - 2].isdigit()))
            more = re.match(r"[\d,.]*\d", s[i + 1 :]) is not None
            out.append(str(rng.randint(1 if lead and more else 0, 9)))
        else:
            out.append(c)
    return "".join(out)


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


#: a replaced quantity stays within this factor of its value ("12 people" -> 6 to 24, never 82)
_FACTOR = 2.0


def _near(value: int, rng: random.Random, low: int = 0, high: int = 10**15, factor: float = _FACTOR) -> int:
    """Another whole value within ``factor`` of ``value`` (0 and 1 may become 2 or 3) and in
    [``low``, ``high``]; ``value`` itself where there is none."""
    lo, hi = max(low, int(-(-value // factor))), min(high, max(3, int(value * factor)))
    choices = [n for n in range(lo, hi + 1) if n != value] if hi - lo < 5000 else []
    if not choices and hi > lo:
        while (n := rng.randint(lo, hi)) == value:
            pass
        return n
    return rng.choice(choices) if choices else value


def _near_number(digits: str, rng: random.Random, low: int = 0, high: int = 10**15) -> str:
    """A quantity of the same format near its value: its decimals and thousands commas kept, a round number
    stays round ("10,000" -> "7,000", never "59,299"; "0.4" -> "0.7"; "12" -> "9")."""
    whole, _, frac = digits.replace(",", "").partition(".")
    units = int(whole + frac)
    zeros = 0 if frac else len(whole) - len(whole.rstrip("0"))
    zeros = max(0, min(zeros, len(whole) - 2))  # two significant digits left to move ("10,000": 10 thousands)
    scale = 10**zeros
    new = _near(units // scale, rng, -(-low // scale), high // scale) * scale
    text = str(new).rjust(len(frac) + 1, "0")
    text = f"{text[: len(text) - len(frac)]}.{text[len(text) - len(frac) :]}" if frac else text
    return f"{int(text):,}" if "," in digits and not frac else text


def _age(span: str, rng: random.Random) -> str:
    """A person's age near it, a child's a child's and an adult's an adult's ("31" -> "27", never "11")."""
    m = re.match(r"\d+", span)
    if m is None:
        return span
    age = int(m.group())
    low, high = (18, 99) if age >= 18 else (1, 17)
    return str(_near(age, rng, low, high, factor=1.3)) + span[m.end() :]


def _number(span: str, rng: random.Random) -> str:
    # a decade ("the 70s", "1970s") stays one, near
    if m := re.fullmatch(r"(['’]?(?:1[0-9]|20)?)(\d)0s", span):
        d = int(m.group(2))
        return f"{m.group(1)}{rng.choice([x for x in range(max(1, d - 2), min(9, d + 2) + 1) if x != d])}0s"
    if m := re.fullmatch(r"(\d+)(st|nd|rd|th)(-[a-z-]+)?", span, re.I):  # "29th" -> "41st", "10th-minute"
        return _ordinal(_near(int(m.group(1)), rng, low=1)) + (m.group(3) or "")
    if m := re.fullmatch(r"(\d{1,3})([-–])(\d{1,3})", span):  # a score: each side moves at most two
        a, b = int(m.group(1)), int(m.group(3))
        top = 7 if max(a, b) <= 7 else 999  # a tennis set or a small score stays one ("4-6" never "2-11")
        while (
            new := (rng.randint(max(0, a - 2), min(top, a + 2)), rng.randint(max(0, b - 2), min(top, b + 2)))
        ) == (a, b):
            pass
        return f"{new[0]}{m.group(2)}{new[1]}"
    if re.fullmatch(r"\d{7,}", span):  # a telephone or ID number keeps its length and first digit
        return span[0] + _same_shape_digits(span[1:], rng)
    return re.sub(r"\d+(?:,\d{3})*(?:\.\d+)?", lambda d: _near_number(d.group(), rng), span, count=1)


#: no source text is newer than WMT22's test data: a later year could be a future event told in the past tense
_LATEST_YEAR = 2022


def _date(span: str, rng: random.Random, text: str = "") -> str:
    """Another date of the same shape; a month the text names in another date stays ("from December 4 to
    December 17" never "from April 4": the read of offline-rules/19; "March 19 ... March 24" at 9157)."""

    def one(word: str) -> str:
        low = word.lower().strip(",.")
        if low in closed_class.MONTHS:
            return word.replace(word.strip(",."), rng.choice([m for m in _MONTHS if m.lower() != low]))
        if low in closed_class.WEEKDAYS:
            return word.replace(word.strip(",."), rng.choice([d for d in _WEEKDAYS if d.lower() != low]))
        if m := re.fullmatch(r"(1[0-9]|20)(\d)0s", low):
            d = int(m.group(2))
            return (
                f"{m.group(1)}{rng.choice([x for x in range(max(0, d - 2), min(9, d + 2) + 1) if x != d])}0s"
            )
        if re.fullmatch(r"\d{1,2}", low):  # a day of the month ("May 19"): another valid day
            return str(rng.choice([d for d in range(1, 29) if d != int(low)]))
        if re.fullmatch(r"\d{4}", low):  # a year stays near: a decade either way
            year, step = int(low), rng.randint(1, 10)
            # "the Beijing 2035 Olympics" told as past
            later = rng.random() < 0.5 and year + step <= _LATEST_YEAR
            return str(year + step if later else year - step)
        return _same_shape_digits(word, rng) if re.search(r"\d", word) else word

    parts, said = span.split(" "), set(re.findall(r"\w+", text.replace(span, " ").lower()))
    low = [p.lower().strip(",.") for p in parts]  # a month or year the text names again ("(1999-2019)") stays
    keep = {
        i for i, m in enumerate(low) if m in said and (m in closed_class.MONTHS or re.fullmatch(r"\d{4}", m))
    }
    k = rng.randrange(len(parts))  # change one part of "March 27, 2015": enough to make it another date
    for _ in range(len(parts)):
        if k not in keep and one(parts[k]) != parts[k]:
            break
        k = (k + 1) % len(parts)
    else:
        return span  # no part may change
    return " ".join(one(p) if i == k else p for i, p in enumerate(parts))


_ONSETS: tuple[str, ...] = tuple(_LISTS["_ONSETS"])
_NUCLEI: tuple[str, ...] = tuple(_LISTS["_NUCLEI"])
_CODAS: tuple[str, ...] = tuple(_LISTS["_CODAS"])


def _pseudo_word(n: int, rng: random.Random) -> str:
    """A pronounceable made-up word of ``n`` letters (at least two), syllable by syllable ("dorivan")."""
    out = ""
    while len(out) < max(2, n):
        left = max(2, n) - len(out)
        if left == 1:  # one letter more: a vowel after a consonant, else a soft consonant
            out += rng.choice("aeio" if out[-1] not in "aeiou" else "nrls")
            break
        onset = rng.choice([o for o in _ONSETS if len(o) < left])
        nucleus = rng.choice([v for v in _NUCLEI if len(v) <= left - len(onset)])
        coda = rng.choice([c for c in _CODAS if len(c) <= left - len(onset) - len(nucleus)])
        out += onset + nucleus + coda
    return out


def _made_up(n: int, rng: random.Random) -> str:
    """A pseudo-word of ``n`` letters that is no real word (wordfreq does not know it)."""
    word = _pseudo_word(n, rng)
    for _ in range(_TRIES):
        if lexicon.word_zipf(word) == 0:
            break
        word = _pseudo_word(n, rng)
    return word


#: the pieces of a term: a capitalised or lower-case run, a run of capitals, digits, anything else
_TERM_PIECE = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+|[^A-Za-z\d]+")


def _term_piece(piece: str, rng: random.Random) -> str:
    """One piece of a term replaced by one of the same shape and case; an English word of a compound term
    stays ("n2-fixing" -> "n7-fixing", "ap2-like" -> "kt8-like")."""
    if piece.isdigit():
        return _same_shape_digits(piece, rng)
    if not piece.isalpha() or (piece.islower() and len(piece) > 3 and lexicon.is_common_word(piece)):
        return piece
    if len(piece) <= 3 and (piece.isupper() or (piece.islower() and len(piece) > 1)):  # "SPD", "il-4rα"
        new = _acronym(piece, rng)  # consonants, read letter by letter: never a word ("il" -> "do")
        return new if piece.isupper() else new.lower()
    if len(piece) == 1:  # one letter: a vowel for a vowel, a consonant for a consonant
        letter = rng.choice("aeiou" if piece.lower() in "aeiou" else "bdfgklmnprstvz")
        return letter.upper() if piece.isupper() else letter
    new = _made_up(len(piece), rng)  # never a real word ("ipf1" -> "the5")
    return new.upper() if piece.isupper() else new.capitalize() if piece[0].isupper() else new


def _suffixed(n: int, suffix: str, rng: random.Random) -> str:
    """A pseudo-word of ``n`` letters that joins ``suffix`` smoothly: a consonant before a vowel-initial
    suffix and a vowel before a consonant-initial one ("zorev" + "osis", "kilo" + "logical")."""
    body = _pseudo_word(n, rng)
    for _ in range(_TRIES):
        if (body[-1] in "aeiou") != (suffix[0] in "aeiou"):
            break
        body = _pseudo_word(n, rng)
    return body + suffix


#: Latin endings of a fictional genus and species ("Dravonia kelis", "m. toravum")
_GENUS_ENDINGS: tuple[str, ...] = tuple(_LISTS["_GENUS_ENDINGS"])
_SPECIES_ENDINGS: tuple[str, ...] = tuple(_LISTS["_SPECIES_ENDINGS"])


def _latin(n: int, endings: tuple[str, ...], rng: random.Random) -> str:
    """A made-up Latin word: a pseudo-word stem of about ``n`` letters and a Latin ending ("kelis")."""
    ending = rng.choice(endings)
    return _made_up(max(3, n - len(ending)), rng).rstrip("aeiou") + ending


def _binomial(span: str, rng: random.Random) -> str:
    """A fictional binomial of the same shape and case: "e. coli" -> "t. varnis", "Felis silvestris" ->
    "Dravonia kelis"; the genus letter changes too."""
    genus, species = span.split(" ")
    new_species = _latin(len(species), _SPECIES_ENDINGS, rng)
    if len(genus) == 2:  # "e." -> another letter
        letter = rng.choice([c for c in "abcdfghklmnprstv" if c != genus[0].lower()])
        return f"{letter.upper() if genus[0].isupper() else letter}. {new_species}"
    new_genus = _latin(len(genus), _GENUS_ENDINGS, rng)
    for _ in range(_TRIES):  # another initial: its short form "m. bovis" changes whole, too
        if new_genus[0] != genus[0].lower():
            break
        new_genus = _latin(len(genus), _GENUS_ENDINGS, rng)
    return f"{new_genus.capitalize() if genus[0].isupper() else new_genus} {new_species}"


def _term(span: str, rng: random.Random) -> str:
    """A fictional term of the same shape, in pronounceable syllables: "454-sequencing" ->
    "617-dralivomen", "apoptosis" -> "brenotosis", "SpaceX" -> "DorivK", "H1N1" -> "K7T3"; a binomial
    by a binomial (:func:`_binomial`)."""
    if lexicon.is_binomial(span):
        return _binomial(span, rng)
    low = span.lower()
    suffix = lexicon.domain_suffix(low)  # "apoptosis" keeps "osis"; "phages" never -> "grephages"
    if suffix and span.isalpha() and span.islower():
        return _suffixed(max(3, len(span) - len(suffix)), suffix, rng)  # "apoptosis" -> "zorevosis"
    if span.isalpha() and span.islower() and len(span) <= 5 and sum(c in "aeiou" for c in span) <= 1:
        return _acronym(span, rng).lower()  # a lower-cased acronym: "qpcr" -> "tkbf"
    plural = "s" if span.isalpha() and span.islower() and low.endswith("s") and len(low) > 4 else ""
    body = span[: len(span) - len(plural)]
    return "".join(_term_piece(p, rng) for p in _TERM_PIECE.findall(body)) + plural


def _keep_keywords(
    words: list[str], keep: frozenset[str], rng: random.Random, pool: list[str], run: bool = False
) -> str:
    """The first name word replaced, keywords and the rest kept ("Brown University" -> "Halvorsen University");
    an ordinary word is no name word ("Party Central Committee", "Agriculture and Rural Affairs" stay)."""
    for i, w in enumerate(words):
        if _name_word(w, keep):
            j = i + 1  # with ``run``, all uncommon name words: "Zhi Yun Restaurant" -> "Jessup Restaurant"
            while (
                run
                and j < len(words)
                and words[j][:1].isupper()
                and words[j].lower() not in keep
                and not lexicon.is_common_word(words[j])
            ):
                j += 1
            return " ".join([*words[:i], rng.choice(pool), *words[j:]])
    if len(words) > 1 and all(w.lower() in keep for w in words):  # keywords only ("Emirates Stadium")
        return " ".join([rng.choice(pool), *words[1:]])
    return " ".join(words)  # one keyword alone ("House"): nothing to make fictional


def _name_word(word: str, keep: frozenset[str]) -> bool:
    """A capitalised word of a name that is no keyword, connector or ordinary word ("Brown" of "Brown
    University", not "Central" of "Party Central Committee")."""
    low = word.lower()
    return (
        word[:1].isupper()
        and low not in keep | {"of", "the", "and", "&", "for"}
        and not lexicon.is_ordinary_word(word)
    )


def _has_name(span: str, keep: frozenset[str]) -> bool:
    """An organisation's or document's name holds something to make fictional: an acronym, one word, a real
    place, a name word, or keywords only ("Emirates Stadium"); "Party Central Committee" and "Fair District
    Amendments" hold none."""
    words = span.split()
    if span.isupper() or len(words) == 1 or _place_run(words):
        return True
    return any(_name_word(w, keep) for w in words) or all(w.lower() in keep for w in words)


def _org(span: str, rng: random.Random) -> str:
    """An acronym by capitals; a club, firm or brand of one word by a fictional town ("Chelsea" ->
    "Dunhallow"); a place inside the name by a fictional town ("Los Angeles County Fire Department" ->
    "Fellbrook County Fire Department"); else the first name word, keywords kept ("Brown University" ->
    "Halvorsen University")."""
    if span.isupper() and span.isalpha():
        return "".join(rng.choice("ABCDEFGHJKLMNPRSTVWZ") for _ in span)
    words = span.split()
    if len(words) == 1:
        return rng.choice(lexicon.FICTIONAL_TOWNS)
    if run := _place_run(words):
        i, size = run
        return " ".join([*words[:i], rng.choice(lexicon.FICTIONAL_TOWNS), *words[i + size :]])
    k = next((i for i, w in enumerate(words) if _name_word(w, lexicon.ORG_KEYWORDS)), None)
    # "Chinese Foreign Ministry" -> "Valdorian ...", no surname
    if k is not None and lexicon.is_demonym(words[k]):
        return " ".join([*words[:k], _demonym(rng), *words[k + 1 :]])
    return _keep_keywords(words, lexicon.ORG_KEYWORDS, rng, _LAST, run=True)


def _place_run(words: list[str]) -> tuple[int, int] | None:
    """(start, size) of the longest run of capitalised words, not the whole name, that is a real place
    ("Los Angeles" in "Los Angeles County Fire Department"), else None."""
    for size in range(min(3, len(words) - 1), 0, -1):
        for i in range(len(words) - size + 1):
            run = words[i : i + size]
            if run[0][:1].isupper() and lexicon.is_known_place(" ".join(run), major_only=size == 1):
                return i, size
    return None


def _holiday(span: str, rng: random.Random) -> str:
    """A fictional holiday, its tail kept ("Christmas" -> "Lanternmas", "Christmas Eve" -> "Emberfest Eve")."""
    head, _, tail = span.partition(" ")
    new = rng.choice([h for h in lexicon.FICTIONAL_HOLIDAYS if h.lower() != head.lower()])
    return f"{new} {tail}" if tail else new


def _place(span: str, rng: random.Random) -> str:
    if span.islower():  # lower-cased text (SumPubMed): "west africa" -> "valdoria", whole
        return rng.choice(_PLACES)
    if " " in span and lexicon.is_known_place(span):  # "Saudi Arabia", "New Zealand": a fictional country
        return rng.choice(_PLACES)
    words = span.split()
    if len(words) > 1 and (run := _place_run(words)):  # "Atletico Madrid" -> "Atletico Valdoria",
        i, size = run  # "South Los Angeles" -> "South Valdoria": the real place goes, whole
        return " ".join([*words[:i], rng.choice(_PLACES), *words[i + size :]])
    keep = lexicon.PLACE_SUFFIX_WORDS | lexicon.PLACE_PREFIX_WORDS | lexicon.COMPASS_WORDS
    return _keep_keywords(words, keep, rng, _PLACES)


def _person(span: str, rng: random.Random, text: str) -> str:
    words = span.split()
    # leading titles kept: "General Secretary Xi Jinping" -> "General Secretary Halvorsen"
    if len(words) >= 2:
        # an ordinary word leads only a name of two more words ("Pep Guardiola" is a name, whole)
        lead = next(
            k
            for k, w in enumerate([*words[:-1], ""])
            if not _is_title_word(w) or (w.lower() not in lexicon.TITLES and len(words) - k < 3)
        )
        titles = words[:lead]
        name = [rng.choice(_LAST)] if titles else [_first_name(words[0], rng, text), rng.choice(_LAST)]
        return " ".join([*titles, *name])
    before = re.search(rf"([A-Z][\w'’-]+)(\.?) {re.escape(span)}\b", text)
    # "Tom Smith", "Mr Gordon" and "Dr. Katz" end in a surname; "So Ned" and "Smith. Ned" do not
    title = before is not None and before.group(1).lower() in lexicon.TITLES
    surname = before is not None and (
        title or (not before.group(2) and not lexicon.is_common_word(before.group(1)))
    )
    only_last = lexicon.is_surname_only(span)  # "The person, Phillips, was found": a surname, never "Bryony"
    # "Huxley, Hooker and Darwin": a surname that is no first name (issue 36)
    if lexicon.in_name_list(span, text):
        return str(rng.choice([n for n in _LAST if not lexicon.first_name_gender(n)]))
    return rng.choice(_LAST) if surname or only_last else _first_name(span, rng, text)


def _is_title_word(word: str) -> bool:
    """A title ("Dr", "General") or an ordinary word before a name ("Secretary"), never a first name ("Will")."""
    low = word.lower().strip(".")
    return bool(word) and (
        low in lexicon.TITLES or (lexicon.is_common_word(word) and not lexicon.is_name_word(word))
    )


def _first_name(original: str, rng: random.Random, text: str = "") -> str:
    """A first name of the original's gender from a pool of about 220 a gender ("Jake" -> "Lorcan"); for a
    name of no known gender ("Kelly") the gender of the text's pronouns when it names no other person, else
    a name of either gender ("Demelza" beside "Ross Poldark ... his": "Rowan", issue 36)."""
    if gender := lexicon.first_name_gender(original):
        return rng.choice(lexicon.first_name_pool(gender))
    words = set(re.findall(r"[a-z]+", text.lower()))
    she, he = bool(words & {"she", "her", "hers", "herself"}), bool(words & {"he", "him", "his", "himself"})
    people = {s.text for s in lexicon.find_entities(text) if s.type is EntityType.PERSON}
    alone = she != he and all(original in p.split() for p in people)
    return rng.choice(lexicon.first_name_pool(("female" if she else "male") if alone else "either"))


def _demonym(rng: random.Random) -> str:
    """The people of a fictional place ("Valdorian", "Oskavian")."""
    place = rng.choice(_PLACES)
    return place + "n" if place.endswith("a") else place.removesuffix("e") + "ian"


def _acronym(span: str, rng: random.Random) -> str:
    """Capitals of the same number, consonants only so that it reads as no word ("SPD" -> "KTV")."""
    return "".join(rng.choice("BCDFGHKLMNPRSTVZ") for _ in span)


def _url(span: str, rng: random.Random) -> str:
    """A web address of the same shape: scheme, "www.", the top-level domain and the path kept, every
    other part of the host made up ("www.bosch-pt.com/warranty" -> "www.dreva-kt.com/warranty")."""
    m = re.match(r"((?:https?://)?(?:www\.)?)([^/]+?)(\.[a-z]+)(/.*)?$", span)
    if m is None:
        return span
    host = re.sub(r"[a-z]+", lambda w: _pseudo_word(len(w.group()), rng), m.group(2))
    return m.group(1) + host + m.group(3) + (m.group(4) or "")


_NAME_KEEP = lexicon.EVENT_WORDS | lexicon.ORG_KEYWORDS | lexicon.PLACE_SUFFIX_WORDS | lexicon.DOCUMENT_WORDS


def _other_name(span: str, rng: random.Random) -> str:
    """A name of unknown type: its first uncommon word (else its first word) made up, of about the same
    length, event and other keywords kept ("Gaddafi" -> "Dravelo", "Spring Festival" -> "Korvan Festival",
    "Chindits" -> "Meravins")."""
    m = re.fullmatch(r"(.+ of )(.+)", span)
    owner = m.group(2) if m else ""  # "A Decade of Hits": an ordinary word, no place
    if m and (
        lexicon.is_known_place(owner)
        or (re.fullmatch(r"[A-Z][a-z]+", owner) and not lexicon.is_common_word(owner))
    ):
        # "Crown Prince of Saudi Arabia", "CEO of Diriyah" -> "... of Valdoria"
        return m.group(1) + rng.choice(_PLACES)
    words = span.split()
    k = _uncommon_word(words)
    if k is None:
        return span
    word = words[k]
    plural = "s" if word.endswith("s") and len(word) > 4 and not word.endswith("ss") else ""
    new = _made_up(max(4, len(word) - len(plural)), rng)
    new = (new.upper() if word.isupper() else new.capitalize()) + plural  # "NEKTON Bio" -> "DRAVOL Bio"
    return " ".join([*words[:k], new, *words[k + 1 :]])


def _uncommon_word(words: list[str]) -> int | None:
    """Index of the first capitalised word that is no keyword, title or ordinary word: the name part
    ("Nakatani" of "Defense Minister Gen Nakatani"), for a festival or day of ordinary words its first ("Spring
    Festival"); None when every word is ordinary ("Salary Man"; an event of ordinary words, "Space Race",
    "Summer Olympics": the reads of seeds 3847, 6917 and 8803)."""
    names = [
        k
        for k, w in enumerate(words)
        if w[:1].isupper() and w.lower().strip(".") not in _NAME_KEEP | lexicon.TITLES
    ]
    # "Spring Festival": a holiday's name, its first word made up though ordinary
    holiday = len(words) > 1 and words[-1].lower() in ("festival", "day")
    return next(
        (k for k in names if not lexicon.is_common_word(words[k])), names[0] if names and holiday else None
    )


_MAKERS: dict[EntityType, Callable[[str, random.Random, str], str]] = {
    EntityType.PERSON: _person,
    EntityType.PLACE: lambda s, r, t: _place(s, r),
    EntityType.ORG: lambda s, r, t: _org(s, r),
    EntityType.NUMBER: lambda s, r, t: _number(s, r),
    EntityType.DATE: _date,
    EntityType.TERM: lambda s, r, t: _term(s, r),
    EntityType.ACRONYM: lambda s, r, t: _acronym(s, r),
    EntityType.URL: lambda s, r, t: _url(s, r),
    EntityType.HOLIDAY: lambda s, r, t: _holiday(s, r),
}


def _article_breaks(before: str, old: str, new: str) -> bool:
    """ "a"/"an" right before the entity agrees with the old text but not with the new ("an organism" ->
    "an mugolism")."""
    m = re.search(r"\b(an?)\s+$", before, re.IGNORECASE)
    return m is not None and not lexicon.an_mismatch(m.group(1), old) and lexicon.an_mismatch(m.group(1), new)


#: an age: "Gemma, 23,", "Mr Lawler, now 68,", "aged 23"; "23-year-old", "23 years old", "a four year old"
_AGE_BEFORE = re.compile(r"(?:\b[A-Z][a-z]+,|\b(?:aged|now|age)) $")
_AGE_AFTER = re.compile(r"(?:-| )years?(?:-| )old\b")
_CENTURY_AFTER = re.compile(r"[ -]century\b")


def _bounded_number(span: Span, text: str) -> Callable[[str, random.Random, str], str] | None:
    """How to make a plausible number where its context bounds it: an age stays an age of the same stage
    ("Ian Guffick, 31" -> "27", a "15-year-old girl" -> "13-year-old"), a century a past one near it, an
    hour of a clock ("10 PM" -> "8 PM"), a share up to 100 ("40 percent" -> "63 percent"), a day before its
    month (up to 28), each near its value; None elsewhere."""
    before, after = text[: span.start], text[span.end :]
    if re.fullmatch(r"\d+-years?-old", span.text) or (
        span.text.isdigit()
        and (_AGE_AFTER.match(after) or (_AGE_BEFORE.search(before) and after.startswith(",")))
    ):
        return lambda s, r, t: _age(s, r)
    # "4-6 7-6 (3) 6-3": "4-6" -> "2-6", "5-7"
    if games := lexicon.set_of_a_match(text, span.start, span.end):
        sets = [
            f"{a}-{b}" for a in range(8) for b in range(8) if lexicon.finished_set(a, b) and (a, b) != games
        ]
        return lambda s, r, t: r.choice([x for x in sets if (x[0] > x[2]) == (games[0] > games[1])])
    if re.fullmatch(r"\d+(?:st|nd|rd|th)", span.text) and _CENTURY_AFTER.match(after):  # "20th century"
        return lambda s, r, t: _ordinal(_near(int(s[:-2]), r, 1, 21, factor=1.3))
    top = min(lexicon.number_bound(after), 28 if lexicon.DAY_AFTER.match(after) else 100)
    if not top or not re.fullmatch(r"\d+", span.text):
        return None
    return lambda s, r, t: str(_near(int(s), r, 1, top))


def _replacement(span: Span, text: str, rng: random.Random, used: set[str]) -> str | None:
    """A fictional value of the span's type that occurs neither in ``text`` nor in ``used``, or None."""
    bounded = _bounded_number(span, text) if span.type is EntityType.NUMBER else None
    make = bounded or _MAKERS.get(span.type) or _other_maker(span.text)
    if make is None:
        return None
    lower = lexicon.is_lowercase_text(text)
    for _ in range(_TRIES):
        new = make(span.text, rng, text)
        if lower and span.text.islower():  # a capitalised entity stays capitalised ("Felis", "3G")
            new = new.lower()
        if _unfit(span, new, text, used):
            continue
        # as the validator reads it ("in Hollis": a place)
        context = text[max(0, span.start - 40) : span.start]
        kind = lexicon.classify_span(new, context, lower)
        if kind == span.type or (span.type is EntityType.ORG and new in lexicon.FICTIONAL_TOWNS):
            return new  # never a real word in place of a term; a club or a firm by a fictional town
    return None


def _unfit(span: Span, new: str, text: str, used: set[str]) -> bool:
    """``new`` may not replace ``span``: the same, already in the text or used, the number mask, a piece of
    the real name kept ("Glenn" -> "Glenda"), an article that no longer agrees, an impossible number."""
    if new == span.text or new.lower() in text.lower() or new in used or lexicon.NUMBER_MASK in new:
        return True
    if span.type in (EntityType.ACRONYM, EntityType.TERM) and len(new) > 2 and lexicon.is_abbreviation(new):
        return True  # "SMB" never -> "STD": a real abbreviation
    if span.type is EntityType.NUMBER and span.text not in {"0", "1"} and new in {"0", "1"}:
        return True  # "5 international airlines" never -> "1 international airlines"
    pairs = zip(span.text.split(), new.split(), strict=False)
    named = span.type in (EntityType.PERSON, EntityType.PLACE, EntityType.ORG, EntityType.OTHER)
    if named and any(o != n and len(o) >= 4 and o[:4] == n[:4] for o, n in pairs):
        return True
    if lexicon.breaks_range(text, span.start, span.end, new):
        return True  # "between 1958 and 1961" never -> "between 1973 and 1961"
    after = text[span.end :]
    return _article_breaks(text[: span.start], span.text, new) or bool(lexicon.implausible_number(new, after))


def _other_maker(name: str) -> Callable[[str, random.Random, str], str] | None:
    """How to make a fictional name of unknown type (:func:`_other_name`: "Constitution of Kazakhstan" ->
    "Constitution of Valdoria", "Libyan Civil War" -> "Dravelo Civil War"); none for a technical name
    ("Sars CoV2 Virus"), whose made-up twin the lexicon could not type."""
    words = name.split()
    if any(lexicon.has_term_shape(w) or w.lower().endswith(("virus", "viruses")) for w in words):
        return None
    m = re.fullmatch(r"(.+ of )(.+)", name)
    if _uncommon_word(words) is None and not (m and lexicon.is_known_place(m.group(2))):
        return None  # "Salary Man", "Christ Child": capitalised ordinary words, nothing to make up
    return lambda s, r, t: _other_name(s, r)


def _partial(span: Span, text: str) -> bool:
    """The span is part of a longer entity that a replacement would break: an organisation named after two
    places ("Bosnia and Herzegovina Olympic Committee"), a number in a name ("his first Formula 1 title", "the
    20th CPC National Congress"), a season ("1991–92": "1979–92" is none)."""
    before, after = text[max(0, span.start - 30) : span.start], text[span.end : span.end + 4]
    if span.type is EntityType.ORG:
        return re.search(r"\b[A-Z][a-z]+ and $", before) is not None
    role = re.match(r", (?:the )?(?:CEO|chief|chair\w*|director|president|founder|head)\b", text[span.end :])
    if span.type is EntityType.PLACE and role:  # "According to Buckley, CEO of": a person (seeds 5150, 9433)
        return True
    if span.type is EntityType.PLACE and (m := re.match(r" and [A-Z]\w+", text[span.end : span.end + 30])):
        return lexicon.is_known_place(span.text + m[0])  # "Bosnia and Herzegovina": one country
    if span.type is EntityType.NUMBER and re.fullmatch(r"\d{1,2}", span.text):
        # "Formula 1", "Version 2 (V2)": a name's number
        name = re.search(r"(?<=[\w,] )([A-Z][A-Za-z]+) $", before)
        if name and name.group(1).lower() not in closed_class.MONTHS:
            return True
    ordinal = span.type is EntityType.NUMBER and re.fullmatch(r"\d+(?:st|nd|rd|th)", span.text)
    if ordinal and re.match(r" [A-Z]", after):
        return True
    return re.match(r"[–-]\d{2}\b", after) is not None or re.search(r"\d{4}[–-]$", before) is not None


def entity_candidates(text: str) -> dict[str, list[Span]]:
    """Replaceable entities: surface text -> its spans (all occurrences of one entity)."""
    groups: dict[str, list[Span]] = {}
    for s in lexicon.find_entities(text):
        if _partial(s, text):
            continue
        if s.type in _MAKERS or (s.type is EntityType.OTHER and _other_maker(s.text) is not None):
            groups.setdefault(s.text, []).append(s)
    return groups


def short_forms(groups: dict[str, list[Span]]) -> dict[str, str]:
    """Full name -> its short form where the text uses both ("Paul Merson" -> "Merson", "escherichia coli" ->
    "e. coli"); a short form of two full names ("Sterling" of two people) belongs to neither."""
    fulls: dict[str, list[str]] = {}
    for surface, spans in groups.items():
        short = lexicon.short_form(surface, spans[0].type)
        if short is not None and short != surface and short in groups:
            fulls.setdefault(short, []).append(surface)
    return {names[0]: short for short, names in fulls.items() if len(names) == 1}


def plurals(groups: dict[str, list[Span]]) -> dict[str, str]:
    """A term -> its plural where the text uses both ("ribosome" -> "ribosomes"): one entity, replaced alike."""
    terms = [s for s, spans in groups.items() if spans[0].type is EntityType.TERM]
    return {a: b for a in terms for b in terms if lexicon.plural_ending(a, b)}


def _forms(
    text: str, groups: dict[str, list[Span]], followers: dict[str, str], surface: str, new: str | None
) -> list[tuple[list[Span], str]]:
    """Every span of the entity with its new text: the occurrences of ``surface``, of its short form
    ("Paul Merson" -> "Varek Whitlock" and "Merson" -> "Whitlock") and of its plural ("ribosome" ->
    "degosome" and "ribosomes" -> "degosomes"); empty when there is no replacement."""
    if new is None:
        return []
    forms = [(groups[surface], new)]
    if surface in followers:
        kind = groups[surface][0].type
        ending = lexicon.plural_ending(surface, followers[surface]) if kind is EntityType.TERM else ""
        other = new + ending if ending else lexicon.short_form(new, kind)
        if other is None or other.lower() in text.lower():
            return []
        forms.append((groups[followers[surface]], other))
    return forms


def _touch(text: str, span: Span, value: str, edit: Edit) -> bool:
    """The span overlaps the edit, or only white space lies between them and one side has several words
    ("New Zealander" and "Tim Weston": replaced side by side they read as one changed span; "single
    nucleotide polymorphisms" may change word by word)."""
    a, b = sorted([(span.start, span.end), (edit.start, edit.end)])
    if b[0] < a[1]:
        return True
    several = any(" " in t for t in (span.text, value, text[edit.start : edit.end], edit.new))
    return several and not text[a[1] : b[0]].strip()


def _shares_a_name(surface: str, changes: list[dict[str, str]]) -> bool:
    """``surface`` and an entity already changed share a capitalised word ("Ozil" and "Mesut Ozil")."""
    words = {w for w in surface.split() if w[:1].isupper() and len(w) > 2 and w.lower() not in _NAME_KEEP}
    return any(words & set(c["from"].split()) for c in changes)


def replaceable_entities(text: str) -> list[str]:
    """The entities of ``text`` the generator may replace (one surface each): every candidate but a short
    form or plural (it changes with its entity), a name typed two ways ("Mercedes" a person here, a place
    there), a name the text also uses where no span of it lies ("Hunan" inside "Hunan-based"), which
    could not change at every occurrence, a number word (a count the text fixes as often as not: 13 of the 29
    labelled rows valid; "three methods" before the three, "lost two" clients the text names) and a lower-case
    abbreviation (a kind, or its spelled-out form beside it: "pbmc", "igg", "epc" of "endothelial progenitor
    cells", "pha" of "polyhydroxyalkanoates"; about half the labelled rows valid), which the validator allows,
    as it does a place in capitals or whose people the text names ("EU" beside "European", "Germany" beside "The
    German giants": the reads found one changed and the other kept)."""
    groups = entity_candidates(text)
    followers = short_forms(groups) | plurals(groups)
    out = []
    for surface, spans in groups.items():
        if surface in followers.values() or len({o.type for o in spans}) > 1:
            continue
        if spans[0].type is EntityType.ORG and not _has_name(surface, lexicon.ORG_KEYWORDS):
            continue
        if spans[0].type is EntityType.NUMBER and surface[:1].isalpha():
            continue
        if spans[0].type is EntityType.TERM and lexicon.is_lower_acronym(surface):
            continue
        if spans[0].type is EntityType.PLACE and (
            surface.isupper() or lexicon.names_its_people(surface, text)
        ):
            continue
        if any(_enumerator(text, o) for o in spans):
            continue
        forms = [surface] + ([followers[surface]] if surface in followers else [])
        rest = text  # the text without the entity's spans: does it name the entity anywhere else?
        for o in (o for f in forms for o in groups[f]):
            rest = rest[: o.start] + " " * (o.end - o.start) + rest[o.end :]
        names = {*forms, *lexicon.named_forms(spans[0])}  # "Xi Jinping" of "General Secretary Xi Jinping"
        if spans[0].type in lexicon.COUNTED or not any(lexicon.mentions(rest, f) for f in names):
            out.append(surface)
    ends = [
        lexicon.from_range(text, groups[s][0].start) for s in out
    ]  # one end of a range changes, never both
    return [s for i, s in enumerate(out) if ends[i] is None or ends[i] not in ends[:i]]


def _enumerator(text: str, span: Span) -> bool:
    """A list number or citation ("2) What ...", "1. The ...", "[5]"), a dotted acronym ("the U.S."), one of two
    slashed names: numbering, reference, a name kept beside it, no entity to make fictional."""
    before, after = text[max(0, span.start - 1) : span.start], text[span.end : span.end + 1]
    listed = span.type is EntityType.NUMBER and (after == ")" or (before == "[" and after == "]"))
    opens = not text[: span.start].strip() or text[: span.start].rstrip()[-1:] in ".;:"
    item = opens and span.text.isdigit() and len(span.text) <= 2 and re.match(r"\. [A-Z]", text[span.end :])
    dotted = "." in span.text and after == "."
    slashed = span.type is EntityType.TERM and "/" in before + after  # "ipf1/pdx <dig>": one gene's two names
    return listed or bool(item) or dotted or slashed or bool(lexicon.fixed_by_context(span, text))


def fictional_entities(text: str, severity: Severity, rng: random.Random, generator: str) -> Outcome:
    """Replace one (minor/single) or two to three (major) entities by fictional ones of the same type."""
    lo, hi = change_count(severity)
    want = lo if lo == hi else rng.randint(lo, hi)
    groups = entity_candidates(text)
    # a short form or plural changes with its entity, never alone
    shorts = short_forms(groups) | plurals(groups)
    by_type: dict[EntityType, list[str]] = {}
    for surface in replaceable_entities(text):
        by_type.setdefault(groups[surface][0].type, []).append(surface)
    edits: list[Edit] = []
    changes: list[dict[str, str]] = []
    types = sorted(by_type, key=lambda t: t.value)
    while len(changes) < want and types:
        first = [t for t in types if t in _NAMES] or types  # names before numbers, dates, terms
        fresh = [t for t in first if t.value not in {c["type"] for c in changes}] or first
        kind = rng.choice(fresh)
        surface = rng.choice(by_type[kind])
        by_type[kind].remove(surface)
        if not by_type[kind]:
            types.remove(kind)
        if _shares_a_name(surface, changes):
            continue  # "Ozil" after "Mesut Ozil": one person, never two fictional names
        occ = groups[surface]  # every occurrence, alike: the text never names the real and the fictional one
        new = _replacement(occ[0], text, rng, {c["to"] for c in changes})
        forms = _forms(text, groups, shorts, surface, new)
        if not forms or any(
            _touch(text, o, value, e) for group, value in forms for o in group for e in edits
        ):
            continue
        ranges = {lexicon.from_range(text, e.start) for e in edits} - {None}  # one end of a range changes
        if any(
            _article_breaks(text[: o.start], o.text, value)
            or lexicon.breaks_range(text, o.start, o.end, value)
            or lexicon.from_range(text, o.start) in ranges
            for group, value in forms
            for o in group
        ):
            continue  # at every occurrence: "one, two or four" never -> "one, twelve or four"
        edits += [Edit(o.start, o.end, value, kind.value) for group, value in forms for o in group]
        changes.append({"type": kind.value, "from": surface, "to": new or ""})
    if len(changes) < lo:
        return NotApplicable(
            f"{len(changes)} replaceable named entities found (names of people, places, organisations, events or "
            f"nationalities, holidays, numbers, dates, technical terms, acronyms, web addresses); {severity.value} severity "
            f"replaces {lo}"
        )
    return Perturbed(apply_edits(text, edits), generator, {"changes": changes})
