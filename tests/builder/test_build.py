"""End-to-end builds of the six datasets from the local sources (offline generators)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from dhp.builder.build import BuildOptions, BuildReport, build_dataset
from dhp.builder.perturb.offline import OFFLINE_GENERATOR
from dhp.builder.sources import SourceLocator
from dhp.cli import main
from dhp.data.dataset_io import read_build_info, read_not_applicable, read_pairs
from dhp.errors import BuildError, TooFewItemsError
from dhp.records import to_data
from dhp.spec import BENCHMARK, DATASET_NAMES
from dhp.types import Method, row_columns


def test_all_six_built(built: dict[str, BuildReport]) -> None:
    assert sorted(built) == sorted(DATASET_NAMES)
    for name, r in built.items():
        spec = BENCHMARK[name]
        assert r.n_items == (62 if name == "answer-equivalence" else 100)
        files = sorted(p.stem for p in (r.folder / "data").glob("*.parquet"))
        # a file per perturbation with rows (offline-rules/15 refuses every major rewriting: issue 36)
        assert files == sorted(p.id for p in r.info.perturbations if p.rows)
        assert {p.id for p in r.info.perturbations} == {p.id for p in spec.perturbations}
        assert (r.folder / "README.md").is_file() and (r.folder / "build_info.json").is_file()
        assert not list(r.folder.parent.glob(f".{name}.*"))  # no temporary folders left


@pytest.mark.parametrize("name", DATASET_NAMES)
def test_rows_are_valid_pairs(built: dict[str, BuildReport], name: str) -> None:
    spec = BENCHMARK[name]
    folder = built[name].folder
    rows = read_pairs(folder)
    na = read_not_applicable(folder)
    info = read_build_info(folder)
    assert len(rows) == info.n_rows == built[name].n_rows
    assert len(rows) + len(na) == built[name].n_items * len(spec.perturbations)
    by_id = {p.id: p for p in spec.perturbations}
    seen = set()
    for r in rows:
        assert list(r) == list(row_columns(spec))
        perturbed, pid, settings = r["perturbed"], r["perturbation"], r["generator_settings"]
        assert perturbed is not None and pid is not None and settings is not None
        assert perturbed != r["original"] and perturbed.strip()
        p = by_id[pid]
        assert (r["level"], r["method"], r["severity"]) == (p.level.value, p.method.value, p.severity.value)
        assert r["generator"] == ("rule" if p.method is Method.RULE else OFFLINE_GENERATOR)
        json.loads(settings)
        seen.add((r["perturbation"], r["id"]))
    for rec in na:
        assert (rec.perturbation, rec.id) not in seen and rec.reason
    for pi in info.perturbations:
        assert pi.rows == sum(r["perturbation"] == pi.id for r in rows)
        assert pi.not_applicable == sum(x.perturbation == pi.id for x in na)
        assert pi.failed_validation == sum(
            x.perturbation == pi.id and x.reason.startswith("failed validation: ") for x in na
        )


def test_rule_rows_cover_every_item(built: dict[str, BuildReport]) -> None:
    """Character-level rules and other-item rules apply to every selected item."""
    for r in built.values():
        for p in r.info.perturbations:
            if p.level == "C" or p.operation in ("other_item", "wrong_ending", "word_deletion"):
                assert p.not_applicable == 0, (r.name, p.id)


def test_char_rules_use_spec_k(built: dict[str, BuildReport]) -> None:
    for name, r in built.items():
        spec = BENCHMARK[name]
        for p in spec.perturbations:
            if p.operation.value != "char_deletion":
                continue
            for row in read_pairs(r.folder, [p.id]):
                original, perturbed = row["original"], row["perturbed"]
                assert original is not None and perturbed is not None
                assert sum(c.isalnum() for c in original) - sum(c.isalnum() for c in perturbed) == p.k


def test_story_cloze_wrong_ending_and_context(built: dict[str, BuildReport]) -> None:
    rows = read_pairs(built["story-cloze"].folder, ["sent_wrong_ending", "sent_random_ending"])
    originals = {r["original"] for r in rows}
    for r in rows:
        story, original = r["story"], r["original"]
        assert story is not None and original is not None
        assert len(story) > 2 * len(original)
        if r["perturbation"] == "sent_random_ending":
            assert r["perturbed"] in originals


STAT_TOLERANCE = 0.15


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(
            n,
            marks=pytest.mark.xfail(
                strict=True,
                reason="the offline SumPubMed copy holds pairs 1-600 only; their abstract BACKGROUND sections "
                "are ~25% shorter than the paper's sample of the full 32k set (602.6 vs 803.5 characters)",
            ),
        )
        if n == "sumpubmed"
        else n
        for n in DATASET_NAMES
    ],
)
def test_statistics_within_15_percent_of_paper(built: dict[str, BuildReport], name: str) -> None:
    stats = to_data(built[name].info.statistics)
    for key in ("chars", "words", "sentences"):
        ours, paper = stats["ours"][key], stats["paper"][key]
        assert abs(ours - paper) / paper <= STAT_TOLERANCE, (name, key, ours, paper)


def test_rebuild_is_byte_identical(
    built: dict[str, BuildReport], locator: SourceLocator, tmp_path: Path
) -> None:
    opts = BuildOptions(allow_fewer=True, progress=False)
    for name in ("summeval", "answer-equivalence"):
        again = build_dataset(BENCHMARK[name], locator, tmp_path, opts)
        first = built[name].folder
        files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
        assert files == sorted(p.relative_to(again.folder) for p in again.folder.rglob("*") if p.is_file())
        for rel in files:
            assert (first / rel).read_bytes() == (again.folder / rel).read_bytes(), rel


def test_another_version_changes_perturbations(
    built: dict[str, BuildReport], locator: SourceLocator, tmp_path: Path
) -> None:
    r = build_dataset(
        BENCHMARK["story-cloze"], locator, tmp_path, BuildOptions(version="v1.1.0", progress=False)
    )
    a = {
        (x["perturbation"], x["id"]): x["perturbed"]
        for x in read_pairs(built["story-cloze"].folder, ["char_typo"])
    }
    b = {(x["perturbation"], x["id"]): x["perturbed"] for x in read_pairs(r.folder, ["char_typo"])}
    assert a.keys() == b.keys() and a != b
    assert "v1.1.0" in (r.folder / "README.md").read_text()


def test_parquet_schema_is_plain_strings(built: dict[str, BuildReport]) -> None:
    f = built["wmt22-zh-en"].folder / "data" / "char_typo_minor.parquet"
    schema = pq.read_schema(f)
    assert schema.names == list(row_columns(BENCHMARK["wmt22-zh-en"]))
    assert all(str(t) == "string" for t in schema.types)


def test_too_few_items_needs_flag(locator: SourceLocator, tmp_path: Path) -> None:
    with pytest.raises(TooFewItemsError, match="62 eligible"):
        build_dataset(BENCHMARK["answer-equivalence"], locator, tmp_path, BuildOptions(progress=False))
    assert not any(tmp_path.iterdir())


def test_bad_version_is_refused(locator: SourceLocator, tmp_path: Path) -> None:
    with pytest.raises(BuildError, match="semantic"):
        build_dataset(BENCHMARK["summeval"], locator, tmp_path, BuildOptions(version="1.0"))


def test_crash_leaves_no_half_written_dataset(
    built: dict[str, BuildReport], locator: SourceLocator, tmp_path: Path
) -> None:
    spec = BENCHMARK["story-cloze"]
    good = build_dataset(spec, locator, tmp_path, BuildOptions(progress=False))
    before = {p: p.read_bytes() for p in good.folder.rglob("*") if p.is_file()}

    def boom(*_: object) -> str:
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError, match="disk full"):
        build_dataset(
            spec, locator, tmp_path, BuildOptions(version="v2.0.0", progress=False), render_card=boom
        )
    assert {p: p.read_bytes() for p in good.folder.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["story-cloze"]


def test_cli_build_errors_list_valid_names(
    capsys: pytest.CaptureFixture[str], sources_dir: Path, tmp_path: Path
) -> None:
    assert main(["build", "--datasets", "nope", "--sources", str(sources_dir), "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "unknown dataset 'nope'" in err and "summeval" in err and "wmt22-zh-en" in err
    assert (
        main(
            [
                "build",
                "--datasets",
                "answer-equivalence",
                "--sources",
                str(sources_dir),
                "--out",
                str(tmp_path),
                "--no-progress",
            ]
        )
        == 2
    )
    assert "--allow-fewer" in capsys.readouterr().err


def test_cli_build_says_offline_generator(
    capsys: pytest.CaptureFixture[str], sources_dir: Path, tmp_path: Path
) -> None:
    rc = main(
        [
            "build",
            "--datasets",
            "story-cloze",
            "--sources",
            str(sources_dir),
            "--out",
            str(tmp_path),
            "--no-progress",
            "--samples",
            str(tmp_path / "sheet.html"),
        ]
    )
    assert rc == 0
    cap = capsys.readouterr()
    assert "OFFLINE RULE-BASED stand-in" in cap.err and "not by an LLM" in cap.err
    assert "story-cloze: 100 items" in cap.out
    assert (tmp_path / "story-cloze" / "data" / "char_typo.parquet").is_file()
    info = read_build_info(tmp_path / "story-cloze")
    for p in info.perturbations:  # the per-perturbation pass rate and coverage lines
        assert (
            f"{p.passed}/{p.checked})" in cap.out
            and f"coverage {100 * p.coverage:5.1f}% ({p.rows}/100)" in cap.out
        )
    sheet = (tmp_path / "sheet.html").read_text(encoding="utf-8")
    assert f"samples: {tmp_path / 'sheet.html'}" in cap.out and "char_typo" in sheet
