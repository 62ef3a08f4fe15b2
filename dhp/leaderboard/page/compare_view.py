"""The leaderboard's Compare tab (issue 20): two judges side by side as ``dhp compare`` shows them
(paired bootstrap on the items both scored), and the size plot (Overall D_avg^EW against parameter
count, Pareto front, control judges as reference lines). Data gathering here; figures in
:mod:`dhp.leaderboard.page.plots`; the statistics in :mod:`dhp.scoring.compare`."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import gradio as gr
import pandas as pd

from dhp.leaderboard.board import columns, table
from dhp.leaderboard.page import plots
from dhp.leaderboard.page.formatting import plain_md
from dhp.leaderboard.page.service import BoardService
from dhp.scoring.compare import CompareError, compare_results
from dhp.scoring.compare_report import render_comparison
from dhp.scoring.results import Result
from dhp.spec import DATASET_NAMES

__all__ = ["CompareTab", "compare_markdown", "compare_tab", "size_points", "wire_compare"]

#: Replicates of the paired bootstrap on the page (the CLI defaults to 1000).
PAGE_N_BOOT = 300


def _full_results(be: BoardService, judge: str) -> dict[str, Result]:
    return {lr.result.dataset.name: be.index.full(lr.path) for lr in be.judge_results(judge)}


def compare_markdown(be: BoardService, a: str | None, b: str | None) -> str:
    """``dhp compare``'s markdown for two judges of the board, or one line saying what is missing."""
    if not a or not b:
        return "Pick two judges."
    if a == b:
        return "Pick two different judges."
    try:
        c = compare_results(_full_results(be, a), _full_results(be, b), n_boot=PAGE_N_BOOT)
    except (CompareError, OSError, ValueError) as e:
        return plain_md(f"Cannot compare {a} and {b}: {e}")
    # the names are the submitters' words: literal text, never Markdown
    md = render_comparison(dataclasses.replace(c, judge_a=plain_md(c.judge_a), judge_b=plain_md(c.judge_b)))
    return md.replace("\n## ", "\n#### ").replace("# ", "### ", 1)  # headings under the tab's own


def size_points(full: pd.DataFrame) -> tuple[list[tuple[str, float, float]], list[tuple[str, float]]]:
    """(judge, params in B, Overall D_avg^EW) for judges that declare a size and have every benchmark
    dataset shown, and (control judge, Overall D_avg^EW) for the reference lines."""
    if full.empty:
        return [], []
    cols = [columns.dataset_columns(d, True)[0] for d in table.present_datasets(full) if d in DATASET_NAMES]
    cols = [c for c in cols if full[c].notna().any()]  # the benchmark datasets some judge has
    if not cols:
        return [], []
    overall = full[cols].mean(axis=1, skipna=False).tolist()
    points, controls = [], []
    for (_, row), v in zip(full.iterrows(), overall, strict=True):
        if not math.isfinite(float(v)):
            continue
        if row["Family"] == table.CONTROL:
            controls.append((str(row["Judge"]), v))
        elif math.isfinite(float(row["Size (B)"])):
            points.append((str(row["Judge"]), float(row["Size (B)"]), v))
    return points, sorted(controls)


def size_html(be: BoardService) -> str:
    """The size plot as inline SVG: the Pareto front labelled, every other judge named on hover."""
    full, _ = be.frame()
    return plots.size_svg(*size_points(full))


@dataclass(frozen=True)
class CompareTab:
    tab: gr.Tab
    a: gr.Dropdown
    b: gr.Dropdown
    button: gr.Button
    result: gr.Markdown
    size: gr.HTML


def compare_tab() -> CompareTab:
    with gr.Tab("Compare", id="compare", elem_id="tab-compare") as tab:
        gr.Markdown(
            "Is judge A really better than judge B? Both on the items and perturbations both scored: the "
            f"difference A − B with a paired bootstrap interval ({PAGE_N_BOOT} replicates); *neither* when "
            "both judges' intervals lie below D = 1; *tie* when "
            "the interval contains 0. The same as `dhp compare RESULTS_A RESULTS_B`."
        )
        with gr.Row():
            a = gr.Dropdown(choices=[], label="Judge A", elem_id="compare-a")
            b = gr.Dropdown(choices=[], label="Judge B", elem_id="compare-b")
        button = gr.Button("Compare", elem_id="compare-go")
        result = gr.Markdown(elem_id="compare-result", latex_delimiters=[])
        gr.Markdown("#### Discernment against size", elem_id="size-title")
        size = gr.HTML(elem_id="size-plot", padding=False)
    return CompareTab(tab, a, b, button, result, size)


def wire_compare(be: BoardService, c: CompareTab) -> None:
    def opened() -> tuple[Any, Any, str]:
        judges = be.judges()
        return gr.Dropdown(choices=judges), gr.Dropdown(choices=judges), size_html(be)

    c.tab.select(opened, None, [c.a, c.b, c.size])
    c.button.click(lambda a, b: compare_markdown(be, a, b), [c.a, c.b], c.result)
