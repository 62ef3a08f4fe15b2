"""Rewriting and insertion: rule-based paraphrases that keep the meaning, inserted after their original.

A paraphrase changes the wording, not only the order (issue 19: under 80% of its word types shared
with the source, no "What X did was ..." cleft, no rule that merely moves a phrase). One syntactic
rewrite (when a pattern below fits) is followed by lexical rewrites:

* ``reported`` - "X said (that) Y" / "Y, X said" -> "According to X, Y";
* ``voice`` / ``general_passive`` / ``by_passive`` - active <-> passive for a simple clause;
* ``there_is``, ``apposition``, ``gerund_subject``, ``as_shown``, ``used_to``, ``study_aimed`` -
  constructions that say the same with other words ("There are studies that suggest X." -> "Studies
  suggest X.");
* lexical - contractions written out, the curated synonym table ``data/synonyms.tsv`` (only
  lower-case words outside names, a/an fixed after a swap) and the phrase table of :mod:`.wording`.

Rules are chained until the rewrite differs enough by the validator's measures; a sentence no
chain rewrites that far is not a candidate, and a text with too few candidates is not applicable.
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from dhp.builder.perturb import lexicon
from dhp.builder.perturb.base import NotApplicable, Outcome, Perturbed
from dhp.builder.perturb.closed_class import CORE_DET, MONTHS_IN_ORDER, PREPOSITIONS, SUBJECT_TO_OBJECT
from dhp.builder.perturb.lexicon import word_tags
from dhp.builder.perturb.offline import wording
from dhp.builder.perturb.offline.edits import WORD, change_count, compiled, inflect, lemmas
from dhp.builder.perturb.validate import MAX_JACCARD, paraphrase_verdict, rewrite_distance, word_type_jaccard
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
_OBJECT = SUBJECT_TO_OBJECT


@dataclass(frozen=True)
class _Ctx:
    """What a rule needs to know about the whole text."""

    lower: bool  # the text is written in lower case (SumPubMed)
    names: frozenset[str]  # words the text capitalises in mid-sentence: names, never lower-cased
    text: str = ""  # the whole text (the validator reads names from it)


def _decap(c: _Ctx, s: str) -> str:
    parts = s.split(" ", 2)
    if parts[0].lower() in _FUNCTION | PREPOSITIONS and parts[0] != "I":
        # "The Colombia international" -> "the ...", "At Stamford Bridge" -> "at ..."
        return s[:1].lower() + s[1:]
    if (
        not _is_common(parts[0])
        or parts[0] in c.names
        or (len(parts) > 1 and parts[1][:1].isupper())
        or (not c.lower and lexicon.is_name_word(parts[0]))
        or (
            len(parts) > 1
            and not c.lower
            and _noun_only(parts[0])
            and "NOUN" in lemmas(parts[1].lower().strip(",."))
        )
    ):  # "Dragon spacecraft", "Miles agency": the first word may be part of a name
        return s  # a name ("Chelsea", "New Zealander") keeps its capital
    return s[:1].lower() + s[1:]


def _noun_only(word: str) -> bool:
    return set(lemmas(word.lower())) == {"NOUN"}


def _cap(s: str, lower: bool) -> str:
    return s if lower else s[:1].upper() + s[1:]


def _led(lead: str | None, phrase: str, lower: bool) -> str:
    """``phrase`` opening the sentence: behind its leading connective ("However, ") when it kept one,
    else capitalised (in cased text)."""
    return f"{lead}{phrase}" if lead else _cap(phrase, lower)


# -- syntactic rewrites --------------------------------------------------------------------------------
_SAY = (
    r"said|says|say|told reporters|added|explained|noted|claimed|claims|argued|argues|stated|believes|believed|thinks|"
    r"insists|maintains|"
    r"reported|reports|announced|suggested|suggests|admitted|admits|insisted|revealed|warned|confirmed|"
    r"(?:have|has) (?:said|revealed|reported|suggested|claimed|admitted|confirmed|warned|insisted|stated)"
)
_GROUPS = frozenset("police officials experts researchers scientists witnesses sources".split())
_SPEAKER = (
    r"(?:[A-Z][\w'’.-]*(?: [A-Z][\w'’.-]*){0,3}|[Hh]e|[Ss]he|[Tt]hey|[Ww]e|[Tt]he (?:[A-Z][\w'’.-]* ){0,4}\w+(?: \w+)?|"
    r"[Pp]olice|[Oo]fficials|[Ee]xperts|[Rr]esearchers|[Ss]cientists|[Ww]itnesses|[Ss]ources)"
)
#: what studies and results are said to show: "Recent studies suggest X" -> "According to recent studies, X"
_FINDINGS = (
    r"(?:[Rr]ecent |[Pp]revious |[Ss]everal |[Mm]any |[Tt]hese |[Oo]ur |[Tt]he )"
    r"(?:studies|results|findings|data|analyses|experiments|observations)"
)
_SHOW = (
    r"suggest|suggested|indicate|indicated|show|showed|demonstrate|demonstrated|reveal|revealed|"
    r"(?:have|has) (?:shown|demonstrated|suggested|indicated|revealed|reported)"
)
_REPORTED = re.compile(
    rf"^(?P<who>{_SPEAKER}|{_FINDINGS}) (?:{_SAY}) (?:that )?(?P<rest>[^\"“].{{10,}})$|"
    rf"^(?P<found>{_FINDINGS}) (?:{_SHOW}) (?:that )?(?P<shown>[^\"“].{{10,}})$"
)
_REPORTED_END = re.compile(rf"^(?P<rest>.{{10,}}), (?P<who>{_SPEAKER}) (?:{_SAY})(?P<end>[.!?])$")


def _reported(s: str, c: _Ctx) -> str | None:
    m = _REPORTED.match(s) or _REPORTED_END.match(s)
    if m is None:
        return None
    who = m.groupdict().get("who") or m.group("found")
    last = who.split()[-1].lower()
    if last in _ADVERBS | _AUX or last.endswith("ly"):
        return None  # "The girl also claims X", "The agency has stated": not "According to the agency has"
    if " " not in who and _is_common(who) and who.lower() not in _GROUPS:
        return None  # "Post says X": a common noun without its article is no speaker to cite
    who = who.lower() if who.lower() in _GROUPS else _OBJECT.get(who.lower(), _decap(c, who))
    rest = m.groupdict().get("rest") or m.group("shown")
    if rest.split(" ", 1)[0].lower() in PREPOSITIONS:  # "said on 12 March that ...": no "According to"
        return None
    if not _has_finite(rest):
        return None  # "The Dutchman revealed his 'love' for the club": an object, not a reported clause
    end = m.groupdict().get("end") or ""
    return f"{_cap('according to', c.lower)} {who}, {_decap(c, rest)}{end}"


def _has_finite(text: str) -> bool:
    """``text`` holds a finite verb (an auxiliary, or a past or present form that is no noun)."""
    for w in WORD.findall(text.lower()):
        tags = word_tags(w)
        if w in _AUX or (tags & {"VBD", "VBZ", "VBP"} and not tags & {"NN", "NNS"}):
            return True
    return False


_MONTH = "|".join(m.capitalize() for m in MONTHS_IN_ORDER)


_DET = "|".join(sorted(CORE_DET))  # an alternation for the patterns below
_NP_SUBJ = (
    r"[A-Z][\w'’-]*(?: [A-Z][\w'’-]*){0,2}|[Hh]e|[Ss]he|[Tt]hey|[Ww]e|I|(?:[Tt]he|[Aa]n?) [a-z]+(?: [a-z]+)?"
)
_ACTIVE = re.compile(
    rf"^(?P<subj>{_NP_SUBJ}) (?P<aux>(?:has|have|had|will|would|can|could|should|must|may|might) )?(?P<verb>[a-z]+) (?P<obj>(?:{_DET}) (?:(?! (?:in|on|at|during|for|with|after|before|from|to|into|by|when|while|because|and|but)\b)(?:[^,;:]|(?<=\d),(?=\d)))"
    rf"{{2,60}}?)(?P<rest>(?: (?:in|on|at|during|after|before)\b[^;:]*)?)(?P<end>[.!?])$"
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
        if any(w.lower() in _AUX for w in subj.split()):
            return None  # "The chat must have made ..." is not a subject "The chat must"
        if _own_possessive(subj, m.group("obj")) or not _tail_ok(m.group("rest")) or _coordinated_verbs(s):
            return None
        if _has_finite(m.group("obj")):
            return None  # "have circulated that X will be replaced": a clause, not an object
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


_TAIL_OK = re.compile(
    r"^(?:$| (?:(?:during|after|before|because|when|while|since|until|despite|last|this|next)\b|"
    r"(?:in|on|at) (?:the )?[A-Z0-9]))"
)


def _tail_ok(tail: str) -> bool:
    """What follows a moved object is a time or a named place ("in the 29th minute", "on Saturday",
    "at Goodison Park"), not a phrase that may belong to the object ("thankfulness at the fact")."""
    return bool(_TAIL_OK.match(tail))


def _own_possessive(subj: str, obj: str) -> bool:
    """A pronoun subject whose object holds a possessive ("He earned his break"): the passive would put
    the pronoun after the possessive that refers to it ("His break was earned by him")."""
    return subj.lower() in _OBJECT and bool(
        compiled(r"\b(?:his|her|its|their|our|my|your)\b", re.I).search(obj)
    )


_STATIVE = frozenset(
    "be have do seem appear become remain belong contain consist include know mean need want like love "
    "cost own matter lack deserve exist say tell think believe feel hope wish suggest show indicate "
    "involve require depend derive originate stem result arise comprise correspond relate differ vary range "
    "respond happen occur emerge aim circulate agree disagree understand prefer doubt".split()
)
_NOT_SUBJECT_START = frozenset(
    "when if while because although though after before since until once as in on at for with by from to "
    "of during but and or so then however also there it this that what which who".split()
)
_ADVERBS = frozenset(
    "however also then never just still even finally already now only really ultimately nevertheless".split()
)


@dataclass(frozen=True)
class _Clause:
    """A sentence split as subject + one finite lexical verb (past or 3rd-person present) + the rest."""

    subj: str
    lemma: str
    tag: str  # VBD, VBZ, or VBP after "we"/"they"/"I"/"you"
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
        prev = words[k - 1].group(0)
        present = k == 1 and prev.lower() in ("we", "they", "i", "you")  # "we report X"
        if not lemma or w[:1].isupper() or (w == lemma[0] and not present):
            continue
        if "ADJ" in lemmas(w) or (
            "NOUN" in lemmas(w) and not ((prev[:1].isupper() and not _is_common(prev)) or prev in _OBJECT)
        ):
            return None  # "frustrated" / "points" may not be the verb
        tag = "VBD" if inflect(lemma[0], "VBD") == w else "VBZ" if inflect(lemma[0], "VBZ") == w else None
        tag = "VBP" if present and w == lemma[0] else tag
        subj, rest = s[: m.start()].strip(), s[m.end() :]
        last = prev.lower()
        if set(lemmas(last)) == {"ADJ"} or last in _FUNCTION - _OBJECT.keys():
            return None  # "previous researches tackled": "researches" is the noun, not the verb
        if (
            tag is None
            or compiled(r"[,;:()\"“”]|\b(?:that|who|which|whom|whose|where)\b").search(subj)
            or last in _ADVERBS
            or last.endswith("ly")
            or not compiled(r"^ [a-z0-9$£€]").match(rest)
            or _coordinated(rest, tag)
        ):
            return None
        return _Clause(subj, lemma[0], tag, rest)
    return None


_OBJ_NP = re.compile(
    r"^ (?P<obj>(?:(?:the|a|an|his|her|their|its|this|these|those|my|our|your|some|several|many|\d[\d,.]*|"
    r"[a-z]+'s) )?(?:[a-z][\w-]* ){0,3}[a-z][\w-]*(?: of (?:the |a |an |his |her |their )?(?:[\w-]+ ){0,2}[\w-]+)?)"
    r"(?P<tail>(?: (?:in|on|at|during|after|before|as|because|when|while|since|until|despite|last|this|next)\b"
    r"[^;:]*)?)(?P<end>[.!?])$"
)
_NOT_OBJECT = frozenset(
    "to that how what if whether about up out off down on in into for with from at back away by as so "
    "not never also all".split()
)


_INNER_PREPS = frozenset({"of", "for", "against", "between", "among"})
_INNER_PREPS_LOWER = _INNER_PREPS | {"in", "on", "with", "to", "from", "within", "across", "during", "at"}


def _object_split(rest: str, lower: bool) -> tuple[str, str, str] | None:
    """``rest`` (after the verb) as (object noun phrase, tail, final stop): the shortest object
    whose remainder is a time or named place (or nothing). Inside the object only prepositions that
    bind to a noun ("the burden of X") are allowed; in lower-case (scientific) text also "in", "on", ..."""
    m = compiled(r"^ (?P<body>.+?)(?P<end>[.!?])$").match(rest)
    if m is None:
        return None
    words, inner = m.group("body").split(" "), _INNER_PREPS_LOWER if lower else _INNER_PREPS
    for k in range(1, len(words) + 1):
        obj, tail = words[:k], " " + " ".join(words[k:]) if k < len(words) else ""
        if any(w.lower() in PREPOSITIONS - inner or not _phrase_ok([w]) for w in obj if w.lower() != "and"):
            return None
        if obj[-1].lower() not in PREPOSITIONS | _FUNCTION and _tail_ok(tail):
            return " ".join(obj), tail, m.group("end")
    return None


def _general_passive(s: str, c: _Ctx) -> str | None:
    """'Recent problems have brought X into the light.' style: any subject, verb and simple object."""
    cl = _clause(s)
    if (
        not isinstance(cl, _Clause)
        or cl.lemma in _INTRANSITIVE | _STATIVE
        or compiled(r"[,;:()\"“”]").search(cl.rest)
    ):
        return None
    split = _object_split(cl.rest, c.lower)
    vbn = inflect(cl.lemma, "VBN")
    if split is None or vbn is None or split[0].split()[0] in _NOT_OBJECT or _coordinated_verbs(cl.rest):
        return None
    obj, tail, end = split
    if not compiled(rf"(?:(?:{_DET}|some|several|many)\b|\d|[a-z]+'s )").match(obj) or _own_possessive(
        cl.subj, obj
    ):
        return None  # "booked place in the semi-finals": no determiner, maybe no object
    head = compiled(
        r" (?:of|for|against|between|among|in|on|with|to|from|within|across|during|at|and) "
    ).split(obj)[0]
    if "NOUN" not in lemmas(head.split()[-1].lower()):
        return None
    first = compiled(r" (?:of|for|against|between|among|in|on|with|to|from|within|across|during|at) ").split(
        obj
    )[0]
    plural = _plural(obj) or " and " in f" {first} "  # "X and Y were", not "love for X and Y were"
    be = ("were" if plural else "was") if cl.tag == "VBD" else ("are" if plural else "is")
    if cl.subj.lower() == "we":
        return f"{_cap(obj, c.lower)} {be} {vbn}{tail}{end}"  # "we analysed the data" -> "the data were analysed"
    by = _OBJECT.get(cl.subj.lower(), _decap(c, cl.subj)) if cl.subj != "I" else "me"
    return f"{_cap(obj, c.lower)} {be} {vbn} by {by}{tail}{end}"


_AUX = frozenset(
    "is are was were am be been being has have had will would can could should must may might shall do does "
    "did".split()
)


def _coordinated(rest: str, tag: str) -> bool:
    """A second finite verb of the same form after "and"/"or" ("swims ... and waits")."""
    for m in compiled(r"\b(?:and|or|but) ([a-z]+)").finditer(rest):
        lemma = lemmas(m.group(1)).get("VERB")
        if lemma and inflect(lemma[0], tag) == m.group(1):
            return True
    return False


def _verb_only(word: str) -> bool:
    """A verb form that is no noun: a phrase after it may be its complement ("resulted in a draw")."""
    tags = word_tags(word)
    return bool(tags & {"VB", "VBD", "VBZ", "VBN", "VBP"}) and not tags & {"NN", "NNS"}


def _coordinated_verbs(main: str) -> bool:
    """Two verb phrases joined by "and"/"or" ("is held on bail and will appear in court"): a moved
    phrase would seem to belong to both."""
    for m in compiled(r"\b(?:and|or|but) (\w+)").finditer(main):
        w = m.group(1).lower()
        if w in _AUX or (lemmas(w).get("VERB") and "NOUN" not in lemmas(w)):
            return True
    return False


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


_LEAD = (
    r"(?P<lead>(?:(?:however|therefore|thus|moreover|furthermore|in addition|additionally|here|in this study|"
    r"consequently|overall|importantly|finally|in contrast|similarly|notably|indeed|hence), )?)"
)
_BE_PASSIVE = re.compile(
    rf"^{_LEAD}(?P<obj>(?:[^,;:]|(?<=\d),(?=\d)){{3,90}}?) (?P<be>is|are|was|were|(?:has|have|had) been|"
    r"(?:can|could|will|would|may|might|must|should) be) (?P<adv>[a-z]+ly )?(?P<vbn>[a-z]+)(?P<score> \d+-\d+)? by "
    r"(?P<agent>(?:[^,;:]|(?<=\d),(?=\d)){2,80}?)(?P<tail>(?: (?:at|in|on|during|after|before|last|this)\b[^,;:]*)?)"
    r"(?P<end>[.!?])$",
    re.I,
)
_NOT_MOVED = frozenset({"neither", "either", "none", "nothing", "nobody", "everyone", "everything"})
_CLAUSE_WORDS = frozenset(
    "which that who whom whose where when whether if because although while since than as not no".split()
)
_NO_AGENT = frozenset(
    "far then now hand mail car bus train email phone default chance mistake accident means way nature "
    "contrast comparison definition design law far".split()
)


def _phrase_ok(words: list[str]) -> bool:
    """Words that form one noun phrase: no clause word, auxiliary or verb-only form."""
    for w in words:
        low = w.lower()
        pos = set(lemmas(low))
        if low in _CLAUSE_WORDS or low in _AUX or ("VERB" in pos and not pos & {"NOUN", "ADJ", "PROPN"}):
            return False
    return bool(words)


def _active_verb(be: str, lemma: str, plural: bool) -> str | None:
    """The active verb group for a passive "be" group and the agent's number ("is" -> "secretes")."""
    low = be.lower()
    if low in ("was", "were"):
        return inflect(lemma, "VBD")
    if low in ("is", "are"):
        return lemma if plural else inflect(lemma, "VBZ")
    vbn = inflect(lemma, "VBN")
    if low.endswith("been"):
        aux = "had" if low.startswith("had") else "have" if plural else "has"
        return f"{aux} {vbn}" if vbn else None
    return f"{low.split()[0]} {lemma}"


def _by_passive(s: str, c: _Ctx) -> str | None:
    """'X is enhanced by the existence of Y.' -> 'The existence of Y enhances X.'"""
    m = _BE_PASSIVE.match(s)
    if m is None:
        return None
    lemma, obj, agent = _verb_lemma_of(m.group("vbn")), m.group("obj"), m.group("agent")
    obj_words, agent_words = obj.split(), agent.split()
    if lemma is None or inflect(lemma, "VBN") != m.group("vbn").lower() or lemma in _STATIVE:
        return None
    if not (_phrase_ok(obj_words) and _phrase_ok(agent_words)) or agent_words[0].lower() in _NO_AGENT:
        return None
    if any(w.lower() in PREPOSITIONS - {"of"} for w in agent_words) or obj_words[0].lower() in _NOT_MOVED:
        return None  # "by Rodgers for incident": the agent ends before "for"
    if obj_words[0].lower() in PREPOSITIONS | _NOT_SUBJECT_START - _FUNCTION or agent_words[0][:1].isdigit():
        return None
    plural = " and " in agent or _plural(agent) or agent.lower() in ("them", "us", "me")
    verb = _active_verb(m.group("be"), lemma, plural)
    if verb is None:
        return None
    subj = _SUBJECT.get(agent.lower(), agent)
    obj = _OBJECT.get(obj.lower(), _decap(c, obj))
    head = _led(m.group("lead"), subj, c.lower)
    if not _tail_ok(m.group("tail")):
        return None  # the tail may belong to the agent: only a time or a named place moves with the clause
    rest = f"{m.group('score') or ''}{m.group('tail')}{m.group('end')}"
    return f"{head} {m.group('adv') or ''}{verb} {obj}{rest}"


def _verb_lemma_of(word: str) -> str | None:
    v = lemmas(word.lower()).get("VERB")
    return v[0] if v else None


_ADJ_TO = (
    "essential|important|necessary|critical|crucial|difficult|possible|impossible|useful|vital|hard|easy|"
    "challenging|desirable|helpful|valuable|feasible|reasonable|common"
)
_IT_ADJ_TO = re.compile(
    rf"^{_LEAD}it (?P<be>is|was) (?P<adj>{_ADJ_TO}) to (?P<verb>[a-z]+)(?P<rest> [^,;:]+?)(?P<end>[.!?])$",
    re.I,
)


def _gerund_subject(s: str, c: _Ctx) -> str | None:
    """'It is essential to analyse these mechanisms.' -> 'Analysing these mechanisms is essential.'"""
    m = _IT_ADJ_TO.match(s)
    if m is None or len(m.group("rest").split()) > 14 or not _is_base(m.group("verb")):
        return None
    ing = inflect(m.group("verb"), "VBG")
    if ing is None or compiled(r"\b(?:and|or) to\b").search(m.group("rest")):
        return None
    gerund = _led(m.group("lead"), ing, c.lower)
    return f"{gerund}{m.group('rest')} {m.group('be').lower()} {m.group('adj').lower()}{m.group('end')}"


def _is_base(word: str) -> bool:
    return word in lemmas(word).get("VERB", ())


_IT_SHOWN = compiled(
    r"^(?P<lead>(?:however|moreover|furthermore|recently|previously), )?it (?P<be>is|was|has been|had been) "
    r"(?P<vbn>shown|reported|suggested|proposed|demonstrated|established|hypothesi[sz]ed|observed|known|recognised|"
    r"recognized|documented) that (?P<rest>[a-z0-9<][^;:]{8,})$",
    re.I,
)


def _as_shown(s: str, c: _Ctx) -> str | None:
    """'It has been shown that X.' -> 'As has been shown, X.' (the same impersonal report, turned round)."""
    m = _IT_SHOWN.match(s)
    if m is None:
        return None
    return f"{_led(m.group('lead'), 'as', c.lower)} {m.group('be').lower()} {m.group('vbn').lower()}, {m.group('rest')}"


_USED_TO = compiled(
    r"^(?P<x>(?:[^,;:]|(?<=\d),(?=\d)){3,70}?) (?P<be>is|are|was|were|has been|have been|can be) "
    r"(?P<adv>(?:often|commonly|widely|frequently|routinely|generally|usually|typically) )?used to "
    r"(?P<verb>[a-z]+) (?P<y>(?:[^,;:]|(?<=\d),(?=\d)){3,70}?)(?P<end>[.!?])$"
)


_HEADINGS = frozenset("background methods results conclusions conclusion objective objectives aims".split())
_PLURAL_BE = {"is": "are", "was": "were", "has been": "have been"}
_SINGULAR_BE = {plural: singular for singular, plural in _PLURAL_BE.items()}


def _used_to(s: str, c: _Ctx) -> str | None:
    """'Quantitative pcr is often used to analyse gene expression.' -> 'Gene expression is often
    analysed with quantitative pcr.' (the tool and the task change places; the tense stays)."""
    m = _USED_TO.match(s)
    if m is None or not _is_base(m.group("verb")) or m.group("verb") in _STATIVE:
        return None
    vbn = inflect(m.group("verb"), "VBN")
    x, y = m.group("x"), m.group("y")
    if x.split()[0].lower() in _HEADINGS:
        return None  # "methods homology-based cloning ... were used to": an abstract's heading ran into the sentence
    if (
        vbn is None
        or not (_phrase_ok(x.split()) and _phrase_ok(y.split()))
        or compiled(r"\b(?:and|or) ").search(y)
    ):
        return None
    if (
        x.split()[0].lower() in _NOT_SUBJECT_START - _FUNCTION
        or y.split()[0].lower() in _NOT_OBJECT | _OBJECT.keys()
    ):
        return None
    be = m.group("be").lower()
    # "be" agrees with its new subject
    be = _PLURAL_BE.get(be, be) if _plural(y) else _SINGULAR_BE.get(be, be)
    return f"{_cap(y, c.lower)} {be} {m.group('adv') or ''}{vbn} with {_decap(c, x)}{m.group('end')}"


_AIM_OF = compiled(
    r"^(?P<lead>(?:[^;:]{3,}?, )?)the (?:aim|goal|objective|purpose) of "
    r"(?P<who>this|the present|our) (?P<what>study|work|paper|research|analysis) (?P<be>was|is) to (?P<rest>[a-z][^;:]+)$",
    re.I,
)


_AIMED = compiled(
    r"^(?P<lead>(?:[^;:]{3,}?, )?)(?P<who>this|the present|our) "
    r"(?P<what>study|work|paper|research|analysis) (?P<verb>aimed|aims) to (?P<rest>[a-z][^;:]+)$",
    re.I,
)


def _study_aimed(s: str, c: _Ctx) -> str | None:
    """'The aim of this study was to test X.' <-> 'This study aimed to test X.'"""
    if (m := _AIMED.match(s)) and _is_base(m.group("rest").split()[0]):
        be = "was" if m.group("verb").lower() == "aimed" else "is"
        head = _led(m.group("lead"), "the aim of", c.lower)
        return f"{head} {m.group('who').lower()} {m.group('what').lower()} {be} to {m.group('rest')}"
    m = _AIM_OF.match(s)
    if m is None or not _is_base(m.group("rest").split()[0]):
        return None
    verb = "aimed" if m.group("be").lower() == "was" else "aims"
    subj = _led(m.group("lead"), f"{m.group('who').lower()} {m.group('what').lower()}", c.lower)
    return f"{subj} {verb} to {m.group('rest')}"


_TEAM = r"(?:[A-Z][\w'’.-]*)(?: (?:[A-Z][\w'’.-]*|de|del|of))*"
_RESULT = re.compile(
    rf"^(?P<a>{_TEAM}) (?P<verb>beat|defeated|lost to) (?P<b>{_TEAM})(?P<score> \d{{1,2}}-\d{{1,2}})?"
    r"(?P<tail>(?: (?:at|in|on|during|after|before|last|this|thanks|with)\b[^;:]*)?)(?P<end>[.!?])$"
)


def _result(s: str, c: _Ctx) -> str | None:
    """A match result told from the other side: 'Everton defeated Burnley 1-0 at Goodison Park.' ->
    'Burnley lost 1-0 to Everton at Goodison Park.'; 'Napoli lost to Roma 1-0.' -> 'Roma beat Napoli 1-0.'"""
    m = _RESULT.match(s)
    if (
        m is None
        or c.lower
        or any(_is_common(w) and w not in c.names for w in (m["a"].split()[0], m["b"].split()[0]))
    ):
        return None  # "The Spaniard beat ...": a common word opens the phrase, not a team's name
    score = m["score"] or ""
    if m["verb"] == "lost to":
        return f"{m['b']} beat {m['a']}{score}{m['tail']}{m['end']}"
    return f"{m['b']} lost{score} to {m['a']}{m['tail']}{m['end']}"


_SYNTAX: tuple[Callable[[str, _Ctx], str | None], ...] = (
    _result,
    _by_passive,
    _as_shown,
    _used_to,
    _study_aimed,
    _gerund_subject,
    _reported,
    _voice,
    _general_passive,
    _there_is,
    _apposition,
)


def _lexical(s: str) -> str:
    """Contractions written out, then the synonym table, then the phrase table (whose output is final)."""
    return wording.phrases(wording.synonyms(wording.contractions(s)[0])[0])[0]


def _differs(a: str, b: str) -> bool:
    """``b`` differs substantially from ``a`` by the validator's own measures: two or more words
    changed, at most 90% the same, and under 80% of the word types shared."""
    changed, ratio = rewrite_distance(a, b)
    return changed >= 2 and ratio <= _MAX_SIMILARITY and word_type_jaccard(a, b) < MAX_JACCARD


_MAX_SIMILARITY = 0.9


def _chains(sentence: str, c: _Ctx) -> Iterator[str]:
    """Candidate rewrites, preferred first: each syntactic rule that applies, followed by the later
    rules until the rewrite differs enough, with the lexical rewrites on top; the lexical ones alone last."""
    for k, rule in enumerate(_SYNTAX):
        out = rule(sentence, c)
        if out is None or out == sentence:
            continue
        for later in _SYNTAX[k + 1 :]:
            if _differs(sentence, out):
                break
            out = later(out, c) or out
        yield _lexical(out)
    yield _lexical(sentence)


def _tidy(s: str) -> str:
    """Single spaces, none before the final stop ("the badger ." moved inside a sentence)."""
    return compiled(r" (?=[.!?]$)").sub("", " ".join(s.split()))


@functools.lru_cache(maxsize=4096)
def paraphrase(sentence: str, c: _Ctx) -> str | None:
    """A meaning-preserving rewrite of ``sentence`` that differs substantially from it and that the
    validator accepts as a paraphrase, or None."""
    for out in map(_tidy, _chains(sentence, c)):
        if _differs(sentence, out) and paraphrase_verdict(sentence, out, c.text).ok:
            return out
    return None


def _splits(sents: list[str], i: int, para: str) -> bool:
    """The sentence splitter sees ``para`` as one sentence between its original and the next one."""
    window = [sents[i], para, *sents[i + 1 : i + 2]]
    if not any(compiled(r"[.!?]\S|[.!?] \S|\b[A-Z]\.$").search(w) for w in window):
        return True  # nothing inside a sentence that the splitter could take for an end
    return split_sentences(" ".join(window)) == window


def rewrite_insert(text: str, severity: Severity, rng: random.Random, generator: str) -> Outcome:
    """Paraphrase one (minor) or two to three (major) sentences, each inserted right after its original."""
    sents = split_sentences(text)
    lo, hi = change_count(severity)
    names = {m.group(0) for m in compiled(r"(?<=[a-z,] )[A-Z][a-z]+").finditer(text)}
    ctx = _Ctx(lexicon.is_lowercase_text(text), frozenset(names), text)
    cands = [
        (i, p) for i, s in enumerate(sents) if (p := paraphrase(s, ctx)) is not None and _splits(sents, i, p)
    ]
    if len(cands) < lo:
        return NotApplicable(
            f"{len(cands)} of {len(sents)} sentence(s) reword to under 80% shared word types (voice, reported "
            f"speech, construction and synonym tables); {severity.value} severity rewrites {lo}"
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
