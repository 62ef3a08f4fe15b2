from __future__ import annotations

import json
from pathlib import Path

import pytest

from dhp.errors import SpecError
from dhp.spec import get_dataset
from dhp.weights import apply_weights, load_weights, weights_from_votes


def test_yaml_file_overrides_some_rows(tmp_path: Path) -> None:
    f = tmp_path / "w.yaml"
    f.write_text("summeval:\n  char_typo_minor: {fluency: 0.5, coherence: 0.5}\n", encoding="utf-8")
    w = load_weights(f)
    assert dict(w["summeval"].for_perturbation("char_typo_minor")) == {"fluency": 0.5, "coherence": 0.5}
    # untouched rows keep their defaults
    default = get_dataset("summeval").weights.for_perturbation("sent_reorder_minor")
    assert w["summeval"].for_perturbation("sent_reorder_minor") == default
    specs = apply_weights(w)
    assert specs["summeval"].weights.source == str(f)
    assert specs["wmt22-de-en"].weights.source == "default"


def test_json_file_with_reasons_and_votes(tmp_path: Path) -> None:
    f = tmp_path / "w.json"
    f.write_text(
        json.dumps(
            {
                "wmt22-de-en": {
                    "word_grammar_minor": {
                        "weights": {"fluency": 0.7, "accuracy": 0.3},
                        "reason": "survey",
                        "votes": {"fluency": 7, "accuracy": 3},
                    }
                }
            }
        ),
        encoding="utf-8",
    )
    e = load_weights(f)["wmt22-de-en"].entries["word_grammar_minor"]
    assert e.reason == "survey" and e.votes == {"fluency": 7, "accuracy": 3}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("nope:\n  x: {}\n", "unknown dataset 'nope'"),
        ("summeval:\n  char_nope: {fluency: 1}\n", r"summeval\.char_nope: unknown perturbation"),
        (
            "summeval:\n  char_typo_minor: {fluency: 0.5, accuracy: 0.5}\n",
            r"char_typo_minor\.accuracy: unknown metric",
        ),
        (
            "summeval:\n  char_typo_minor: {fluency: 1.5, coherence: -0.5}\n",
            r"char_typo_minor\.coherence: weight must be",
        ),
        ("summeval:\n  char_typo_minor: {fluency: 0.6}\n", "char_typo_minor: weights must sum to 1"),
        ("- a\n- b\n", "top level must be a mapping"),
        ("summeval: [1, 2\n", "not valid YAML"),
    ],
)
def test_bad_files_name_the_entry(tmp_path: Path, content: str, message: str) -> None:
    f = tmp_path / "w.yaml"
    f.write_text(content, encoding="utf-8")
    with pytest.raises(SpecError, match=message):
        load_weights(f)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="does not exist"):
        load_weights(tmp_path / "absent.json")


def test_votes_to_weights() -> None:
    # the paper's example: votes 4, 1, 5 -> EW [0.4, 0.1, 0.5]
    w = weights_from_votes(
        {"coherence": 4, "consistency": 1, "fluency": 5}, ("coherence", "consistency", "fluency")
    )
    assert w == {"coherence": 0.4, "consistency": 0.1, "fluency": 0.5}
    with pytest.raises(SpecError, match="unknown metric"):
        weights_from_votes({"x": 1}, ("coherence",))
    with pytest.raises(SpecError, match="no votes"):
        weights_from_votes({}, ("coherence",))
