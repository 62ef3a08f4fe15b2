"""Judge-page views that help choose a judge (issue 20): where it fails (misses per perturbation
next to D^EW), D_avg^EW by length tertile of the original text, and what the run cost. Pure
functions of one full result (item scores included); markdown out."""

from __future__ import annotations

import math

from dhp.scoring.breakdown import length_tertiles
from dhp.scoring.misses import miss_counts
from dhp.scoring.results import Result

__all__ = ["judge_detail_markdown", "run_cost_text"]


def _fmt(x: float | None) -> str:
    return "–" if x is None or not math.isfinite(x) else f"{x:.2f}"


def run_cost_text(r: Result) -> str:
    """Requests, tokens (not recorded by any endpoint protocol yet: said so) and wall time of a run."""
    t = r.timing
    if r.judge.kind == "builtin":
        requests = "no requests (built-in judge)"
    else:
        requests = f"{t.requests_sent} requests sent, {t.requests_cached} from the cache, {t.retries} retries"
    return f"**Run cost:** {requests}; wall time {t.wall_seconds:.1f} s; tokens: not recorded."


def _misses_table(r: Result) -> list[str]:
    counts = miss_counts(r)
    n = len(r.scores.item_ids) if r.scores is not None else 0
    if not counts:
        return ["No item scores in this result: misses cannot be counted."]
    lines = [
        "| perturbation | D^EW | misses (perturbed ≥ original) |",
        "|---|---|---|",
    ]
    for p in r.perturbations:
        k = counts.get(p.id)
        lines.append(f"| {p.id} | {_fmt(p.d_ew)} | {'–' if k is None else f'{k} of {n}'} |")
    lines.append(
        f"\nList them with their texts: `dhp misses RESULTS --dataset {r.dataset.name} --perturbation ID`."
    )
    return lines


def _tertile_table(r: Result) -> list[str]:
    tertiles = length_tertiles(r)
    if not tertiles:
        return ["No text lengths in this result (scored before results schema 1.2): no length tertiles."]
    lines = ["| length tertile | words | items | D_avg^EW |", "|---|---|---|---|"]
    lines += [
        f"| {t.name} | {t.min_words}–{t.max_words} | {t.n_items} | {_fmt(t.d_avg_ew)} |" for t in tertiles
    ]
    return lines


def judge_detail_markdown(r: Result) -> str:
    """Misses next to D^EW, D_avg^EW per length tertile, and the run's cost, for one dataset."""
    return "\n".join(
        [
            f"#### Where it fails on {r.dataset.name}",
            "",
            *_misses_table(r),
            "",
            "#### D_avg^EW by length of the original text",
            "",
            *_tertile_table(r),
            "",
            run_cost_text(r),
        ]
    )
