"""Where a judge fails: the pairs it did not score lower (issue 20). Pure functions; no request.

A *miss* of perturbation P is an item whose perturbed text the judge scored at least as high as
the original on the metrics P's expert weights say it should hurt: the weighted mean
``Σ_m w_m s_m / Σ_m w_m`` over the metrics with a weight above 0 and a score on both sides
(unweighted over all scored metrics when P weighs none). Items without such a complete pair are
neither hits nor misses. Misses are listed worst first (largest perturbed − original), then by item.

The texts come from the dataset the result was scored on (:func:`attach_texts`); the differences
are marked as ``dhp show`` marks them (:func:`dhp.data.diffmark.render_stacked`,
:func:`dhp.data.diffmark.pair_html`).
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from dhp.naming import HUB_DATA
from dhp.scoring.results import DatasetRef, ItemScores, Result
from dhp.types import DatasetSpec

__all__ = [
    "Miss",
    "MissesError",
    "ScoredTexts",
    "attach_texts",
    "complete_pairs",
    "find_misses",
    "miss_counts",
    "misses_among",
    "misses_csv",
    "paired_items",
    "render_misses",
    "scored_texts",
]


class MissesError(ValueError):
    """A result or perturbation whose misses cannot be listed; the message says why, in one line."""


@dataclass(frozen=True)
class Miss:
    item_id: str
    original_scores: Mapping[str, float | None]  # metric -> score
    perturbed_scores: Mapping[str, float | None]
    original_weighted: float
    perturbed_weighted: float
    original_text: str | None = None  # filled by attach_texts
    perturbed_text: str | None = None


def _weighted(scores: Mapping[str, float | None], weights: Mapping[str, float]) -> float | None:
    if any(scores[m] is None for m in weights):
        return None
    total = sum(weights.values())
    return sum(w * float(scores[m] or 0.0) for m, w in weights.items()) / total


def _weights_for(result: Result, pid: str, metrics: Sequence[str]) -> Mapping[str, float]:
    given = result.scoring.weights.get(pid, {})
    w = {m: float(given.get(m, 0.0)) for m in metrics if float(given.get(m, 0.0)) > 0}
    return w or dict.fromkeys(metrics, 1.0)


def _scores(result: Result) -> ItemScores:
    if result.scores is None:
        raise MissesError(f"{result.judge.name} on {result.dataset.name}: the result holds no item scores")
    return result.scores


def complete_pairs(result: Result, perturbation: str) -> list[Miss]:
    """Every complete pair of ``perturbation`` (both weighted scores present), as a candidate miss."""
    s = _scores(result)
    if perturbation not in s.perturbed:
        raise MissesError(
            f"{result.dataset.name} has no perturbation {perturbation!r}; scored: {', '.join(s.perturbed)}"
        )
    metrics = list(s.original)
    weights = _weights_for(result, perturbation, metrics)
    out: list[Miss] = []
    for i, item in enumerate(s.item_ids):
        o = {m: s.original[m][i] for m in metrics}
        p = {m: s.perturbed[perturbation][m][i] for m in metrics}
        wo, wp = _weighted(o, weights), _weighted(p, weights)
        if wo is not None and wp is not None:
            out.append(Miss(item, o, p, wo, wp))
    return out


def misses_among(pairs: Sequence[Miss]) -> list[Miss]:
    """The pairs (of :func:`complete_pairs`) the judge did not score lower, worst first."""
    out = [m for m in pairs if m.perturbed_weighted >= m.original_weighted]
    return sorted(out, key=lambda m: (-(m.perturbed_weighted - m.original_weighted), m.item_id))


def find_misses(result: Result, perturbation: str) -> list[Miss]:
    """The items of ``perturbation`` the judge did not score lower (see the module docstring)."""
    return misses_among(complete_pairs(result, perturbation))


def paired_items(result: Result, perturbation: str) -> list[str]:
    """The items of ``perturbation`` with a complete pair (a weighted score on both sides): those that
    can be a miss or a hit, so the number a count of misses is out of (not the dataset's items)."""
    return [m.item_id for m in complete_pairs(result, perturbation)]


def miss_counts(result: Result) -> dict[str, int]:
    """Perturbation id -> number of misses (empty when the result holds no item scores)."""
    if result.scores is None:
        return {}
    return {pid: len(find_misses(result, pid)) for pid in result.scores.perturbed}


@dataclass(frozen=True)
class ScoredTexts:
    """The texts a result's judge saw: item id -> original, perturbation -> item id -> perturbed."""

    originals: Mapping[str, str]
    perturbed: Mapping[str, Mapping[str, str]]


def scored_texts(ref: DatasetRef, data: str, spec_of: Callable[[Path], DatasetSpec]) -> ScoredTexts:
    """The texts of the dataset revision a result scored (its ``dataset``): ``data`` is ``"dhp"`` (the Hub dataset
    at that revision) or a folder of ``<dataset>/`` folders, whose revision must be the scored one;
    ``spec_of`` reads a built folder's dataset spec (:func:`dhp.task.file.folder_spec`: a task file's, or
    the built-in one; passed in by the caller, a stage above scoring). Anything else (offline, no
    such folder, another revision) is one :class:`MissesError` line."""
    from dhp.errors import DataError
    from dhp.scoring.data import load_hub, load_local

    try:
        if data == HUB_DATA:
            from dhp.spec import get_dataset

            loaded = load_hub(get_dataset(ref.name), ref.revision, org=ref.repo.split("/")[0])
        else:
            folder = Path(data) / ref.name
            if not folder.is_dir():
                raise MissesError(f"--data {data}: no folder {ref.name}/ in it")
            loaded = load_local(spec_of(folder), folder)
    except (DataError, KeyError) as e:
        raise MissesError(str(e).strip("'\"")) from e
    if loaded.revision != ref.revision:
        raise MissesError(
            f"--data {data}: {ref.name} is revision {loaded.revision}, the result scored {ref.revision}"
        )
    return ScoredTexts({i.id: i.original for i in loaded.items}, loaded.perturbed)


def attach_texts(
    misses: Sequence[Miss], originals: Mapping[str, str], perturbed: Mapping[str, str]
) -> list[Miss]:
    """The misses with their texts (item id -> text of the dataset scored); an item the dataset
    lacks is an error, since then the texts are not the ones the judge saw."""
    lacking = [m.item_id for m in misses if m.item_id not in originals or m.item_id not in perturbed]
    if lacking:
        raise MissesError(
            f"the dataset lacks item(s) {', '.join(lacking[:3])}: not the texts that were scored"
        )
    return [
        replace(m, original_text=originals[m.item_id], perturbed_text=perturbed[m.item_id]) for m in misses
    ]


def _fmt(x: float | None) -> str:
    return "–" if x is None or not math.isfinite(x) else f"{x:.2f}"


def _scores_text(scores: Mapping[str, float | None]) -> str:
    return ", ".join(f"{m} {_fmt(v)}" for m, v in scores.items())


def render_misses(result: Result, perturbation: str, misses: Sequence[Miss], n: int, color: bool) -> str:
    """Terminal text: the count, then the first ``n`` misses with scores and marked texts."""
    from dhp.data.diffmark import render_stacked

    total = len(paired_items(result, perturbation))
    lines = [
        f"{result.judge.name} on {result.dataset.name} / {perturbation}: {len(misses)} of {total} pairs "
        "not scored lower (perturbed >= original on the weighted metrics)"
    ]
    for m in misses[:n]:
        lines += [
            "",
            f"== {m.item_id}: weighted original {_fmt(m.original_weighted)}, perturbed {_fmt(m.perturbed_weighted)}",
            f"   original : {_scores_text(m.original_scores)}",
            f"   perturbed: {_scores_text(m.perturbed_scores)}",
        ]
        if m.original_text is not None and m.perturbed_text is not None:
            lines.append(render_stacked(m.original_text, m.perturbed_text, color))
    return "\n".join(lines) + "\n"


def misses_csv(by_perturbation: Mapping[str, Sequence[Miss]]) -> str:
    """Every miss (perturbation -> its misses) as CSV: perturbation, item, weighted scores,
    per-metric scores, both texts and the marked diff; one header."""
    from dhp.data.diffmark import render_stacked

    first = next((ms[0] for ms in by_perturbation.values() if ms), None)
    metrics = list(first.original_scores) if first is not None else []
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(
        ["perturbation", "item", "original_weighted", "perturbed_weighted"]
        + [f"original_{m}" for m in metrics]
        + [f"perturbed_{m}" for m in metrics]
        + ["original", "perturbed", "diff"]
    )
    for perturbation, m in ((p, m) for p, ms in by_perturbation.items() for m in ms):
        diff = (
            "" if m.original_text is None else render_stacked(m.original_text, m.perturbed_text or "", False)
        )
        w.writerow(
            [perturbation, m.item_id, _fmt(m.original_weighted), _fmt(m.perturbed_weighted)]
            + [_fmt(m.original_scores[k]) for k in metrics]
            + [_fmt(m.perturbed_scores[k]) for k in metrics]
            + [m.original_text or "", m.perturbed_text or "", diff]
        )
    return buf.getvalue()
