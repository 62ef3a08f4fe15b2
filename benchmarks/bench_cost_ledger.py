"""The cost ledger's price per request sent (issue 35): one unbuffered line appended per attempt.

Sends ``--requests`` distinct requests through a :class:`~dhp.inference.pool.Pool` whose replica
answers at once (no HTTP: what is left is the pool's own work), once with a plain tally and once
with the tally bound to a :class:`~dhp.scoring.cost.CostLedger` in a temporary folder, alternating
``--rounds`` times; prints the best time per request of each and the difference, the ledger's
price. Usage: ``.venv/bin/python benchmarks/bench_cost_ledger.py [--requests 20000] [--rounds 5]``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from dhp.inference.pool import Pool, Tally  # noqa: E402
from dhp.inference.protocol import JudgeOutput, RawText, SamplingParams  # noqa: E402
from dhp.scoring.cost import CostLedger, read_total  # noqa: E402
from dhp.scoring.judge_io import JudgeRequest  # noqa: E402


class Instant:
    label = "instant"

    async def __call__(self, request: JudgeRequest) -> JudgeOutput:
        return RawText("4")

    async def aclose(self) -> None:
        return None


async def _send(n: int, ledger: Path | None) -> float:
    pool = Pool([Instant()], identity="bench", concurrency=8)
    requests = [JudgeRequest("d", f"g{i}", "m", "original", f"t{i}", {}, f"p{i}", SamplingParams(0.0, 8), 0)
                for i in range(n)]  # fmt: skip
    tally = Tally()
    bound = None if ledger is None else CostLedger.of(tally, ledger, time.monotonic())
    t0 = time.perf_counter()
    await asyncio.gather(*(pool.submit(r, tally) for r in requests))
    took = time.perf_counter() - t0
    if bound is not None:
        assert bound.total(tally).requests_sent == n
    return took / n


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--requests", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    plain: list[float] = []
    kept: list[float] = []
    with tempfile.TemporaryDirectory(prefix="dhp-ledger-") as tmp:
        for i in range(args.rounds):
            plain.append(asyncio.run(_send(args.requests, None)))
            path = Path(tmp) / f".r{i}.json.cost.jsonl"
            kept.append(asyncio.run(_send(args.requests, path)))
            assert read_total(path).requests_sent == args.requests
    a, b = min(plain) * 1e6, min(kept) * 1e6
    print(f"{args.requests} requests x {args.rounds} rounds, best per request: pool alone {a:.1f} us, "
          f"with the ledger {b:.1f} us: the ledger adds {b - a:.1f} us per request sent")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
