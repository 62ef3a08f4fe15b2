"""A summeval dataset folder holding the texts of the factory's synthetic results (same item ids),
and results re-pointed at its revision: the judge page can then show the missed pairs' texts."""

from __future__ import annotations

from pathlib import Path

from dhp.scoring.data import local_revision
from dhp.scoring.result_files import dump_result, read_result
from dhp.spec import get_dataset
from tests.scoring.helpers import pair_row, write_pairs


def original_text(i: int) -> str:
    return f"The summary of article {i} states the main finding clearly and briefly."


def perturbed_text(i: int, pid: str) -> str:
    return original_text(i).replace("clearly", f"vaguely-{pid}")


def write_summeval(root: Path, n_items: int) -> Path:
    """``root/summeval/`` with ``summeval-000`` ... items (the factory's ids); returns ``root``."""
    spec = get_dataset("summeval")
    rows = [
        pair_row("summeval", f"summeval-{i:03d}", p.id, original_text(i), perturbed_text(i, p.id))
        for i in range(n_items)
        for p in spec.perturbations
    ]
    write_pairs(root, "summeval", rows)
    return root


def point_at(results: Path, data: Path) -> None:
    """Every summeval result under ``results`` scored the revision of ``data/summeval``."""
    revision = local_revision(data / "summeval")
    for f in results.rglob("summeval@*.json"):
        r = read_result(f)
        f.write_text(
            dump_result(r.model_copy(update={"dataset": r.dataset.model_copy(update={"revision": revision})}))
        )
