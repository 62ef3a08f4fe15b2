"""Expert-weights files: load, validate and apply them to the built-in datasets.

A weights file is JSON or YAML shaped as ``{dataset: {perturbation_id: {metric: weight}}}``; an
entry may instead be ``{"weights": {...}, "reason": "...", "votes": {...}}``. Every perturbation
given must name known metrics, use non-negative weights and sum to 1. Datasets left out keep their
default weights. Errors name the bad entry.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from dhp.errors import SpecError
from dhp.records import from_data, problem
from dhp.spec import BENCHMARK
from dhp.types import DatasetSpec, ExpertWeights, WeightEntry

__all__ = ["apply_weights", "load_weights", "parse_weights", "weights_from_votes"]


def _read_mapping(path: Path) -> Mapping[str, Any]:
    if not path.is_file():
        raise SpecError(f"weights file {path} does not exist")
    text = path.read_text(encoding="utf-8")
    try:
        data = json.loads(text) if path.suffix.lower() == ".json" else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as e:
        raise SpecError(
            f"weights file {path} is not valid {path.suffix.lstrip('.').upper() or 'YAML'}: {e}"
        ) from e
    if not isinstance(data, Mapping):
        raise SpecError(
            f"weights file {path}: top level must be a mapping dataset -> perturbation -> weights"
        )
    return data


def _entries(data: Mapping[str, Any], source: str) -> dict[str, WeightEntry]:
    """A weights file's block of one dataset: perturbation -> metric -> weight, or perturbation ->
    ``{weights, reason, votes}`` (as ``dhp spec --json`` writes a dataset's ``weights.entries``)."""
    entries: dict[str, WeightEntry] = {}
    for pid, raw in data.items():
        full = isinstance(raw, Mapping) and "weights" in raw
        try:
            entries[str(pid)] = from_data(WeightEntry, raw if full else {"weights": raw})
        except ValueError as e:
            raise SpecError(f"{source}: {pid}: {problem(e)}") from None
    return entries


def parse_weights(
    data: Mapping[str, Any], source: str, datasets: Mapping[str, DatasetSpec] = BENCHMARK
) -> dict[str, ExpertWeights]:
    """Validate plain data into complete :class:`ExpertWeights` per dataset named in it.

    Perturbations not named keep the dataset's default weights, so a file may override a few rows.
    """
    out: dict[str, ExpertWeights] = {}
    for dname, per_pert in data.items():
        if dname not in datasets:
            raise SpecError(f"{source}: unknown dataset {dname!r}; valid: {', '.join(datasets)}")
        if not isinstance(per_pert, Mapping):
            raise SpecError(f"{source}: {dname}: expected a mapping perturbation -> weights")
        spec = datasets[dname]
        given = ExpertWeights(_entries(per_pert, source), source=source)
        for pid in given.entries:
            if pid not in spec.perturbation_ids:
                raise SpecError(
                    f"{source}: {dname}.{pid}: unknown perturbation; valid: {', '.join(spec.perturbation_ids)}"
                )
        merged = ExpertWeights({**spec.weights.entries, **given.entries}, source=source)
        merged.validate(spec.metric_names, spec.perturbation_ids, where=f"{source}: {dname}")
        out[dname] = merged
    return out


def load_weights(
    path: str | Path, datasets: Mapping[str, DatasetSpec] = BENCHMARK
) -> dict[str, ExpertWeights]:
    """Read and validate a weights file (JSON or YAML)."""
    p = Path(path)
    return parse_weights(_read_mapping(p), source=str(p), datasets=datasets)


def apply_weights(
    weights: Mapping[str, ExpertWeights], datasets: Mapping[str, DatasetSpec] = BENCHMARK
) -> dict[str, DatasetSpec]:
    """The datasets with the given weights swapped in (others unchanged)."""
    return {
        name: (spec.with_weights(weights[name]) if name in weights else spec)
        for name, spec in datasets.items()
    }


def weights_from_votes(votes: Mapping[str, int], metrics: tuple[str, ...]) -> dict[str, float]:
    """Vote counts per metric -> vote shares (the paper's EW). Refuses unknown metrics or no votes."""
    for m, v in votes.items():
        if m not in metrics:
            raise SpecError(f"vote for unknown metric {m!r}; valid: {', '.join(metrics)}")
        if v < 0:
            raise SpecError(f"negative vote count for {m!r}")
    total = sum(votes.values())
    if total <= 0:
        raise SpecError("no votes to derive weights from")
    return {m: votes.get(m, 0) / total for m in metrics}
