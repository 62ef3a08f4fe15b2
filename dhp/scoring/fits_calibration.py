"""The calibration of the "fits the public rows" flag (:mod:`dhp.scoring.fits`): seeded simulated judges.

Each of the six datasets is simulated with its own perturbations, levels, metrics and expert weights
(:data:`dhp.spec.BENCHMARK`) and its item count (100; Answer Equivalence 62). Every perturbation of each split
has its own number of rows (a share of the items drawn uniformly from 60-100%, independently per split), as
the real splits differ. Scores are on the 1-5 scale (ties):

* an *honest* judge of discernment ``s`` scores item i's original ``round(q_i + e)`` and its perturbed text
  ``round(q_i - s * d_i + e')`` (clipped to 1-5; quality ``q_i ~ N(3, 0.8)``, damage ``d_i ~ U(0.5, 1.5)``,
  noise ``e ~ N(0, 0.7)`` per metric), the same ``s`` on both splits;
* the *memorising* judge is perfect on the texts it has seen (the public rows: every original 5, every
  perturbed text 2) and at chance on the others (the private rows: every score uniform on 1-5).

:func:`flag_rates` runs each (dataset, judge, seed) through the code ``dhp fits`` runs
(:func:`dhp.scoring.analysis.analyse`, :func:`dhp.scoring.fits.split_draw` at half the private split's
pairs of each perturbation, :func:`dhp.scoring.fits.fits`) and returns the share flagged per judge. ``benchmarks/bench_fits.py``
prints it; ``tests/scoring/test_fits.py`` holds the flag to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from dhp.scoring.analysis import analyse
from dhp.scoring.fits import (
    PRIVATE_STREAM,
    PUBLIC_STREAM,
    Fit,
    analysis_methods,
    fits,
    half_sizes,
    split_draw,
    with_methods,
)
from dhp.spec import BENCHMARK
from dhp.types import DatasetSpec

__all__ = ["HONEST", "MEMORISING", "SimJudge", "flag_rates", "simulate"]

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class SimJudge:
    """A simulated judge: its discernment on each split, or a memoriser of the public rows."""

    name: str
    skill: float = 0.0
    memorises: bool = False


MEMORISING = SimJudge("memorising", memorises=True)
HONEST = (SimJudge("blind", 0.0), SimJudge("weak", 0.3), SimJudge("moderate", 1.0), SimJudge("sharp", 3.0))


def _n_items(spec: DatasetSpec) -> int:
    return 62 if spec.name == "answer-equivalence" else spec.selection.n_items


def _split_scores(
    spec: DatasetSpec, judge: SimJudge, public: bool, rng: np.random.Generator
) -> tuple[dict[str, FloatArray], dict[str, dict[str, FloatArray]], dict[str, int]]:
    n, metrics = _n_items(spec), spec.metric_names
    q = rng.normal(3.0, 0.8, n)
    original: dict[str, FloatArray] = {}
    perturbed: dict[str, dict[str, FloatArray]] = {}
    rows: dict[str, int] = {}
    if judge.memorises:
        for m in metrics:
            original[m] = np.full(n, 5.0) if public else rng.integers(1, 6, n).astype(np.float64)
    else:
        for m in metrics:
            original[m] = np.clip(np.round(q + rng.normal(0.0, 0.7, n)), 1, 5)
    for p in spec.perturbations:
        has = rng.random(n) < rng.uniform(0.6, 1.0)
        rows[p.id] = int(has.sum())
        damage = rng.uniform(0.5, 1.5, n)
        per: dict[str, FloatArray] = {}
        for m in metrics:
            if judge.memorises:
                v = np.full(n, 2.0) if public else rng.integers(1, 6, n).astype(np.float64)
            else:
                v = np.clip(np.round(q - judge.skill * damage + rng.normal(0.0, 0.7, n)), 1, 5)
            per[m] = np.where(has, v, np.nan)
        perturbed[p.id] = per
    return original, perturbed, rows


def simulate(spec: DatasetSpec, judge: SimJudge, seed: int, n_boot: int = 1000) -> Fit:
    """One judge's public and private scores of ``spec`` (seeded), through :func:`dhp.scoring.fits.fits`."""
    rng = np.random.default_rng((seed, len(spec.name), sum(map(ord, spec.name + judge.name))))
    levels = {p.id: p.level for p in spec.perturbations}
    weights = {p.id: dict(spec.weights.for_perturbation(p.id)) for p in spec.perturbations}
    scored = [_split_scores(spec, judge, public, rng) for public in (True, False)]
    points = [analyse(o, p, levels, weights, n_boot=0, n_rows=rows) for o, p, rows in scored]
    sizes = half_sizes(points[1])  # the private split's, as dhp score --split private stores them
    points[0] = with_methods(
        points[0], analysis_methods(points[1])
    )  # tested as the private side, as dhp fits
    draws = [
        split_draw(o, p, levels, weights, point, n_boot, sizes, np.random.default_rng((seed, stream)))
        for (o, p, _), point, stream in zip(scored, points, (PUBLIC_STREAM, PRIVATE_STREAM), strict=True)
    ]
    return fits(draws[0], draws[1])


def flag_rates(
    judges: Sequence[SimJudge],
    seeds: Sequence[int],
    n_boot: int = 1000,
    datasets: Sequence[str] | None = None,
) -> dict[str, tuple[int, int]]:
    """Per judge: (datasets flagged, datasets simulated) over ``datasets`` (default: all six) x ``seeds``."""
    names = list(datasets or BENCHMARK)
    out: dict[str, tuple[int, int]] = {}
    for judge in judges:
        flagged = sum(
            simulate(BENCHMARK[name], judge, seed, n_boot).fits_public for name in names for seed in seeds
        )
        out[judge.name] = (flagged, len(names) * len(seeds))
    return out
