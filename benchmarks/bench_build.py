"""Time to build all six DHP datasets from local sources with the offline generators.

Usage: .venv/bin/python benchmarks/bench_build.py [SOURCES_DIR]   (default: $DHP_SOURCES or ../shared/sources)
Target: under 60 s on a 2-core machine. Prints one line per dataset and the total.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from dhp.builder.build import BuildOptions, build_dataset
from dhp.builder.sources import SourceLocator
from dhp.spec import BENCHMARK

TARGET_S = 60.0


def main(argv: list[str]) -> int:
    default = os.environ.get("DHP_SOURCES") or str(Path(__file__).resolve().parents[1].parent / "shared" / "sources")
    sources = Path(argv[1] if len(argv) > 1 else default)
    locator = SourceLocator(sources)
    opts = BuildOptions(allow_fewer=True, progress=False)
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        rows = 0
        for spec in BENCHMARK.values():
            r = build_dataset(spec, locator, Path(tmp), opts)
            rows += r.n_rows
            print(f"{r.name:20s} {r.n_items:4d} items {r.n_rows:5d} pairs {r.seconds:6.2f} s")
        total = time.perf_counter() - t0
    status = "OK" if total < TARGET_S else "SLOW"
    print(f"all six datasets: {rows} pairs in {total:.2f} s (target < {TARGET_S:.0f} s: {status}; {os.cpu_count()} cores)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
