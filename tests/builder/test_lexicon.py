"""Typed entity recognition: hand-written texts with the entities a reader sees in them."""

from __future__ import annotations

import pytest

from dhp.builder.perturb.lexicon import (
    NUMBER_MASK,
    EntityType,
    breaks_range,
    classify_name,
    classify_span,
    find_entities,
    is_common_word,
    is_demonym,
    is_lowercase_text,
    sentence_spans,
    tokenize,
)

P, PL, ORG, N, D, T = (
    EntityType.PERSON,
    EntityType.PLACE,
    EntityType.ORG,
    EntityType.NUMBER,
    EntityType.DATE,
    EntityType.TERM,
)
NAT, ACR, URL, OTHER = EntityType.NATIONALITY, EntityType.ACRONYM, EntityType.URL, EntityType.OTHER


def _found(text: str) -> list[tuple[str, EntityType]]:
    return [(s.text, s.type) for s in find_entities(text)]


def test_spans_point_into_the_text_and_stay_in_one_sentence() -> None:
    text = "He left on Wednesday. But the former mayor of Springfield stayed in Ohio."
    spans = find_entities(text)
    sents = sentence_spans(text)
    assert len(sents) == 2
    for s in spans:
        assert text[s.start : s.end] == s.text
        a, b = sents[s.sentence]
        assert a <= s.start and s.end <= b
    assert ("Wednesday", D) in _found(text)
    assert not any("." in s.text for s in spans)  # never "Wednesday. But"


@pytest.mark.parametrize("text", ["Everyone had a great time.", "Officers said nothing.", "But it rained."])
def test_ordinary_words_at_a_sentence_start_are_not_names(text: str) -> None:
    assert _found(text) == []


def test_names_are_typed() -> None:
    found = _found("Officers arrested John Smith in London on 5 March 2015 near Brown University.")
    assert ("John Smith", P) in found
    assert ("London", PL) in found
    assert ("March 2015", D) in found
    assert ("5", N) in found
    assert ("Brown University", ORG) in found
    assert all(t != "Officers" for t, _ in found)


def test_organisations_by_keyword_and_people_after_titles() -> None:
    found = _found("Zhejiang University and the Ministry of Health praised Dr. Tanaka.")
    assert ("Zhejiang University", ORG) in found
    assert ("Ministry of Health", ORG) in found
    assert ("Tanaka", P) in found
    assert all(t not in {"Dr", "Dr."} for t, _ in found)


def test_unicode_names_are_whole_tokens() -> None:
    assert [t.text for t in tokenize("Yûki met Zoë.")] == ["Yûki", "met", "Zoë", "."]
    found = _found("Later, Yûki went to Tokyo.")
    assert ("Yûki", EntityType.OTHER) in found or ("Yûki", P) in found


def test_lowercased_text_gets_terms_and_numbers_but_not_the_mask() -> None:
    text = f"the disease is driven by il-6 in {NUMBER_MASK} patients with imatinib and 12 controls ."
    found = _found(text)
    assert ("il-6", T) in found
    assert ("imatinib", T) in found
    assert ("12", N) in found
    assert all(t != "disease" for t, _ in found)
    assert all(NUMBER_MASK not in t for t, _ in found)


def test_numbers_with_units_and_currency() -> None:
    found = _found("The firm said 3.5 million people, or 20 percent, paid $40 in the 1990s.")
    assert ("3.5 million", N) in found
    assert ("20 percent", N) in found
    assert ("$40", N) in found
    assert ("1990s", D) in found


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("Varek Pendrell", P),  # unknown two-word name: a fictional person
        ("Faelan Halvorsen", P),
        ("Oskavia", PL),  # place-like ending
        ("Pendleton University", ORG),
        ("Lake Varn", PL),
        ("Paris", PL),
        ("Mary", P),
        ("NASA", ACR),  # an acronym is its own type: replaced by another acronym
        ("HIV", ACR),
        ("UK", PL),
    ],
)
def test_classify_name(name: str, kind: EntityType) -> None:
    assert classify_name(name) is kind


def test_classify_name_rejects_lowercase_and_uses_titles() -> None:
    assert classify_name("disease") is None
    assert classify_name("Varn", context="said Mr. ") is P


def test_classify_span_numbers_and_terms() -> None:
    assert classify_span("42") is N
    assert classify_span("2015") is D
    assert classify_span("il-6") is T
    assert classify_span(NUMBER_MASK) is None


@pytest.mark.parametrize(
    ("word", "common"),
    [
        ("Everyone", True),
        ("Officers", True),
        ("But", True),
        ("London", False),
        ("Yûki", False),
        ("Halvorsen", False),
    ],
)
def test_is_common_word(word: str, common: bool) -> None:
    assert is_common_word(word) is common


def test_technical_names_are_not_people_or_places() -> None:
    assert classify_name("Sars CoV2 Virus") is EntityType.OTHER
    assert classify_name("Zika Virus") is EntityType.OTHER
    assert classify_name("Tamsin Marwick") is P  # the same shape without a term-like word: a person
    found = dict(_found("There were 2,242 new infections of the Sars CoV2 Virus and 16 deaths."))
    assert found.get("Sars CoV2 Virus") is not P


def test_terms_in_cased_text_need_a_term_shape() -> None:
    found = dict(
        _found(
            "Darwin did not see evolution as a teleological plan of imatinib, said the CoV2 and hERG team."
        )
    )
    assert "evolution" not in found and "plan" not in found and "team" not in found  # ordinary words
    assert found.get("CoV2") is T and found.get("hERG") is T and "mRNA" not in found
    # issue 19: a learned but general word is no term ("teleological"); a domain ending on a name is ("imatinib")
    assert "teleological" not in found and found.get("imatinib") is T
    lower = dict(_found("darwin did not see imatinib as a teleological plan ."))
    assert lower.get("imatinib") is T  # in lower-cased text a biomedical-looking word still is one


@pytest.mark.parametrize(
    ("text", "lower"),
    [
        (
            "continued to support Republican presidential candidates through the 20th century, except in 1976",
            False,
        ),
        ("bitterly attacked Huxley, Hooker and Darwin, but also signalled acceptance of evolution", False),
        (
            "the phosphatidylethanolamine conjugation of the atg <dig> protein . in humans, six homologs .",
            True,
        ),
        ("The cat sat on the mat. It was happy.", False),
    ],
)
def test_lowercase_text_is_decided_from_the_whole_text(text: str, lower: bool) -> None:
    assert is_lowercase_text(text) is lower


def test_answer_spans_starting_in_lower_case_still_have_names() -> None:
    found = dict(
        _found(
            "continued to support Republican presidential candidates, except when Jimmy Carter ran in Georgia"
        )
    )
    assert found.get("Jimmy Carter") is P and found.get("Georgia") is PL


@pytest.mark.parametrize(
    "word", ["French", "German", "Germans", "Dutch", "Chinese", "Canadian", "Pakistani", "Italians"]
)
def test_nationalities_are_their_own_type_never_people(word: str) -> None:
    assert is_demonym(word)
    assert classify_name(word) is NAT
    assert (word, NAT) in _found(f"The team met {word} officials on Monday.")


@pytest.mark.parametrize(
    "name", ["Mary", "Brian", "Christian", "Adrian", "Sebastian", "Susan", "Germany", "France"]
)
def test_names_and_countries_are_not_nationalities(name: str) -> None:
    assert not is_demonym(name)
    assert classify_name(name) is not None


def test_compass_word_and_a_name_is_a_place() -> None:
    assert classify_name("North Brabant") is PL
    assert classify_name("South Holland") is PL
    assert ("North Brabant", PL) in _found("North Brabant is a province. He lives in North Brabant now.")


def test_multiword_nationalities_are_one_nationality() -> None:
    # lead's review: "mostly English American ancestry" became "mostly Lorcan Quenby ancestry"
    assert classify_name("English American") is NAT
    assert _found("The settlers were of mostly English American ancestry, he wrote.") == [
        ("English American", NAT)
    ]
    assert classify_name("Valdorian") is NAT  # a fictional place's people is a nationality too
    assert is_demonym("Valdorian") and not is_demonym("Valdorian", real_only=True)
    assert classify_name("Christian Smith") is P  # a name that merely ends like a demonym stays a person


@pytest.mark.parametrize(
    "text",
    [
        "Egypt joined the United Arab Republic in 1958.",
        "United Arab Republic was formed in 1958 by Egypt.",  # at a sentence start the first word stays
    ],
)
def test_a_state_name_is_one_place_span(text: str) -> None:
    assert ("United Arab Republic", PL) in _found(text)
    assert all(t != "Arab Republic" for t, _ in _found(text))


def test_documents_are_not_people_or_places() -> None:
    assert classify_name("Constitution of Kazakhstan") is EntityType.OTHER
    assert classify_name("Treaty of Rome") is EntityType.OTHER
    assert ("Constitution of Kazakhstan", EntityType.OTHER) in _found(
        "Power is set out in the Constitution of Kazakhstan."
    )


@pytest.mark.parametrize("name", ["Libyan Civil War", "Egyptian Revolution", "English Channel"])
def test_events_and_nationality_led_names_are_not_people(name: str) -> None:
    assert classify_name(name) is EntityType.OTHER


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the misses of the first offline build (issue 9, round 2)
        ("The SPD would agree, he said.", ("SPD", ACR)),
        (
            "The registration can take place online at www.bosch-pt.com/warranty today.",
            ("www.bosch-pt.com/warranty", URL),
        ),
        ("Ratings are on letterboxd.com as well.", ("letterboxd.com", URL)),
        ("On the one hand you always hear (Studycheck, etc.) about it.", ("Studycheck", OTHER)),
        ("It is related to being African American, with a family history.", ("African American", NAT)),
        ("During the Spring Festival, the shops close.", ("Spring Festival", OTHER)),
        ("It came third in the race.", ("third", N)),
        ("Gaddafi was popular at school.", ("Gaddafi", OTHER)),
        ("Betsy had to be taken to the hospital.", ("Betsy", P)),
        ("the main wildlife host for siv is the chimpanzee .", ("siv", T)),
    ],
)
def test_new_kinds_of_entities_are_found(text: str, expected: tuple[str, EntityType]) -> None:
    assert expected in _found(text)


def test_second_build_review_examples() -> None:
    found = dict(_found("It was condemned by both the Iranian and Pakistani governments."))
    assert found == {"Iranian": NAT, "Pakistani": NAT}  # "Iran, Islamic Republic of" still has a people
    assert dict(_found("He paid 16million for it.")) == {"16million": N}
    assert dict(_found("On a Saturday afternoon in Cleveland, people met.")).get("Cleveland") is PL
    assert dict(_found("The Streetlight Coalition agreed.")).get("Streetlight Coalition") is OTHER


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        # typing defects seen in the Answer Equivalence build
        ("Art Deco", OTHER),
        ("Streamline Moderne", OTHER),
        ("West Publishing", ORG),
        ("AIDS", ACR),
        ("Buckingham Palace", PL),
        ("Yankee Stadium", PL),
        ("Huawei R&D", OTHER),
        ("Spring Festival Gala", OTHER),
        ("Liverpool", PL),
        ("Southampton", PL),  # cities under 500,000 people, no one's name
        ("Will Smith", P),  # an ordinary first word with a known last name is still a person
    ],
)
def test_typing_defects_are_fixed(name: str, kind: EntityType) -> None:
    assert classify_name(name) is kind


@pytest.mark.parametrize(
    ("text", "absent"),
    [
        ("Civil Rights Act was passed in 1964.", "Rights Act"),  # the whole document, not a piece
        ("The Minister of Justice said so.", "Minister of Justice"),  # an office is no named entity
        ("EDIT: wow, I did not expect that.", "EDIT"),  # an ordinary word in capitals
        ("Don’t go there, I’ll wait.", "Don’t"),  # contractions
        ("#PRS_ORG# needs to pick it up.", "PRS_ORG"),  # WMT's anonymisation placeholder
        ("Fixed cameras were switched off in Spring of 2013.", "Spring"),  # a season, not a person
        ("For Zhejiang University, the motto is old.", "For Zhejiang University"),
        ("Arsenal face Liverpool in the Premier League on Saturday.", "League"),
        ("The police found the perpetrator and locked her up.", "perpetrator"),  # rare but no term
        ("It was the meatiest part of the bird.", "meatiest"),  # an inflected adjective
        ("The General Plan was issued.", "Plan"),  # a title before an ordinary word makes no person
        ("See POWER LEVEL and D for it.", "D"),  # a single letter, a run of capitals
        ("As Bill walked in, the lights went out.", "As Bill"),  # "As" is no part of the name
    ],
)
def test_not_entities_or_not_pieces(text: str, absent: str) -> None:
    assert all(t != absent for t, _ in _found(text)), _found(text)
    if absent == "Rights Act":
        assert ("Civil Rights Act", OTHER) in _found(text)


def test_lead_review_units_and_plurals_of_ordinary_words_are_not_terms() -> None:
    # seen in the merged offline build: "16 bit/31250 kHz" -> "bNo", "type designations" -> "samrarations"
    found = dict(
        _found("Each channel is rendered with 16 bit/31250 kHz and all type designations are listed.")
    )
    assert "kHz" not in found and "designations" not in found
    assert dict(_found("A 5000 mAh battery.")).get("mAh") is None
    assert "heterosexuality" not in dict(
        _found("They considers homosexuality and heterosexuality separately.")
    )


# -- review 3 of the offline build -------------------------------------------------------------------------
HOL = EntityType.HOLIDAY


@pytest.mark.parametrize(
    ("text", "expected", "absent"),
    [
        # clubs: a team's context at one occurrence types every occurrence; a country stays a place
        ("Filipe Luis signed for Chelsea from Atletico Madrid.", ("Chelsea", ORG), ("Atletico Madrid", P)),
        (
            "Hazard scored for Chelsea. Chelsea boss Jose Mourinho was happy.",
            ("Chelsea", ORG),
            ("Chelsea", P),
        ),
        (
            "Leicester are seven points adrift in the league. Saving Leicester will feel like a trophy.",
            ("Leicester", ORG),
            ("Leicester", PL),
        ),
        (
            "Liverpool boss Ian Ayre said so. Liverpool reached an agreement.",
            ("Liverpool", ORG),
            ("Liverpool", PL),
        ),
        ("He played for England in the match last season.", ("England", PL), ("England", ORG)),
        ("Chelsea went home. She was tired.", ("Chelsea", P), ("Chelsea", ORG)),  # no team here
        # holidays
        ("On Christmas, Amy got exactly what she wanted.", ("Christmas", HOL), ("Christmas", OTHER)),
        ("Gift giving was pushed onto Christmas Eve.", ("Christmas Eve", HOL), ("Christmas", HOL)),
        ("Easter Island is far away.", ("Easter Island", PL), ("Easter", HOL)),
        # binomials are one term, whole or abbreviated, lower-cased or not
        ("infection with m. bovis causes tb in cattle . we studied it .", ("m. bovis", T), ("bovis", T)),
        ("escherichia coli and e. coli grow in vitro .", ("escherichia coli", T), ("vitro", T)),
        (
            "the alfalfa symbiont sinorhizobium meliloti contains genes .",
            ("sinorhizobium meliloti", T),
            ("meliloti", T),
        ),
        ("A wild cat (Felis silvestris) was seen.", ("Felis silvestris", T), ("silvestris", T)),
        ("ethylene biosynthesis in e. coli is regulated .", ("e. coli", T), ("ethylene biosynthesis", T)),
        # a surname alone is the person named in full
        (
            "Ian Guffick, 31, allowed pupils to cheat. The panel banned Guffick.",
            ("Guffick", P),
            ("Guffick", OTHER),
        ),
        # number compounds; people whose surname no list has; no person in "Six-time Olympic"
        ("Six-time Olympic gold medalist says he will run.", ("Six-time", N), ("Six-time Olympic", P)),
        ("Greg Dyke wants to increase the number.", ("Greg Dyke", P), ("Greg Dyke", OTHER)),
        ("Mark Clattenburg will officiate the match.", ("Mark Clattenburg", P), ("Mark Clattenburg", OTHER)),
        ("The Russian Pilot's actions were unsafe.", ("Russian", NAT), ("Russian", OTHER)),
        ("In the last round the Dutchman passed the car.", ("Dutchman", NAT), ("Dutchman", OTHER)),
        ("Antonio Inoki, current Japanese Lawmaker, asked.", ("Japanese", NAT), ("Japanese Lawmaker", OTHER)),
        # a plural verb makes a team only in a text about sport, never after "and"; a full name is no club
        ("Researchers in Tokyo are looking into it.", ("Tokyo", PL), ("Tokyo", ORG)),
        (
            "Paul Merson and Andros Townsend have restarted their banter in the league.",
            ("Andros Townsend", P),
            ("Andros Townsend", ORG),
        ),
        (
            "Chelsea have made an offer for Yoshinori Muto. Muto scored a goal.",
            ("Yoshinori Muto", P),
            ("Yoshinori Muto", ORG),
        ),
        # "St. Louis" is a place; "10th-minute" a number; connectors in a chain; no person runs on with "of"
        ("Becky Schoenig of St. Louis, Missouri was shocked.", ("Louis", PL), ("Louis", P)),
        ("Ross Barkley had earlier missed a 10th-minute penalty.", ("10th-minute", N), ("10th-minute", T)),
        ("Gregory van der Wiel does not want to leave PSG.", ("Gregory van der Wiel", P), ("Wiel", OTHER)),
        (
            "Hillary Scott of Lady Antebellum spoke.",
            ("Hillary Scott", P),
            ("Hillary Scott of Lady Antebellum", P),
        ),
        ("They play Holland and Ireland next.", ("Holland", PL), ("Holland", P)),
        (
            "He will race at London's Olympic Velodrome in front of fans.",
            ("Olympic Velodrome", PL),
            ("Olympic Velodrome", P),
        ),
        # WMT: an office stays whole; an article before a lone first name; Romance articles of places; firms
        (
            "Lauterbach said: I will speak with the Minister of Justice to implement this.",
            ("Lauterbach", OTHER),
            ("Justice", P),
        ),
        (
            "Lauterbach said: to have a Corona vaccination has also increased.",
            ("Lauterbach", OTHER),
            ("Corona", P),
        ),
        ("A volcanic eruption on La Palma: probably the longest in history.", ("La Palma", PL), ("Palma", P)),
        (
            "Even the real estate company Deutsche Euroshop fell.",
            ("Deutsche Euroshop", ORG),
            ("Deutsche Euroshop", P),
        ),
        ("He won at the 2007 World Championship in Ferrari.", ("Ferrari", ORG), ("Ferrari", P)),
        ("We have the book Terra, but I am not sure.", ("Terra", OTHER), ("Terra", P)),
        (
            "Those who work in shipping for DHL know: of course Corona isn’t stopping.",
            ("DHL", ACR),
            ("Corona", P),
        ),
        (
            "Christmas and Gifts Christmas is just in front of the door.",
            ("Christmas", HOL),
            ("Gifts Christmas", OTHER),
        ),
        (
            "It swam in Mexico. New Zealander Tim Weston was on holiday.",
            ("New Zealander", NAT),
            ("Zealander Tim Weston", P),
        ),
        ("“Because the EU threw their market power around,” he said.", ("EU", PL), ("Because the EU", OTHER)),
    ],
)
def test_review3_types(text: str, expected: tuple[str, EntityType], absent: tuple[str, EntityType]) -> None:
    found = _found(text)
    assert expected in found, found
    assert absent not in found, found


@pytest.mark.parametrize(
    "word",
    [
        "stateroom",
        "cockfighting",
        "thankfulness",
        "feckless",
        "testable",
        "confiscation",
        "remuneration",
        "geological",
        "drumstick",
    ],
)
def test_ordinary_words_of_cased_prose_are_no_terms(word: str) -> None:
    assert classify_span(word) is not T
    assert (word, T) not in _found(f"They spoke of the {word} at length.")


@pytest.mark.parametrize("word", ["gefitinib", "imatinib", "staphylococcus"])
def test_technical_words_of_cased_prose_stay_terms(word: str) -> None:
    assert (word, T) in _found(f"They spoke of the {word} at length.")


#: issue 19: ordinary words the last build took for terms, in cased and in lower-cased text
_ISSUE19_WORDS = [
    "incentivised",
    "molting",
    "crossers",
    "tonify",
    "processer",
    "polecat",
    "calmed",
    "clamed",
    "reproducibility",
    "ecological",
    "profitability",
    "heterosexuality",
    "kinesthetic",
    "embrittlement",
    "diagnosis",
    "routine",
    "lysed",
    "biocontrol",
    "offline",  # read in the offline-rules/5 build: "many offline and online training agencies"
    "mrna",
    "spp",
    "3-d",
]


@pytest.mark.parametrize("word", _ISSUE19_WORDS)
def test_words_of_the_general_vocabulary_are_no_terms_in_any_case(word: str) -> None:
    assert (word, T) not in _found(f"They spoke of the {word} at length.")
    assert (word, T) not in _found(f"the results show poor {word} in all samples . we tested it .")


@pytest.mark.parametrize(
    "word", ["glycines", "imatinib", "glycine", "staphylococcus", "brca1", "il-6", "btb"]
)
def test_domain_terms_are_known_positively_in_lower_cased_text(word: str) -> None:
    assert (word, T) in _found(f"the results show poor {word} in all samples . we tested it .")


@pytest.mark.parametrize(
    ("text", "absent"),
    [
        ("Arsenal won. Midfielder has been out for more than a year.", "Midfielder"),
        ("She loves TV, film and fashion.", "TV"),
        ('I read "On the Spirit of Arts" twice.', "On the Spirit of Arts"),
        ("On the Spirit of Arts is a book.", "Spirit of Arts"),
    ],
)
def test_capitalised_ordinary_words_are_no_names(text: str, absent: str) -> None:
    assert absent not in dict(_found(text))


def test_a_club_is_an_organisation_in_a_contest() -> None:
    found = dict(_found("Wenger said the game was hard. Ahead of their clash vs Chelsea, he was calm."))
    assert found.get("Chelsea") is ORG


def test_names_at_a_sentence_start_stay_names() -> None:
    assert dict(_found("Gaddafi was popular at school.")).get("Gaddafi") is OTHER
    assert dict(_found("Arsene Wenger spoke. Wenger said it.")).get("Wenger") is P


def test_art_deco_is_no_person() -> None:
    assert classify_name("Art Deco") is not P


@pytest.mark.parametrize(("name", "kind"), [("Gong Bowei", P), ("Wang Cheng", P), ("Greg Dyke", P)])
def test_review3_people_whose_second_word_no_list_has(name: str, kind: EntityType) -> None:
    # WMT zh-en: "Gong Bowei" -> "Gong Seala" (typed other, half replaced)
    assert classify_name(name) is kind


def test_review3_an_adjective_of_a_name_is_no_surname() -> None:
    # WMT zh-en: "German Neo Kantian ethics" -> "German Faelan Thornbury ethics"
    assert classify_name("Neo Kantian") is not P


def test_lowercased_text_names_countries_and_regions() -> None:
    # SumPubMed names places in lower case ("west central africa", "new zealand"); never "guinea pig", "turkey"
    text = "populations in west central africa were exposed . samples from new zealand were analysed . a guinea pig from turkey ."
    found = _found(text)
    assert ("africa", PL) in found and ("new zealand", PL) in found, found
    assert not {t for t, k in found if k is PL} & {"guinea", "turkey"}, found
    assert classify_span("valdoria", "", True) is PL


@pytest.mark.parametrize(
    "text",
    [
        "Hillary Scott of Lady Antebellum's Tour Bus caught on fire.",
        "He stumbled during Changing of the Guard today.",
        "Lauterbach added that the Health Ministers’ Conference would act.",
    ],
)
def test_review3_capitalised_ordinary_words_are_no_name(text: str) -> None:
    # review: "Tour Bus" -> "Bumo Bus", "Changing of the Guard" -> "Dalgaisi of the Guard",
    # "Health Ministers" -> "Tesmai Ministers"
    found = _found(text)
    assert not [
        t for t, k in found if k is OTHER and " " in t and t.split()[-1] in {"Bus", "Guard", "Ministers"}
    ], found


# the hand read of the offline-rules/5 build: a prefixed general word, a range, an abbreviation of a name,
# a brand named like a person and a bracketed gloss


@pytest.mark.parametrize(("word", "term"), [("multigene", False), ("nonprotein", False), ("imatinib", True)])
def test_a_prefixed_general_word_is_no_domain_term(word: str, term: bool) -> None:
    assert ((word, T) in _found(f"here we use a {word} matrix for all samples . we tested it .")) is term


def test_a_range_is_reversed_only_out_of_order() -> None:
    text = "It existed between 1958 and 1961, from 5 to 10 years."
    start = text.index("1958")
    assert not breaks_range(text, start, start + 4, "1943")
    assert breaks_range(text, start, start + 4, "1973")
    assert breaks_range(text, text.index("10 years"), text.index(" years"), "3")
    bc = "Tools dating to between 10,000 and 6,000 BC were found."  # a falling range stays falling
    assert breaks_range(bc, bc.index("6,000"), bc.index(" BC"), "12,000")
    assert not breaks_range(bc, bc.index("6,000"), bc.index(" BC"), "4,000")


@pytest.mark.parametrize(
    ("text", "old", "new", "breaks"),
    [
        ("Replays were played three or four days later.", "three", "nine", True),
        ("Replays were played three or four days later.", "three", "two", False),
        ("A master can teach 2 to 5 apprentices.", "2", "7", True),
        ("It took hundreds or thousands of movies.", "hundreds", "millions", True),
        ("It took hundreds or thousands of movies.", "hundreds", "dozens", False),
        ("The HK series has one, two or four outlets.", "two", "twelve", True),
        ("He chose one of two options.", "two", "forty", False),  # no range
    ],
)
def test_a_range_of_number_words_keeps_its_direction(text: str, old: str, new: str, breaks: bool) -> None:
    start = text.index(old)
    assert breaks_range(text, start, start + len(old), new) is breaks


def test_an_abbreviation_and_the_name_it_spells_are_no_entities_apart() -> None:
    found = dict(_found("The Version 2 (V2) update of the Bank of England (BoE) came out in Berlin."))
    assert {"V2", "2", "BoE", "Bank of England"}.isdisjoint(found) and found.get("Berlin") is PL


def test_a_brand_named_like_a_person_is_an_organisation() -> None:
    assert (
        dict(_found("It was a violation from Max Verstappen of Red Bull in the last phase.")).get("Red Bull")
        is ORG
    )


def test_a_date_of_three_numbers_is_no_number() -> None:
    assert [t for t, _ in _found("The weapons visited Guam on 2022-01-17 in a rare move.")] == ["Guam"]


@pytest.mark.parametrize("gloss", ["Cliff", "Zigzag"])
def test_a_bracketed_gloss_of_unsure_type_is_no_name(gloss: str) -> None:
    found = dict(_found(f"[{gloss}] means collective evacuation in Beijing."))
    assert gloss not in found and found.get("Beijing") is PL


# read in the offline-rules/8 build (WMT22 de-en, SummEval): an office of several words before a person,
# a plural acronym and ordinary words joined by a hyphen


@pytest.mark.parametrize(
    ("text", "wanted", "unwanted"),
    [
        ("The Federal Health Minister Karl Lauterbach (SPD) added that.", ("Karl Lauterbach", P),
         "Federal Health Minister Karl Lauterbach"),
        ("Foreign Minister Annalena Baerbock met him in Berlin.", ("Annalena Baerbock", P),
         "Foreign Minister Annalena Baerbock"),
        ("He asked whether aliens in UFOs had visited Japan.", ("Japan", PL), "UFOs"),
        ("The lawmaker and former Pro-wrestler asked in Japan.", ("Japan", PL), "Pro-wrestler"),
    ],
)  # fmt: skip
def test_an_office_a_plural_acronym_and_joined_ordinary_words_are_no_names(
    text: str, wanted: tuple[str, EntityType], unwanted: str
) -> None:
    found = _found(text)
    assert wanted in found and unwanted not in {t for t, _ in found}, found


# offline-rules/8, read: SumPubMed's class nouns became made-up words ("single nucleotide polymorphisms" ->
# "single thiozelide polymorphisms", "entire transcriptome" -> "entire stunsaifelome"; kinase, ribosome,
# macrophages, cytokines, astrocytes, protease); a formula and an ordinal range were garbled ("ca2+-ions" ->
# "hs0+-ions", "18th-19th century" -> "18ft-26kk century")
@pytest.mark.parametrize(
    "word",
    [
        "kinase",
        "nucleotide",
        "ribosome",
        "transcriptome",
        "macrophages",
        "cytokines",
        "astrocytes",
        "protease",
        "apoptosis",
        "peptides",
    ],
)
def test_a_class_noun_of_the_field_is_no_domain_term(word: str) -> None:
    from dhp.builder.perturb import lexicon

    assert not lexicon.is_domain_word(word)
    assert not lexicon.find_entities(f"the {word} was studied in <dig> patients .")


def test_an_ion_and_an_ordinal_range_are_no_terms() -> None:
    from dhp.builder.perturb import lexicon

    text = "in the 18th-19th century , ca2+-ions and il-6 rose ."
    assert [s.text for s in lexicon.find_entities(text)] == ["il-6"]
