"""WMT22 general test sets, de-en and zh-en, grouped into multi-segment items (docs/datasets.md#sources).

The plain-text test sets hold one segment per line and no document ids. Document boundaries come
from WMT XML: zh-en has its own (``wmttest2022.zh-en.xml``, collection ``general``); de-en's are
recovered exactly from the de-fr XML, which holds the same 271 German documents in another order
(each block of de-en source lines equals the source segments of exactly one de-fr document).

Items follow the paper's rule, a reference longer than ``min_chars`` (300), at the finest grain
that yields N items:

* **segment level** when at least N single segments pass the threshold (zh-en: 224 of 1,875), which
  matches the paper's 1.1 sentences per zh-en item;
* **grouped** otherwise (de-en: only 16 segments pass): each document is cut into consecutive
  groups, a group closing as soon as its joined reference passes the threshold; a trailing
  remainder that does not pass joins the document's last group, and a document whose whole
  reference does not pass gives no item. Groups never cross documents. This gives the paper's
  multi-sentence de-en items (3.7 sentences against the paper's 3.8).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from dhp.builder.sources.fetch import SourceLocator
from dhp.data.items import Item, SourceData
from dhp.errors import SourceError
from dhp.types import DatasetSpec

__all__ = ["Document", "group_segments", "load_wmt22", "source_files", "xml_documents"]

_XML = {"de-en": "wmt22/wmttest2022.de-fr.all.xml", "zh-en": "wmt22/wmttest2022.zh-en.xml"}
_JOIN = {"de": " ", "zh": ""}


def _layout(pair: str, src: str) -> str:
    return (
        f"wmt22/generaltest2022.{pair}.src.{src}, wmt22/generaltest2022.{pair}.ref.A.en "
        f"(one segment per line) and {_XML[pair]} (WMT XML with document ids)"
    )


@dataclass(frozen=True)
class Document:
    """A WMT document: its id and source segments, in order."""

    id: str
    src: tuple[str, ...]


def xml_documents(path: Path, layout: str) -> list[Document]:
    """The docs of the ``general`` collection of a WMT XML file (other collections are ignored)."""
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        raise SourceError(f"corrupt source file {path}: invalid XML ({e}); expected {layout}") from e
    docs: list[Document] = []
    for coll in root.iter("collection"):
        if coll.get("id") != "general":
            continue
        for doc in coll.iter("doc"):
            src = doc.find("src")
            doc_id = doc.get("id")
            if src is None or not doc_id:
                raise SourceError(
                    f"corrupt source file {path}: a <doc> lacks an id or <src>; expected {layout}"
                )
            docs.append(Document(doc_id, tuple((seg.text or "").strip() for seg in src.iter("seg"))))
    if not docs:
        raise SourceError(
            f"corrupt source file {path}: no documents in the 'general' collection; expected {layout}"
        )
    return docs


def _align(
    lines: list[str], docs: list[Document], ordered: bool, path: Path, layout: str
) -> list[tuple[str, int, int]]:
    """Spans (doc id, start line, end line) covering ``lines``; each doc matches exactly one block.

    ``ordered``: the docs are in the same order as the lines (zh-en); otherwise (de-en from de-fr)
    the unique doc whose segments equal the next lines is searched at each position.
    """
    spans: list[tuple[str, int, int]] = []
    by_first: dict[str, list[Document]] = defaultdict(list)
    for d in docs:
        if d.src:
            by_first[d.src[0]].append(d)
    used: set[str] = set()
    pos = 0
    order = iter(docs)
    while pos < len(lines):
        if ordered:
            cands = [next(order, Document("", ()))]
        else:
            cands = [d for d in by_first.get(lines[pos], []) if d.id not in used]
        matches = [d for d in cands if d.src and tuple(lines[pos : pos + len(d.src)]) == d.src]
        if len(matches) != 1:
            raise SourceError(
                f"source file {path} does not match the test set at line {pos + 1} "
                f"({len(matches)} documents match); expected {layout}"
            )
        doc = matches[0]
        used.add(doc.id)
        spans.append((doc.id, pos, pos + len(doc.src)))
        pos += len(doc.src)
    return spans


def group_segments(refs: list[str], min_chars: int) -> list[tuple[int, int]]:
    """Cut one document's segments into consecutive groups whose joined reference passes ``min_chars``.

    Returns half-open (start, end) index pairs. A group closes as soon as it passes the threshold; a
    trailing remainder that does not pass is merged into the previous group. A document whose whole
    reference does not pass is returned as one (short) group, which selection drops.
    """
    groups: list[tuple[int, int]] = []
    start = 0
    for i in range(len(refs)):
        if len(" ".join(refs[start : i + 1])) > min_chars:
            groups.append((start, i + 1))
            start = i + 1
    if start < len(refs):
        if groups:
            groups[-1] = (groups[-1][0], len(refs))
        else:
            groups.append((start, len(refs)))
    return groups


def _lines(path: Path, layout: str) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise SourceError(f"corrupt source file {path}: not UTF-8 ({e}); expected {layout}") from e
    return [ln.strip() for ln in text.split("\n")[: -1 if text.endswith("\n") else None]]


def source_files(spec: DatasetSpec, locator: SourceLocator) -> tuple[tuple[str, str | None], ...]:
    """The (layout path, public URL) of the source, reference and document files :func:`load_wmt22` reads."""
    pair = spec.name.removeprefix("wmt22-")
    urls = spec.source.origin_urls
    return (
        (f"wmt22/generaltest2022.{pair}.src.{pair.split('-')[0]}", urls.get("src")),
        (f"wmt22/generaltest2022.{pair}.ref.A.en", urls.get("ref")),
        (_XML.get(pair, f"wmt22/wmttest2022.{pair}.xml"), urls.get("xml")),
    )


def load_wmt22(spec: DatasetSpec, locator: SourceLocator) -> SourceData:
    """Items of segment groups for ``wmt22-de-en`` or ``wmt22-zh-en``."""
    pair = spec.name.removeprefix("wmt22-")
    src_lang = pair.split("-")[0]
    if pair not in _XML:
        raise SourceError(f"no WMT22 loader for {spec.name!r}; valid: wmt22-de-en, wmt22-zh-en")
    layout = _layout(pair, src_lang)
    f_src, f_ref, f_xml = (locator.fetch(rel, url, layout) for rel, url in source_files(spec, locator))
    src, ref = _lines(f_src.path, layout), _lines(f_ref.path, layout)
    if len(src) != len(ref):
        raise SourceError(
            f"corrupt source files: {f_src.path} has {len(src)} lines but {f_ref.path} has {len(ref)}; expected {layout}"
        )
    spans = _align(
        src, xml_documents(f_xml.path, layout), ordered=pair == "zh-en", path=f_xml.path, layout=layout
    )
    threshold = spec.selection.min_chars or 0
    n_long = sum(1 for r in ref if len(r) > threshold)
    segment_level = n_long >= spec.selection.n_items
    items: list[Item] = []
    for doc_id, a, b in spans:
        groups = [(i, i + 1) for i in range(b - a)] if segment_level else group_segments(ref[a:b], threshold)
        for g0, g1 in groups:
            items.append(
                Item(
                    id=f"{doc_id}#{g0 + 1}-{g1}",
                    original=" ".join(ref[a + g0 : a + g1]),
                    context={"source": _JOIN[src_lang].join(src[a + g0 : a + g1])},
                    extras={"segments": f"{a + g0 + 1}-{a + g1}"},
                )
            )
    grain = (
        f"Segment level: {n_long} single segments have a reference A over {threshold} characters "
        f"(N = {spec.selection.n_items} needed), so each item is one segment, as in the paper."
        if segment_level
        else f"Grouped: only {n_long} single segments have a reference A over {threshold} characters "
        f"(N = {spec.selection.n_items} needed), so consecutive segments of one document are joined until "
        f"reference A passes {threshold} characters (a short remainder joins the document's last group); "
        "groups never cross documents."
    )
    note = (
        "Document boundaries from the de-fr XML, which holds the same German documents (matched exactly)."
        if pair == "de-en"
        else "Document boundaries from the zh-en XML (general collection)."
    )
    return SourceData(
        items=tuple(items),
        files=(f_src.record, f_ref.record, f_xml.record),
        notes=(
            note,
            grain,
            "Reference A is the judged translation; item ids are <document id>#<first>-<last segment>.",
        ),
    )
