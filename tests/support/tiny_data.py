"""Small synthetic DHP dataset folders in the published Hub layout, for scoring and leaderboard tests.

The texts are made up, but the folder is a real `datasets` repository: parquet files plus a
README.md whose YAML `configs:` declare a default config (all pairs) and one config per
perturbation, exactly the layout the builder publishes. Rows follow :func:`dhp.types.pair_columns`.
"""

from __future__ import annotations

import random
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import yaml

from dhp.types import DatasetSpec, pair_columns

_WORDS = (
    "the council approved a new budget for schools and roads after a long debate on taxes while "
    "residents asked for better parks and cleaner rivers in the northern district"
).split()


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(8, 14))]
    return " ".join(words).capitalize() + "."


def _perturb(text: str, rng: random.Random) -> str:
    chars = list(text)
    alnum = [i for i, c in enumerate(chars) if c.isalnum()]
    for i in sorted(rng.sample(alnum, k=min(5, len(alnum))), reverse=True):
        del chars[i]
    out = "".join(chars)
    return out if out != text else text + " x"


def write_tiny_dataset(root: Path, spec: DatasetSpec, n_items: int = 20, seed: int = 0) -> Path:
    """Write ``root/<spec.name>/`` and return it. Every perturbation applies to every item."""
    rng = random.Random(f"tiny|{spec.name}|{seed}")
    folder = root / spec.name
    (folder / "data").mkdir(parents=True, exist_ok=True)
    items = []
    for i in range(n_items):
        ctx = {c.name: " ".join(_sentence(rng) for _ in range(3)) for c in spec.context_fields}
        items.append((f"{spec.name}-{i:03d}", ctx, " ".join(_sentence(rng) for _ in range(2))))
    cols = pair_columns(spec)
    for p in spec.perturbations:
        rows = []
        for item_id, ctx, original in items:
            rows.append(
                {
                    "id": item_id,
                    **ctx,
                    "original": original,
                    "perturbed": _perturb(original, rng),
                    "perturbation": p.id,
                    "level": p.level.value,
                    "method": p.method.value,
                    "severity": p.severity.value,
                    "generator": "rule" if p.method.value == "rule" else "offline-rules/test",
                }
            )
        table = pa.Table.from_pylist(rows, schema=pa.schema([(c, pa.string()) for c in cols]))
        pq.write_table(table, folder / "data" / f"{p.id}.parquet")
    configs = [{"config_name": "default", "default": True, "data_files": [{"split": "test", "path": "data/*.parquet"}]}]
    configs += [
        {"config_name": p.id, "data_files": [{"split": "test", "path": f"data/{p.id}.parquet"}]}
        for p in spec.perturbations
    ]
    header = yaml.safe_dump({"configs": configs, "pretty_name": spec.pretty_name}, sort_keys=False)
    (folder / "README.md").write_text(f"---\n{header}---\n\n# {spec.pretty_name} (tiny test copy)\n", encoding="utf-8")
    return folder
