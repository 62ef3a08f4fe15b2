"""The bad-input matrix for the CLI and the Space, printed as a table.

Malformed and SSRF URLs, huge fields, odd unicode, path traversal in judge names, corrupted
requests/results/cache files, a dataset folder with a missing config: each case goes through the
real entry point and must be refused with a clear message while the stored files stay unchanged.
Usage: ``.venv/bin/python benchmarks/bench_bad_inputs.py``.
"""

from __future__ import annotations

import logging
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.support.bad_inputs import run_all, table  # noqa: E402


def main() -> int:
    logging.basicConfig(level=logging.CRITICAL)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="dhp-bad-") as tmp:
        outcomes = run_all(Path(tmp))
    print(table(outcomes))
    good = sum(o.refused and o.intact for o in outcomes)
    print(f"{good}/{len(outcomes)} refused clearly with stored data intact; {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
