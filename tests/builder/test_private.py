"""The private split (issue 39): ``dhp build --split private`` and ``dhp score --split private``.

The seed comes from the environment only and reaches no file and no output; the split's identity is its
commitment; its items are disjoint from the public selection where the source allows, else other texts of
the same items, else fresh perturbations; its results hold aggregates only.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from dhp.builder.build import BuildOptions, build_dataset
from dhp.builder.private import (
    DISJOINT,
    OTHER_TEXTS,
    SAME_ITEMS,
    PrivateSeed,
    build_private_dataset,
    commitment,
)
from dhp.builder.publish import check_publishable
from dhp.builder.select import select_items
from dhp.builder.sources import SampleLocator, SourceLocator, load_source
from dhp.cli import main
from dhp.data.dataset_io import read_build_info, read_pairs
from dhp.data.private import SEED_ENV, is_private_version, private_version, version_commitment
from dhp.data.sample import is_sample_version
from dhp.errors import PublishError, UserError
from dhp.scoring.fits import fits_of_results
from dhp.scoring.result_files import migrate, parse_result, read_result
from dhp.spec import BENCHMARK

SEED = "a-test-seed-0f9e8d7c6b5a49382716"
OTHER_SEED = "another-test-seed-1a2b3c4d5e6f7a8b"
OPTS = BuildOptions(allow_fewer=True, progress=False)


def _every_text(root: Path) -> str:
    """Every byte under ``root`` as text, parquet files also decoded (their pages are compressed)."""
    parts = []
    for f in sorted(p for p in root.rglob("*") if p.is_file()):
        parts.append(f.name)
        parts.append(f.read_bytes().decode("utf-8", errors="replace"))
        if f.suffix == ".parquet":
            parts.append(json.dumps(pq.read_table(f).to_pylist(), ensure_ascii=False))
    return "\n".join(parts)


def _private_build(out: Path, seed: str = SEED) -> None:
    """SummEval and Answer Equivalence from the embedded sample (the sources folder given is empty),
    through the command."""
    empty = out.parent / "no-sources"
    empty.mkdir(exist_ok=True)
    rc = main(["build", "--split", "private", "--sources", str(empty), "--skip-missing", "--sample-fallback",
               "--datasets", "summeval,answer-equivalence", "--out", str(out), "--no-progress"])  # fmt: skip
    assert rc == 0


def test_no_seed_no_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv(SEED_ENV, raising=False)
    out = tmp_path / "out"
    assert main(["build", "--split", "private", "--datasets", "summeval", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and SEED_ENV in err and not out.exists()
    monkeypatch.setenv(SEED_ENV, "short-7")  # guessable: rebuilt from the public code and sources
    assert main(["build", "--split", "private", "--datasets", "summeval", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "shorter than 16" in err and "short-7" not in err
    monkeypatch.setenv(SEED_ENV, SEED)
    assert (
        main(["build", "--split", "private", "--seed", "3", "--datasets", "summeval", "--out", str(out)]) == 2
    )
    assert "drop --task and --seed" in capsys.readouterr().err and not out.exists()


def test_the_seed_reaches_no_file_and_no_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], sources_dir: Path
) -> None:
    """A private build (sample datasets and Story Cloze from the sources) and its scoring: every file they
    write, and everything they print, holds neither the seed nor the perturbations' seed derived from it."""
    monkeypatch.setenv(SEED_ENV, SEED)
    data, results = tmp_path / "private", tmp_path / "results"
    _private_build(data)
    assert main(["build", "--split", "private", "--sources", str(sources_dir), "--datasets", "story-cloze",
                 "--out", str(data), "--no-progress", "--samples", str(tmp_path / "sheet.html")]) == 0  # fmt: skip
    for judge in ("lexical", "random"):
        assert main(["score", "--judge", judge, "--split", "private", "--data", str(data), "--out", str(results),
                     "--n-boot", "50"]) == 0  # fmt: skip
    assert main(["fits", str(results / "lexical"), str(results / "lexical")]) == 2  # no public result there
    printed = capsys.readouterr()
    secret = PrivateSeed(SEED)
    written = _every_text(tmp_path)
    for needle in (SEED, str(secret.rng_seed)):
        assert needle not in written and needle not in printed.out and needle not in printed.err
    assert "PrivateSeed(<secret>)" == repr(secret) == str(secret)
    assert len(list(results.rglob("*~private-*.json"))) == 6  # 3 datasets x 2 judges


def test_a_rebuild_is_byte_identical_and_the_commitment_names_seed_and_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SEED_ENV, SEED)
    _private_build(tmp_path / "a")
    _private_build(tmp_path / "b")
    files = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*") if p.is_file())
    assert files and all(
        (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes() for f in files
    )
    monkeypatch.setenv(SEED_ENV, OTHER_SEED)
    _private_build(tmp_path / "c")
    for name in ("summeval", "answer-equivalence"):
        info = read_build_info(tmp_path / "a" / name)
        assert info.seed is None and info.private is not None
        assert info.dataset_version == private_version("v1.0.0-sample", info.private.commitment)
        assert is_private_version(info.dataset_version) and is_sample_version(info.dataset_version)
        assert version_commitment(info.dataset_version) == info.private.commitment[:12]
        raw = json.loads((tmp_path / "a" / name / "build_info.json").read_text())
        assert raw["seed"] is None and raw["private"]["commitment"] == info.private.commitment
        card = (tmp_path / "a" / name / "README.md").read_text()
        assert info.private.commitment in card and "PRIVATE SPLIT" in card
        rows: dict[str, list[dict[str, str | None]]] = {}
        for r in read_pairs(tmp_path / "a" / name):
            rows.setdefault(str(r["perturbation"]), []).append({k: v for k, v in r.items()})
        assert commitment(PrivateSeed(SEED), name, rows) == info.private.commitment
        other = read_build_info(tmp_path / "c" / name)
        assert other.private is not None and other.private.commitment != info.private.commitment


def test_disjoint_where_the_source_allows(sources_dir: Path) -> None:
    """Story Cloze (1,871 stories) and SumPubMed (600 pairs): none of the public selection's items."""
    locator = SourceLocator(sources_dir)
    for name in ("story-cloze", "sumpubmed"):
        spec = BENCHMARK[name]
        public = select_items(spec, load_source(spec, locator), allow_fewer=True)
        from dhp.builder.private import choose_items

        chosen, basis, _ = choose_items(spec, load_source(spec, locator), public, PrivateSeed(SEED))
        assert basis == DISJOINT and len(chosen.items) == len(public.items) == 100
        assert not {it.id for it in chosen.items} & {it.id for it in public.items}
        again, _, _ = choose_items(spec, load_source(spec, locator), public, PrivateSeed(OTHER_SEED))
        assert {it.id for it in again.items} != {it.id for it in chosen.items}


def test_other_texts_or_fresh_perturbations_where_it_does_not(tmp_path: Path) -> None:
    """The sample's 20 items are all public: SummEval takes another reference summary of each article;
    Answer Equivalence (no other text) keeps the items and texts with fresh perturbations."""
    pub, priv = tmp_path / "public", tmp_path / "private"
    opts = BuildOptions(version="v1.0.0-sample", allow_fewer=True, progress=False)
    for name, basis in (("summeval", OTHER_TEXTS), ("answer-equivalence", SAME_ITEMS)):
        spec = BENCHMARK[name]
        build_dataset(spec, SampleLocator(), pub, opts)
        report = build_private_dataset(spec, SampleLocator(), priv, opts, PrivateSeed(SEED))
        assert report.info.private is not None and report.info.private.basis == basis
        a = {(r["perturbation"], r["id"]): r for r in read_pairs(pub / name)}
        b = {(r["perturbation"], r["id"]): r for r in read_pairs(priv / name)}
        assert {i for _, i in a} == {i for _, i in b}  # the same items
        originals_a = {i: r["original"] for (_, i), r in a.items()}
        originals_b = {i: r["original"] for (_, i), r in b.items()}
        if basis == OTHER_TEXTS:
            assert all(originals_a[i] != originals_b[i] for i in originals_a)
        else:
            assert originals_a == originals_b
            common = [k for k in a if k in b]
            assert sum(a[k]["perturbed"] != b[k]["perturbed"] for k in common) > len(common) // 2


def test_a_private_split_is_never_published_in_the_open(tmp_path: Path) -> None:
    spec = BENCHMARK["answer-equivalence"]
    opts = BuildOptions(version="v1.0.0-sample", allow_fewer=True, progress=False)
    info = build_private_dataset(spec, SampleLocator(), tmp_path, opts, PrivateSeed(SEED)).info
    with pytest.raises(PublishError, match="private split"):
        check_publishable(spec, tmp_path / spec.name, info.dataset_version, False)
    check_publishable(spec, tmp_path / spec.name, info.dataset_version, False, private_repo=True)
    with pytest.raises(UserError, match="environment only"):
        build_private_dataset(spec, SampleLocator(), tmp_path, BuildOptions(seed=1), PrivateSeed(SEED))


def test_score_refuses_a_split_mismatch_and_keeps_aggregates_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = BENCHMARK["answer-equivalence"]
    opts = BuildOptions(version="v1.0.0-sample", allow_fewer=True, progress=False)
    pub, priv, res = tmp_path / "public", tmp_path / "private", tmp_path / "results"
    build_dataset(spec, SampleLocator(), pub, opts)
    info = build_private_dataset(spec, SampleLocator(), priv, opts, PrivateSeed(SEED)).info
    assert info.private is not None
    base = ["score", "--judge", "oracle", "--datasets", spec.name, "--out", str(res), "--n-boot", "100"]
    assert main([*base, "--data", str(priv)]) == 2  # as public: its item scores and outputs would be written
    assert "is a private split: score it with --split private" in capsys.readouterr().err
    assert main([*base, "--data", str(pub), "--split", "private"]) == 2
    assert "is not a private split" in capsys.readouterr().err and not res.exists()
    assert main([*base, "--data", str(priv), "--split", "private"]) == 0
    assert main([*base, "--data", str(pub)]) == 0
    (path,) = res.rglob("*~private-*.json")
    doc = json.loads(path.read_text())
    assert doc["scores"] is None and doc["coverage"]["unparsed_examples"] == {}
    assert doc["dataset"]["split"] == "private" and doc["dataset"]["commitment"] == info.private.commitment
    fixed = doc["summary"]["fixed_n"]
    assert len(fixed["d_avg_ew"]) == 100 and fixed["sizes"] and max(fixed["sizes"].values()) <= 10
    assert "private split " + info.private.commitment[:12] in capsys.readouterr().err
    leaky = {**doc, "scores": {"item_ids": ["x"], "original": {}, "perturbed": {}}}
    with pytest.raises(ValueError, match="aggregates only"):
        parse_result(json.dumps(leaky))
    assert main(["fits", str(res / "oracle"), str(res / "oracle"), "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["datasets"]
    assert row["fits_public"] is False and row["n_pairs"] == 10  # the same oracle on both splits
    public = read_result(next(p for p in (res / "oracle").glob("*.json") if "~private-" not in p.name))
    private = read_result(path)
    benchmark = public.model_copy(update={"dataset": public.dataset.model_copy(update={"version": "v1.0.0"})})
    with pytest.raises(ValueError, match="embedded sample"):
        fits_of_results(benchmark, private)  # a sample's twin is not the benchmark's


def test_a_1_4_result_reads_as_public() -> None:
    doc = {"schema_version": "1.4", "dataset": {"name": "x", "repo": "r", "revision": "v", "n_items": 1}}
    assert migrate(doc)["dataset"]["split"] == "public"
