"""The judge page's figures as hand-written SVG (issue 37): the same information as the matplotlib figures
they replace (bars per perturbation with their D and intervals, missing D shown missing, score shares),
named for screen readers, text of at least 11 px and of contrast at least 4.5:1, and no plotting library
on the page's path."""

from __future__ import annotations

import math
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from dhp.leaderboard.page.judge_figures import (
    BIN_CENTRES,
    MIN_FONT_PX,
    WIDTH,
    discernment_svg,
    distributions_svg,
    score_shares,
)
from dhp.scoring.result_files import dump_result
from dhp.scoring.results import Result
from tests.leaderboard.factory import HOSTILE_NAMES, make_result, renamed

NS = {"s": "http://www.w3.org/2000/svg"}
S = "{http://www.w3.org/2000/svg}"


def _tree(svg: str) -> ET.Element:
    return ET.fromstring(svg)  # well-formed XML: every name and label escaped


def _luminance(color: str) -> float:
    rgb = [int(color[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _figures() -> list[tuple[str, str]]:
    rs = [make_result("J", ds, skill=0.4, n_items=20, n_boot=20) for ds in ("summeval", "story-cloze")]
    na = make_result("NA", "summeval", n_items=20, no_scores_for="char_typo_minor")
    bare = make_result("Bare", "wmt22-de-en", n_items=10, with_scores=False)
    return [
        ("bars", discernment_svg(rs, "J: D and D^EW per perturbation", "J: bars on 2 datasets")),
        ("bars without D", discernment_svg([na], "NA: D", "NA: bars")),
        ("shares", distributions_svg(rs[0], "J on summeval: score shares")),
        ("shares without scores", distributions_svg(bare, "Bare on wmt22-de-en: score shares")),
    ]


@pytest.mark.parametrize(("kind", "svg"), _figures())
def test_a_figure_is_named_readable_and_dark_on_white(kind: str, svg: str) -> None:
    root = _tree(svg)
    assert root.tag == f"{S}svg" and root.get("role") == "img" and root.get("class") == "dhp-figure"
    title = root.find("s:title", NS)
    assert title is not None and title.text and root.get("aria-label") == title.text, kind
    assert root[0] is title  # the accessible name is the first child
    assert root.get("viewBox", "").startswith(f"0 0 {WIDTH} ")
    background = root[1]
    assert background.tag == f"{S}rect" and background.get("fill") == "#ffffff"
    texts = root.iter(f"{S}text")
    sizes = []
    for t in texts:
        sizes.append(float(t.get("font-size", "0")))
        assert contrast(t.get("fill", ""), "#ffffff") >= 4.5, (kind, t.text, t.get("fill"))
    assert sizes and min(sizes) >= MIN_FONT_PX == 11, kind
    assert "matplotlib" not in svg and "<image" not in svg and "<script" not in svg


def _groups(svg: str) -> list[ET.Element]:
    return [g for g in _tree(svg).iter(f"{S}g") if g.get("class") == "perturbation"]


def test_every_perturbation_has_its_bars_intervals_and_numbers() -> None:
    r = make_result("J", "summeval", skill=0.4, n_items=20, n_boot=20)
    groups = _groups(discernment_svg([r], "J", "J"))
    assert len(groups) == len(r.perturbations)
    for g, p in zip(groups, r.perturbations, strict=True):
        tip = g.find("s:title", NS)
        assert tip is not None and tip.text is not None
        assert tip.text.startswith(f"{p.id}: D {p.d:.2f}") and f"D^EW {p.d_ew:.2f}" in tip.text
        assert p.d_ci is not None and f"[{p.d_ci.low:.2f}, {p.d_ci.high:.2f}]" in tip.text
        assert [x.get("class") for x in g if x.tag == f"{S}rect"] == ["d", "ew"]
        assert len([x for x in g if x.get("class") == "ci"]) == 2
    heights = [float(x.get("height", "0")) for g in groups for x in g if x.get("class") == "d"]
    ds = [p.d for p in r.perturbations]
    assert all(d is not None for d in ds)
    order = sorted(range(len(ds)), key=lambda i: ds[i] or 0.0)  # taller bars for larger D
    assert [heights[i] for i in order] == sorted(heights)
    names = [t.text for t in _tree(discernment_svg([r], "J", "J")).iter(f"{S}text")]
    assert all(p.id in names for p in r.perturbations)  # every bar named under it


def test_a_perturbation_without_d_is_shown_missing_never_zero() -> None:
    r = make_result("NA judge", "summeval", skill=0.8, n_items=20, no_scores_for="char_typo_minor")
    groups = _groups(discernment_svg([r], "NA", "NA"))
    i = [p.id for p in r.perturbations].index("char_typo_minor")
    missing = groups[i]
    assert not [x for x in missing if x.tag == f"{S}rect"]  # no bar, not a bar of 0
    assert [x.text for x in missing if x.tag == f"{S}text"] == ["–"]
    title = missing.find("s:title", NS)
    assert title is not None and title.text == "char_typo_minor: D –, D^EW –"
    assert all(len([x for x in g if x.tag == f"{S}rect"]) == 2 for k, g in enumerate(groups) if k != i)


def _axes(root: ET.Element) -> list[tuple[float, float]]:
    """(top, bottom) of every panel's plotting area (its axes' path: M x top V bottom H right)."""
    out = []
    for p in root.iter(f"{S}path"):
        if p.get("class") == "axes":
            m = re.match(r"M([\d.]+) ([\d.]+)V([\d.]+)H", p.get("d", ""))
            assert m is not None
            out.append((float(m[2]), float(m[3])))
    return out


def test_the_axes_fit_the_intervals_and_the_legend_is_below_the_panels() -> None:
    """Issue 11: interval bars were cut at the top of the y axis; the legend covered SummEval's bars."""
    rs = [make_result("Chance", ds, skill=0.0, n_items=20, n_boot=30) for ds in ("summeval", "story-cloze")]
    root = _tree(discernment_svg(rs, "Chance", "Chance"))
    panels = _axes(root)
    assert len(panels) == 2
    groups = [g for g in root.iter(f"{S}g") if g.get("class") == "perturbation"]
    k = 0
    for (top, bottom), r in zip(panels, rs, strict=True):
        highs = [ci.high for p in r.perturbations for ci in (p.d_ci, p.d_ew_ci) if ci is not None]
        bars = [p.d for p in r.perturbations if p.d is not None]
        assert highs and max(highs) > max(bars)  # the intervals reach above the bars: the case that was cut
        for g in groups[k : k + len(r.perturbations)]:
            for ci in (x for x in g if x.get("class") == "ci"):
                m = re.match(r"M[\d.]+ ([\d.]+)V([\d.]+)", ci.get("d", ""))  # the whisker: low end, high end
                assert m is not None
                assert top < float(m[2]) <= float(m[1]) <= bottom, (m[0], top, bottom)  # never cut at the top
        k += len(r.perturbations)
    (legend,) = [g for g in root.iter(f"{S}g") if g.get("class") == "legend"]
    legend_top = min(float(x.get("y", "0")) - 11 for x in legend if x.tag in (f"{S}rect", f"{S}text"))
    assert legend_top > max(bottom for _, bottom in panels)
    assert {x.text for x in legend if x.tag == f"{S}text"} == {"D", "D^EW", "D = 1 (p = 0.05)"}


@pytest.mark.parametrize("values", [[1, 1.25, 1.5, 2, 3.74, 3.75, 5, 5, None, 0.2, 7], [], [None], [4.5]])
def test_score_shares_are_the_histogram_over_bins_of_a_half(values: list[float | None]) -> None:
    shares, mean = score_shares(values)
    xs = np.array([v for v in values if v is not None], dtype=float)
    if xs.size == 0:
        assert shares == [0.0] * len(BIN_CENTRES) and mean is None
        return
    h, _ = np.histogram(np.clip(xs, 1, 5), bins=np.arange(0.75, 5.76, 0.5))  # what the matplotlib plot drew
    assert shares == pytest.approx(list(h[: len(BIN_CENTRES)] / xs.size))
    assert h[len(BIN_CENTRES) :].sum() == 0  # its last bin (5.5) was always empty
    assert mean == pytest.approx(float(xs.mean()))


def test_the_shares_panels_show_every_metric_and_their_means() -> None:
    r = make_result("J", "summeval", skill=0.6, n_items=20)
    texts = [t.text or "" for t in _tree(distributions_svg(r, "J")).iter(f"{S}text")]
    assert r.scores is not None
    for m, values in r.scores.original.items():
        assert m in texts
        _, mean = score_shares(values)
        assert mean is not None and any(t.startswith(f"mean {mean:.2f} → ") for t in texts)
    assert {"original", "perturbed", "score", "share of scores"} <= set(texts)
    bare = make_result("J", "summeval", n_items=10, with_scores=False)
    assert "item scores not stored in this result" in [
        t.text for t in _tree(distributions_svg(bare, "J")).iter(f"{S}text")
    ]


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_a_hostile_name_is_plain_text_in_the_figures(name: str) -> None:
    r = renamed(make_result("J", "summeval", n_items=6), name)
    for svg in (discernment_svg([r], f"{name}: D", f"{name}: bars"), distributions_svg(r, f"{name}: shares")):
        root = _tree(svg)  # parses: nothing the name holds became markup
        assert not [
            e for e in root.iter() if e.tag.split("}")[-1] in ("a", "image", "script", "foreignObject")
        ]
        assert root.get("aria-label", "").startswith(name)
        title = " ".join(t.text or "" for t in root.iter(f"{S}text") if t.get("font-size") == "12")
        assert name in title or name.replace(" ", "") in title.replace(" ", "")  # wrapped, never altered


def _result_file(tmp_path: Path) -> tuple[Path, Result]:
    r = make_result("J", "summeval", n_items=20, n_boot=10)
    path = tmp_path / "j" / "summeval@v1.json"
    path.parent.mkdir(parents=True)
    path.write_text(dump_result(r), encoding="utf-8")
    return path, r


def test_a_judge_page_is_drawn_without_a_plotting_library(tmp_path: Path) -> None:
    """matplotlib took about 1 s of a page's drawing (issue 37): the renderer's path imports none."""
    path, _ = _result_file(tmp_path)
    code = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from dhp.leaderboard.page.judge_pages import render\n"
        f"p = {str(path)!r}\n"
        f"page = json.loads(render(('judge', 'J', [(p, Path(p).read_text())], None, {str(tmp_path)!r})))\n"
        "assert page['bars'].startswith('<svg class=\"dhp-figure\"'), page['bars'][:80]\n"
        "assert page['first']['dist'].startswith('<svg class=\"dhp-figure\"')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'matplotlib'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[]"


def test_d_values_are_drawn_to_scale() -> None:
    r = make_result("J", "summeval", skill=0.9, n_items=20)
    root = _tree(discernment_svg([r], "J", "J"))
    ((_, bottom),) = _axes(root)
    line = next(p for p in root.iter(f"{S}path") if p.get("class") == "d1")
    m = re.match(r"M[\d.]+ ([\d.]+)H", line.get("d", ""))
    assert m is not None
    y1 = float(m[1])  # the D = 1 line
    p, bar = next(
        (p, x) for p, g in zip(r.perturbations, _groups(discernment_svg([r], "J", "J")), strict=True)
        for x in g if x.get("class") == "d"
    )  # fmt: skip
    assert p.d is not None and math.isfinite(p.d)
    assert float(bar.get("height", "0")) == pytest.approx(p.d * (bottom - y1), abs=0.15)
