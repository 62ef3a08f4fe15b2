"""Crash-safe resume: ``dhp score`` killed with SIGKILL at seeded random moments, then resumed.

For each trial (seeded ``random.Random``) the CLI runs against the loopback fake judge server
(latency 10 ms), is killed ``--kills`` times once the server has seen a random number of requests
(from none to all of them, so some kills land while results are written), and a final run
completes. Prints one line per trial and the totals: results equal to an uninterrupted run's,
requests seen = minimal + those in flight at a kill (never a request whose answer was cached), and
the requests the results' cost ledgers recorded over every invocation beside those the server saw.
Usage: ``.venv/bin/python benchmarks/bench_resume.py [--trials 20] [--kills 2] [--items 12]``.
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from dhp.spec import get_dataset  # noqa: E402
from tests.scoring.fake_server import FakeJudgeServer, hashed_answer  # noqa: E402
from tests.support.resume import reference_run, run_trial  # noqa: E402
from tests.support.tiny_data import write_tiny_dataset  # noqa: E402

logging.getLogger("aiohttp.server").setLevel(logging.CRITICAL)  # a killed client's half-sent request

DATASETS = "story-cloze,answer-equivalence"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--kills", type=int, default=2, help="kills per trial before the final run")
    ap.add_argument("--items", type=int, default=12)
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="dhp-resume-") as tmp:
        data = Path(tmp) / "data"
        for name in DATASETS.split(","):
            write_tiny_dataset(data, get_dataset(name), n_items=args.items)
        minimal = args.items * (3 * 7 + 1 * 10)
        t0 = time.perf_counter()
        with FakeJudgeServer(hashed_answer, latency=0.01) as srv:
            reference, n_ref = reference_run(srv, data, Path(tmp) / "ref", DATASETS, args.concurrency)
            print(f"uninterrupted run: {n_ref} requests (minimal {minimal}), {len(reference)} result files")
            print(
                f"{'trial':>5}  {'kill points (requests)':<24} {'landed':>6} {'seen':>5} {'resent':>6} "
                f"{'minimal+resent':>14} {'recorded':>8} {'results equal':>13}"
            )
            ok = 0
            landed = resent = recorded = seen = 0
            for i in range(args.trials):
                seed = args.seed + i
                t = run_trial(srv, data, Path(tmp) / f"t{seed}", DATASETS, minimal, reference, seed,
                              kills=args.kills, concurrency=args.concurrency)  # fmt: skip
                good = (
                    t.results_equal
                    and t.requests == minimal + t.resent
                    and t.resent <= args.concurrency * args.kills
                )
                ok += good
                landed += t.kills_landed
                resent += t.resent
                recorded += t.recorded
                seen += t.requests
                print(
                    f"{seed:>5}  {','.join(map(str, t.killed_at)):<24} {t.kills_landed:>6} {t.requests:>5} "
                    f"{t.resent:>6} {minimal + t.resent:>14} {t.recorded:>8} {t.results_equal!s:>13}  "
                    f"{'PASS' if good else 'MISS'}"
                )
        print(
            f"{ok}/{args.trials} trials PASS; {landed} kills landed on a live run; {resent} requests were in "
            f"flight at a kill and sent again (at most {args.concurrency} per kill); answered requests sent "
            f"again: 0 in every PASS trial; the cost ledgers recorded {recorded} requests, the server saw "
            f"{seen}; {time.perf_counter() - t0:.0f} s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
