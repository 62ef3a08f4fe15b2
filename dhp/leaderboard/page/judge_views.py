"""The judge page's views for choosing a judge (issue 20), for one dataset of the judge shown:

* where it fails: the misses per perturbation next to D^EW (:func:`detail_markdown`), a few missed
  pairs of a chosen perturbation with the differences marked as ``dhp show`` marks them
  (:func:`misses_html`), and a CSV of every miss of every perturbation (:func:`misses_csv_path`);
* D_avg^EW by length tertile of the original text;
* the run's cost: requests, tokens where the endpoint reported them, wall time (:func:`run_cost_text`).

Pure functions of one full result (item scores included) and, for the texts, the dataset revision
it scored (:func:`dhp.scoring.misses.scored_texts`: the app's ``data`` folder, else the Hub). Texts
that cannot be had are said so in one line; the scores are shown all the same. :func:`detail_block`
and :func:`wire_detail` are the Gradio side, hooked into the Judge tab by :mod:`dhp.leaderboard.page.ui`.
"""

from __future__ import annotations

import functools
import hashlib
import html
import math
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import gradio as gr

from dhp.fsutil import atomic_write_text
from dhp.scoring.breakdown import length_tertiles
from dhp.scoring.misses import (
    Miss,
    MissesError,
    ScoredTexts,
    attach_texts,
    complete_pairs,
    misses_among,
    misses_csv,
)
from dhp.scoring.misses import scored_texts as _load_texts
from dhp.scoring.results import DatasetRef, PerturbationResult, Result
from dhp.task.file import folder_spec

__all__ = [
    "MISSES_SHOWN",
    "DetailBlock",
    "detail_block",
    "detail_markdown",
    "miss_choices",
    "misses_csv_path",
    "misses_html",
    "run_cost_text",
    "texts_for",
]

#: Missed pairs shown on the page for the chosen perturbation (the CSV has all of them).
MISSES_SHOWN = 3


def _fmt(x: float | None) -> str:
    return "–" if x is None or not math.isfinite(x) else f"{x:.2f}"


def _tokens(prompt: int | None, completion: int | None) -> str:
    """``tokens: 1,234 prompt, 56 completion``; a count the endpoint did not report says so."""
    if prompt is None and completion is None:
        return "tokens: not reported by the endpoint"
    return "tokens: " + ", ".join(
        f"{kind} not reported" if n is None else f"{n:,} {kind}"
        for kind, n in (("prompt", prompt), ("completion", completion))
    )


def run_cost_text(r: Result) -> str:
    """Requests, tokens (where the endpoint reported them) and wall time of the run behind ``r``."""
    t = r.timing
    if not r.judge.judge.sends_requests:
        return f"**Run cost:** no requests (built-in judge); wall time {t.wall_seconds:.1f} s."
    return (
        f"**Run cost:** {t.requests_sent:,} requests sent, {t.requests_cached:,} from the cache, "
        f"{t.retries:,} retries, {t.requests_failed:,} failed; {_tokens(t.prompt_tokens, t.completion_tokens)}; "
        f"wall time {t.wall_seconds:.1f} s."
    )


_FOUND_KEPT = 4  # results whose misses are kept (a page's results; the dataset parts come one at a time)
_found_lock = threading.Lock()
_found_kept: OrderedDict[int, tuple[Result, dict[str, tuple[tuple[Miss, ...], tuple[str, ...]]]]] = (
    OrderedDict()
)


def _found(r: Result, perturbation: str) -> tuple[tuple[Miss, ...], tuple[str, ...]]:
    """The misses and the paired items of ``perturbation``, computed once per result: a judge page asks
    for them from five places (the table of misses, the picker, the tertiles, the pairs shown, the CSV),
    72 computations for an ordinary dataset, now 12. Kept by the result's identity (results are frozen),
    the result held with them so that its identity is not reused while kept."""
    with _found_lock:
        kept = _found_kept.get(id(r))
        if kept is None or kept[0] is not r:
            kept = _found_kept[id(r)] = (r, {})
            while len(_found_kept) > _FOUND_KEPT:
                _found_kept.popitem(last=False)
        per = kept[1]
        if perturbation not in per:
            pairs = complete_pairs(r, perturbation)
            per[perturbation] = (tuple(misses_among(pairs)), tuple(m.item_id for m in pairs))
        return per[perturbation]


def miss_counts(r: Result) -> dict[str, int]:
    """Perturbation id -> number of misses (empty when the result holds no item scores)."""
    return {} if r.scores is None else {pid: len(_found(r, pid)[0]) for pid in r.scores.perturbed}


def _misses_table(r: Result) -> list[str]:
    """Per perturbation: D^EW, and its misses out of its own pairs (a perturbation applies to some
    items only: "2 of 100" read as a 2% miss rate where it was 2 of 33 pairs)."""
    counts = miss_counts(r)
    if not counts:
        return ["No item scores in this result: misses cannot be counted."]
    lines = ["| perturbation | D^EW | effect | missed (of its pairs) |", "|---|---|---|---|"]
    for p in r.perturbations:
        k = counts.get(p.id)
        missed = "–" if k is None else f"{k} of {len(_found(r, p.id)[1])}"
        d = _fmt(p.d_ew) + ("" if p.counted else f" (few pairs: {p.n_pairs}, not in D_avg)")
        lines.append(f"| {p.id} | {d} | {_effect(p)} | {missed} |")
    return lines


def _effect(p: PerturbationResult) -> str:
    """The share of pairs scored lower (ties half) with its interval: it does not grow with n as D does."""
    if p.effect is None:
        return "–"
    ci = f" [{p.effect_ci.low:.2f}, {p.effect_ci.high:.2f}]" if p.effect_ci is not None else ""
    return f"{p.effect:.2f}{ci}"


def _lower_share(r: Result, rows: tuple[int, ...]) -> str:
    """The share of the group's pairs (every perturbation) the judge scored lower: a rate, which does
    not shrink with the number of pairs as D does."""
    s = r.scores
    if s is None:
        return "–"
    ids = {s.item_ids[i] for i in rows}
    pairs = lower = 0
    for pid in s.perturbed:
        misses, items = _found(r, pid)
        paired = ids.intersection(items)
        missed = sum(m.item_id in paired for m in misses)
        pairs += len(paired)
        lower += len(paired) - missed
    return "–" if not pairs else f"{lower / pairs:.0%} of {pairs:,}"


def _tertile_table(r: Result) -> list[str]:
    tertiles = length_tertiles(r)
    if not tertiles:
        if r.scores is not None and r.scores.original_words is not None:
            return ["The texts' lengths are too uniform to cut into three groups: no length tertiles."]
        return ["No text lengths in this result (scored before results schema 1.2): no length tertiles."]
    lines = ["| length | words | items | D_avg^EW | pairs scored lower |", "|---|---|---|---|---|"]
    lines += [
        f"| {t.name} | {t.min_words}–{t.max_words} | {t.n_items} | {_fmt(t.d_avg_ew)} | {_lower_share(r, t.rows)} |"
        for t in tertiles
    ]
    return [
        *lines,
        "",
        "D = log_0.05(p) grows with the number of pairs: a tertile's D rests on about a third of them, so "
        "compare the tertiles' D with each other, not with the dataset's D_avg^EW above. *Pairs scored "
        "lower* (every perturbation, weighted metrics) is a rate: it does not shrink with fewer pairs.",
    ]


def detail_markdown(r: Result) -> str:
    """Misses next to D^EW, D_avg^EW per length tertile, and the run's cost, for one dataset."""
    return "\n".join(
        [
            f"#### Where it fails on {r.dataset.name}",
            "",
            *_misses_table(r),
            "",
            "*effect*: the share of pairs scored lower (ties half; 0.50 is chance), which does not grow with "
            "the number of pairs as D does. *missed*: pairs whose perturbed text the judge scored at least as "
            f"high as the original on the weighted metrics. `dhp misses RESULTS --dataset {r.dataset.name} --perturbation ID` lists them.",
            "",
            "#### D_avg^EW by length of the original text",
            "",
            *_tertile_table(r),
            "",
            run_cost_text(r),
        ]
    )


def miss_choices(r: Result) -> list[tuple[str, str]]:
    """(label, perturbation id) for the perturbations with misses, the most missed first."""
    counts = miss_counts(r)
    ranked = sorted((p for p in counts if counts[p]), key=lambda p: (-counts[p], p))
    return [(f"{p} ({counts[p]} missed)", p) for p in ranked]


@functools.lru_cache(maxsize=8)
def _cached_texts(ref: DatasetRef, data: str) -> ScoredTexts | str:
    try:
        return _load_texts(ref, data, folder_spec)
    except MissesError as e:
        return str(e)


def texts_for(r: Result, data: str | None) -> ScoredTexts | str:
    """The texts ``r`` scored (``data``: ``"dhp"`` for the Hub, or a folder of dataset folders), or
    one line saying why they cannot be had. Cached per (dataset revision, data): a few datasets."""
    if data is None:
        return "no dataset source configured (dhp leaderboard --data FOLDER, or dhp for the Hub)"
    return _cached_texts(r.dataset, data)


def _scores_line(m: Miss) -> str:
    return ", ".join(
        f"{k} {_fmt(m.original_scores[k])} → {_fmt(m.perturbed_scores[k])}" for k in m.original_scores
    )


def _with_texts(r: Result, perturbation: str, texts: ScoredTexts | str) -> tuple[list[Miss], str | None]:
    """The misses of ``perturbation`` with their texts, or without them and the one-line reason."""
    misses = list(_found(r, perturbation)[0])
    if isinstance(texts, str):
        return misses, texts
    try:
        return attach_texts(misses, texts.originals, texts.perturbed.get(perturbation, {})), None
    except MissesError as e:
        return misses, str(e)


def misses_html(r: Result, perturbation: str | None, texts: ScoredTexts | str, n: int = MISSES_SHOWN) -> str:
    """The first ``n`` misses of ``perturbation`` (worst first): scores, and both texts with the
    changed words marked as ``dhp show`` marks them (``<del>``/``<ins>``)."""
    from dhp.data.diffmark import pair_html

    if not perturbation:
        return "<p>No perturbation has a missed pair here.</p>" if r.scores is not None else ""
    try:
        misses, why = _with_texts(r, perturbation, texts)
        total = len(_found(r, perturbation)[1])  # the perturbation's pairs, not the dataset's items
    except MissesError as e:
        return f"<p>{html.escape(str(e))}</p>"
    note = "" if why is None else f"<p class='dhp-misses-note'>Texts not shown: {html.escape(why)}</p>"
    parts = [
        f"<p><b>{len(misses)} of {total}</b> pairs of <code>{html.escape(perturbation)}</code> not scored "
        f"lower; the {min(n, len(misses))} with the largest rise first.</p>",
        note,
    ]
    for m in misses[:n]:
        parts.append(
            "<div class='dhp-miss'>"
            f"<p><code>{html.escape(m.item_id)}</code>: weighted {_fmt(m.original_weighted)} → "
            f"{_fmt(m.perturbed_weighted)} <span class='dhp-miss-scores'>({html.escape(_scores_line(m))})</span></p>"
        )
        if m.original_text is not None and m.perturbed_text is not None:
            orig, pert = pair_html(m.original_text, m.perturbed_text)
            parts.append(
                f"<p class='dhp-miss-text'><b>original</b> {orig}</p><p class='dhp-miss-text'><b>perturbed</b> {pert}</p>"
            )
        parts.append("</div>")
    return _STYLE + "".join(parts)


_STYLE = (
    "<style>#judge-misses del{background:#fdd;color:#900}"
    "#judge-misses ins{background:#dfd;color:#060;text-decoration:none}"
    "#judge-misses .dhp-miss{border-top:1px solid #ddd;padding:.3em 0;overflow-wrap:anywhere}"
    "#judge-misses .dhp-miss-scores{color:#666;font-size:.9em}"
    "#judge-misses .dhp-misses-note{color:#666}</style>"
)


def misses_csv_path(r: Result, texts: ScoredTexts | str, folder: Path) -> str | None:
    """Every miss of every perturbation as CSV (texts and marked differences when available), in
    ``folder`` under a name from its content; None without item scores, or once ``folder`` is gone."""
    if r.scores is None:
        return None
    by = {pid: _with_texts(r, pid, texts)[0] for pid in r.scores.perturbed}  # the page says why texts lack
    text = misses_csv(by)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
    path = folder / f"dhp-misses-{_slug(r.judge.name)}-{r.dataset.name}-{digest}.csv"
    if (
        not folder.is_dir()
    ):  # the app's folder, removed as it ended: a renderer still drawing leaves no litter
        return None
    if not path.is_file():
        atomic_write_text(path, text)
    return str(path)


def _slug(name: str) -> str:
    """The name in a file name (ASCII letters and digits; the content's hash tells files apart)."""
    return "".join(c if c.isascii() and (c.isalnum() or c in "-_") else "-" for c in name)[:60]


# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class DetailBlock:
    detail: gr.Markdown
    pick: gr.Dropdown
    misses: gr.HTML
    csv: gr.File


def detail_block() -> DetailBlock:
    """The components, created inside the Judge tab (under the per-perturbation table); filled in the
    browser from the judge page's bytes (:mod:`dhp.leaderboard.page.judge_pages`)."""
    detail = gr.Markdown(elem_id="judge-detail")
    pick = gr.Dropdown(choices=[], label="Missed pairs of", elem_id="judge-miss-pick", visible=False)
    misses = gr.HTML(elem_id="judge-misses")
    csv = gr.File(label="All misses (CSV)", elem_id="judge-misses-csv", visible=False, interactive=False)
    return DetailBlock(detail, pick, misses, csv)
