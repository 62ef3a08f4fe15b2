"""`dhp publish` / `dhp download` against a loopback replay of the Hub's HTTP API."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from dhp.builder.build import BuildReport
from dhp.builder.publish import download_datasets, publish_datasets
from dhp.cli import main
from dhp.errors import PublishError
from dhp.spec import BENCHMARK

from .hub_replay import HubReplay, replay_hub


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[HubReplay]:
    with replay_hub(monkeypatch, tmp_path) as h:
        yield h


def _files(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in folder.rglob("*")
        if p.is_file() and ".cache" not in p.relative_to(folder).parts and p.name != ".gitattributes"
    }  # the Hub adds .gitattributes when it creates a repository


def test_publish_refuses_restricted_without_confirmation(built_root: Path, hub: HubReplay) -> None:
    with pytest.raises(PublishError, match="restrict redistribution") as e:
        publish_datasets(
            [BENCHMARK["summeval"], BENCHMARK["story-cloze"]],
            built_root,
            org="dhp",
            version="v1.0.0",
            endpoint=hub.endpoint,
        )
    assert "--confirm-restricted" in str(e.value) and "Rochester" in str(e.value)
    assert hub.state.log == []  # refused before any upload


def test_publish_refuses_other_version(built_root: Path, hub: HubReplay) -> None:
    with pytest.raises(PublishError, match=r"built as version v1\.0\.0, not v1\.1\.0"):
        publish_datasets(
            [BENCHMARK["summeval"]], built_root, org="dhp", version="v1.1.0", endpoint=hub.endpoint
        )


def test_publish_tag_download_roundtrip(
    built: dict[str, BuildReport], built_root: Path, hub: HubReplay, tmp_path: Path
) -> None:
    specs = [BENCHMARK["summeval"], BENCHMARK["story-cloze"]]
    lines = publish_datasets(
        specs, built_root, org="dhp", version="v1.0.0", confirm_restricted=True, endpoint=hub.endpoint
    )
    assert [ln.split(":")[0] for ln in lines] == ["dhp/summeval@v1.0.0", "dhp/story-cloze@v1.0.0"]
    summeval_log = [(m, p) for m, p in hub.state.log if "story-cloze" not in p]
    posts = [p for m, p in summeval_log if m == "POST"]
    steps = [p for i, p in enumerate(posts) if i == 0 or posts[i - 1] != p]
    repo = hub.state.repos["dhp/summeval"]
    assert steps[:7] == [
        "/api/repos/create",
        "/api/validate-yaml",
        "/api/datasets/dhp/summeval/preupload/main",
        "/datasets/dhp/summeval.git/info/lfs/objects/batch",
        "/datasets/dhp/summeval.git/info/lfs/objects/verify",
        "/api/datasets/dhp/summeval/commit/main",
        f"/api/datasets/dhp/summeval/tag/{repo.branches['main']}",
    ]
    parquet_oids = {
        hashlib.sha256(f.read_bytes()).hexdigest()
        for f in (built["summeval"].folder / "data").glob("*.parquet")
    }
    with_rows = [
        p for p in built["summeval"].info.perturbations if p.rows
    ]  # offline major rewriting has none
    assert len(parquet_oids) == len(with_rows) >= len(BENCHMARK["summeval"].perturbations) - 1
    assert parquet_oids <= {p.removeprefix("/lfs-upload/") for m, p in hub.state.log if m == "PUT"}
    repo = hub.state.repos["dhp/summeval"]
    tagged = repo.commits[repo.tags["v1.0.0"]]
    assert tagged.oid == repo.branches["main"]
    assert {f"data/{p.id}.parquet" for p in with_rows} <= tagged.lfs
    assert "README.md" not in tagged.lfs

    with pytest.raises(PublishError, match="already published"):
        publish_datasets(specs[:1], built_root, org="dhp", version="v1.0.0", endpoint=hub.endpoint)

    out = tmp_path / "dl"
    paths = download_datasets(specs, out, org="dhp", revision="v1.0.0", endpoint=hub.endpoint)
    assert paths == [out / "summeval", out / "story-cloze"]
    for spec in specs:
        assert _files(out / spec.name) == _files(built[spec.name].folder)

    from datasets import load_dataset

    ds = load_dataset(
        str(out / "summeval"), "char_deletion_major", split="test", cache_dir=str(tmp_path / "c")
    )
    assert ds.num_rows == 100

    with pytest.raises(PublishError, match=r"no version 'v9\.9\.9'"):
        download_datasets(specs[:1], tmp_path / "x", org="dhp", revision="v9.9.9", endpoint=hub.endpoint)
    with pytest.raises(PublishError, match="no such dataset repository"):
        download_datasets(
            [BENCHMARK["sumpubmed"]], tmp_path / "x", org="dhp", revision="v1.0.0", endpoint=hub.endpoint
        )


def test_cli_publish_and_download(
    built_root: Path, hub: HubReplay, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--datasets", "answer-equivalence", "--endpoint", hub.endpoint, "--org", "tester"]
    assert main(["publish", "--from", str(built_root), "--version", "v1.0.0", *args]) == 0
    assert "tester/answer-equivalence@v1.0.0" in capsys.readouterr().out
    assert (
        main(["publish", "--from", str(built_root), "--datasets", "story-cloze", "--endpoint", hub.endpoint])
        == 2
    )
    assert "--confirm-restricted" in capsys.readouterr().err
    assert main(["download", "--out", str(tmp_path / "d"), "--version", "v1.0.0", *args]) == 0
    assert (tmp_path / "d" / "answer-equivalence" / "data" / "char_typo_major.parquet").is_file()


def test_scorer_reads_a_hub_snapshot_through_the_one_reader(
    built: dict[str, BuildReport], built_root: Path, hub: HubReplay
) -> None:
    """`dhp score` on a Hub dataset: pinned to the tag's commit, read by dataset_io like a local folder."""
    from dhp.scoring.data import load_hub, load_local

    spec = BENCHMARK["answer-equivalence"]
    publish_datasets([spec], built_root, org="dhp", version="v1.0.0", endpoint=hub.endpoint)
    remote = load_hub(spec, revision="v1.0.0")
    local = load_local(spec, built["answer-equivalence"].folder)
    repo = hub.state.repos["dhp/answer-equivalence"]
    assert remote.revision == repo.tags["v1.0.0"] and remote.version == local.version
    assert (remote.version or "").startswith("v1.0.0+offline-rules.")  # an offline build says so
    assert remote.items == local.items and remote.perturbed == local.perturbed
    assert all(it.context["paragraph"] is None for it in remote.items)  # absent, not ""
