"""Every benchmark script runs at head, on tiny inputs (issue 31: ``bench_leaderboard.py`` had stopped
running and nothing said so). Each runs as a user runs it, ``python benchmarks/NAME.py ARGS``, and
must end with status 0 and print its last line; the numbers are the benchmark's business, not the test's.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BENCHMARKS = REPO / "benchmarks"


def _run(script: str, *args: str, cwd: Path | None = None) -> str:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), *args],
        cwd=cwd or REPO, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert out.returncode == 0, f"{script} {' '.join(args)}:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    return out.stdout


@pytest.mark.slow  # ~30 s (one worker, 2 cores): the board's cold start and three readers
def test_bench_leaderboard_smoke() -> None:
    """The generator, the server timings, the cold start of `dhp leaderboard` and the readers."""
    out = _run("bench_leaderboard.py", "--smoke", "--readers", "3", "--cold-start")
    assert "errors 0" in out and "first rows" in out and "4 judges x 6 datasets" in out


@pytest.mark.slow  # ~15 s: one file of the former rank replicates (13 s CPU), kept as the benchmark's baseline
def test_bench_stats_small() -> None:
    assert "bootstrap" in _run("bench_stats.py", "--judges", "2", "--boot-judges", "1", "--rank-files", "1")


@pytest.mark.slow  # ~14 s: three `dhp score` processes
def test_bench_resume_one_trial() -> None:
    assert "1/1 trials PASS" in _run("bench_resume.py", "--trials", "1", "--kills", "1", "--items", "12")


@pytest.mark.slow  # ~18 s: two scripts of `dhp` runs
def test_bench_faults_and_bad_inputs() -> None:
    assert "cases in" in _run("bench_faults.py")
    assert "refused clearly" in _run("bench_bad_inputs.py")


@pytest.mark.slow  # ~13 s: two scripts
def test_bench_validate_and_random_judge(tiny_root: Path) -> None:
    assert "summeval" in _run("bench_validate.py", str(tiny_root), "--dataset", "summeval")
    assert _run("bench_random_judge.py", str(tiny_root), "--seeds", "1").strip()


@pytest.mark.slow  # ~13 s: two scripts
def test_bench_scoring_and_peers_on_tiny_data(tiny_root: Path) -> None:
    """The runner beside the bare loop on built data (no build), and the peer comparison with the
    clients this environment has (``peers_driver.py`` runs each)."""
    out = _run("bench_scoring.py", "--data", str(tiny_root), "--datasets", "answer-equivalence",
               "--latency", "0", "--rounds", "1", "--skip", "counts,stats")  # fmt: skip
    assert out.strip()
    assert _run("bench_peers.py", "--clients", "aiohttp,dhp", "--latency", "0", "--rounds", "1").strip()


@pytest.mark.slow  # ~5 s: one `dhp score` of the six tiny datasets
def test_bench_scoring_memory_alone(tiny_root: Path) -> None:
    """``--only memory``: the --mode expected run alone, its peak read by the launcher (issue 38)."""
    out = _run("bench_scoring.py", "--data", str(tiny_root), "--only", "memory")
    counts = re.search(r"expected (\d+) requests, actual (\d+)", out)
    assert counts is not None and counts[1] == counts[2] and int(counts[1]) > 0, out
    assert re.search(r"peak memory .*: \d+ MB", out), out
    assert "--mode paper" not in out and "throughput" not in out and "statistics" not in out


def test_same_as_on_two_identical_sides(tmp_path: Path, tiny_root: Path) -> None:
    """Two sides built and scored alike (the same datasets, the same result file) compare equal."""
    import shutil

    from tests.leaderboard.factory import result_json

    for side in ("rev", "work"):
        shutil.copytree(tiny_root, tmp_path / side / "ds")
        (tmp_path / side / "res").mkdir()
        (tmp_path / side / "res" / "summeval.json").write_text(result_json("Random", "summeval", n_items=20))
    out = _run("same_as.py", str(tmp_path / "rev"), str(tmp_path / "work"))
    assert "1 results" in out


@pytest.mark.slow  # the six datasets' build (~35 s)
def test_bench_build_on_the_sources(sources_dir: Path) -> None:
    """The offline build of all six datasets (about a minute: the benchmark is the build)."""
    assert "all six datasets:" in _run("bench_build.py", str(sources_dir))


def test_bench_fits_smoke() -> None:
    """The flag's calibration (issue 39) on one seed and few replicates."""
    assert "all honest" in _run("bench_fits.py", "--seeds", "1", "--n-boot", "20")
