"""Judge-page figures with matplotlib's object API (no pyplot state, safe in Gradio's threads).

* :func:`discernment_bars` — the paper's Figure 4 for one judge: per dataset, D^i and D^{i,EW} for
  every perturbation, bootstrap intervals where stored, and a red line at D = 1.
* :func:`score_distributions` — the response style: how often each score was given to the
  originals and to the perturbed texts, per metric. Only the paired differences enter D, so a
  harsh or lenient judge is not penalised; this plot shows which style the judge has.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")

import numpy as np
from matplotlib.figure import Figure

from dhp.scoring.results import Result

__all__ = ["discernment_bars", "score_distributions"]

_D_COLOR = "#7aa6d6"
_EW_COLOR = "#1f4e89"
_ORIG_COLOR = "#2e7d32"
_PERT_COLOR = "#c62828"


def _val(x: float | None) -> float:
    return 0.0 if x is None or not math.isfinite(x) else float(x)


def discernment_bars(results: Sequence[Result], title: str = "") -> Figure:
    """One panel per dataset (two per row): grouped bars of D and D^EW per perturbation."""
    n = max(1, len(results))
    ncols = 1 if n == 1 else 2
    nrows = math.ceil(n / ncols)
    fig = Figure(figsize=(6.2 * ncols, 3.6 * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    for ax in axes[len(results) :]:
        ax.set_visible(False)
    for ax, res in zip(axes, results, strict=False):
        ids = [p.id for p in res.perturbations]
        x = np.arange(len(ids))
        d = np.array([_val(p.d) for p in res.perturbations])
        dew = np.array([_val(p.d_ew) for p in res.perturbations])

        def err(cis: list[tuple[float, float] | None], centre: np.ndarray) -> np.ndarray | None:
            if not any(ci is not None for ci in cis):
                return None
            lo = [max(0.0, c - ci[0]) if ci else 0.0 for c, ci in zip(centre, cis, strict=True)]
            hi = [max(0.0, ci[1] - c) if ci else 0.0 for c, ci in zip(centre, cis, strict=True)]
            return np.array([lo, hi])

        d_err = err([(p.d_ci.low, p.d_ci.high) if p.d_ci else None for p in res.perturbations], d)
        ew_err = err([(p.d_ew_ci.low, p.d_ew_ci.high) if p.d_ew_ci else None for p in res.perturbations], dew)
        ax.bar(x - 0.2, d, 0.4, label="D", color=_D_COLOR, yerr=d_err, capsize=2, ecolor="#555")
        ax.bar(x + 0.2, dew, 0.4, label="D^EW", color=_EW_COLOR, yerr=ew_err, capsize=2, ecolor="#555")
        ax.axhline(1.0, color="red", linewidth=1.2, linestyle="--", label="D = 1 (p = 0.05)")
        ax.set_xticks(x, ids, rotation=45, ha="right", fontsize=7)
        s = res.summary
        ax.set_title(
            f"{res.dataset.name}  D_avg={_val(s.d_avg):.2f}  D_avg^EW={_val(s.d_avg_ew):.2f}  "
            f"D_min^EW={_val(s.d_min_ew):.2f}",
            fontsize=9,
        )
        ax.set_ylabel("discernment D")
        top = max(2.0, float(np.max(np.concatenate([d, dew]))) if len(ids) else 2.0)
        ax.set_ylim(0, top * 1.15)
        ax.grid(axis="y", alpha=0.3)
    if results:
        axes[0].legend(fontsize=7, loc="upper right")
    else:
        axes[0].text(0.5, 0.5, "no results", ha="center", va="center", transform=axes[0].transAxes)
        axes[0].set_axis_off()
    if title:
        fig.suptitle(title, fontsize=11)
    return fig


def score_distributions(result: Result) -> Figure:
    """Per metric, the share of each score (bins of 0.5 over the scale) for originals vs perturbed."""
    scores = result.scores
    metrics = list(result.perturbations[0].metrics) if result.perturbations else []
    if scores is not None:
        metrics = list(scores.original)
    n = max(1, len(metrics))
    fig = Figure(figsize=(3.4 * n, 3.0), layout="constrained")
    axes = fig.subplots(1, n, squeeze=False).ravel()
    if scores is None or not metrics:
        axes[0].text(0.5, 0.5, "item scores not stored in this result", ha="center", va="center")
        axes[0].set_axis_off()
        return fig
    edges = np.arange(0.75, 5.76, 0.5)
    centres = (edges[:-1] + edges[1:]) / 2
    for ax, m in zip(axes, metrics, strict=True):
        orig = np.array([v for v in scores.original[m] if v is not None], dtype=float)
        pert = np.array(
            [v for per in scores.perturbed.values() for v in per.get(m, ()) if v is not None], dtype=float
        )
        for data, label, color, shift in (
            (orig, "original", _ORIG_COLOR, -0.11),
            (pert, "perturbed", _PERT_COLOR, 0.11),
        ):
            if data.size == 0:
                continue
            h, _ = np.histogram(np.clip(data, 1, 5), bins=edges)
            ax.bar(
                centres + shift, h / data.size, 0.22, color=color, label=f"{label} (mean {data.mean():.2f})"
            )
        ax.set_title(m, fontsize=9)
        ax.set_xticks([1, 2, 3, 4, 5])
        ax.set_xlabel("score")
        ax.set_ylim(0, 1)
        ax.legend(fontsize=7, loc="upper left")
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel("share of scores")
    fig.suptitle(f"{result.judge.name} on {result.dataset.name}: response style", fontsize=10)
    return fig
