"""Judge-page figures with matplotlib's object API (no pyplot state, safe in Gradio's threads).

They are drawn for a phone: :data:`FIG_WIDTH_IN` wide (307 CSS px), sent as vector SVG
(:func:`figure_html`), so that on a 390 px screen they show near their natural size and their
smallest text (:data:`MIN_FONT_PT`) stays about 10 px; a wider screen scales them up, sharp.

* :func:`discernment_bars` — the paper's Figure 4 for one judge: per dataset, D^i and D^{i,EW} for
  every perturbation, bootstrap intervals where stored, and a red line at D = 1.
* :func:`score_distributions` — the response style: how often each score was given to the
  originals and to the perturbed texts, per metric. Only the paired differences enter D, so a
  harsh or lenient judge is not penalised; this plot shows which style the judge has.
"""

from __future__ import annotations

import base64
import html
import io
import math
import textwrap
from collections.abc import Sequence
from typing import Any

import matplotlib

matplotlib.use("Agg")

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, NullFormatter

from dhp.scoring.results import Result

__all__ = [
    "FIG_WIDTH_IN",
    "MIN_FONT_PT",
    "discernment_bars",
    "figure_html",
    "pareto_front",
    "score_distributions",
    "size_plot",
    "size_svg",
]

#: The judge-page figures' width: what a 390 px phone shows of the page (3.2 in = 230 pt = 307 CSS px).
FIG_WIDTH_IN = 3.2
#: Their smallest text (tick labels, legends), in points: 7.5 pt = 10 CSS px at natural size.
MIN_FONT_PT = 7.5
_TEXT_PT = 8.5  # titles and axis labels

_D_COLOR = "#7aa6d6"
_EW_COLOR = "#1f4e89"
_ORIG_COLOR = "#2e7d32"
_PERT_COLOR = "#c62828"


def _val(x: float | None) -> float:
    """A D for plotting: NaN (no bar) when there is none, never 0."""
    return math.nan if x is None or not math.isfinite(x) else float(x)


def _err(cis: list[tuple[float, float] | None], centre: np.ndarray) -> np.ndarray | None:
    """Asymmetric error bars from intervals (0 where none, or where the bar itself is missing)."""
    if not any(ci is not None for ci in cis):
        return None
    ok = [ci is not None and math.isfinite(c) for ci, c in zip(cis, centre, strict=True)]
    lo = [max(0.0, c - ci[0]) if k and ci else 0.0 for c, ci, k in zip(centre, cis, ok, strict=True)]
    hi = [max(0.0, ci[1] - c) if k and ci else 0.0 for c, ci, k in zip(centre, cis, ok, strict=True)]
    return np.array([lo, hi])


def _top(values: np.ndarray, cis: list[tuple[float, float] | None]) -> float:
    """The y-axis top: above every bar and every interval's upper end (and above D = 1)."""
    highs = [float(v) for v in values.tolist() if math.isfinite(v)] + [ci[1] for ci in cis if ci is not None]
    return float(max([2.0, *highs])) * 1.08


def _panel(ax: Any, res: Result) -> None:
    ps = res.perturbations
    x = np.arange(len(ps))
    d = np.array([_val(p.d) for p in ps])
    dew = np.array([_val(p.d_ew) for p in ps])
    d_cis = [(p.d_ci.low, p.d_ci.high) if p.d_ci else None for p in ps]
    ew_cis = [(p.d_ew_ci.low, p.d_ew_ci.high) if p.d_ew_ci else None for p in ps]
    ax.bar(x - 0.2, d, 0.4, label="D", color=_D_COLOR, yerr=_err(d_cis, d), capsize=2, ecolor="#555")
    ax.bar(x + 0.2, dew, 0.4, label="D^EW", color=_EW_COLOR, yerr=_err(ew_cis, dew), capsize=2, ecolor="#555")
    ax.axhline(1.0, color="red", linewidth=1.2, linestyle="--", label="D = 1 (p = 0.05)")
    for i, p in enumerate(ps):
        if p.d is None and p.d_ew is None:
            ax.text(i, 0.05, "–", ha="center", va="bottom", fontsize=9, color="#555")  # no D: not 0
    ax.set_xticks(x, [p.id for p in ps], rotation=90, fontsize=MIN_FONT_PT)
    ax.tick_params(axis="y", labelsize=MIN_FONT_PT)
    ax.set_xlim(-0.6, len(ps) - 0.4)
    s = res.summary
    ax.set_title(
        f"{res.dataset.name}\nD_avg^EW {_fmt(s.d_avg_ew)}, D_min^EW {_fmt(s.d_min_ew)}",
        fontsize=_TEXT_PT,
        loc="left",
    )  # two lines: one would run past a phone-wide figure
    ax.set_ylabel("D", fontsize=_TEXT_PT)
    ax.set_ylim(0, _top(np.concatenate([d, dew]), d_cis + ew_cis))
    ax.grid(axis="y", alpha=0.3)


def _fmt(x: float | None) -> str:
    return "–" if x is None or not math.isfinite(x) else f"{x:.2f}"


def discernment_bars(results: Sequence[Result], title: str = "") -> Figure:
    """One panel per dataset, stacked (readable on a phone): grouped bars of D and D^EW per
    perturbation with their intervals; the y axis fits the intervals; the legend sits below the panels."""
    n = max(1, len(results))
    fig = Figure(figsize=(FIG_WIDTH_IN, 2.9 * n + 0.7), layout="constrained")
    axes = fig.subplots(n, 1, squeeze=False).ravel()
    for ax, res in zip(axes, results, strict=False):
        _panel(ax, res)
    if results:
        handles, labels = axes[0].get_legend_handles_labels()
        fig.legend(handles, labels, loc="outside lower center", ncols=3, fontsize=MIN_FONT_PT, frameon=False)
    else:
        axes[0].text(0.5, 0.5, "no results", ha="center", va="center", transform=axes[0].transAxes)
        axes[0].set_axis_off()
    if title:
        fig.suptitle(_plain(_wrap(title)), fontsize=_TEXT_PT)
    return fig


def _wrap(title: str) -> str:
    """A figure title in lines that fit a phone-wide figure."""
    return textwrap.fill(title, width=44, break_long_words=False)


def score_distributions(result: Result) -> Figure:
    """Per metric, the share of each score (bins of 0.5 over the scale) for originals vs perturbed."""
    scores = result.scores
    metrics = list(result.perturbations[0].metrics) if result.perturbations else []
    if scores is not None:
        metrics = list(scores.original)
    n = max(1, len(metrics))
    cols = min(n, 2)  # two panels a row fit a phone's width
    rows = math.ceil(n / cols)
    fig = Figure(figsize=(FIG_WIDTH_IN, 2.3 * rows + 0.5), layout="constrained")
    grid = fig.subplots(rows, cols, squeeze=False).ravel()
    for ax in grid[n:]:
        ax.set_axis_off()
    axes = grid[:n]
    if scores is None or not metrics:
        axes[0].text(0.5, 0.5, "item scores not stored\nin this result", ha="center", va="center",
                     fontsize=_TEXT_PT)  # fmt: skip
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
            ax.bar(centres + shift, h / data.size, 0.22, color=color, label=label)
        means = " → ".join(f"{d.mean():.2f}" if d.size else "–" for d in (orig, pert))
        ax.set_title(f"{m}\nmean {means}", fontsize=MIN_FONT_PT)
        ax.set_xticks([1, 2, 3, 4, 5])
        ax.tick_params(labelsize=MIN_FONT_PT)
        ax.set_xlabel("score", fontsize=MIN_FONT_PT)
        ax.set_ylim(0, 1)
        ax.grid(axis="y", alpha=0.3)
    for ax in grid[::cols]:
        ax.set_ylabel("share of scores", fontsize=MIN_FONT_PT)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=2, fontsize=MIN_FONT_PT, frameon=False)
    title = _plain(_wrap(f"{result.judge.name} on {result.dataset.name}: response style"))
    fig.suptitle(f"{title}\n(panel titles: mean original → mean perturbed)", fontsize=_TEXT_PT)
    return fig


def figure_html(fig: Figure | None, alt: str) -> str:
    """The figure as an ``<img>`` of vector SVG (text kept as text, so it stays sharp when scaled),
    for a ``gr.HTML``; "" for no figure."""
    if fig is None:
        return ""
    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "dhp"}):
        fig.savefig(buf, format="svg", metadata={"Date": None})
    data = base64.b64encode(buf.getvalue().encode("utf-8")).decode("ascii")
    return f'<img class="dhp-figure" alt="{html.escape(alt)}" src="data:image/svg+xml;base64,{data}">'


# ---------------------------------------------------------------------------------------------
# Size: Overall D_avg^EW against parameter count (issue 20)
def pareto_front(points: Sequence[tuple[str, float, float]]) -> list[str]:
    """Names of the (name, params, D) points no other point beats with as few or fewer parameters
    and a higher D; in order of size. A point equal in both to an earlier one is not on the front."""
    front: list[str] = []
    best = -math.inf
    for name, _, d in sorted(points, key=lambda p: (p[1], -p[2], p[0])):
        if d > best:
            front.append(name)
            best = d
    return front


def _plain(text: str) -> str:
    """A user string as literal text in a figure: ``$`` would start matplotlib's mathtext."""
    return text.replace("$", r"\$")


#: The size plot's width: a phone's, as the judge page's figures (its text about 10 px there).
SIZE_WIDTH_IN = FIG_WIDTH_IN
_POINT_GID = "dhp-point-"


def size_plot(points: Sequence[tuple[str, float, float]], controls: Sequence[tuple[str, float]]) -> Figure:
    """Overall D_avg^EW (y) against parameters in billions (x, log scale) for the judges that declare
    their size; the Pareto front joined and numbered in order of size (1, 2, ...; :func:`size_svg` lists
    their names under the figure: at 150 judges every name drawn was a smear, and the front's crowded);
    every point is its own artist with gid ``dhp-point-<i>`` (``i``: its index in ``points``), so
    :func:`size_svg` gives it its name on hover; control judges as horizontal reference lines."""
    fig = Figure(figsize=(SIZE_WIDTH_IN, 3.4), layout="constrained")
    ax = fig.subplots()
    front = pareto_front(points)
    on = [p for p in sorted(points, key=lambda p: p[1]) if p[0] in front]
    if on:
        ax.plot([p[1] for p in on], [p[2] for p in on], "-", color=_EW_COLOR, label="Pareto front", zorder=4)
    seen: set[str] = set()
    for i, (name, x, y) in enumerate(points):
        kind = "front" if name in front else "judge"
        label = "judge (name on hover)" if kind == "judge" and kind not in seen else None
        seen.add(kind)
        color, size = (_EW_COLOR, 22) if kind == "front" else (_D_COLOR, 14)
        ax.scatter([x], [y], s=size, color=color, zorder=5 if kind == "front" else 3, label=label).set_gid(
            f"{_POINT_GID}{i}"
        )
    for k, (_, x, y) in enumerate(on, 1):  # alternately above and below: neighbours on the front are close
        ax.annotate(str(k), (x, y), textcoords="offset points", xytext=(0, 5 if k % 2 else -11),
                    ha="center", fontsize=MIN_FONT_PT, color=_EW_COLOR, fontweight="bold")  # fmt: skip
    for i, (name, d) in enumerate(controls):
        ax.axhline(d, linestyle=("--", ":", "-.")[i % 3], color="grey", linewidth=1,
                   label=_plain(f"control: {name}"))  # fmt: skip
    ax.axhline(1.0, color="crimson", linewidth=0.8, alpha=0.6, label="D = 1 (p = 0.05)")
    if points:
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}B"))
        ax.xaxis.set_minor_formatter(NullFormatter())
    else:
        ax.text(0.5, 0.5, "No judge declares its parameter count yet.", ha="center", transform=ax.transAxes,
                fontsize=_TEXT_PT)  # fmt: skip
    ax.set_xlabel("parameters (billions)", fontsize=_TEXT_PT)
    ax.set_ylabel("Overall $D_{avg}^{EW}$", fontsize=_TEXT_PT)
    ax.tick_params(labelsize=MIN_FONT_PT)
    ax.grid(alpha=0.3)
    fig.legend(loc="outside lower center", ncols=2, fontsize=MIN_FONT_PT, frameon=False)
    return fig


def size_svg(points: Sequence[tuple[str, float, float]], controls: Sequence[tuple[str, float]]) -> str:
    """:func:`size_plot` as inline SVG for a ``gr.HTML``: each point carries its full name,
    size and D as an SVG ``<title>`` (shown on hover), the figure an alt text naming the front."""
    fig = size_plot(points, controls)
    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "dhp-size"}):
        fig.savefig(buf, format="svg", metadata={"Date": None})
    svg = buf.getvalue()
    svg = svg[svg.index("<svg") :]  # no XML prolog or doctype inside HTML
    for i, (name, x, y) in enumerate(points):
        tip = html.escape(f"{name}: {x:g}B parameters, Overall D_avg^EW {y:.2f}", quote=False)
        svg = svg.replace(f'<g id="{_POINT_GID}{i}">', f'<g id="{_POINT_GID}{i}"><title>{tip}</title>', 1)
    front = pareto_front(points)
    alt = (
        f"Overall D_avg^EW against parameter count for {len(points)} judges that declare their size; "
        + (f"Pareto front: {', '.join(front)}" if front else "no judge declares its size yet")
        + "."
    )
    on = sorted((p for p in points if p[0] in front), key=lambda p: p[1])
    names = "".join(
        f"<li>{html.escape(n)} <span>({x:g}B, {y:.2f})</span></li>" for n, x, y in on
    )  # the numbers drawn on the front, in order
    caption = (
        f"<figcaption>The Pareto front (no smaller judge discerns more), numbered in the plot:"
        f'<ol class="dhp-front">{names}</ol></figcaption>'
        if on
        else ""
    )
    # the SVG named for screen readers (its own title and label), and every point readable without a
    # hover (a phone has none): a table of every judge in the plot, folded under the figure
    end = svg.index(">", svg.index("<svg"))  # the end of the root element's opening tag
    head = svg[:end].replace("<svg", f'<svg aria-label="{html.escape(alt)}"', 1)
    svg = f"{head}><title>{html.escape(alt, quote=False)}</title>{svg[end + 1 :]}"
    rows = "".join(
        f"<tr><td>{html.escape(n)}</td><td>{x:g}B</td><td>{y:.2f}</td></tr>"
        for n, x, y in sorted(points, key=lambda p: (-p[2], p[0]))
    )
    listing = (
        f"<details><summary>Every judge in the plot ({len(points)}): size and Overall D_avg^EW</summary>"
        f'<table class="dhp-points"><thead><tr><th>judge</th><th>size</th><th>D_avg^EW</th></tr></thead>'
        f"<tbody>{rows}</tbody></table></details>"
        if points
        else ""
    )
    return (
        f'<figure class="dhp-size"><div role="img" aria-label="{html.escape(alt)}">{svg}</div>{caption}'
        f"{listing}</figure>"
    )
