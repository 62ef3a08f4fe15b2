"""``dhp robustness``: how far a misleading cue moves a judge's scores and discernment. Pure.

A cue result (``dhp score --cue``: a false prior rating such as "A previous annotator rated this
text 5 out of 5." added to every judged text, originals and perturbed alike) is paired with the
cue-free result of the same judge, dataset revision and prompt set. For each pair: the mean score
shift per metric (cue minus no cue, over the texts scored in both runs), on the originals and on
the perturbed texts; D_avg and D_min with and without the cue (and with expert weights); the D
change per perturbation; and how many perturbations are discerned (D > 1) in each run. A judge that
copies the cue scores every text alike, so its D falls towards 0; one that ignores it moves nothing.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from dhp.scoring.results import Result

__all__ = ["CuePair", "Unpaired", "pair_results", "render_robustness", "robustness"]


@dataclass(frozen=True)
class Shift:
    """Mean score with the cue minus without it, over the texts scored in both runs."""

    original: float | None
    perturbed: float | None
    n_original: int
    n_perturbed: int


@dataclass(frozen=True)
class CuePair:
    judge: str
    dataset: str
    revision: str
    prompt_set: str
    cue: str
    shift: Mapping[str, Shift]  # metric -> shift
    without: Mapping[str, float | None]  # "d_avg", "d_min", "d_avg_ew", "d_min_ew" without the cue
    with_cue: Mapping[str, float | None]
    d_change: Mapping[str, tuple[float | None, float | None]]  # perturbation -> (D without, D with)
    discerned: tuple[int, int]  # perturbations with D > 1: without, with the cue


@dataclass(frozen=True)
class Unpaired:
    """A cue result with no cue-free result of the same judge, dataset revision and prompt set."""

    judge: str
    dataset: str
    revision: str
    prompt_set: str


_AGG = ("d_avg", "d_min", "d_avg_ew", "d_min_ew")


def _key(r: Result) -> tuple[str, str, str, str]:
    return (r.judge.name, r.dataset.name, r.dataset.revision, r.scoring.prompt_set)


def pair_results(results: Sequence[Result]) -> tuple[list[tuple[Result, Result]], list[Unpaired]]:
    """(without cue, with cue) pairs, and the cue results that have no partner."""
    plain: dict[tuple[str, str, str, str], Result] = {}
    for r in results:
        if r.scoring.cue is None:
            if _key(r) in plain:
                raise ValueError(f"two cue-free results for {_key(r)}")
            plain[_key(r)] = r
    pairs, unpaired = [], []
    for r in sorted(
        (r for r in results if r.scoring.cue is not None), key=lambda r: (*_key(r), r.scoring.cue or "")
    ):
        if _key(r) in plain:
            pairs.append((plain[_key(r)], r))
        else:
            unpaired.append(Unpaired(*_key(r)))
    return pairs, unpaired


def _mean_diff(a: Sequence[float | None], b: Sequence[float | None]) -> tuple[float | None, int]:
    d = [y - x for x, y in zip(a, b, strict=True) if x is not None and y is not None]
    return (math.fsum(d) / len(d), len(d)) if d else (None, 0)


def _shifts(base: Result, cued: Result) -> dict[str, Shift]:
    if base.scores is None or cued.scores is None:
        raise ValueError(
            f"{base.judge.name} on {base.dataset.name}: the results hold no item scores to compare"
        )
    if base.scores.item_ids != cued.scores.item_ids:
        raise ValueError(f"{base.judge.name} on {base.dataset.name}: the two results score different items")
    out: dict[str, Shift] = {}
    for m in base.scores.original:
        o, n_o = _mean_diff(base.scores.original[m], cued.scores.original.get(m, ()))
        a: list[float | None] = []
        b: list[float | None] = []
        for pid, per in base.scores.perturbed.items():
            if pid in cued.scores.perturbed:
                a += per[m]
                b += cued.scores.perturbed[pid][m]
        p, n_p = _mean_diff(a, b)
        out[m] = Shift(o, p, n_o, n_p)
    return out


def _discerned(r: Result) -> int:
    return sum(1 for p in r.perturbations if p.d is not None and p.d > 1.0)


def robustness(results: Sequence[Result]) -> tuple[list[CuePair], list[Unpaired]]:
    """Every cue result against its cue-free partner; the unpaired cue results listed apart."""
    pairs, unpaired = pair_results(results)
    out = []
    for base, cued in pairs:
        by_cue = {p.id: p.d for p in cued.perturbations}
        out.append(
            CuePair(
                judge=base.judge.name,
                dataset=base.dataset.name,
                revision=base.dataset.revision,
                prompt_set=base.scoring.prompt_set,
                cue=cued.scoring.cue or "",
                shift=_shifts(base, cued),
                without={a: getattr(base.summary, a) for a in _AGG},
                with_cue={a: getattr(cued.summary, a) for a in _AGG},
                d_change={p.id: (p.d, by_cue.get(p.id)) for p in base.perturbations},
                discerned=(_discerned(base), _discerned(cued)),
            )
        )
    return out, unpaired


def _f(x: float | None, sign: bool = False) -> str:
    return "–" if x is None else (f"{x:+.2f}" if sign else f"{x:.2f}")


def _diff(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else b - a


def _pair_lines(cp: CuePair) -> list[str]:
    n = len(cp.d_change)
    lines = [
        f"## {cp.judge} on {cp.dataset} (prompt set {cp.prompt_set})",
        "",
        f'Cue: "{cp.cue}". Perturbations discerned (D > 1): {cp.discerned[0]} of {n} without the cue, '
        f"{cp.discerned[1]} of {n} with it.",
        "",
        "| metric | shift on originals | shift on perturbed texts | texts compared |",
        "|---|---|---|---|",
    ]
    for m, s in cp.shift.items():
        lines.append(
            f"| {m} | {_f(s.original, True)} | {_f(s.perturbed, True)} | {s.n_original} + {s.n_perturbed} |"
        )
    lines += ["", "| | D_avg | D_min | D_avg^EW | D_min^EW |", "|---|---|---|---|---|"]
    lines.append("| without cue | " + " | ".join(_f(cp.without[a]) for a in _AGG) + " |")
    lines.append("| with cue | " + " | ".join(_f(cp.with_cue[a]) for a in _AGG) + " |")
    lines.append(
        "| change | " + " | ".join(_f(_diff(cp.without[a], cp.with_cue[a]), True) for a in _AGG) + " |"
    )
    lines += ["", "| perturbation | D without cue | D with cue | change |", "|---|---|---|---|"]
    for pid, (a, b) in cp.d_change.items():
        lines.append(f"| {pid} | {_f(a)} | {_f(b)} | {_f(_diff(a, b), True)} |")
    return [*lines, ""]


def render_robustness(pairs: Sequence[CuePair], unpaired: Sequence[Unpaired] = ()) -> str:
    """Markdown: one section per (judge, dataset, prompt set, cue)."""
    lines = ["# DHP robustness to a misleading cue", ""]
    if not pairs:
        lines += ["No pair of results with and without a cue given.", ""]
    for cp in pairs:
        lines += _pair_lines(cp)
    for u in unpaired:
        lines.append(
            f"No cue-free result of {u.judge} on {u.dataset}@{u.revision} with prompt set {u.prompt_set}."
        )
    return "\n".join(lines) + "\n"
