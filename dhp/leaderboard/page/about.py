"""Text of the About tab and the legend (Markdown with LaTeX), built from the benchmark spec."""

from __future__ import annotations

from dhp.spec import BENCHMARK, DHP_CITATION

__all__ = ["LEGEND", "about_markdown", "intro_markdown"]

LEGEND = (
    "**D avg**: level-balanced mean discernment on a dataset; **D min**: the worst-discerned perturbation; "
    "D > 1 means discerned at p < 0.05. Under each number, its bootstrap interval [low, high] (intervals are often skewed: read both bounds); '–' means "
    "no result. *Overall* is the mean D avg over the chosen datasets, empty when a judge lacks one of them. "
    "Numbers are not coloured: averages are not tests; the judge page colours each perturbation's test. "
    "**Baselines** (pinned on top): random = chance, oracle = ceiling, lexical = surface cues; read a judge "
    "against them. Click a header to sort, a judge's name to open its page."
)


def intro_markdown() -> str:
    return (
        "# DHP discernment leaderboard\n"
        "**Does your LLM judge notice degraded text?** Each judge scores original and perturbed texts "
        "(character, word and sentence level) one at a time; a paired Wilcoxon test per perturbation "
        "and metric turns the score drops into a discernment score **D = log<sub>0.05</sub>(p)**. "
        "D > 1 means significant discernment. See *About* for the method."
    )


def _method_markdown() -> str:
    return """
## The method in brief

DHP (*Discernment of Hierarchical Perturbation*, Wang et al. 2024) measures whether an LLM judge gives
lower quality scores to a degraded text than to the original, when it sees each text **on its own**.
Reference texts are perturbed at the character (C), word (W) and sentence (S) level, by rules or by an
LLM, at minor and major severity. The judge scores every original and every perturbed text on each
quality metric (1-5).

For perturbation $i$ and metric $m_j$, a one-sided paired Wilcoxon signed-rank test of the original
scores $S^0$ against the perturbed scores $S^i$ (H1: $S^0 > S^i$) gives $p^i_{m_j}$. The metrics are
combined with a harmonic mean, optionally with expert weights (EW) that say which metric an issue
should hurt:

$$p^i = \\frac{1}{\\sum_j 1/p^i_{m_j}}, \\qquad p^{i,EW} = \\frac{1}{\\sum_j EW^i_{m_j}/p^i_{m_j}}, \\quad \\sum_j EW^i_{m_j} = 1$$

$$D^i = \\log_{0.05}(p^i), \\qquad D^{i,EW} = \\log_{0.05}(p^{i,EW})$$

Per dataset the leaderboard shows $D_{avg}$ (a level-balanced mean: each level C, W, S weighs the same,
split equally among its perturbations) and $D_{min}$ (the worst perturbation), with expert weights
(columns marked `^EW`) or without (toggle *expert weights* off). p is floored at $10^{-300}$, so
D ≤ 230.6 stays finite. Judge pages show item-level bootstrap confidence intervals.

## How to read D

* **D > 1**: the judge scores the perturbed texts significantly lower (p < 0.05). D = 2
  means p = 0.0025, D = 3 means p = 0.000125. On a judge page each perturbation's test is
  coloured (green: discerned); averages on the main table are not, since they are not tests.
* **D < 1**: no significant discernment of that issue. D = 0: no evidence at all (p = 1).
* The paper's unweighted formula counts chance as discernment about 30% of the time with four
  metrics; read unweighted numbers against the **random** baseline pinned on top of the table.
* $D^{EW}$ much lower than $D$: the judge notices the problem but blames the wrong metric
  (the paper's *metric misunderstanding*).
* Only paired differences count, so a judge's **response style** (harsh, lenient, always 4) does not
  bias D; the judge page's score-distribution plot shows that style.
* *Overall* is the mean $D_{avg}$ over the chosen datasets.

"""


def about_markdown() -> str:
    """The About tab: the method, how to read D, expert weights, the datasets and citations."""
    ds_rows = "\n".join(
        f"| [`{d.name}`](https://huggingface.co/datasets/{d.hub_repo}) | {d.task.replace('_', ' ')} | "
        f"[{d.source.name}]({d.source.homepage}) | {d.source.licence} | "
        f"{', '.join(d.metric_names)} | {len(d.perturbations)} |"
        for d in BENCHMARK.values()
    )
    citations = "\n\n".join(
        f"**{d.source.name}**\n```bibtex\n{d.source.citation}\n```"
        for d in {d.source.name: d for d in BENCHMARK.values()}.values()
    )
    return (
        _method_markdown()
        + f"""## Expert weights

The paper's survey of 10 NLP experts is published only as a figure, so DHP-bench ships default
weights with a written reason for each (`dhp spec`). The *Survey* tab runs the survey itself (the
paper's Figure 5): the weights derived from its votes can be chosen above the table, and D^EW is then
recomputed from the p-values stored in each result, without any new request to the judges.

## Datasets

| dataset | task | source | licence | metrics | perturbations |
|---|---|---|---|---|---|
{ds_rows}

## Citations

**DHP** (Wang et al. 2024)
```bibtex
{DHP_CITATION}
```

{citations}
"""
    )
