"""Compare two build-and-score runs: the proof behind ``scripts/same_as.sh REV``.

Each side is a folder holding ``ds/`` (the built datasets) and ``res/`` (the control judges'
result files). Datasets are compared file by file (sha256 of every file, so byte-identical or a
difference); results key by key (nested keys as dotted paths), leaving out only what differs
between any two runs of the same code: :data:`VOLATILE`. A left-out key leaves out what it holds.
``--as-read`` compares the results as this tree reads them (:func:`dhp.scoring.result_files.parse_result`,
which upgrades files of earlier schema versions): the proof that a schema change changed the
file's layout and nothing a reader gets from it.

    python benchmarks/same_as.py REV_SIDE WORK_SIDE [--label REV] [--ignore KEY,KEY] [--as-read]

Exit status 0 when identical, 1 with one ``DIFF`` line per difference otherwise.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

#: result keys that differ between two runs of the same code: the clock, and the data folder's path
VOLATILE = frozenset(
    {"created_at", "timing.wall_seconds", "timing.all_invocations.wall_seconds", "dataset.repo"}
)
_ABSENT = "<absent>"


def checksums(folder: Path) -> dict[str, str]:
    """Relative path -> sha256 of every file under ``folder``."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def flat(x: object, prefix: str = "") -> dict[str, object]:
    """Nested mappings as ``{"a.b.c": value}`` (lists are values)."""
    if isinstance(x, Mapping):
        out: dict[str, object] = {}
        for k, v in x.items():
            out.update(flat(v, f"{prefix}{k}."))
        return out
    return {prefix[:-1]: x}


def _read(path: Path, as_read: bool) -> object:
    text = path.read_text(encoding="utf-8")
    if not as_read:
        return json.loads(text)
    from dhp.scoring.result_files import dump_result, parse_result

    return json.loads(dump_result(parse_result(text, source=str(path))))


def results(
    folder: Path, ignore: Iterable[str] = VOLATILE, as_read: bool = False
) -> dict[str, dict[str, object]]:
    """``judge/dataset`` -> the result's keys, less ``ignore`` and the keys under them.

    Files are matched by judge and dataset, not by file name: the name carries the data's revision
    (a hash of the folder), which is compared as the key ``dataset.revision``.
    """
    skip = tuple(ignore)
    out = {}
    for p in sorted(folder.rglob("*.json")):
        doc = flat(_read(p, as_read))
        kept = {k: v for k, v in doc.items() if not any(k == s or k.startswith(f"{s}.") for s in skip)}
        out[f"{p.parent.name}/{p.name.split('@')[0]}"] = kept
    return out


def _short(value: object) -> str:
    return repr(value)[:100]


def differences(
    rev: Path, work: Path, label: str = "REV", ignore: Iterable[str] = VOLATILE, as_read: bool = False
) -> list[str]:
    """One line per dataset file or result key that differs between the two sides."""
    problems = []
    a, b = checksums(rev / "ds"), checksums(work / "ds")
    if not a or not b:
        problems.append(f"nothing was built ({label}: {len(a)} files, working tree: {len(b)})")
    for name in sorted(a.keys() | b.keys()):
        if a.get(name) != b.get(name):
            problems.append(
                f"dataset file {name}: {label} {a.get(name, _ABSENT)[:16]} != working tree {b.get(name, _ABSENT)[:16]}"
            )
    ra, rb = results(rev / "res", ignore, as_read), results(work / "res", ignore, as_read)
    if not ra or not rb:
        problems.append(f"nothing was scored ({label}: {len(ra)} results, working tree: {len(rb)})")
    for name in sorted(ra.keys() | rb.keys()):
        da, db = ra.get(name), rb.get(name)
        if da is None or db is None:
            problems.append(f"result {name}: only {'in the working tree' if da is None else 'at ' + label}")
            continue
        for key in sorted(da.keys() | db.keys()):
            va, vb = da.get(key, _ABSENT), db.get(key, _ABSENT)
            if va != vb:
                problems.append(f"result {name}: {key}: {_short(va)} != {_short(vb)}")
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="benchmarks/same_as.py", description=__doc__.splitlines()[0])
    ap.add_argument("rev", type=Path, help="the side built at REV (holding ds/ and res/)")
    ap.add_argument("work", type=Path, help="the side built by the working tree")
    ap.add_argument("--label", default="REV", help="how to name the REV side in the report")
    ap.add_argument("--ignore", default="", help="more result keys to leave out (dotted, comma-separated)")
    ap.add_argument("--as-read", action="store_true", help="compare results as this tree's reader reads them")
    args = ap.parse_args(argv)
    ignore = VOLATILE | {k for k in args.ignore.split(",") if k}
    problems = differences(args.rev, args.work, args.label, ignore, args.as_read)
    n_files, n_results = len(checksums(args.work / "ds")), len(results(args.work / "res"))
    read = ", as this tree reads them" if args.as_read else ""
    print(
        f"compared {n_files} dataset files and {n_results} results{read} (left out: {', '.join(sorted(ignore))})"
    )
    for line in problems[:200]:
        print("DIFF", line)
    if len(problems) > 200:
        print(f"DIFF ... and {len(problems) - 200} more")
    print("identical" if not problems else f"{len(problems)} difference(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
