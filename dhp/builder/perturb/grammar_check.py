"""Does one small edit make a sentence ungrammatical without changing what it says?

The paper's grammatical-error perturbation (Table 2) names the error types: subject-verb
disagreement, noun-pronoun disagreement, incorrect verb tense, misuse of prepositions, sentence
fragments (and article misuse, the commonest learner error). Without a parser, an edit is accepted
only when it matches one of these patterns *and* the context shows it is wrong:

- a verb form of the same lemma after "to", a modal, "do", "have" or "be" that those cannot take,
  or that disagrees with a pronoun or noun subject just before it, or a tense that clashes with
  the other verbs of the text; the new form must not be a word of its own ("find" -> "found"
  is "to found", a different verb);
- "is/are/was/were/has/have/does/do" swapped against its subject;
- a noun's number changed against its determiner or the verb after it;
- "a"/"an" against the next word's sound, or before a plural noun;
- a pronoun's case ("gave it to he") or number ("the boys lost his") changed;
- a preposition swapped after a word that governs a known set of prepositions ("depend on",
  "interested in") for one outside that set ("fed with" -> "fed by" stays grammatical: rejected);
- a fragment: an auxiliary, copula or subject pronoun deleted (never a content word: "Williams
  eventually beat Errani" -> "Williams eventually Errani" deletes meaning), or a sentence split before
  a subordinate clause ("... because he was tired." -> "... . Because he was tired.").

Everything else is rejected with a reason: a validator that passes unknown edits passes garbage.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dhp.builder.perturb import lexicon
from dhp.builder.perturb.closed_class import (
    ARTICLES,
    BE,
    COLLECTIVE_NOUNS,
    DO,
    HAVE,
    MODALS,
    PL_DET,
    PL_PRON,
    PREPOSITIONS,
    PRONOUN_CASE,
    SG_DET,
    SG_PRON,
    SUBORDINATORS,
    data_table,
    word_set,
)

__all__ = ["Context", "error_pattern"]

_BE_NUMBER = dict.fromkeys(("is", "was", "am", "has", "does"), "sg") | dict.fromkeys(
    ("are", "were", "have", "do"), "pl"
)
#: word (or lemma) -> the prepositions it takes (``data/governs.tsv``); a swap to one outside the set is a misuse
GOVERNS: dict[str, frozenset[str]] = {
    word: frozenset(preps.split())
    for word, preps in (
        line.split("\t") for line in data_table("governs.tsv").splitlines() if not line.startswith("#")
    )
}
# words followed by a to-infinitive ("continues to watch", "ready to run")
TAKES_INFINITIVE = word_set("takes_infinitive")
_PAST_MARKERS = re.compile(r"\b(yesterday|ago|last (?:week|month|year|night|season|time))\b", re.IGNORECASE)


@dataclass(frozen=True)
class Context:
    """What an edit sits in: the word before and after it, the next few words, the original text."""

    prev: str
    next: str
    text: str
    after: tuple[str, ...] = ()  # up to three words after the edit (``next`` first)
    before: tuple[str, ...] = ()  # up to three words before the edit (``prev`` last)


def _is_plural_noun(word: str) -> bool:
    """A plural noun form ("efforts"): tagged NNS and not its own lemma."""
    low = word.lower()
    return "NNS" in lexicon.word_tags(low) and low not in lexicon.lemmas(low)


def _is_singular_noun(word: str) -> bool:
    """A singular noun form ("effort"): tagged NN and its own lemma (lemminflect also lists
    some base forms as NNS, e.g. "effort")."""
    low = word.lower()
    return "NN" in lexicon.word_tags(low) and low in lexicon.lemmas(low)


def _subject_number(word: str) -> str:
    low = word.lower()
    if low in SG_PRON or low == "one":
        return "sg"
    if low in PL_PRON or low in PL_DET or low.replace(",", "").isdigit() or _is_plural_noun(low):
        return "pl"
    if _is_singular_noun(low) or (word[:1].isupper() and not lexicon.lemmas(low)):
        return "sg"
    return ""


def _verb_number(word: str) -> str:
    low = word.lower()
    if low in _BE_NUMBER:
        return _BE_NUMBER[low]
    tags = lexicon.word_tags(low)
    if "VBZ" in tags:
        return "sg"
    if tags & {"VB", "VBP"} and "VBD" not in tags:
        return "pl"
    return ""


def _tense(word: str, strict: bool = True) -> str:
    """ "past", "present" or "" for a finite verb form; ``strict``: "" for forms that are also nouns."""
    low = word.lower()
    tags = lexicon.word_tags(low)
    if not strict:
        tags = tags - {"NN", "NNS"}
    if low in ("was", "were", "had", "did") or (
        "VBD" in tags and not tags & {"VB", "VBP", "VBZ", "NN", "NNS"}
    ):
        return "past"
    if low in ("is", "are", "am", "has", "does") or ("VBZ" in tags and "NNS" not in tags):
        return "present"
    return ""


def _clashing_tense(old: str, new: str, ctx: Context) -> bool:
    """The new verb's tense differs from the other finite verbs of the text (or a past marker)."""
    tense = _tense(new, strict=False)
    others = [_tense(w) for w in re.findall(r"[A-Za-z]+", ctx.text)]
    if _tense(old) in others:
        others.remove(_tense(old))
    past, present = others.count("past"), others.count("present")
    if tense == "present":
        return past > present or bool(_PAST_MARKERS.search(ctx.text))
    if tense == "past":
        return present > past
    return False


def _words(tokens: list[str]) -> list[str]:
    return [t.lower() for t in tokens if t[:1].isalnum()]


def _is_split_fragment(old: list[str], new: list[str], ctx: Context) -> bool:
    """A sentence split before a subordinate clause: "..., because he" -> "... . Because he"."""
    ends = {".", "!", "?"}
    if _words(old) != _words(new) or not (ends & set(new)) or ends & set(old):
        return False
    at = max(i for i, t in enumerate(new) if t in ends)
    after = new[at + 1].lower() if at + 1 < len(new) else ctx.next.lower()
    return after in SUBORDINATORS or (after.endswith("ing") and "VBG" in lexicon.word_tags(after))


def _singular_noun_ahead(ctx: Context) -> bool:
    """The next noun (after at most two adjectives) is a singular common noun."""
    for word in ctx.after[:3] or (ctx.next,):
        if not word[:1].islower():
            return False
        tags = lexicon.word_tags(word)
        if "NN" in tags and "NNS" not in tags:
            return True
        if "NNS" in tags or not lexicon.lemmas(word):
            return False
    return False


_AUX_FINITE = MODALS | {"is", "am", "are", "was", "were", "has", "have", "had", "does", "do", "did"}


#: verbs that take an object and its predicate with no verb between ("thought the couch very comfortable")
_SMALL_CLAUSE_VERBS = word_set("small_clause_verbs")


def _still_grammatical(gone: str, ctx: Context) -> str:
    """Why the sentence without the auxiliary or copula ``gone`` is still grammatical, else ""."""
    if ctx.prev.lower() in ("and", "or", "but"):  # "can be dissolved ... and [is] very easy": coordinated
        return f"deleting {gone!r} after {ctx.prev!r} leaves a grammatical coordination"
    subject = PRONOUN_CASE.get(ctx.prev.lower(), ("", ""))[1] == "subj"  # "thought she [was]": still an error
    # "thought the couch [was] comfortable"
    small = {w.lower() for w in ctx.before[:-1]} & _SMALL_CLAUSE_VERBS
    if small and not subject:
        return f"deleting {gone!r} after {' '.join(ctx.before)!r} leaves a grammatical small clause"
    if "".join(ctx.before[-2:]) in ("'s", "’s"):  # "Rebbie's [is] being held": "Rebbie's" reads "Rebbie is"
        return f"deleting {gone!r} after {ctx.prev!r} leaves its contracted 'is'"
    verb = next((w for w in ctx.after if not w.lower().endswith("ly")), ctx.next)  # "is artificially heated"
    if "VBD" in lexicon.word_tags(verb.lower()):  # "was arrested" -> "arrested": an act, grammatical
        return f"deleting {gone!r} before {ctx.next!r} leaves a grammatical past tense"
    return ""


def _deletion(old: list[str], ctx: Context) -> tuple[str, str]:
    words, gone, nxt = _words(old), " ".join(old), ctx.next.lower()
    if len(words) > 2:
        return "", f"deleting {gone!r} removes more than a fragment's verb or subject"
    if any(w not in _AUX_FINITE | ARTICLES | PRONOUN_CASE.keys() for w in words):
        return "", f"deleting {gone!r} removes a content word: the meaning changes, not only the grammar"
    if words and all(w in _AUX_FINITE for w in words):
        why = _still_grammatical(gone, ctx)
        return ("", why) if why else ("fragment (auxiliary or copula removed)", "")
    if len(words) == 1 and words[0] in PRONOUN_CASE and PRONOUN_CASE[words[0]][1] == "subj":
        return "fragment (subject removed)", ""
    if words in (["a"], ["an"]) and ctx.next[:1].isalpha() and nxt not in ("few", "lot", "little"):
        return "article missing", ""
    if words == ["the"] and _singular_noun_ahead(ctx):
        return "article missing before a singular noun", ""
    return "", f"deleting {gone!r} leaves a grammatical sentence or changes its meaning"


def _insertion(new: list[str], ctx: Context) -> tuple[str, str]:
    words = _words(new)
    nxt = ctx.next.lower()
    tags = lexicon.word_tags(nxt)
    if len(words) == 1 and len(new) == 1:
        w = words[0]
        if w in ("a", "an") and (_is_plural_noun(nxt) or nxt in PRONOUN_CASE):
            return "article misuse", ""
        if w in ("a", "an") and ctx.next[:1].isalpha() and lexicon.an_mismatch(w, ctx.next):
            return "a/an misuse", ""  # "fox, an badger": wrong whatever the article's role
        if w in ("is", "are", "was", "were") and tags & {"VBZ", "VB"} and "VBG" not in tags:
            return "wrong verb form after 'be'", ""
        if w in MODALS and tags & {"VBZ", "VBD"} and "VB" not in tags:
            return "wrong verb form after a modal", ""
    return "", f"inserting {' '.join(new)!r} is not a recognised grammatical error"


def _article(o: str, n: str, ctx: Context) -> tuple[str, str]:
    if n in ("a", "an") and ctx.next[:1].isalnum() and lexicon.an_mismatch(n, ctx.next):
        return "a/an misuse", ""
    if n in ("a", "an") and _is_plural_noun(ctx.next):
        return "article before a plural noun", ""
    return "", f"article {o!r} -> {n!r} before {ctx.next!r} stays grammatical"


def _pronoun(o: str, n: str, ctx: Context) -> tuple[str, str]:
    (po, co), (pn, cn) = PRONOUN_CASE[o], PRONOUN_CASE[n]
    if not set(co.split()) & set(cn.split()):
        return "pronoun case error", ""
    if po[0] == pn[0] and po[1:] != pn[1:]:
        return "pronoun number disagreement", ""
    return "", f"pronoun {o!r} -> {n!r} changes who is meant, not the grammar"


def _preposition(o: str, n: str, ctx: Context) -> tuple[str, str]:
    prev = ctx.prev.lower()
    nxt = lexicon.word_tags(ctx.next)
    takes_infinitive = prev in TAKES_INFINITIVE or bool(lexicon.lemmas(prev) & TAKES_INFINITIVE)
    if o == "to" and "VB" in nxt and ctx.next.islower() and (takes_infinitive or not nxt & {"NN", "NNS"}):
        return "infinitive 'to' replaced by a preposition", ""
    governed = [GOVERNS[key] for key in (prev, *sorted(lexicon.lemmas(prev))) if key in GOVERNS]
    if any(o in allowed and n not in allowed for allowed in governed):
        return "preposition misuse", ""
    return (
        "",
        f"preposition {o!r} -> {n!r} after {ctx.prev!r} is not known to be wrong (may stay grammatical)",
    )


_DET_PAIRS = {("this", "these"), ("that", "those"), ("much", "many"), ("less", "fewer")}


def _determiner(o: str, n: str, ctx: Context) -> tuple[str, str]:
    plural_det = n in ("these", "those", "many", "fewer")
    if (plural_det and _is_singular_noun(ctx.next)) or (not plural_det and _is_plural_noun(ctx.next)):
        return "determiner-noun disagreement", ""
    if "subj" in PRONOUN_CASE.get(ctx.next.lower(), ("", ""))[1]:
        return f"determiner {n!r} before a pronoun", ""
    return "", f"{o!r} -> {n!r} before {ctx.next!r} stays grammatical"


def _new_meaning(o: str, n: str) -> bool:
    """``n`` is also a verb of its own ("find" -> "found", "see" -> "saw")."""
    return n in lexicon.lemmas(n, "VERB") - lexicon.lemmas(o, "VERB")


_ADVERBS = word_set("adverbs_before_verb")
_AGREES = {
    "i": frozenset({"am", "was", "have", "do"}),
    "sg": frozenset({"is", "was", "has", "does"}),
    "pl": frozenset({"are", "were", "have", "do"}),
}


def _subject_word(ctx: Context) -> str:
    """The word before the edit, skipping adverbs ("He finally found" -> "He")."""
    for word in reversed(ctx.before or (ctx.prev,)):
        if word.lower() not in _ADVERBS and not word.lower().endswith("ly"):
            return word
    return ""


def _is_subject(word: str) -> bool:
    """Can ``word`` be the subject right before a verb (pronoun, name, noun, relative)?"""
    low = word.lower()
    return (
        "subj" in PRONOUN_CASE.get(low, ("", ""))[1]
        or (
            word[:1].isupper() and low not in SUBORDINATORS | ARTICLES and "VBG" not in lexicon.word_tags(low)
        )
        or _is_plural_noun(low)
        or (_is_singular_noun(low) and low not in PREPOSITIONS)
        or low in ("who", "which", "that")
    )


def _after_auxiliary(ctx: Context) -> bool:
    aux = MODALS | DO | HAVE | BE | {"to"}
    return any(w.lower() in aux for w in ctx.before)


def _finite_to_nonfinite(o: str, n: str, ctx: Context) -> bool:
    """A finite verb right after its subject replaced by "be", "been", a participle or gerund."""
    finite = bool(lexicon.word_tags(o) & {"VBD", "VBZ", "VBP"}) or o in _BE_NUMBER or o in MODALS
    if not finite or _after_auxiliary(ctx):
        return False
    head = _subject_word(ctx)  # "the activities related to ...": a participle after its noun, no finite verb
    if o in ("is", "are", "was", "were", "am") and n in ("be", "been"):
        return True  # a finite "be" replaced by a bare "be"/"been" with no auxiliary before it
    tags = lexicon.word_tags(n)
    nonfinite = n in ("be", "been", "being") or (
        bool(tags & {"VBG", "VBN"}) and not tags & {"VBD", "VBZ", "VBP"}
    )
    relative = "VBN" in lexicon.word_tags(o) and ctx.next in PREPOSITIONS and head not in PRONOUN_CASE
    return _is_subject(head) and nonfinite and not (relative and head.islower())


def _verb_form(o: str, n: str, ctx: Context) -> tuple[str, str]:
    prev, tags_o, tags_n = _subject_word(ctx).lower(), lexicon.word_tags(o), lexicon.word_tags(n)
    if (prev == "to" or prev in MODALS or prev in DO) and "VB" in tags_o:
        if "VB" in tags_n:
            return "", f"{n!r} after {ctx.prev!r} is still a base form"
        return f"wrong verb form after {prev!r}", ""
    if prev in HAVE and "VBN" in tags_o:
        return (
            ("", f"{n!r} after {ctx.prev!r} is still a participle")
            if "VBN" in tags_n
            else ("wrong form after 'have'", "")
        )
    if prev in BE and tags_o & {"VBG", "VBN"}:
        return (
            ("", f"{n!r} after {ctx.prev!r} stays grammatical")
            if tags_n & {"VBG", "VBN"}
            else ("wrong form after 'be'", "")
        )
    if _finite_to_nonfinite(o, n, ctx):
        return "finite verb replaced by a non-finite form", ""
    subject, vn = _subject_number(_subject_word(ctx)), _verb_number(n)  # "labels thereby ignores": "labels"
    # "Security were", "The staff were"; never "of the Biden government"
    head = (ctx.before[-2:-1] or ("",))[0]
    if _subject_word(ctx).lower() in COLLECTIVE_NOUNS and (head.lower() in ARTICLES or head[-1:] in ".!?"):
        return "", f"{ctx.prev!r} takes either number ('Security were said to be ...')"
    if o in _BE_NUMBER and n in _BE_NUMBER and _BE_NUMBER[o] != _BE_NUMBER[n]:
        key = "i" if ctx.prev.lower() == "i" else subject
        if key and n in _AGREES[key]:
            return "", f"{n!r} still agrees with {ctx.prev!r}"
        return "subject-verb disagreement", ""
    if vn and subject and vn != subject and _tense(n) != "past":
        return "subject-verb disagreement", ""
    return "", ""


def _noun_number(o: str, n: str, ctx: Context) -> tuple[str, str]:
    nouns = {"NN", "NNS"}
    if not lexicon.word_tags(o) & nouns or not lexicon.word_tags(n) & nouns:
        return "", ""
    plural = _is_plural_noun(n)
    if not (plural or _is_singular_noun(n)) or plural == _is_plural_noun(o):
        return "", ""
    prev, nxt = ctx.prev.lower(), _verb_number(ctx.next)
    if (plural and prev in SG_DET) or (not plural and prev in PL_DET):
        return "noun-determiner disagreement", ""
    if nxt and nxt != ("pl" if plural else "sg"):
        return "subject-verb disagreement", ""
    return "", f"noun {o!r} -> {n!r} changes the number but stays grammatical"


def _closed_class(lo: str, ln: str, ctx: Context) -> tuple[str, str] | None:
    """The verdict on a swap inside one closed class (articles, pronouns, prepositions, determiner
    pairs), or None when the two words are not of one such class."""
    for group, check in ((ARTICLES, _article), (PRONOUN_CASE, _pronoun), (PREPOSITIONS, _preposition)):
        if lo in group and ln in group:
            return check(lo, ln, ctx)
    if (lo, ln) in _DET_PAIRS or (ln, lo) in _DET_PAIRS:
        return _determiner(lo, ln, ctx)
    return None


def _substitution(o: str, n: str, ctx: Context) -> tuple[str, str]:
    lo, ln = o.lower().replace("’", "'"), n.lower().replace("’", "'")
    if lo.endswith("n't") and ln.endswith("n't"):  # "wasn't" -> "weren't": compare the verbs
        lo, ln = lo[:-3], ln[:-3]
    if lo == ln:
        return "", f"only the capitalisation of {o!r} changed"
    if (closed := _closed_class(lo, ln, ctx)) is not None:
        return closed
    if not lexicon.lemmas(lo) & lexicon.lemmas(ln):
        return "", f"{o!r} -> {n!r} replaces the word (meaning changed), not its form"
    if _new_meaning(lo, ln):
        return "", f"{n!r} is a word of its own: {o!r} -> {n!r} changes the meaning"
    for check in (_verb_form, _noun_number):
        pattern, reason = check(lo, ln, ctx)
        if pattern or reason:
            return pattern, reason
    tense = _tense(ln, strict=False)
    if tense and tense != _tense(lo, strict=False) and _clashing_tense(lo, ln, ctx):
        return "incorrect verb tense", ""
    return "", f"{o!r} -> {n!r} may still be grammatical here"


def error_pattern(old: list[str], new: list[str], ctx: Context) -> tuple[str, str]:
    """``(pattern, "")`` if the edit ``old`` -> ``new`` tokens is a recognised grammatical
    error in its context, else ``("", reason)``."""
    if len(_words(old)) > 2 or len(_words(new)) > 2 or len(old) > 3 or len(new) > 3:
        return "", f"edit {' '.join(old)!r} -> {' '.join(new)!r} is too large for one grammatical error"
    if _is_split_fragment(old, new, ctx):
        return "fragment (split before a subordinate clause)", ""
    if not new:
        return _deletion(old, ctx)
    if not old:
        return _insertion(new, ctx)
    if len(old) == 1 and len(new) == 1:
        return _substitution(old[0], new[0], ctx)
    return "", f"edit {' '.join(old)!r} -> {' '.join(new)!r} is not a recognised grammatical error"
