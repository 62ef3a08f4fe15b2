"""Calibration of `dhp compare` and of the single-judge D interval, by simulation with known truth.

Pairs of judges score n items (n = 20, 40, 100 pairs), each item once as the original and once
perturbed. Item i has a latent quality q_i ~ N(0, 1) and a perturbation damage u_i ~ U(0, 2), both
shared by the two judges (so their scores are correlated, as two judges on the same items are); a
judge with discernment δ scores the original q_i + e and the perturbed text q_i − δ·u_i + e',
e, e' ~ N(0, 0.5²). "Continuous" scores are used as they are (expected-mode judges: no ties, the
exact test up to 50 pairs); "ties" scores are rounded to the 1-5 scale (3 + 1.2 × score, clipped),
tested by the tie-corrected normal approximation, as scipy's ``auto`` chooses.

Scenarios: ``same``: both judges δ = 0.3 (the same distribution: every verdict other than ``tie``
is false); ``shifted``: A δ = 0.6, B δ = 0.3 (A is better: power is the share of ``A`` verdicts).
Every replicate is made as ``dhp compare`` makes it: each judge's point D by scipy's ``auto``
method (:func:`dhp.scoring.stats.auto_method`), one paired draw of items per bootstrap
replicate shared by both judges (:func:`dhp.scoring.pairs.draw_uniforms`, :func:`dhp.scoring.pairs.pool_draw`), each replicate tested by its
point's method (:func:`dhp.scoring.wilcoxon.wilcoxon_greater_batch`), D = log_0.05 p, the difference's
interval, each judge's interval and the verdict by :func:`dhp.scoring.compare.difference`, each
expanded for the pairs its test ranks (:func:`dhp.scoring.stats.ranked_pairs`).

Truth. D is the log of a p-value: it grows with n, so its "true value" is defined at the sample
size: the median of D (and of D_A − D_B) over 20,000 simulated samples of n pairs from the known
model (the same D a typical sample of that size gives; 0 for the difference of identical judges).
Coverage is the share of simulated samples whose 95% interval holds that truth. False verdicts: ``A``
or ``B`` for identical judges (``same``), ``B`` when A is better (``shifted``). Every share is
printed with its Monte Carlo standard error, sqrt(p(1 − p)/N) over the N samples of its cell.

Run: ``PYTHONPATH=. python benchmarks/bench_calibration.py`` (defaults: 400 samples per cell, 1000
bootstrap replicates each as ``dhp compare`` draws, cells in 2 processes; the tails of a percentile
interval at 1-2% are too noisy with fewer replicates to measure the procedure in use). Prints one
table; docs/method.md quotes it.
"""

from __future__ import annotations

import argparse
import itertools
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from dhp.scoring.compare import Difference, difference
from dhp.scoring.pairs import draw_uniforms, pool_draw
from dhp.scoring.stats import discernment, ranked_pairs
from dhp.scoring.wilcoxon import auto_method, wilcoxon_greater_batch, wilcoxon_greater_tests

FloatArray = npt.NDArray[np.float64]
SIZES = (20, 40, 100)
SCENARIOS = {"same": (0.3, 0.3), "shifted": (0.6, 0.3)}
NOISE = 0.5


@dataclass(frozen=True)
class Samples:
    """(samples, n) scores of judges A and B, originals and perturbed."""

    a: tuple[FloatArray, FloatArray]
    b: tuple[FloatArray, FloatArray]


def simulate(
    rng: np.random.Generator, n: int, deltas: tuple[float, float], ties: bool, count: int
) -> Samples:
    q = rng.normal(0.0, 1.0, (count, n))
    u = rng.uniform(0.0, 2.0, (count, n))

    def judge(delta: float) -> tuple[FloatArray, FloatArray]:
        o = q + rng.normal(0.0, NOISE, (count, n))
        p = q - delta * u + rng.normal(0.0, NOISE, (count, n))
        if ties:
            o, p = (np.clip(np.round(3.0 + 1.2 * v), 1, 5) for v in (o, p))
        return o, p

    return Samples(judge(deltas[0]), judge(deltas[1]))


def point_d(o: FloatArray, p: FloatArray) -> tuple[FloatArray, list[str], list[int | None]]:
    """Each row's D by scipy's auto method, that method, and the size its interval is expanded for
    (:func:`dhp.scoring.stats.ranked_pairs`: the pairs its test ranks)."""
    methods = [auto_method(o[r] - p[r]) for r in range(o.shape[0])]
    sizes = [ranked_pairs(wilcoxon_greater_tests(o[r : r + 1], p[r : r + 1])) for r in range(o.shape[0])]
    return truth_d(o, p), methods, sizes


def truth_d(o: FloatArray, p: FloatArray) -> FloatArray:
    """Each row's D by scipy's auto method, vectorised (for the 20,000 samples behind the truth)."""
    return discernment(wilcoxon_greater_batch(o, p))


def replicate_d(o: FloatArray, p: FloatArray, methods: list[str], idx: npt.NDArray[np.int64]) -> FloatArray:
    """(samples, replicates) D of each sample's resamples (``idx``: samples × replicates × n item
    indices), every sample's resamples tested by its point's method, in one batch per method."""
    count, n_boot, _ = idx.shape
    rows = np.arange(count)[:, None, None]
    out = np.empty((count, n_boot))
    for method in sorted(set(methods)):
        at = np.array([m == method for m in methods])
        ro, rp = o[rows[at], idx[at]], p[rows[at], idx[at]]
        pv = wilcoxon_greater_batch(ro.reshape(-1, ro.shape[-1]), rp.reshape(-1, rp.shape[-1]), method=method)
        out[at] = discernment(pv).reshape(-1, n_boot)
    return out


@dataclass
class Tally:
    covered_a: int = 0
    covered_b: int = 0
    covered_diff: int = 0
    verdicts: dict[str, int] | None = None
    total: int = 0

    def add(self, d: Difference, truth: tuple[float, float, float]) -> None:
        assert d.ci is not None and d.ci_a is not None and d.ci_b is not None and d.verdict is not None
        self.verdicts = self.verdicts or {}
        self.verdicts[d.verdict] = self.verdicts.get(d.verdict, 0) + 1
        self.covered_diff += d.ci[0] <= truth[2] <= d.ci[1]
        self.covered_a += d.ci_a[0] <= truth[0] <= d.ci_a[1]
        self.covered_b += d.ci_b[0] <= truth[1] <= d.ci_b[1]
        self.total += 1


def run_cell(rng: np.random.Generator, n: int, scenario: str, ties: bool, count: int, n_boot: int) -> Tally:
    deltas = SCENARIOS[scenario]
    big = simulate(rng, n, deltas, ties, 20000)
    da, db = truth_d(*big.a), truth_d(*big.b)
    truth = (
        float(np.median(da)),
        float(np.median(db)),
        0.0 if scenario == "same" else float(np.median(da - db)),
    )
    s = simulate(rng, n, deltas, ties, count)
    pa, ma, na = point_d(*s.a)
    pb, mb, nb = point_d(*s.b)
    u = draw_uniforms(n, count * n_boot, rng)
    idx = pool_draw(u, np.arange(n, dtype=np.int64)).reshape(
        count, n_boot, n
    )  # one paired draw per replicate
    ra, rb = replicate_d(*s.a, ma, idx), replicate_d(*s.b, mb, idx)
    tally = Tally()
    for r in range(count):
        tally.add(difference((float(pa[r]), ra[r], na[r]), (float(pb[r]), rb[r], nb[r]), 0.95), truth)
    return tally


Cell = tuple[bool, int, str]


def cell_row(cell: Cell, samples: int, n_boot: int, seed: int) -> str:
    """One table row: a cell simulated from its own seeded generator (so rows do not depend on the
    order or the process they run in)."""
    ties, n, scenario = cell
    rng = np.random.default_rng([seed, n, int(ties), list(SCENARIOS).index(scenario)])
    t = run_cell(rng, n, scenario, ties, samples, n_boot)
    v = t.verdicts or {}
    share = " / ".join(f"{v.get(k, 0) / t.total:.1%}" for k in ("A", "B", "tie", "neither"))
    false = (v.get("A", 0) + v.get("B", 0)) if scenario == "same" else v.get("B", 0)
    return (
        f"| {'ties (1-5)' if ties else 'continuous'} | {n} | {scenario} | {rate(t.covered_a, t.total)} "
        f"| {rate(t.covered_b, t.total)} | {rate(t.covered_diff, t.total)} | {rate(false, t.total)} | {share} |"
    )


def rate(hits: int, total: int) -> str:
    """A share with its Monte Carlo standard error, sqrt(p(1 − p)/N), in percentage points."""
    p = hits / total
    return f"{p:.1%} ± {100 * np.sqrt(p * (1 - p) / total):.1f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--samples", type=int, default=400, help="simulated samples per cell")
    ap.add_argument(
        "--n-boot", type=int, default=1000, help="bootstrap replicates per sample (dhp compare's default)"
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2, help="processes (the cells are independent)")
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)), help="pairs per sample, comma-separated")
    ap.add_argument("--scenarios", default=",".join(SCENARIOS), help="same, shifted or both")
    args = ap.parse_args()
    sizes = [int(v) for v in args.sizes.split(",")]
    scenarios = [v for v in args.scenarios.split(",") if v]
    unknown = sorted(set(scenarios) - set(SCENARIOS))
    if unknown:
        ap.error(f"unknown scenario(s) {', '.join(unknown)}; choose from {', '.join(SCENARIOS)}")
    t0 = time.perf_counter()
    print(f"{args.samples} samples per cell, {args.n_boot} bootstrap replicates, seed {args.seed}")
    print(
        "| scores | n | scenario | coverage D_A | coverage D_B | coverage D_A − D_B | false verdicts "
        "| verdicts A / B / tie / neither |"
    )
    print("|---|---|---|---|---|---|---|---|")
    cells = [(ties, n, sc) for ties in (False, True) for n in sizes for sc in scenarios]
    with ProcessPoolExecutor(max_workers=args.jobs) as ex:
        rows = ex.map(cell_row, cells, *(itertools.repeat(v) for v in (args.samples, args.n_boot, args.seed)))
        for row in rows:
            print(row, flush=True)
    print(f"{time.perf_counter() - t0:.0f} s wall, {args.jobs} processes")


if __name__ == "__main__":
    main()
