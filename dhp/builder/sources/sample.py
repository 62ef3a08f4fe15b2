"""The small sample shipped in the package: a demo that runs without a sources folder or the network.

``dhp/builder/sources/sample/`` holds, per dataset whose source terms allow redistribution, the first
:data:`SAMPLE_ITEMS` items of the dataset's own selection (as the loader reads them from the sources
folder) in ``<dataset>.jsonl``, and ``manifest.json`` naming each source, its licence and the raw
files (with sha256) the items were taken from. ``scripts/make_sample.py`` writes them, deterministically.
Sources whose terms restrict redistribution (Story Cloze, distributed on request; the WMT22 test sets,
released for research use without a licence) are left out: the manifest says why.

A build from the sample is marked as such wherever its results go: its dataset version carries the
pre-release tag ``-sample`` (``v1.0.0-sample``), which the card, ``dhp score``, ``dhp report`` and the
leaderboard show (:func:`dhp.scoring.caveats.caveats` marks it ``sample data``), and its card says
in its first lines that it is a sample, not the benchmark.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dhp.builder.hashing import sha256_file
from dhp.builder.sources.fetch import SourceLocator
from dhp.data.items import Item, SourceData, SourceFile
from dhp.errors import SourceError
from dhp.types import DatasetSpec, Redistribution

__all__ = [
    "MANIFEST",
    "SAMPLE_DIR",
    "SAMPLE_ITEMS",
    "SampleLocator",
    "load_sample",
    "sample_missing",
    "write_sample",
]

SAMPLE_DIR = Path(__file__).resolve().parent / "sample"
MANIFEST = "manifest.json"
SAMPLE_ITEMS = 20
#: the pre-release tag of a dataset version built from the sample
ORIGIN = "embedded sample (dhp-bench package, dhp/builder/sources/sample)"


class SampleLocator(SourceLocator):
    """The embedded sample as a source: :func:`dhp.builder.sources.load_source` reads its items."""

    def __init__(self, root: Path = SAMPLE_DIR) -> None:
        super().__init__(root, verify=False)
        self.root: Path = root

    def describe(self) -> str:
        return f"the embedded SAMPLE ({self.root})"


def _manifest(root: Path) -> dict[str, Any]:
    path = root / MANIFEST
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise SourceError(f"the embedded sample's {path} cannot be read ({type(e).__name__}: {e})") from e
    return data


def sample_missing(spec: DatasetSpec, root: Path = SAMPLE_DIR) -> str | None:
    """Why ``spec`` has no embedded sample (one line), or None when it has one."""
    entry = _manifest(root)["datasets"].get(spec.name)
    if entry is None:
        why = _manifest(root)["left_out"].get(spec.name, "not in the sample")
        return f"no embedded sample: {why}"
    return None


def load_sample(spec: DatasetSpec, root: Path = SAMPLE_DIR) -> SourceData:
    """The sample's items of ``spec``, in the order the sources folder gives them."""
    why = sample_missing(spec, root)
    if why is not None:
        raise SourceError(f"{spec.name}: {why}")
    entry = _manifest(root)["datasets"][spec.name]
    path = root / f"{spec.name}.jsonl"
    items: list[Item] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
        for line in lines:
            rec = json.loads(line)
            items.append(Item(rec["id"], rec["original"], rec["context"], rec.get("extras", {})))
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise SourceError(f"the embedded sample {path} cannot be read ({type(e).__name__}: {e})") from e
    files = entry["from_files"]
    taken = (
        ", ".join(f"{f['path']} (sha256 {f['sha256'][:12]})" for f in files)
        if len(files) <= 3
        else f"{len(files)} files under {files[0]['path'].split('/')[0]}/ (each with its sha256 in the sample's {MANIFEST})"
    )
    return SourceData(
        items=tuple(items),
        files=(SourceFile(path=f"sample/{path.name}", origin=ORIGIN, sha256=sha256_file(path)),),
        notes=(
            f"SAMPLE, NOT THE BENCHMARK: {len(items)} items shipped in the dhp-bench package for a demo "
            f"without sources or network, taken by scripts/make_sample.py from {taken}. "
            f"Source licence: {entry['licence']}. Results on it are not comparable with the benchmark's.",
        ),
        partial=True,
    )


def _record(it: Item) -> str:
    rec = {"id": it.id, "original": it.original, "context": dict(it.context), "extras": dict(it.extras)}
    return json.dumps(rec, ensure_ascii=False, sort_keys=True)


def write_sample(
    specs: list[DatasetSpec], sources: SourceLocator, root: Path, n_items: int = SAMPLE_ITEMS
) -> dict[str, int]:
    """Write the sample of ``specs`` from the sources folder behind the locator ``sources`` into ``root``:
    the first ``n_items`` items the dataset's own selection picks, and the manifest. Returns the items
    written per dataset. Datasets whose source terms restrict redistribution are left out (and named)."""
    from dhp.builder.select import select_items
    from dhp.builder.sources import load_source

    root.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, Any] = {
        "about": "A small sample for `make demo` without sources or network; NOT the DHP benchmark. "
        "Written by scripts/make_sample.py from the sources folder; each item is the dataset loader's "
        "reading of the raw files named, the first of the dataset's own selection.",
        "items_per_dataset": n_items,
        "datasets": {},
        "left_out": {},
    }
    counts: dict[str, int] = {}
    for spec in specs:
        src = spec.source
        if src.redistribution is not Redistribution.ALLOWED:
            manifest["left_out"][spec.name] = f"the terms of {src.name} restrict redistribution ({src.terms})"
            continue
        data = load_source(spec, sources)
        chosen = select_items(spec, data, allow_fewer=True).items[:n_items]
        (root / f"{spec.name}.jsonl").write_text(
            "".join(_record(it) + "\n" for it in chosen), encoding="utf-8"
        )
        manifest["datasets"][spec.name] = {
            "source": src.name,
            "licence": src.licence,
            "terms": src.terms,
            "homepage": src.homepage,
            "items": len(chosen),
            "from_files": sorted(
                ({"path": f.path, "sha256": f.sha256} for f in data.files if _used(f.path, chosen)),
                key=lambda f: f["path"],
            ),
        }
        counts[spec.name] = len(chosen)
    text = json.dumps(manifest, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
    (root / MANIFEST).write_text(text, encoding="utf-8")
    return counts


def _used(path: str, chosen: tuple[Item, ...]) -> bool:
    """Whether a raw file is one the chosen items come from (SumPubMed reads one pair of files per item)."""
    if not path.startswith("sumpubmed/"):
        return True
    n = path.rsplit("_", 1)[-1].removesuffix(".txt")
    return f"sumpubmed-{n}" in {it.id for it in chosen}
