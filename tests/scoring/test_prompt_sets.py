"""Prompt sets: neutral wording (no perturbation named), every set complete, cue and folder sets."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import pytest

from dhp.scoring.prompts import (
    DEFAULT_CUE,
    PROMPT_SETS,
    PromptError,
    load_template,
    render_context,
    resolve_prompt_set,
)
from dhp.spec import BENCHMARK, get_dataset

#: Words that describe what the perturbations do (issue 10), beyond those derived from the catalogue.
CUE_WORDS = (
    "fictional", "invented", "entity", "name", "typo", "agreement", "tense", "preposition", "shuffle", "reorder",
    "insert", "delete", "misspell", "letter", "place", "number", "unknown", "swap", "duplicate", "rewrite",
    "rephrase", "replace", "wrong", "random", "person",
)  # fmt: skip
#: Description words that say nothing about a perturbation (function words, counts, bookkeeping).
NEUTRAL = {
    "a", "add", "after", "all", "an", "and", "another", "at", "dataset", "each", "error", "for", "in", "into", "it",
    "its", "more", "of", "one", "or", "original", "package", "position", "reference", "right", "several", "the",
    "this", "to", "two", "with", "words",
}  # fmt: skip


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]+", text.lower()))


def _forms(word: str) -> set[str]:
    """A word and its crude stems (plural, -ed, -ing, -ion, -e), so 'names' meets 'named'."""
    forms = {word}
    for _ in range(2):
        for w in list(forms):
            for suffix in ("ies", "es", "s", "ed", "d", "ing", "ion", "e", "al", "ical"):
                if w.endswith(suffix) and len(w) - len(suffix) >= 3:
                    forms.add(w[: -len(suffix)])
    return forms


def cue_words() -> set[str]:
    """The catalogue's description words that no metric definition or label uses, plus CUE_WORDS."""
    described: set[str] = set()
    vocabulary: set[str] = set()
    for spec in BENCHMARK.values():
        for p in spec.perturbations:
            described |= _words(p.description)
        for m in spec.metrics:
            vocabulary |= _words(f"{m.label} {m.definition}")
        vocabulary |= _words(" ".join([spec.judged_label, *(c.label for c in spec.context_fields)]))
    return (described - vocabulary - NEUTRAL) | set(CUE_WORDS)


def _template_files() -> list[tuple[str, str, str]]:
    root = resources.files("dhp.scoring").joinpath("prompts")
    out = []
    for pset in PROMPT_SETS:
        for f in root.joinpath(pset).iterdir():
            if f.name.endswith(".txt"):
                out.append((pset, f.name, f.read_text(encoding="utf-8")))
    return out


def test_cue_words_cover_the_catalogue() -> None:
    cues = cue_words()
    for expected in (
        "fictional",
        "typographical",
        "shuffle",
        "swap",
        "rephrase",
        "consecutive",
        "named",
        "delete",
    ):
        assert expected in cues
    assert "coherence" not in cues and "sentences" not in cues  # metric vocabulary is not a cue


@pytest.mark.parametrize(("pset", "name", "text"), _template_files(), ids=lambda v: str(v)[:40])
def test_no_template_names_what_the_perturbations_do(pset: str, name: str, text: str) -> None:
    own = re.sub(r"\$\{[a-z_]+\}", " ", text)  # the definition and labels are substituted, not written here
    cue_forms = {f: c for c in cue_words() for f in _forms(c)}
    hits = sorted({f"{w}~{cue_forms[f]}" for w in _words(own) for f in _forms(w) if f in cue_forms})
    assert not hits, f"{pset}/{name} names perturbations: {hits}"


def test_the_check_catches_the_old_wording() -> None:
    old = (
        "3. Check Grammar: Look for agreement, tense and preposition errors. Look for names, places, numbers."
    )
    cue_forms = {f for c in cue_words() for f in _forms(c)}
    assert {w for w in _words(old) if _forms(w) & cue_forms} >= {"agreement", "tense", "names", "places"}


@pytest.mark.parametrize("pset", PROMPT_SETS)
def test_every_set_has_every_benchmark_template(pset: str) -> None:
    for spec in BENCHMARK.values():
        block = render_context(spec, {c.name: f"the {c.name} text" for c in spec.context_fields})
        for m in spec.metrics:
            t = load_template(spec, m.name, prompt_set=pset)
            prompt = t.render("THE JUDGED TEXT", block)
            assert t.prompt_set == pset and prompt.count("THE JUDGED TEXT") == 1
            assert f"{m.label} ({m.scale_min}-{m.scale_max}) - {m.definition[:1].upper()}" in prompt
            assert prompt.rstrip().endswith(f"just give a score ONLY) - {m.label}:")
            assert f"{spec.judged_label}:\n\nTHE JUDGED TEXT" in prompt
            has_steps, has_rubric = "Evaluation Steps:" in prompt, "Scoring Rubric:" in prompt
            assert (has_steps, has_rubric) == {"default": (True, False), "minimal": (False, False),
                                               "rubric": (False, True)}[pset]  # fmt: skip
            if pset == "rubric":
                assert all(f"Score {k}: " in prompt for k in range(m.scale_min, m.scale_max + 1))


def test_sets_differ_and_hashes_tell_them_apart() -> None:
    spec = get_dataset("summeval")
    hashes = {load_template(spec, "fluency", prompt_set=s).hash for s in PROMPT_SETS}
    assert len(hashes) == len(PROMPT_SETS)


def test_cue_follows_the_judged_text_and_changes_the_hash() -> None:
    spec = get_dataset("summeval")
    plain = load_template(spec, "coherence")
    cued = load_template(spec, "coherence", cue=DEFAULT_CUE)
    assert cued.hash != plain.hash and cued.cue == DEFAULT_CUE
    out = cued.render("THE SUMMARY", "")
    assert f"Summary:\n\nTHE SUMMARY\n\n{DEFAULT_CUE}\n\nEvaluation Score" in out
    dollar = load_template(spec, "coherence", cue="Rated $5 by ${someone}.").render("T", "")
    assert "T\n\nRated $5 by ${someone}." in dollar
    with pytest.raises(PromptError, match="empty"):
        load_template(spec, "coherence", cue="  ")


def test_folder_sets_and_unknown_names(tmp_path: Path) -> None:
    spec = get_dataset("answer-equivalence")
    with pytest.raises(PromptError, match="neither one of default, minimal, rubric"):
        resolve_prompt_set("fancy")
    clash = tmp_path / "rubric"
    clash.mkdir()
    with pytest.raises(PromptError, match="packaged set"):
        resolve_prompt_set(str(clash))
    mine = tmp_path / "terse"
    mine.mkdir()
    with pytest.raises(PromptError, match="no prompt template in set 'terse'"):
        load_template(spec, "answer_quality", prompt_set=str(mine))
    (mine / "question_answering.answer_quality.txt").write_text(
        "Rate ${metric_label}.\n${context}${text}\nScore:"
    )
    t = load_template(spec, "answer_quality", prompt_set=str(mine))
    assert t.prompt_set == "terse" and t.render("A", "Q\n") == "Rate Answer Quality.\nQ\nA\nScore:"


def test_answer_quality_does_not_mention_a_paragraph_the_judge_may_not_see() -> None:
    spec = get_dataset("answer-equivalence")
    assert "paragraph" not in spec.metric("answer_quality").definition.lower()
    for pset in PROMPT_SETS:
        prompt = load_template(spec, "answer_quality", prompt_set=pset).render(
            "A", render_context(spec, {"question": "Q?"})
        )
        assert "paragraph" not in prompt.lower()


def test_score_refuses_an_unknown_prompt_set_and_an_empty_cue(tmp_path: Path) -> None:
    from tests.scoring.helpers import run_dhp

    proc = run_dhp(
        "score",
        "--judge",
        "random",
        "--data",
        str(tmp_path),
        "--datasets",
        "answer-equivalence",  # named: "all" on a folder holding no dataset is refused before the prompt set
        "--out",
        str(tmp_path / "o"),
        "--prompt-set",
        "fancy",
    )
    assert proc.returncode == 2 and "prompt set 'fancy'" in proc.stderr
    proc = run_dhp(
        "score", "--judge", "random", "--data", str(tmp_path), "--out", str(tmp_path / "o"), "--cue", " "
    )
    assert proc.returncode == 2 and "--cue TEXT must not be empty" in proc.stderr
