"""The benchmark spec held to SPEC.md §2-§3."""

from __future__ import annotations

import json
from typing import Any

import pytest

from dhp.errors import SpecError
from dhp.records import from_data, problem, to_data
from dhp.spec import BENCHMARK, DATASET_NAMES, get_dataset, resolve_datasets
from dhp.types import DatasetSpec, Level, Method, Operation, Redistribution, Severity, row_columns


def _ids(name: str) -> list[str]:
    return list(get_dataset(name).perturbation_ids)


def test_six_datasets_with_hub_repos() -> None:
    assert DATASET_NAMES == (
        "summeval",
        "sumpubmed",
        "story-cloze",
        "answer-equivalence",
        "wmt22-de-en",
        "wmt22-zh-en",
    )
    for name, spec in BENCHMARK.items():
        assert spec.hub_repo == f"dhp/{name}"
        assert spec.selection.n_items == 100


@pytest.mark.parametrize(
    ("name", "total", "per_level"),
    [
        ("summeval", 12, {"C": 4, "W": 4, "S": 4}),
        ("sumpubmed", 12, {"C": 4, "W": 4, "S": 4}),
        ("story-cloze", 6, {"C": 2, "W": 2, "S": 2}),
        ("answer-equivalence", 9, {"C": 4, "W": 4, "S": 1}),
        ("wmt22-de-en", 10, {"C": 4, "W": 6}),
        ("wmt22-zh-en", 10, {"C": 4, "W": 6}),
    ],
)
def test_perturbation_counts(name: str, total: int, per_level: dict[str, int]) -> None:
    spec = get_dataset(name)
    assert len(spec.perturbations) == total
    counts: dict[str, int] = {}
    for p in spec.perturbations:
        counts[p.level.value] = counts.get(p.level.value, 0) + 1
    assert counts == per_level


@pytest.mark.parametrize(
    ("name", "minor", "major"),
    [
        ("summeval", 10, 50),
        ("sumpubmed", 20, 100),
        ("answer-equivalence", 5, 25),
        ("wmt22-de-en", 10, 50),
        ("wmt22-zh-en", 10, 50),
    ],
)
def test_character_k_values(name: str, minor: int, major: int) -> None:
    spec = get_dataset(name)
    for op in ("deletion", "typo"):
        assert spec.perturbation(f"char_{op}_minor").k == minor
        assert spec.perturbation(f"char_{op}_major").k == major
        assert spec.perturbation(f"char_{op}_minor").method is Method.RULE


def test_story_cloze_single_severity() -> None:
    spec = get_dataset("story-cloze")
    assert {p.severity for p in spec.perturbations} == {Severity.SINGLE}
    assert spec.perturbation("char_deletion").k == 5
    assert spec.perturbation("char_typo").k == 5
    assert spec.perturbation("sent_random_ending").operation is Operation.OTHER_ITEM
    assert spec.perturbation("sent_wrong_ending").operation is Operation.WRONG_ENDING
    assert spec.perturbation("word_fictional_ne").method is Method.LLM


def test_wmt_word_deletion_and_llm_rows() -> None:
    for name in ("wmt22-de-en", "wmt22-zh-en"):
        spec = get_dataset(name)
        assert spec.perturbation("word_deletion_minor").k == 5
        assert spec.perturbation("word_deletion_major").k == 25
        assert spec.perturbation("word_deletion_minor").level is Level.WORD
        assert spec.perturbation("word_grammar_major").method is Method.LLM
        assert spec.metric_names == ("accuracy", "fluency")


def test_summary_sentence_level() -> None:
    for name in ("summeval", "sumpubmed"):
        spec = get_dataset(name)
        assert spec.perturbation("sent_reorder_minor").k == 2
        assert spec.perturbation("sent_reorder_major").k is None  # all sentences
        assert spec.perturbation("sent_rewrite_insert_major").method is Method.LLM
        assert spec.metric_names == ("coherence", "consistency", "fluency", "relevance")


def test_metrics_per_task() -> None:
    assert get_dataset("story-cloze").metric_names == ("coherence", "consistency", "fluency")
    assert get_dataset("answer-equivalence").metric_names == ("answer_quality",)


def test_weights_cover_every_perturbation_with_reasons() -> None:
    for spec in BENCHMARK.values():
        assert set(spec.weights.entries) == set(spec.perturbation_ids)
        for pid, entry in spec.weights.entries.items():
            assert abs(sum(entry.weights.values()) - 1) < 1e-9, pid
            assert len(entry.reason) > 20, pid
            assert set(entry.weights) <= set(spec.metric_names)


def test_licences_and_redistribution() -> None:
    assert get_dataset("summeval").source.licence == "mit"
    assert get_dataset("answer-equivalence").source.licence == "apache-2.0"
    assert get_dataset("story-cloze").source.redistribution is Redistribution.RESTRICTED
    for spec in BENCHMARK.values():
        assert spec.source.terms and spec.source.citation.startswith("@")


def test_paper_stats_from_spec_md() -> None:
    ps = get_dataset("wmt22-de-en").paper_stats
    assert ps is not None and (ps.chars, ps.words, ps.sentences) == (436.8, 71.0, 3.8)


def test_round_trip_through_plain_data() -> None:
    for spec in BENCHMARK.values():
        data = json.loads(json.dumps(to_data(spec)))
        again = from_data(DatasetSpec, data)
        assert again == spec and to_data(again) == to_data(spec)


def _declaration() -> dict[str, Any]:
    """A minimal dataset declaration as plain data (what a task file becomes, dhp.task.file)."""
    return {
        "name": "my-task",
        "pretty_name": "My task",
        "task": "custom",
        "source": {
            "name": "mine",
            "citation": "",
            "homepage": "",
            "licence": "unknown",
            "redistribution": "restricted",
            "terms": "mine",
        },
        "selection": {"rule": "all"},
        "judged_field": "text",
        "judged_label": "Text",
        "context_fields": [],
        "metrics": [
            {"name": "helpfulness", "label": "Helpfulness", "definition": "How helpful the reply is."}
        ],
        "perturbations": [
            {
                "id": "char_typo_minor",
                "level": "C",
                "method": "rule",
                "operation": "char_typo",
                "severity": "minor",
                "k": 3,
                "description": "Three typos.",
            }
        ],
        "weights": {"entries": {"char_typo_minor": {"weights": {"helpfulness": 1.0}}}},
    }


def test_user_declared_dataset() -> None:
    spec = from_data(DatasetSpec, _declaration())
    assert spec.hub_repo == "dhp/my-task"  # the field's default, spelled once
    assert spec.selection.n_items == 100 and spec.weights.source == "default"
    assert row_columns(spec)[:2] == ("id", "original")


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d["weights"]["entries"]["char_typo_minor"]["weights"].update(helpfulness=0.5), "sum to 1"),
        (lambda d: d["weights"]["entries"]["char_typo_minor"]["weights"].update(bogus=0.0), "unknown metric"),
        (lambda d: d["perturbations"][0].update(level="X"), "at perturbations.0.level"),
        (lambda d: d["perturbations"][0].update(id="Bad Id"), "perturbation id 'Bad Id' must match"),
        (lambda d: d.pop("metrics"), "at metrics: Field required"),
        (lambda d: d["weights"]["entries"].clear(), "missing weights"),
    ],
)
def test_bad_declarations_name_the_problem(mutate, message: str) -> None:  # type: ignore[no-untyped-def]
    decl = _declaration()
    mutate(decl)
    with pytest.raises(ValueError) as e:
        from_data(DatasetSpec, decl)
    assert message in problem(e.value)


def test_resolve_and_unknown_names() -> None:
    assert [d.name for d in resolve_datasets("all")] == list(DATASET_NAMES)
    assert [d.name for d in resolve_datasets("wmt22-zh-en, summeval")] == ["wmt22-zh-en", "summeval"]
    with pytest.raises(SpecError, match="valid: summeval"):
        resolve_datasets("summeval,nope")
    with pytest.raises(SpecError, match="valid: char_deletion_minor"):
        get_dataset("summeval").perturbation("nope")
