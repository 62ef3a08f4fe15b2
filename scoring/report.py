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

from dhp.scoring.results import CIModel, Result, judge_slug, read_result, revision_slug
from dhp.types import Level

__all__ = ["collect_results", "plot_discernment", "plot_scores", "render_markdown", "write_report"]

_LEVEL_NAMES = {Level.CHARACTER: "character", Level.WORD: "word", Level.SENTENCE: "sentence"}


def collect_results(paths: Sequence[Path]) -> list[Result]:
    """Result files given directly, or every ``*.json`` under the given folders (sorted)."""
    files: list[Path] = []
    for p in paths:
        if p.is_dir():
            files.extend(sorted(f for f in p.rglob("*.json") if not any(part.startswith(".") for part in f.parts)))
        else:
            files.append(p)
    results = [read_result(f) for f in files]
    return sorted(results, key=lambda r: (r.dataset.name, r.judge.name, r.dataset.revision))


def _requests(r: Result) -> str:
    if r.judge.kind == "builtin":
        return "none (built-in judge)"
    return f"{r.timing.requests_sent} sent, {r.timing.requests_cached} cached"


def _fmt(x: float | None, digits: int = 2) -> str:
    return "–" if x is None or not math.isfinite(x) else f"{x:.{digits}f}"


def _ci(ci: CIModel | None) -> str:
    return "" if ci is None else f" [{ci.low:.2f}, {ci.high:.2f}]"


def _p(p: float) -> str:
    return f"{p:.3g}" if p >= 1e-3 else f"{p:.2e}"


def _label(r: Result, multi_rev: bool) -> str:
    return f"{r.judge.name} ({r.dataset.revision[:18]})" if multi_rev else r.judge.name


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
            vals = [getattr(by[p], attr) if p in by and getattr(by[p], attr) is not None else np.nan for p in pids]
            lo, hi = [], []
            for p, v in zip(pids, vals, strict=True):
                ci = getattr(by[p], f"{attr}_ci") if p in by else None
                lo.append(v - ci.low if ci is not None and math.isfinite(v) else 0.0)
                hi.append(ci.high - v if ci is not None and math.isfinite(v) else 0.0)
            ax.bar(x + (k - (len(results) - 1) / 2) * width, vals, width, label=_label(r, multi_rev),
                   yerr=[np.maximum(lo, 0), np.maximum(hi, 0)], capsize=2, error_kw={"elinewidth": 0.8})
        ax.axhline(1.0, color="crimson", linestyle="--", linewidth=1, label="D = 1 (p = 0.05)")
        ax.set_yscale("symlog", linthresh=2.0)
        ax.set_ylabel(title)
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend(fontsize=8, ncol=min(5, len(results) + 1), loc="lower left", bbox_to_anchor=(0.0, 1.0), frameon=False)
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
        ax.hist(orig, bins=bins, density=True, histtype="stepfilled", alpha=0.35, color="grey", label="original")
        for lv in (Level.CHARACTER, Level.WORD, Level.SENTENCE):
            vals = [v for pid, per in s.perturbed.items() if levels.get(pid) is lv for v in per[m] if v is not None]
            if vals:
                ax.hist(vals, bins=bins, density=True, histtype="step", linewidth=1.5, label=f"{_LEVEL_NAMES[lv]}-level")
        ax.set_title(m)
        ax.set_xlabel("score")
    axes[0][0].set_ylabel("density")
    axes[0][-1].legend(fontsize=8)
    fig.suptitle(f"{result.judge.name} on {result.dataset.name}: scores of originals vs perturbed texts")
    return _save(fig, path)


# ---------------------------------------------------------------------------------------------
def render_markdown(results: Sequence[Result], images: dict[str, str]) -> str:
    lines = ["# DHP discernment report", ""]
    lines += [
        "D = log_0.05(p): D > 1 means the judge discerns the perturbation at p < 0.05. D_avg weighs each "
        "level (character, word, sentence) equally; D_min is the worst perturbation. Brackets: bootstrap "
        "95% intervals over items. Note: with the paper's unweighted combination p = 1/Σ_j 1/p_j, a "
        "dataset with M metrics has D ≥ log_0.05(1/M) even without any evidence; D^EW has no such floor.",
        "",
        "## Summary",
        "",
        "| judge | dataset | revision | mode | D_avg | D_min | D_avg^EW | D_min^EW | coverage | requests |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in sorted(results, key=lambda r: (r.judge.name, r.dataset.name)):
        s, c = r.summary, r.coverage
        lines.append(
            f"| {r.judge.name} | {r.dataset.name} | `{r.dataset.revision}` | {r.scoring.mode} | "
            f"{_fmt(s.d_avg)}{_ci(s.ci.get('d_avg'))} | {_fmt(s.d_min)}{_ci(s.ci.get('d_min'))} | "
            f"{_fmt(s.d_avg_ew)}{_ci(s.ci.get('d_avg_ew'))} | {_fmt(s.d_min_ew)}{_ci(s.ci.get('d_min_ew'))} | "
            f"{c.coverage:.1%} | {_requests(r)} |"
        )
    lines.append("")
    by_ds: dict[str, list[Result]] = {}
    for r in results:
        by_ds.setdefault(r.dataset.name, []).append(r)
    for ds, rs in by_ds.items():
        lines += [f"## {ds}", ""]
        if f"d:{ds}" in images:
            lines += [f"![D per perturbation on {ds}]({images[f'd:{ds}']})", ""]
        for r in rs:
            metrics = list(r.perturbations[0].metrics) if r.perturbations else []
            lines += [
                f"### {r.judge.name} — {ds} (`{r.dataset.revision}`, {r.dataset.n_items} items)",
                "",
                f"Judge: {r.judge.kind}/{r.judge.protocol}, model `{r.judge.model}`; mode **{r.scoring.mode}**"
                f" ({r.scoring.repeats} output(s) per score); combination `{r.scoring.combine_method.value}`;"
                f" weights `{r.scoring.weights_source}`.",
                "",
                "| perturbation | level | " + " | ".join(f"p({m})" for m in metrics) + " | D | D^EW |",
                "|---|---|" + "---|" * len(metrics) + "---|---|",
            ]
            for pr in r.perturbations:
                ps = " | ".join(
                    f"{_p(pr.metrics[m].p)} (n={pr.metrics[m].n_pairs})" if m in pr.metrics else "–" for m in metrics
                )
                lines.append(
                    f"| {pr.id} | {pr.level.value} | {ps} | {_fmt(pr.d)}{_ci(pr.d_ci)} | {_fmt(pr.d_ew)}{_ci(pr.d_ew_ci)} |"
                )
            c = r.coverage
            lines += [
                "",
                f"Coverage: {c.parsed_scores}/{c.expected_scores} scores ({c.coverage:.1%}); "
                f"{c.unparsed} unparsed, {c.failed} failed; {c.unparsed_outputs}/{c.outputs} outputs unparsed.",
            ]
            if c.unparsed_reasons:
                lines.append("Unparsed outputs by reason: " + ", ".join(f"{k}: {v}" for k, v in c.unparsed_reasons.items()) + ".")
            if c.failure_reasons:
                lines.append("Failed scores by reason: " + ", ".join(f"{k}: {v}" for k, v in c.failure_reasons.items()) + ".")
            if r.scoring.prompts:
                lines.append(
                    "Prompts: " + ", ".join(f"{m} `{p.template_hash[:19]}`" for m, p in r.scoring.prompts.items()) + "."
                )
            key = f"s:{r.judge.name}:{ds}:{r.dataset.revision}"
            if key in images:
                lines += ["", f"![score distributions of {r.judge.name} on {ds}]({images[key]})"]
            lines.append("")
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
            p = plot_scores(r, out / f"scores_{judge_slug(r.judge.name)}_{ds}_{rev}.png")
            if p is not None:
                images[f"s:{r.judge.name}:{ds}:{r.dataset.revision}"] = p.name
    md = out / "report.md"
    md.write_text(render_markdown(results, images), encoding="utf-8")
    return md
