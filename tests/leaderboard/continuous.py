"""Results of an expected-mode judge (continuous scores): every test of <= 50 pairs is exact."""

from __future__ import annotations

import numpy as np

from dhp.scoring.analysis import analyse
from dhp.scoring.results import ItemScores, Result
from dhp.scoring.summary import result_from_analysis
from dhp.spec import BENCHMARK
from tests.leaderboard.factory import make_result


def continuous_result(judge: str, dataset: str, n_items: int, seed: int) -> Result:
    """A result of an expected-mode judge: continuous scores, so every D of <= 50 pairs is exact."""
    spec = BENCHMARK[dataset]
    rng = np.random.default_rng(seed)
    orig = {m: rng.uniform(1, 5, n_items) for m in spec.metric_names}
    pert = {
        p: {m: orig[m] - rng.normal(0.3, 0.8, n_items) for m in spec.metric_names}
        for p in spec.perturbation_ids
    }
    env = make_result(judge, dataset, n_items=n_items, seed=seed)  # the envelope: judge, dataset, settings
    levels = {p.id: p.level for p in spec.perturbations}
    an = analyse(orig, pert, levels, dict(env.scoring.weights), n_boot=0)
    assert env.scores is not None
    scores = ItemScores(
        item_ids=env.scores.item_ids,
        original={m: tuple(float(x) for x in v) for m, v in orig.items()},
        perturbed={p: {m: tuple(float(x) for x in v) for m, v in d.items()} for p, d in pert.items()},
    )
    return result_from_analysis(
        an,
        judge=env.judge,
        dataset=env.dataset,
        scoring=env.scoring,
        coverage=env.coverage,
        timing=env.timing,
        scores=scores,
        created_at=env.created_at,
        dhp_version=env.dhp_version,
    )
