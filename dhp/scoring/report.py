"""``dhp report``: a markdown report with PNG plots from result files.

Per dataset, bars of D^i and D^{i,EW} per perturbation for every judge, with the significance line
D = 1 (the paper's Figure 4), and per (judge, dataset) the judge's score distributions on the
originals and on the perturbed texts of each level (the paper's Figure 2). The markdown holds the
summary per judge (D_avg, D_min with and without expert weights, bootstrap intervals, coverage,
requests) and the per-perturbation tables with every metric's p-value.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from dhp.naming import judge_slug, revision_slug
from dhp.scoring.breakdown import length_tertiles
from dhp.scoring.caveats import SAMPLE, caveats
from dhp.scoring.result_files import cue_slug, read_result
from dhp.scoring.results import DEFAULT_PROMPT_SET, CIModel, Result
from dhp.scoring.summary import no_d_mark
from dhp.spec import MIN_PAIRS
from dhp.types import Level

__all__ = ["collect_results", "plot_discernment", "plot_scores", "render_markdown", "variant", "write_report"]

_LEVEL_NAMES = {Level.CHARACTER: "character", Level.WORD: "word", Level.SENTENCE: "sentence"}


def collect_results(paths: Sequence[Path]) -> list[Result]:
    """Result files given directly, or every ``*.json`` under the given folders (sorted)."""
    files: list[Path] = []
    for p in paths:
        if p.is_dir():
            files.extend(
                sorted(f for f in p.rglob("*.json") if not any(part.startswith(".") for part in f.parts))
            )
        else:
            files.append(p)
    results = [read_result(f) for f in files]
    return sorted(results, key=lambda r: (r.dataset.name, r.judge.name, r.dataset.revision, variant(r)))


def _requests(r: Result) -> str:
    if not r.judge.judge.sends_requests:
        return "none (built-in judge)"
    t = r.timing
    out = f"{t.requests_sent} sent, {t.requests_cached} cached"
    every = t.all_invocations
    if every is not None and every.invocations > 1:  # a resumed run: what each invocation spent
        out += f" (last of {every.invocations} invocations; {every.requests_sent} sent in all)"
    return out


def _fmt(x: float | None, digits: int = 2) -> str:
    return "–" if x is None or not math.isfinite(x) else f"{x:.{digits}f}"


def _ci(ci: CIModel | None) -> str:
    return "" if ci is None else f" [{ci.low:.2f}, {ci.high:.2f}]"


def _p(p: float | None) -> str:
    if p is None:
        return "–"
    return f"{p:.3g}" if p >= 1e-3 else f"{p:.2e}"


def variant(r: Result) -> str:
    """The prompt variant of a result: its prompt set, plus ``+cue`` when a misleading cue was added."""
    return r.scoring.prompt_set + ("+cue" if r.scoring.cue is not None else "")


def _label(r: Result, multi_rev: bool) -> str:
    name = r.judge.name if variant(r) == DEFAULT_PROMPT_SET else f"{r.judge.name} [{variant(r)}]"
    return f"{name} ({r.dataset.revision[:18]})" if multi_rev else name


def _qualified(q: bool | None) -> str:
    return "–" if q is None else ("yes" if q else "no")


# ---------------------------------------------------------------------------------------------
def _save(fig: Figure, path: Path) -> Path:
    """Lay out, write as PNG and free the figure."""
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_discernment(results: Sequence[Result], path: Path) -> Path:
    """Grouped bars of D and D^EW per perturbation (one colour per judge), line at D = 1."""
    pids: list[str] = []
    for r in results:
        pids += [p.id for p in r.perturbations if p.id not in pids]
    multi_rev = len({r.dataset.revision for r in results}) > 1
    width = 0.8 / max(1, len(results))
    x = np.arange(len(pids))
    fig, axes = plt.subplots(2, 1, figsize=(max(6.0, 0.7 * len(pids) + 2), 7.5), sharex=True)
    for ax, attr, title in ((axes[0], "d", "$D^i$"), (axes[1], "d_ew", "$D^{i,EW}$")):
        for k, r in enumerate(results):
            by = {p.id: p for p in r.perturbations}
            vals = [
                getattr(by[p], attr) if p in by and getattr(by[p], attr) is not None else np.nan for p in pids
            ]
            lo, hi = [], []
            for p, v in zip(pids, vals, strict=True):
                ci = getattr(by[p], f"{attr}_ci") if p in by else None
                lo.append(v - ci.low if ci is not None and math.isfinite(v) else 0.0)
                hi.append(ci.high - v if ci is not None and math.isfinite(v) else 0.0)
            ax.bar(
                x + (k - (len(results) - 1) / 2) * width,
                vals,
                width,
                label=_label(r, multi_rev),
                yerr=[np.maximum(lo, 0), np.maximum(hi, 0)],
                capsize=2,
                error_kw={"elinewidth": 0.8},
            )
            for xi, v in zip(x, vals, strict=True):
                if not math.isfinite(v):  # no D: a dash, never a bar of height 0
                    ax.text(xi + (k - (len(results) - 1) / 2) * width, 0.05, "–", ha="center", fontsize=9)
        ax.axhline(1.0, color="crimson", linestyle="--", linewidth=1, label="D = 1 (p = 0.05)")
        ax.set_yscale("symlog", linthresh=2.0)
        ax.set_ylabel(title)
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend(
        fontsize=8, ncol=min(5, len(results) + 1), loc="lower left", bbox_to_anchor=(0.0, 1.0), frameon=False
    )
    axes[1].set_xticks(x)
    axes[1].set_xticklabels(pids, rotation=45, ha="right", fontsize=8)
    fig.suptitle(f"Discernment per perturbation — {results[0].dataset.name}")
    return _save(fig, path)


def plot_scores(result: Result, path: Path) -> Path | None:
    """Histograms of the judge's scores on originals and on perturbed texts of each level."""
    if result.scores is None:
        return None
    s = result.scores
    metrics = list(s.original)
    levels = {p.id: p.level for p in result.perturbations}
    fig, axes = plt.subplots(1, len(metrics), figsize=(4.2 * len(metrics), 3.4), squeeze=False)
    bins = np.linspace(1.0, 5.0, 17)
    for ax, m in zip(axes[0], metrics, strict=True):
        orig = [v for v in s.original[m] if v is not None]
        ax.hist(
            orig, bins=bins, density=True, histtype="stepfilled", alpha=0.35, color="grey", label="original"
        )
        for lv in (Level.CHARACTER, Level.WORD, Level.SENTENCE):
            vals = [
                v
                for pid, per in s.perturbed.items()
                if levels.get(pid) is lv
                for v in per[m]
                if v is not None
            ]
            if vals:
                ax.hist(
                    vals,
                    bins=bins,
                    density=True,
                    histtype="step",
                    linewidth=1.5,
                    label=f"{_LEVEL_NAMES[lv]}-level",
                )
        ax.set_title(m)
        ax.set_xlabel("score")
    axes[0][0].set_ylabel("density")
    axes[0][-1].legend(fontsize=8)
    fig.suptitle(f"{result.judge.name} on {result.dataset.name}: scores of originals vs perturbed texts")
    return _save(fig, path)


# ---------------------------------------------------------------------------------------------
_INTRO = (
    "D = log_0.05(p): D > 1 means the judge discerns the perturbation at p < 0.05. D_avg weighs each "
    "level (character, word, sentence) equally; D_min is the worst perturbation. Brackets: bootstrap "
    "95% intervals over items. A perturbation without any usable score (e.g. every text answered N/A) "
    "has no D ('–') and is left out of D_avg and D_min ('no D' counts them; D_min says '(k no D)'). "
    "'qualified': D_min^EW > 1 (DHP v2's advice) and every perturbation has a D. A perturbation with fewer "
    f"than {MIN_PAIRS} pairs keeps its D but is left out of D_avg, D_min and qualified ('few pairs' counts "
    "them; docs/method.md, 'Few pairs'). 'effect': the share of pairs scored lower (ties half; 0.50 is "
    "chance), which, unlike D, does not grow with the number of pairs. "
    "With the paper's unweighted combination p = 1/Σ_j 1/p_j a judge without any "
    "evidence still gets D ≥ log_0.05(1/M) for M metrics, and a random judge is 'significant' often: "
    "compare with the random judge's baseline (docs/method.md, 'Reading D') or use --combine wilson-landau."
)


def _summary_lines(results: Sequence[Result]) -> list[str]:
    lines = [
        "## Summary",
        "",
        "| judge | dataset | prompts | revision | mode | D_avg | D_min | D_avg^EW | D_min^EW | no D | few pairs "
        "| qualified | effect | coverage | requests | caveats |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in sorted(results, key=lambda r: (r.judge.name, r.dataset.name, variant(r))):
        s, c = r.summary, r.coverage
        mark = no_d_mark(s.n_without_d)
        lines.append(
            f"| {r.judge.name} | {r.dataset.name} | {variant(r)} | `{r.dataset.revision}` | {r.scoring.mode} | "
            f"{_fmt(s.d_avg)}{_ci(s.ci.get('d_avg'))} | {_fmt(s.d_min)}{_ci(s.ci.get('d_min'))}{mark} | "
            f"{_fmt(s.d_avg_ew)}{_ci(s.ci.get('d_avg_ew'))} | {_fmt(s.d_min_ew)}{_ci(s.ci.get('d_min_ew'))}{mark} | "
            f"{s.n_without_d} | {s.n_few_pairs} | {_qualified(s.qualified)} | "
            f"{_fmt(s.effect_avg, 2)}{_ci(s.ci.get('effect_avg'))} | "
            f"{c.percent} | {_requests(r)} | {'; '.join(caveats(r))} |"
        )
    lines += [
        "",
        "### Per level",
        "",
        "D_avg restricted to one level (the mean of its perturbations' D), without | with expert weights.",
        "",
        "| judge | dataset | prompts | "
        + " | ".join(f"{_LEVEL_NAMES[lv]} D_avg | D_avg^EW" for lv in Level)
        + " |",
        "|---|---|---|" + "---|---|" * len(Level),
    ]
    for r in sorted(results, key=lambda r: (r.judge.name, r.dataset.name, variant(r))):
        cells = []
        for lv in Level:
            ls = r.summary.by_level.get(lv)
            cells.append("– | –" if ls is None else f"{_fmt(ls.d_avg)} | {_fmt(ls.d_avg_ew)}")
        lines.append(f"| {r.judge.name} | {r.dataset.name} | {variant(r)} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def _result_lines(r: Result, ds: str, images: dict[str, str]) -> list[str]:
    metrics = list(r.perturbations[0].metrics) if r.perturbations else []
    cue = f' Misleading cue: "{r.scoring.cue}".' if r.scoring.cue is not None else ""
    lines = [
        f"### {r.judge.name} — {ds} (`{r.dataset.revision}`, {r.dataset.n_items} items, prompts {variant(r)})",
        "",
        f"Judge: {r.judge.kind}/{r.judge.protocol}, model `{r.judge.model}`; mode **{r.scoring.mode}**"
        f" ({r.scoring.repeats} output(s) per score); combination `{r.scoring.combine_method.value}`;"
        f" weights `{r.scoring.weights_source}`; prompt set `{r.scoring.prompt_set}`.{cue}",
        "",
        "| perturbation | level | pairs | "
        + " | ".join(f"p({m})" for m in metrics)
        + " | metrics used | D | D^EW | effect |",
        "|---|---|---|" + "---|" * len(metrics) + "---|---|---|---|",
    ]
    for pr in r.perturbations:
        ps = " | ".join(
            f"{_p(pr.metrics[m].p)} (n={pr.metrics[m].n_pairs})" if m in pr.metrics else "–" for m in metrics
        )
        pairs = f"{pr.n_pairs}" if pr.counted else f"{pr.n_pairs} (few pairs: not in D_avg, D_min)"
        lines.append(
            f"| {pr.id} | {pr.level.value} | {pairs} | {ps} | {pr.n_metrics_used} | {_fmt(pr.d)}{_ci(pr.d_ci)} "
            f"| {_fmt(pr.d_ew)}{_ci(pr.d_ew_ci)} | {_fmt(pr.effect, 2)}{_ci(pr.effect_ci)} |"
        )
    c = r.coverage
    lines += [
        "",
        f"Coverage: {c.parsed_scores}/{c.expected_scores} scores ({c.percent}); "
        f"{c.unparsed} unparsed, {c.failed} failed; {c.unparsed_outputs}/{c.outputs} outputs unparsed.",
    ]
    if r.summary.n_without_d:
        lines.append(
            f"{r.summary.n_without_d} perturbation(s) have no D (no usable score) and are left out of D_avg and D_min."
        )
    if c.unparsed_reasons:
        lines.append(
            "Unparsed outputs by reason: "
            + ", ".join(f"{k}: {v}" for k, v in c.unparsed_reasons.items())
            + "."
        )
    if c.failure_reasons:
        lines.append(
            "Failed scores by reason: " + ", ".join(f"{k}: {v}" for k, v in c.failure_reasons.items()) + "."
        )
    if r.scoring.prompts:
        lines.append(
            "Prompts: "
            + ", ".join(f"{m} `{p.template_hash[:19]}`" for m, p in r.scoring.prompts.items())
            + "."
        )
    lines += _tertile_lines(r)
    key = _scores_key(r)
    if key in images:
        lines += ["", f"![score distributions of {r.judge.name} on {ds}]({images[key]})"]
    return [*lines, ""]


def _tertile_lines(r: Result) -> list[str]:
    """The run's requests and wall time; D_avg^EW by length tertile of the original text (schema 1.2 on)."""
    lines = [f"Run: {_requests(r)}; wall time {r.timing.wall_seconds:.1f} s."]
    tertiles = length_tertiles(r)
    if tertiles:
        cells = [
            f"{t.name} ({t.min_words}–{t.max_words} words, {t.n_items} items) {_fmt(t.d_avg_ew)}"
            for t in tertiles
        ]
        lines.append("D_avg^EW by length tertile of the original text: " + " · ".join(cells) + ".")
    return lines


def _scores_key(r: Result) -> str:
    return f"s:{r.judge.name}:{r.dataset.name}:{r.dataset.revision}:{r.scoring.prompt_set}:{r.scoring.cue}"


def _sample_lines(results: Sequence[Result]) -> list[str]:
    """A warning above everything when a result was scored on the embedded sample."""
    names = sorted({r.dataset.name for r in results if SAMPLE in caveats(r)})
    if not names:
        return []
    return [
        f"> **SAMPLE DATA, NOT THE BENCHMARK.** {', '.join(names)} {'was' if len(names) == 1 else 'were'} "
        "built from the small sample shipped in the package (dataset version `-sample`, marked "
        f"`{SAMPLE}` below): a demo of the pipeline; these numbers are not comparable with the benchmark's.",
        "",
    ]


def render_markdown(results: Sequence[Result], images: dict[str, str]) -> str:
    lines = ["# DHP discernment report", "", _INTRO, "", *_sample_lines(results), *_summary_lines(results)]
    by_ds: dict[str, list[Result]] = {}
    for r in results:
        by_ds.setdefault(r.dataset.name, []).append(r)
    for ds, rs in by_ds.items():
        lines += [f"## {ds}", ""]
        if f"d:{ds}" in images:
            lines += [f"![D per perturbation on {ds}]({images[f'd:{ds}']})", ""]
        for r in rs:
            lines += _result_lines(r, ds, images)
    return "\n".join(lines) + "\n"


def write_report(paths: Sequence[Path], out: Path) -> Path:
    """Write ``out/report.md`` and its PNG plots; return the markdown's path."""
    results = collect_results(paths)
    if not results:
        raise FileNotFoundError(f"no result files under {', '.join(str(p) for p in paths)}")
    out.mkdir(parents=True, exist_ok=True)
    images: dict[str, str] = {}
    by_ds: dict[str, list[Result]] = {}
    for r in results:
        by_ds.setdefault(r.dataset.name, []).append(r)
    for ds, rs in by_ds.items():
        images[f"d:{ds}"] = plot_discernment(rs, out / f"discernment_{ds}.png").name
        for r in rs:
            rev = revision_slug(r.dataset.revision)
            tag = (
                ""
                if r.scoring.prompt_set == DEFAULT_PROMPT_SET
                else "_" + revision_slug(r.scoring.prompt_set)
            )
            tag += "" if r.scoring.cue is None else "_" + cue_slug(r.scoring.cue)
            p = plot_scores(r, out / f"scores_{judge_slug(r.judge.name)}_{ds}_{rev}{tag}.png")
            if p is not None:
                images[_scores_key(r)] = p.name
    md = out / "report.md"
    md.write_text(render_markdown(results, images), encoding="utf-8")
    return md
