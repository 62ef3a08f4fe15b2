"""End to end through the real CLI: the control judges' D values are predictable."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps

from dhp.scoring.data import local_revision
from dhp.scoring.result_files import read_result, result_path
from dhp.scoring.results import SCHEMA_VERSION, Result
from dhp.scoring.summary import reweight
from dhp.spec import BENCHMARK
from tests.scoring.helpers import pair_row, run_dhp, write_pairs
from tests.support.tiny_data import write_tiny_dataset


def _results(out: Path, judge: str) -> dict[str, Result]:
    return {r.dataset.name: r for r in (read_result(p) for p in sorted((out / judge).glob("*.json")))}


def _known(values: list[float | None]) -> list[float]:
    """The values, every one present (the control judges always have pairs to test)."""
    assert None not in values, values
    return [v for v in values if v is not None]


@pytest.fixture(scope="module")
def control_results(tiny_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("results")
    for judge in ("random", "oracle", "lexical"):
        proc = run_dhp(
            "score",
            "--judge",
            judge,
            "--data",
            str(tiny_root),
            "--datasets",
            "all",
            "--out",
            str(out),
            "--n-boot",
            "200",
        )
        assert proc.returncode == 0, proc.stderr
        written = proc.stdout.split()
        assert len(written) == 6
    return out


def test_results_layout(control_results: Path, tiny_root: Path) -> None:
    for judge in ("random", "oracle", "lexical"):
        for name in BENCHMARK:
            rev = local_revision(tiny_root / name)
            assert rev.startswith("local:") and len(rev) == len("local:") + 12
            path = result_path(control_results, judge, name, rev)
            assert path == control_results / judge / f"{name}@{rev.replace(':', '-')}.json"
            r = read_result(path)
            assert r.judge.name == judge and r.judge.kind == "builtin" and r.judge.protocol == "builtin"
            assert r.scoring.mode == "builtin"
            assert r.dataset.revision == rev and r.dataset.n_items == 20
            assert r.coverage.coverage == 1.0
            assert r.coverage.expected_scores == 20 * len(BENCHMARK[name].metrics) * (
                1 + len(BENCHMARK[name].perturbations)
            )


def test_oracle_matches_the_analytic_value(control_results: Path) -> None:
    # all differences positive and tied -> z = sqrt(N) exactly; p = sf(sqrt(N)) per metric
    n = 20
    p1 = float(sps.norm.sf(math.sqrt(n)))
    for name, r in _results(control_results, "oracle").items():
        m = len(BENCHMARK[name].metrics)
        for pr in r.perturbations:
            assert all(ms.p == pytest.approx(p1, rel=1e-9) for ms in pr.metrics.values())
            assert pr.d_ew == pytest.approx(math.log(p1) / math.log(0.05), rel=1e-9)
            assert pr.d == pytest.approx(math.log(p1 / m) / math.log(0.05), rel=1e-9)
            assert pr.d is not None and pr.d_ew is not None and pr.d > 1 and pr.d_ew > 1
        assert r.summary.d_min_ew == pytest.approx(math.log(p1) / math.log(0.05))


def test_random_judge_discerns_nothing(control_results: Path) -> None:
    results = _results(control_results, "random")
    pvals = _known([ms.p for r in results.values() for pr in r.perturbations for ms in pr.metrics.values()])
    d_ew = _known([pr.d_ew for r in results.values() for pr in r.perturbations])
    # 59 perturbations x 1-4 metrics; under H0 the p-values are uniform
    assert 0.35 < float(np.mean(pvals)) < 0.65
    assert sps.kstest(pvals, "uniform").pvalue > 0.001
    assert sum(d > 1 for d in d_ew) <= 0.15 * len(d_ew)
    assert all(d < 1 for d in _known([r.summary.d_avg_ew for r in results.values()]))


def test_lexical_judge_sees_character_damage(control_results: Path) -> None:
    # the tiny data deletes 5 characters from every perturbed text
    for r in _results(control_results, "lexical").values():
        assert all(d > 1 for d in _known([r.summary.d_min_ew]))


def test_reweighting_from_stored_pvalues(control_results: Path) -> None:
    r = next(iter(_results(control_results, "random").values()))
    same = reweight(r, r.scoring.weights)
    assert same.d_avg_ew == pytest.approx(r.summary.d_avg_ew)
    assert same.d_min == pytest.approx(r.summary.d_min)


@pytest.mark.slow
def test_full_size_random_run_is_fast(tmp_path: Path) -> None:
    data = tmp_path / "data"
    for spec in BENCHMARK.values():
        write_tiny_dataset(data, spec, n_items=100)
    t0 = time.monotonic()
    proc = run_dhp(
        "score",
        "--judge",
        "random",
        "--data",
        str(data),
        "--datasets",
        "all",
        "--out",
        str(tmp_path / "o"),
        "--seed",
        "3",
    )
    elapsed = time.monotonic() - t0
    assert proc.returncode == 0, proc.stderr
    assert elapsed < 45, f"six datasets x 100 items took {elapsed:.1f} s"
    r = read_result(next((tmp_path / "o" / "random").glob("summeval@*.json")))
    assert r.scoring.n_boot == 1000 and r.scoring.seed == 3 and r.summary.ci


def test_lexical_is_blind_to_sentence_order(tmp_path: Path) -> None:
    article = (
        "The council approved a new budget for the schools and the roads. Residents asked for better parks. "
        "The mayor said the plan would be reviewed next spring after a public debate on taxes and rivers."
    )
    rows = []
    for i in range(15):
        s = [
            f"The council approved budget number {i} for schools.",
            "Residents asked for parks.",
            "The mayor promised a review.",
        ]
        original = " ".join(s)
        rows.append(
            pair_row(
                "summeval",
                f"a{i:02d}",
                "sent_reorder_major",
                original,
                " ".join(reversed(s)),
                article=article,
            )
        )
        rows.append(
            pair_row(
                "summeval",
                f"a{i:02d}",
                "char_typo_minor",
                original,
                original.replace("council", "cuoncil").replace("parks", "prks"),
                article=article,
            )
        )
    write_pairs(tmp_path / "data", "summeval", rows)
    proc = run_dhp(
        "score",
        "--judge",
        "lexical",
        "--data",
        str(tmp_path / "data"),
        "--datasets",
        "summeval",
        "--out",
        str(tmp_path / "o"),
        "--n-boot",
        "0",
    )
    assert proc.returncode == 0, proc.stderr
    r = read_result(next((tmp_path / "o" / "lexical").glob("*.json")))
    by_id = {p.id: p for p in r.perturbations}
    assert set(by_id) == {"sent_reorder_major", "char_typo_minor"}  # perturbations without rows are left out
    # every metric: p = 1 (no evidence). D^EW = 0; the paper's unweighted 1/Σ(1/p_j) gives p = 1/M.
    assert by_id["sent_reorder_major"].d_ew == 0.0
    assert by_id["sent_reorder_major"].d == pytest.approx(math.log(1 / 4) / math.log(0.05))
    assert all(ms.test_method == "no-evidence" for ms in by_id["sent_reorder_major"].metrics.values())
    d_ew = by_id["char_typo_minor"].d_ew
    assert d_ew is not None and d_ew > 1


def test_cli_user_errors(tmp_path: Path, tiny_root: Path) -> None:
    proc = run_dhp("score", "--data", str(tiny_root), "--out", str(tmp_path))
    assert proc.returncode == 2 and "exactly one of" in proc.stderr
    proc = run_dhp(
        "score", "--endpoint", "http://127.0.0.1:9", "--data", str(tiny_root), "--out", str(tmp_path)
    )
    assert proc.returncode == 2 and "--judge-name is required" in proc.stderr
    proc = run_dhp(
        "score",
        "--endpoint",
        "http://127.0.0.1:9",
        "--judge-name",
        "a/b",
        "--data",
        str(tiny_root),
        "--out",
        str(tmp_path),
    )
    assert proc.returncode == 2 and "path separator" in proc.stderr
    proc = run_dhp("score", "--judge", "random", "--data", str(tmp_path / "nope"), "--out", str(tmp_path))
    assert proc.returncode == 2 and "not a folder" in proc.stderr
    proc = run_dhp(
        "score", "--judge", "random", "--data", str(tiny_root), "--datasets", "nope", "--out", str(tmp_path)
    )
    assert proc.returncode == 2 and "unknown dataset" in proc.stderr


def test_result_json_is_versioned(control_results: Path) -> None:
    path = next((control_results / "oracle").glob("*.json"))
    doc = json.loads(path.read_text())
    assert doc["schema_version"] == SCHEMA_VERSION
    assert doc["scores"]["item_ids"][0].endswith("-000")


def test_cli_weights_combination_and_progress(tiny_root: Path, tmp_path: Path) -> None:
    weights = tmp_path / "w.json"
    weights.write_text(json.dumps({"summeval": {"char_typo_minor": {"fluency": 1.0}}}))
    proc = run_dhp(
        "score",
        "--judge",
        "random",
        "--data",
        str(tiny_root),
        "--datasets",
        "summeval",
        "--out",
        str(tmp_path / "o"),
        "--combine",
        "wilson",
        "--weights",
        str(weights),
        "--n-boot",
        "20",
        "--seed",
        "5",
        "--progress",
    )
    assert proc.returncode == 0, proc.stderr
    assert "req/s" in proc.stderr and "summeval" in proc.stderr  # the progress bar: rate, and its dataset
    r = read_result(Path(proc.stdout.strip()))
    assert r.scoring.combine_method.value == "wilson" and r.scoring.weights_source == str(weights)
    assert r.scoring.weights["char_typo_minor"] == {"fluency": 1.0}
    assert r.scoring.weights["char_typo_major"] == dict(
        BENCHMARK["summeval"].weights.for_perturbation("char_typo_major")
    )
    assert r.scoring.n_boot == 20 and r.scoring.seed == 5
    # wilson's HMP is M times the paper's unweighted p (capped at 1)
    for pr in r.perturbations:
        assert pr.p is not None
        metric_ps = [m.p for m in pr.metrics.values()]
        assert all(mp is not None for mp in metric_ps)
        paper_p = 1.0 / sum(1.0 / mp for mp in metric_ps if mp is not None)
        assert pr.p == pytest.approx(min(1.0, 4 * paper_p), rel=1e-9)
