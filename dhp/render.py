"""Human-readable and JSON views of the benchmark spec (used by `dhp spec`)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from dhp.records import to_data
from dhp.types import DatasetSpec, k_text


def _table(headers: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    rows = [list(r) for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))
    sep = "  ".join("-" * w for w in widths)
    body = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    return "\n".join([line.rstrip(), sep, *body])


def _fmt_weights(w: dict[str, float]) -> str:
    return " ".join(f"{m}={v:g}" for m, v in w.items() if v > 0)


def spec_table(datasets: Iterable[DatasetSpec]) -> str:
    """One block per dataset: source, selection, metrics and the perturbation table with weights."""
    blocks: list[str] = []
    for d in datasets:
        head = [
            f"{d.name}  ({d.pretty_name}; Hub repo {d.hub_repo})",
            f"  source: {d.source.name} — licence {d.source.licence}, redistribution {d.source.redistribution.value}",
            f"  selection: {d.selection.rule} (N={d.selection.n_items}, seed={d.selection.seed})",
            f"  judged: {d.judged_field}; context: {', '.join(c.name for c in d.context_fields)}",
            f"  metrics: {', '.join(m.name for m in d.metrics)}",
            f"  expert weights: {d.weights.source}",
        ]
        rows = [
            (
                p.id,
                p.level.value,
                p.method.value,
                p.severity.value,
                k_text(p.operation.value, p.k),
                _fmt_weights(dict(d.weights.for_perturbation(p.id))),
                p.description,
            )
            for p in d.perturbations
        ]
        table = _table(
            ("perturbation", "lvl", "method", "severity", "k", "expert weights", "description"), rows
        )
        blocks.append("\n".join(head) + "\n\n" + "\n".join("  " + ln for ln in table.splitlines()))
    return "\n\n".join(blocks)


def spec_json(datasets: Iterable[DatasetSpec]) -> str:
    return json.dumps({"datasets": [to_data(d) for d in datasets]}, indent=2, ensure_ascii=False)
