"""Draw a read of an offline build's LLM-method rows, reproducibly, as the reads of ``docs/reads/`` were drawn.

    .venv/bin/python benchmarks/draw_rows.py BUILD_DIR --seed 5150 --out docs/reads/NAME.jsonl

The protocol of the reads (``docs/offline-generator.md``, "Read by hand"): for each sampled category
(fictional entities, grammar) one ``random.Random(seed)``; the build's files of that category's
perturbations in sorted order (dataset, perturbation); the rows of each sorted by id;
``rng.sample(rows, 4)`` of each (all rows if fewer). Every rewriting-and-insertion row of every dataset
is added, too few to sample. Each row is written as one JSON object a line, in the schema of the reads
(``dataset, perturbation, id, generator, category, verdict, reason, original, perturbed``) with the
verdict and reason empty, for a reader to fill.
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from pathlib import Path

from dhp.data.dataset_io import BUILD_INFO, read_build_info, read_pairs
from dhp.types import Operation

#: operation -> the category name the reads use
CATEGORIES: dict[str, str] = {
    Operation.FICTIONAL_ENTITIES.value: "fictional entities",
    Operation.GRAMMATICAL_ERRORS.value: "grammar",
    Operation.REWRITE_INSERT.value: "rewriting/insertion",
}
#: the categories sampled (the others are read in full)
SAMPLED: tuple[str, ...] = ("fictional entities", "grammar")
PER_FILE = 4
FIELDS = (
    "dataset",
    "perturbation",
    "id",
    "generator",
    "category",
    "verdict",
    "reason",
    "original",
    "perturbed",
)

#: (dataset, perturbation, category) of one parquet file with rows
File = tuple[str, str, str]


def build_files(build: Path) -> list[File]:
    """Every file of the build with rows of an LLM-method category, sorted by (dataset, perturbation)."""
    out: list[File] = []
    for folder in sorted(p.parent for p in build.glob(f"*/{BUILD_INFO}")):
        info = read_build_info(folder)
        for p in info.perturbations:
            if p.operation in CATEGORIES and p.rows > 0:
                out.append((folder.name, p.id, CATEGORIES[p.operation]))
    return sorted(out)


def _record(dataset: str, category: str, row: dict[str, str | None]) -> dict[str, str]:
    values = {"dataset": dataset, "category": category, "verdict": "", "reason": ""}
    return {k: values[k] if k in values else str(row[k] or "") for k in FIELDS}


def draw(build: Path, seed: int, per_file: int = PER_FILE) -> list[dict[str, str]]:
    """The drawn rows: per sampled category, in file order, ``per_file`` of each; then every other row."""
    files = build_files(build)
    out: list[dict[str, str]] = []
    for category in (*SAMPLED, *sorted(set(CATEGORIES.values()) - set(SAMPLED))):
        rng = random.Random(seed)
        for dataset, pid, cat in files:
            if cat != category:
                continue
            rows = sorted(read_pairs(build / dataset, [pid]), key=lambda r: str(r["id"]))
            if category in SAMPLED and len(rows) > per_file:
                rows = rng.sample(rows, per_file)
            out.extend(_record(dataset, category, r) for r in rows)
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build", type=Path, help="a build folder (`dhp build --out`): one folder per dataset")
    ap.add_argument("--seed", type=int, required=True, help="the seed of each category's random.Random")
    ap.add_argument("--out", type=Path, required=True, help="the JSONL file to write")
    ap.add_argument("--per-file", type=int, default=PER_FILE, help="rows drawn of each sampled file")
    args = ap.parse_args(argv)
    if args.per_file < 1:
        ap.error(f"--per-file must be at least 1, got {args.per_file}")
    rows = draw(args.build, args.seed, args.per_file)
    if not rows:
        raise SystemExit(f"{args.build}: no built dataset with LLM-method rows")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    args.out.write_text(text, encoding="utf-8")
    counts = Counter(r["category"] for r in rows)
    print(f"{len(rows)} rows -> {args.out}: " + ", ".join(f"{c} {n}" for c, n in sorted(counts.items())))


if __name__ == "__main__":
    main()
