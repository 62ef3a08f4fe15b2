"""Per-dataset, per-perturbation validator pass rates of a built folder (``dhp build --out DIR``).

    .venv/bin/python benchmarks/bench_validate.py /tmp/val-build [--failures 3] [--dataset summeval]

Prints, for every perturbation: rows, rows passing :func:`dhp.builder.perturb.registry.validate`,
the pass rate, coverage (rows / items), and the commonest failure reason; then the cross-row check
that minor and major rows of an item differ, and the time the validator took.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter, defaultdict
from pathlib import Path

from dhp.builder.perturb.registry import validate
from dhp.builder.perturb.validate import check_severities_differ
from dhp.data.dataset_io import read_build_info, read_rows
from dhp.spec import get_dataset
from dhp.types import PairRow


def _folders(root: Path) -> list[Path]:
    if (root / "build_info.json").exists():
        return [root]
    return sorted(p.parent for p in root.glob("*/build_info.json"))


def _n_items(folder: Path) -> int:
    return read_build_info(folder).selection.n_selected


def bench_dataset(folder: Path, failures: int) -> tuple[int, int]:
    info = read_build_info(folder)
    spec = get_dataset(info.dataset)
    n_items = _n_items(folder)
    print(f"\n## {spec.name}  ({folder})")
    print(f"{'perturbation':30} {'method':6} {'rows':>5} {'pass':>5} {'rate':>7} {'cover':>6}  top failure")
    texts: dict[str, dict[str, str]] = defaultdict(dict)
    total = passed = 0
    for p in spec.perturbations:
        rows = read_rows(spec, folder, [p.id]) if info.perturbation(p.id).rows else []
        reasons: Counter[str] = Counter()
        examples: list[tuple[PairRow, str]] = []
        for row in rows:
            v = validate(p, row.original, row.perturbed)
            texts[p.id][row.id] = row.perturbed
            if not v.ok:
                reasons[v.reason.split(":")[0][:60]] += 1
                examples.append((row, v.reason))
        ok = len(rows) - sum(reasons.values())
        total, passed = total + len(rows), passed + ok
        rate = f"{ok / len(rows):.1%}" if rows else "-"
        cover = f"{len(rows) / n_items:.0%}" if n_items else "-"
        top = reasons.most_common(1)[0] if reasons else ("", 0)
        print(
            f"{p.id:30} {p.method.value:6} {len(rows):5} {ok:5} {rate:>7} {cover:>6}  {top[0]} ({top[1]})"
            if reasons
            else f"{p.id:30} {p.method.value:6} {len(rows):5} {ok:5} {rate:>7} {cover:>6}"
        )
        for row, reason in examples[:failures]:
            print(f"    FAIL {row.id}: {reason}")
    _cross_rows(texts)
    return total, passed


def _cross_rows(texts: dict[str, dict[str, str]]) -> None:
    for pid, minor in texts.items():
        if not pid.endswith("_minor") or pid.replace("_minor", "_major") not in texts:
            continue
        major = texts[pid.replace("_minor", "_major")]
        same = [i for i, t in minor.items() if i in major and not check_severities_differ(t, major[i]).ok]
        print(f"  {pid.replace('_minor', '')}: minor == major for {len(same)} items")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", type=Path, help="a build output folder (of one or several datasets)")
    ap.add_argument("--failures", type=int, default=0, help="print this many failing rows per perturbation")
    ap.add_argument("--dataset", default="", help="only this dataset")
    args = ap.parse_args()
    t0 = time.perf_counter()
    total = passed = 0
    for folder in _folders(args.folder):
        if args.dataset and folder.name != args.dataset:
            continue
        t, p = bench_dataset(folder, args.failures)
        total, passed = total + t, passed + p
    dt = time.perf_counter() - t0
    print(f"\nall: {passed}/{total} rows pass ({passed / max(1, total):.1%}); validator time {dt:.1f} s")


if __name__ == "__main__":
    main()
