"""Rewriting and insertion without an LLM: rephrasings people wrote, inserted after their original.

A summary's sources already hold human rephrasings of many of its sentences: a SummEval reference
restates sentences of its article (and the other references of the same article restate it), a
SumPubMed abstract is restated in the paper's body. A source sentence often carries other details too,
so the pool holds each source sentence and the clauses left when a safe part is cut (``_trims``: a
leading attribution or adverbial clause, a parenthesis, a relative clause between commas, a trailing
subordinate, participial or coordinated clause); a cut may drop no content word of the sentence it
restates. Each sentence of the judged text is aligned with the source sentence or clause that says the
same in other words:

* content overlap high both ways: at least 50% of the sentence's content lemmas (names, numbers and
  dates aside) are in the source sentence, and at least 50% of the source sentence's in the sentence,
  which is at most half as long again;
* surface overlap clearly lower: under 60% of the lower-cased word types shared, and a word-sequence
  similarity under 0.7 (no near copy, no thesaurus swap of the same sentence);
* one sentence that reads on its own: no pronoun, demonstrative or connective first, no fragment, no list
  bullet; a citation mask ("<cit>") is left out;
* the validator accepts it (every name, number and date kept, none added, no "we" where the sentence has none).

The best aligned sentence (the highest overlap both ways less the shared word types) is inserted right after
its original (minor one, major two or three) unless it says more or less (``added_or_dropped``, issue 36: no
name or number the text lacks, at most two content words it lacks and none side by side, a main verb it has,
the sentence's main verb kept): refused, never replaced. Too few left: not applicable, with the reason.
"""

from __future__ import annotations

import difflib
import functools
import random
import re
from collections.abc import Mapping, Sequence
from itertools import pairwise

from dhp.builder.perturb import lexicon, validate
from dhp.builder.perturb.base import NotApplicable, Outcome, Perturbed
from dhp.builder.perturb.lexicon import word_tags
from dhp.builder.perturb.offline.edits import WORD, change_count, lemmas
from dhp.builder.perturb.validate import _AUX, _AUXILIARIES, _FUNCTION_ZIPF, _main_clause, paraphrase_verdict
from dhp.builder.textstats import split_sentences
from dhp.types import Severity

__all__ = ["aligned", "rewrite_insert"]

#: at least this share of each sentence's content lemmas (names, numbers and dates aside) is in the other
MIN_CONTENT = 0.5
#: the rephrasing is at most this many times as long as its sentence, in words (no added story)
MAX_LENGTH = 1.5
#: under this share of lower-cased word types shared, and under this word-sequence similarity
MAX_SHARED_TYPES = 0.6
MAX_SEQUENCE = 0.7
_FACTS = validate._FACT_TYPES  # names, numbers and dates: a rephrasing keeps them all
#: a sentence that leans on the one before it ("They repress ...", "This shows ...", "Then ...") or is a list item
_DEPENDENT = re.compile(
    r"^(?:\W|(?:it|its|they|their|them|this|these|those|such|he|she|his|her|then|and|but|or|also)\b)", re.I
)
#: a subordinate or infinitive clause first: a fragment unless a comma leads to a main clause with a finite verb
_SUBORDINATE = re.compile(r"(?:although|though|because|whereas|while|if|unless|to)\b", re.I)
_CITATION = re.compile(r"\s*<cit>")
_TIGHT = re.compile(r" ([,;:.!?])(?=\s|$)")  # "lc3c , gabarap", "... cells .": the tokeniser's space
#: parts of a source sentence that carry other details and can be cut leaving a sentence (``_trims``)
_PARENS = re.compile(r"\s*(?:\([^()]*\)|\[[^\]]*\])")
_RELATIVE = re.compile(r", (?:who|which|whose) [^,]+,(?= )")
_LEAD = re.compile(
    r"^(?:according to [^,]{1,60}, |(?:after|when|while|although|though|as|since|because|despite|in addition"
    r"|however|moreover|furthermore|therefore|thus|meanwhile|instead|indeed)\b[^,]{0,80}, |(?:[\w'’.-]+ ){1,6}"
    r"(?:(?:said|says|told [\w ]{1,30}?|added|explained|believes?|believed|thinks?|claimed|claims)(?: that)?,? "
    r"|(?:revealed|stated|reported|suggested|suggests|argued|showed|shown|demonstrated|found) that ))",
    re.I,
)
_TAIL = re.compile(
    r"(?:, (?:when|while|as|after|before|which|who|whom|whose|where|because|although|though|since|whereas"
    r"|but|and|including|with|leaving|making|according|despite|so|until|amid|following|[a-z]+ing)\b"
    r"|, [^,]{1,40} (?:said|says|added)\b|; | [-–] )"
)
_DANGLING = frozenset("and or but that the a an of to with as which who in on for by is was are were".split())
_FINITE_TAGS = frozenset({"VBD", "VBZ", "MD"})  # not VBP: "bridge", "near" are base forms too
#: content words a rephrasing may bring that its text lacks (a synonym swapped in); more is an added detail
MAX_ADDED = 2
_VERB_TAGS = frozenset({"VBD", "VBZ", "VBP", "VBN", "VBG"})
_TOKEN = re.compile(r"[A-Za-z]{2,}|\d+(?:[.,]\d+)*")  # a hyphen or an apostrophe splits: "semi-finalist"


@functools.lru_cache(maxsize=50_000)
def _lemma(word: str) -> str | None:
    """The content lemma of a lower-case word, None for a function word or auxiliary."""
    if lexicon.word_zipf(word) >= _FUNCTION_ZIPF:
        return None
    found = {lemma for forms in lemmas(word).values() for lemma in forms} - _AUXILIARIES
    return min(found) if found else None if lemmas(word) else word


def _content(sentence: str, facts: frozenset[str]) -> frozenset[str]:
    """Content lemmas of ``sentence`` but the words of its facts (equal in a rephrasing by rule)."""
    named = {w for f in facts for w in WORD.findall(f)}
    return frozenset(x for w in WORD.findall(sentence.lower()) if w not in named for x in [_lemma(w)] if x)


def _words(sentence: str) -> list[str]:
    return [w.lower() for w in WORD.findall(sentence)] + re.findall(r"\d+(?:[.,]\d+)*", sentence)


def _facts(sentence: str) -> frozenset[str]:
    return frozenset(s.text.lower() for s in lexicon.find_entities(sentence) if s.type in _FACTS)


def _score(sentence: str, other: str, text: str = "") -> float | None:
    """How well ``other`` rephrases ``sentence`` (overlap both ways less the word types shared), None where
    it says something else, copies it (any run of 8 words, an opening too: stricter than the validator), adds
    or drops a fact, or the validator rejects it in ``text``."""
    facts = _facts(sentence)
    a, b = _content(sentence, facts), _content(other, facts)
    wa, wb = _words(sentence), _words(other)
    if not a or not b or _fragment(other) or len(wb) > MAX_LENGTH * len(wa):
        return None
    shared = len(a & b)
    if shared < MIN_CONTENT * len(a) or shared < MIN_CONTENT * len(b):
        return None
    types = len(set(wa) & set(wb)) / max(1, len(set(wa) | set(wb)))
    if (
        types >= MAX_SHARED_TYPES
        or difflib.SequenceMatcher(None, wa, wb, autojunk=False).ratio() >= MAX_SEQUENCE
        or validate.verbatim_run(sentence, other) >= validate.MAX_RUN
    ):
        return None
    return shared / len(a) + shared / len(b) - types if paraphrase_verdict(sentence, other, text).ok else None


def _cuts_shared(sentence: str, clause: str, full: str) -> bool:
    """Did trimming ``full`` to ``clause`` cut words of the sentence's content ("..., resulting in an
    investigation being launched" for "Probe was launched after ...")? Only other details may be cut."""
    facts = _facts(sentence)
    return bool((_content(full, facts) - _content(clause, facts)) & _content(sentence, facts))


def added_names(other: str, text: str) -> list[str]:
    """Numbers and names (a capitalised word, not the first, that is no common word) of ``other`` not in ``text``."""
    known = set(_TOKEN.findall(text.lower()))
    return [
        w
        for k, w in enumerate(_TOKEN.findall(other))
        if (w[0].isdigit() or (k and w[0].isupper() and not lexicon.is_common_word(w)))
        and w.lower() not in known
    ]


def added_lemmas(other: str, text: str) -> list[str]:
    """Each word's content lemma where ``text`` lacks it, else "" (a synonym swapped in, or an added detail)."""
    own = {x for w in _TOKEN.findall(text.lower()) for x in [_lemma(w) or w]}
    return [x if (x := _lemma(w)) and x not in own else "" for w in _TOKEN.findall(other.lower())]


def main_verb(sentence: str) -> tuple[str, frozenset[str]]:
    """The verb of the main clause of ``sentence`` and its lemmas: after a leading attribution ("Experts say
    ..."), its auxiliaries and a catenative verb ("went on to score"); none in "The first one was Callum ..."."""
    words = [
        w.lower()
        for w in _main_clause(_LEAD.sub("", sentence, count=1))[1]
        if w.lower() not in _AUX | {"be", "been", "being"}
    ]
    m = re.match(r"\S+(?: on)? to (\S+)", " ".join(words))  # "rushed to the hospital": no catenative
    verb = m[1] if m and "VB" in word_tags(m[1]) else (words or [""])[0]
    return verb, lexicon.lemmas(verb, "VERB") - _AUXILIARIES if word_tags(verb) & _VERB_TAGS else frozenset()


def added_or_dropped(sentence: str, other: str, text: str) -> str:
    """Why ``other`` would say more or less than ``sentence`` of ``text``, else "" (issue 36: refuse rather
    than emit): a number or a name the text lacks ("Vivien"), more than ``MAX_ADDED`` content lemmas the text
    lacks ("revised ... teenage prospect") or two side by side ("semi-finalist"), a main verb the text lacks
    ("A & E will be remaking ..."), or the sentence's main verb left out ("He was rushed to the hospital with
    deep cuts" restated as "... were cut very deeply")."""
    if new := added_names(other, text):
        return f"a name or number the text lacks ({new[0]!r})"
    added = added_lemmas(other, text)
    if len(extra := {x for x in added if x}) > MAX_ADDED or any(x and y for x, y in pairwise(added)):
        return f"content words the text lacks ({', '.join(sorted(extra))})"
    said = {x for w in _TOKEN.findall(text.lower()) for x in lexicon.lemmas(w) | {w}}
    if (verb := main_verb(other))[1] and not verb[1] & said:
        return f"a main verb the text lacks ({verb[0]!r})"
    verb = main_verb(sentence)
    if verb[1] and not verb[1] & {x for w in _TOKEN.findall(other.lower()) for x in lexicon.lemmas(w) | {w}}:
        return f"the main verb {verb[0]!r} left out"
    return ""


def aligned(sentence: str, pool: Mapping[str, str] | Sequence[str], text: str = "") -> str | None:
    """The source sentence or clause of ``pool`` that best says what ``sentence`` (of ``text``) says in other
    words, or None; a mapping ``pool`` gives each clause's source sentence (``_pool``)."""
    origin = pool if isinstance(pool, Mapping) else {s: s for s in pool}
    scored = [
        (s, other)
        for other, full in origin.items()
        if (s := _score(sentence, other, text)) is not None and not _cuts_shared(sentence, other, full)
    ]
    return max(scored, key=lambda x: x[0])[1] if scored else None


def _finite(words: Sequence[str]) -> bool:
    return any(w.lower() in _AUX or word_tags(w) & _FINITE_TAGS for w in words)


def _fragment(sentence: str) -> bool:
    """A subordinate or infinitive clause alone ("Although Juventus are reluctant to lose the league's top
    scorer.", "to play a role in plant senescence, stress responses, ...") or a sentence leaning on the one
    before it; "To determine ..., we used ..." is none: a part after a comma has a subject and a finite verb
    (a verb after its first word, no "and" or "or" first)."""
    if _DEPENDENT.search(sentence):
        return True
    if not _SUBORDINATE.match(sentence):
        return False
    parts = [WORD.findall(p) for p in sentence.split(",")[1:]]
    return not any(w and w[0].lower() not in {"and", "or"} and _finite(w[1:]) for w in parts)


def _complete(clause: str) -> bool:
    """Does a trimmed clause read as a sentence: five words or more, a finite verb, no word left dangling at
    its end ("... and."), its brackets and double quotes paired?"""
    words = WORD.findall(clause)
    return (
        len(words) >= 5
        and words[-1].lower() not in _DANGLING
        and _finite(words)
        and clause.count("(") == clause.count(")")
        and clause.count('"') % 2 == 0
        and clause.count("“") == clause.count("”")
    )


def _trims(sentence: str) -> list[str]:
    """``sentence`` and the sentences left when safe parts carrying other details are cut: a leading
    attribution ("Police said that ...", "According to X, ..."), a leading adverbial clause ("After ...,"),
    a parenthesis, a relative clause between commas, and whatever follows the first comma before a
    subordinate, relative, participial or coordinated clause, a semicolon or a dash."""
    bare = " ".join(_PARENS.sub("", _RELATIVE.sub(" ", sentence)).split())
    heads = {bare, _LEAD.sub("", bare, count=1)}
    out: dict[str, None] = {sentence: None}
    for head in sorted(heads):
        for body in (head, _TAIL.split(head, maxsplit=1)[0]):
            clause = body.strip().rstrip(",;:-– ").rstrip(".!? ")
            clause = (clause[:1].upper() if sentence[:1].isupper() else clause[:1]) + clause[1:] + "."
            if clause != sentence and _complete(clause):
                out.setdefault(clause, None)
    return list(out)


def _pool(sources: Sequence[str], sentences: Sequence[str]) -> dict[str, str]:
    """The sentences of the sources and their trimmed clauses (``_trims``), each once, none of the judged
    text's own, stripped: each mapped to the source sentence it comes from."""
    own = {" ".join(s.split()) for s in sentences}
    out: dict[str, str] = {}
    for source in sources:
        for s in split_sentences(source):
            if s.startswith("<cit>"):
                continue  # "<cit> proposed the use of ...": its subject was the citation
            s = _TIGHT.sub(r"\1", " ".join(_CITATION.sub("", s).split()))
            if s not in own and s[-1:] in ".!?":
                for clause in _trims(s):
                    out.setdefault(clause, s)
    return out


def rewrite_insert(
    text: str, severity: Severity, rng: random.Random, generator: str, sources: Sequence[str]
) -> Outcome:
    """Insert a human rephrasing of one (minor) or two to three (major) sentences right after each."""
    sents = split_sentences(text)
    lo, hi = change_count(severity)
    pool = _pool(sources, sents)
    found = [
        (i, a)
        for i, s in enumerate(sents)
        if (a := aligned(s, pool, text)) is not None and not added_or_dropped(s, a, text)
    ]
    cands = [(i, a) for k, (i, a) in enumerate(found) if pool[a] not in {pool[b] for _, b in found[:k]}]
    if len(cands) < lo:
        return NotApplicable(
            f"{len(cands)} of {len(sents)} sentence(s) have a rephrasing in the sources (content shared both "
            f"ways >= {MIN_CONTENT:.0%}, word types shared < {MAX_SHARED_TYPES:.0%}, the same names and "
            f"numbers, no name, number or over {MAX_ADDED} content words the text lacks, the main verb kept; "
            f"{len(pool)} source sentences and clauses); {severity.value} severity inserts {lo}"
        )
    chosen = sorted(rng.sample(cands, min(len(cands), rng.randint(lo, hi))))
    out, pos = [], 0
    for i, para in chosen:
        at = text.find(sents[i], pos)
        if at < 0:
            return NotApplicable(f"sentence {i + 1} could not be located in the text")
        out.append(text[pos : at + len(sents[i])] + " " + para)
        pos = at + len(sents[i])
    out.append(text[pos:])
    return Perturbed("".join(out), generator, {"rewritten_sentences": [i + 1 for i, _ in chosen]})
