"""kill -9 at seeded random moments, then resume: same results, no answered request sent twice."""

from __future__ import annotations

from pathlib import Path

import pytest

from dhp.spec import get_dataset
from tests.scoring.fake_server import FakeJudgeServer, hashed_answer
from tests.support.resume import reference_run, run_trial
from tests.support.tiny_data import write_tiny_dataset

DATASETS = "answer-equivalence"
TRIALS = 10
CONCURRENCY = 8


@pytest.fixture(scope="module")
def small_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("resume-data")
    for name in DATASETS.split(","):
        write_tiny_dataset(root, get_dataset(name), n_items=8)
    return root


@pytest.mark.slow  # 21 runs of `dhp score` (~4 s each, mostly its imports)
def test_kill_9_at_random_moments_then_resume(small_data: Path, tmp_path: Path) -> None:
    minimal = 8 * 1 * 10  # 8 items x 1 metric x (original + 9 perturbations)
    with FakeJudgeServer(hashed_answer, latency=0.01) as srv:
        reference, n_ref = reference_run(srv, small_data, tmp_path / "ref", DATASETS, CONCURRENCY)
        assert n_ref == minimal and len(reference) == 1
        trials = [
            run_trial(srv, small_data, tmp_path / f"t{seed}", DATASETS, minimal, reference, seed,
                      concurrency=CONCURRENCY)
            for seed in range(TRIALS)
        ]  # fmt: skip
    assert sum(t.kills_landed for t in trials) >= TRIALS - 2  # almost every kill hit a live run
    for t in trials:
        assert t.results_equal, f"seed {t.seed}: results differ from the uninterrupted run"
        assert 0 <= t.resent <= CONCURRENCY * len(t.kill_points), t
        assert t.requests == minimal + t.resent, t  # nothing answered and cached was asked again
