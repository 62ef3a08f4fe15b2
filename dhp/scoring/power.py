"""Where the few-pairs rule comes from (:data:`dhp.spec.MIN_PAIRS`): the power of D > 1 by pair count.

A reference judge with a *clear effect* scores the perturbed text lower in 80% of pairs, the same
in 10% and higher in 10% (so 85% of pairs are scored lower, ties counted half, the effect
:func:`dhp.scoring.stats.share_lower` reports), each difference 1, 2 or 3 points on the scale with
equal chance (integer Likert scores, so ties among the differences, as real judges give). For each
pair count n, :func:`power` draws that judge's differences ``draws`` times (seeded) and counts how
often one metric's one-sided Wilcoxon test (:mod:`dhp.scoring.wilcoxon`, scipy's ``auto`` method)
gives p < 0.05, i.e. D > 1. One metric is the conservative case: D^EW combines metric p-values with
weights that sum to 1, so it is no larger than the D of its most significant metric when the
metrics agree. :func:`min_pairs` is the fewest n from which the power stays at or above
``target`` for every n up to ``n_max``: with fewer pairs, a judge that plainly notices the
perturbation would miss D > 1 too often for a missed D to say anything about the judge.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from dhp.scoring.wilcoxon import wilcoxon_greater_batch

__all__ = ["REFERENCE", "min_pairs", "power", "reference_differences"]

#: (share of pairs scored lower, share tied, share scored higher) of the reference judge.
REFERENCE = (0.8, 0.1, 0.1)


def reference_differences(
    n_pairs: int, draws: int, rng: np.random.Generator, shares: tuple[float, float, float] = REFERENCE
) -> npt.NDArray[np.float64]:
    """(draws, n_pairs) original-minus-perturbed score differences of the reference judge."""
    lower, tied, _ = shares
    u = rng.random((draws, n_pairs))
    sign = np.where(u < lower, 1.0, np.where(u < lower + tied, 0.0, -1.0))
    return sign * rng.integers(1, 4, size=(draws, n_pairs)).astype(np.float64)


def power(n_pairs: int, draws: int = 4000, seed: int = 0) -> float:
    """The share of ``draws`` seeded draws of ``n_pairs`` reference pairs whose test gives D > 1."""
    d = reference_differences(n_pairs, draws, np.random.default_rng([seed, n_pairs]))
    p = wilcoxon_greater_batch(d, np.zeros_like(d))
    return float((p < 0.05).mean())


def min_pairs(target: float = 0.8, n_max: int = 30, draws: int = 4000, seed: int = 0) -> int:
    """The fewest pairs from which :func:`power` stays >= ``target`` up to ``n_max`` pairs."""
    curve = [power(n, draws, seed) for n in range(1, n_max + 1)]
    below = [n for n, pw in enumerate(curve, start=1) if pw < target]
    if below and below[-1] == n_max:
        raise ValueError(f"power stays below {target} up to {n_max} pairs")
    return below[-1] + 1 if below else 1
