"""Rewriting and insertion: rule-based paraphrases that keep the meaning, inserted after their original.

A paraphrase is one syntactic rewrite of the sentence (when one of the patterns below fits),
followed by lexical rewrites:

* ``reported`` - "X said (that) Y" / "Y, X said" -> "According to X, Y";
* ``clause_order`` - a leading subordinate clause moved behind the main clause and back
  ("When A, B." <-> "B when A."), "A, but B." -> "Although A, B.";
* ``phrase_move`` - a leading adverbial ("In 2016, the series will air.") moved to the end, or a final
  time phrase ("... air in 2016.") to the front;
* ``voice`` - active <-> passive for a simple "Subject verbed the object." / "The object was verbed by X.";
* ``synonyms`` - a curated, context-safe synonym table (only lower-case words outside names, a/an fixed
  after a swap) and number formats ("12" <-> "twelve", "%" <-> " percent").

A sentence qualifies when a syntactic rewrite fits or at least two lexical rewrites do, so the
inserted sentence always differs from its original in more than one word (never a copy behind a
marker such as "In other words, ...").
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from dhp.builder.perturb.base import NotApplicable, Outcome, Perturbed
from dhp.builder.perturb.offline.edits import WORD, change_count, inflect, lemmas
from dhp.builder.textstats import split_sentences
from dhp.types import Severity

__all__ = ["paraphrase", "rewrite_insert"]

# -- capitalisation ---------------------------------------------------------------------------------


def _is_common(word: str) -> bool:
    """A capitalised sentence-initial word that is an ordinary word (lowercase it when it moves)."""
    if word == "I" or not word[:1].isupper() or word[1:] != word[1:].lower():
        return False
    return bool(lemmas(word.lower())) or word.lower() in _FUNCTION


_FUNCTION = frozenset(
    "the a an this that these those there it he she they we you his her its their our my your some many "
    "most all each every both no one two three several such".split()
)
_OBJECT = {"he": "him", "she": "her", "they": "them", "we": "us", "i": "me", "it": "it", "you": "you"}


def _decap(s: str) -> str:
    parts = s.split(" ", 2)
    if not _is_common(parts[0]) or (len(parts) > 1 and parts[1][:1].isupper()):
        return s  # a name ("Chelsea", "New Zealander") keeps its capital
    return s[:1].lower() + s[1:]


def _cap(s: str, lower: bool) -> str:
    return s if lower else s[:1].upper() + s[1:]


# -- syntactic rewrites --------------------------------------------------------------------------------
_SAY = (
    r"said|says|told reporters|added|explained|noted|claimed|argued|stated|believes|believed|thinks|"
    r"reported|reports|announced|suggested|suggests|admitted|admits|insisted|revealed|warned|confirmed"
)
_SPEAKER = r"(?:[A-Z][\w'’.-]*(?: [A-Z][\w'’.-]*){0,3}|[Hh]e|[Ss]he|[Tt]hey|[Ww]e|[Tt]he \w+(?: \w+)?)"
_REPORTED = re.compile(rf"^(?P<who>{_SPEAKER}) (?:{_SAY}) (?:that )?(?P<rest>[^\"“].{{10,}})$")
_REPORTED_END = re.compile(rf"^(?P<rest>.{{10,}}), (?P<who>{_SPEAKER}) (?:{_SAY})(?P<end>[.!?])$")


def _reported(s: str, lower: bool) -> str | None:
    m = _REPORTED.match(s) or _REPORTED_END.match(s)
    if m is None:
        return None
    who = m.group("who")
    who = _OBJECT.get(who.lower(), _decap(who))
    rest = m.group("rest")
    end = m.groupdict().get("end") or ""
    return f"{_cap('according to', lower)} {who}, {_decap(rest)}{end}"


_SUB = r"because|although|though|while|when|after|before|since|if|unless|until|once"
_TRAILING_CLAUSE = re.compile(
    rf"^(?P<main>[^,;:]{{12,}}?),? (?P<conj>{_SUB}) (?P<sub>[^,;:]{{8,}})(?P<end>[.!?])$"
)
_LEADING_CLAUSE = re.compile(
    rf"^(?P<conj>{_SUB}) (?P<sub>[^,;:]{{6,}}), (?P<main>[^;:]{{12,}})(?P<end>[.!?])$", re.I
)
_BUT = re.compile(r"^(?P<a>[^,;:]{12,}), but (?P<b>[^;:]{12,})(?P<end>[.!?])$")


def _clause_order(s: str, lower: bool) -> str | None:
    if m := _LEADING_CLAUSE.match(s):
        conj = m.group("conj").lower()
        return f"{_cap(m.group('main'), lower)} {conj} {m.group('sub')}{m.group('end')}"
    if m := _TRAILING_CLAUSE.match(s):
        return f"{_cap(m.group('conj'), lower)} {m.group('sub')}, {_decap(m.group('main'))}{m.group('end')}"
    if m := _BUT.match(s):
        return f"{_cap('although', lower)} {_decap(m.group('a'))}, {m.group('b')}{m.group('end')}"
    return None


_ADVERBIAL = re.compile(
    r"^(?P<adv>(?:In|On|At|During|For|By|Over|Under|Through|With|Within|Across|Despite|Following|Among|"
    r"After|Before|Since|Last|This|Earlier|Later|Recently|Finally|Eventually|Meanwhile|Nevertheless|"
    r"However|Unfortunately|Fortunately|Instead|Moreover|Furthermore|Additionally|Overall|Here|Today|"
    r"Yesterday|Now|Currently|Previously|Thus|Therefore|Consequently|Surprisingly|Interestingly)"
    r"\b[^,;:]{0,60}), (?P<main>[^;:]{12,}?)(?P<end>[.!?])$",
    re.I,
)
_MONTH = "January|February|March|April|May|June|July|August|September|October|November|December"
_TIME_END = re.compile(
    rf"^(?P<main>[^,;:]{{12,}}?) (?P<when>(?:in|on|during|by|since|last|this|next|earlier|later) "
    rf"(?:\d{{4}}|(?:{_MONTH})(?: \d{{1,2}})?|(?:the )?(?:morning|evening|afternoon|night|week|month|year|"
    rf"weekend|season|summer|winter|spring|autumn|past|future)|\w+day))(?P<end>[.!?])$"
)


def _phrase_move(s: str, lower: bool) -> str | None:
    if m := _ADVERBIAL.match(s):
        adv = m.group("adv")
        return (
            f"{_cap(m.group('main'), lower)}, {_decap(adv)}{m.group('end')}"
            if " " not in adv
            else (f"{_cap(m.group('main'), lower)} {_decap(adv)}{m.group('end')}")
        )
    if m := _TIME_END.match(s):
        return f"{_cap(m.group('when'), lower)}, {_decap(m.group('main'))}{m.group('end')}"
    return None


_DET = r"the|a|an|his|her|their|its|this|that|these|those|my|our|your"
_NP_SUBJ = (
    r"[A-Z][\w'’-]*(?: [A-Z][\w'’-]*){0,2}|[Hh]e|[Ss]he|[Tt]hey|[Ww]e|I|(?:[Tt]he|[Aa]n?) [a-z]+(?: [a-z]+)?"
)
_ACTIVE = re.compile(
    rf"^(?P<subj>{_NP_SUBJ}) (?P<verb>[a-z]+) (?P<obj>(?:{_DET}) (?:(?! (?:in|on|at|during|for|with|after|before|from|to|into|by|when|while|because|and|but)\b)[^,;:])"
    rf"{{2,60}}?)(?P<rest>(?: (?:in|on|at|during|for|with|after|before|from|to|into)\b[^;:]*)?)(?P<end>[.!?])$"
)
_PASSIVE = re.compile(
    rf"^(?P<obj>(?:{_DET}) [^,;:]{{2,60}}?) (?P<be>was|were) (?P<verb>[a-z]+) by "
    rf"(?P<subj>{_NP_SUBJ}|him|her|them|us|me)(?P<end>[.!?])$",
    re.I,
)
_PREP = re.compile(r" (?:of|for|in|on|at|with|from|to|by|about|into|during|after|before|near)\b")
_SUBJECT = {"him": "he", "her": "she", "them": "they", "us": "we", "me": "I"}


def _plural(noun_phrase: str) -> bool:
    head = _PREP.split(noun_phrase)[0].split()[-1].lower()
    noun = lemmas(head).get("NOUN")
    return bool(noun) and head != noun[0] and inflect(noun[0], "NNS") == head


def _voice(s: str, lower: bool) -> str | None:
    if (m := _ACTIVE.match(s)) and (lemma := lemmas(m.group("verb")).get("VERB")):
        verb, base = m.group("verb"), lemma[0]
        vbn = inflect(base, "VBN")
        if verb != inflect(base, "VBD") or verb == base or not vbn or base in _INTRANSITIVE:
            return None
        subj = m.group("subj")
        by = _OBJECT.get(subj.lower(), _decap(subj)) if subj != "I" else "me"
        be = "were" if _plural(m.group("obj")) else "was"
        return f"{_cap(m.group('obj'), lower)} {be} {vbn} by {by}{m.group('rest')}{m.group('end')}"
    if (m := _PASSIVE.match(s)) and (lemma := lemmas(m.group("verb")).get("VERB")):
        vbd = inflect(lemma[0], "VBD")
        if not vbd or inflect(lemma[0], "VBN") != m.group("verb"):
            return None
        subj = m.group("subj")
        subj = _SUBJECT.get(subj.lower(), subj)
        return f"{_cap(subj, lower)} {vbd} {_decap(m.group('obj'))}{m.group('end')}"
    return None


_STATIVE = frozenset(
    "be have do seem appear become remain belong contain consist include know mean need want like love "
    "cost own matter lack deserve exist say tell think believe feel hope wish suggest show indicate "
    "involve require depend".split()
)
_NOT_SUBJECT_START = frozenset(
    "when if while because although though after before since until once as in on at for with by from to "
    "of during but and or so then however also there it this that what which who".split()
)
_ADVERBS = frozenset(
    "however also then never just still even finally already now only really ultimately".split()
)


def _what_cleft(s: str, lower: bool) -> str | None:
    """'Tim found the perfect name.' -> 'What Tim did was find the perfect name.'"""
    words = list(WORD.finditer(s))
    if len(words) < 3 or words[0].group(0).lower() in _NOT_SUBJECT_START or words[0].group(0).endswith("ly"):
        return None
    for k, m in enumerate(words[1:9], start=1):
        w = m.group(0)
        if w.lower() in _AUX:
            return _aux_cleft(s, words, k, lower)
        lemma = lemmas(w).get("VERB")
        if not lemma or w[:1].isupper() or w == lemma[0]:
            continue
        prev = words[k - 1].group(0)
        if "ADJ" in lemmas(w) or ("NOUN" in lemmas(w) and not (prev[:1].isupper() or prev in _OBJECT)):
            return None  # "frustrated" / "points" may not be the verb
        tag = "VBD" if inflect(lemma[0], "VBD") == w else "VBZ" if inflect(lemma[0], "VBZ") == w else None
        subj, rest = s[: m.start()].strip(), s[m.end() :]
        last = words[k - 1].group(0).lower()
        if (
            tag is None
            or lemma[0] in _STATIVE
            or re.search(r"[,;:()\"“”]", subj)
            or last in _ADVERBS
            or last.endswith("ly")
            or not re.match(r"^ [a-z]", rest)
            or _coordinated(rest, tag)
        ):
            return None
        did, was = ("did", "was") if tag == "VBD" else ("does", "is")
        return f"{_cap('what', lower)} {_decap(subj)} {did} {was} {lemma[0]}{rest}"
    return None


_MODAL_CLEFT = frozenset("will would can could should may might must".split())


def _aux_cleft(s: str, words: list[re.Match[str]], k: int, lower: bool) -> str | None:
    """'Chelsea have signed a deal.' -> 'What Chelsea have done is sign a deal.'; 'will race' likewise."""
    aux = words[k].group(0)
    if k + 1 >= len(words) or words[k + 1].start() != words[k].end() + 1:
        return None
    verb = words[k + 1].group(0)
    lemma = lemmas(verb).get("VERB")
    subj, rest = s[: words[k].start()].strip(), s[words[k + 1].end() :]
    if not lemma or lemma[0] in _STATIVE or re.search(r"[,;:()\"“”]", subj) or not re.match(r"^ [a-z]", rest):
        return None
    if words[k - 1].group(0).lower() in _ADVERBS or words[k - 1].group(0).endswith("ly"):
        return None
    if aux in {"has", "have"} and verb == inflect(lemma[0], "VBN") and verb != lemma[0]:
        return f"{_cap('what', lower)} {_decap(subj)} {aux} done is {lemma[0]}{rest}"
    if aux in _MODAL_CLEFT and verb == lemma[0]:
        return f"{_cap('what', lower)} {_decap(subj)} {aux} do is {lemma[0]}{rest}"
    return None


_AUX = frozenset(
    "is are was were am be been being has have had will would can could should must may might shall do does "
    "did".split()
)


def _coordinated(rest: str, tag: str) -> bool:
    """A second finite verb of the same form after "and"/"or" ("swims ... and waits")."""
    for m in re.finditer(r"\b(?:and|or|but) ([a-z]+)", rest):
        lemma = lemmas(m.group(1)).get("VERB")
        if lemma and inflect(lemma[0], tag) == m.group(1):
            return True
    return False


_FINAL_PP = re.compile(
    r"^(?P<main>[^,;:]{15,}?) (?P<pp>(?:(?:in|at|on) (?:the )?(?:[A-Z][\w'’-]*(?: [A-Z][\w'’-]*)*|\d{4})|"
    r"(?:during|after|before|since|throughout) [^,;:]{3,40}?))(?P<end>[.!?])$"
)


def _front_pp(s: str, lower: bool) -> str | None:
    """'Merson apologised in a tweet on Monday.' -> 'On Monday, Merson apologised in a tweet.'"""
    m = _FINAL_PP.match(s)
    if (
        m is None
        or re.search(r"\b(?:and|or|but)\b", m.group("pp"))
        or m.group("main").split()[-1].lower() in _AUX | {"of", "been", "being"}
    ):
        return None
    return f"{_cap(m.group('pp'), lower)}, {_decap(m.group('main'))}{m.group('end')}"


_INTRANSITIVE = frozenset(
    "be become seem go come arrive die live sleep happen remain stay appear exist rise fall sit lie "
    "stand walk run fly swim occur emerge grow turn get look feel sound".split()
)
_SYNTAX: tuple[Callable[[str, bool], str | None], ...] = (
    _reported,
    _clause_order,
    _phrase_move,
    _voice,
    _what_cleft,
    _front_pp,
)

# -- lexical rewrites -------------------------------------------------------------------------------------
_SYNONYMS = {
    "big": "large", "large": "big", "numerous": "many", "showed": "demonstrated", "shown": "demonstrated",
    "important": "significant", "helped": "assisted", "using": "employing", "began": "started",
    "begin": "start", "buy": "purchase", "bought": "purchased", "purchased": "bought", "required": "needed",
    "whole": "entire", "entire": "whole", "often": "frequently", "frequently": "often", "quickly": "rapidly",
    "rapidly": "quickly", "however": "nevertheless", "also": "additionally", "reduce": "decrease",
    "reduced": "decreased", "reduces": "decreases", "obtained": "acquired", "obtain": "acquire",
    "suggest": "indicate", "suggests": "indicates", "suggested": "indicated", "indicate": "suggest",
    "indicates": "suggests", "indicated": "suggested", "investigate": "examine", "investigated": "examined",
    "examined": "investigated", "examine": "investigate", "method": "approach", "methods": "approaches",
    "identify": "detect", "identified": "detected", "detected": "identified", "several": "a number of",
    "major": "main", "main": "principal", "previous": "earlier", "previously": "earlier",
    "recently": "lately", "currently": "presently", "although": "though", "because": "since",
    "therefore": "thus", "thus": "therefore", "moreover": "furthermore", "furthermore": "moreover",
    "additionally": "moreover", "mainly": "chiefly", "mostly": "largely", "largely": "mostly",
    "nearly": "almost", "almost": "nearly", "begins": "starts", "assess": "evaluate", "assessed": "evaluated",
    "evaluated": "assessed", "evaluate": "assess", "role": "part", "crucial": "critical", "critical": "crucial",
    "essential": "vital", "vital": "essential", "allows": "enables", "enable": "allow", "enables": "allows",
    "provide": "offer", "provides": "offers", "offered": "provided", "contains": "includes", "glad": "happy",
    "afraid": "scared", "scared": "afraid", "sick": "ill", "children": "kids", "kids": "children",
    "simple": "straightforward", "confirmed": "verified", "verified": "confirmed", "revealed": "disclosed",
    "claimed": "asserted", "stated": "declared", "announced": "declared", "believed": "thought",
    "extremely": "exceptionally", "despite": "in spite of", "discovered": "found", "huge": "enormous",
    "enormous": "huge", "said": "stated", "says": "states",
}  # fmt: skip
_WORDS = "zero one two three four five six seven eight nine ten eleven twelve".split()
_PERCENT = re.compile(r"(\d)%")
_NUMBER = re.compile(r"(?<![\w.,<£$€-])(\d{1,2})(?![\w.,%>-])")


def _swap_words(s: str, lower_text: bool) -> tuple[str, int]:
    out: list[str] = []
    n = last = 0
    toks = list(WORD.finditer(s))
    for i, m in enumerate(toks):
        w = m.group(0)
        new = _SYNONYMS.get(w)
        near_name = any(
            t.group(0)[:1].isupper() and not (j == 0 and _is_common(t.group(0)))
            for j, t in ((k, toks[k]) for k in (i - 1, i + 1) if 0 <= k < len(toks))
        )
        if new is None or new == w or (near_name and not lower_text):
            continue
        out.append(s[last : m.start()] + new)
        last = m.end()
        n += 1
    out.append(s[last:])
    swapped = "".join(out)
    swapped = re.sub(r"\b([Aa])n? (?=(\w))", lambda m: _article(m.group(1), m.group(2)), swapped)
    return swapped, n


def _article(a: str, following: str) -> str:
    word = "an " if following.lower() in "aeio" else "a "
    return a + word[1:] if a in "Aa" else word


def _numbers(s: str) -> tuple[str, int]:
    s, n1 = _PERCENT.subn(r"\1 percent", s)
    s, n2 = _NUMBER.subn(
        lambda m: _WORDS[int(m.group(1))] if int(m.group(1)) < len(_WORDS) else m.group(1), s
    )
    return s, n1 + sum(1 for _ in range(n2))


def paraphrase(sentence: str, lower_text: bool) -> str | None:
    """A meaning-preserving rewrite of ``sentence`` that differs in more than one word, or None."""
    structural = None
    for rule in _SYNTAX:
        structural = rule(sentence, lower_text)
        if structural:
            break
    base = structural or sentence
    lexical, n_words = _swap_words(base, lower_text)
    lexical, n_nums = _numbers(lexical)
    if lexical == sentence or (structural is None and n_words + n_nums < 2):
        return None
    return lexical


def rewrite_insert(text: str, severity: Severity, rng: random.Random, generator: str) -> Outcome:
    """Paraphrase one (minor) or two to three (major) sentences, each inserted right after its original."""
    sents = split_sentences(text)
    lo, hi = change_count(severity)
    lower_text = sum(c.isupper() for c in text) <= 2
    cands = [(i, p) for i, s in enumerate(sents) if (p := paraphrase(s, lower_text)) is not None]
    if len(cands) < lo:
        return NotApplicable(
            f"{len(cands)} of {len(sents)} sentence(s) fit a paraphrase rule (clause order, voice, reported "
            f"speech, adverbial move or two lexical rewrites); {severity.value} severity rewrites {lo}"
        )
    chosen = sorted(rng.sample(cands, min(len(cands), rng.randint(lo, hi))))
    out, pos = [], 0
    for i, para in chosen:
        end = text.index(sents[i], pos) + len(sents[i]) if sents[i] in text[pos:] else None
        if end is None:
            return NotApplicable(f"sentence {i + 1} could not be located in the text")
        out.append(text[pos:end] + " " + para)
        pos = end
    out.append(text[pos:])
    return Perturbed("".join(out), generator, {"rewritten_sentences": [i + 1 for i, _ in chosen]})
