"""The Compare tab's size plot (issue 20) with matplotlib's object API (no pyplot state, safe in Gradio's
threads): Overall D_avg^EW against parameter count, the Pareto front numbered.

It is drawn for a phone: :data:`FIG_WIDTH_IN` wide (307 CSS px), sent as inline vector SVG
(:func:`size_svg`), so that on a 390 px screen it shows near its natural size and its smallest text
(:data:`MIN_FONT_PT`) stays about 10 px; a wider screen scales it up, sharp. The judge page's figures are
hand-written SVG (:mod:`dhp.leaderboard.page.judge_figures`): matplotlib cost them half a second each.
"""

from __future__ import annotations

import html
import io
import math
from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")

from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, NullFormatter

__all__ = ["FIG_WIDTH_IN", "MIN_FONT_PT", "pareto_front", "size_plot", "size_svg"]

#: The figure's width: what a 390 px phone shows of the page (3.2 in = 230 pt = 307 CSS px).
FIG_WIDTH_IN = 3.2
#: Their smallest text (tick labels, legends), in points: 7.5 pt = 10 CSS px at natural size.
MIN_FONT_PT = 7.5
_TEXT_PT = 8.5  # titles and axis labels

_D_COLOR = "#7aa6d6"
_EW_COLOR = "#1f4e89"


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
