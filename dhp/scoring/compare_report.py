"""``dhp compare``'s output: one judge's results picked by dataset, and a comparison as JSON or Markdown.

The comparison itself is :mod:`dhp.scoring.compare` (pure statistics); this module reads nothing
and sends nothing either: it turns a :class:`~dhp.scoring.compare.Comparison` into text.
"""

from __future__ import annotations

from collections.abc import Sequence

from dhp.scoring.compare import AGGREGATES, Bounds, CompareError, Comparison, DatasetComparison, Difference
from dhp.scoring.results import DEFAULT_PROMPT_SET, Result
from dhp.spec import MIN_PAIRS

__all__ = ["comparison_json", "pick_results", "render_comparison"]


def pick_results(results: Sequence[Result], side: str, split: str = "public") -> dict[str, Result]:
    """One judge's results by dataset: the default prompt set without a cue, one revision each, of
    ``split`` (a private split's results, which hold no item scores, only with ``split="private"``).

    ``side`` ("A" or "B") names the argument in the one-line errors.
    """
    plain = [
        r
        for r in results
        if r.scoring.prompt_set == DEFAULT_PROMPT_SET and r.scoring.cue is None and r.dataset.split == split
    ]
    judges = sorted({r.judge.name for r in plain})
    if len(judges) != 1:
        found = ", ".join(judges) if judges else "none with the default prompt set and no cue"
        raise CompareError(f"{side}: give the results of exactly one judge (found {found})")
    by: dict[str, Result] = {}
    for r in plain:
        if r.dataset.name in by:
            raise CompareError(
                f"{side}: {r.dataset.name} has results of several revisions; give one result file per dataset"
            )
        by[r.dataset.name] = r
    return by


def _bounds_json(b: Bounds | None) -> list[float] | None:
    return None if b is None else list(b)


def _difference_json(d: Difference) -> dict[str, object]:
    return {
        "diff": d.diff,
        "ci": _bounds_json(d.ci),
        "verdict": d.verdict,
        "ci_a": _bounds_json(d.ci_a),
        "ci_b": _bounds_json(d.ci_b),
    }


def _dataset_json(ds: DatasetComparison) -> dict[str, object]:
    return {
        **{k: _difference_json(ds.aggregates[k]) for k in AGGREGATES},
        "n_items": ds.n_items,
        "compared": list(ds.compared),
        "left_out": dict(ds.left_out or {}),
        "qualified": dict(ds.qualified or {}),
        "perturbations": {p: _difference_json(d) for p, d in ds.perturbations.items()},
        "effects": {
            p: {
                **_difference_json(d),
                "a": (ds.effect_points or {}).get(p, (None, None))[0],
                "b": (ds.effect_points or {}).get(p, (None, None))[1],
            }
            for p, d in (ds.effects or {}).items()
        },
    }


def comparison_json(c: Comparison) -> dict[str, object]:
    """The ``--json`` document: ``{"datasets": {NAME: {"d_avg_ew", "d_min_ew", "n_items", "compared",
    "left_out", "qualified", "perturbations", "effects"}}, "overall": {"d_avg_ew", "d_min_ew"},
    "qualified": {"A": [...], "B": [...]}}``, plus the judges and bootstrap settings. Each
    difference: ``diff``, ``ci``, ``verdict`` and each judge's own interval (``ci_a``, ``ci_b``);
    an effect difference also each judge's effect (``a``, ``b``)."""
    return {
        "judge_a": c.judge_a,
        "judge_b": c.judge_b,
        "n_boot": c.n_boot,
        "seed": c.seed,
        "confidence": c.confidence,
        "datasets": {name: _dataset_json(ds) for name, ds in c.datasets.items()},
        "overall": {k: _difference_json(c.overall[k]) for k in AGGREGATES},
        "qualified": {side: _qualified_on(c, side) for side in ("A", "B")},
    }


def _qualified_on(c: Comparison, side: str) -> list[str]:
    """The datasets on which one judge's own result is qualified."""
    return [name for name, ds in c.datasets.items() if (ds.qualified or {}).get(side)]


def _who_is_qualified(c: Comparison) -> str:
    n = len(c.datasets)
    parts = []
    for side, judge in (("A", c.judge_a), ("B", c.judge_b)):
        on = _qualified_on(c, side)
        where = (
            "on none"
            if not on
            else f"on all {n}"
            if len(on) == n
            else f"on {len(on)} of {n} ({', '.join(on)})"
        )
        parts.append(f"{side} ({judge}) is qualified {where}")
    return "; ".join(parts) + " of the datasets compared."


def _cell(d: Difference) -> str:
    if d.diff is None or d.ci is None:
        return "– | – | no D"
    return f"{d.diff:+.2f} | [{d.ci[0]:+.2f}, {d.ci[1]:+.2f}] | {d.verdict}"


def _effects(ds: DatasetComparison, pid: str) -> str:
    """Each judge's effect on one perturbation (share of pairs scored lower), ``–`` where it has none."""
    a, b = (ds.effect_points or {}).get(pid, (None, None))
    return ", ".join("–" if x is None or x != x else f"{x:.2f}" for x in (a, b))


def _qualified_word(q: bool | None) -> str:
    return "no D_min^EW" if q is None else "qualified" if q else "not qualified"


def _dataset_header(name: str, ds: DatasetComparison) -> list[str]:
    """What the aggregates are over, what they leave out, and whether each judge is qualified."""
    total = len(ds.compared) + len(ds.left_out or {})
    q = ds.qualified or {}
    lines = [
        f"## {name} ({ds.n_items} items)",
        "",
        f"A {_qualified_word(q.get('A'))}, B {_qualified_word(q.get('B'))} on {name}. "
        f"Aggregates over the {len(ds.compared)} of {total} perturbations both judges have a D for"
        + (
            "; left out: " + ", ".join(f"{p} ({why})" for p, why in (ds.left_out or {}).items()) + "."
            if ds.left_out
            else "."
        ),
        "",
    ]
    return lines


def render_comparison(c: Comparison) -> str:
    """Markdown: overall, then per dataset the aggregates and every perturbation's D^EW difference."""
    head = ["| | A − B | interval | better | effect A, B |", "|---|---|---|---|---|"]
    lines = [
        f"# {c.judge_a} (A) vs {c.judge_b} (B)",
        "",
        f"Differences A − B of D^EW on the items both scored; {c.confidence:.0%} paired bootstrap intervals "
        f"({c.n_boot} replicates, seed {c.seed}), each judge's pairs resampled at their observed "
        "count. The verdict: 'tie' when the difference rounds to 0.00 or its interval contains 0; "
        "'neither' when neither judge credibly discerns (its own D interval above 1); 'few pairs' "
        f"for a perturbation with fewer than {MIN_PAIRS} pairs, which no aggregate counts. "
        "Aggregates compare only the perturbations both judges have a D for. 'effect' is each "
        "judge's share of pairs scored lower (ties half; 0.50 is chance), which does not grow "
        "with the number of pairs.",
        "",
        "## Overall",
        "",
        _who_is_qualified(c),
        "",
        *head,
        *(f"| {k} | {_cell(c.overall[k])} | |" for k in AGGREGATES),
        "",
    ]
    for name, ds in c.datasets.items():
        lines += [*_dataset_header(name, ds), *head]
        lines += [f"| {k} | {_cell(ds.aggregates[k])} | |" for k in AGGREGATES]
        lines += [f"| {p} D^EW | {_cell(d)} | {_effects(ds, p)} |" for p, d in ds.perturbations.items()]
        lines.append("")
    return "\n".join(lines)
