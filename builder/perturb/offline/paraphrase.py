"""Rewriting and insertion: rule-based paraphrases that keep the meaning, inserted after their original.

A paraphrase is one syntactic rewrite of the sentence (when one of the patterns below fits),
followed by lexical rewrites:

* ``reported`` - "X said (that) Y" / "Y, X said" -> "According to X, Y";
* ``clause_order`` - a leading subordinate clause moved behind the main clause and back
  ("When A, B." <-> "B when A."), "A, but B." -> "Although A, B.";
* ``phrase_move`` - a leading adverbial ("In 2016, the series will air.") moved to the end, or a final
  time phrase ("... air in 2016.") to the front;
* ``voice`` - active <-> passive for a simple "Subject verbed the object." / "The object was verbed by X.";
* ``there_is`` - "There are studies that suggest X." -> "Studies suggest X.";
* ``what_cleft`` - "Tim found the name." -> "What Tim did was find the name." (also after has/will);
* ``synonyms`` - a curated, context-safe synonym table (only lower-case words outside names, a/an fixed
  after a swap).

Rules are chained until the rewrite differs substantially from the original (two or more words
changed, at most 90% the same by word-level difflib ratio); a sentence no rule rewrites that far is
not a candidate. Never a copy behind a marker such as "In other words, ...".
"""

from __future__ import annotations

import difflib
import random
import re
from collections.abc import Callable
from dataclasses import dataclass

from dhp.builder.perturb import lexicon
from dhp.builder.perturb.base import NotApplicable, Outcome, Perturbed
from dhp.builder.perturb.grammar_check import PREPOSITIONS
from dhp.builder.perturb.offline.edits import WORD, change_count, inflect, lemmas
from dhp.builder.perturb.validate import paraphrase_verdict
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


@dataclass(frozen=True)
class _Ctx:
    """What a rule needs to know about the whole text."""

    lower: bool  # the text is written in lower case (SumPubMed)
    names: frozenset[str]  # words the text capitalises in mid-sentence: names, never lower-cased


def _decap(c: _Ctx, s: str) -> str:
    parts = s.split(" ", 2)
    if parts[0].lower() in _FUNCTION | PREPOSITIONS and parts[0] != "I":
        return s[:1].lower() + s[1:]  # "The Colombia international" -> "the ...", "At Stamford Bridge" -> "at ..."
    if not _is_common(parts[0]) or parts[0] in c.names or (len(parts) > 1 and parts[1][:1].isupper()):
        return s  # a name ("Chelsea", "New Zealander") keeps its capital
    return s[:1].lower() + s[1:]


def _fronted(phrase: str, rest: str, lower: bool) -> str:
    """``phrase`` moved before ``rest``; a comma only after a long phrase ("Last month a man ...")."""
    sep = "," if len(phrase.split()) > 4 else ""
    return f"{_cap(phrase, lower)}{sep} {rest}"


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


def _reported(s: str, c: _Ctx) -> str | None:
    m = _REPORTED.match(s) or _REPORTED_END.match(s)
    if m is None:
        return None
    who = m.group("who")
    who = _OBJECT.get(who.lower(), _decap(c, who))
    rest = m.group("rest")
    if rest.split(" ", 1)[0].lower() in PREPOSITIONS:  # "said on 12 March that ...": no "According to"
        return None
    end = m.groupdict().get("end") or ""
    return f"{_cap('according to', c.lower)} {who}, {_decap(c, rest)}{end}"


_SUB = r"because|although|though|while|when|after|before|since|if|unless|until|once"
_TRAILING_CLAUSE = re.compile(
    rf"^(?P<main>(?:[^,;:]|(?<=\d),(?=\d)){{12,}}?),? (?P<conj>{_SUB}) (?P<sub>(?:[^,;:]|(?<=\d),(?=\d)){{8,}})(?P<end>[.!?])$"
)
_LEADING_CLAUSE = re.compile(
    rf"^(?P<conj>{_SUB}) (?P<sub>(?:[^,;:]|(?<=\d),(?=\d)){{6,}}), (?P<main>[^;:]{{12,}})(?P<end>[.!?])$",
    re.I,
)
_BUT = re.compile(r"^(?P<a>(?:[^,;:]|(?<=\d),(?=\d)){12,}), but (?P<b>[^;:]{12,})(?P<end>[.!?])$")


def _clause_order(s: str, c: _Ctx) -> str | None:
    if m := _LEADING_CLAUSE.match(s):
        conj = m.group("conj").lower()
        return f"{_cap(m.group('main'), c.lower)} {conj} {m.group('sub')}{m.group('end')}"
    if m := _TRAILING_CLAUSE.match(s):
        return (
            f"{_cap(m.group('conj'), c.lower)} {m.group('sub')}, {_decap(c, m.group('main'))}{m.group('end')}"
        )
    if m := _BUT.match(s):
        return f"{_cap('although', c.lower)} {_decap(c, m.group('a'))}, {m.group('b')}{m.group('end')}"
    return None


_ADVERBIAL = re.compile(
    r"^(?P<adv>(?:In|On|At|During|For|By|Over|Under|Through|With|Within|Across|Despite|Following|Among|"
    r"After|Before|Since|Last|This|Earlier|Later|Recently|Finally|Eventually|Meanwhile|Nevertheless|"
    r"However|Unfortunately|Fortunately|Instead|Moreover|Furthermore|Additionally|Overall|Here|Today|"
    r"Yesterday|Now|Currently|Previously|Thus|Therefore|Consequently|Surprisingly|Interestingly)"
    r"\b(?:[^,;:]|(?<=\d),(?=\d)){0,60}), (?P<main>[^;:]{12,}?)(?P<end>[.!?])$",
    re.I,
)
_MONTH = "January|February|March|April|May|June|July|August|September|October|November|December"
_TIME_END = re.compile(
    rf"^(?P<main>(?:[^,;:]|(?<=\d),(?=\d)){{12,}}?) (?P<when>(?:in|on|during|by|since|last|this|next|earlier|later) "
    rf"(?:\d{{4}}|(?:{_MONTH})(?: \d{{1,2}})?|(?:the )?(?:morning|evening|afternoon|night|week|month|year|"
    rf"weekend|season|summer|winter|spring|autumn|past|future)|\w+day)|(?:\w+ (?:days|weeks|months|years) ago)|yesterday|last night|this morning)(?P<end>[.!?])$"
)


def _phrase_move(s: str, c: _Ctx) -> str | None:
    if m := _ADVERBIAL.match(s):
        adv = m.group("adv")
        return (
            f"{_cap(m.group('main'), c.lower)}, {_decap(c, adv)}{m.group('end')}"
            if " " not in adv
            else (f"{_cap(m.group('main'), c.lower)} {_decap(c, adv)}{m.group('end')}")
        )
    if m := _TIME_END.match(s):
        return _fronted(m.group("when"), _decap(c, m.group("main")) + m.group("end"), c.lower)
    return None


_DET = r"the|a|an|his|her|their|its|this|that|these|those|my|our|your"
_NP_SUBJ = (
    r"[A-Z][\w'’-]*(?: [A-Z][\w'’-]*){0,2}|[Hh]e|[Ss]he|[Tt]hey|[Ww]e|I|(?:[Tt]he|[Aa]n?) [a-z]+(?: [a-z]+)?"
)
_ACTIVE = re.compile(
    rf"^(?P<subj>{_NP_SUBJ}) (?P<aux>(?:has|have|had|will|would|can|could|should|must|may|might) )?(?P<verb>[a-z]+) (?P<obj>(?:{_DET}) (?:(?! (?:in|on|at|during|for|with|after|before|from|to|into|by|when|while|because|and|but)\b)(?:[^,;:]|(?<=\d),(?=\d)))"
    rf"{{2,60}}?)(?P<rest>(?: (?:in|on|at|during|for|with|after|before|from|to|into)\b[^;:]*)?)(?P<end>[.!?])$"
)
_PASSIVE = re.compile(
    rf"^(?P<obj>(?:{_DET}) (?:[^,;:]|(?<=\d),(?=\d)){{2,60}}?) (?P<be>was|were) (?P<verb>[a-z]+) by "
    rf"(?P<subj>{_NP_SUBJ}|him|her|them|us|me)(?P<end>[.!?])$",
    re.I,
)
_PREP = re.compile(r" (?:of|for|in|on|at|with|from|to|by|about|into|during|after|before|near)\b")
_SUBJECT = {"him": "he", "her": "she", "them": "they", "us": "we", "me": "I"}


def _plural(noun_phrase: str) -> bool:
    head = _PREP.split(noun_phrase)[0].split()[-1].lower()
    noun = lemmas(head).get("NOUN")
    return noun is not None and head != noun[0] and inflect(noun[0], "NNS") == head


def _voice(s: str, c: _Ctx) -> str | None:
    if (m := _ACTIVE.match(s)) and (lemma := lemmas(m.group("verb")).get("VERB")):
        verb, base, aux = m.group("verb"), lemma[0], (m.group("aux") or "").strip()
        vbn = inflect(base, "VBN")
        form = {"": inflect(base, "VBD"), "has": vbn, "have": vbn, "had": vbn}.get(aux, base)
        if verb != form or (verb == base and not aux) or not vbn or base in _INTRANSITIVE or verb in _AUX:
            return None
        subj = m.group("subj")
        if any(w.lower() in _AUX or w.lower() in _MODAL_CLEFT for w in subj.split()):
            return None  # "The chat must have made ..." is not a subject "The chat must"
        by = _OBJECT.get(subj.lower(), _decap(c, subj)) if subj != "I" else "me"
        plural = _plural(m.group("obj"))
        if aux in {"has", "have"}:
            be = "have been" if plural else "has been"
        elif aux:
            be = f"{aux} been" if aux == "had" else f"{aux} be"
        else:
            be = "were" if plural else "was"
        return f"{_cap(m.group('obj'), c.lower)} {be} {vbn} by {by}{m.group('rest')}{m.group('end')}"
    if (m := _PASSIVE.match(s)) and (lemma := lemmas(m.group("verb")).get("VERB")):
        vbd = inflect(lemma[0], "VBD")
        if not vbd or inflect(lemma[0], "VBN") != m.group("verb"):
            return None
        subj = m.group("subj")
        subj = _SUBJECT.get(subj.lower(), subj)
        return f"{_cap(subj, c.lower)} {vbd} {_decap(c, m.group('obj'))}{m.group('end')}"
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


@dataclass(frozen=True)
class _Clause:
    """A sentence split as subject + one finite lexical verb (past or 3rd-person present) + the rest."""

    subj: str
    lemma: str
    tag: str  # VBD or VBZ
    rest: str


def _clause(s: str) -> _Clause | str | None:
    """Split ``s`` at its first finite verb; the str "aux" when that verb is an auxiliary."""
    words = list(WORD.finditer(s))
    if len(words) < 3 or words[0].group(0).lower() in _NOT_SUBJECT_START or words[0].group(0).endswith("ly"):
        return None
    for k, m in enumerate(words[1:9], start=1):
        w = m.group(0)
        if w.lower() in _AUX:
            return "aux"
        lemma = lemmas(w).get("VERB")
        if not lemma or w[:1].isupper() or w == lemma[0]:
            continue
        prev = words[k - 1].group(0)
        if "ADJ" in lemmas(w) or (
            "NOUN" in lemmas(w) and not ((prev[:1].isupper() and not _is_common(prev)) or prev in _OBJECT)
        ):
            return None  # "frustrated" / "points" may not be the verb
        tag = "VBD" if inflect(lemma[0], "VBD") == w else "VBZ" if inflect(lemma[0], "VBZ") == w else None
        subj, rest = s[: m.start()].strip(), s[m.end() :]
        last = prev.lower()
        if (
            tag is None
            or re.search(r"[,;:()\"“”]|\b(?:that|who|which|whom|whose|where)\b", subj)
            or last in _ADVERBS
            or last.endswith("ly")
            or not re.match(r"^ [a-z]", rest)
            or _coordinated(rest, tag)
        ):
            return None
        return _Clause(subj, lemma[0], tag, rest)
    return None


def _what_cleft(s: str, c: _Ctx) -> str | None:
    """'Tim found the perfect name.' -> 'What Tim did was find the perfect name.'"""
    cl = _clause(s)
    if cl == "aux":
        return _aux_cleft(s, list(WORD.finditer(s)), c)
    if not isinstance(cl, _Clause) or cl.lemma in _STATIVE:
        return None
    did, was = ("did", "was") if cl.tag == "VBD" else ("does", "is")
    return f"{_cap('what', c.lower)} {_decap(c, cl.subj)} {did} {was} {cl.lemma}{cl.rest}"


_OBJ_NP = re.compile(
    r"^ (?P<obj>(?:(?:the|a|an|his|her|their|its|this|these|those|my|our|your|some|several|many|\d[\d,.]*|"
    r"[a-z]+'s) )?(?:[a-z][\w-]* ){0,3}[a-z][\w-]*(?: of (?:the |a |an |his |her |their )?(?:[\w-]+ ){0,2}[\w-]+)?)"
    r"(?P<tail>(?: (?:in|on|at|during|for|with|after|before|from|into|over|under|across|through|against|as|"
    r"because|when|while|since|until|despite|last|this|next)\b[^;:]*)?)(?P<end>[.!?])$"
)
_NOT_OBJECT = frozenset(
    "to that how what if whether about up out off down on in into for with from at back away by as so "
    "not never also all".split()
)


def _general_passive(s: str, c: _Ctx) -> str | None:
    """'Recent problems have brought X into the light.' style: any subject, verb and simple object."""
    cl = _clause(s)
    if not isinstance(cl, _Clause) or cl.lemma in _INTRANSITIVE | _STATIVE:
        return None
    m = _OBJ_NP.match(cl.rest)
    vbn = inflect(cl.lemma, "VBN")
    if m is None or vbn is None or m.group("obj").split()[0] in _NOT_OBJECT:
        return None
    head = m.group("obj").split(" of ")[0].split()[-1]
    if "NOUN" not in lemmas(head) or ("VERB" in lemmas(head) and "NOUN" not in lemmas(head)):
        return None
    plural = _plural(m.group("obj"))
    be = ("were" if plural else "was") if cl.tag == "VBD" else ("are" if plural else "is")
    by = _OBJECT.get(cl.subj.lower(), _decap(c, cl.subj)) if cl.subj != "I" else "me"
    return f"{_cap(m.group('obj'), c.lower)} {be} {vbn} by {by}{m.group('tail')}{m.group('end')}"


_MODAL_CLEFT = frozenset("will would can could should may might must".split())


def _aux_cleft(s: str, words: list[re.Match[str]], c: _Ctx) -> str | None:
    """'Chelsea have signed a deal.' -> 'What Chelsea have done is sign a deal.'; 'will race' likewise."""
    k = next(i for i, w in enumerate(words) if i and w.group(0).lower() in _AUX)
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
        return f"{_cap('what', c.lower)} {_decap(c, subj)} {aux} done is {lemma[0]}{rest}"
    if aux in _MODAL_CLEFT and verb == lemma[0]:
        return f"{_cap('what', c.lower)} {_decap(c, subj)} {aux} do is {lemma[0]}{rest}"
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
    r"^(?P<main>(?:[^,;:]|(?<=\d),(?=\d)){15,}?) (?P<pp>(?:(?:in|at|on) (?:the |a |an |this |that |last |next |each |every |their |his |her |its )?"
    r"(?:[A-Z0-9][\w'’-]*|[a-z]+)(?: [\w'’-]+){0,6}|(?:during|after|before|since|throughout|despite|following|"
    r"within|with respect to|in response to) "
    r"(?:[^,;:]|(?<=\d),(?=\d)){3,50}?))(?P<end>[.!?])$"
)


_IDIOMS = frozenset({"large", "least", "all", "fact", "general", "particular", "time", "hand", "addition"})


def _noun_phrase(words: list[str]) -> bool:
    """Words that can form the noun phrase of a prepositional phrase: no verb forms, not an idiom."""
    if not words or words[-1].lower() in _IDIOMS:
        return False
    for w in words:
        pos = set(lemmas(w.lower().strip("'’")))
        if ("VERB" in pos and not pos & {"NOUN", "ADJ"}) or w.lower() in _AUX:
            return False
    return True


def _front_pp(s: str, c: _Ctx) -> str | None:
    """'Merson apologised in a tweet on Monday.' -> 'On Monday, Merson apologised in a tweet.'"""
    m = _FINAL_PP.match(s)
    if (
        m is None
        or not _noun_phrase(m.group("pp").split()[1:])
        or re.search(r"\b(?:and|or|but)\b", m.group("pp"))
        or m.group("main").split()[-1].lower() in _AUX | {"of", "been", "being"}
    ):
        return None
    return _fronted(m.group("pp"), _decap(c, m.group("main")) + m.group("end"), c.lower)


_INTRANSITIVE = frozenset(
    "spend take last be become seem go come arrive die live sleep happen remain stay appear exist rise fall sit lie "
    "stand walk run fly swim occur emerge grow turn get look feel sound".split()
)
_COPULA_REL = re.compile(
    r"^(?P<subj>[^,;:]{3,50}?) (?P<be>is|are) (?P<np>(?:a|an) [^,;:]{3,60}?) (?:that|which) (?P<rest>[a-z][^;:]+)$"
)


def _apposition(s: str, c: _Ctx) -> str | None:
    """'Autophagy is a process that degrades X.' -> 'Autophagy, a process, degrades X.'"""
    m = _COPULA_REL.match(s)
    if m is None or m.group("be") != "is" or not lemmas(m.group("rest").split()[0]).get("VERB"):
        return None
    return f"{_cap(m.group('subj'), c.lower)}, {m.group('np')}, {m.group('rest')}"


_THERE = re.compile(
    r"^There (?:are|were|is|was) (?P<np>(?:[^,;:]|(?<=\d),(?=\d)){3,50}?) (?:that|who|which) (?P<rest>[a-z][^;:]+)$"
)


def _there_is(s: str, c: _Ctx) -> str | None:
    """'There are studies that suggest X.' -> 'Studies suggest X.'"""
    m = _THERE.match(s)
    if m is None or not lemmas(m.group("rest").split()[0]).get("VERB"):
        return None
    np = m.group("np")
    np = np[2:] if np.startswith("a ") and np[2:3].isupper() else np
    return f"{_cap(np, c.lower)} {m.group('rest')}"


_SYNTAX: tuple[Callable[[str, _Ctx], str | None], ...] = (
    _reported,
    _clause_order,
    _phrase_move,
    _voice,
    _general_passive,
    _front_pp,
    _there_is,
    _apposition,
    _what_cleft,
)

# -- lexical rewrites -------------------------------------------------------------------------------------
_SYNONYMS = {
    "big": "large", "numerous": "many", "showed": "demonstrated", "shown": "demonstrated",
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


def _differs(a: str, b: str) -> bool:
    """``b`` differs substantially from ``a``: two or more words changed and at most 90% the same."""
    x, y = [w.lower() for w in _TOKEN.findall(a)], [w.lower() for w in _TOKEN.findall(b)]
    sm = difflib.SequenceMatcher(None, x, y, autojunk=False)
    changed = len(x) - sum(m.size for m in sm.get_matching_blocks())
    return changed >= 2 and sm.ratio() <= _MAX_SIMILARITY


_MAX_SIMILARITY = 0.9
_TOKEN = re.compile(r"\w+(?:['’-]\w+)*")


def paraphrase(sentence: str, c: _Ctx) -> str | None:
    """A meaning-preserving rewrite of ``sentence`` that differs substantially from it, or None.

    Syntactic rules apply in turn (each at most once) until the rewrite differs enough; the
    synonym table then rewrites words on top.
    """
    out = sentence
    for rule in _SYNTAX:
        if _differs(sentence, out):
            break
        out = rule(out, c) or out
    out = _swap_words(out, c.lower)[0]
    return out if _differs(sentence, out) else None


def _splits(sents: list[str], i: int, para: str) -> bool:
    """The sentence splitter sees ``para`` as one sentence between its original and the next one."""
    window = [sents[i], para, *sents[i + 1 : i + 2]]
    if not any(re.search(r"[.!?]\S|[.!?] \S|\b[A-Z]\.$", w) for w in window):
        return True  # nothing inside a sentence that the splitter could take for an end
    return split_sentences(" ".join(window)) == window


def rewrite_insert(text: str, severity: Severity, rng: random.Random, generator: str) -> Outcome:
    """Paraphrase one (minor) or two to three (major) sentences, each inserted right after its original."""
    sents = split_sentences(text)
    lo, hi = change_count(severity)
    names = {m.group(0) for m in re.finditer(r"(?<=[a-z,] )[A-Z][a-z]+", text)}
    ctx = _Ctx(lexicon.is_lowercase_text(text), frozenset(names))
    cands = [
        (i, p)
        for i, s in enumerate(sents)
        if (p := paraphrase(s, ctx)) is not None and _splits(sents, i, p) and paraphrase_verdict(s, p).ok
    ]  # the validator's own test of one paraphrase: no near copy, content kept, no broken structure
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
