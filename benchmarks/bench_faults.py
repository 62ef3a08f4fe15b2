"""The fault matrix against the loopback fake judge server, printed as a table.

One small answer-equivalence run per fault (429 with Retry-After, 503 bursts, connection resets,
timeouts, truncated JSON, empty completions, garbage text, missing log-probabilities, an endpoint
that is down or dies mid-run): how it ended, with the run's accounting or the error naming the cause.
Usage: ``.venv/bin/python benchmarks/bench_faults.py``.
"""

from __future__ import annotations

import logging
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.support.faults import CASES, TEXTS, run_case, table, write_data  # noqa: E402


def main() -> int:
    logging.getLogger("aiohttp.server").setLevel(logging.CRITICAL)  # the server's own reset tracebacks
    logging.basicConfig(level=logging.ERROR)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="dhp-faults-") as tmp:
        data = write_data(Path(tmp) / "data")
        outcomes = [run_case(c, data, Path(tmp) / f"out{i}") for i, c in enumerate(CASES)]
    print(f"fault matrix: {TEXTS} scores per run (answer-equivalence, 4 items x 10 texts), concurrency 4")
    print(table(outcomes))
    print(f"{len(outcomes)} cases in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
