"""Is a perturbed text what its perturbation claims? One small pure check per operation.

Written from the paper's Table 2 (paper v1, appendix B) and SPEC §3, not from any generator:

- character deletions: exactly k alphanumeric characters removed, nothing else changed;
- typos (``typo`` package): each of its operations (swap, missing, extra, nearby, similar,
  skipped or random space, repeated, unichar) costs at most 2 character edits, so the
  Levenshtein distance lies in [1, 2k];
- word deletion: exactly k consecutive words removed;
- fictional named entities: every changed span is an entity / number / technical term of the
  original, inside one sentence, replaced by a new one of the same type; one entity for
  minor/single, two or more for major;
- grammatical errors: every edit is small, matches a known error pattern that makes the sentence
  ungrammatical (see :mod:`dhp.builder.perturb.grammar_check`) and changes no word's meaning;
  one error for minor/single, two or more for major;
- rewriting and insertion: all original sentences kept in order; every inserted sentence sits
  right after the one it paraphrases and is a real paraphrase with no new errors; one for minor,
  two or more for major;
- sentence reordering: the same sentences in another order; k=2 swaps exactly two;
- other item / wrong ending: a different, non-empty text.

A :class:`Verdict` carries a one-line reason when a row fails. Each operation's check is named in
its record in :mod:`dhp.builder.perturb.registry`, whose ``validate`` is the entry point.
"""

from __future__ import annotations

import difflib
import itertools
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from dhp.builder.perturb import closed_class, grammar_check, lexicon
from dhp.builder.perturb.base import squash
from dhp.builder.perturb.lexicon import HAS_DIGIT, NUMBER_MASK, EntityType, Span, Token
from dhp.builder.textstats import split_sentences
from dhp.types import Perturbation, Severity

__all__ = [
    "DiffRegion",
    "Verdict",
    "check_severities_differ",
    "grammar_error_verdict",
    "keeps_fact",
    "paraphrase_verdict",
    "rewrite_distance",
    "token_edits",
    "verbatim_run",
    "word_type_jaccard",
]


@dataclass(frozen=True)
class Verdict:
    """Pass, or fail with a one-line reason."""

    ok: bool
    reason: str = ""


PASS = Verdict(True)


def _fail(reason: str) -> Verdict:
    return Verdict(False, " ".join(reason.split()))


@dataclass(frozen=True)
class DiffRegion:
    """One changed region of a token diff: old tokens (with offsets in the original) -> new ones."""

    old: tuple[Token, ...]
    new: tuple[Token, ...]
    old_start: int  # character offsets in the original (an insertion has old_start == old_end)
    old_end: int
    new_start: int  # character offsets in the perturbed text
    new_end: int

    @property
    def old_text(self) -> str:
        return " ".join(t.text for t in self.old)

    @property
    def new_text(self) -> str:
        return " ".join(t.text for t in self.new)


def token_edits(original: str, perturbed: str, split_equal: bool = True) -> list[DiffRegion]:
    """Changed regions between the two texts' tokens (difflib). With ``split_equal``, a region
    that replaces n tokens by n tokens is split into n one-token edits."""
    a, b = lexicon.tokenize(original), lexicon.tokenize(perturbed)
    sm = difflib.SequenceMatcher(None, [t.text for t in a], [t.text for t in b], autojunk=False)
    edits: list[DiffRegion] = []
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            continue
        if split_equal and i2 - i1 == j2 - j1 > 1:
            pairs = zip(range(i1, i2), range(j1, j2), strict=False)
            edits.extend(
                DiffRegion((a[i],), (b[j],), a[i].start, a[i].end, b[j].start, b[j].end) for i, j in pairs
            )
            continue
        old = _offsets(a, i1, i2, len(original))
        new = _offsets(b, j1, j2, len(perturbed))
        edits.append(DiffRegion(tuple(a[i1:i2]), tuple(b[j1:j2]), *old, *new))
    return edits


def _offsets(toks: list[Token], i: int, j: int, length: int) -> tuple[int, int]:
    if j > i:
        return toks[i].start, toks[j - 1].end
    at = toks[i].start if i < len(toks) else length
    return at, at


def _count_ok(p: Perturbation, n: int, what: str) -> Verdict:
    if p.severity is Severity.MAJOR:
        return PASS if n >= 2 else _fail(f"major needs two or more {what}, found {n}")
    return PASS if n == 1 else _fail(f"{p.severity.value} needs exactly one {what}, found {n}")


# --------------------------------------------------------------------------- character and word level


def check_char_deletion(p: Perturbation, original: str, perturbed: str) -> Verdict:
    """Exactly k alphanumeric characters deleted, the rest kept in order."""
    k = p.k or 0
    removed = Counter(original) - Counter(perturbed)
    if Counter(perturbed) - Counter(original):
        return _fail("characters were added, not only deleted")
    if not _is_subsequence(perturbed, original):
        return _fail("the remaining characters are not the original's in order")
    bad = sorted(c for c in removed if not c.isalnum())
    if bad:
        return _fail(f"non-alphanumeric characters deleted: {''.join(bad)!r}")
    n = sum(removed.values())
    return PASS if n == k else _fail(f"{n} characters deleted, expected k={k}")


def _is_subsequence(short: str, long: str) -> bool:
    it = iter(long)
    return all(c in it for c in short)


def check_char_typo(p: Perturbation, original: str, perturbed: str) -> Verdict:
    """Levenshtein distance in [1, 2k]: each `typo` operation edits at most two characters."""
    from rapidfuzz.distance import Levenshtein

    k = p.k or 0
    dist = int(Levenshtein.distance(original, perturbed))
    if not 1 <= dist <= 2 * k:
        return _fail(f"edit distance {dist} outside [1, {2 * k}] for k={k} typos")
    return PASS


def check_word_deletion(p: Perturbation, original: str, perturbed: str) -> Verdict:
    """Exactly k consecutive words removed, every other word unchanged."""
    k = p.k or 0
    a, b = original.split(), perturbed.split()
    if len(a) - len(b) != k:
        return _fail(f"{len(a) - len(b)} words removed, expected k={k}")
    head = _common_start(a, b)
    if a[head + k :] != b[head:]:
        return _fail("the removed words are not consecutive or other words changed")
    return PASS


def check_replacement_text(p: Perturbation, original: str, perturbed: str) -> Verdict:
    """Other item / wrong ending: a different, non-empty text (not only re-spaced)."""
    return _fail("the perturbed text equals the original") if squash(perturbed) == squash(original) else PASS


# --------------------------------------------------------------------------- sentence level


def _as_permutation(sentences: list[str], perturbed: str) -> list[int] | None:
    """Order of the original ``sentences`` that spells ``perturbed`` (whitespace aside), else None.

    Matching the original sentences instead of re-splitting the perturbed text keeps a sentence
    without final punctuation ("... wide") from merging with the one moved after it."""
    rest, left, order = squash(perturbed), dict(enumerate(squash(s) for s in sentences)), []
    while rest:
        fits = [
            (len(s), i)
            for i, s in left.items()
            if rest.startswith(s) and rest[len(s) : len(s) + 1] in ("", " ")
        ]
        if not fits:
            return None
        size, i = max(fits)
        order.append(i)
        del left[i]
        rest = rest[size:].lstrip()
    return order if not left else None


def check_sentence_reorder(p: Perturbation, original: str, perturbed: str) -> Verdict:
    """The same sentences in a different order; k=2: exactly two sentences swapped."""
    sentences = split_sentences(original)
    if len(sentences) < 2:
        return _fail("a text of one sentence cannot be reordered")
    order = _as_permutation(sentences, perturbed)
    if order is None:
        return _fail("the perturbed text is not the original's sentences in another order")
    texts = [sentences[i] for i in order]
    if texts == sentences:
        return _fail("the sentence order did not change")
    moved = sum(x != y for x, y in zip(sentences, texts, strict=True))
    if p.k == 2 and moved != 2:
        return _fail(f"{moved} sentences moved, expected two swapped")
    return PASS


def check_severities_differ(minor: str, major: str) -> Verdict:
    """Cross-row check: the minor and major rows of one item must not be the same text."""
    return _fail("minor and major give the same text") if squash(minor) == squash(major) else PASS


# --------------------------------------------------------------------------- fictional entities

_PROPER_TYPES = frozenset({EntityType.PERSON, EntityType.PLACE, EntityType.ORG})
_NAME_TYPES = _PROPER_TYPES | {EntityType.OTHER, EntityType.NATIONALITY}
_YEAR = re.compile(r"^\d{4}$")


def _types_match(old: EntityType, new: EntityType | None, new_text: str = "") -> bool:
    if new is None:
        return False
    if old is EntityType.DATE and new is EntityType.NUMBER and _YEAR.match(new_text.strip()):
        return True  # a year replaced by a fictional 4-digit year ("1978" -> "3818")
    if old in _PROPER_TYPES:  # a fictional person/place/org may be typed by shape only ("Elowen": other)
        return new is old or new is EntityType.OTHER
    return old is new  # an untyped name or a term never becomes a person-, place- or org-looking name


def _keeps_fragment(old: str, new: str) -> str:
    """A piece of an old word glued into the new one ("Yûki" -> "Marwickûki"), else ""."""
    for o, n in zip(old.split(), new.split(), strict=False):
        if o == n:
            continue
        pre, suf = _common_start(o, n), _common_start(o[::-1], n[::-1])
        for size, part in ((pre, o[:pre]), (suf, o[len(o) - suf :])):
            glued = size >= 3 and not part.isascii()  # "Yûki" -> "Marwickûki"
            if glued or (size >= 4 and size * 5 >= len(o) * 3):  # "Smith" -> "Smithers"
                return part
    return ""


def _common_start(a: Sequence[str], b: Sequence[str]) -> int:
    return next((k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))


def _apply(span: Span, edits: list[DiffRegion], perturbed: str) -> str:
    """The entity's text with ``edits`` (all inside it) applied: the new entity."""
    text = span.text
    for e in sorted(edits, key=lambda e: e.old_start, reverse=True):
        a, b = e.old_start - span.start, e.old_end - span.start
        text = text[:a] + perturbed[e.new_start : e.new_end] + text[b:]
    return text


def _letters(text: str) -> str:
    """The unit letters of a number ("15-year-old": "yearold"); an ordinal suffix is no unit ("2nd": "")."""
    return re.sub(r"[^a-z%$£€]", "", re.sub(r"(?<=\d)(?:st|nd|rd|th)\b", "", text.casefold()))


def _initial_case(text: str) -> bool | None:
    """Is the first letter a capital ("Felis": True, "silvestris": False, "$40": None)?"""
    first = re.search(r"[^\W\d_]", text)
    return first.group().isupper() if first else None


def _name_type(name: str) -> EntityType:
    """A name's type, ``OTHER`` for none (a document's owner may be any name)."""
    return lexicon.classify_name(name) or EntityType.OTHER


def _gender_changed(old: str, new: str) -> bool:
    """Both names start with a known gendered first name, of different genders ("Jake" -> "Isolde")."""
    a, b = (lexicon.first_name_gender(name.split()[0]) if name.split() else None for name in (old, new))
    return a is not None and b is not None and a != b


def _form_verdict(span: Span, new: str, before: str) -> Verdict:
    """The replacement is a non-empty span inside one sentence with the original's initial case, and an
    "a"/"an" right before it still agrees ("an organism" -> "an mugolism" does not)."""
    a = article.group(1) if (article := re.search(r"\b(an?)\s+$", before, re.IGNORECASE)) else ""
    if a and not lexicon.an_mismatch(a, span.text) and lexicon.an_mismatch(a, new):
        return _fail(f"{a!r} before {span.text!r} no longer agrees with {new!r}")
    if not new.strip():
        return _fail(f"{span.type.value} {span.text!r} deleted, not replaced")
    if re.search(r"[.!?]\s", new) and not lexicon.is_binomial(span.text):  # "e. coli" ends no sentence
        return _fail(f"replacement {new!r} spans a sentence end")
    if _initial_case(span.text) != _initial_case(new):
        return _fail(f"{span.text!r} replaced by {new!r}: the capitalisation changed")
    return PASS


def _kind_verdict(span: Span, new: str, kind: EntityType | None) -> Verdict:
    """The replacement has the original's type: person for person, acronym for acronym, a document
    of the same owner type, a person of the same gender, a number with the same unit."""
    if not _types_match(span.type, kind, new):
        got = kind.value if kind else "not an entity"
        return _fail(f"{span.type.value} {span.text!r} replaced by {new!r} ({got}): type changed")
    owner, new_owner = lexicon.document_owner(span.text), lexicon.document_owner(new)
    if owner and not _types_match(_name_type(owner), _name_type(new_owner), new_owner):
        return _fail(f"{owner!r} of the document {span.text!r} replaced by {new_owner!r}: type changed")
    if span.type is EntityType.PERSON and _gender_changed(span.text, new):
        return _fail(f"person {span.text!r} replaced by {new!r}: gender changed")
    if span.type is EntityType.NUMBER and HAS_DIGIT.search(new) and _letters(span.text) != _letters(new):
        return _fail(f"number {span.text!r} replaced by {new!r}: the unit changed")
    return PASS


def _fictional_verdict(span: Span, new: str, kind: EntityType | None, original: str) -> Verdict:
    """The replacement is new: no glued piece of the old name, no real place, not already in the text."""
    if span.type in _NAME_TYPES and (part := _keeps_fragment(span.text, new)):
        return _fail(f"{new!r} keeps {part!r} of the original {span.text!r}")
    if span.type in (EntityType.ACRONYM, EntityType.TERM) and len(new) > 2 and lexicon.is_abbreviation(new):
        return _fail(f"{new!r} is a real abbreviation, not a fictional one ('SMB' -> 'STD')")
    if kind is EntityType.PLACE and lexicon.is_known_place(new, major_only=True):
        return _fail(f"{new!r} is a real place, not a fictional one")
    real = all(lexicon.is_demonym(w, real_only=True) for w in new.split())  # "Valdorian American" is none
    if kind is EntityType.NATIONALITY and lexicon.is_demonym(new) and real:
        return _fail(f"{new!r} is a real nationality, not a fictional one")
    if re.search(rf"(?<!\w){re.escape(new)}(?!\w)", original):
        return _fail(f"{new!r} already occurs in the original: not a new entity")
    return PASS


def _binomial_verdict(span: Span, new: str) -> Verdict:
    """A Latin binomial is one term: replaced whole, genus and species ("e. coli" -> "t. varnis", never
    "e. varnis" nor "escherichia varnis")."""
    if not lexicon.is_binomial(span.text):
        return PASS
    old_words, new_words = span.text.lower().split(), new.lower().split()
    if len(new_words) != 2 or old_words[0][0] == new_words[0][0] or old_words[1] == new_words[1]:
        return _fail(f"binomial {span.text!r} replaced by {new!r}: genus and species must both change")
    return PASS


#: a fictional quantity this many times larger or smaller than the real one is an impossible fact, a clue
#: that needs no source text ("Gemma, 23" -> "90", "four year old" -> "forty")
MAX_NUMBER_FACTOR = 5.0
_QUANTITY = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?")


def _factor(old: str, new: str) -> float:
    """The largest factor between the quantities of ``old`` and ``new`` read in order, 1 where they do not
    pair up; 0 and 1 count as 1 ("0-0" -> "0-2" moves by 2)."""
    a, b = _QUANTITY.findall(old), _QUANTITY.findall(new)
    if not a or len(a) != len(b):
        a, b = [str(lexicon.word_value(old.split("-")[0]))], [str(lexicon.word_value(new.split("-")[0]))]
    pairs = [
        (max(1.0, float(x.replace(",", ""))), max(1.0, float(y.replace(",", ""))))
        for x, y in zip(a, b, strict=False)
    ]
    return max((max(x, y) / min(x, y) for x, y in pairs), default=1.0)


#: a person's age where the text states one: "Gemma, 23,", "now 68,", "aged 23", "23-year-old", "23 years old"
_AGE_CONTEXT = re.compile(r"(?:\b[A-Z][a-z]+, |\b(?:aged|now|age) )(\d+)(?=,)|\b(\d+)(?=[- ]years?[- ]old\b)")
#: "the two" standing for nouns: after a definite determiner, before no noun ("The two are", "between the two.")
_ANAPHOR_BEFORE = re.compile(r"\b(?:the|these|those|all) $", re.IGNORECASE)
_NO_NOUN_AFTER = re.compile(
    r"\s*(?:[^\w\s]|$)|\s+(?:are|were|is|was|have|has|had|do|did|will|would|can|could|of|in|on|at|and|or|to|who|that|which)\b"
)
#: the largest factor an age may move by (a teacher of 31 is no 11-year-old, a mother of 23 no 90-year-old)
MAX_AGE_FACTOR = 1.5


def _implausible_in_context(span: Span, new: str, original: str) -> str:
    """Why ``new`` is an impossible value where ``span`` stands, by the reader's rules, else "": a number
    word after "the" that stands for things the text named ("between the two" -> "the four"), an age moved
    by half or more or across childhood, a set or small score (both sides at most 7) past 7 ("4-6" ->
    "2-11")."""
    before = original[: span.start]
    after = original[span.end :]
    if lexicon.word_value(span.text) and _ANAPHOR_BEFORE.search(before) and _NO_NOUN_AFTER.match(after):
        return "a number word after 'the' stands for things the text named"
    for m in _AGE_CONTEXT.finditer(original, max(0, span.start - 12), span.end + 10):
        if span.start in (m.start(1), m.start(2)) and (age := re.match(r"\d+", new)):
            old, value = int(m.group(1) or m.group(2)), int(age.group())
            if max(old, value) / max(1, min(old, value)) >= MAX_AGE_FACTOR or (old >= 18) != (value >= 18):
                return f"an age of {old} is no age of {value}"
    games = lexicon.set_of_a_match(original, span.start, span.end)
    after_set = re.fullmatch(r"(\d+)[-–](\d+)", new)
    if games and not (after_set and _same_winner(games, (int(after_set[1]), int(after_set[2])))):
        return "a set of a match that no set ends with"
    sides = re.fullmatch(r"(\d{1,2})[-–](\d{1,2})", span.text), re.fullmatch(r"(\d+)[-–](\d+)", new)
    if sides[0] and sides[1] and max(map(int, sides[0].groups())) <= 7 < max(map(int, sides[1].groups())):
        return "a set or small score past 7"
    return ""


def _same_winner(games: tuple[int, int], new: tuple[int, int]) -> bool:
    """``new`` is a finished set won by the side that won ``games`` ("4-6" -> "2-6", "5-7"; never "2-4")."""
    return lexicon.finished_set(*new) and (games[0] > games[1]) == (new[0] > new[1])


def _plausible_verdict(span: Span, new: str, original: str) -> Verdict:
    """A number stays a possible value where it stands: no "86 PM", no "140 percent", no reversed range, no
    value moved by a factor of five or more."""
    if span.type is EntityType.NUMBER and (why := lexicon.implausible_number(new, original[span.end :])):
        return _fail(f"number {span.text!r} replaced by {new!r}: {why}")
    if span.type is EntityType.NUMBER and (factor := _factor(span.text, new)) >= MAX_NUMBER_FACTOR:
        return _fail(f"number {span.text!r} replaced by {new!r}: moved by a factor of {factor:.0f}")
    if re.fullmatch(r"\d{7,}", span.text) and len(new) != len(span.text):  # as the generator makes it
        return _fail(f"number {span.text!r} replaced by {new!r}: a telephone or ID number keeps its length")
    if span.type is EntityType.NUMBER and (why := _implausible_in_context(span, new, original)):
        return _fail(f"number {span.text!r} replaced by {new!r}: {why}")
    if lexicon.breaks_range(original, span.start, span.end, new):
        return _fail(
            f"{span.text!r} replaced by {new!r}: the range it bounds or the order of its dates is reversed"
        )
    return PASS


def _ordinary_word_verdict(span: Span, new: str) -> Verdict:
    """An organisation's name of several words changes in a name word, not only in ordinary ones ("Party
    Central Committee" -> "Party Wexley Committee" replaces no name)."""
    words = span.text.split()
    changed = [w for w in words if w not in new.split()]
    if span.type is not EntityType.ORG or len(words) < 2:
        return PASS
    if changed and all(lexicon.is_ordinary_word(w) for w in changed):
        return _fail(f"{span.text!r} -> {new!r}: only ordinary words {changed} of the name changed")
    return PASS


def _replacement_verdict(span: Span, new: str, original: str, lower: bool) -> Verdict:
    if why := lexicon.fixed_by_context(span, original):
        return _fail(f"{span.text!r} -> {new!r}: {why}")
    surname = span.type is EntityType.PERSON and lexicon.in_name_list(span.text, original)
    if surname and lexicon.first_name_gender(new):
        return _fail(f"{span.text!r} -> {new!r}: a surname in a list of surnames made a first name")
    context = original[max(0, span.start - 40) : span.start]
    kind = lexicon.classify_span(new, context, lower)
    checks = (
        _binomial_verdict(span, new),
        _form_verdict(span, new, context),
        _kind_verdict(span, new, kind),
        _plausible_verdict(span, new, original),
        _ordinary_word_verdict(span, new),
        _fictional_verdict(span, new, kind, original),
    )
    return next((verdict for verdict in checks if not verdict.ok), PASS)


def _entity_edits(original: str, edits: list[DiffRegion]) -> tuple[dict[int, list[DiffRegion]], Verdict]:
    """Group the edits by the entity of the original they fall in; fail on any edit outside."""
    spans = lexicon.find_entities(original)
    sents = lexicon.sentence_spans(original)
    touched: dict[int, list[DiffRegion]] = {}
    for e in edits:
        if not e.old:
            return {}, _fail(f"{e.new_text!r} inserted outside any entity")
        first = lexicon.sentence_index(sents, e.old_start)
        if first != lexicon.sentence_index(sents, e.old_end - 1):
            return {}, _fail(f"change {e.old_text!r} -> {e.new_text!r} crosses a sentence end")
        hits = [i for i, s in enumerate(spans) if s.start <= e.old_start and e.old_end <= s.end]
        if not hits:
            return {}, _fail(
                f"{e.old_text!r} -> {e.new_text!r}: {e.old_text!r} is not a named entity, number or term"
            )
        touched.setdefault(hits[0], []).append(e)
    return touched, PASS


def _full_names(spans: list[Span]) -> dict[str, str]:
    """Short form -> the one full name it stands for ("Merson" -> "Paul Merson", "e. coli" -> "escherichia
    coli"); a short form of two full names (two people called "Sterling") stands for neither."""
    fulls: dict[str, set[str]] = {}
    for s in spans:
        short = lexicon.short_form(s.text, s.type)
        if short is not None and any(o.text == short for o in spans):
            fulls.setdefault(short, set()).add(s.text)
    return {short: next(iter(names)) for short, names in fulls.items() if len(names) == 1}


def _short_forms_verdict(spans: list[Span], news: dict[int, str]) -> tuple[set[int], Verdict]:
    """Spans that are the short form of a replaced full name, replaced by the new name's short form
    ("Merson" -> "Whitlock" with "Paul Merson" -> "Varek Whitlock"): one entity with it. Fails when the
    text would still name the real entity: a full name replaced but its short form kept, or the reverse."""
    fulls = _full_names(spans)
    new_of = {spans[i].text: new for i, new in news.items()}
    followers: set[int] = set()
    for j, s in enumerate(spans):
        full = fulls.get(s.text)
        if full is None or (full not in new_of and j not in news):
            continue  # no short form, or neither form changed
        if full not in new_of:
            return followers, _fail(f"{s.text!r} became {news[j]!r} but the original still names {full!r}")
        kind = next(o.type for o in spans if o.text == full)
        if j not in news:
            return followers, _fail(
                f"{full!r} became {new_of[full]!r} but the original still names {s.text!r}"
            )
        if news[j] == lexicon.short_form(new_of[full], kind):
            followers.add(j)
    return followers, PASS


def _plurals_verdict(spans: list[Span], news: dict[int, str]) -> tuple[set[int], Verdict]:
    """Spans that are the plural of a replaced term, replaced by the new term's plural ("ribosomes" ->
    "degosomes" with "ribosome" -> "degosome"): one entity with it. Fails when one form changed and the
    other did not, or when they changed unlike ("turosome" and "rolesomes")."""
    followers: set[int] = set()
    for i, a in enumerate(spans):
        for j, b in enumerate(spans):
            ending = a.type is EntityType.TERM and lexicon.plural_ending(a.text, b.text)
            if not ending or (i not in news and j not in news):
                continue
            if i not in news or j not in news:
                changed, kept = (a, b) if i in news else (b, a)
                return followers, _fail(
                    f"{changed.text!r} was replaced but the text still names {kept.text!r}"
                )
            if news[j] != news[i] + ending:
                return followers, _fail(
                    f"{a.text!r} -> {news[i]!r} but {b.text!r} -> {news[j]!r}: one term replaced unlike"
                )
            followers.add(j)
    return followers, PASS


def _left_behind(spans: list[Span], news: dict[int, str], perturbed: str) -> Verdict:
    """Every occurrence of a replaced name or term changed: the perturbed text never names both the real
    and the fictional entity ("Hunan" -> "Samga" with "Hunan" left later)."""
    for index in news:
        olds = [] if spans[index].type in lexicon.COUNTED else sorted(lexicon.named_forms(spans[index]))
        for old in olds:
            if lexicon.mentions(perturbed, old):
                return _fail(f"{spans[index].text!r} was replaced but the text still names {old!r}")
    return PASS


def check_fictional_entities(p: Perturbation, original: str, perturbed: str) -> Verdict:
    """Each changed span is one entity of the original, replaced by a new one of the same type; a short
    form of a name ("Merson" of "Paul Merson") changes with it, alike."""
    if original.count(NUMBER_MASK) != perturbed.count(NUMBER_MASK):
        return _fail(f"the number mask {NUMBER_MASK} was changed")
    touched, verdict = _entity_edits(original, token_edits(original, perturbed))
    if not verdict.ok:
        return verdict
    spans = lexicon.find_entities(original)
    lower = lexicon.is_lowercase_text(original)
    news = {index: _apply(spans[index], edits, perturbed) for index, edits in touched.items()}
    followers, verdict = _short_forms_verdict(spans, news)
    plural_followers, plural_verdict = _plurals_verdict(spans, news)
    ranges = [r for i in news if (r := lexicon.from_range(original, spans[i].start)) is not None]
    one_end = (
        PASS if len(set(ranges)) == len(ranges) else _fail("both ends of a range changed ('from 35 to 40')")
    )
    for v in (verdict, plural_verdict, _left_behind(spans, news, perturbed), one_end):
        if not v.ok:
            return v
    followers |= plural_followers
    replaced: dict[str, set[str]] = {}  # one entity may occur several times, replaced alike
    for index, new in news.items():
        if index in followers:
            continue  # counted with its full name
        verdict = _replacement_verdict(spans[index], new, original, lower)
        if not verdict.ok:
            return verdict
        replaced.setdefault(spans[index].text.casefold(), set()).add(new)
    unlike = [(old, sorted(news)) for old, news in replaced.items() if len(news) > 1]
    if unlike:
        return _fail(f"{unlike[0][0]!r} replaced unlike at its occurrences: {unlike[0][1]}")
    return _count_ok(p, len(replaced), "replaced entity")


# --------------------------------------------------------------------------- rewriting and insertion

_WORD = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*")
_FACT_TYPES = _PROPER_TYPES | {EntityType.NUMBER, EntityType.DATE}
#: a word this frequent is a function word ("in" 7.3, "this" 7.0; "region" 5.0 is content)
_FUNCTION_ZIPF = 6.0
_AUXILIARIES = frozenset("be have do will would can could shall should may might must".split())


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def _content_lemmas(text: str) -> set[str]:
    """Lemmas of the open-class words (nouns, verbs, adjectives, adverbs, names, numbers)."""
    out: set[str] = set()
    for w in _words(text):
        if lexicon.word_zipf(w) >= _FUNCTION_ZIPF:
            continue  # "in", "this", "that": function words, whatever the lexicon lists them as
        lems = lexicon.lemmas(w) - _AUXILIARIES
        if lems:
            out.add(min(lems))
        elif w.isdigit() or (not lexicon.lemmas(w) and lexicon.word_zipf(w) < 5.0):
            out.add(w)  # numbers and names; function words ("the", "of") and auxiliaries are skipped
    return out


#: a capitalised word after a word (not a sentence end), and the word after it
_MID_WORD = re.compile(r"(?<=[\w,;)])\s+([A-Z][a-z]+)\b(?=\s*(\S?))")


def _extends_name(word: str, para: str, source: str) -> bool:
    """``word`` stands next to a capitalised word of ``source`` in ``para`` (the longer form of a name the
    source has: "Vivien Leigh" for "Leigh", "the Labor Party" for "Labor") or extends one ("Iranian" of
    "Iran"): no new name."""
    words, known = _WORD.findall(para), set(_WORD.findall(source))
    if lexicon.word_zipf(word.lower()) >= _FUNCTION_ZIPF or word.lower() in closed_class.PREPOSITIONS:
        return False  # "Falcao At the beginning": a function word is no part of a name
    names = set(_WORD.findall(source)[1:])  # capitalised after the first word: names
    if any(len(k) >= 4 and k[:1].isupper() and word != k and word.startswith(k) for k in names):
        return True  # "Iranian" of "Iran": the people or adjective of a place the source names
    return any(
        w == word
        and any(n[:1].isupper() and n in known for n in words[max(0, i - 1) : i] + words[i + 1 : i + 2])
        for i, w in enumerate(words)
    )


def _capitalised_mid_sentence(source: str, para: str, text: str) -> str:
    """An ordinary word the paraphrase capitalises mid-sentence where the text does not
    ("... Radamel Falcao At the start ..."), else ""; names ("Terry", "Rose", and any word the
    whole ``text`` capitalises mid-sentence, "United" after "Manchester United") keep their capital."""
    if lexicon.is_lowercase_text(source):
        return ""
    kept = {m.group(1) for m in _MID_WORD.finditer(text or source)}
    for m in _MID_WORD.finditer(para):
        word, after = m.group(1), m.group(2)
        low = word.lower()
        function = low in closed_class.PREPOSITIONS or low in closed_class.ARTICLES
        # "New Zealand", "North Brabant": part of a longer name; "Earth's": a possessive names its owner
        in_name = after[:1].isupper() or after[:1] in ("'", "’")
        ordinary = function or (
            lexicon.is_common_word(word) and not lexicon.is_name_word(word) and not in_name
        )
        if ordinary and word not in kept and not _extends_name(word, para, source):
            return word
    return ""


def _new_errors(source: str, para: str, text: str = "") -> str:
    """A flaw the paraphrase adds that the source does not have, else ""."""
    toks = [t.text for t in lexicon.tokenize(para)]
    src = set(squash(source).lower().split())
    for art, word in itertools.pairwise(toks):
        bigram = f"{art} {word}"
        article = art.lower() in ("a", "an") and word[:1].isalnum()
        if article and lexicon.an_mismatch(art, word) and bigram.lower() not in squash(source).lower():
            return f"article error {bigram!r}"
    if word := _capitalised_mid_sentence(source, para, text):
        return f"ordinary word {word!r} capitalised mid-sentence"
    if flaw := _new_form_error(source, para):
        return flaw
    # "Pearson's": "pearson"
    known = src | set(_words(source)) | {re.sub(r"['’]s$", "", w) for w in _words(source)}
    capitals = bool(toks) and not lexicon.is_lowercase_text(para)  # a text that writes names with capitals
    for word in _WORD.findall(para):
        if word.lower() in known or word.lower().replace("’", "'") in known or word == "I":
            continue
        if capitals and word[:1].isupper() and word != toks[0] and not _extends_name(word, para, source):
            return f"new capitalised word {word!r}"
        misspelt = difflib.get_close_matches(word.lower(), known, n=1, cutoff=0.75)
        if misspelt and not lexicon.lemmas(word) and lexicon.word_zipf(word) < 2.0:
            return f"unknown word {word!r}, a misspelling of {misspelt[0]!r}"  # a new term ("pomc") is none
    return ""


#: surface flaws a rewrite can introduce: a doubled word, punctuation with nothing before it, two marks in a row
_FORM_FLAWS = (
    ("doubled word", re.compile(r"\b(\w+) \1\b", re.IGNORECASE)),
    ("punctuation after a space", re.compile(r"(?<=\w) [,;:!?]")),
    ("two punctuation marks in a row", re.compile(r"[,;:][,.;:!?]|\.[,;:]")),
    ("punctuation at the start", re.compile(r"^\W*[,.;:!?]")),
)


def _new_form_error(source: str, para: str) -> str:
    """A surface flaw the paraphrase has more often than its source ("the the", "word ,", ",."),
    an unbalanced bracket, a lost final stop, or a lower-case start where the source has a capital."""
    for what, pattern in _FORM_FLAWS:
        if len(pattern.findall(para)) > len(pattern.findall(source)):
            return f"{what} {pattern.search(para)[0]!r}"  # type: ignore[index]
    for left, right in ("()", "[]"):
        if para.count(left) - para.count(right) != source.count(left) - source.count(right):
            return f"unbalanced {left}{right}"
    if re.search(r"[.!?][\"'”’)]*$", source.strip()) and not re.search(r"[.!?][\"'”’)]*$", para.strip()):
        return "the final stop is lost"
    if source[:1].isupper() and para[:1].islower():
        return "it starts in lower case"
    return ""


#: discourse markers that announce a restatement; a copy behind one is still a copy
DISCOURSE_MARKERS = frozenset(closed_class.DISCOURSE_MARKERS)


#: a reporting frame before a copied claim ("previous studies indicate that ...", "in fact ...", issue 36)
_FRAME = re.compile(
    r"^(?:in fact,? |indeed,? |(?:[\w'’-]+ ){1,4}(?:indicates?|indicated|suggests?|suggested|shows?|showed|shown"
    r"|reveals?|revealed|demonstrates?|demonstrated|reports?|reported|found|believes?|believed|says|said) that )",
    re.IGNORECASE,
)


def _strip_marker(para: str) -> str:
    """The paraphrase without a leading discourse marker ("In other words, ...") or reporting frame ("studies
    suggest that ..."); any other phrase before a comma ("Last month, a man was arrested") is part of it."""
    if (frame := _FRAME.match(squash(para))) and len(_words(para[frame.end() :])) >= 5:
        return squash(para)[frame.end() :]
    low = squash(para).lower()
    for marker in sorted(DISCOURSE_MARKERS, key=len, reverse=True):
        if low.startswith(marker) and low[len(marker) : len(marker) + 1] in (",", ":", " ", "-", "—"):
            return squash(para)[len(marker) :].lstrip(",:-— ")
    return para


_DANGLING = closed_class.word_set("dangling_end")
_FINITE_AUX = closed_class.word_set("finite_aux")
_SUBORDINATORS = closed_class.word_set("clause_subordinators")
#: "According to him, on 12 March that he is ...": a "said ... that" turned around, "that" left over
#: words that open a clause against what came before ("Though A, despite that B" says "though" twice)
_CONCESSIVE = frozenset({"despite", "in spite of", "however", "yet", "but", "nevertheless"})
_LEFTOVER_THAT = re.compile(r"^according to [^,]+, (?P<prep>\w+)(?: [\w'’-]+){0,4} that\b", re.IGNORECASE)
_CLEFT = re.compile(r"^what\b.*\b(?:did|does|do|done)\b.*\b(?:was|is|were|are)\b", re.IGNORECASE)


def _partition_comma(text: str) -> tuple[str, str, str]:
    """``str.partition(",")`` at the first comma that is no thousands separator ("$500,000")."""
    m = re.search(r",(?!\d{3}\b)", text)
    return (text[: m.start()], ",", text[m.end() :]) if m else (text, "", "")


def _broken_structure(source: str, para: str) -> str:
    """A sign that moving words around broke the sentence, else "": it ends on a dangling
    function word ("... within and."), a fronted prepositional phrase holds the main verb
    ("across new zealand were analysed, ...") or two connectives lead one clause ("Though A, in spite of that when B")."""
    words, src = _words(para), _words(source)
    if words and words[-1] in _DANGLING and src[-1:] != words[-1:]:
        return f"it ends on {words[-1]!r}"
    head, sep, tail = _partition_comma(para)
    head_words = _words(head)
    fronted = bool(sep and head_words) and head_words[0] in closed_class.PREPOSITIONS - _SUBORDINATORS
    moved = not squash(source).lower().startswith(squash(head).lower())
    if fronted and moved and set(head_words) & _FINITE_AUX:
        return f"the fronted phrase {head.strip()!r} holds a finite verb"
    tail_words = _words(tail)
    lead = (tail_words or [""])[0]
    concessive = " ".join(tail_words[:3]) in _CONCESSIVE or lead in _SUBORDINATORS | _CONCESSIVE
    if sep and head_words[:1] != src[:1] and head_words[0] in _SUBORDINATORS and concessive:
        return f"two connectives lead one clause: {squash(para)[:60]!r}"
    leftover = _LEFTOVER_THAT.match(squash(para))
    if leftover and leftover["prep"].lower() in closed_class.PREPOSITIONS:
        return f"the reported clause keeps its 'that' after {leftover['prep']!r}"
    return ""


def _full_words(text: str) -> list[str]:
    """The words with contractions written out: "didn't" and "did not" are the same wording."""
    return [
        x.lower() for w in _words(text) for x in closed_class.CONTRACTIONS.get(w.replace("’", "'"), w).split()
    ]


def rewrite_distance(source: str, para: str) -> tuple[int, float]:
    """How far a rewrite is from its source: the words moved, replaced or added (of the longer
    sentence, not matched in order) and difflib's similarity ratio of the two word sequences."""
    a, b = _full_words(source), _full_words(para)
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return max(len(a), len(b)) - sum(m.size for m in sm.get_matching_blocks()), sm.ratio()


#: a quotation ("..."; '...' opened after a space and closed before a space or mark): kept verbatim
_QUOTE = re.compile(r"“[^”]+”|\"[^\"]+\"|(?<![\w])'[A-Za-z][^']*?[\w.!?,]'(?![\w])")

#: a paraphrase shares fewer than this of its lower-cased word types with its source (issue 19)
MAX_JACCARD = 0.8
#: the reader's near copy (issue 28): at most this many content words swapped with the word order kept, a
#: word-sequence similarity of at least SWAP_SEQUENCE ("several" -> "a number of", "According to X," + a copy)
MAX_SWAPPED = 2
SWAP_SEQUENCE = 0.75


def word_type_jaccard(source: str, para: str) -> float:
    """Jaccard similarity of the two sentences' sets of lower-cased word types, contractions written out."""
    a, b = set(_full_words(source)), set(_full_words(para))
    return len(a & b) / max(1, len(a | b))


def keeps_fact(fact: str, para: str, person: bool = False) -> bool:
    """``para`` states ``fact`` (a name, number or date), a small number word as it is or in digits, an
    ordinal by its number ("the 29th minute", "29 minutes in"), a ``person``'s full name also by the surname
    alone ("Patoulidis" for "Evangelos Patoulidis")."""
    ordinal = re.fullmatch(r"(\d+)(?:st|nd|rd|th)", fact.lower())
    digits = ordinal[1] if ordinal else closed_class.NUMERALS.get(fact.lower())
    surname = _words(fact)[-1:] if person and len(_words(fact)) > 1 else []
    return (
        fact.lower() in para.lower()
        or (digits is not None and re.search(rf"\b{digits}\b", para) is not None)
        or (bool(surname) and surname[0] in _words(para))
    )


def _copy_reason(source: str, para: str) -> str:
    """Why ``para`` is a copy of ``source`` and no rewrite, by the reader's rules, else ""."""
    if _words(source) == _words(_strip_marker(para)):
        return (
            f"inserted sentence copies the original {'behind a marker' if para != source else ''}: {para!r}"
        )
    changed, ratio = rewrite_distance(source, _strip_marker(para))
    if changed < 2 or ratio > 0.9:
        return f"inserted sentence is a near copy of the original (only {changed} words changed): {para!r}"
    if (shared := word_type_jaccard(source, para)) >= MAX_JACCARD:
        return (
            f"inserted sentence shares {shared:.0%} of its word types with the original (the same words "
            f"moved, not reworded): {para!r}"
        )
    if _CLEFT.match(squash(para)) and not _CLEFT.match(squash(source)):
        return f"inserted sentence is a 'What ... did was ...' cleft, a template: {para!r}"
    swapped = len(_content_lemmas(source) - _content_lemmas(para))
    if swapped <= MAX_SWAPPED and ratio >= SWAP_SEQUENCE:
        return (
            f"inserted sentence is a word swap of the original ({swapped} content words swapped, the word order "
            f"kept: {ratio:.2f}): {para!r}"
        )
    return ""


def _quotes(quote: str, para: str) -> bool:
    """``para`` keeps the quotation: as it is, or its words in order (a scare-quoted word, "'love'", said
    without the marks: "I love the club")."""
    words, said = _words(quote), _words(para)
    return quote in para or any(said[i : i + len(words)] == words for i in range(len(said)))


# -- issue 36: the whole claim restated in other words, nothing added (the reader's rules of offline-rules/11)

#: a verbatim run of this many words shared with the original is a copied tail, no rephrasing
MAX_RUN = 8
#: runs of 3 or more words shared with the original covering this share of it: its frame kept, a phrase swapped
FRAME_SHARE = 0.6
_RAW = re.compile(r"[^\W_]+")
_AUX = _FINITE_AUX | {"do"}
_TIME = re.compile(
    r"\b(?:(?:last|next|this|earlier this|later this) (?:year|month|week|season|summer|winter|spring|autumn|weekend)"
    r"|yesterday|today|tomorrow)\b",
    re.IGNORECASE,
)
_DANGLING_SAID = re.compile(
    r"\b(?:he|she|they)\s+(?:said|says|added|told|explained|wrote|noted)\b", re.IGNORECASE
)
_QUESTION = re.compile(
    r"^(?:[\w'’-]+, )?(?:what|how|why|which|where|who)\s+(?:is|are|was|were|do|does|did)\b", re.I
)
#: a subordinate clause or purpose: its content must come from the original
_CLAUSE = re.compile(
    r",? \b(?:when|because|after|before|while|since|although|unless|whereas|so that|in order to|to avoid"
    r"|to prevent|to ensure)\b",
    re.IGNORECASE,
)
_SPEAKER = frozenset({"i", "me", "my", "mine", "we", "us", "our", "ours"})


def verbatim_run(source: str, para: str, allow_opening: bool = False) -> int:
    """The longest run of words (lower-cased, split at every non-letter) that ``para`` copies from ``source``;
    with ``allow_opening`` 0 where it opens ``para`` and is at most half of it: a subject said again before a
    restated claim ("The glowing blue letters that once lit the Bronx ... failed to find a buyer"), no tail."""
    a, b = _RAW.findall(source.lower()), _RAW.findall(para.lower())
    m = difflib.SequenceMatcher(None, a, b, autojunk=False).find_longest_match(0, len(a), 0, len(b))
    return 0 if allow_opening and m.b == 0 and 2 * m.size <= len(b) else m.size


def _verb_tier(word: str) -> int:
    """0 an auxiliary, 1 a past or third-person form, 2 a present form, 3 no finite verb."""
    tags = lexicon.word_tags(word.lower())
    return 0 if word.lower() in _AUX else 1 if tags & {"VBD", "VBZ", "MD"} else 2 if "VBP" in tags else 3


def _main_clause(source: str) -> tuple[list[str], list[str]]:
    """The main clause's subject and predicate words: the predicate from its first finite verb on (an auxiliary
    first, else a past or third-person form, else a present form), in the first comma-part that has one (a
    leading "As for ..., " or a relative clause between commas is no main clause)."""
    bare = squash(re.sub(r", (?:who|which|whose) [^,]+,", "", source))
    parts = [_WORD.findall(p) for p in bare.split(", ")]
    tiers = [[_verb_tier(w) for w in words] for words in parts]
    for tier in (0, 1, 2):
        for words, tagged in zip(parts, tiers, strict=True):
            if at := next((k for k, t in enumerate(tagged) if k and t == tier), 0):
                return words[:at], words[at:]
    return [], []


def added_facts(source: str, para: str) -> list[str]:
    """Names, numbers and dates of ``para`` that ``source`` lacks: a longer or shorter form of one of its names
    ("Vivien Leigh" for "Leigh", "Iranian" for "Iran") is none; a time said relative to now ("last year") is."""
    facts = [s.text for s in lexicon.find_entities(source) if s.type in _FACT_TYPES]
    own = set(_words(source))
    added = [
        s.text
        for s in lexicon.find_entities(para)
        if s.type in _FACT_TYPES
        and not set(_words(s.text)) & own
        and not any(keeps_fact(f, s.text) or s.text.lower().startswith(f.lower()) for f in facts)
    ]
    if para.count(NUMBER_MASK) > source.count(NUMBER_MASK):
        added.append(NUMBER_MASK)  # "the genus includes more than <dig> species": a number the sentence lacks
    return added + [m[0] for m in _TIME.finditer(para) if m[0].lower() not in source.lower()]


def _restatement_flaw(source: str, para: str, text: str) -> str:
    """Why ``para`` does not restate the whole claim of ``source`` in other words, else "" (issue 36)."""
    if (run := verbatim_run(source, para, allow_opening=True)) >= MAX_RUN:
        return f"shares a verbatim run of {run} words with the original"
    bare = _strip_marker(para)  # "studies show that" + a copy
    a, b = _RAW.findall(source.lower()), _RAW.findall(bare.lower())
    blocks = difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks()
    # a frame and a tail: two runs ("Rose scored" in the passive: one)
    runs = [m.size for m in blocks if m.size >= 3]
    framed = sum(runs)
    src, own = _content_lemmas(source), _content_lemmas(para)
    new = [w for w in _content_lemmas(bare) - src if not _extends_name(w.capitalize(), para, text or source)]
    if (len(runs) > 1 and framed >= FRAME_SHARE * len(a)) or (framed > 0.5 * len(b) and new):
        return f"keeps the original's wording ({framed} of its words in copied runs) with a phrase swapped"
    subject, predicate = _main_clause(source)
    if len(pred := _content_lemmas(" ".join(predicate))) >= 2 and not pred & own:
        return f"leaves out the original's claim ({' '.join(predicate)!r})"
    said = " ".join(_words(para))
    if term := next((w for w in subject if w.islower() and lexicon.word_zipf(w) < 2 and w not in said), ""):
        return f"leaves out the subject of the original's claim ({term!r})"
    return _added(source, para, text)


_CAUSES = frozenset("cause induce trigger drive promote provoke".split())
_BE_FORMS = frozenset("be is are was were been being".split())


def _sides(words: list[str], k: int) -> tuple[set[str], set[str]]:
    return _content_lemmas(" ".join(words[:k])), _content_lemmas(" ".join(words[k + 1 :]))


def _relation_flaw(source: str, para: str) -> str:
    """A relation turned around ("whether habitat use influenced the colour" for "whether the colour influenced
    habitat use": the same active past-tense verb, the words before it after it and the other way round) or
    a cause the source does not name ("inflammation and cytokines induce the secretion of X" for "X is secreted")."""
    a, b = _words(source), _words(para)

    def verbs(words: list[str]) -> dict[str, int]:
        return {
            min(lemma): k
            for k, w in enumerate(words)
            if k
            and lexicon.word_tags(w) & {"VBD", "VBZ", "VBP"}
            and not _BE_FORMS & set(words[max(0, k - 2) : k])
            if (lemma := lexicon.lemmas(w, "VERB") - _AUXILIARIES)
        }

    va, vb = verbs(a), verbs(b)
    for verb in va.keys() & vb.keys():
        tags = lexicon.word_tags(a[va[verb]]) | lexicon.word_tags(b[vb[verb]])
        if tags <= {"VBD", "VBN"}:  # a past verb only: "guards" is a noun too, "complicated" an adjective
            (left_a, right_a), (left_b, right_b) = _sides(a, va[verb]), _sides(b, vb[verb])
            if left_a & right_b and right_a & left_b:
                return f"turns the relation around ({a[va[verb]]!r})"
    for verb in (vb.keys() - va.keys()) & _CAUSES:
        if len(cause := _sides(b, vb[verb])[0]) >= 2 and not cause & _content_lemmas(source):
            return f"adds a cause ({' '.join(b[: vb[verb]])!r})"
    return ""


def _added(source: str, para: str, text: str) -> str:
    """What ``para`` says that ``source`` does not: a fact, a speaker, a name written in lower case, else ""."""
    if added := added_facts(source, para):
        return f"adds {added[0]!r}, which the original does not state"
    if flaw := _relation_flaw(source, para):
        return flaw
    src = _content_lemmas(source)
    for clause in _CLAUSE.split(para)[1:]:  # "... when he ran from a taxi to avoid paying the fare": a reason
        if len(told := _content_lemmas(clause)) >= 2 and not told & src:
            return f"adds a clause the original does not state ({clause.strip()!r})"
    if _SPEAKER.intersection(_words(para)) and not _SPEAKER.intersection(_words(source)):
        return "speaks in the first person where the original does not"
    if (said := _DANGLING_SAID.search(para)) and not _DANGLING_SAID.search(source):
        return f"attributes it to a speaker the original does not name ({said[0]!r})"
    if _QUESTION.match(squash(para)) and para.rstrip()[-1:] != "?":
        return "a question told as a statement"
    if not lexicon.is_lowercase_text(text or source):
        names = {m[1] for m in _MID_WORD.finditer(text or source) if not lexicon.is_common_word(m[1])}
        if low := next((w for w in _WORD.findall(para) if w.islower() and w.capitalize() in names), ""):
            return f"writes the name {low.capitalize()!r} in lower case"
    return ""


def paraphrase_verdict(source: str, para: str, text: str = "") -> Verdict:
    """Is ``para`` a real paraphrase of ``source``: not a copy, the whole claim restated, nothing added, no new
    errors? ``text``, the whole original, tells names (words it capitalises mid-sentence) from ordinary words."""
    if copy := _copy_reason(source, para):
        return _fail(copy)
    src = _content_lemmas(source)
    kept = len(src & _content_lemmas(para)) / max(1, len(src))
    if kept < 0.5:
        return _fail(f"inserted sentence keeps only {kept:.0%} of the original's content words: {para!r}")
    lost = [
        s.text
        for s in lexicon.find_entities(source)
        if s.type in _FACT_TYPES and not keeps_fact(s.text, para, s.type is EntityType.PERSON)
    ]
    if lost:
        return _fail(f"inserted sentence drops or alters {lost[0]!r}: {para!r}")
    if quote := next((q for q in _QUOTE.findall(source) if not _quotes(q, para)), ""):
        return _fail(f"inserted sentence changes the quotation {quote!r}: {para!r}")
    if flaw := _broken_structure(source, para):
        return _fail(f"inserted sentence is broken ({flaw}): {para!r}")
    if flaw := _new_errors(source, para, text):
        return _fail(f"inserted sentence adds an error ({flaw}): {para!r}")
    if flaw := _restatement_flaw(source, para, text):
        return _fail(f"inserted sentence {flaw}: {para!r}")
    return PASS


def _insertions(orig: list[str], perturbed: str) -> tuple[list[tuple[int, str]], Verdict]:
    """Align: the original sentences in order, plus (index of the source sentence, inserted one).

    The original sentences are found in the perturbed text in order; only the text between them
    is split into sentences (cheaper than re-splitting the whole text, and robust to a sentence
    without final punctuation)."""
    text, cursor, out = squash(perturbed), 0, list[tuple[int, str]]()
    for n, sent in enumerate([*orig, ""]):
        at = text.find(squash(sent), cursor) if sent else len(text)
        if at < 0:
            return [], _fail(f"original sentence {n + 1} missing or changed: {sent!r}")
        between = split_sentences(text[cursor:at]) if text[cursor:at].strip() else []
        if between and n == 0:
            return [], _fail(f"text before the first original sentence: {between[0]!r}")
        if len(between) > 1:
            return [], _fail(f"two sentences inserted after original sentence {n}: {between[1]!r}")
        out.extend((n - 1, b) for b in between)
        cursor = at + len(squash(sent))
    return out, PASS


def check_rewrite_insert(p: Perturbation, original: str, perturbed: str) -> Verdict:
    """Original sentences kept in order, each insertion a paraphrase right after its source."""
    orig = split_sentences(original)
    inserted, verdict = _insertions(orig, perturbed)
    if not verdict.ok:
        return verdict
    for source, sent in inserted:
        verdict = paraphrase_verdict(orig[source], sent, original)
        if not verdict.ok:
            return verdict
    return _count_ok(p, len(inserted), "inserted sentence")


# --------------------------------------------------------------------------- grammatical errors


def _context(original: str, e: DiffRegion) -> grammar_check.Context:
    """The words around the edit in the original ("" at the ends)."""
    before = [t.text for t in lexicon.tokenize(original[max(0, e.old_start - 60) : e.old_start])]
    after = [t.text for t in lexicon.tokenize(original[e.old_end : e.old_end + 60])]
    return grammar_check.Context(
        prev=before[-1] if before else "",
        next=after[0] if after else "",
        text=original,
        after=tuple(after[:3]),
        before=tuple(before[-3:]),
    )


def check_grammatical_errors(p: Perturbation, original: str, perturbed: str) -> Verdict:
    """Every edit is one small, recognised grammatical error; as many as the severity asks."""
    if original.count(NUMBER_MASK) != perturbed.count(NUMBER_MASK):
        return _fail(f"the number mask {NUMBER_MASK} was changed")
    verdict, n = grammar_error_verdict(original, perturbed)
    return verdict if not verdict.ok else _count_ok(p, n, "grammatical error")


def grammar_error_verdict(original: str, perturbed: str) -> tuple[Verdict, int]:
    """Is every edit one small, recognised grammatical error? (The verdict, and the number of edits.)"""
    edits = token_edits(original, perturbed)
    for e in edits:
        ctx = _context(original, e)
        pattern, reason = grammar_check.error_pattern([t.text for t in e.old], [t.text for t in e.new], ctx)
        if not pattern:
            return _fail(reason), len(edits)
    return PASS, len(edits)
