"""The calibration of the "fits the public rows" flag (issue 39): how often simulated judges are flagged.

A memorising judge (perfect on the public rows, chance on the private ones) must be flagged on every dataset;
honest judges (the same discernment on both splits, from blind to sharp) on at most 5% of datasets. Each
(dataset, judge, seed) goes through the code ``dhp fits`` runs (:mod:`dhp.scoring.fits_calibration`)::

    PYTHONPATH=. python benchmarks/bench_fits.py                  # 10 seeds x 6 datasets, 1000 replicates
    PYTHONPATH=. python benchmarks/bench_fits.py --seeds 1 --n-boot 50   # a smoke run
"""

from __future__ import annotations

import argparse
import time

from dhp.scoring.fits_calibration import HONEST, MEMORISING, flag_rates


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10, help="seeds per dataset and judge (default: 10)")
    ap.add_argument("--n-boot", type=int, default=1000, help="bootstrap replicates (default: 1000)")
    args = ap.parse_args()
    t0 = time.perf_counter()
    rates = flag_rates((MEMORISING, *HONEST), range(args.seeds), args.n_boot)
    print("| judge | flagged datasets | share |")
    print("|---|---:|---:|")
    for name, (k, n) in rates.items():
        print(f"| {name} | {k} of {n} | {100 * k / n:.1f}% |")
    honest = [rates[j.name] for j in HONEST]
    k, n = sum(a for a, _ in honest), sum(b for _, b in honest)
    print(f"| all honest | {k} of {n} | {100 * k / n:.1f}% |")
    print(f"{time.perf_counter() - t0:.0f} s, {args.seeds} seeds, {args.n_boot} replicates")


if __name__ == "__main__":
    main()
