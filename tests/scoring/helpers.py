"""Helpers shared by the scoring tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def run_dhp(
    *args: str, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run the real `dhp` command line in a subprocess (offline)."""
    full_env = {**os.environ, "HF_HUB_OFFLINE": "1", **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "dhp", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=full_env,
        timeout=timeout,
        check=False,
    )


def write_pairs(root: Path, spec_name: str, rows: list[dict[str, object]], split: str = "test") -> Path:
    """A dataset folder ``root/<spec_name>/`` holding exactly ``rows`` (any columns), by the builder's writer."""
    from tests.support.tiny_data import write_named

    return write_named(root, spec_name, rows, split=split)


def pair_row(
    spec_name: str, item: str, pid: str, original: str, perturbed: str, **context: object
) -> dict[str, object]:
    """One row in the published schema for a built-in dataset."""
    from dhp.spec import get_dataset

    spec = get_dataset(spec_name)
    p = spec.perturbation(pid)
    ctx = {c.name: context.get(c.name, f"Context of {item}.") for c in spec.context_fields}
    return {
        "id": item,
        **ctx,
        "original": original,
        "perturbed": perturbed,
        "perturbation": pid,
        "level": p.level.value,
        "method": p.method.value,
        "severity": p.severity.value,
        "generator": "rule",
    }


def write_marked_answers(root: Path, n: int) -> Path:
    """``root``, holding an Answer Equivalence folder of ``n`` items whose perturbed answer is the original with its
    perturbation's id marked (``... detail [word_typo_minor].``), so that a loopback judge can see
    which perturbation it is scoring (:func:`tests.scoring.fake_server.judged_text`)."""
    from dhp.spec import get_dataset

    rows = []
    for i in range(n):
        original = f"Reference answer {i:02d} explains the topic in full detail."
        for pid in get_dataset("answer-equivalence").perturbation_ids:
            rows.append(
                pair_row(
                    "answer-equivalence",
                    f"q{i:02d}",
                    pid,
                    original,
                    original[:-1] + f" [{pid}].",
                    question=f"What is topic {i}?",
                    paragraph=None,
                )
            )
    write_pairs(root, "answer-equivalence", rows, split="validation")
    return root
