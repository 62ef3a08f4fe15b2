"""The judge page and status texts as plain values: Markdown strings and pandas frames, no Gradio."""

from __future__ import annotations

import html
import math
import re
import urllib.parse
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from pandas.io.formats.style import Styler

from dhp.inference.judge import AnyJudge
from dhp.leaderboard.board import table
from dhp.scoring.results import PerturbationResult, Result, Summary
from dhp.scoring.stats import CombineMethod, perturbation_d
from dhp.scoring.summary import no_d_mark

MARK_ABOVE = "background-color: #d4edda"  # a test: discerned at p < 0.05
MARK_BELOW = "background-color: #f8d7da"  # a test: not discerned

__all__ = [
    "calibrated_d",
    "judge_header",
    "perturbation_frame",
    "plain_md",
    "problems_markdown",
    "prompts_markdown",
    "queue_html",
    "summary_frame",
]


def _fmt(x: float | None, nd: int = 2) -> str:
    return "–" if x is None or not math.isfinite(x) else f"{x:.{nd}f}"


def _ci(ci: Any) -> str:
    return "" if ci is None else f"[{ci.low:.2f}, {ci.high:.2f}]"


def _size(n_params: float | None, *names: str | None) -> str:
    b = table.params_of(n_params, *names)
    return "–" if not math.isfinite(b) else f"{b:g}B parameters"


#: ASCII punctuation Markdown may read as syntax; ``&`` and ``;`` are left to the HTML entities.
_MD_PUNCT = re.compile(r"([!-%'-/:<-@\[-`{-~])")


def plain_md(text: str) -> str:
    """``text`` as literal words inside Markdown: HTML escaped and every punctuation mark that Markdown
    (links, images, emphasis, headings, tables, autolinks, LaTeX ``$``) could read as syntax
    backslash-escaped. For user strings (judge names, models) in a ``gr.Markdown``."""
    return _MD_PUNCT.sub(r"\\\1", html.escape(text, quote=False))


def _text(x: object) -> str:
    return html.escape(str(x), quote=True)


_HF_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+")


def _hf_link(model_id: str | None) -> str:
    """A link to the model's Hub page when the id is a plain ``org/name``; else the id as text."""
    if not model_id:
        return "–"
    if not _HF_ID.fullmatch(model_id):
        return _text(model_id)
    href = "https://huggingface.co/" + urllib.parse.quote(model_id, safe="/")
    return f'<a href="{_text(href)}" target="_blank" rel="noopener noreferrer">{_text(model_id)}</a>'


def _where(j: AnyJudge) -> str:
    """What is true of where the judge ran, for each kind of judge."""
    return _text(j.where)


def _bootstrap(r: Result) -> str:
    s = r.scoring
    if s.n_boot <= 0:
        return "no bootstrap (no intervals: scored with --n-boot 0)"
    return f"{s.n_boot} replicates, seed {s.seed}, {s.confidence:.0%} intervals"


def judge_header(results: Sequence[Result]) -> str:
    """The judge page's header as HTML (a ``gr.HTML``): every user string escaped, never Markdown."""
    if not results:
        return "<p>No results for this judge yet.</p>"
    r = max(results, key=lambda x: x.created_at)
    j = r.judge
    settings = ", ".join(f"{k}={v}" for k, v in j.settings.items()) or "–"
    qualified = sum(bool(x.summary.qualified) for x in results)
    items = [
        f"<b>Model:</b> {_text(j.model or '–')} · <b>HF model:</b> {_hf_link(j.hf_model_id)} · "
        f"<b>revision:</b> {_text(j.revision or '–')}",
        f"<b>Size:</b> {_size(j.n_params, j.hf_model_id, j.model)} · <b>kind:</b> {_text(j.kind)} · "
        f"<b>protocol:</b> {_text(j.protocol)} · <b>scoring mode:</b> {_text(r.scoring.mode)} · "
        f"<b>repeats:</b> {r.scoring.repeats}",
        f"<b>Runs:</b> {_where(j.judge)}",
        f"<b>Settings:</b> {_text(settings)} · <b>prompt set:</b> {_text(r.scoring.prompt_set)}",
        f"<b>Qualified</b> (D_min^EW &gt; 1 and a D for every perturbation: every issue discerned at "
        f"p &lt; 0.05) on {qualified} of {len(results)} dataset(s)",
        f"<b>Combination:</b> {_text(r.scoring.combine_method.value)} · <b>weights:</b> "
        f"{_text(r.scoring.weights_source)} · <b>bootstrap:</b> {_bootstrap(r)} · <b>dhp</b> "
        f"{_text(r.dhp_version)} · <b>scored</b> {_text(r.created_at)}",
    ]
    body = "".join(f"<li>{x}</li>" for x in items)
    return f'<div class="dhp-judge-head"><h2>{_text(j.name)}</h2><ul>{body}</ul></div>'


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
    return float(perturbation_d(np.array(pv), None, CombineMethod.WILSON_LANDAU)[1])


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


#: The Queue's columns that keep one line (the others wrap: the judge, the model, the reason).
_QUEUE_NOWRAP = ("Protocol", "Mode", "State", "Submitted", "Updated")


def queue_html(frame: pd.DataFrame) -> str:
    """The Queue as an HTML table (every cell escaped): on a wide screen one line per request with the
    reason in the room left; on a phone each request a card of labelled lines (``data-label``), so every
    request and its reason are read without scrolling sideways."""
    if frame.empty:
        return ""
    head = "".join(f"<th scope='col'>{_text(c)}</th>" for c in frame.columns)
    rows = []
    for rec in frame.itertuples(index=False):
        cells = []
        for col, v in zip(frame.columns, rec, strict=True):
            cls = "nowrap" if col in _QUEUE_NOWRAP else str(col).lower()
            cells.append(f'<td class="q-{_text(cls)}" data-label="{_text(col)}">{_text(v)}</td>')
        rows.append(f"<tr>{''.join(cells)}</tr>")
    return (
        f'<div class="dhp-queue-wrap"><table class="dhp-queue"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


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
