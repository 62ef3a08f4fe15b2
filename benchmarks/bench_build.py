"""Time to build all six DHP datasets from local sources with the offline generators, and their quality.

Usage: .venv/bin/python benchmarks/bench_build.py [SOURCES_DIR]   (default: $DHP_SOURCES or ../shared/sources)
Target: under 60 s on a 2-core machine. Prints one line per dataset, then per perturbation the
validator's pass rate (outputs accepted / outputs checked) and the coverage (items with a row /
items selected; Answer Equivalence also of its eligible items), then the total time.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from dhp.builder.build import BuildOptions, BuildReport, build_dataset
from dhp.builder.sources import SourceLocator
from dhp.spec import BENCHMARK

TARGET_S = 60.0


def _quality(r: BuildReport) -> None:
    for p in r.info.perturbations:
        rate = "    -  " if p.pass_rate is None else f"{100 * p.pass_rate:6.1f}%"
        print(
            f"    {p.id:28s} {p.method:4s} pass {rate} ({p.passed:3d}/{p.checked:3d})  "
            f"coverage {100 * p.coverage:5.1f}% ({p.rows:3d}/{p.n_items:3d}), of eligible {100 * p.eligible_coverage:5.1f}%"
        )


def main(argv: list[str]) -> int:
    default = os.environ.get("DHP_SOURCES") or str(
        Path(__file__).resolve().parents[1].parent / "shared" / "sources"
    )
    sources = Path(argv[1] if len(argv) > 1 else default)
    locator = SourceLocator(sources)
    opts = BuildOptions(allow_fewer=True, progress=False)
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        reports = [build_dataset(spec, locator, Path(tmp), opts) for spec in BENCHMARK.values()]
        total = time.perf_counter() - t0
    for r in reports:
        print(f"{r.name:20s} {r.n_items:4d} items {r.n_rows:5d} pairs {r.seconds:6.2f} s")
        _quality(r)
    rows = sum(r.n_rows for r in reports)
    status = "OK" if total < TARGET_S else "SLOW"
    print(
        f"all six datasets: {rows} pairs in {total:.2f} s (target < {TARGET_S:.0f} s: {status}; {os.cpu_count()} cores)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
