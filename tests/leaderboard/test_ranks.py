"""Rank ranges (issue 20): judges whose Overall intervals overlap share ranks; rows stay sorted by
the point estimate."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from dhp.leaderboard.board import columns, table
from dhp.leaderboard.board.ranks import (
    dataset_uniforms,
    joint_rank_ranges,
    pool_counts,
    rank_range,
    replicate_pvalues,
)
from dhp.scoring.pairs import pool_draw

NAN = math.nan


def test_joint_ranks_share_ranks_only_where_resamples_reorder_judges() -> None:
    rng = np.random.default_rng(0)
    shared = rng.normal(0, 1.0, 400)  # item-to-item variation every judge shares
    own = rng.normal(0, 0.05, (4, 400))
    # b is always 0.3 above c: wide marginal intervals that overlap, yet never reordered
    samples = np.stack(
        [10 + shared, 5.3 + shared + own[0], 5.0 + shared + own[1], 1.0 + own[2], 1.02 + own[3]]
    )
    points = [10.0, 5.3, 5.0, 1.0, 1.02]
    spans = joint_rank_ranges(points, samples)
    assert spans == [(1, 1), (2, 2), (3, 3), (4, 5), (4, 5)]
    # the overlap rule of separate intervals would have let b and c share ranks 2-3
    assert joint_rank_ranges([3.0, NAN], np.array([[3.0] * 5, [NAN] * 5])) == [(1, 1), None]
    # no samples: each judge its point estimate; equal estimates share the rank
    assert joint_rank_ranges([2.0, 2.0, 1.0], np.array([[2.0], [2.0], [1.0]])) == [(1, 1), (1, 1), (3, 3)]
    assert [rank_range(1, 1), rank_range(2, 5)] == ["1", "2–5"]


def test_the_range_always_holds_the_point_rank() -> None:
    # a judge ranked 2nd by its estimate but 1st in every replicate: the range still says 2
    spans = joint_rank_ranges([5.0, 4.9], np.array([[1.0] * 10, [9.0] * 10]))
    assert spans == [(1, 2), (1, 2)]


def test_joint_draws_take_exactly_each_pool_and_depend_on_the_dataset_only() -> None:
    """Every replicate draws exactly the pool's size (issue 35: the Poisson draw held 75-129 of 100
    items, and the Overall's interval followed that count); the uniforms are the dataset's, so two
    judges with the same pool get the same draw, and a wider table keeps its first columns."""
    u = dataset_uniforms("summeval", 40, 50, 0)
    assert u.shape == (50, 40) and (dataset_uniforms("summeval", 60, 50, 0)[:, :40] == u).all()
    assert not (dataset_uniforms("summeval", 40, 50, 1) == u).all()  # the seed matters
    assert not (dataset_uniforms("sumpubmed", 40, 50, 0) == u).all()  # so does the dataset
    pool = np.array([0, 3, 5, 7, 9, 11, 30], dtype=np.int64)
    counts = pool_counts(u, pool, 40)
    assert counts.shape == (50, 40) and (counts.sum(axis=1) == pool.size).all()
    assert (counts[:, np.setdiff1d(np.arange(40), pool)] == 0).all()  # only the pool's items
    assert (pool_counts(u, pool, 40) == counts).all()
    assert 0.7 < counts[:, pool].mean() < 1.3


def test_replicate_pvalues_equal_the_expanded_resample_tested_by_stats() -> None:
    from dhp.scoring.wilcoxon import wilcoxon_greater_batch
    from tests.leaderboard.factory import make_result

    r = make_result("j", "wmt22-de-en", skill=0.2, n_items=80)
    assert r.scores is not None
    rp = replicate_pvalues(r, n_boot=40)
    assert rp is not None and rp.log_p.shape == (40, 10, 2)
    u = dataset_uniforms(r.dataset.name, 80, 40, 0)
    for i, pid in enumerate(rp.perturbations):
        for j, m in enumerate(rp.metrics):
            o = np.array([v if v is not None else NAN for v in r.scores.original[m]])
            q = np.array([v if v is not None else NAN for v in r.scores.perturbed[pid][m]])
            idx = pool_draw(u, np.flatnonzero(~np.isnan(o - q)).astype(np.int64))
            expected = wilcoxon_greater_batch(o[idx], q[idx], method="asymptotic")
            assert rp.pvalues[:, i, j] == pytest.approx(expected, rel=1e-5)
    assert replicate_pvalues(r.model_copy(update={"scores": None})) is None


def test_the_board_ranks_from_the_joint_bootstrap(tmp_path: Path) -> None:
    """Two judges with the same skill tie; a much better one ranks first alone; a filter re-ranks."""
    from dhp.leaderboard.board.stores import LocalStore
    from dhp.leaderboard.page.service import AppConfig, BoardService
    from dhp.scoring.result_files import dump_result
    from tests.leaderboard.factory import make_result

    root = tmp_path / "results"
    for name, skill, seed in (("Strong", 1.2, 0), ("Twin-a", 0.25, 1), ("Twin-b", 0.25, 2), ("Weak", 0.0, 3)):
        for ds in ("summeval", "wmt22-de-en"):
            r = make_result(name, ds, skill=skill, n_items=60, seed=seed, hf_model_id=f"org/{name}")
            (root / name).mkdir(parents=True, exist_ok=True)
            (root / name / f"{ds}@v1.json").write_text(dump_result(r))
    be = BoardService(
        AppConfig(
            results=LocalStore(root), requests=LocalStore(tmp_path / "q"), votes=LocalStore(tmp_path / "v")
        )
    )
    view = be.view(datasets=["summeval", "wmt22-de-en"])
    ranks = dict(zip(view["Judge"], view[table.RANK], strict=True))
    assert ranks["Strong"] == "1"
    assert "–" in ranks["Twin-a"] and ranks["Twin-a"] == ranks["Twin-b"]  # indistinguishable: shared
    assert list(view["Judge"]) == sorted(
        view["Judge"], key=lambda j: -view.set_index("Judge").loc[j, "Overall D_avg^EW"]
    )  # sorted by the point estimate
    alone = be.view(search="Twin-a", datasets=["summeval"])
    assert list(alone[table.RANK]) == ["1"]  # ranked only against the judges shown


def test_pareto_front_keeps_only_judges_no_smaller_judge_beats() -> None:
    from dhp.leaderboard.page.plots import pareto_front

    pts = [
        ("big", 70.0, 3.0),
        ("mid", 7.0, 2.0),
        ("bloated", 30.0, 1.5),
        ("tiny", 1.0, 0.5),
        ("twin", 7.0, 2.0),
    ]
    assert pareto_front(pts) == ["tiny", "mid", "big"]
    assert pareto_front([]) == []


def test_size_points_take_declared_sizes_and_controls_as_reference_lines(tmp_path: Path) -> None:
    from matplotlib.lines import Line2D

    from dhp.leaderboard.board.stores import LocalStore
    from dhp.leaderboard.page.compare_view import size_points
    from dhp.leaderboard.page.plots import size_plot
    from dhp.leaderboard.page.service import AppConfig, BoardService
    from dhp.scoring.result_files import dump_result
    from tests.leaderboard.factory import make_result

    root = tmp_path / "results"
    judges = [("Big", 0.9, 70e9), ("Small", 0.3, 2e9), ("Unsized", 0.5, None)]
    for ds in ("summeval", "story-cloze"):
        for name, skill, params in judges:
            r = make_result(name, ds, skill=skill, n_params=params, n_items=20)
            (root / name / f"{ds}@v1.json").parent.mkdir(parents=True, exist_ok=True)
            (root / name / f"{ds}@v1.json").write_text(dump_result(r))
        r = make_result("random", ds, skill=0.0, protocol="builtin", model="random", n_items=20)
        (root / "random").mkdir(exist_ok=True)
        (root / "random" / f"{ds}@v1.json").write_text(dump_result(r))
    be = BoardService(
        AppConfig(
            results=LocalStore(root), requests=LocalStore(tmp_path / "q"), votes=LocalStore(tmp_path / "v")
        )
    )
    full, _ = be.frame()
    points, controls = size_points(full)
    assert sorted((n, s) for n, s, _ in points) == [("Big", 70.0), ("Small", 2.0)]
    assert [n for n, _ in controls] == ["random"]
    big = next(d for n, _, d in points if n == "Big")
    expected = (
        full.loc[full["Judge"] == "Big", ["summeval D_avg^EW", "story-cloze D_avg^EW"]].mean(axis=1)
    ).item()
    assert big == pytest.approx(expected)
    fig = size_plot(points, controls)
    (ax,) = fig.axes
    ys = [list(np.asarray(ln.get_ydata(), dtype=float)) for ln in ax.get_lines() if isinstance(ln, Line2D)]
    flat = [y for y in ys if len(set(y)) == 1]
    assert any(y[0] == pytest.approx(controls[0][1]) for y in flat)  # the control's reference line
    assert ax.get_xscale() == "log"


def test_replicate_d_avg_recombines_like_the_result_summary() -> None:
    """Fed the stored point p-values, a replicate's D_avg and D_avg^EW are the result's own, under
    the scored weights and under others (the survey's): the combination is the scorer's."""
    from dataclasses import replace

    from dhp.scoring.summary import reweight
    from tests.leaderboard.factory import make_result

    r = make_result("j", "summeval", skill=0.4, n_items=40)
    rp = replicate_pvalues(r, n_boot=3)
    assert rp is not None
    stored = np.array(
        [
            [
                [NAN if pr.metrics[m].p is None else pr.metrics[m].p for m in rp.metrics]
                for pr in r.perturbations
            ]
        ]
        * 3
    )
    point = replace(rp, log_p=np.log(stored).astype(np.float32))
    d_un, d_ew = point.d_avg(None), point.d_avg(rp.weights)
    assert d_un == pytest.approx([r.summary.d_avg] * 3, rel=1e-5)
    assert d_ew == pytest.approx([r.summary.d_avg_ew] * 3, rel=1e-5)
    flat = {pid: dict.fromkeys(rp.metrics, 1.0 / len(rp.metrics)) for pid in rp.perturbations}
    assert point.d_avg(flat) == pytest.approx([reweight(r, flat).d_avg_ew] * 3, rel=1e-5)


@pytest.mark.slow  # a 700-item result (~6-10 s)
def test_tiny_p_values_keep_their_size() -> None:
    """p-values far below float32's range (a strong judge on many items) are kept as logs: the
    replicates' D_avg stays near the estimate instead of jumping to the floor's D_MAX."""
    from dhp.scoring.stats import D_MAX
    from tests.leaderboard.factory import make_result

    r = make_result("s", "answer-equivalence", skill=3.0, n_items=700)
    assert r.summary.d_avg is not None and r.summary.d_avg > 30  # p-values below 1e-39
    rp = replicate_pvalues(r, n_boot=20)
    assert rp is not None
    d_un = rp.scored[0]
    assert d_un.max() < D_MAX / 2
    assert float(np.median(d_un)) == pytest.approx(r.summary.d_avg, rel=0.3)


def test_exact_test_replicates_are_scipys_exact_method_on_the_expanded_resample() -> None:
    """A result whose D comes from the exact test (continuous scores, 40 pairs): every replicate is
    tested as its point was, by scipy's ``method="exact"``, from the multiplicities (the former way,
    the tie-aware sign-flip programme on each expanded resample, took seconds a file)."""
    from scipy import stats as sps

    from tests.leaderboard.continuous import continuous_result

    r = continuous_result("c", "wmt22-de-en", 40, 7)
    assert r.scores is not None
    p0 = r.perturbations[0]
    m = next(iter(p0.metrics))
    assert p0.metrics[m].test_method == "exact"
    rp = replicate_pvalues(r, n_boot=30)
    assert rp is not None
    o = np.array(r.scores.original[m], dtype=float)
    q = np.array([v if v is not None else NAN for v in r.scores.perturbed[p0.id][m]])
    idx = pool_draw(
        dataset_uniforms(r.dataset.name, 40, 30, 0), np.flatnonzero(~np.isnan(o - q)).astype(np.int64)
    )
    i, j = rp.perturbations.index(p0.id), rp.metrics.index(m)
    for b in range(30):
        keep = idx[b]
        ref = sps.wilcoxon(o[keep], q[keep], alternative="greater", method="exact").pvalue
        assert rp.pvalues[b, i, j] == pytest.approx(float(ref), rel=1e-5)


def test_the_overall_interval_comes_from_the_joint_bootstrap_of_the_ranks(tmp_path: Path) -> None:
    """Not the mean of the datasets' bounds: the interval of each judge's replicate Overall (the
    ranks' replicates) around its point Overall; none for a judge without item scores."""
    from dhp.leaderboard.board.ranks import RankSamples, overall_intervals
    from dhp.leaderboard.board.stores import LocalStore
    from dhp.leaderboard.page.service import AppConfig, BoardService
    from dhp.scoring.result_files import dump_result
    from dhp.scoring.stats import interval
    from tests.leaderboard.factory import make_result

    dss = ("summeval", "wmt22-de-en")
    res = {
        (j, ds): make_result(j, ds, skill=s, n_items=50, seed=k, n_boot=200, hf_model_id=f"org/{j}")
        for k, (j, s) in enumerate((("Strong", 1.0), ("Mid", 0.4)))
        for ds in dss
    }
    rs = RankSamples.of({j: {ds: replicate_pvalues(res[j, ds]) for ds in dss} for j in ("Strong", "Mid")})
    pts = np.array([[res[j, ds].summary.d_avg_ew for ds in dss] for j in ("Strong", "Mid")], dtype=float)
    low, high = overall_intervals(rs, ["Strong", "Mid"], dss, True, pts)
    rows = rs.overall(["Strong", "Mid"], dss, True, pts)
    for k in range(2):
        iv = interval(rows[k], 0.95, float(pts[k].mean()))
        assert iv is not None and (low[k], high[k]) == (iv.low, iv.high)
        assert low[k] <= pts[k].mean() <= high[k]
    none = overall_intervals(RankSamples.of({"Strong": {"summeval": None}}), ["Strong"], dss, True, pts[:1])
    assert all(math.isnan(v) for v in (*none[0], *none[1]))

    root = tmp_path / "results"
    for (name, ds), r in res.items():
        (root / name).mkdir(parents=True, exist_ok=True)
        (root / name / f"{ds}@v1.json").write_text(dump_result(r))
    be = BoardService(
        AppConfig(
            results=LocalStore(root), requests=LocalStore(tmp_path / "q"), votes=LocalStore(tmp_path / "v")
        )
    )
    view = be.view(datasets=list(dss)).set_index("Judge")
    lo_c, hi_c = columns.interval_columns("Overall D_avg^EW")
    for k, j in enumerate(("Strong", "Mid")):
        assert (view.loc[j, lo_c], view.loc[j, hi_c]) == pytest.approx((low[k], high[k]))
        mean_lo = np.mean(
            [view.loc[j, columns.interval_columns(columns.dataset_columns(d, True)[0])[0]] for d in dss]
        )
        assert view.loc[j, lo_c] != pytest.approx(mean_lo)  # not the mean of the bounds


def test_a_one_dataset_view_s_overall_is_that_dataset_s_d_and_interval(tmp_path: Path) -> None:
    """Issue 35: a one-dataset view read `16.80 [13.70, 19.63]` under Overall and `16.80 [16.53,
    17.04]` under the dataset; the Overall of one dataset is that dataset, interval and all."""
    from dhp.leaderboard.board.stores import LocalStore
    from dhp.leaderboard.page.service import AppConfig, BoardService
    from dhp.scoring.result_files import dump_result
    from tests.leaderboard.factory import make_result

    root = tmp_path / "results"
    for k, (j, skill) in enumerate((("Strong", 1.0), ("Mid", 0.4))):
        for ds in ("summeval", "wmt22-de-en"):
            (root / j).mkdir(parents=True, exist_ok=True)
            r = make_result(j, ds, skill=skill, n_items=50, seed=k, n_boot=200, hf_model_id=f"org/{j}")
            (root / j / f"{ds}@v1.json").write_text(dump_result(r))
    be = BoardService(
        AppConfig(
            results=LocalStore(root), requests=LocalStore(tmp_path / "q"), votes=LocalStore(tmp_path / "v")
        )
    )
    view = be.view(datasets=["summeval"]).set_index("Judge")
    col = columns.dataset_columns("summeval", True)[0]

    def cell(j: str, c: str) -> float:
        return float(view.loc[j, c])  # type: ignore[arg-type]

    for j in ("Strong", "Mid"):
        assert cell(j, "Overall D_avg^EW") == cell(j, col)
        for o, d in zip(
            columns.interval_columns("Overall D_avg^EW"), columns.interval_columns(col), strict=True
        ):
            assert math.isfinite(cell(j, d)) and cell(j, o) == cell(j, d)
