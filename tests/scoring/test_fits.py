"""The "fits the public rows" flag (issue 39, :mod:`dhp.scoring.fits`): calibrated on seeded simulated judges.

A memorising judge (perfect on the public rows, chance on the private ones) is flagged on every dataset;
honest judges (the same discernment on both splits) on at most 5% of datasets; a perfect judge whose two
splits have different numbers of rows is not flagged (D grows with the pairs: the flag reads both splits at
the same number).
"""

from __future__ import annotations

import numpy as np
import pytest

from dhp.scoring.analysis import analyse
from dhp.scoring.fits import SplitDraw, fits, half_sizes, split_draw
from dhp.scoring.fits_calibration import HONEST, MEMORISING, flag_rates
from dhp.types import Level


@pytest.mark.slow  # ~40 s on the shared 2-core machine: 60 simulated (dataset, judge) pairs
def test_a_memoriser_is_flagged_everywhere_and_honest_judges_almost_never() -> None:
    rates = flag_rates((MEMORISING, *HONEST), seeds=range(2), n_boot=200)
    assert rates[MEMORISING.name] == (12, 12)
    honest = [rates[j.name] for j in HONEST]
    flagged, total = sum(k for k, _ in honest), sum(n for _, n in honest)
    assert total == 48 and flagged / total <= 0.05, rates


def _perfect(n: int, rows: int) -> tuple[dict[str, list[float]], dict[str, dict[str, list[float]]]]:
    """A judge that scores every perturbed text lower, on ``rows`` of ``n`` items."""
    nan = float("nan")
    return {"m": [5.0] * n}, {"p": {"m": [2.0 if i < rows else nan for i in range(n)]}}


def test_a_perfect_judge_is_not_flagged_when_the_splits_have_different_rows() -> None:
    levels, weights = {"p": Level.CHARACTER}, {"p": {"m": 1.0}}
    scored = [_perfect(100, rows) for rows in (95, 70)]
    points = [analyse(o, p, levels, weights, n_boot=0) for o, p in scored]
    sizes = half_sizes(points[1])
    assert sizes == {"p": 35}
    draws = [
        split_draw(o, p, levels, weights, point, 200, sizes, np.random.default_rng((0, stream)))
        for (o, p), point, stream in zip(scored, points, (1, 2), strict=True)
    ]
    assert draws[0].d_avg_ew > draws[1].d_avg_ew + 1  # as scored, D follows the number of pairs
    fit = fits(draws[0], draws[1])
    assert not fit.fits_public and round(fit.difference, 2) == 0.0


def test_the_flag_reads_the_interval_and_refuses_unlike_draws() -> None:
    high = SplitDraw(5.0, {"p": 50}, np.linspace(4.0, 6.0, 101))
    low = SplitDraw(1.0, {"p": 50}, np.linspace(0.5, 1.5, 101))
    assert fits(high, low).fits_public and not fits(low, high).fits_public and not fits(low, low).fits_public
    with pytest.raises(ValueError, match="same --n-boot"):
        fits(high, SplitDraw(1.0, {"p": 50}, np.zeros(50)))
    with pytest.raises(ValueError, match="same pairs and perturbations"):
        fits(high, SplitDraw(1.0, {"p": 31}, np.linspace(0.5, 1.5, 101)))
