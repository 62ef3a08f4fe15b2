"""``dhp stability``: how much a judge's discernment depends on the prompt wording. Pure.

Results of one judge on one dataset revision, scored with several prompt sets (``dhp score
--prompt-set``; results with a misleading cue are left to :mod:`dhp.scoring.robustness`), are
compared: D_avg and D_min (with and without expert weights) per prompt set, their spread
(max - min and the sample standard deviation over the sets), and the perturbations whose D is on
different sides of D = 1 under different sets (discerned at p < 0.05 with one wording, not with
another). A perturbation without D under a set counts as "no D" for that set; it is reported, not
treated as a side.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from dhp.scoring.results import Result

__all__ = ["AGGREGATES", "Flip", "Spread", "StabilityRow", "render_stability", "stability"]

#: The summary numbers compared across prompt sets.
AGGREGATES = ("d_avg", "d_min", "d_avg_ew", "d_min_ew")


@dataclass(frozen=True)
class Spread:
    """max - min and the sample standard deviation over the prompt sets that have the number."""

    range: float | None
    sd: float | None


@dataclass(frozen=True)
class Flip:
    """A perturbation whose D (or D^EW) is > 1 under some prompt sets and <= 1 under others."""

    perturbation: str
    which: str  # "D" or "D^EW"
    values: Mapping[str, float | None]  # prompt set -> D (None: no D)


@dataclass(frozen=True)
class StabilityRow:
    judge: str
    dataset: str
    revision: str
    prompt_sets: tuple[str, ...]
    values: Mapping[str, Mapping[str, float | None]]  # aggregate -> prompt set -> value
    spread: Mapping[str, Spread]  # aggregate -> spread over the prompt sets
    flips: tuple[Flip, ...]


def _spread(values: Sequence[float | None]) -> Spread:
    vs = [v for v in values if v is not None]
    if len(vs) < 2:
        return Spread(None, None)
    return Spread(max(vs) - min(vs), statistics.stdev(vs))


def _flips(results: Mapping[str, Result]) -> tuple[Flip, ...]:
    pids: list[str] = []
    for r in results.values():
        pids += [p.id for p in r.perturbations if p.id not in pids]
    out: list[Flip] = []
    for which, attr in (("D", "d"), ("D^EW", "d_ew")):
        for pid in pids:
            values: dict[str, float | None] = {}
            for name, r in results.items():
                by = {p.id: p for p in r.perturbations}
                values[name] = getattr(by[pid], attr) if pid in by else None
            sides = {v > 1.0 for v in values.values() if v is not None}
            if len(sides) == 2:
                out.append(Flip(pid, which, values))
    return tuple(out)


def stability(results: Sequence[Result]) -> list[StabilityRow]:
    """One row per (judge, dataset, revision) over the cue-free results, sorted.

    Two results of one group with the same prompt set are an error (which one would count?).
    """
    groups: dict[tuple[str, str, str], dict[str, Result]] = {}
    for r in results:
        if r.scoring.cue is not None:
            continue
        key = (r.judge.name, r.dataset.name, r.dataset.revision)
        sets = groups.setdefault(key, {})
        if r.scoring.prompt_set in sets:
            raise ValueError(
                f"two results of judge {key[0]!r} on {key[1]}@{key[2]} with prompt set {r.scoring.prompt_set!r}"
            )
        sets[r.scoring.prompt_set] = r
    rows = []
    for (judge, dataset, revision), by_set in sorted(groups.items()):
        names = tuple(sorted(by_set))
        values = {a: {n: getattr(by_set[n].summary, a) for n in names} for a in AGGREGATES}
        rows.append(
            StabilityRow(
                judge=judge,
                dataset=dataset,
                revision=revision,
                prompt_sets=names,
                values=values,
                spread={a: _spread(list(values[a].values())) for a in AGGREGATES},
                flips=_flips({n: by_set[n] for n in names}),
            )
        )
    return rows


def _f(x: float | None) -> str:
    return "–" if x is None else f"{x:.2f}"


def render_stability(rows: Sequence[StabilityRow]) -> str:
    """Markdown: per (judge, dataset) the numbers per prompt set, their spread, and the flips."""
    lines = ["# DHP prompt stability", ""]
    if not rows:
        return "\n".join([*lines, "No cue-free results given.", ""])
    lines += [
        "| judge | dataset | prompt set | D_avg | D_min | D_avg^EW | D_min^EW |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        for name in row.prompt_sets:
            cells = " | ".join(_f(row.values[a][name]) for a in AGGREGATES)
            lines.append(f"| {row.judge} | {row.dataset} | {name} | {cells} |")
        if len(row.prompt_sets) < 2:
            continue
        rng = " | ".join(_f(row.spread[a].range) for a in AGGREGATES)
        sd = " | ".join(_f(row.spread[a].sd) for a in AGGREGATES)
        lines.append(f"| {row.judge} | {row.dataset} | *spread (max-min)* | {rng} |")
        lines.append(f"| {row.judge} | {row.dataset} | *spread (sd)* | {sd} |")
    lines.append("")
    for row in rows:
        head = f"**{row.judge} on {row.dataset}** ({len(row.prompt_sets)} prompt set(s): {', '.join(row.prompt_sets)})"
        if len(row.prompt_sets) < 2:
            lines += [f"{head}: one prompt set only, nothing to compare.", ""]
            continue
        if not row.flips:
            lines += [f"{head}: no perturbation changes side of D = 1 between prompt sets.", ""]
            continue
        lines += [f"{head}: {len(row.flips)} change(s) of side of D = 1 between prompt sets:", ""]
        lines += ["| perturbation | D or D^EW | " + " | ".join(row.prompt_sets) + " |"]
        lines += ["|---|---|" + "---|" * len(row.prompt_sets)]
        for fl in row.flips:
            lines.append(
                f"| {fl.perturbation} | {fl.which} | "
                + " | ".join(_f(fl.values[n]) for n in row.prompt_sets)
                + " |"
            )
        lines.append("")
    return "\n".join(lines) + "\n"
