"""The judge page and status texts as plain values: Markdown strings and pandas frames, no Gradio."""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from pandas.io.formats.style import Styler

from dhp.leaderboard import table
from dhp.scoring.results import PerturbationResult, Result, Summary, no_d_mark
from dhp.scoring.stats import CombineMethod, combine_pvalues, discernment

MARK_ABOVE = "background-color: #d4edda"  # a test: discerned at p < 0.05
MARK_BELOW = "background-color: #f8d7da"  # a test: not discerned

__all__ = [
    "calibrated_d",
    "judge_header",
    "perturbation_frame",
    "problems_markdown",
    "prompts_markdown",
    "summary_frame",
]


def _fmt(x: float | None, nd: int = 2) -> str:
    return "–" if x is None or not math.isfinite(x) else f"{x:.{nd}f}"


def _ci(ci: Any) -> str:
    return "" if ci is None else f"[{ci.low:.2f}, {ci.high:.2f}]"


def _size(n_params: float | None, *names: str | None) -> str:
    b = table.params_of(n_params, *names)
    return "–" if not math.isfinite(b) else f"{b:g}B parameters"


def judge_header(results: Sequence[Result]) -> str:
    if not results:
        return "No results for this judge yet."
    r = max(results, key=lambda x: x.created_at)
    j = r.judge
    hf = f"[{j.hf_model_id}](https://huggingface.co/{j.hf_model_id})" if j.hf_model_id else "–"
    lines = [
        f"## {html.escape(j.name)}",
        f"* **Model:** {html.escape(j.model or '–')} · **HF model:** {hf} · **revision:** {j.revision or '–'}",
        f"* **Size:** {_size(j.n_params, j.hf_model_id, j.model)} · **kind:** {j.kind} · "
        f"**protocol:** {j.protocol} · **scoring mode:** {r.scoring.mode} · **repeats:** {r.scoring.repeats}",
        f"* **Settings:** {', '.join(f'{k}={v}' for k, v in j.settings.items()) or '–'} · **prompt set:** "
        f"{r.scoring.prompt_set} · **endpoint host:** not published",
        f"* **Qualified** (D_min^EW > 1 and a D for every perturbation: every issue discerned at p < 0.05) on "
        f"{sum(bool(x.summary.qualified) for x in results)} of {len(results)} dataset(s)",
        f"* **Combination:** {r.scoring.combine_method.value} · **weights:** {r.scoring.weights_source} · "
        f"**bootstrap:** {r.scoring.n_boot} replicates, seed {r.scoring.seed}, "
        f"{r.scoring.confidence:.0%} intervals · **dhp** {r.dhp_version} · **scored** {r.created_at}",
    ]
    return "\n".join(lines)


def _with_ci(x: float | None, ci: Any) -> str:
    """``2.31 [1.90, 2.80]``; ``–`` when there is no D."""
    return _fmt(x) if ci is None or x is None else f"{_fmt(x)} [{ci.low:.2f}, {ci.high:.2f}]"


def _levels(s: Summary) -> str:
    """Per-level D_avg^EW, e.g. ``C 1.20 · W 0.80 · S 2.10``."""
    return " · ".join(f"{lv.value[0].upper()} {_fmt(ls.d_avg_ew)}" for lv, ls in s.by_level.items()) or "–"


def _qualified(s: Summary) -> str:
    return "–" if s.qualified is None else ("✓ yes" if s.qualified else "✗ no")


def summary_frame(results: Sequence[Result]) -> pd.DataFrame:
    """Per dataset, compact: D with intervals, per level, qualified, perturbations without D, coverage."""
    rows = []
    for r in results:
        s, c = r.summary, r.coverage
        why = "; ".join(f"{k}: {v}" for k, v in {**c.unparsed_reasons, **c.failure_reasons}.items())
        rows.append(
            {
                "Dataset": r.dataset.name,
                "D avg EW": _with_ci(s.d_avg_ew, s.ci.get("d_avg_ew")),
                "D min EW": _with_ci(s.d_min_ew, s.ci.get("d_min_ew")) + no_d_mark(s.n_without_d),
                "Qualified": _qualified(s),
                "Per level (EW)": _levels(s),
                "D avg": _with_ci(s.d_avg, s.ci.get("d_avg")),
                "D min": _with_ci(s.d_min, s.ci.get("d_min")) + no_d_mark(s.n_without_d),
                "No D": s.n_without_d,
                "Coverage": f"{c.coverage:.1%} ({c.parsed_scores}/{c.expected_scores})",
                "Unparsed / failed": f"{c.unparsed} / {c.failed}" + (f" ({why})" if why else ""),
                "Version": r.dataset.version or r.dataset.revision[:12],
            }
        )
    return pd.DataFrame(rows)


def calibrated_d(p: PerturbationResult) -> float | None:
    """D of the metrics' p-values combined with Wilson's calibrated harmonic mean (``wilson-landau``):
    a valid test, so chance is not shown as discernment (the paper's unweighted formula is not)."""
    pv = [st.p for st in p.metrics.values() if st.p is not None]
    if not pv:
        return None
    return float(discernment(combine_pvalues(np.array(pv), None, CombineMethod.WILSON_LANDAU)))


def _mark(d: float | None) -> str:
    """The colour of a per-perturbation test: green where D > 1 (p < 0.05), red where D <= 1."""
    if d is None or not math.isfinite(d):
        return ""
    return MARK_ABOVE if d > 1 else MARK_BELOW


def perturbation_frame(r: Result) -> Styler:
    """Per perturbation: D (paper), D calibrated, D^EW with intervals, and per metric p and mean drop.

    Only the tests are coloured: the calibrated D and D^EW (green: discerned at p < 0.05)."""
    rows, marks = [], []
    for p in r.perturbations:
        cal = calibrated_d(p)
        row: dict[str, Any] = {
            "Perturbation": p.id,
            "Level": p.level.value,
            "D (paper)": _with_ci(p.d, p.d_ci),
            "D calibrated": _fmt(cal),
            "D^EW": _with_ci(p.d_ew, p.d_ew_ci),
        }
        for m, st in p.metrics.items():
            row[f"p {m}"] = "–" if st.p is None else f"{st.p:.2g}"
            drop = (
                None
                if st.mean_original is None or st.mean_perturbed is None
                else st.mean_original - st.mean_perturbed
            )
            row[f"Δ mean {m}"] = _fmt(drop)
        rows.append(row)
        marks.append((_mark(cal), _mark(p.d_ew)))
    df = pd.DataFrame(rows)
    if df.empty:
        return df.style
    styles = pd.DataFrame("", index=df.index, columns=df.columns)
    styles["D calibrated"] = [m[0] for m in marks]
    styles["D^EW"] = [m[1] for m in marks]
    return df.style.apply(lambda _: styles, axis=None).hide(axis="index")


def prompts_markdown(r: Result) -> str:
    if not r.scoring.prompts:
        return "No prompt recorded in this result."
    parts = [
        f"**{m}** (template `{pi.template_hash[:12]}`)\n```text\n{pi.template}\n```"
        for m, pi in r.scoring.prompts.items()
    ]
    return "\n\n".join(parts)


def problems_markdown(problems: Sequence[str]) -> str:
    if not problems:
        return ""
    items = "\n".join(f"* `{html.escape(p[:300])}`" for p in problems[:20])
    more = f"\n* … and {len(problems) - 20} more" if len(problems) > 20 else ""
    what = (
        "1 results file could not be read and was"
        if len(problems) == 1
        else f"{len(problems)} results files could not be read and were"
    )
    return f"⚠️ **{what} skipped:**\n{items}{more}"
