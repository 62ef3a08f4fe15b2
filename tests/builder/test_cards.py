"""Dataset cards and the Hub layout, checked with the real `datasets` and `huggingface_hub` libraries."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from huggingface_hub import DatasetCard, DatasetCardData

from dhp.builder.build import BuildReport
from dhp.spec import BENCHMARK, DATASET_NAMES
from dhp.types import Operation


def _meta(folder: Path) -> dict[str, object]:
    text = (folder / "README.md").read_text(encoding="utf-8")
    assert text.startswith("---\n")
    meta = yaml.safe_load(text.split("---\n")[1])
    assert isinstance(meta, dict)
    return meta


@pytest.mark.parametrize("name", DATASET_NAMES)
def test_card_metadata_is_complete(built: dict[str, BuildReport], name: str) -> None:
    spec = BENCHMARK[name]
    folder = built[name].folder
    card = DatasetCard.load(folder / "README.md")
    data = card.data
    assert isinstance(data, DatasetCardData)
    assert data.pretty_name == spec.pretty_name
    assert data.license == spec.source.licence
    assert data.task_categories and data.size_categories and data.source_datasets and data.language
    configs = {c["config_name"] for c in data["configs"]}  # extra metadata keys: item access is typed
    # one config per perturbation with rows (offline-rules/15 writes no major rewriting row: issue 36)
    with_rows = {p.id for p in built[name].info.perturbations if p.rows}
    assert configs == {"default", *with_rows} and with_rows <= set(spec.perturbation_ids)
    n_rows = built[name].n_rows
    default_info = next(d for d in data["dataset_info"] if d["config_name"] == "default")
    assert default_info["splits"][0]["num_examples"] == n_rows
    meta = _meta(folder)
    assert meta["dhp"]["dataset_version"] == "v1.0.0"  # type: ignore[index]


@pytest.mark.parametrize("name", DATASET_NAMES)
def test_card_body_sections(built: dict[str, BuildReport], name: str) -> None:
    spec = BENCHMARK[name]
    r = built[name]
    text = (r.folder / "README.md").read_text(encoding="utf-8")
    for section in (
        "## Dataset Details",
        "## Uses",
        "## Dataset Structure",
        "### Perturbations",
        "## Dataset Creation",
        "### Versioning and provenance",
        "## Bias, Risks, and Limitations",
        "## Licensing and Terms",
        "## Citation",
    ):
        assert section in text, section
    for p in spec.perturbations:
        assert f"| `{p.id}` |" in text
    stats = r.info.statistics
    assert stats.paper is not None
    assert f"| this build | {stats.ours.chars} |" in text
    assert f"| paper | {stats.paper.chars} |" in text
    assert "pysbd" in text
    assert (
        spec.source.terms in text and "wang2024dhp" in text and spec.source.citation.splitlines()[0] in text
    )
    assert "**No LLM was used for this build.**" in text
    for f in r.info.source.files[:8]:
        assert f.sha256 in text
    assert f'load_dataset("dhp/{name}"' in text


def test_restricted_and_partial_cards_say_so(built: dict[str, BuildReport]) -> None:
    story = (built["story-cloze"].folder / "README.md").read_text()
    assert "Redistribution of this source is restricted" in story and "--confirm-restricted" in story
    ae = (built["answer-equivalence"].folder / "README.md").read_text()
    assert "Only 62 items of this source copy pass" in ae and "--allow-fewer" in ae
    assert "no context paragraphs" in ae
    summeval = (built["summeval"].folder / "README.md").read_text()
    assert "restricted" not in summeval.lower().split("## licensing")[1]


def test_load_dataset_offline(
    built: dict[str, BuildReport], built_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from datasets import load_dataset

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    folder = str(built_root / "summeval")
    all_pairs = load_dataset(folder, split="test", cache_dir=str(tmp_path))
    assert all_pairs.num_rows == built["summeval"].n_rows
    assert all_pairs.column_names[:2] == ["id", "article"]
    typos = load_dataset(folder, "char_typo_minor", split="test", cache_dir=str(tmp_path))
    assert typos.num_rows == 100 and set(typos["perturbation"]) == {"char_typo_minor"}
    assert all(o != p for o, p in zip(typos["original"], typos["perturbed"], strict=True))


@pytest.mark.parametrize("name", DATASET_NAMES)
def test_cards_of_machine_made_rows_say_whose_validator_and_no_foreign_operation(
    built: dict[str, BuildReport], name: str
) -> None:
    # issue 19: "expert-generated" for machine-made perturbations; rewriting described where there is none;
    # a pass rate that reads as a quality claim
    r = built[name]
    text = (r.folder / "README.md").read_text(encoding="utf-8")
    assert _meta(r.folder)["annotations_creators"] == ["machine-generated"]
    rewriting = any(p.operation is Operation.REWRITE_INSERT for p in BENCHMARK[name].perturbations)
    assert ("rewrit" in text.lower()) is rewriting
    assert "the generator's own validator" in text and "not a human review" in text
    assert "limit of the generator, not" in text


def test_cards_record_applicable_items_next_to_coverage(built: dict[str, BuildReport]) -> None:
    r = built["summeval"]
    text = (r.folder / "README.md").read_text(encoding="utf-8")
    p = r.info.perturbation("word_fictional_ne_minor")
    assert p.applicable is not None and p.rows <= p.applicable <= p.n_items
    assert f"| {p.applicable} ({100 * p.applicable_coverage:.1f}% covered) |" in text
    grammar = r.info.perturbation("word_grammar_minor")
    assert grammar.applicable is None


def test_a_perturbation_left_out_by_the_few_pairs_rule_is_named_on_the_card(
    built: dict[str, BuildReport],
) -> None:
    """The card names, with its count, every perturbation that has rows but fewer than the few-pairs
    rule's MIN_PAIRS (issue 35): scoring leaves exactly those out of D_avg, D_min and qualified."""
    from dhp.spec import MIN_PAIRS

    for name, r in built.items():
        text = (r.folder / "README.md").read_text(encoding="utf-8")
        few = [p for p in r.info.perturbations if 0 < p.rows < MIN_PAIRS]
        assert (f"Fewer than {MIN_PAIRS} pairs, left out of D" in text) == bool(few), name
        for p in few:
            assert f"`{p.id}` ({p.rows} pairs)" in text, (name, p.id)
    # the offline rewriting inserts rephrasings people wrote, where the sources hold one: few pairs
    assert any(0 < p.rows < MIN_PAIRS for p in built["summeval"].info.perturbations)
