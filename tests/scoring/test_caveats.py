"""Every caveat on the row: the CLI, the report, the table and its CSV mark partial, offline,
interval-less and chance-level results with the same marks (dhp.scoring.caveats)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from dhp.leaderboard.board import table
from dhp.leaderboard.board.loading import LoadedResult
from dhp.scoring.caveats import CHANCE, SAMPLE, caveats, chance_d_avg, version_label
from dhp.scoring.report import write_report
from dhp.scoring.result_files import read_result
from dhp.spec import BENCHMARK
from tests.scoring.helpers import run_dhp
from tests.support.tiny_data import write_tiny_dataset


def test_version_label_names_an_offline_generator() -> None:
    assert version_label("v1.0.0", "offline", "offline-rules/4") == "v1.0.0+offline-rules.4"
    assert version_label("v1.0.0", "llm", "Qwen/Qwen2.5-72B-Instruct") == "v1.0.0"
    assert version_label(None, "offline", "offline-rules/4") is None


def test_chance_level_covers_the_random_judges_unweighted_average() -> None:
    # the random judge's unweighted D_avg on SummEval and SumPubMed (issue 22): 1.05
    assert chance_d_avg("summeval") > 1.05 and chance_d_avg("sumpubmed") > 1.05
    assert 0.0 < chance_d_avg("answer-equivalence") < chance_d_avg("summeval")  # fewer metrics, less chance


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("caveats")
    write_tiny_dataset(root / "data", BENCHMARK["summeval"], n_items=20, seed=1)
    stderr: dict[str, str] = {}
    for judge, extra in (("random", ["--n-boot", "0", "--limit", "14"]), ("oracle", ["--n-boot", "30"])):
        proc = run_dhp("score", "--judge", judge, "--data", str(root / "data"), "--datasets", "summeval",
                       "--out", str(root / "results"), *extra)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        stderr[judge] = proc.stderr
    return root / "results", stderr


@pytest.mark.slow
def test_the_cli_and_the_report_mark_every_caveat(scored: tuple[Path, dict[str, str]]) -> None:
    results, stderr = scored
    (rnd,) = (read_result(p) for p in (results / "random").glob("*.json"))
    (orc,) = (read_result(p) for p in (results / "oracle").glob("*.json"))
    assert rnd.dataset.version is not None and "+offline-rules.test" in rnd.dataset.version
    marks = caveats(rnd)
    assert marks[:3] == ("14/100 items", "offline build", "no interval")
    assert (CHANCE in marks) == (
        rnd.summary.d_avg is not None and rnd.summary.d_avg <= chance_d_avg("summeval")
    )
    assert caveats(orc) == ("20/100 items", "offline build")  # far above chance, with intervals
    assert f"[{'; '.join(marks)}]" in stderr["random"]
    assert "[20/100 items; offline build]" in stderr["oracle"]
    md = write_report([results], results / "report.md").read_text()
    assert "| caveats |" in md and "; ".join(marks) in md


def test_the_table_and_csv_mark_caveats_and_keep_baselines_under_a_search(
    scored: tuple[Path, dict[str, str]],
) -> None:
    results, _ = scored
    loaded = [
        LoadedResult(str(p.relative_to(results)), read_result(p)) for p in sorted(results.rglob("s*.json"))
    ]
    full = table.build_frame(loaded)
    view = table.select_view(full, datasets=["summeval"], search="no such judge")
    assert sorted(view["Judge"]) == ["oracle", "random"]  # baselines stay in a filtered view
    rows = {r["Judge"]: r for r in csv.DictReader(io.StringIO(table.to_csv(view)))}
    assert rows["oracle"]["Caveats"] == "20/100 items; offline build"
    assert rows["random"]["Caveats"].startswith("14/100 items; offline build; no interval")


def test_caveat_text_names_datasets_only_for_marks_some_lack() -> None:
    text = table.caveat_text({"sumpubmed": ("offline build", CHANCE), "summeval": ("offline build",)})
    assert text == f"offline build; {CHANCE} (sumpubmed)"


def test_caveat_text_gives_coverage_as_one_range() -> None:
    text = table.caveat_text(
        {"summeval": ("coverage 99.7%",), "sumpubmed": ("coverage 98.5%",), "story-cloze": ()}
    )
    assert text == "coverage 98.5–99.7% (summeval, sumpubmed)"


@pytest.mark.slow  # two reports with their figures (~10-18 s)
def test_a_result_on_the_embedded_sample_is_marked_first_in_every_view(
    scored: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    """A dataset built from the package's sample (version tagged -sample) is marked `sample data` in the
    CLI's marks, the board's table and CSV, and the report, which also says so above everything."""
    results, _ = scored
    (orc,) = (read_result(p) for p in (results / "oracle").glob("*.json"))
    assert orc.dataset.version is not None
    sample = orc.model_copy(
        update={"dataset": orc.dataset.model_copy(update={"version": "v1.0.0-sample+offline-rules.test"})}
    )
    assert SAMPLE not in caveats(orc)
    assert caveats(sample) == (SAMPLE, "20/100 items", "offline build")
    frame = table.build_frame([LoadedResult("oracle/sample.json", sample)])
    (row,) = csv.DictReader(io.StringIO(table.to_csv(frame)))
    assert row["Caveats"] == f"{SAMPLE}; 20/100 items; offline build"
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "sample.json").write_text(sample.model_dump_json())
    md = write_report([tmp_path / "r"], tmp_path / "report").read_text()
    assert "SAMPLE DATA, NOT THE BENCHMARK" in md and f"| {SAMPLE}; 20/100 items; offline build |" in md
    plain = write_report([results], tmp_path / "plain").read_text()
    assert "SAMPLE DATA" not in plain
