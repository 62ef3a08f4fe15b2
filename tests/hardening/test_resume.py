"""kill -9 at seeded random moments, then resume: same results, no answered request sent twice."""

from __future__ import annotations

from pathlib import Path

import pytest

from dhp.scoring.result_files import parse_result
from dhp.spec import get_dataset
from tests.scoring.fake_server import FakeJudgeServer, hashed_answer
from tests.support.resume import kill_while_held, reference_run, run_to_end, run_trial, score_cmd
from tests.support.tiny_data import write_tiny_dataset

DATASETS = "answer-equivalence"
TRIALS = 6  # benchmarks/bench_resume.py runs more (docs/benchmarks.md)
CONCURRENCY = 8


@pytest.fixture(scope="module")
def small_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("resume-data")
    for name in DATASETS.split(","):
        write_tiny_dataset(root, get_dataset(name), n_items=8)
    return root


@pytest.mark.slow  # 13 runs of `dhp score` (~4 s each, mostly its imports)
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
        # the cost ledgers never count fewer than the server saw; more only by requests counted as the
        # kill landed that never left (issue 35)
        assert t.requests <= t.recorded <= t.requests + CONCURRENCY * len(t.kill_points), t


@pytest.fixture(scope="module")
def held_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """12 items: every perturbation has the pairs to carry a D (spec.MIN_PAIRS), so a run ends in a result."""
    root = tmp_path_factory.mktemp("held-data")
    for name in DATASETS.split(","):
        write_tiny_dataset(root, get_dataset(name), n_items=12)
    return root


@pytest.mark.slow  # 3 runs of `dhp score` per case (~4 s each, mostly its imports)
@pytest.mark.parametrize("first_kill", [0, 10])  # during the probe's wave; later, still before 25 answered
def test_two_kills_then_resume_record_every_request_the_server_received(
    held_data: Path, tmp_path: Path, first_kill: int
) -> None:
    """Issue 35: killed before the ledger's first snapshot used to drop the invocation, and mid-run
    lost the requests sent since its last snapshot. Each kill lands while the server holds
    ``CONCURRENCY`` requests it received and the client sends nothing more, so the server's count
    is exactly what the killed invocations sent; the resumed run's ledger must say the same."""
    out = tmp_path / "out"
    with FakeJudgeServer(hashed_answer) as srv:
        cmd = score_cmd(srv.url, held_data, out, DATASETS, CONCURRENCY)
        held = [kill_while_held(srv, cmd, answered, CONCURRENCY) for answered in (first_kill, 30)]
        assert held == [first_kill + CONCURRENCY, 30 + CONCURRENCY]
        run_to_end(cmd)
        received = srv.stats()["requests"]
    (result,) = [f for f in out.rglob("*.json") if not f.name.startswith(".")]
    every = parse_result(result.read_text(encoding="utf-8")).timing.all_invocations
    assert every is not None
    assert (every.invocations, every.requests_sent) == (3, received)
