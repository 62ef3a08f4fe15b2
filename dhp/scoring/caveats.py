"""What makes a result not comparable with a full one, as short marks (pure; no I/O).

Every view of a result (``dhp score``'s summary line, ``dhp report``, the leaderboard table and its
CSV) shows the same marks, from :func:`caveats`:

* ``sample data``: the dataset was built from the small sample shipped in the package (its version
  carries the pre-release tag ``-sample``, e.g. ``v1.0.0-sample+offline-rules.8``), not the benchmark;
* ``N/FULL items``: scored on fewer items than the dataset's specification selects (``--limit``,
  or a build with ``--allow-fewer``);
* ``coverage X%``: some expected scores are missing (unparsed or failed requests);
* ``offline build``: the dataset was built by the offline rules, not the LLM perturber (its version
  label carries the generator, e.g. ``v1.0.0+offline-rules.4``);
* ``no interval``: scored without a bootstrap (``--n-boot 0``), so D has no uncertainty shown;
* ``D_avg at chance``: the unweighted D_avg lies within what a judge scoring at random reaches
  (:func:`chance_d_avg`): without expert weights, combining several metrics' p-values lets chance
  exceed D = 1.
"""

from __future__ import annotations

import functools

import numpy as np

from dhp.data.sample import is_sample_version
from dhp.scoring.results import Result
from dhp.scoring.stats import avg_min, perturbation_d
from dhp.spec import BENCHMARK

__all__ = ["CHANCE", "OFFLINE_MARK", "PRIVATE_SPLIT", "SAMPLE", "caveats", "chance_d_avg", "version_label"]

#: The mark of an unweighted D_avg that a random judge reaches.
CHANCE = "D_avg at chance"
#: The mark of a result on a dataset built from the embedded sample (dhp.builder.sources.sample).
SAMPLE = "sample data"
#: The mark of a result on a private split (followed by its commitment's first 12 hex digits).
PRIVATE_SPLIT = "private split"
#: The part of a version label that names an offline-rules build.
OFFLINE_MARK = "+offline"
_CHANCE_DRAWS = 20_000
_CHANCE_QUANTILE = 0.975


def version_label(version: str | None, perturber_kind: str, generator: str) -> str | None:
    """A dataset's version as results show it: an offline-rules build carries its generator
    (``v1.0.0`` built by ``offline-rules/4`` -> ``v1.0.0+offline-rules.4``); an LLM build is the
    plain version."""
    if version is None or perturber_kind != "offline":
        return version
    return f"{version}+{generator.replace('/', '.')}"


@functools.cache
def chance_d_avg(dataset: str) -> float:
    """The 97.5 % quantile of the unweighted D_avg (paper combination) of a judge scoring at random
    on ``dataset``: each perturbation's metric p-values independent and uniform (the null), seeded."""
    spec = BENCHMARK[dataset]
    rng = np.random.default_rng(0)
    levels = [p.level for p in spec.perturbations]
    p = rng.random((_CHANCE_DRAWS, len(levels), len(spec.metrics)))
    d_avg, _ = avg_min(perturbation_d(p)[1], levels)
    return float(np.quantile(d_avg, _CHANCE_QUANTILE))


def caveats(r: Result) -> tuple[str, ...]:
    """The marks of ``r`` (empty when it is a full, covered, LLM-built result with intervals whose
    unweighted D_avg is above chance)."""
    marks: list[str] = []
    spec = BENCHMARK.get(r.dataset.name)
    if is_sample_version(r.dataset.version):
        marks.append(SAMPLE)
    if r.dataset.private and r.dataset.commitment:
        marks.append(f"{PRIVATE_SPLIT} {r.dataset.commitment[:12]}")
    if spec is not None and r.dataset.n_items < spec.selection.n_items:
        marks.append(f"{r.dataset.n_items}/{spec.selection.n_items} items")
    if r.coverage.coverage < 1.0:
        marks.append(f"coverage {r.coverage.percent}")  # the reports' one rounding rule: never "100%"
    if OFFLINE_MARK in (r.dataset.version or ""):
        marks.append("offline build")
    if not r.summary.ci:
        marks.append("no interval")
    d_avg = r.summary.d_avg
    if spec is not None and d_avg is not None and d_avg <= chance_d_avg(spec.name):
        marks.append(CHANCE)
    return tuple(marks)
