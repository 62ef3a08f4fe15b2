"""The judge page and status texts as plain values: Markdown strings and pandas frames, no Gradio."""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

from dhp.leaderboard import table
from dhp.scoring.results import Result

__all__ = ["judge_header", "perturbation_frame", "problems_markdown", "prompts_markdown", "summary_frame"]


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
        f"* **Endpoint hosts:** {', '.join(j.endpoint_hosts) or '–'} · **settings:** "
        f"{', '.join(f'{k}={v}' for k, v in j.settings.items()) or '–'}",
        f"* **Combination:** {r.scoring.combine_method.value} · **weights:** {r.scoring.weights_source} · "
        f"**bootstrap:** {r.scoring.n_boot} replicates, seed {r.scoring.seed}, "
        f"{r.scoring.confidence:.0%} intervals · **dhp** {r.dhp_version} · **scored** {r.created_at}",
    ]
    return "\n".join(lines)


def summary_frame(results: Sequence[Result]) -> pd.DataFrame:
    rows = []
    for r in results:
        s, c = r.summary, r.coverage
        rows.append(
            {
                "Dataset": r.dataset.name,
                "Version": r.dataset.version or r.dataset.revision[:12],
                "D_avg": _fmt(s.d_avg),
                "D_avg CI": _ci(s.ci.get("d_avg")),
                "D_min": _fmt(s.d_min),
                "D_min CI": _ci(s.ci.get("d_min")),
                "D_avg^EW": _fmt(s.d_avg_ew),
                "D_avg^EW CI": _ci(s.ci.get("d_avg_ew")),
                "D_min^EW": _fmt(s.d_min_ew),
                "D_min^EW CI": _ci(s.ci.get("d_min_ew")),
                "Coverage": f"{c.coverage:.1%}",
                "Parsed / expected": f"{c.parsed_scores} / {c.expected_scores}",
                "Unparsed": c.unparsed,
                "Failed requests": c.failed,
                "Why": "; ".join(f"{k}: {v}" for k, v in {**c.unparsed_reasons, **c.failure_reasons}.items()),
            }
        )
    return pd.DataFrame(rows)


def perturbation_frame(r: Result) -> pd.DataFrame:
    rows = []
    for p in r.perturbations:
        row: dict[str, Any] = {
            "Perturbation": p.id,
            "Level": p.level.value,
            "D": _fmt(p.d),
            "D CI": _ci(p.d_ci),
            "D^EW": _fmt(p.d_ew),
            "D^EW CI": _ci(p.d_ew_ci),
        }
        for m, st in p.metrics.items():
            row[f"p {m}"] = f"{st.p:.2g}"
            row[f"Δ mean {m}"] = (
                _fmt(st.mean_original - st.mean_perturbed)
                if st.mean_original is not None and st.mean_perturbed is not None
                else "–"
            )
        rows.append(row)
    return pd.DataFrame(rows)


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
    return f"⚠️ **{len(problems)} results file(s) could not be read and were skipped:**\n{items}{more}"
