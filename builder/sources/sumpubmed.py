"""SumPubMed BACKGROUND sections (SOURCES.md §2).

The candidate pool is pairs N = 1..600 (``abstract/abstract_N.txt`` with ``text/text_N.txt``): the
offline copy holds exactly these, and the origin path downloads the same 1,200 files, so local and
downloaded builds select the same items. The judged text is the abstract's BACKGROUND section, the
context the article's BACKGROUND section (up to the next all-capitals header line).
"""

from __future__ import annotations

import re

from dhp.builder.errors import SourceError
from dhp.builder.items import Item, SourceData, SourceFile
from dhp.builder.sources.fetch import SourceLocator
from dhp.types import DatasetSpec

__all__ = ["LAYOUT", "POOL", "background_section", "load_sumpubmed"]

POOL = range(1, 601)
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


def load_sumpubmed(spec: DatasetSpec, locator: SourceLocator) -> SourceData:
    """One item per pair N of the pool: abstract BACKGROUND (judged) and article BACKGROUND (context)."""
    abstract_url = spec.source.origin_urls.get("abstract")
    text_url = spec.source.origin_urls.get("text")
    items: list[Item] = []
    files: list[SourceFile] = []
    for n in POOL:
        sections: list[list[str]] = []
        for kind, url in (("abstract", abstract_url), ("text", text_url)):
            fetched = locator.fetch(
                f"sumpubmed/{kind}/{kind}_{n}.txt", None if url is None else url.format(n=n), LAYOUT
            )
            files.append(fetched.record)
            try:
                raw = fetched.path.read_text(encoding="utf-8")
            except UnicodeDecodeError as e:
                raise SourceError(
                    f"corrupt source file {fetched.path}: not UTF-8 ({e}); expected {LAYOUT}"
                ) from e
            sec = background_section(raw)
            if sec is None:
                raise SourceError(
                    f"corrupt source file {fetched.path}: no BACKGROUND section; expected {LAYOUT}"
                )
            sections.append(sec)
        abstract, article = sections
        items.append(
            Item(id=f"sumpubmed-{n}", original=" ".join(abstract), context={"article": "\n".join(article)})
        )
    return SourceData(
        items=tuple(items),
        files=tuple(files),
        notes=(
            "Candidate pool: SumPubMed pairs 1-600 (the first 600 of 32,689; the same files offline and online).",
            "Texts are lowercased with <cit>/<dig> placeholders, as SumPubMed ships them.",
        ),
    )
