"""The judge page's figures as hand-written SVG: milliseconds where matplotlib took about half a second a
figure (issue 37: its layout and SVG writer were most of a page's drawing, paid by every judge page never
drawn before).

* :func:`discernment_svg` — the paper's Figure 4 for one judge: per dataset, D^i and D^{i,EW} for every
  perturbation, bootstrap intervals where stored, and a dashed red line at D = 1.
* :func:`distributions_svg` — the response style: how often each score was given to the originals and
  to the perturbed texts, per metric. Only the paired differences enter D, so a harsh or lenient judge
  is not penalised; this plot shows which style the judge has.

Both are drawn for a phone: :data:`WIDTH` units wide (a 390 px phone shows them 302 CSS px wide), inline
in the page (the stylesheet lets a wider screen scale them up to 420 px), so their smallest text
(:data:`MIN_FONT_PX`) is at least 11 px on a phone. Every text is dark on white (contrast at least 4.5:1); the
figure is named for screen readers (``role="img"``, ``aria-label`` and ``<title>``), and every bar group
carries a ``<title>`` with its numbers (shown on hover). Pure: no plotting library is imported.
"""

from __future__ import annotations

import html
import math
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

from dhp.scoring.results import CIModel, PerturbationResult, Result

__all__ = ["MIN_FONT_PX", "WIDTH", "discernment_svg", "distributions_svg"]

#: The figures' width in SVG units: a little less than the CSS px a 390 px phone gives them (302).
WIDTH = 290
#: The smallest text, in SVG units (tick labels, legends, rotated perturbation names).
MIN_FONT_PX = 11
_TITLE_PX = 12  # titles
_CHAR_EM = 0.6  # a generous mean glyph width of a sans-serif, in em: the room a label is given
_LINE = 15  # a line of title text

_INK = "#222222"  # text: 15.9:1 on white
_SUB = "#4d4d4d"  # tick labels: 8.5:1
_AXIS = "#767676"
_GRID = "#e2e2e2"
_D_COLOR = "#5b8fc7"  # bars: 3.4:1 on white (a graphic's minimum is 3:1)
_EW_COLOR = "#1f4e89"
_LINE_COLOR = "#c62828"  # 5.6:1
_ORIG_COLOR = "#2e7d32"  # 5.1:1
_PERT_COLOR = "#c62828"
_WHISKER = "#333333"
_FONTS = "DejaVu Sans, Arial, Helvetica, sans-serif"


def _f(x: float) -> str:
    """A coordinate: one decimal at most."""
    s = f"{x:.1f}"
    return s[:-2] if s.endswith(".0") else s


def _esc(s: str) -> str:
    return html.escape(s, quote=True)


def _fmt(x: float | None) -> str:
    return "–" if x is None or not math.isfinite(x) else f"{x:.2f}"


def _text(x: float, y: float, s: str, *, size: int = MIN_FONT_PX, anchor: str = "start",
          fill: str = _INK, rotate: bool = False, bold: bool = False) -> str:  # fmt: skip
    """A text at (x, y) (its baseline); ``rotate``: read upwards, turned about (x, y)."""
    extra = (' font-weight="bold"' if bold else "") + (
        f' transform="rotate(-90 {_f(x)} {_f(y)})"' if rotate else ""
    )
    return (
        f'<text x="{_f(x)}" y="{_f(y)}" font-size="{size}" text-anchor="{anchor}" fill="{fill}"{extra}>'
        f"{_esc(s)}</text>"
    )


def _width(s: str, size: int = MIN_FONT_PX) -> float:
    """The room a text is given, in SVG units."""
    return len(s) * size * _CHAR_EM


def _lines(
    x: float, y: float, text: str, size: int = _TITLE_PX, *, bold: bool = False
) -> tuple[list[str], float]:
    """A title wrapped to the figure's width, from baseline ``y``: (its texts, the y below it)."""
    width = max(10, int((WIDTH - 2 * x) / (size * _CHAR_EM)))
    out = []
    for line in textwrap.wrap(text, width=width) or [""]:
        out.append(_text(x, y, line, size=size, bold=bold))
        y += _LINE
    return out, y


def _svg(height: float, alt: str, body: Sequence[str]) -> str:
    """The figure: its accessible name both as ``aria-label`` and as ``<title>``, on white."""
    name = _esc(alt)
    return (
        f'<svg class="dhp-figure" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {_f(height)}" '
        f'role="img" aria-label="{name}" font-family="{_FONTS}"><title>{name}</title>'
        f'<rect width="{WIDTH}" height="{_f(height)}" fill="#ffffff"/>{"".join(body)}</svg>'
    )


@dataclass(frozen=True)
class _PlotArea:
    """A panel's plotting rectangle (SVG units) and the values it shows: y from 0 to ``top``, x from
    ``x_lo`` to ``x_hi``."""

    x: float
    y: float
    w: float
    h: float
    top: float
    x_lo: float = 0.0
    x_hi: float = 1.0

    @property
    def bottom(self) -> float:
        return self.y + self.h

    def sy(self, v: float) -> float:
        """A value's y, kept inside the area."""
        return self.y + self.h * (1 - min(max(v, 0.0), self.top) / self.top)

    def sx(self, v: float) -> float:
        return self.x + self.w * (v - self.x_lo) / (self.x_hi - self.x_lo)


def _ticks(top: float) -> list[float]:
    """Round steps from 0 up to ``top``, six at most."""
    step = next(
        (s for s in (0.2, 0.25, 0.5, 1, 2, 2.5, 5, 10, 20, 25, 50) if top / s <= 5),
        10.0 ** math.ceil(math.log10(top / 5)),
    )
    return [i * step for i in range(int(top / step + 1e-9) + 1)]


def _y_axis(area: _PlotArea, ticks: Sequence[float], label: str | None) -> list[str]:
    """Grid lines and tick labels at ``ticks``, the axes' lines, and the y label (rotated) left of the
    tick labels."""
    out = []
    for v in ticks:
        y = area.sy(v)
        out.append(f'<path d="M{_f(area.x)} {_f(y)}H{_f(area.x + area.w)}" stroke="{_GRID}"/>')
        out.append(_text(area.x - 3, y + 4, f"{v:g}", anchor="end", fill=_SUB))
    out.append(
        f'<path class="axes" d="M{_f(area.x)} {_f(area.y)}V{_f(area.bottom)}H{_f(area.x + area.w)}" '
        f'stroke="{_AXIS}" fill="none"/>'
    )
    if label:
        room = max(_width(f"{v:g}") for v in ticks) + 6
        out.append(_text(area.x - room - 3, area.y + area.h / 2, label, anchor="middle", rotate=True))
    return out


def _legend(y: float, items: Sequence[tuple[str, str, bool]]) -> list[str]:
    """(label, colour, a dashed line rather than a box) in one row, centred, baseline ``y``."""
    widths = [18 + _width(label) for label, _, _ in items]
    x = (WIDTH - sum(widths) - 14 * (len(items) - 1)) / 2
    out = ['<g class="legend">']
    for (label, color, line), w in zip(items, widths, strict=True):
        if line:
            out.append(f'<path d="M{_f(x)} {_f(y - 4)}h14" stroke="{color}" stroke-width="1.5" '
                       f'stroke-dasharray="4 2"/>')  # fmt: skip
        else:
            out.append(f'<rect x="{_f(x + 2)}" y="{_f(y - 9)}" width="10" height="10" fill="{color}"/>')
        out.append(_text(x + 18, y, label))
        x += w + 14
    return [*out, "</g>"]


# ---------------------------------------------------------------------------------------------------
# Figure 4: D and D^EW per perturbation
def _ci_text(ci: CIModel | None) -> str:
    return "" if ci is None else f" [{ci.low:.2f}, {ci.high:.2f}]"


def _bar_group(area: _PlotArea, i: int, p: PerturbationResult) -> str:
    """One perturbation's bars (D left of its tick, D^EW right), their intervals, "–" where neither has
    a D (missing, never 0), and its numbers as a ``<title>``."""
    tip = f"{p.id}: D {_fmt(p.d)}{_ci_text(p.d_ci)}, D^EW {_fmt(p.d_ew)}{_ci_text(p.d_ew_ci)}"
    parts = [f"<title>{_esc(tip)}</title>"]
    unit = area.w / (area.x_hi - area.x_lo)
    for value, ci, color, kind, left in (
        (p.d, p.d_ci, _D_COLOR, "d", i - 0.4),
        (p.d_ew, p.d_ew_ci, _EW_COLOR, "ew", i),
    ):
        if value is None or not math.isfinite(value):
            continue  # no bar, not a bar of 0
        x, y = area.sx(left), area.sy(value)
        parts.append(f'<rect class="{kind}" x="{_f(x)}" y="{_f(y)}" width="{_f(0.4 * unit)}" '
                     f'height="{_f(area.bottom - y)}" fill="{color}"/>')  # fmt: skip
        if ci is not None:
            mid, lo, hi = x + 0.2 * unit, area.sy(min(ci.low, value)), area.sy(max(ci.high, value))
            parts.append(f'<path class="ci" d="M{_f(mid)} {_f(lo)}V{_f(hi)}M{_f(mid - 2)} {_f(lo)}h4'
                         f'M{_f(mid - 2)} {_f(hi)}h4" stroke="{_WHISKER}" fill="none"/>')  # fmt: skip
    if (p.d is None or not math.isfinite(p.d)) and (p.d_ew is None or not math.isfinite(p.d_ew)):
        parts.append(_text(area.sx(i), area.bottom - 4, "–", anchor="middle", fill=_SUB, size=_TITLE_PX))
    return f'<g class="perturbation">{"".join(parts)}</g>'


def _top(ps: Sequence[PerturbationResult]) -> float:
    """The y axis' top: above every bar and every interval's upper end (and above D = 1)."""
    highs = [v for p in ps for v in (p.d, p.d_ew) if v is not None and math.isfinite(v)]
    highs += [ci.high for p in ps for ci in (p.d_ci, p.d_ew_ci) if ci is not None and math.isfinite(ci.high)]
    return max([2.0, *highs]) * 1.08


def _bars_panel(res: Result, y0: float) -> tuple[list[str], float]:
    """One dataset's panel from ``y0`` down: its title, bars, axes and perturbation names (rotated, under
    their bars). Returns its parts and the y below it."""
    ps, s = res.perturbations, res.summary
    out = [
        _text(4, y0 + 12, res.dataset.name, size=_TITLE_PX, bold=True),
        _text(4, y0 + 27, f"D_avg^EW {_fmt(s.d_avg_ew)}, D_min^EW {_fmt(s.d_min_ew)}"),
    ]
    top = _top(ps)
    ticks = _ticks(top)
    left = 4 + MIN_FONT_PX + 6 + max(_width(f"{v:g}") for v in ticks) + 3
    area = _PlotArea(left, y0 + 40, WIDTH - left - 6, 120, top, -0.6, len(ps) - 0.4)
    out += _y_axis(area, ticks, "D")
    out += [_bar_group(area, i, p) for i, p in enumerate(ps)]
    line = area.sy(1.0)
    out.append(f'<path class="d1" d="M{_f(area.x)} {_f(line)}H{_f(area.x + area.w)}" stroke="{_LINE_COLOR}" '
               f'stroke-width="1.2" stroke-dasharray="4 2"/>')  # fmt: skip
    out += [
        _text(area.sx(i) + 4, area.bottom + 4, p.id, anchor="end", fill=_SUB, rotate=True)
        for i, p in enumerate(ps)
    ]
    names = max((_width(p.id) for p in ps), default=0.0)
    return out, area.bottom + 4 + names + 2


def discernment_svg(results: Sequence[Result], title: str, alt: str) -> str:
    """One panel per dataset, stacked (readable on a phone): grouped bars of D and D^EW per perturbation
    with their intervals; the y axis fits the intervals; the legend sits below the panels."""
    out, y = _lines(4, 14, title)
    for res in results:
        panel, y = _bars_panel(res, y + 4)
        out += panel
    if not results:
        out.append(_text(WIDTH / 2, y + 20, "no results", anchor="middle"))
        return _svg(y + 40, alt, out)
    out += _legend(y + 10, [("D", _D_COLOR, False), ("D^EW", _EW_COLOR, False),
                            ("D = 1 (p = 0.05)", _LINE_COLOR, True)])  # fmt: skip
    return _svg(y + 20, alt, out)


# ---------------------------------------------------------------------------------------------------
# The response style: score shares, originals vs perturbed texts
#: Score bins of 0.5 centred on 1, 1.5, ..., 5 (scores clipped to 1-5).
BIN_CENTRES = tuple(1 + 0.5 * k for k in range(9))


def score_shares(values: Sequence[float | None]) -> tuple[list[float], float | None]:
    """The share of ``values`` (None: no score, left out) in each bin of :data:`BIN_CENTRES`, and their
    mean (None when there is none)."""
    xs = [float(v) for v in values if v is not None]
    counts = [0] * len(BIN_CENTRES)
    for v in xs:
        counts[min(len(BIN_CENTRES) - 1, int((min(max(v, 1.0), 5.0) - 0.75) // 0.5))] += 1
    if not xs:
        return [0.0] * len(BIN_CENTRES), None
    return [c / len(xs) for c in counts], sum(xs) / len(xs)


def _shares_panel(
    x0: float, y0: float, w: float, metric: str, both: Sequence[Sequence[float | None]], first_col: bool
) -> list[str]:
    """One metric's panel (``w`` wide from ``(x0, y0)``): the share of each score, originals left of the
    tick and perturbed right."""
    (orig, m_orig), (pert, m_pert) = (score_shares(v) for v in both)
    out = [
        _text(x0 + w / 2, y0 + 11, metric, anchor="middle"),
        _text(x0 + w / 2, y0 + 25, f"mean {_fmt(m_orig)} → {_fmt(m_pert)}", anchor="middle"),
    ]
    left = x0 + _width("0.5") + 5
    area = _PlotArea(left, y0 + 34, x0 + w - left - 2, 80, 1.0, 0.6, 5.4)
    out += _y_axis(area, (0.0, 0.5, 1.0), "share of scores" if first_col else None)
    unit = area.w / (area.x_hi - area.x_lo)
    for shares, color, shift in ((orig, _ORIG_COLOR, -0.22), (pert, _PERT_COLOR, 0.0)):
        for c, share in zip(BIN_CENTRES, shares, strict=True):
            if share > 0:
                x, y = area.sx(c + shift), area.sy(share)
                out.append(f'<rect x="{_f(x)}" y="{_f(y)}" width="{_f(0.22 * unit)}" '
                           f'height="{_f(area.bottom - y)}" fill="{color}"/>')  # fmt: skip
    out += [_text(area.sx(k), area.bottom + 13, str(k), anchor="middle", fill=_SUB) for k in range(1, 6)]
    out.append(_text(area.x + area.w / 2, area.bottom + 27, "score", anchor="middle"))
    return out


def distributions_svg(result: Result, alt: str) -> str:
    """Per metric, the share of each score (bins of 0.5 over the scale) for originals vs perturbed, two
    panels a row (a phone's width)."""
    head = f"{result.judge.name} on {result.dataset.name}: response style"
    out, y = _lines(4, 14, head)
    note, y = _lines(4, y, "(panel titles: mean original → mean perturbed)", size=MIN_FONT_PX)
    out += note
    scores = result.scores
    if scores is None or not scores.original:
        out.append(_text(WIDTH / 2, y + 20, "item scores not stored in this result", anchor="middle"))
        return _svg(y + 40, alt, out)
    metrics = list(scores.original)
    cols = min(len(metrics), 2)
    x0, gap = 4 + MIN_FONT_PX + 4, 6
    w = (WIDTH - x0 - 4 - gap * (cols - 1)) / cols
    for k, m in enumerate(metrics):
        row, col = divmod(k, cols)
        pert = [v for per in scores.perturbed.values() for v in per.get(m, ())]
        out += _shares_panel(x0 + col * (w + gap), y + row * 150, w, m, (scores.original[m], pert), col == 0)
    y += math.ceil(len(metrics) / cols) * 150
    out += _legend(y + 6, [("original", _ORIG_COLOR, False), ("perturbed", _PERT_COLOR, False)])
    return _svg(y + 16, alt, out)
