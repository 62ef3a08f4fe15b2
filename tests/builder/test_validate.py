"""The perturbation validator on hand-written good and bad rows (each failure quoted in issue 9)."""

from __future__ import annotations

import pytest

from dhp.builder.perturb.registry import validate
from dhp.builder.perturb.validate import Verdict, check_severities_differ, token_edits
from dhp.spec import get_dataset
from dhp.types import Operation, Perturbation


def _p(dataset: str, pid: str) -> Perturbation:
    spec = get_dataset(dataset)
    return next(p for p in spec.perturbations if p.id == pid)


def _ok(v: Verdict) -> None:
    assert v.ok, v.reason
    assert v.reason == ""


def _bad(v: Verdict, *words: str) -> None:
    assert not v.ok
    assert v.reason and "\n" not in v.reason
    for w in words:
        assert w in v.reason, v.reason


NE_MINOR = _p("summeval", "word_fictional_ne_minor")
NE_MAJOR = _p("summeval", "word_fictional_ne_major")
NE_PUBMED = _p("sumpubmed", "word_fictional_ne_minor")
NE_STORY = _p("story-cloze", "word_fictional_ne")
GE_MINOR = _p("summeval", "word_grammar_minor")
GE_MAJOR = _p("summeval", "word_grammar_major")
GE_STORY = _p("story-cloze", "word_grammar")
RI_MINOR = _p("summeval", "sent_rewrite_insert_minor")
RI_MAJOR = _p("summeval", "sent_rewrite_insert_major")
RO_MINOR = _p("summeval", "sent_reorder_minor")
RO_MAJOR = _p("summeval", "sent_reorder_major")

# ----------------------------------------------------------------------------- common


def test_empty_or_unchanged_rows_fail_for_every_operation() -> None:
    every = {
        p.id: p
        for name in ("summeval", "story-cloze", "answer-equivalence", "wmt22-de-en")
        for p in get_dataset(name).perturbations
    }
    for p in every.values():
        _bad(validate(p, "A text. Another one.", "   "), "empty")
        _bad(validate(p, "A text. Another one.", "A text. Another one."), "equals")
        if p.operation is not Operation.CHAR_TYPO:  # the typo package may only add or drop a space
            _bad(validate(p, "A text. Another one.", "A text.  Another one."))


def test_token_edits_split_equal_length_replacements() -> None:
    edits = token_edits("John Smith went home.", "Varek Pendrell went home.")
    assert [(e.old_text, e.new_text) for e in edits] == [("John", "Varek"), ("Smith", "Pendrell")]
    (one,) = token_edits("on Wednesday. But the former", "on Faelan Halvorsen the former")
    assert one.old_text == "Wednesday . But" and one.new_text == "Faelan Halvorsen"


# ----------------------------------------------------------------------------- fictional entities

GOOD_NE = [
    (
        NE_MINOR,
        "Police arrested John Smith in Leeds on Monday.",
        "Police arrested Varek Pendrell in Leeds on Monday.",
    ),
    (NE_MINOR, "The team beat Chelsea 3-1 at the weekend.", "The team beat Chelsea 5-2 at the weekend."),
    (NE_MINOR, "The 15-year-old boy won.", "The 12-year-old boy won."),
    (NE_MINOR, "Officials in London said 40 people died.", "Officials in Valdoria said 40 people died."),
    (NE_MINOR, "He studied at Brown University for years.", "He studied at Pendrell University for years."),
    (
        NE_MAJOR,
        "John Smith flew from Paris to Berlin in 2015.",
        "Varek Pendrell flew from Oskavia to Berlin in 2031.",
    ),
    (
        NE_PUBMED,
        "the role of il-6 in <dig> patients with sepsis .",
        "the role of zx-41 in <dig> patients with sepsis .",
    ),
    (NE_STORY, "Tom was happy to see Mary again.", "Tom was happy to see Elowen Brackwater again."),
    # one entity named twice, replaced alike in both places, is one replacement
    (
        NE_MINOR,
        "Kevin Pietersen scored. Fans cheered Kevin Pietersen.",
        "Varek Holm scored. Fans cheered Varek Holm.",
    ),
    (NE_MINOR, "Fans cheered Kevin Pietersen.", "Fans cheered Corvin Pietersen."),  # "vin" shared by chance
    # a term replaced by a term of the same shape stays a term
    (NE_MINOR, "The VT40X engine failed.", "The KB17Z engine failed."),
    (
        NE_MINOR,
        "It was the 2nd session of the year.",
        "It was the 9th session of the year.",
    ),  # ordinal suffix
    (
        NE_MINOR,
        "They saw a wild cat (Felis silvestris) near Leeds.",
        "They saw a wild cat (Zagis kelinum) near Leeds.",
    ),
    (NE_MINOR, "Levels of hERG rose, Smith said.", "Levels of dRVA rose, Smith said."),  # an inner capital
    (NE_PUBMED, "the role of imatinib in <dig> patients .", "the role of zorvanib in <dig> patients ."),
    (
        NE_MINOR,
        "There were 2,242 new infections of the Sars CoV2 Virus and 16 deaths.",
        "There were 2,242 new infections of the Sars CoV2 Virus and 19 deaths.",
    ),
    (
        NE_MINOR,
        "Egypt joined the United Arab Republic in 1958.",
        "Egypt joined the Valdoria Arab Republic in 1958.",
    ),
    (
        NE_MINOR,
        "Power is set out in the Constitution of Kazakhstan, he wrote.",
        "Power is set out in the Constitution of Valdoria, he wrote.",
    ),  # a fictional place's constitution
    (
        NE_MINOR,
        "Rebels fought in the Libyan Civil War in 2011.",
        "Rebels fought in the Valdorian Civil War in 2011.",
    ),
    # lead's review: a gendered first name is replaced by one of the same gender
    (NE_STORY, "Jake waited for his leg to heal.", "Lorcan waited for his leg to heal."),
    (NE_STORY, "Don knew he would win.", "Caspian knew he would win."),
    (NE_STORY, "Mary knew she would win.", "Isolde knew she would win."),
    (NE_STORY, "Casey knew they would win.", "Isolde knew they would win."),  # "Casey" has no gender
    # issue 9 round 2: the new kinds, each replaced by a fictional one of its kind
    (NE_MINOR, "The SPD would agree, he said.", "The KTV would agree, he said."),  # acronym -> acronym
    (
        NE_MINOR,
        "Register at www.bosch-pt.com/warranty today.",
        "Register at www.drevo-kt.com/warranty today.",
    ),
    (NE_MINOR, "Ratings are on letterboxd.com as well.", "Ratings are on trorzussta.com as well."),  # domain
    (NE_MINOR, "French officials met on Tuesday.", "Valdorian officials met on Tuesday."),  # nationality
    (
        NE_MINOR,
        "It is related to being African American today.",
        "It is related to being Oskavian American today.",
    ),
    (NE_MINOR, "It came third in the race.", "It came seventh in the race."),  # ordinal word -> ordinal word
    (NE_MINOR, "Only two people left early.", "Only five people left early."),  # number word -> number word
    (
        NE_MINOR,
        "It considers imatinib and heterosexuality separately.",
        "It considers dravonib and heterosexuality separately.",
    ),  # a domain term -> a fictional one
    (
        NE_PUBMED,
        "the glycine binds rna . glycines are large .",
        "the degocine binds rna . degocines are large .",
    ),
    (NE_MINOR, "It starts at about 10 PM.", "It starts at about 7 PM."),  # an hour stays an hour
    (NE_MINOR, "Turnout was 40 percent.", "Turnout was 63 percent."),
    (NE_MINOR, "Bacteria make imatinib harder, Smith said.", "Bacteria make zorvanib harder, Smith said."),
    (
        NE_PUBMED,
        "the main wildlife host for siv is the chimpanzee .",
        "the main wildlife host for kel is the chimpanzee .",
    ),
    (NE_MINOR, "Gaddafi was popular at school.", "Dravelo was popular at school."),  # a name of unknown type
    (
        NE_MINOR,
        "During the Spring Festival, shops close.",
        "During the Korvan Festival, shops close.",
    ),  # an event
    (
        NE_MINOR,
        "He reviewed it on Studycheck and liked it.",
        "He reviewed it on Pembrosa and liked it.",
    ),  # a brand
    (
        NE_PUBMED,
        "we studied an imatinib in the lab .",
        "we studied an ogolanib in the lab .",
    ),  # "an" still agrees
]


BAD_NE = [
    # issue 9: a span across a sentence end
    (
        NE_MINOR,
        "He was seen on Wednesday. But the former mayor left.",
        "He was seen on Faelan Halvorsen the former mayor left.",
        ("sentence end",),
    ),
    # issue 9: ordinary words at a sentence start are not names
    (
        NE_MINOR,
        "Everyone had a great time. The band played.",
        "Oskavia had a great time. The band played.",
        ("Everyone", "not a named entity"),
    ),
    (NE_MINOR, "Officers arrested him on Monday.", "Vantrell arrested him on Monday.", ("Officers",)),
    # issue 9: types must stay
    (
        NE_MINOR,
        "She studied at Brown University last year.",
        "She studied at Varek Pendrell last year.",
        ("type changed", "org"),
    ),
    (
        NE_MINOR,
        "Zhejiang University released the study.",
        "Tomas Wendell released the study.",
        ("type changed",),
    ),
    (NE_STORY, "Then Sarah went to Boston.", "Then Valdoria went to Boston.", ("person", "place")),
    (NE_STORY, "Then Sarah went home.", "Then Paris went home.", ("person",)),
    # issue 9: a Unicode name must be replaced whole
    (NE_STORY, "Yûki smiled at her friend.", "Marwickûki smiled at her friend.", ("ûki",)),
    # issue 9: SumPubMed ordinary words and the number mask
    (
        NE_PUBMED,
        "the disease affects <dig> patients .",
        "the sorvatlun-6 affects <dig> patients .",
        ("disease",),
    ),
    (NE_PUBMED, "the disease affects <dig> patients .", "the disease affects 42 patients .", ("<dig>",)),
    # severities
    (
        NE_MINOR,
        "John Smith flew from Paris to Berlin.",
        "Varek Pendrell flew from Oskavia to Berlin.",
        ("exactly one",),
    ),
    (
        NE_MAJOR,
        "John Smith flew from Paris to Berlin.",
        "Varek Pendrell flew from Paris to Berlin.",
        ("two or more",),
    ),
    # the rest of the text must not change
    (NE_MINOR, "John Smith flew to Berlin.", "Varek Pendrell flew quickly to Berlin.", ("inserted",)),
    (NE_MINOR, "John Smith flew to Berlin.", "John Smith drove to Berlin.", ("flew",)),
    # fictional and new
    (NE_MINOR, "Officials in Leeds said no.", "Officials in Tokyo said no.", ("real place",)),
    (NE_MINOR, "Fans cheered Pietersen again.", "Fans cheered Pietersby again.", ("keeps",)),
    (NE_MINOR, "The 15-year-old boy won.", "The 07-ujvp-tih boy won.", ("unit",)),
    (NE_MINOR, "It was the 2nd session of the year.", "It was the 9km session of the year.", ("unit",)),
    (
        NE_MINOR,
        "They met at the Spring Festival Gala.",
        "They met at the Isolde Pendrell.",
        ("type changed",),
    ),
    (
        NE_MINOR,
        "Families marked Children's Day in Beijing.",
        "Families marked Children's Halvorsen in Beijing.",
        ("Day",),
    ),
    (NE_MINOR, "The 3 men met 5 women.", "The 5 men met 5 women.", ("already occurs",)),
    # lead's review: an untyped name or a term never becomes a person-, place- or org-looking name
    (
        NE_MINOR,
        "There were 2,242 new infections of the Sars CoV2 Virus and 16 deaths.",
        "There were 2,242 new infections of the Tamsin Marwick and 16 deaths.",
        ("type changed", "person"),
    ),
    (
        NE_MINOR,
        "There were 2,242 new infections of the Sars CoV2 Virus and 16 deaths.",
        "There were 2,242 new infections of the Valdoria and 16 deaths.",
        ("type changed", "place"),
    ),
    (NE_MINOR, "The VT40X engine failed.", "The Halvorsen engine failed.", ("type changed",)),
    # lead's review: in cased text an ordinary lower-case word is not a technical term
    (
        NE_MINOR,
        "Darwin did not see evolution as a teleological plan.",
        "Darwin did not see dravolution as a teleological plan.",
        ("evolution", "not a named entity"),
    ),
    # lead's review: a capitalised entity is replaced by a capitalised one, a lower-case one by a lower-case one
    (
        NE_MINOR,
        "They saw a wild cat (Felis silvestris) near Leeds.",
        "They saw a wild cat (zagis kelinum) near Leeds.",
        ("capitalisation",),
    ),
    (
        NE_PUBMED,
        "the role of il-6 in <dig> patients .",
        "the role of Zx-41 in <dig> patients .",
        ("capitalisation",),
    ),
    (
        NE_MINOR,
        "Bacteria make cells harder, Smith said.",
        "Bacteria make zorvatosis harder, Smith said.",
        ("cells", "not a named entity"),
    ),
    # lead's review: nationality adjectives are no entity; a state or a document never becomes a person or a place
    (
        NE_MINOR,
        "The settlers were of mostly English American ancestry, he wrote.",
        "The settlers were of mostly Lorcan Quenby ancestry, he wrote.",
        ("nationality", "type changed"),
    ),
    (
        NE_MINOR,
        "Egypt joined the United Arab Republic in 1958.",
        "Egypt joined the Mirela Ravensworth in 1958.",
        ("type changed",),
    ),
    (
        NE_MINOR,
        "Power is set out in the Constitution of Kazakhstan, he wrote.",
        "Power is set out in the Corvania of Kazakhstan, he wrote.",
        ("type changed",),
    ),
    (
        NE_MINOR,
        "Power is set out in the Constitution of Kazakhstan, he wrote.",
        "Power is set out in the Constitution of Lorcan Quenby, he wrote.",
        ("type changed",),
    ),
    (
        NE_MINOR,
        "Rebels fought in the Libyan Civil War in 2011.",
        "Rebels fought in the Ulla Quenby in 2011.",
        ("type changed",),
    ),  # an event never becomes a person (seen in an offline build)
    # lead's review: a gendered first name never becomes one of the other gender
    (NE_STORY, "Jake waited for his leg to heal.", "Isolde waited for his leg to heal.", ("gender changed",)),
    (NE_STORY, "Don knew he would win.", "Sabine knew he would win.", ("gender changed",)),
    (
        NE_STORY,
        "Tom was happy to see Mary again.",
        "Tom was happy to see Varek Brackwater again.",
        ("gender changed",),
    ),
    # issue 9 round 2: the new kinds keep their kind, and stay fictional
    (
        NE_MINOR,
        "The SPD would agree, he said.",
        "The Varek Pendrell would agree, he said.",
        ("acronym", "type changed"),
    ),
    (NE_MINOR, "The SPD would agree, he said.", "The party would agree, he said.", ("capitalisation",)),
    (
        NE_MINOR,
        "Register at www.bosch-pt.com/warranty today.",
        "Register at valdoria today.",
        ("url", "type changed"),
    ),
    (NE_MINOR, "French officials met on Tuesday.", "German officials met on Tuesday.", ("real nationality",)),
    (NE_MINOR, "French officials met on Tuesday.", "Valdoria officials met on Tuesday.", ("type changed",)),
    (NE_MINOR, "It came third in the race.", "It came thornbury in the race.", ("number", "type changed")),
    (
        NE_MINOR,
        "It considers imatinib and heterosexuality separately.",
        "It considers happiness and heterosexuality separately.",
        ("term", "type changed"),
    ),
    (
        NE_MINOR,
        "Gaddafi was popular at school.",
        "Varek Pendrell was popular at school.",
        ("other", "type changed"),
    ),
    (
        NE_MINOR,
        "During the Spring Festival, shops close.",
        "During the Isolde Pendrell, shops close.",
        ("type changed",),
    ),
    (
        NE_MINOR,
        "The Minister of Justice said so.",
        "The Minister of Valdoria said so.",
        ("not a named entity",),
    ),
    (NE_MINOR, "Don’t go there, he said.", "Stoso go there, he said.", ("not a named entity",)),
    (NE_MINOR, "#PRS_ORG# needs to pick it up.", "#Kenveza# needs to pick it up.", ("not a named entity",)),
    (
        NE_MINOR,
        "The police found the perpetrator.",
        "The police found the dravinator.",
        ("not a named entity",),
    ),
    (
        NE_PUBMED,
        "we studied an imatinib in the lab .",
        "we studied an mugolanib in the lab .",
        ("no longer agrees",),
    ),
]


#: issue 19: every fictional-entity row quoted from the offline-rules/4 build, each rejected
ISSUE19_NE = [
    (
        NE_MINOR,
        "Staff were incentivised to sell more.",
        "Staff were masraildrupa to sell more.",
        "not a named",
    ),
    (NE_MINOR, "The birds were molting early.", "The birds were deadera early.", "not a named"),
    (NE_MINOR, "The crossers waited at the border.", "The drosgoss waited at the border.", "not a named"),
    (
        NE_MINOR,
        "Herbs that tonify the blood are sold.",
        "Herbs that stolum the blood are sold.",
        "not a named",
    ),
    (NE_MINOR, "The processer failed at noon.", "The podreamne failed at noon.", "not a named"),
    (NE_MINOR, "A polecat ran across the road.", "A zamstea ran across the road.", "not a named"),
    (
        NE_MINOR,
        "Serge Gnabry impressed for Arsenal. Midfielder has been out for more than a year.",
        "Serge Gnabry impressed for Arsenal. Trithearmo has been out for more than a year.",
        "not a named",
    ),
    (NE_MINOR, "The crowd calmed down quickly.", "The crowd thebor down quickly.", "not a named"),
    (NE_MINOR, "The crowd clamed down quickly.", "The crowd thebor down quickly.", "not a named"),
    (
        NE_MINOR,
        'He wrote "On the Spirit of Arts" in Paris.',
        'He wrote "Plor the Spirit of Arts" in Paris.',
        "not a named",
    ),
    (NE_MINOR, "She loves TV, film and fashion.", "She loves TM, film and fashion.", "not a named"),
    (
        NE_PUBMED,
        "the method has poor reproducibility in our hands .",
        "the method has poor nosaisinneality in our hands .",
        "not a named",
    ),
    (NE_PUBMED, "we measured the ecological impact .", "we measured the zorvical impact .", "not a named"),
    (NE_PUBMED, "farm profitability rose by half .", "farm dravoability rose by half .", "not a named"),
    (
        NE_MINOR,
        "Wenger was calm. Ahead of their clash vs Chelsea, he spoke to the press.",
        "Wenger was calm. Ahead of their clash vs Sabine, he spoke to the press.",
        "type changed",
    ),
    (NE_MINOR, "The parcel ships at about 10 PM.", "The parcel ships at about 86 PM.", "no hour"),
    (NE_MINOR, "Turnout was 40 percent.", "Turnout was 140 percent.", "over 100"),
    (
        NE_MINOR,
        "Hunan is a province of China. Many people in Hunan farm rice.",
        "Samga is a province of China. Many people in Hunan farm rice.",
        "still names",
    ),
    (
        NE_PUBMED,
        "the glycine binds rna . glycines are large .",
        "the turocine binds rna . rolecines are large .",
        "unlike",
    ),
    (
        NE_PUBMED,
        "the glycine binds rna . glycines are large .",
        "the turocine binds rna . glycines are large .",
        "still names",
    ),
    (  # read in the offline-rules/5 build (WMT zh-en)
        NE_MINOR,
        "With General Secretary Xi Jinping as the core, it grew. The thought of Xi Jinping guides it.",
        "With General Secretary Oakhurst as the core, it grew. The thought of Xi Jinping guides it.",
        "still names",
    ),
    (
        NE_MINOR,
        "Its Party Central Committee met. The Department of Agriculture and Rural Affairs said so.",
        "Its Party Wexley Committee met. The Department of Agriculture and Rural Affairs said so.",
        "ordinary words",
    ),
    (
        NE_PUBMED,
        "many offline and online agencies exist .",
        "many kranine and online agencies exist .",
        "not a named",
    ),
    (NE_PUBMED, "it forms a 3-d construct in vivo .", "it forms a 8-d construct in vivo .", "not a named"),
    (NE_PUBMED, "expressed in murine cells .", "expressed in geline cells .", "not a named"),
    (NE_MINOR, "The replay was on 20 November 2015.", "The replay was on 57 November 2015.", "no day"),
    (NE_MINOR, "He watched the 15-year-old girl.", "He watched the 68-year-old girl.", "no child's age"),
]


@pytest.mark.parametrize(("p", "orig", "pert", "why"), ISSUE19_NE)
def test_issue19_entity_rows_are_rejected(p: Perturbation, orig: str, pert: str, why: str) -> None:
    _bad(validate(p, orig, pert), why)


# ----------------------------------------------------------------------------- grammatical errors

GOOD_GE = [
    (GE_MINOR, "He wants to find the keys.", "He wants to finds the keys."),  # form after "to"
    (GE_MINOR, "They are going home now.", "They is going home now."),  # subject-verb
    (GE_MINOR, "The dogs bark at night.", "The dogs barks at night."),
    (GE_MINOR, "She has gone to the market.", "She has went to the market."),
    (GE_MINOR, "He bought an apple.", "He bought a apple."),  # a/an
    (GE_MINOR, "It depends on the weather.", "It depends of the weather."),  # preposition
    (GE_MINOR, "The boys lost their bags.", "The boys lost his bags."),  # noun-pronoun
    (GE_MINOR, "We gave the book to him.", "We gave the book to he."),  # pronoun case
    (GE_MINOR, "He left early because he was tired.", "He left early. Because he was tired."),  # fragment
    (GE_MINOR, "Ted continues to watch films.", "Ted continues for watch films."),  # infinitive "to"
    (GE_MINOR, "He stopped at the old rest stop.", "He stopped at old rest stop."),  # article missing
    (GE_MINOR, "He wasn't aware of it.", "He weren't aware of it."),  # contraction agreement
    (GE_MINOR, "I was very proud of it.", "I were very proud of it."),
    (GE_MINOR, "Tim and Anna found the perfect name.", "Tim and Anna finding the perfect name."),
    (GE_MINOR, "Rob was happy.", "Rob been happy."),
    (
        GE_MINOR,
        "In recent years, many efforts have been made.",
        "In recent years, many effort have been made.",
    ),
    (GE_MINOR, "He scored twice this season.", "He scored twice these season."),
    (GE_MINOR, "It faded from its original colour.", "It faded from it original colour."),  # case
    (GE_MINOR, "The two are in a good place.", "The two is in a good place."),
    (GE_MINOR, "Officials noted that they would act.", "Officials noted those they would act."),
    (GE_MINOR, "He has also claimed the prize.", "He has also claiming the prize."),
    (GE_MINOR, "the main host for btb is the badger .", "the main host for btb be the badger ."),
    (GE_MINOR, "The man who lives here is kind.", "The man who lives here kind."),  # verb removed
    (
        GE_MINOR,
        "Yesterday he walked to the park and sat down.",
        "Yesterday he walks to the park and sat down.",
    ),
    (
        GE_MAJOR,
        "He wants to find the keys. They are at home.",
        "He wants to finds the keys. They is at home.",
    ),
    (GE_STORY, "She was very happy with her new dog.", "She were very happy with her new dog."),
]


@pytest.mark.parametrize(("p", "orig", "pert"), GOOD_GE)
def test_grammatical_errors_good(p: Perturbation, orig: str, pert: str) -> None:
    _ok(validate(p, orig, pert))


BAD_GE = [
    # issue 36: a copula after "and" leaves a coordination under the first verb ("can be ... and very easy")
    (
        GE_MINOR,
        "NEKTON Bio can be dissolved in cold water and is very easy to administer.",
        "NEKTON Bio can be dissolved in cold water and very easy to administer.",
        ("grammatical coordination",),
    ),
    # issue 9: still grammatical or a new meaning
    (GE_MINOR, "The team hopes to find a cure.", "The team hopes to found a cure.", ("found",)),
    (GE_MINOR, "The calves were fed with milk.", "The calves were fed by milk.", ("by",)),
    # issue 19: a fragment made by deleting a content verb deletes meaning
    (GE_MINOR, "Pat felt silly for pretending.", "Pat silly for pretending.", ("content word",)),
    (
        GE_MINOR,
        "World No 1 Williams eventually beat Errani 4-6, 6-3, 6-4.",
        "World No 1 Williams eventually Errani 4-6, 6-3, 6-4.",
        ("content word",),
    ),
    (
        GE_MINOR,
        "That is why Zuckerberg changed the name of the company.",
        "That is why Zuckerberg the name of the company.",
        ("content word",),
    ),
    (GE_MINOR, "The man was arrested on Monday.", "The man arrested on Monday.", ("past tense",)),
    (GE_MINOR, "The topic is artificially heated.", "The topic artificially heated.", ("past tense",)),
    # a different word, not a grammar error
    (GE_MINOR, "He bought a red car.", "He bought a blue car.", ("meaning",)),
    (GE_MINOR, "He walked home.", "He walks home.", ("grammatical",)),  # tense change, no clash
    (GE_MINOR, "The dog barks.", "The dogs bark.", ()),  # plural subject + verb: grammatical
    (GE_MINOR, "He gave it to her.", "She gave it to her.", ("who is meant",)),
    (GE_MINOR, "He bought an apple and a pear.", "He bought an apple and the pear.", ("stays grammatical",)),
    (GE_MINOR, "Everyone enjoyed the buns.", "Everyone enjoyed buns.", ("deleting",)),  # plural: fine
    (GE_MINOR, "They were pinned to the wall.", "They were pinned for the wall.", ("not known to be wrong",)),
    (GE_MINOR, "Rescuing abducted children matters.", "Rescuing abducting children matters.", ()),
    (GE_MINOR, "He went to the big old house by the sea.", "He went to house.", ("too large",)),
    (
        GE_MINOR,
        "It uses sophisticated modeling.",
        "It uses modeling.",
        ("deleting",),
    ),  # an adjective, not a verb
    # severities
    (
        GE_MINOR,
        "He wants to find the keys. They are at home.",
        "He wants to finds the keys. They is at home.",
        ("exactly one",),
    ),
    (
        GE_MAJOR,
        "He wants to find the keys. They are at home.",
        "He wants to finds the keys. They are at home.",
        ("two or more",),
    ),
    (GE_MINOR, "the level of <dig> genes is high .", "the level of 5 genes are high .", ("<dig>",)),
]


@pytest.mark.parametrize(("p", "orig", "pert", "words"), BAD_GE)
def test_grammatical_errors_bad(p: Perturbation, orig: str, pert: str, words: tuple[str, ...]) -> None:
    _bad(validate(p, orig, pert), *words)


# ----------------------------------------------------------------------------- rewriting and insertion

SRC = "The storm hit the coast on Monday. Thousands of homes lost power. Officials expect repairs to take a week."


def test_rewrite_insert_cleft_and_reordered_copy_bad() -> None:
    # issue 19: a cleft is a template, and the same words in another order test copy detection
    src = "Merson swallowed his criticism of Townsend at the weekend. Fans laughed."
    cleft = "What Merson did was swallow his criticism of Townsend at the weekend."
    _bad(validate(RI_MINOR, src, src.replace("weekend.", "weekend. " + cleft)), "cleft")
    fronted = "At the weekend, Merson swallowed his criticism of Townsend."
    _bad(validate(RI_MINOR, src, src.replace("weekend.", "weekend. " + fronted)), "word types")
    src = "Paul Merson has restarted his row with Andros Townsend after the Tottenham midfielder was brought on. Fans laughed."
    fronted = "After the Tottenham midfielder was brought on, Paul Merson has restarted his row with Andros Townsend."
    _bad(validate(RI_MINOR, src, src.replace("on.", "on. " + fronted, 1)), "word types")


def test_rewrite_insert_keeps_a_fronted_phrase_that_is_no_marker() -> None:
    # the generator author's report: a phrase before a comma is part of the paraphrase, not a marker
    src = (
        "A man was arrested after the robbery of a jewellery shop in the centre of the old town "
        "last month. Police said little."
    )
    para = (
        "Last month, a man was detained after the theft from a jewellery store in the centre of the old town."
    )
    _ok(validate(RI_MINOR, src, src.replace("month.", "month. " + para, 1)))
    copy = "In other words, a man was arrested after the robbery of a jewellery shop in the centre of the old town."
    _bad(validate(RI_MINOR, src, src.replace("month.", "month. " + copy, 1)), "near copy")


def test_rewrite_insert_moved_names_keep_their_capital_good() -> None:
    src = "At the start of the preceding move, John Terry brought down Radamel Falcao. Fans booed."
    para = "John Terry felled Radamel Falcao at the beginning of the previous move."
    _ok(validate(RI_MINOR, src, src.replace("Falcao.", "Falcao. " + para, 1)))
    src = "Rose scored the only goal of the game. Fans cheered."
    para = "The only goal of the game was scored by Rose."  # a first name that is also a word
    _ok(validate(RI_MINOR, src, src.replace("game.", "game. " + para, 1)))
    src = "New Zealand played an important role in the new league, the coach said. Fans cheered."
    para = "According to the coach, New Zealand played a significant part in the new league."
    _ok(validate(RI_MINOR, src, src.replace("said.", "said. " + para, 1)))


def test_rewrite_insert_reported_speech_frame_and_copy_bad() -> None:
    # issue 36: "According to X," before the original's own words is a frame and a copied tail, no rephrasing
    src = "He said that he is not good enough on the day. Fans agreed."
    para = "According to him, he is not good enough on the day."
    _bad(validate(RI_MINOR, src, src.replace("day.", "day. " + para, 1)), "verbatim run of 8 words")


def test_rewrite_insert_good() -> None:
    minor = SRC.replace("lost power.", "lost power. Power was cut to thousands of houses.")
    _ok(validate(RI_MINOR, SRC, minor))
    major = minor.replace("on Monday.", "on Monday. On Monday, the coast was struck by the storm.")
    _ok(validate(RI_MAJOR, SRC, major))


NZ = "He moved to New Zealand in 2010. He liked it."
ROLE = "It played an important role in the war. Many agreed."


def _ins(after: str, new: str) -> str:
    return SRC.replace(after, f"{after} {new}")


BAD_RI = [
    # issue 9: a copy behind a marker is no paraphrase
    (RI_MINOR, SRC, _ins("lost power.", "In other words, thousands of homes lost power."), ("copies",)),
    (RI_MINOR, SRC, _ins("lost power.", "Put differently, thousands of homes lost power."), ("copies",)),
    (RI_MINOR, SRC, _ins("lost power.", "Thousands of homes lost power."), ("copies",)),
    (RI_MINOR, SRC, _ins("lost power.", "That is, thousands of homes lost power."), ("copies",)),
    (RI_MINOR, SRC, _ins("lost power.", "Namely, thousands of homes lost power."), ("copies",)),
    (RI_MINOR, SRC, _ins("lost power.", "Thousands of houses lost power."), ("near copy",)),
    # issue 9: synonym swaps that break names and articles
    (
        RI_MINOR,
        NZ,
        "He moved to New Zealand in 2010. In 2010, he relocated to Novel Zealand. He liked it.",
        ("New Zealand",),
    ),
    (
        RI_MINOR,
        ROLE,
        "It played an important role in the war. In the conflict, it played an significant part. Many agreed.",
        ("an significant",),
    ),
    # a "said on <date> that" turned around keeps its "that" (seen in an offline build)
    (
        RI_MINOR,
        "He said on 12 March that he is not good enough. Fans agreed.",
        "He said on 12 March that he is not good enough. According to him, on 12 March that he is not good enough. "
        "Fans agreed.",
        ("word swap",),  # issue 28: "According to X," and the rest copied is the reader's near copy
    ),
    # lead's review: a capitalised ordinary word moved mid-sentence is a new error
    (
        RI_MINOR,
        "At the start of the preceding move, John Terry brought down Radamel Falcao. Fans booed.",
        "At the start of the preceding move, John Terry brought down Radamel Falcao. John Terry felled Radamel "
        "Falcao At the beginning of the previous move. Fans booed.",
        ("capitalised", "'At'"),
    ),
    (
        RI_MINOR,
        "Last month the storm hit the coast. Fans booed.",
        "Last month the storm hit the coast. The storm struck the coastline, Last month. Fans booed.",
        ("'Last'",),
    ),
    # placement, originals and counts
    (RI_MINOR, SRC, "Power was cut to thousands of houses. " + SRC, ("before the first",)),
    (
        RI_MINOR,
        SRC,
        SRC.replace("Thousands of homes lost power. ", "Power was cut to thousands of houses. "),
        ("missing or changed",),
    ),
    (RI_MAJOR, SRC, _ins("lost power.", "Power was cut to thousands of houses."), ("two or more",)),
    (RI_MINOR, SRC, _ins("lost power.", "The weather in Spain was sunny and warm."), ("content",)),
    # moved clauses that break the sentence (seen in an offline build)
    (
        RI_MINOR,
        "Glaciations had an impact on patterns within and among species. Ice melted.",
        "Glaciations had an impact on patterns within and among species. Among species, glaciations left a mark on "
        "patterns within and. Ice melted.",
        ("ends on 'and'",),
    ),
    (
        RI_MINOR,
        "Isolates from across New Zealand were analysed. All were cattle.",
        "Isolates from across New Zealand were analysed. Across New Zealand were analysed, isolates from the "
        "country. All were cattle.",
        ("fronted phrase",),
    ),
    (
        RI_MINOR,
        "Marker assisted selection is well suited to oil palm. It is slow.",
        "Marker assisted selection is well suited to oil palm. What marker did was assist selection is well suited "
        "to oil palm. It is slow.",
        ("cleft",),
    ),
    (
        RI_MAJOR,
        SRC,
        _ins("lost power.", "Power was cut to thousands of houses. Thousands of houses had no power."),
        ("two sentences inserted",),
    ),
]


# new errors a rewrite can bring in (hand-written, from the paper: "no new errors")
BAD_RI_FORM = [
    (RI_MINOR, SRC, _ins("lost power.", "Power was cut to to thousands of houses."), ("doubled word",)),
    (
        RI_MINOR,
        SRC,
        _ins("lost power.", "Power was cut , to thousands of houses."),
        ("punctuation after a space",),
    ),
    (
        RI_MINOR,
        SRC,
        _ins("lost power.", "Power was cut to thousands of houses,."),
        ("two punctuation marks",),
    ),
    (RI_MINOR, SRC, _ins("lost power.", "Power was cut (to thousands of houses."), ("unbalanced",)),
    (RI_MINOR, SRC, _ins("lost power.", "Power was cut to thousands of houses"), ("final stop",)),
    (RI_MINOR, SRC, _ins("lost power.", "power was cut to thousands of houses."), ("lower case",)),
    (RI_MINOR, SRC, _ins("lost power.", "In other words thousands of homes lost power."), ("copies",)),
    (
        RI_MINOR,
        "They didn't lose power. It rained.",
        "They didn't lose power. They did not lose power. It rained.",
        ("near copy",),
    ),  # a contraction written out is the same wording
]


@pytest.mark.parametrize(("p", "orig", "pert", "words"), BAD_RI_FORM)
def test_rewrite_insert_new_form_errors_bad(
    p: Perturbation, orig: str, pert: str, words: tuple[str, ...]
) -> None:
    _bad(validate(p, orig, pert), *words)


def test_rewrite_insert_names_from_the_whole_text_good() -> None:
    # "United" is capitalised mid-sentence elsewhere in the text ("Manchester United"): a name, not a word
    src = "United gets the first victory in Sunday's big match. Manchester United won 2-1."
    para = "In Sunday's big game, United earns the first win."
    _ok(validate(RI_MINOR, src, src.replace("match.", "match. " + para, 1)))
    # alone, the sentence cannot tell: "United" moved mid-sentence reads as an ordinary word
    alone = "United gets the first victory in Sunday's big match. They won 2-1."
    _bad(validate(RI_MINOR, alone, alone.replace("match.", "match. " + para, 1)), "'United'")


def test_rewrite_insert_thousands_comma_is_no_clause_end_good() -> None:
    src = "He is being held on a $500,000 bail in Paris. Police said little."
    para = "In Paris, he is being detained on bail of $500,000."
    _ok(validate(RI_MINOR, src, src.replace("Paris.", "Paris. " + para, 1)))


def test_rewrite_insert_new_rules_good() -> None:
    cases = [
        ("The persistence of tb is enhanced by the existence of wildlife hosts.",
         "The existence of wildlife hosts enhances the persistence of tb."),
        ("It is essential to analyse these mechanisms in detail.", "Analysing these mechanisms in detail is essential."),
        ("He didn't know it was against the law, the victim said.",
         "According to the victim, he did not know it was against the law."),
    ]  # fmt: skip
    for src, para in cases:
        text = f"{src} It rained."
        _ok(validate(RI_MINOR, text, text.replace(src, f"{src} {para}", 1)))


def test_rewrite_insert_human_sentences_with_names_good() -> None:
    # offline-rules/9 build: aligned human sentences the validator rejected (issue 28, read valid)
    cases = [
        ("Other top selling items were a straw hat worn by Leigh that sold for $52,500.",
         "The straw hat worn by Vivien Leigh sold for $52,500."),  # the longer form of a name
        ("Mr Gordon was forced to quit Labor after being accused of domestic violence.",
         "Gordon was forced to quit the Labor Party because of a domestic violence scandal."),
        ("The Chelsea captain says he will 'love' the club forever.",
         "Chelsea's captain said he would always love the club."),  # a scare quote said without its marks
    ]  # fmt: skip
    for src, para in cases:
        text = f"{src} It rained."
        _ok(validate(RI_MINOR, text, text.replace(src, f"{src} {para}", 1)))
    # a name the sentence has nowhere is still new, and so is a quotation's wording changed
    src = "Neymar and Dani Alves, teammates at Barcelona, attended an El Clasico of basketball."
    para = "Neymar of Barcelona in the Spanish La Liga attended the basketball El Clasico with Dani Alves."
    text = f"{src} It rained."
    _bad(validate(RI_MINOR, text, text.replace(src, f"{src} {para}", 1)), "'Spanish'")
    src = "The Chelsea captain says he will 'love' the club forever."
    para = "Chelsea's captain said he would adore the club forever."
    _bad(validate(RI_MINOR, src, f"{src} {para}"), "quotation")


@pytest.mark.parametrize(("p", "orig", "pert", "words"), BAD_RI)
def test_rewrite_insert_bad(p: Perturbation, orig: str, pert: str, words: tuple[str, ...]) -> None:
    _bad(validate(p, orig, pert), *words)


# ----------------------------------------------------------------------------- reordering

FOUR = "One came first. Two came next. Three was third. Four was last."


def test_reorder() -> None:
    _ok(validate(RO_MINOR, FOUR, "Three was third. Two came next. One came first. Four was last."))
    _ok(validate(RO_MAJOR, FOUR, "Four was last. Three was third. One came first. Two came next."))
    _bad(
        validate(RO_MINOR, FOUR, "Two came next. Three was third. One came first. Four was last."),
        "3 sentences moved",
    )
    _bad(
        validate(RO_MAJOR, FOUR, "Four was last. Three was third. One came first. Two came later."),
        "another order",
    )
    _bad(validate(RO_MAJOR, FOUR, "Four was last. Three was third. One came first."), "another order")
    # a last sentence without final punctuation, moved to the middle, is still the same sentence
    unpunctuated = "One came first. Two came next. Three was third and last"
    _ok(validate(RO_MINOR, unpunctuated, "One came first. Three was third and last Two came next."))
    _bad(validate(RO_MAJOR, "Only one sentence here.", "Here only one sentence."), "one sentence")


def test_severities_differ() -> None:
    _ok(check_severities_differ("B. A. C.", "C. B. A."))
    _bad(check_severities_differ("B. A. C.", "B. A.  C."), "same text")


# ----------------------------------------------------------------------------- rule perturbations

DEL = _p("summeval", "char_deletion_minor")  # k=10
TYPO = _p("summeval", "char_typo_minor")  # k=10
WDEL = _p("wmt22-de-en", "word_deletion_minor")  # k=5
TEXT = "The quick brown fox jumps over the lazy dog, again and again, every day of the week."


def _drop(text: str, idx: set[int]) -> str:
    return "".join(c for i, c in enumerate(text) if i not in idx)


def test_char_deletion() -> None:
    alnum = [i for i, c in enumerate(TEXT) if c.isalnum()]
    spaces = [i for i, c in enumerate(TEXT) if c == " "]
    _ok(validate(DEL, TEXT, _drop(TEXT, set(alnum[::6][:10]))))
    _bad(validate(DEL, TEXT, _drop(TEXT, set(alnum[::6][:9]) | {spaces[0]})), "non-alphanumeric")
    _bad(validate(DEL, TEXT, _drop(TEXT, set(alnum[::6][:5]))), "5 characters deleted")
    _bad(validate(DEL, TEXT, _drop(TEXT, set(alnum[::6][:10])).replace("fox", "fxo")), "in order")
    _bad(validate(DEL, TEXT, _drop(TEXT, set(alnum[::6][:11])) + "Z"), "added")


def test_char_typo_space_only_is_a_typo() -> None:
    _ok(validate(TYPO, TEXT, TEXT.replace("quick brown", "quick  brown")))  # typo's random_space


def test_char_typo() -> None:
    _ok(validate(TYPO, TEXT, TEXT.replace("quick", "qiuck").replace("lazy", "lazzy")))
    _bad(
        validate(TYPO, TEXT, "Something else entirely, nothing like the original text at all."),
        "edit distance",
    )


def test_word_deletion() -> None:
    words = TEXT.split()
    _ok(validate(WDEL, TEXT, " ".join(words[:3] + words[8:])))
    _bad(validate(WDEL, TEXT, " ".join(words[:3] + words[7:])), "4 words removed")
    _bad(validate(WDEL, TEXT, " ".join(words[:2] + words[4:7] + words[10:])), "consecutive")


# ----------------------------------------------------------------------------- fictional entities, review 3
# the third review of the offline build: clubs, holidays, binomials, short forms of a name

GOOD_NE_REVIEW3 = [
    # a surname alone changes with the full name: one entity, minor
    (
        NE_MINOR,
        "Ian Guffick, 31, allowed it. The panel banned Guffick for two years.",
        "Varek Whitlock, 31, allowed it. The panel banned Whitlock for two years.",
    ),
    # a binomial, whole, in lower-cased text; its abbreviated form changes alike
    (
        NE_PUBMED,
        "infection with mycobacterium bovis is common . m. bovis causes tb in cattle .",
        "infection with dravonia kelis is common . d. kelis causes tb in cattle .",
    ),
    (NE_PUBMED, "e. coli was grown at <dig> c . it died .", "t. varnis was grown at <dig> c . it died ."),
    # a holiday by a fictional holiday
    (
        NE_STORY,
        "On Christmas, Amy got exactly what she wanted.",
        "On Lanternmas, Amy got exactly what she wanted.",
    ),
    # a club by a fictional town, a number compound by another
    (
        NE_MINOR,
        "Filipe Luis signed for Chelsea from Atletico Madrid.",
        "Filipe Luis signed for Dunhallow from Atletico Madrid.",
    ),
    (
        NE_MINOR,
        "Six-time Olympic gold medalist says he will run.",
        "Four-time Olympic gold medalist says he will run.",
    ),
]


BAD_NE_REVIEW3 = [
    # the text names the real and the fictional one
    (
        NE_MINOR,
        "Ian Guffick, 31, allowed it. The panel banned Guffick for two years.",
        "Ian Guffick, 31, allowed it. The panel banned Gaiplal for two years.",
        ("still names", "Ian Guffick"),
    ),
    (
        NE_MINOR,
        "Ian Guffick, 31, allowed it. The panel banned Guffick for two years.",
        "Varek Whitlock, 31, allowed it. The panel banned Guffick for two years.",
        ("still names", "Guffick"),
    ),
    # half a binomial
    (
        NE_PUBMED,
        "e. coli was grown at <dig> c . it died .",
        "e. varnis was grown at <dig> c . it died .",
        ("binomial", "both change"),
    ),
    (
        NE_PUBMED,
        "the frogs of p. nigromaculata were studied .",
        "the frogs of p. pidraselkrare were studied .",
        ("binomial",),
    ),
    # a club is no person ("Chelsea" -> "Isolde"); a holiday is no made-up word
    (
        NE_MINOR,
        "Filipe Luis signed for Chelsea from Atletico Madrid.",
        "Filipe Luis signed for Isolde from Atletico Madrid.",
        ("org", "type changed"),
    ),
    (
        NE_STORY,
        "On Christmas, Amy got exactly what she wanted.",
        "On Temolnars, Amy got exactly what she wanted.",
        ("holiday", "type changed"),
    ),
    # ordinary words of cased prose are no technical terms
    (
        NE_MINOR,
        "They were found dead in their stateroom on Monday.",
        "They were found dead in their krerkrean on Monday.",
        ("not a named entity",),
    ),
    (
        NE_MINOR,
        "The police were over zealous in their confiscation of the toy.",
        "The police were over zealous in their bildreration of the toy.",
        ("not a named entity",),
    ),
]


# ----------------------------------------------------------------------------- fictional entities, read by hand
# the five rows the hand read of the offline-rules/5 build rejected: each output rejected, a good one beside it

GOOD_NE_READ5 = [
    (
        NE_PUBMED,
        "here we use a multigene supermatrix to study imatinib genes .",
        "here we use a multigene supermatrix to study dorvanib genes .",
    ),
    (
        NE_MINOR,
        "The republic existed between 1958 and 1961.",
        "The republic existed between 1943 and 1961.",
    ),
    (
        NE_MINOR,
        "The weapons visited Guam on 2022-01-17 in a rare move.",
        "The weapons visited Valdoria on 2022-01-17 in a rare move.",
    ),
    (
        NE_MINOR,
        "The series got a new look with the Version 2 (V2) update in Berlin.",
        "The series got a new look with the Version 2 (V2) update in Valdoria.",
    ),
    (
        NE_MINOR,
        "It was a violation from Max Verstappen of Red Bull in the last phase.",
        "It was a violation from Max Verstappen of Halvorsen Racing in the last phase.",
    ),
    (
        NE_MINOR,
        "[Zigzag] refers to periodic heating in Beijing; [Cliff] means collective evacuation.",
        "[Zigzag] refers to periodic heating in Valdoria; [Cliff] means collective evacuation.",
    ),
    (  # read in the offline-rules/8 build: a range of number words keeps its direction too
        NE_MINOR,
        "Replays were traditionally played three or four days after the original game.",
        "Replays were traditionally played two or four days after the original game.",
    ),
]


BAD_NE_READ5 = [
    (  # a prefixed general word is no domain term
        NE_PUBMED,
        "here we use a multigene supermatrix to study imatinib genes .",
        "here we use a duldilene supermatrix to study imatinib genes .",
        ("'multigene' is not a named entity",),
    ),
    (
        NE_MINOR,
        "The republic existed between 1958 and 1961.",
        "The republic existed between 1973 and 1961.",
        ("range", "reversed"),
    ),
    (  # read in the offline-rules/6 build: a date of three numbers is no number
        NE_MINOR,
        "The weapons visited Guam on 2022-01-17 in a rare move.",
        "The weapons visited Guam on 1852-43-27 in a rare move.",
        ("not a named entity",),
    ),
    (  # an abbreviation of the name before it is never replaced apart from it
        NE_MINOR,
        "The series got a new look with the Version 2 (V2) update in Berlin.",
        "The series got a new look with the Version 2 (F7) update in Berlin.",
        ("'V2' is not a named entity",),
    ),
    (
        NE_MINOR,
        "It was a violation from Max Verstappen of Red Bull in the last phase.",
        "It was a violation from Max Verstappen of Christopher Jessup in the last phase.",
        ("org 'Red Bull'", "type changed"),
    ),
    (  # a bracketed gloss of unsure type is no name
        NE_MINOR,
        "[Zigzag] refers to periodic heating in Beijing; [Cliff] means collective evacuation.",
        "[Zigzag] refers to periodic heating in Beijing; [Julian] means collective evacuation.",
        ("'Cliff' is not a named entity",),
    ),
    (  # read in the offline-rules/8 build ("a master can teach 2 to 5 apprentices" -> "7 to 5" was another)
        NE_MINOR,
        "Replays were traditionally played three or four days after the original game.",
        "Replays were traditionally played nine or four days after the original game.",
        ("range", "reversed"),
    ),
]


# every round of fictional-entity rows (the first lists, review 3, the read of offline-rules/5), one test each way
@pytest.mark.parametrize(("p", "orig", "pert"), GOOD_NE + GOOD_NE_REVIEW3 + GOOD_NE_READ5)
def test_fictional_entities_good(p: Perturbation, orig: str, pert: str) -> None:
    _ok(validate(p, orig, pert))


@pytest.mark.parametrize(("p", "orig", "pert", "words"), BAD_NE + BAD_NE_REVIEW3 + BAD_NE_READ5)
def test_fictional_entities_bad(p: Perturbation, orig: str, pert: str, words: tuple[str, ...]) -> None:
    _bad(validate(p, orig, pert), *words)


# the reader's read of offline-rules/8 (../shared/reads/offline-rules-8.jsonl): impossible values in context
@pytest.mark.parametrize(
    ("text", "old", "bad", "good"),
    [
        ("Gemma, 23, gave birth to twins in Leeds.", "23", "90", "25"),
        ("Ian Guffick, 31, was a teacher in Leeds.", "31", "11", "35"),
        ("Sharapova lost the first set 4-6 in Paris.", "4-6", "2-11", "3-6"),
        ("The pair fell out in Leeds, but the banter between the two was fine.", "two", "four", None),
        ("The ecology of the three rivers area of Qinghai is protected.", "three", None, "ten"),
    ],
)
def test_values_impossible_in_their_context_are_rejected(
    text: str, old: str, bad: str | None, good: str | None
) -> None:
    if bad is not None:
        verdict = validate(NE_MINOR, text, text.replace(old, bad, 1))
        assert not verdict.ok and "replaced by" in verdict.reason, verdict
    if good is not None:
        assert validate(NE_MINOR, text, text.replace(old, good, 1)).ok, good


# the reader's read of offline-rules/8: a near copy is two or fewer content words swapped, the order kept
@pytest.mark.parametrize(
    ("source", "para"),
    [
        (
            "The couple that gets married first will also win many additional perks.",
            "The couple that gets married first will additionally win many further perks.",
        ),
        (
            "Naoki Ogane says that Chelsea have made an offer for Yoshinori Muto.",
            "According to Naoki Ogane, Chelsea have made an offer for Yoshinori Muto.",
        ),
        (
            "several distinct mechanisms regulate the expression of these genes .",
            "a number of distinct mechanisms regulate the expression of these genes .",
        ),
    ],
)
def test_a_word_swap_of_the_source_is_no_rewrite(source: str, para: str) -> None:
    text = f"{source} It rained."
    verdict = validate(RI_MINOR, text, text.replace(source, f"{source} {para}", 1))
    assert not verdict.ok and "word swap" in verdict.reason, verdict
    human = "Geologists believe the emergence is a result of a landslide nearby."
    text = "Geologists feel that this resulted from a landslide in a nearby region. It rained."
    assert validate(RI_MINOR, text, text.replace("region.", f"region. {human}")).ok


#: issue 36: rows of offline-rules/11 the careful reader rejects (../shared/reads), each for one general rule
BAD_RESTATEMENTS = [
    ("Greg Dyke wants to increase the minimum number of homegrown players at Premier League clubs from eight to 12.",
     "Dyke wants to increase the minimum number of home-grown players in Premier League squads from eight to 12.",
     "phrase swapped"),  # its 8-word run opens it: the copied frame, not the run, rejects it
    ("Torres is currently on leave while an investigation is being held into the deadly shooting.",
     "Torres is currently on leave pending the outcome of the investigation into the deadly shooting.",
     "phrase swapped"),
    ("some lncrnas have the ability to show rapid responses to diverse stimuli or stress factors and are involved "
     "in responses to insecticide.",
     "previous studies indicate that lncrnas could show quick response to diverse stimuli or stress factors and "
     "might be involved in responses to insecticides.", "phrase swapped"),
    ("A local bike shop owner's dog was snatched by a crocodile.", "The dog belonged to the local bike shop owner.",
     "leaves out the original's claim ('was snatched by a crocodile')"),
    ("as for many antibiotic resistance genes present in pathogens today, qnr genes are hypothesized to originate "
     "from environmental bacteria.",
     "many of the antibiotic resistance genes found in clinical settings have been horizontally transferred from "
     "environmental bacteria.", "subject of the original's claim ('qnr')"),
    ("Christopher Lawler claims he was pinned to a chair and groped by staff.",
     "Christopher Lawler claims to have been groped in a chair by staff last year.", "adds 'last year'"),
    ("An accountant ran from a taxi and fell to his death from a 70 foot cliff.",
     "A young accountant fell down a 70ft cliff to his death when he ran from a taxi to avoid paying the fare.",
     "adds a clause"),
    ("The Dutchman revealed his 'love' for the club and his team-mates.",
     "I love the club, I love the city and I love my team-mates.", "first person"),
    ("Scientists were surprised that the whale could navigate such long distances.",
     "The distances the whale could navigate surprised scientists, she said in the release.",
     "speaker the original does not name ('she said')"),
    ("moreover, few of them can distinguish between protein complexes and functional modules.",
     "moreover, what is the underlying machine between protein complexes and functional modules.",
     "a question told as a statement"),
    ("Wales is in the best shape they've been in since the World Cup finals of 1958 which was held in Sweden.",
     "Wales are in their best form since reaching the 1958 World Cup finals held in sweden.",
     "the name 'Sweden' in lower case"),
]  # fmt: skip

BAD_RESTATEMENTS += [
    ("in our study we first evaluated whether the colour of the basic plumage influenced winter habitat use by "
     "yellow warblers.", "we then assessed whether winter habitat use influenced the colour of the plumage grown "
     "on the wintering grounds.", "turns the relation around ('influenced')"),
    ("guanylate binding protein- <dig> is a large gtpase which is actively secreted by endothelial cells.",
     "chronic inflammation and proinflammatory cytokines induce the secretion of the large gtpase guanylate "
     "binding protein- <dig> from endothelial cells.", "adds a cause ('chronic inflammation and proinflammatory "
     "cytokines')"),
]  # fmt: skip

#: and rows the reader accepts, which no rule of issue 36 may reject
GOOD_RESTATEMENTS = [
    ("banana cultivars are mostly derived from hybridization between wild diploid subspecies of musa acuminata "
     "and m. balbisiana , and they exhibit various levels of ploidy and genomic constitution.",
     "the large majority of banana cultivars are derived from natural crosses between wild seeded diploid "
     "subspecies of m. acuminata colla and m. balbisiana colla ."),
    ("The series will air on A & E in 2016.", "A & E will be remaking the miniseries and will air in 2016."),
    ("There is an original bathroom with a mint and black color scheme, and there is oil-fired central heating.",
     "The timewarp home also boasts oil-fired central heating and comes with original bathroom and kitchen."),
    ("Evangelos Patoulidis also attracted interest from Barcelona and Arsenal.",
     "Arsenal and Barcelona are also interested in Patoulidis."),
    ("According to Iran, eight of their border guards have been killed in clashes with militants at the "
     "Iran-Pakistan border.", "Eight border guards from Iran have been killed in battles with border militants."),
    ("Rose scored the only goal of the game.", "The only goal of the game was scored by Rose."),  # one copied run
    ("case outcomes were categorised into simple and complicated cases.",
     "simple and complicated cases were the categories of outcomes."),  # "complicated": no verb turned round
    ("The first one to score was Callum Gribbin.", "Callum Gribbin scored the first goal."),
    # a copied opening of at most half the sentence, its claim restated (accepted in offline-rules-11-rewriting-all)
    ("There was not a single buyer at the auction at Sotheby's on Wednesday for the glowing blue letters that once "
     "lit the Bronx's Yankee Stadium.", "The glowing blue letters that once lit the Bronx from above Yankee Stadium "
     "failed to find a buyer at an auction at Sotheby's on Wednesday."),
    ("performing high throughput sequencing on samples pooled from different individuals is a strategy to "
     "characterize genetic variability at a small fraction of the cost required for individual sequencing.",
     "high throughput sequencing on samples pooled from different individuals is an efficient strategy to infer "
     "genetic variation in a population."),
]  # fmt: skip


@pytest.mark.parametrize(("src", "para", "why"), BAD_RESTATEMENTS)
def test_rewrite_insert_restates_the_whole_claim_bad(src: str, para: str, why: str) -> None:
    text = f"{src} It rained."
    _bad(validate(RI_MINOR, text, text.replace(src, f"{src} {para}", 1)), why)


@pytest.mark.parametrize(("src", "para"), GOOD_RESTATEMENTS)
def test_rewrite_insert_restates_the_whole_claim_good(src: str, para: str) -> None:
    text = f"{src} It rained."
    _ok(validate(RI_MINOR, text, text.replace(src, f"{src} {para}", 1)))


def test_added_facts_and_verbatim_run() -> None:
    from dhp.builder.perturb.validate import added_facts, verbatim_run

    assert added_facts("the genus grows in the tropics.", "the genus has <dig> species in the tropics.") == [
        "<dig>"
    ]
    assert added_facts("The straw hat worn by Leigh sold.", "The straw hat worn by Vivien Leigh sold.") == []
    assert (
        verbatim_run("the glowing blue letters that once lit the Bronx's stadium", "the glowing blue letters")
        == 4
    )
    src, para = GOOD_RESTATEMENTS[-2]
    assert verbatim_run(src, para) == 9 and verbatim_run(src, para, allow_opening=True) == 0
    # a copied tail, or an opening of more than half the sentence, counts
    assert verbatim_run("a b c d e f g h i j", "so then a b c d e f g h", allow_opening=True) == 8
    assert verbatim_run("a b c d e f g h i j", "a b c d e f g h then so", allow_opening=True) == 8


def test_the_offline_rewriter_refuses_a_copied_opening_the_validator_accepts() -> None:
    """Issue 36: no offline insertion shares a run of 8 words with its original, though the reader accepts an
    opening of at most half the sentence (the validator does, for an LLM's restatement)."""
    from dhp.builder.perturb.offline.paraphrase import aligned

    for src, para in GOOD_RESTATEMENTS[-2:]:
        assert validate(RI_MINOR, src, f"{src} {para}").ok
        assert aligned(src, [para], src) is None


#: issue 36: the read of offline-rules/11 (../shared/reads/offline-rules-11-seed-4471.jsonl): a value its own text
#: contradicts, a word of a technical term, a surname made a made-up word or a first name
BAD_NE_READ11 = [
    (NE_MAJOR, "It is subtle for at least three reasons. first, errors matter. second, reads vary. third, depth.",
     "It is subtle for at least six reasons. first, errors matter. second, reads vary. third, depth.",
     ("enumerates",)),
    (NE_MINOR, "Last week was Ascension Day. Most people have an extra day off before the weekend on Friday, a "
     "bridge day.", "Last week was Ascension Day. Most people have an extra day off before the weekend on "
     "Tuesday, a bridge day.", ("fixes the day",)),
    (NE_MINOR, "rcc1 is the guanine nucleotide exchange factor for ran gtpase.",
     "rcc1 is the sailine nucleotide exchange factor for ran gtpase.", ("technical term",)),
    (NE_MINOR, "variants are rare because p ∝ 1/f and they occur more often.",
     "variants are rare because p ∝ 3/f and they occur more often.", ("formula",)),
    (NE_MINOR, "Owen bitterly attacked Huxley, Hooker and Darwin, but also signalled acceptance.",
     "Owen bitterly attacked Brolgu, Hooker and Darwin, but also signalled acceptance.", ("Hooker and Darwin",)),
    (NE_MINOR, "We report the sequencing of two species: amorphophallus konjac and a. bulbifer in 2014.",
     "We report the sequencing of three species: amorphophallus konjac and a. bulbifer in 2014.", ("enumerates",)),
    (NE_MINOR, "Jim was hurt and had to call 911.", "Jim was hurt and had to call 843.", ("telephone",)),
    (NE_MINOR, "Instead of 5 attempts (2+3) it pays for 3.", "Instead of 5 attempts (4+3) it pays for 3.", ("sum",)),
    (NE_MINOR, "Instead of 5 attempts (2+3) it pays for 3.", "Instead of 7 attempts (2+3) it pays for 3.", ("sum",)),
    (NE_MINOR, "It is an incentive, said Holetschek. Lauterbach agreed.",
     "It is an incentive, said Krafilrone. Lauterbach agreed.", ("cannot type",)),
    (NE_MINOR, "It ended the persecution of Protestants by the government.",
     "It ended the persecution of Drapigindes by the government.", ("religious group",)),
    (NE_MINOR, "We see each other less (1-2 per week).", "We see each other less (2-2 per week).", ("range",)),
    (NE_MINOR, "It streams via Gigabit-Ethernet or Ethernet 10/100 in any room.",
     "It streams via Gigabit-Ethernet or Ethernet 10/150 in any room.", ("ratio or standard",)),
    (NE_MINOR, "Owen bitterly attacked Huxley, Hooker and Darwin, but also signalled acceptance.",
     "Owen bitterly attacked Huxley, Hooker and Jared, but also signalled acceptance.", ("first name",)),
]  # fmt: skip

#: rows of a read of a fresh offline-rules/12 build (seed 9091) that the reader's rules reject
BAD_NE_FRESH_9091 = [
    (NE_MAJOR, "Thriller 25 by Michael Jackson, I Am... Sasha Fierce by Beyoncé, Keeps Gettin' Better: A Decade "
     "of Hits by Christina Aguilera, and Safe Trip Home by Dido",
     "Thriller 25 by Pedro Ashgrove, I Am... Sasha Fierce by Krelnar, Keeps Gettin' Better: A Decade "
     "of Hits by Christina Aguilera, and Safe Trip Home by Dido", ("'by Dido'",)),
    (NE_MINOR, "Thriller 25 by Michael Jackson, I Am... Sasha Fierce, Keeps Gettin' Better: A Decade of Hits.",
     "Thriller 25 by Michael Jackson, I Am... Sasha Fierce, Keeps Krelga' Better: A Decade of Hits.",
     ("ending elided",)),
    (NE_MINOR, "Is this too much for an initial encounter in Abenteuer? The group of goblins will play a "
     "decisive roll later.", "Is this too much for an initial encounter in Pergaikru? The group of goblins "
     "will play a decisive roll later.", ("untranslated word",)),
    (NE_MINOR, "It was his 349th and last Grand Prix, the “Iceman” ended his carrier in the hall of motorsport "
     "kings.", "It was his 349th and last Grand Kror, the “Iceman” ended his carrier in the hall of motorsport "
     "kings.", ("counted by an ordinal",)),
    (NE_MINOR, "hc-toxin, a cyclic tetrapeptide, is a virulence determinant for the plant pathogenic fungus.",
     "hc-toxin, a cyclic krinkreamide, is a virulence determinant for the plant pathogenic fungus.",
     ("'tetrapeptide' is not a named entity",)),
    (NE_MINOR, "It was his 349th and last Grand Prix, the “Iceman” ended his carrier. Räikkönen won in 2007.",
     "It was his 349th and last Grand Prix, the “Dinoni” ended his carrier. Räikkönen won in 2007.",
     ("nickname",)),
    (NE_MINOR, "Kaitlyn Granado, 24, first arrested March 19 for relationship with boy, 15. Officers quizzed "
     "another 15-year-old on March 24 over second relationship.", "Kaitlyn Granado, 24, first arrested August 19 "
     "for relationship with boy, 15. Officers quizzed another 15-year-old on March 24 over second relationship.",
     ("order of its dates",)),
    (NE_MINOR, "It backed Republicans through the 20th century, except in 1976 and 1996, when the nominee was "
     "from the South.", "It backed Republicans through the 20th century, except in 1976 and 2003, when the "
     "nominee was from the South.", ("fixed intervals",)),  # offline-rules/16: a year of an election is fixed
    (NE_MINOR, "It backed Republicans through the 20th century, except in 1976 and 1996.",
     "It backed Republicans through the 20th century, except in 1976 and 2003.", ("order of its dates",)),
    (NE_MINOR, "It backed Republicans through the 20th century, except in 1976 and 1996.",
     "It backed Republicans through the 19th century, except in 1976 and 1996.", ("order of its dates",)),
    (NE_MINOR, "Hume et al., 17th-18th century, European rationalist ethics, representatives: Spinoza et al., 18th "
     "century, French enlightenment ethics, representatives: Voltaire et al.", "Hume et al., 17th-18th century, "
     "European rationalist ethics, representatives: Spinoza et al., 16th century, French enlightenment ethics, "
     "representatives: Voltaire et al.", ("order of its dates",)),
    (NE_MINOR, "World No 1 Williams eventually defeated Errani 4-6 7-6 (3) 6-3.",
     "World No 1 Williams eventually defeated Errani 2-4 7-6 (3) 6-3.", ("no set ends with",)),
    (NE_MINOR, "representatives: Kierkegaard, Schopenhauer, Nietzsche et al.).",
     "representatives: Kierkegaard, Schopenhauer, Vadressta et al.).", ("cannot type",)),
    (NE_MINOR, "representatives: Spencer, Huxley, et al., late 19th century.",
     "representatives: Spencer, Demvel, et al., late 19th century.", ("cannot type",)),
    (NE_MINOR, "late 19th century, Neo Hegelian ethics, representatives: Thomas Hill Green et al.",
     "late 19th century, Guse Hegelian ethics, representatives: Thomas Hill Green et al.", ("prefix",)),
    (NE_MINOR, "The price will be between 200k and 250k.", "The price will be between 310k and 250k.",
     ("range it bounds",)),
    (NE_MINOR, "the n2-fixing alfalfa symbiont is studied.", "the t0-fixing alfalfa symbiont is studied.",
     ("not a named entity",)),
    (NE_MINOR, "the proliferative response after stimulation with mitogens was measured.",
     "the proliferative response after stimulation with norogens was measured.", ("not a named entity",)),
    (NE_MINOR, "in humans, six atg8 homologs, including map1lc3a, map1lc3b, map1lc3c, gabarap, gabarapl1 and "
     "gabarapl2 have been found.", "in humans, three atg8 homologs, including map1lc3a, map1lc3b, map1lc3c, "
     "gabarap, gabarapl1 and gabarapl2 have been found.", ("enumerates",)),
    (NE_MINOR, "sls is a member of the thiazole/oxazole-modified microcin family of natural products.",
     "sls is a member of the varazole/oxazole-modified microcin family of natural products.", ("technical term",)),
    (NE_MINOR, "here we assessed the impact of three different total rna isolation procedures on variation in "
     "expression data: method a: lysis; method b: organic solvent; and method c: purification.",
     "here we assessed the impact of four different total rna isolation procedures on variation in "
     "expression data: method a: lysis; method b: organic solvent; and method c: purification.", ("enumerates",)),
    (NE_MINOR, "it is found in three crustacean groups, barnacles, a genus of clam shrimps, and tadpole shrimps.",
     "it is found in two crustacean groups, barnacles, a genus of clam shrimps, and tadpole shrimps.",
     ("enumerates",)),
    (NE_MINOR, 'focus on the "six batches", that is, expand the batch of a, expand the batch of b.',
     'focus on the "nine batches", that is, expand the batch of a, expand the batch of b.', ("enumerates",)),
    (NE_MAJOR, "Thriller 25 by Michael Jackson, I Am... Sasha Fierce by Beyoncé",
     "Thriller 29 by Scott Yarrow, I Am... Sasha Fierce by Beyoncé", ("number of a name",)),
    (NE_MINOR, "200 serious Covid 19 cases were treated on Sunday.",
     "200 serious Covid 23 cases were treated on Sunday.", ("number of a name",)),
]  # fmt: skip


@pytest.mark.parametrize(("p", "orig", "pert", "words"), BAD_NE_FRESH_9091)
def test_fictional_entities_of_a_fresh_read_bad(
    p: Perturbation, orig: str, pert: str, words: tuple[str, ...]
) -> None:
    _bad(validate(p, orig, pert), *words)


#: the reader accepted these (offline-rules-11 reads): the rules above must leave them
GOOD_NE_NEAR_FRESH_9091 = [
    ("The boom in floating hotels on the Rhein and Mosel has contributed to this.",
     "The boom in floating hotels on the Ragam and Mosel has contributed to this."),  # a name common in German
    ("“It is now a hole without a bottom,” Genth said. Retailers lost sales.",
     "“It is now a hole without a bottom,” Gervo said. Retailers lost sales."),  # a surname before "said"
    ("it aimed to find genes stably expressed in tissue from individuals with ad, pd or dlb.",
     "it aimed to find genes stably expressed in tissue from individuals with ad, pd or zrs."),
    ("mice given a glycine supplement grew faster.", "mice given a brisolline supplement grew faster."),
    ("Nearly 300 people came to see Kevin on December 10.", "Nearly 400 people came to see Kevin on December 10."),
    ("World No 1 Williams eventually defeated Errani 4-6 7-6 (3) 6-3.",
     "World No 1 Williams eventually defeated Errani 2-6 7-6 (3) 6-3."),
    ("He was arrested on March 19 and charged on March 24.", "He was arrested on March 12 and charged on March 24."),
    ("It backed Republicans through the 20th century, except in 1976 and 1996.",
     "It backed Republicans through the 20th century, except in 1976 and 1991."),
]  # fmt: skip


@pytest.mark.parametrize(("orig", "pert"), GOOD_NE_NEAR_FRESH_9091)
def test_fictional_entities_near_a_fresh_read_good(orig: str, pert: str) -> None:
    _ok(validate(NE_MINOR, orig, pert))


@pytest.mark.parametrize(("p", "orig", "pert", "words"), BAD_NE_READ11)
def test_fictional_entities_fixed_by_their_text_bad(
    p: Perturbation, orig: str, pert: str, words: tuple[str, ...]
) -> None:
    _bad(validate(p, orig, pert), *words)


def test_a_weekday_without_a_fixer_may_change_good() -> None:
    _ok(validate(NE_MINOR, "200 cases were treated on Sunday. Reports may lag on the weekend.",
                 "200 cases were treated on Wednesday. Reports may lag on the weekend."))  # fmt: skip


def test_a_collective_noun_takes_either_number_bad() -> None:
    """A read of a fresh build (seed 5323): "Security were said to be ..." is British English, no error."""
    orig = (
        "The parents bought a replacement toy. Security was said to be a little over zealous in the airport."
    )
    v = validate(GE_MINOR, orig, orig.replace("Security was", "Security were"))
    assert not v.ok, v


def test_a_collective_noun_inside_the_subject_still_agrees_good() -> None:
    """The reader's row (offline-rules-11): the subject is "intention", so "were" is an error."""
    orig = "He said the intention of the Biden government was geopolitics, not democracy."
    _ok(validate(GE_MINOR, orig, orig.replace("government was", "government were")))


def test_a_participle_after_its_noun_is_no_finite_verb_bad() -> None:
    """A read of seed 5323: "the activities related to the Space Race" -> "relating to": still grammatical."""
    orig = "It was a period encompassing the activities related to the Space Race and space exploration."
    assert not validate(GE_MINOR, orig, orig.replace("related", "relating")).ok
    _ok(validate(GE_MINOR, "After the trip he returned to Libya.", "After the trip he returning to Libya."))


#: a held-out read of seed 3131 (offline-rules/13): kinds the text or the name itself fixes
BAD_NE_HELD_OUT_3131 = [
    (NE_MINOR, "the th1/th2 cytokine balance shifts toward th2 in asthma .",
     "the zs1/th2 cytokine balance shifts toward th2 in asthma .", ("numbered pair",)),
    (NE_MINOR, "According to Ministry of Education of Jiangxi, Jiangxi province planned to train 1 music teacher.",
     "According to Ministry of Education of Wexley, Jiangxi province planned to train 1 music teacher.",
     ("stays elsewhere",)),
    # a fresh read (seed 6029, offline-rules/14 before its last rules): the same kinds and four more
    (NE_MINOR, "The 13th Hunan Tea Expo was held in Hunan International Expo Center this morning.",
     "The 13th Hunan Tea Expo was held in Greythorn International Expo Center this morning.", ("'Hunan' stays",)),
    (NE_MINOR, "we showed that vibrio scophthalmi, the most abundant vibrio species in turbot, has two circuits.",
     "we showed that grella plaikralae, the most abundant vibrio species in turbot, has two circuits.",
     ("'vibrio' stays",)),
    (NE_MINOR, "we analysed ifn-γ + 874 t/a and il-4rα q576r polymorphisms.",
     "we analysed ifn-γ + 969 t/a and il-4rα q576r polymorphisms.", ("sequence variant",)),
    (NE_MINOR, "the th1/th <dig> ratio was detected .", "the nm9/th <dig> ratio was detected .", ("numbered pair",)),
    (NE_MINOR, "we examined the response, using 454-sequencing, in bark .",
     "we examined the response, using 483-sequencing, in bark .", ("number of a name",)),
    (NE_MINOR, "She told Sydney District Court on Monday she felt scared.",
     "She told Sydney District Court on Sunday she felt scared.", ("court",)),
    (NE_MINOR, "the ap2/erf protein family contains transcription factors .",
     "the zb9/erf protein family contains transcription factors .", ("family",)),
    # a held-out read of seed 8317 (offline-rules/14 before its last rules)
    (NE_MINOR, "Staats-Limburg (around Maastricht) and Staats-Oppergelre (around Venlo).",
     "Staats-Limburg (around Maastricht) and Dagainferubrufesi (around Venlo).", ("'Staats' stays",)),
    (NE_MINOR, "It plays files via Gigabit-Ethernet or Ethernet 10/100 of any type.",
     "It plays files via Bremeplodreaskai or Ethernet 10/100 of any type.", ("'Ethernet' stays",)),
    (NE_MINOR, "there are two commercially available products for rna collection, paxgene and tempus tubes.",
     "there are four commercially available products for rna collection, paxgene and tempus tubes.",
     ("enumerates",)),
    (NE_MINOR, "The largest group in Florida was English with 2,232,514 Floridians claiming it.",
     "The largest group in Florida was English with 2,232,514 Brioruslas claiming it.", ("people of a place",)),
    (NE_MINOR, "Verstappen broke the rules twice, said Mercedes. It suspects two rule violations in the race.",
     "Verstappen broke the rules twice, said Mercedes. It suspects four rule violations in the race.",
     ("count again",)),
    (NE_MINOR, "What are you now? A 8:15 AM advertisement.", "What are you now? A 13:15 AM advertisement.",
     ("clock",)),
    (NE_MINOR, "Then we have Marah’s Do’s & Don’ts. That apply to everyone.",
     "Then we have Marah’s Do’s & Stafes. That apply to everyone.", ("not a named entity",)),
    (NE_MINOR, "The concept has no hope of success, so Facebook is in danger; this is why Zuckerberg changed "
     "the name of the company.", "The concept has no hope of success, so Facebook is in danger; this is why "
     "Lemgastenu changed the name of the company.", ("famous name",)),
]  # fmt: skip


@pytest.mark.parametrize(("p", "orig", "pert", "words"), BAD_NE_HELD_OUT_3131)
def test_fictional_entities_of_a_held_out_read_bad(
    p: Perturbation, orig: str, pert: str, words: tuple[str, ...]
) -> None:
    _bad(validate(p, orig, pert), *words)


def test_a_famous_name_alone_and_a_series_of_one_may_change_good() -> None:
    """Beside no other real name a famous name may become a made-up one; a code with no numbered sibling is a
    name; an organisation's place the text names nowhere else changes with it."""
    _ok(validate(NE_MINOR, "Gaddafi was popular at school.", "Dravelo was popular at school."))
    _ok(validate(NE_MINOR, "the th1 cells were counted .", "the zs1 cells were counted ."))
    _ok(validate(NE_MINOR, "According to Ministry of Education of Jiangxi, 1 teacher was trained.",
                 "According to Ministry of Education of Wexley, 1 teacher was trained."))  # fmt: skip


def test_a_copula_after_a_contracted_is_stays_bad() -> None:
    """A read of seed 6029 (offline-rules/14): "Rebbie's [is] being held" reads "Rebbie is being held"."""
    orig = "Rebbie's is being held on a $500,000 bail. Manuel admitted to a review board that he lied."
    assert not validate(GE_MINOR, orig, orig.replace("Rebbie's is being", "Rebbie's being")).ok
    _ok(validate(GE_MINOR, "He is being held on bail.", "He being held on bail."))
    # the offline-rules-8 reader counts a plural before its head an error ("a toilets seat"): so is this
    _ok(validate(GE_MINOR, orig, orig.replace("a review board", "a reviews board")))


#: the kinds offline-rules/14's final reads (seeds 6029 and 8317) left open, made rules in offline-rules/16: a year
#: of an event held at fixed intervals, a total its sentence computes, a range stretched, a place beside its people,
#: a real abbreviation as the new value, a dictionary chemical
BAD_NE_OPEN_14 = [
    (NE_MINOR, "They supported Republican candidates through the 20th century, except in 1976 and 1996, when the "
     "Democratic nominee was from the South.", "They supported Republican candidates through the 20th century, "
     "except in 1982 and 1996, when the Democratic nominee was from the South.", ("fixed intervals",)),
    (NE_MINOR, "Kvesic said that when he visited China during the Beijing 2008 Summer Olympics, the work impressed him.",
     "Kvesic said that when he visited China during the Beijing 2010 Summer Olympics, the work impressed him.",
     ("fixed intervals",)),
    (NE_MINOR, "Jiangxi plans to train 1 music, 1 art and 1 PE trainers for each school in 100 counties in Jiangxi, "
     "with a total of 300 trainers.", "Jiangxi plans to train 1 music, 1 art and 1 PE trainers for each school in "
     "100 counties in Jiangxi, with a total of 190 trainers.", ("sum",)),
    (NE_MINOR, "Jiangxi plans to train 1 music, 1 art and 1 PE trainers for each school in 100 counties in Jiangxi, "
     "with a total of 300 trainers.", "Jiangxi plans to train 1 music, 1 art and 1 PE trainers for each school in "
     "90 counties in Jiangxi, with a total of 300 trainers.", ("sum",)),
    (NE_MAJOR, "whereby 30,000 jobs will be cut and weekly working hours will be increased from 35 to 40 hours",
     "whereby 34,000 jobs will be cut and weekly working hours will be increased from 22 to 58 hours", ("range",)),
    (NE_MAJOR, "whereby 30,000 jobs will be cut and weekly working hours will be increased from 35 to 40 hours",
     "whereby 30,000 jobs will be cut and weekly working hours will be increased from 30 to 46 hours",
     ("both ends",)),
    (NE_MINOR, "largest ancestry group reported in Florida was English with 2,232,514 Floridians claiming it",
     "largest ancestry group reported in Isteravia was English with 2,232,514 Floridians claiming it",
     ("people of a place",)),
    (NE_MINOR, "Special network optimization thanks to an SMB protocol (including HEVC UHD files) via Ethernet.",
     "Special network optimization thanks to an STD protocol (including HEVC UHD files) via Ethernet.",
     ("real abbreviation",)),
    (NE_MINOR, "ethylene production and signalling play an important role in somatic embryogenesis .",
     "stearene production and signalling play an important role in somatic embryogenesis .",
     ("not a named entity",)),
    # a word of a longer name: a species' common name at every use, a person's name inside another name, an
    # abbreviation the text counts (a kind)
    (NE_MINOR, "norway spruce is one of the most important conifer species in europe . the first line of defence "
     "in a norway spruce tree is the bark .", "brenburg spruce is one of the most important conifer species in "
     "europe . the first line of defence in a brenburg spruce tree is the bark .", ("'norway spruce'",)),
    (NE_MINOR, "He served with Merrill's Marauders in Burma.", "He served with Halvorsen's Marauders in Burma.",
     ("person's name inside",)),
    (NE_MINOR, "A similar American unit, Merrill's Marauders, fought in Burma.",
     "A similar American unit, Merrill's Konraines, fought in Burma.", ("person's name inside",)),
    (NE_MINOR, "She was taken to St Mary's hospital.", "She was taken to St Rowan's hospital.",
     ("person's name inside",)),
    (NE_MINOR, "clinical data warehouses promise to revolutionize research . however , the effectiveness of cdws is "
     "diminished . we integrate knowledge from the cdw and the literature .", "clinical data warehouses promise "
     "to revolutionize research . however , the effectiveness of ntps is diminished . we integrate knowledge from "
     "the ntp and the literature .", ("counts",)),
    # the generator keeps a telephone number's length (offline-rules/14); the validator now checks it too
    (NE_MINOR, "Our phone number and WeChat account is 18912251735; we look forward to meeting you.",
     "Our phone number and WeChat account is 9668828252; we look forward to meeting you.", ("its length",)),
    # a binomial renamed while its short form stays (the tried refusing generator's read): rejected already
    (NE_MINOR, "we isolated Escherichia coli from water. E. coli was abundant.",
     "we isolated Drelbium varnis from water. E. coli was abundant.", ("still names 'E. coli'",)),
]  # fmt: skip


@pytest.mark.parametrize(("p", "orig", "pert", "words"), BAD_NE_OPEN_14)
def test_fictional_entities_left_open_by_offline_rules_14_bad(
    p: Perturbation, orig: str, pert: str, words: tuple[str, ...]
) -> None:
    _bad(validate(p, orig, pert), *words)


def test_years_totals_ranges_and_places_that_no_rule_fixes_good() -> None:
    """A year with no event beside it, a number that sums nothing, a range kept near its spread, a place whose
    people the text does not name, a rarer chemical, a place not always in one name, a person's possessive
    before an ordinary noun all still change."""
    _ok(
        validate(
            NE_MINOR, "He moved there in 1976 and left in 1996.", "He moved there in 1982 and left in 1996."
        )
    )
    _ok(
        validate(
            NE_MINOR,
            "He scored 3 goals in 5 games and 12 points.",
            "He scored 3 goals in 5 games and 14 points.",
        )
    )
    _ok(
        validate(
            NE_MINOR,
            "hours will be increased from 35 to 40 hours",
            "hours will be increased from 33 to 40 hours",
        )
    )
    _ok(
        validate(
            NE_MINOR,
            "The largest group in Florida was English.",
            "The largest group in Isteravia was English.",
        )
    )
    _ok(validate(NE_MINOR, "lysine production rose .", "zemine production rose ."))
    _ok(validate(NE_MINOR, "we sampled spruce in norway . norway has cold winters .",
                 "we sampled spruce in brenburg . brenburg has cold winters ."))  # fmt: skip
    _ok(validate(NE_MINOR, "He read Merrill's book in Burma.", "He read Halvorsen's book in Burma."))


#: issue 36, the held-out read of offline-rules/17 (docs/reads/offline-rules-17-seed-7919.jsonl): an abbreviation
#: of general words spelled out in the text (a kind), a word of a spelled-out name the text abbreviates, a place
#: changed apart from its adjective a word away (offline-rules/18)
BAD_NE_HELD_OUT_7919 = [
    (NE_MINOR, "identification of protein complexes from protein-protein interaction networks is crucial . "
     "however , most of them considered the ppi networks as static graphs .", "identification of protein "
     "complexes from protein-protein interaction networks is crucial . however , most of them considered the tnl "
     "networks as static graphs .", ("'ppi' abbreviates 'protein-protein interaction'",)),
    (NE_MINOR, "a chronic inflammatory bowel disease caused by mycobacterium avium spp. paratuberculosis . this "
     "study aimed to help prevent map infection .", "a chronic inflammatory bowel disease caused by zirkreaterus "
     "zeama spp. paratuberculosis . this study aimed to help prevent map infection .", ("'map' abbreviates",)),
    (NE_MINOR, "we hypothesized that human populations in west central africa may have been exposed . they "
     "resided within the range of the central african chimpanzee subspecies .", "we hypothesized that human "
     "populations in west central mordavia may have been exposed . they resided within the range of the central "
     "african chimpanzee subspecies .", ("'central african' stays",)),
    # the held-out read of offline-rules/18 (seed 2604): a club renamed under its short name, its full name kept
    (
        NE_MAJOR,
     "Neymar and Dani Alves, teammates at Barcelona attended an El Clasico of basketball with Rafealle, "
     "Neymar's sister. The two player, Neymar and Alves will return from intentional break to play for "
     "Barca who currently are top of the La Liga. They are pursuing a treble of trophies this season. "
     "Neymar also captained Brazil in their 1-0 victory over Chile at the weekend.",
     "Neymar and Kelly Thornbury, teammates at Barcelona attended an El Clasico of basketball with "
     "Rafealle, Neymar's sister. The two player, Neymar and Thornbury will return from intentional break "
     "to play for Harlowick who currently are top of the La Liga. They are pursuing a treble of trophies "
     "this season. Neymar also captained Brazil in their 1-0 victory over Chile at the weekend.",
        ("longer form 'Barcelona'",),
    ),
]  # fmt: skip


@pytest.mark.parametrize(("p", "orig", "pert", "words"), BAD_NE_HELD_OUT_7919)
def test_fictional_entities_of_the_held_out_read_of_offline_rules_17_bad(
    p: Perturbation, orig: str, pert: str, words: tuple[str, ...]
) -> None:
    _bad(validate(p, orig, pert), *words)


def test_a_name_beside_its_abbreviation_and_a_place_apart_from_its_people_good() -> None:
    """An abbreviation of one named thing ("dlb": dementia with lewy bodies; the offline-rules-11 reader accepted
    "dlb" -> "zrs"), an abbreviation of general words nowhere spelled out, a place whose people are named
    with no word of its name before them still change."""
    text = "dementia with lewy bodies ( dlb ) is common . we studied dlb in mice ."
    _ok(validate(NE_MINOR, text, text.replace("dlb", "zrs")))
    text = "most of them considered the ppi networks as static graphs ."
    _ok(validate(NE_MINOR, text, text.replace("ppi", "tnl")))
    text = "populations in west central africa were exposed . the african chimpanzee carries it ."
    _ok(validate(NE_MINOR, text, text.replace("west central africa", "west central mordavia")))
    text = "Japan is an island nation. Japanese trains run on time."  # a country's people: its own word
    _ok(validate(NE_MINOR, text, text.replace("Japan ", "Ellerburg ")))


def test_a_name_word_in_capitals_kept_elsewhere_and_a_spelled_out_letter_bad() -> None:
    # the held-out read of offline-rules/19 (seed 3847): "China US Relation" and "US Navy" renamed while "China"
    # and "the US" stay; "pheophorbide" renamed while "pao" (pheophorbide a oxygenase) stays
    text = "The US Navy sailed past. China said the US had no right, and the China US Relation Forum met."
    pert = text.replace("US Navy", "Pennimoor Navy").replace("China US Relation", "Harrowgate US Relation")
    _bad(validate(NE_MAJOR, text, pert), "its 'US' stays elsewhere")
    text = "pheophorbide a oxygenase ( pao ) opens the ring . pheophorbide accumulates in the pao mutant ."
    _bad(validate(NE_MINOR, text, text.replace("pheophorbide", "kaifesteside")), "'pao' abbreviates")
    _ok(validate(NE_MINOR, "We told us about the US Navy.", "We told us about the Pennimoor Navy."))


def test_a_two_letter_abbreviation_of_general_words_bad() -> None:
    # the held-out read of offline-rules/20 (seed 5591): "RC" -> "ZG" where the text says "the remote control"
    text = "Some apps are not usable with the remote control. Universal RC: integration via drivers, Pronto and URC."
    _bad(validate(NE_MINOR, text, text.replace("RC:", "ZG:")), "'rc' abbreviates 'remote control'")
    _ok(
        validate(
            NE_MINOR,
            text.replace("the remote control", "it"),
            text.replace("the remote control", "it").replace("RC:", "ZG:"),
        )
    )


def test_kinds_of_the_held_out_read_of_offline_rules_21_bad() -> None:
    # seed 6917 (and "Space Race" at 3847 too): an event named by a common noun the text uses again, a gene
    # symbol beside its spelled-out name, a species beside the family named after its genus
    text = "The Space Race was a competition in space exploration and space technology."
    _bad(validate(NE_MINOR, text, text.replace("Space Race", "Krege Race")), "its 'Space' stays")
    text = "apetala <dig> -like transcription factors are plant-specific . the ap2-like genes of rice are known ."
    _bad(validate(NE_MINOR, text, text.replace("ap2-like", "hm0-like")), "spells out ('ap2' of 'apetala 2')")
    text = "symplocos paniculata is a shrub of the symplocaceae . we sequenced symplocos paniculata ."
    pert = text.replace("symplocos paniculata", "plurpia kradragri")
    _bad(validate(NE_MINOR, text, pert), "its 'symplocaceae' stays")


def test_an_event_of_common_words_the_text_does_not_use_again_good() -> None:
    text = "The Space Race was a competition between two powers."
    _ok(validate(NE_MINOR, text, text.replace("Space Race", "Krege Race")))


def test_a_copula_dropped_after_a_verb_of_thinking_leaves_a_small_clause_bad() -> None:
    # the held-out read of offline-rules/21 (seed 6917): "Eve thought the couch [was] very comfortable" is still
    # grammatical ("I thought him clever"); after a subject pronoun ("thought she [was]") it is an error
    text = "Eve thought the couch was very comfortable."
    _bad(validate(GE_MINOR, text, text.replace(" was ", " ")), "small clause")
    text = "Eve thought she was very tired."
    _ok(validate(GE_MINOR, text, text.replace(" was ", " ")))


def test_kinds_of_the_held_out_read_of_offline_rules_23_bad() -> None:
    # seed 8803, both readers: a unit in capitals after its number, a long chemical name beside its abbreviation
    text = "The seal is checked through the opening of the B 100 - 6 OHM with a small lamp."
    _bad(validate(NE_MINOR, text, text.replace("OHM", "SZV")), "a unit after its number")
    text = "the phosphatidylethanolamine -conjugation of the protein matters . all of them can be conjugated to pe ."
    pert = text.replace("phosphatidylethanolamine", "liosainobraplaibinmirine")
    _bad(validate(NE_PUBMED, text, pert), "'pe' abbreviates 'phosphatidylethanolamine'")
    _ok(validate(NE_PUBMED, text.replace(" to pe", " to it"), pert.replace(" to pe", " to it")))


def test_kinds_of_the_held_out_read_of_offline_rules_24_bad() -> None:
    # seed 9433, both readers: one alga's names ("formerly known as"), an organisation named after a people
    # whose place the text names (the seed-8317 reader accepted this row; both seed-9433 readers did not)
    text = "lobosphaera incisa, formerly known as myrmecia incisa and then parietochloris incisa, is a green alga ."
    _bad(
        validate(NE_PUBMED, text, text.replace("myrmecia incisa", "trasgum vemae")),
        "its 'lobosphaera incisa'",
    )
    text = "Companies in Austria pay a bonus, together with the Austrian Federation of Trade Unions."
    pert = text.replace("Austrian Federation", "Ravhavenian Federation")
    _bad(validate(NE_MINOR, text, pert), "its 'Austria' stays")
    text = "Companies in Lyon pay a bonus, together with the Austrian Federation of Trade Unions."
    _ok(validate(NE_MINOR, text, text.replace("Austrian Federation", "Ravhavenian Federation")))


def test_a_year_of_the_euro_championship_bad() -> None:
    # the held-out reads of seeds 6481 and 1187 (both readers): "Euro 2016" -> "2017" beside "a euro qualifier
    # for 2012": a tournament held every four years
    text = "Sweden face England in a Euro 2016 qualifier, after a euro qualifier for 2012."
    _bad(validate(NE_MINOR, text, text.replace("2016", "2017")), "fixed intervals")
    text = "Sweden face England in 2016, after a qualifier for 2012."
    _ok(validate(NE_MINOR, text, text.replace("2016", "2017")))
