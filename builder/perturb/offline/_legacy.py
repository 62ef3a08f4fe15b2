"""Offline, rule-based stand-in for the LLM-based perturbations (used when no ``--perturber`` is given).

It covers the same word- and sentence-level rows as the LLM does, with simple, inspectable rules:

* **fictional entities** - numbers, month names, capitalised name spans (and, in lowercased texts,
  technical terms containing digits or hyphens) are replaced by values from a seeded generator of
  fictional names, places, numbers and terms;
* **grammatical errors** - subject-verb agreement (is/are, was/were, has/have, ...), verb tense
  (irregular verbs after auxiliaries, past -> base form), preposition misuse and article misuse;
* **rewriting and insertion** - a light paraphrase of a sentence (synonyms and connectives, else a
  discourse marker) is inserted right after it.

Minor / single severity makes one change; major makes several (at least two, so an item with a
single candidate is *not applicable* at major severity). Every row records
``generator = offline-rules/<OFFLINE_VERSION>``; the CLI and the card say these rows were not
written by an LLM.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass

from dhp.builder.perturb.base import NotApplicable, Outcome, Perturbed
from dhp.builder.textstats import split_sentences
from dhp.types import Operation, Severity

__all__ = [
    "OFFLINE_GENERATOR",
    "OFFLINE_VERSION",
    "Edit",
    "entity_edits",
    "fictional_entities",
    "grammar_edits",
    "grammatical_errors",
    "offline_perturb",
    "rewrite_insert",
]

OFFLINE_VERSION = "1"
OFFLINE_GENERATOR = f"offline-rules/{OFFLINE_VERSION}"
MAJOR_CHANGES = 3  # "several": up to three changes, at least two


@dataclass(frozen=True)
class Edit:
    """Replace ``text[start:end]`` by ``new``; ``kind`` names the rule."""

    start: int
    end: int
    new: str
    kind: str


def _apply(text: str, edits: list[Edit]) -> str:
    out = text
    for e in sorted(edits, key=lambda e: e.start, reverse=True):
        out = out[: e.start] + e.new + out[e.end :]
    return out


def _pick_disjoint(cands: list[Edit], n: int, rng: random.Random) -> list[Edit]:
    """Up to ``n`` random non-overlapping edits, preferring different kinds."""
    pool = cands[:]
    rng.shuffle(pool)
    chosen: list[Edit] = []
    kinds: set[str] = set()
    for prefer_new_kind in (True, False):
        for e in pool:
            if len(chosen) >= n:
                break
            if e in chosen or (prefer_new_kind and e.kind in kinds):
                continue
            if any(e.start < c.end and c.start < e.end for c in chosen):
                continue
            chosen.append(e)
            kinds.add(e.kind)
    return chosen


def _count(severity: Severity) -> tuple[int, int]:
    """(minimum, maximum) number of changes for a severity."""
    return (2, MAJOR_CHANGES) if severity is Severity.MAJOR else (1, 1)


# -- fictional named entities ------------------------------------------------------------------
_FIRST = (
    "Alvar",
    "Brisa",
    "Corvin",
    "Delphine",
    "Emrick",
    "Faelan",
    "Galiena",
    "Havel",
    "Isolde",
    "Jorvik",
    "Kestra",
    "Lorcan",
    "Mirela",
    "Nandor",
    "Orla",
    "Peregrin",
    "Quilla",
    "Rosmer",
    "Sabine",
    "Tobiah",
    "Ulla",
    "Varek",
    "Wren",
    "Ysolde",
    "Zanthe",
)
_LAST = (
    "Ashgrove",
    "Brennick",
    "Calloway",
    "Dunmere",
    "Elsworth",
    "Fallowmere",
    "Greythorn",
    "Halvorsen",
    "Ironwood",
    "Jessup",
    "Kettering",
    "Larkspur",
    "Marwick",
    "Northam",
    "Oakhurst",
    "Pendrell",
    "Quenby",
    "Ravensworth",
    "Stavely",
    "Thornbury",
    "Umberfield",
    "Vantrell",
    "Whitlock",
    "Yarrow",
)
_PLACES = (
    "Valdoria",
    "Brenmoor",
    "Castelvane",
    "Dorrinford",
    "Eastmarch",
    "Faircliff",
    "Glenhallow",
    "Harrowgate",
    "Islevar",
    "Jaspertown",
    "Kilmaren",
    "Lundermere",
    "Morrowdale",
    "Nethercombe",
    "Oskavia",
    "Port Ellery",
)
_SYLLABLES = ("zor", "vat", "quel", "mir", "dax", "lun", "tre", "phos", "kel", "brin", "sor", "ven")
_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
#: Capitalised words that start sentences without being names.
_COMMON = frozenset(
    """a an the he she it they we i you his her its their our my your this that these those there here
    then when after before while as at in on of for to from by with without but and or so if because
    although though since until once however also meanwhile today yesterday tomorrow now one two three
    some many most all every each both no not yes what who which where why how mr mrs ms dr st
    monday tuesday wednesday thursday friday saturday sunday is was are were be been has have had
    do does did will would can could should may might must""".split()
)
#: Endings of sentence-initial words that are almost never names (without a lexicon to ask).
_NON_NAME_ENDINGS = ("ing", "ed", "ly", "ally", "ness", "ment", "tion", "ever", "ward", "wards")
_NAME_SPAN = re.compile(r"\b[A-Z][a-zA-Z'’.-]*(?:\s+(?:of\s+|de\s+|van\s+)?[A-Z][a-zA-Z'’.-]*)*")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?![\w])")
_MONTH = re.compile(r"\b(" + "|".join(_MONTHS) + r")\b")
#: Technical terms in lowercased text (SumPubMed): "atg <dig>", letter-digit mixes ("map1lc3a"),
#: vowel-less acronyms ("msc", "hrpl"), hyphenated compounds with one ("cdte-gsh"), enzymes ("-ase").
_TECH = re.compile(
    r"\b[a-z][a-z0-9-]*\s<dig>"
    r"|\b[a-z]*\d[a-z0-9-]*[a-z][a-z0-9-]*\b"
    r"|\b(?:[a-z]+-)*[b-df-hj-np-tv-xz]{2,5}(?:-[a-z0-9]+)*\b"
    r"|\b[a-z]{3,}ases?\b"
)


def _fictional_name(words: int, rng: random.Random) -> str:
    if words >= 2:
        return f"{rng.choice(_FIRST)} {rng.choice(_LAST)}"
    return rng.choice(_LAST + _PLACES)


def _fictional_number(num: str, rng: random.Random) -> str:
    digits = num.replace(",", "").replace(".", "")
    for _ in range(20):
        first = str(rng.randint(1, 9)) if len(digits) > 1 else str(rng.randint(0, 9))
        new = first + "".join(str(rng.randint(0, 9)) for _ in digits[1:])
        # keep the original's separators
        out, j = [], 0
        for ch in num:
            if ch.isdigit():
                out.append(new[j])
                j += 1
            else:
                out.append(ch)
        cand = "".join(out)
        if cand != num:
            return cand
    return num + "7"


def _fictional_term(rng: random.Random) -> str:
    return "".join(rng.choice(_SYLLABLES) for _ in range(3)) + f"-{rng.randint(2, 99)}"


def entity_edits(text: str, rng: random.Random) -> list[Edit]:
    """Every entity the offline generator can replace, each with a fictional replacement."""
    edits: list[Edit] = []
    sentence_starts = {m.end() for m in re.finditer(r"(?:^|[.!?]\s+|\n)[\"'“(]*", text)}
    capitalised_elsewhere = {
        m.group(0) for m in re.finditer(r"\b[A-Z][a-z]+\b", text) if m.start() not in sentence_starts
    }
    for m in _NAME_SPAN.finditer(text):
        span = m.group(0).rstrip(".")
        words = span.split()
        if (
            m.start() in sentence_starts
            and len(words) == 1
            and span not in capitalised_elsewhere
            and (len(span) < 3 or span.lower().endswith(_NON_NAME_ENDINGS))
        ):
            continue  # an ordinary word opening a sentence, e.g. "So", "Facing", "Unfortunately"
        if len(words) == 1 and span.lower() in _COMMON:
            continue
        lead = words[0].lower()
        if lead in _COMMON or (m.start() in sentence_starts and lead.endswith(_NON_NAME_ENDINGS)):
            # "The Guardian", "Unfortunately Paris" -> keep the first word, replace the rest
            rest = span[len(words[0]) :].lstrip()
            if not rest:
                continue
            start = m.start() + span.index(rest)
            edits.append(Edit(start, start + len(rest), _fictional_name(len(rest.split()), rng), "name"))
            continue
        if _MONTH.fullmatch(span):
            continue
        edits.append(Edit(m.start(), m.start() + len(span), _fictional_name(len(words), rng), "name"))
    for m in _MONTH.finditer(text):
        other = [x for x in _MONTHS if x != m.group(0)]
        edits.append(Edit(m.start(), m.end(), rng.choice(other), "date"))
    for m in _NUMBER.finditer(text):
        edits.append(Edit(m.start(), m.end(), _fictional_number(m.group(0), rng), "number"))
    if sum(c.isupper() for c in text) <= 2:  # lowercased text (SumPubMed): technical terms
        for m in _TECH.finditer(text):
            edits.append(Edit(m.start(), m.end(), _fictional_term(rng), "term"))
        for m in re.finditer(r"<dig>", text):  # SumPubMed's digit placeholder: give it a fictional value
            edits.append(Edit(m.start(), m.end(), str(rng.randint(2, 99)), "number"))
    return edits


def fictional_entities(text: str, severity: Severity, rng: random.Random) -> Outcome:
    """Replace one (minor/single) or several (major) entities by fictional counterparts.

    An entity is a distinct surface string: all its occurrences get the same fictional value, as a
    careful human (or LLM) editor would do.
    """
    lo, hi = _count(severity)
    groups: dict[str, list[Edit]] = {}
    for e in entity_edits(text, rng):
        surface = text[e.start : e.end]
        if surface != e.new:
            groups.setdefault(surface, []).append(e)
    names = sorted(groups)
    rng.shuffle(names)
    chosen: list[Edit] = []
    picked: list[str] = []
    for name in names:
        if len(picked) >= hi:
            break
        first = groups[name][0]
        occ = [Edit(e.start, e.end, first.new, first.kind) for e in groups[name]]
        if any(o.start < c.end and c.start < o.end for o in occ for c in chosen):
            continue
        chosen += occ
        picked.append(name)
    if len(picked) < lo:
        return NotApplicable(
            f"{len(picked)} named entities found; {severity.value} severity needs at least {lo}"
        )
    return Perturbed(
        _apply(text, chosen), OFFLINE_GENERATOR, {"changes": [groups[n][0].kind for n in picked]}
    )


# -- grammatical errors ----------------------------------------------------------------------
_AGREE = {
    "is": "are",
    "are": "is",
    "was": "were",
    "were": "was",
    "has": "have",
    "have": "has",
    "does": "do",
    "doesn't": "don't",
    "don't": "doesn't",
    "isn't": "aren't",
    "aren't": "isn't",
    "wasn't": "weren't",
    "weren't": "wasn't",
}
_IRREGULAR = {  # base: (past, participle)
    "go": ("went", "gone"),
    "take": ("took", "taken"),
    "see": ("saw", "seen"),
    "come": ("came", "come"),
    "get": ("got", "gotten"),
    "make": ("made", "made"),
    "give": ("gave", "given"),
    "know": ("knew", "known"),
    "find": ("found", "found"),
    "tell": ("told", "told"),
    "become": ("became", "become"),
    "leave": ("left", "left"),
    "feel": ("felt", "felt"),
    "bring": ("brought", "brought"),
    "begin": ("began", "begun"),
    "keep": ("kept", "kept"),
    "hold": ("held", "held"),
    "write": ("wrote", "written"),
    "stand": ("stood", "stood"),
    "run": ("ran", "run"),
    "win": ("won", "won"),
    "lose": ("lost", "lost"),
    "buy": ("bought", "bought"),
    "eat": ("ate", "eaten"),
    "say": ("said", "said"),
    "think": ("thought", "thought"),
    "show": ("showed", "shown"),
    "grow": ("grew", "grown"),
    "fall": ("fell", "fallen"),
    "drive": ("drove", "driven"),
    "speak": ("spoke", "spoken"),
    "meet": ("met", "met"),
    "pay": ("paid", "paid"),
    "sell": ("sold", "sold"),
    "send": ("sent", "sent"),
    "build": ("built", "built"),
    "spend": ("spent", "spent"),
    "break": ("broke", "broken"),
    "choose": ("chose", "chosen"),
    "forget": ("forgot", "forgotten"),
    "throw": ("threw", "thrown"),
}
_PAST_TO_BASE = {p: b for b, (p, _) in _IRREGULAR.items() if p != b}
_PART_TO_PAST = {pp: p for _, (p, pp) in _IRREGULAR.items() if pp != p}
_AUX = r"(?:will|would|can|could|should|must|did|didn't|does|doesn't|do|don't|to)"
_PREPS = ("in", "on", "at", "to", "for", "of", "from", "with", "by", "about", "into")
_PREP_SWAP = {
    "in": "on",
    "on": "in",
    "at": "on",
    "to": "for",
    "for": "to",
    "of": "for",
    "from": "of",
    "with": "by",
    "by": "with",
    "about": "of",
    "into": "onto",
}


def _case_like(src: str, new: str) -> str:
    return new[:1].upper() + new[1:] if src[:1].isupper() else new


def grammar_edits(text: str, rng: random.Random) -> list[Edit]:
    """Every grammatical error the offline generator can introduce, one edit per site."""
    edits: list[Edit] = []
    for m in re.finditer(r"\b(" + "|".join(re.escape(w) for w in _AGREE) + r")\b", text, flags=re.IGNORECASE):
        w = m.group(0)
        edits.append(Edit(m.start(), m.end(), _case_like(w, _AGREE[w.lower()]), "agreement"))
    for m in re.finditer(rf"\b{_AUX}\s+({'|'.join(_IRREGULAR)})\b", text, flags=re.IGNORECASE):
        base = m.group(1)
        edits.append(Edit(m.start(1), m.end(1), _case_like(base, _IRREGULAR[base.lower()][0]), "tense"))
    for m in re.finditer(rf"\b(?:has|have|had)\s+({'|'.join(_PART_TO_PAST)})\b", text, flags=re.IGNORECASE):
        pp = m.group(1)
        edits.append(Edit(m.start(1), m.end(1), _case_like(pp, _PART_TO_PAST[pp.lower()]), "tense"))
    for m in re.finditer(
        rf"\b(?<!(?:as|to|ve|ll|ld)\s)({'|'.join(_PAST_TO_BASE)})\b", text, flags=re.IGNORECASE
    ):
        w = m.group(1)
        edits.append(Edit(m.start(1), m.end(1), _case_like(w, _PAST_TO_BASE[w.lower()]), "tense"))
    for m in re.finditer(r"\b(" + "|".join(_PREPS) + r")\b", text):
        edits.append(Edit(m.start(), m.end(), _PREP_SWAP[m.group(0)], "preposition"))
    for m in re.finditer(r"\b(a|an|A|An)\s+(\w)", text):
        art, nxt = m.group(1), m.group(2)
        wrong = "an" if art.lower() == "a" else "a"
        if (nxt.lower() in "aeiou") == (art.lower() == "an"):  # the article was right: make it wrong
            edits.append(Edit(m.start(1), m.end(1), _case_like(art, wrong), "article"))
    for m in re.finditer(r"\b(the|The)\s+(?=\w)", text):
        if m.group(1) == "The":
            continue
        edits.append(Edit(m.start(), m.end(), "", "article"))
    return edits


def grammatical_errors(text: str, severity: Severity, rng: random.Random) -> Outcome:
    """Introduce one (minor/single) or several (major) grammatical errors."""
    return _edit_outcome(text, grammar_edits(text, rng), severity, rng, "grammatical error sites")


def _edit_outcome(text: str, cands: list[Edit], severity: Severity, rng: random.Random, what: str) -> Outcome:
    lo, hi = _count(severity)
    cands = [e for e in cands if text[e.start : e.end] != e.new]
    chosen = _pick_disjoint(cands, hi, rng)
    if len(chosen) < lo:
        return NotApplicable(f"{len(chosen)} {what} found; {severity.value} severity needs at least {lo}")
    out = _apply(text, chosen)
    if out == text:
        return NotApplicable(f"the {what} found do not change the text")
    return Perturbed(
        out, OFFLINE_GENERATOR, {"changes": [e.kind for e in sorted(chosen, key=lambda e: e.start)]}
    )


# -- rewriting and insertion -------------------------------------------------------------------
_SYNONYMS = {
    "said": "stated",
    "says": "states",
    "big": "large",
    "large": "big",
    "small": "little",
    "also": "as well",
    "many": "numerous",
    "show": "demonstrate",
    "shows": "demonstrates",
    "showed": "demonstrated",
    "because": "since",
    "however": "nevertheless",
    "but": "yet",
    "important": "significant",
    "help": "assist",
    "helped": "assisted",
    "use": "employ",
    "used": "employed",
    "began": "started",
    "started": "began",
    "found": "discovered",
    "get": "obtain",
    "got": "obtained",
    "very": "highly",
    "new": "novel",
    "often": "frequently",
    "quickly": "rapidly",
    "buy": "purchase",
    "bought": "purchased",
    "told": "informed",
    "need": "require",
    "needs": "requires",
    "wanted": "wished",
    "want": "wish",
    "hard": "difficult",
    "whole": "entire",
    "before": "prior to",
    "after": "following",
    "increase": "rise",
}
_MARKERS = ("In other words, ", "Put differently, ", "That is to say, ", "To put it another way, ")


def _paraphrase(sentence: str, rng: random.Random) -> str:
    def swap(m: re.Match[str]) -> str:
        w = m.group(0)
        return _case_like(w, _SYNONYMS[w.lower()])

    pattern = re.compile(r"\b(" + "|".join(_SYNONYMS) + r")\b", flags=re.IGNORECASE)
    out = pattern.sub(swap, sentence)
    if out != sentence:
        return out
    marker = rng.choice(_MARKERS)
    if (
        sentence[:1].isupper()
        and not sentence.split()[0].isupper()
        and sentence.split()[0].lower() in _COMMON
    ):
        return marker + sentence[:1].lower() + sentence[1:]
    if not any(c.isupper() for c in sentence):
        return marker.lower() + sentence
    return marker + sentence


def rewrite_insert(text: str, severity: Severity, rng: random.Random) -> Outcome:
    """Paraphrase one (minor) or several (major) sentences, each inserted right after its original."""
    sents = split_sentences(text)
    lo, hi = _count(severity)
    if len(sents) < lo:
        return NotApplicable(f"{len(sents)} sentence(s); {severity.value} severity rewrites at least {lo}")
    chosen = sorted(rng.sample(range(len(sents)), min(hi, len(sents))))
    out: list[str] = []
    for i, s in enumerate(sents):
        out.append(s)
        if i in chosen:
            out.append(_paraphrase(s, rng))
    return Perturbed(" ".join(out), OFFLINE_GENERATOR, {"rewritten_sentences": [i + 1 for i in chosen]})


_OFFLINE: dict[Operation, Callable[[str, Severity, random.Random], Outcome]] = {
    Operation.FICTIONAL_ENTITIES: fictional_entities,
    Operation.GRAMMATICAL_ERRORS: grammatical_errors,
    Operation.REWRITE_INSERT: rewrite_insert,
}


def offline_perturb(operation: Operation, text: str, severity: Severity, rng: random.Random) -> Outcome:
    """Dispatch an LLM-row operation to its offline rule."""
    try:
        fn = _OFFLINE[operation]
    except KeyError:
        raise ValueError(f"no offline generator for operation {operation.value!r}") from None
    return fn(text, severity, rng)
