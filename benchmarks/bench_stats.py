"""Statistics throughput: DHP analysis of many judges × the six datasets, from item scores.

Prints wall time without bootstrap (target: 100 judges × 6 datasets in under 2 s) and with the
default 1000-replicate bootstrap per dataset; then the board's rank-bootstrap replicates
(:func:`dhp.leaderboard.board.ranks.replicate_pvalues`) of results whose D comes from the exact Wilcoxon
test (continuous expected-mode scores, 40 pairs), CPU seconds per file, against the former way of
testing those replicates (each resample expanded and tested by the tie-aware sign-flip distribution),
measured in the same run, with the ratio. Run: `.venv/bin/python benchmarks/bench_stats.py`.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from dhp.leaderboard.board import ranks
from dhp.scoring.analysis import analyse
from dhp.scoring.pairs import pool_draw
from dhp.scoring.results import Result
from dhp.scoring.wilcoxon import wilcoxon_greater_batch
from dhp.spec import BENCHMARK
from tests.leaderboard.continuous import continuous_result


def _scores(rng: np.random.Generator, metrics: tuple[str, ...], pids: tuple[str, ...], n: int):  # type: ignore[no-untyped-def]
    orig = {m: rng.integers(1, 6, n).astype(float) for m in metrics}
    pert = {p: {m: np.clip(orig[m] - rng.integers(-1, 3, n), 1, 5) for m in metrics} for p in pids}
    return orig, pert


def run(judges: int, n_boot: int, seed: int = 0) -> float:
    rng = np.random.default_rng(seed)
    inputs = []
    for _ in range(judges):
        for spec in BENCHMARK.values():
            orig, pert = _scores(rng, spec.metric_names, spec.perturbation_ids, spec.selection.n_items)
            levels = {p.id: p.level for p in spec.perturbations}
            weights = {p: dict(spec.weights.for_perturbation(p)) for p in spec.perturbation_ids}
            inputs.append((orig, pert, levels, weights))
    t0 = time.perf_counter()
    for orig, pert, levels, weights in inputs:
        analyse(orig, pert, levels, weights, n_boot=n_boot, seed=seed)
    return time.perf_counter() - t0


def former_replicates(result: Result) -> None:
    """The rank replicates as they were computed before: every exact test's resamples expanded and
    tested by the tie-aware sign-flip distribution (a dynamic programme per replicate)."""
    s = result.scores
    assert s is not None
    items = tuple(s.item_ids)
    u = ranks.dataset_uniforms(result.dataset.name, len(items), ranks.RANK_N_BOOT, ranks.RANK_SEED)
    idx = pool_draw(u, np.arange(len(items), dtype=np.int64))
    for p in result.perturbations:
        for m, stored in p.metrics.items():
            if stored.test_method == "exact":
                o = np.array(s.original[m], dtype=float)[idx]
                q = np.array(s.perturbed[p.id][m], dtype=float)[idx]
                wilcoxon_greater_batch(o, q, method="permutation")


def rank_replicates(files: int) -> tuple[float, float]:
    """CPU seconds per file: (former, now) for ``files`` exact-test results of 40 items."""
    results = [continuous_result(f"cont-{k}", "summeval", 40, k) for k in range(files)]
    n_exact = sum(pm.test_method == "exact" for p in results[0].perturbations for pm in p.metrics.values())
    assert n_exact > 0, "the generated results must have exact tests"
    t0 = time.process_time()
    for r in results:
        former_replicates(r)
    former = (time.process_time() - t0) / files
    t0 = time.process_time()
    for r in results:
        ranks.replicate_pvalues(r)
    now = (time.process_time() - t0) / files
    return former, now


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--judges", type=int, default=100)
    ap.add_argument("--boot-judges", type=int, default=3)
    ap.add_argument("--rank-files", type=int, default=5)
    args = ap.parse_args()
    former, now = rank_replicates(args.rank_files)
    print(
        f"rank replicates of exact-test results (summeval, 40 items, {ranks.RANK_N_BOOT} replicates): "
        f"{now * 1000:.1f} ms CPU per file (former way: {former * 1000:.0f} ms; {former / now:.0f}x faster)"
    )
    t = run(args.judges, n_boot=0)
    print(f"statistics, no bootstrap: {args.judges} judges x 6 datasets in {t:.2f} s (target < 2 s)")
    tb = run(args.boot_judges, n_boot=1000)
    print(
        f"statistics, 1000 bootstrap replicates: {args.boot_judges} judges x 6 datasets in {tb:.2f} s "
        f"({tb / args.boot_judges:.2f} s per judge)"
    )


if __name__ == "__main__":
    main()
