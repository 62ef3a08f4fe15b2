"""What a judge that discerns nothing gets: the built-in random judge under every combination method.

Scores ``--judge random`` (no bootstrap) on a built folder for seeds 0..N-1 and each of the three
combination methods, and prints, per dataset and method, D_avg, D_min, D_avg^EW and D_min^EW for
seed 0 with the mean over the seeds in brackets, then the share of perturbations with D > 1 (a
calibrated test at the 5% level gives about 5%). The table of docs/method.md ("Reading D").

Run: `.venv/bin/python benchmarks/bench_random_judge.py out/datasets [--seeds 5]`.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from dhp.inference.judge import BuiltinJudge
from dhp.scoring.config import ScoreConfig
from dhp.scoring.result_files import read_result
from dhp.scoring.results import Result
from dhp.scoring.run import score_datasets
from dhp.scoring.stats import CombineMethod
from dhp.spec import BENCHMARK
from dhp.types import ControlJudge

COLUMNS = ("d_avg", "d_min", "d_avg_ew", "d_min_ew")


def score(data: Path, method: CombineMethod, seed: int, out: Path) -> list[Result]:
    built = ",".join(name for name in BENCHMARK if (data / name).is_dir())
    cfg = ScoreConfig(judge=BuiltinJudge(name="random", control=ControlJudge.RANDOM), out=out / f"{method.value}-{seed}",
                      datasets=built, data=str(data), n_boot=0, seed=seed, combine=method, progress=False)  # fmt: skip
    return [read_result(p) for p in score_datasets(cfg)]


def _cell(first: float | None, values: list[float | None]) -> str:
    known = [v for v in values if v is not None]
    mean = f"{statistics.fmean(known):.2f}" if known else "–"
    return f"{'–' if first is None else f'{first:.2f}'} ({mean})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("data", type=Path, help="a folder of built datasets (dhp build --out)")
    ap.add_argument("--seeds", type=int, default=5, help="seeds 0..N-1 (default: 5)")
    args = ap.parse_args()
    runs: dict[tuple[CombineMethod, int], list[Result]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for method in CombineMethod:
            for seed in range(args.seeds):
                runs[method, seed] = score(args.data, method, seed, Path(tmp))
    print("| dataset (metrics) | combination | D_avg | D_min | D_avg^EW | D_min^EW |")
    print("|---|---|---|---|---|---|")
    for i, r0 in enumerate(runs[CombineMethod.PAPER, 0]):
        for method in CombineMethod:
            per_seed = [runs[method, s][i].summary for s in range(args.seeds)]
            cells = [_cell(getattr(per_seed[0], c), [getattr(s, c) for s in per_seed]) for c in COLUMNS]
            label = (
                f"{r0.dataset.name} ({len(BENCHMARK[r0.dataset.name].metric_names)})"
                if method is CombineMethod.PAPER
                else ""
            )
            print(f"| {label} | {method.value} | {' | '.join(cells)} |")
    for method in CombineMethod:
        tests = [p for s in range(args.seeds) for r in runs[method, s] for p in r.perturbations]
        plain = sum(1 for p in tests if p.d is not None and p.d > 1) / len(tests)
        ew = sum(1 for p in tests if p.d_ew is not None and p.d_ew > 1) / len(tests)
        print(f"{method.value}: D > 1 in {100 * plain:.1f}% unweighted, {100 * ew:.1f}% with expert weights "
              f"({len(tests)} perturbation tests)")  # fmt: skip


if __name__ == "__main__":
    main()
