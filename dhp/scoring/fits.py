"""Does a judge fit the public rows? Its public D_avg^EW against its private one, with an interval (issue 39).

A judge tuned on the public datasets' rows scores them better than texts it has not seen. The private split
(``dhp build --split private``) measures the same ability on rows no one has seen, so for one judge and one
dataset the difference public D_avg^EW − private D_avg^EW is about 0 for an honest judge and large for one
that fits the public rows. The judge is flagged, "fits the public rows", when the difference's interval lies
above 0 (and the difference does not round to 0.00, the printed precision, as ``dhp compare``'s ties).

**At the same number of pairs.** D grows with the number of pairs, and the two splits' rows differ in
number (a perturbation applies to some texts and not others: SummEval's private texts, other reference
summaries, are shorter, and the oracle's D_avg^EW there is 14.58 against 16.11 on the public rows). So both
sides are read at the same number of pairs of each perturbation, ``sizes[perturbation]``: half the private
split's pairs of it (:func:`half_sizes`). Each bootstrap replicate resamples every counted perturbation's
pairs, with replacement, at exactly that size (:func:`dhp.scoring.pairs.pool_draw`'s ``size``;
:func:`dhp.scoring.analysis.replicates`, every test by its point's method, combined and aggregated as the
point was). Half, not all: drawing more pairs than a split holds makes an interval too narrow (a judge of
the same skill on both splits was flagged on 10% of simulated datasets when both were drawn at 100 pairs
from pools of 60-100), drawing fewer makes it a little wide, and a judge that fits the public rows is still
far apart. A side's D_avg^EW at those sizes is the median of its replicates; the difference's interval is
the project's one construction (:func:`dhp.scoring.stats.interval`) on the replicates' differences, the
splits drawn independently (their items differ): replicate b of one minus replicate b of the other.

Pure: score vectors or results in, a :class:`Fit` out. A private result holds its replicates
(``summary.fixed_n``, drawn at scoring time from stream :data:`PRIVATE_STREAM` of its seed); a public
result holds its item scores, and its replicates are drawn here from stream :data:`PUBLIC_STREAM`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from dhp.data.sample import is_sample_version
from dhp.scoring.analysis import DatasetAnalysis, analyse, replicates
from dhp.scoring.pairs import draw_uniforms
from dhp.scoring.results import FixedNReplicates, Result
from dhp.scoring.stats import Interval, interval
from dhp.spec import MIN_PAIRS
from dhp.types import Level

__all__ = [
    "PRIVATE_STREAM",
    "PUBLIC_STREAM",
    "Fit",
    "SplitDraw",
    "analysis_methods",
    "fits",
    "fits_of_results",
    "half_sizes",
    "public_draw",
    "split_draw",
    "stored_draw",
    "stored_methods",
    "to_stored",
    "with_methods",
]

FloatArray = npt.NDArray[np.float64]
#: the streams of a result's seed that draw a split's replicates: independent draws for the two splits
PRIVATE_STREAM, PUBLIC_STREAM = 2, 1
_METHODS = ("exact", "permutation", "asymptotic")  # the tests a replicate can be drawn with


@dataclass(frozen=True)
class SplitDraw:
    """One split's D_avg^EW as scored, and at ``sizes`` pairs of each counted perturbation in each replicate."""

    d_avg_ew: float  # as scored (its own pairs)
    sizes: Mapping[str, int]  # counted perturbation -> the pairs each replicate draws of it
    replicates: FloatArray  # (replicates,) D_avg^EW at those sizes; NaN where a replicate has none

    @property
    def fixed_n(self) -> float:
        """D_avg^EW at ``sizes``: the median of the replicates (NaN when none has one)."""
        ok = self.replicates[~np.isnan(self.replicates)]
        return float(np.median(ok)) if ok.size else math.nan


@dataclass(frozen=True)
class Fit:
    """Public − private D_avg^EW of one judge on one dataset at the same numbers of pairs, and the flag."""

    public: float  # D_avg^EW as scored
    private: float
    public_fixed_n: float  # at the same pairs of each perturbation (half the private split's)
    private_fixed_n: float
    n_pairs: int  # the most pairs a perturbation is drawn at
    difference: float  # public_fixed_n - private_fixed_n
    interval: Interval | None

    @property
    def fits_public(self) -> bool:
        """Flagged: the difference's interval lies above 0 and the difference is not 0.00 as printed."""
        return self.interval is not None and self.interval.low > 0 and round(self.difference, 2) > 0


def half_sizes(point: DatasetAnalysis) -> dict[str, int]:
    """Half the pairs (rounded up) of each perturbation ``point`` counts: the sizes both splits are read at."""
    return {pa.perturbation: (pa.n_pairs + 1) // 2 for pa in point.perturbations if pa.counted}


def split_draw(
    original: Mapping[str, npt.ArrayLike],
    perturbed: Mapping[str, Mapping[str, npt.ArrayLike]],
    levels: Mapping[str, Level],
    weights: Mapping[str, Mapping[str, float]],
    point: DatasetAnalysis,
    n_boot: int,
    sizes: Mapping[str, int],
    rng: np.random.Generator,
) -> SplitDraw:
    """``point`` (an :func:`~dhp.scoring.analysis.analyse` of these scores) with its D_avg^EW redone in
    ``n_boot`` replicates from ``rng``, each perturbation of ``sizes`` resampled at that many pairs
    (:func:`draw_uniforms`, :func:`replicates`)."""
    n_items = len(np.asarray(next(iter(original.values()))))
    u = draw_uniforms(max(n_items, *sizes.values()), n_boot, rng)
    rep = replicates(original, perturbed, levels, weights, point, u, sizes=sizes)
    return SplitDraw(point.d_avg_ew, dict(sizes), np.asarray(rep.aggregates["d_avg_ew"], dtype=np.float64))


def fits(public: SplitDraw, private: SplitDraw, confidence: float = 0.95) -> Fit:
    """The difference public − private at the same numbers of pairs, its interval (the expanded percentile
    interval of the replicates' differences over the most pairs drawn, joined with the estimate) and the
    flag."""
    if public.replicates.shape != private.replicates.shape:
        raise ValueError(
            f"the splits have {public.replicates.size} and {private.replicates.size} replicates; score both "
            "with the same --n-boot"
        )
    if dict(public.sizes) != dict(private.sizes):
        raise ValueError("the splits are not drawn at the same pairs and perturbations")
    diff = public.fixed_n - private.fixed_n
    n = max(private.sizes.values(), default=0)
    iv = interval(public.replicates - private.replicates, confidence, diff, n)
    return Fit(public.d_avg_ew, private.d_avg_ew, public.fixed_n, private.fixed_n, n, diff, iv)


def _nan(v: float | None) -> float:
    return math.nan if v is None else v


def stored_draw(r: Result) -> SplitDraw:
    """A private result's draw, as its ``summary.fixed_n`` holds it (ValueError when it holds none)."""
    fixed = r.summary.fixed_n
    if fixed is None or not fixed.d_avg_ew:
        raise ValueError(f"{r.dataset.name}: the private result holds no replicates (scored with --n-boot 0)")
    reps = np.array([_nan(v) for v in fixed.d_avg_ew], dtype=np.float64)
    return SplitDraw(_nan(r.summary.d_avg_ew), dict(fixed.sizes), reps)


def to_stored(draw: SplitDraw) -> FixedNReplicates:
    """What a private result keeps of its draw (:func:`stored_draw` reads it back)."""
    reps = tuple(None if math.isnan(x) else float(x) for x in draw.replicates)
    return FixedNReplicates(sizes=dict(draw.sizes), d_avg_ew=reps)


def stored_methods(r: Result) -> dict[str, dict[str, str]]:
    """perturbation -> metric -> how a result's point test computed p (``exact``, ``permutation``,
    ``asymptotic``), where it says: the tests a private result's replicates were drawn with."""
    return {
        p.id: {m: s.test_method for m, s in p.metrics.items() if s.test_method in _METHODS}
        for p in r.perturbations
    }


def analysis_methods(point: DatasetAnalysis) -> dict[str, dict[str, str]]:
    """:func:`stored_methods` of an analysis (what a private split's result stores of it)."""
    return {
        pa.perturbation: {m: t.method for m, t in pa.tests.items() if t.method in _METHODS}
        for pa in point.perturbations
    }


def with_methods(point: DatasetAnalysis, methods: Mapping[str, Mapping[str, str]]) -> DatasetAnalysis:
    """``point`` with each (perturbation, metric) test computed as ``methods`` says (the others as they were)."""
    perts = []
    for pa in point.perturbations:
        want = methods.get(pa.perturbation, {})
        tests = {m: dataclasses.replace(t, method=want.get(m, t.method)) for m, t in pa.tests.items()}
        perts.append(dataclasses.replace(pa, tests=tests))
    return dataclasses.replace(point, perturbations=tuple(perts))


def public_draw(
    r: Result, n_boot: int, sizes: Mapping[str, int], methods: Mapping[str, Mapping[str, str]] | None = None
) -> SplitDraw:
    """A public result's D_avg^EW over the perturbations of ``sizes`` (the private split's counted ones),
    redone in ``n_boot`` replicates at those sizes from its item scores (stream :data:`PUBLIC_STREAM` of its
    seed). ``methods`` (:func:`stored_methods` of the private result): each test computed as the private
    split's was, so that both sides test the same number of pairs the same way (a pool's test method
    follows its size: the public 18 pairs of a perturbation are tested by the normal approximation, the
    private 13 by the exact sign-flip distribution, and a perfect judge differed by 0.02 at the same pairs)."""
    if r.scores is None:
        raise ValueError(f"{r.dataset.name}: the public result holds no item scores to resample")
    s = r.scores
    original = {m: [_nan(v) for v in vs] for m, vs in s.original.items()}
    perturbed = {pid: {m: [_nan(v) for v in vs] for m, vs in per.items()} for pid, per in s.perturbed.items()}
    missing = [pid for pid in sizes if pid not in perturbed]
    if missing:
        raise ValueError(f"{r.dataset.name}: the public result has no scores of {', '.join(missing)}")
    levels = {p.id: p.level for p in r.perturbations if p.id in perturbed}
    weights = {pid: dict(w) for pid, w in r.scoring.weights.items()}
    rows = {pid: MIN_PAIRS if pid in sizes else 0 for pid in perturbed}  # the private split's counted ones
    method = r.scoring.combine_method
    point = analyse(original, perturbed, levels, weights, method=method, n_boot=0, n_rows=rows)
    point = with_methods(point, methods or {})
    rng = np.random.default_rng((r.scoring.seed, PUBLIC_STREAM))
    draw = split_draw(original, perturbed, levels, weights, point, n_boot, sizes, rng)
    return SplitDraw(_nan(r.summary.d_avg_ew), draw.sizes, draw.replicates)


def fits_of_results(public: Result, private: Result, confidence: float = 0.95) -> Fit:
    """:func:`fits` of one judge's public and private results of one dataset (ValueError, one line, when
    they are not a public and a private result of the same judge, dataset and statistics)."""
    if public.dataset.private or not private.dataset.private:
        raise ValueError("give a public result first and a private split's result second")
    for what, a, b in (
        ("dataset", public.dataset.name, private.dataset.name),
        ("judge", public.judge.name, private.judge.name),
        ("combination", public.scoring.combine_method.value, private.scoring.combine_method.value),
        ("expert weights", public.scoring.weights_source, private.scoring.weights_source),
    ):
        if a != b:
            raise ValueError(
                f"the results differ in their {what} ({a} vs {b}): compare one judge on one dataset"
            )
    if is_sample_version(public.dataset.version) != is_sample_version(private.dataset.version):
        raise ValueError(
            "one result is on the embedded sample and the other is not: compare a split with its twin"
        )
    priv = stored_draw(private)
    pub = public_draw(public, priv.replicates.size, priv.sizes, stored_methods(private))
    return fits(pub, priv, confidence)
