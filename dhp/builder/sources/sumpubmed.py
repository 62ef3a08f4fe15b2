"""SumPubMed BACKGROUND sections (docs/datasets.md#sources).

Where the pairs come from decides the candidate pool:

* a local sources directory holds pairs N = 1..600 (``abstract/abstract_N.txt`` with
  ``text/text_N.txt``, the copy docs/datasets.md#sources describes): all 600 are candidates;
* the public origin holds all :data:`ORIGIN_PAIRS` pairs: a seeded sample of
  :data:`ORIGIN_CANDIDATES` pair numbers drawn from all of them (seed: the dataset's selection
  seed) is downloaded, so a build from the origin samples from the whole dataset without
  downloading its ~1 GB. Pairs without a BACKGROUND section on both sides are skipped there (and
  counted in the notes); in the local copy every pair has one, so a missing section is corruption.

The judged text is the abstract's BACKGROUND section, the context the article's BACKGROUND
section (up to the next all-capitals header line).
"""

from __future__ import annotations

import re

from dhp.builder.hashing import derive_rng
from dhp.builder.sources.fetch import SourceLocator
from dhp.data.items import Item, SourceData, SourceFile
from dhp.errors import SourceError
from dhp.types import DatasetSpec

__all__ = [
    "LAYOUT",
    "LOCAL_POOL",
    "ORIGIN_CANDIDATES",
    "ORIGIN_PAIRS",
    "background_section",
    "candidate_pairs",
    "load_sumpubmed",
    "source_files",
]

LOCAL_POOL = range(1, 601)
ORIGIN_PAIRS = 32_689  # pairs 1..32,689 at the pinned commit of vgupta123/sumpubmed
ORIGIN_CANDIDATES = 150  # pairs downloaded from the origin; the selection then samples N = 100 of them
LAYOUT = (
    "sumpubmed/abstract/abstract_N.txt and sumpubmed/text/text_N.txt for N = 1..600 "
    "(vgupta123/sumpubmed, plain UTF-8, section headers in capitals)"
)
_HEADER = re.compile(r"^[A-Z][A-Z &/,-]*[A-Z]$")
_SPACES = re.compile(r"[ \t]+")


def background_section(text: str) -> list[str] | None:
    """The non-empty, whitespace-normalised lines under ``BACKGROUND``; ``None`` if there is none."""
    lines = text.splitlines()
    try:
        start = next(i for i, ln in enumerate(lines) if ln.strip() == "BACKGROUND")
    except StopIteration:
        return None
    out: list[str] = []
    for ln in lines[start + 1 :]:
        s = ln.strip()
        if _HEADER.match(s):
            break
        s = _SPACES.sub(" ", s)
        if s:
            out.append(s)
    return out or None


def candidate_pairs(spec: DatasetSpec, locator: SourceLocator) -> list[int]:
    """The pair numbers to read: the local copy's 1..600, or a seeded sample of all pairs of the origin."""
    if locator.is_local:
        return list(LOCAL_POOL)
    rng = derive_rng("sumpubmed-origin", spec.selection.seed)
    return sorted(rng.sample(range(1, ORIGIN_PAIRS + 1), ORIGIN_CANDIDATES))


def _pair_files(spec: DatasetSpec, n: int) -> tuple[tuple[str, str | None], ...]:
    """The (layout path, public URL) of pair ``n``'s abstract and article."""
    urls = spec.source.origin_urls
    return tuple(
        (f"sumpubmed/{kind}/{kind}_{n}.txt", None if urls.get(kind) is None else urls[kind].format(n=n))
        for kind in ("abstract", "text")
    )


def source_files(spec: DatasetSpec, locator: SourceLocator) -> tuple[tuple[str, str | None], ...]:
    """The files of the first candidate pair: what tells whether the source is there (or reachable)."""
    return _pair_files(spec, candidate_pairs(spec, locator)[0])


def _sections(
    spec: DatasetSpec, locator: SourceLocator, n: int, files: list[SourceFile]
) -> list[list[str]] | None:
    """Abstract and article BACKGROUND lines of pair ``n`` (``None``: a section is missing at the origin)."""
    sections: list[list[str]] = []
    for rel, url in _pair_files(spec, n):
        fetched = locator.fetch(rel, url, LAYOUT)
        files.append(fetched.record)
        try:
            raw = fetched.path.read_text(encoding="utf-8")
        except UnicodeDecodeError as e:
            raise SourceError(
                f"corrupt source file {fetched.path}: not UTF-8 ({e}); expected {LAYOUT}"
            ) from e
        sec = background_section(raw)
        if sec is None:
            if not locator.is_local:
                return None
            raise SourceError(f"corrupt source file {fetched.path}: no BACKGROUND section; expected {LAYOUT}")
        sections.append(sec)
    return sections


def load_sumpubmed(spec: DatasetSpec, locator: SourceLocator) -> SourceData:
    """One item per candidate pair: abstract BACKGROUND (judged) and article BACKGROUND (context)."""
    items: list[Item] = []
    files: list[SourceFile] = []
    pairs = candidate_pairs(spec, locator)
    skipped = 0
    for n in pairs:
        sections = _sections(spec, locator, n, files)
        if sections is None:
            skipped += 1
            continue
        abstract, article = sections
        items.append(
            Item(id=f"sumpubmed-{n}", original=" ".join(abstract), context={"article": "\n".join(article)})
        )
    if locator.is_local:
        pool = "Candidate pool: SumPubMed pairs 1-600 of 32,689 (the local copy of docs/datasets.md#sources)."
    else:
        pool = (
            f"Candidate pool: {len(pairs)} pairs drawn at random (seed {spec.selection.seed}) from all "
            f"{ORIGIN_PAIRS:,} pairs of the origin; {skipped} of them had no BACKGROUND section and were skipped."
        )
    return SourceData(
        items=tuple(items),
        files=tuple(files),
        notes=(pool, "Texts are lowercased with <cit>/<dig> placeholders, as SumPubMed ships them."),
    )
