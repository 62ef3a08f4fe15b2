"""Statistics throughput: DHP analysis of many judges × the six datasets, from item scores.

Prints wall time without bootstrap (target: 100 judges × 6 datasets in under 2 s) and with the
default 1000-replicate bootstrap per dataset. Run: `.venv/bin/python benchmarks/bench_stats.py`.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from dhp.scoring.stats import analyse
from dhp.spec import BENCHMARK


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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--judges", type=int, default=100)
    ap.add_argument("--boot-judges", type=int, default=3)
    args = ap.parse_args()
    t = run(args.judges, n_boot=0)
    print(f"statistics, no bootstrap: {args.judges} judges x 6 datasets in {t:.2f} s (target < 2 s)")
    tb = run(args.boot_judges, n_boot=1000)
    print(
        f"statistics, 1000 bootstrap replicates: {args.boot_judges} judges x 6 datasets in {tb:.2f} s "
        f"({tb / args.boot_judges:.2f} s per judge)"
    )


if __name__ == "__main__":
    main()
