"""Answer Equivalence (Bulian et al. 2022), in either of two forms (docs/datasets.md#sources).

1. The published AE format (``train.jsonl``, ``ae_dev.jsonl``, ``ae_test.jsonl``, with ``qid``,
   ``question``, ``context``, ``reference``): pooled, de-duplicated by ``qid``. This is what the
   origin path downloads.
2. The partial offline copy ``ae_augmented_train.jsonl`` (PEDANTS authors): only lines 4,300-13,389
   are AE's train split; it has no ``qid`` and no context paragraph, so items are de-duplicated by
   (question, reference) and the paragraph is absent (``None``).

Both yield items with ``question`` and ``paragraph`` context fields.
"""

from __future__ import annotations

import json
from typing import Any

from dhp.builder.hashing import sha256_text
from dhp.builder.sources.fetch import SourceLocator
from dhp.data.items import Item, SourceData, SourceFile
from dhp.errors import SourceError
from dhp.types import DatasetSpec

__all__ = ["AUGMENTED_AE_LINES", "LAYOUT", "load_answer_equivalence", "source_files"]

PUBLISHED = ("train", "ae_dev", "ae_test")
AUGMENTED = "answer_equivalence/ae_augmented_train.jsonl"
#: 1-based, inclusive line range of AE's train split inside the augmented file (docs/datasets.md#sources).
AUGMENTED_AE_LINES = (4300, 13389)
LAYOUT = (
    "answer_equivalence/{train,ae_dev,ae_test}.jsonl   (published AE v1 format: qid, question, context, reference)\n"
    f"  or {AUGMENTED}   (partial copy: AE train only, no context)"
)


def _records(path_text: str, where: str) -> list[tuple[int, dict[str, Any]]]:
    out: list[tuple[int, dict[str, Any]]] = []
    for lineno, line in enumerate(path_text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            raise SourceError(f"corrupt source file {where}, line {lineno}: {e}; expected {LAYOUT}") from e
        if (
            not isinstance(rec, dict)
            or not isinstance(rec.get("question"), str)
            or not isinstance(rec.get("reference"), str)
        ):
            raise SourceError(
                f"corrupt source file {where}, line {lineno}: needs 'question' and 'reference'; expected {LAYOUT}"
            )
        out.append((lineno, rec))
    return out


def _read(path: Any) -> str:
    try:
        text: str = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise SourceError(f"corrupt source file {path}: not UTF-8 ({e}); expected {LAYOUT}") from e
    return text


def _published(spec: DatasetSpec, locator: SourceLocator) -> SourceData:
    items: list[Item] = []
    files: list[SourceFile] = []
    seen: set[str] = set()
    for split in PUBLISHED:
        fetched = locator.fetch(
            f"answer_equivalence/{split}.jsonl", spec.source.origin_urls.get(split), LAYOUT
        )
        files.append(fetched.record)
        for lineno, rec in _records(_read(fetched.path), str(fetched.path)):
            qid = rec.get("qid")
            if not isinstance(qid, str) or not qid:
                raise SourceError(
                    f"corrupt source file {fetched.path}, line {lineno}: missing 'qid'; expected {LAYOUT}"
                )
            if qid in seen:
                continue
            seen.add(qid)
            ctx = rec.get("context")
            items.append(
                Item(
                    id=qid,
                    original=rec["reference"].strip(),
                    context={
                        "question": rec["question"].strip(),
                        "paragraph": ctx.strip() if isinstance(ctx, str) and ctx.strip() else None,
                    },
                )
            )
    return SourceData(
        items=tuple(items),
        files=tuple(files),
        notes=("AE v1 train, dev and test pooled, de-duplicated by qid.",),
    )


def _augmented(locator: SourceLocator) -> SourceData:
    fetched = locator.fetch(AUGMENTED, None, LAYOUT)
    first, last = AUGMENTED_AE_LINES
    recs = [(n, r) for n, r in _records(_read(fetched.path), str(fetched.path)) if first <= n <= last]
    if len(recs) != last - first + 1:
        raise SourceError(
            f"corrupt source file {fetched.path}: expected AE train records on lines {first}-{last}, "
            f"found {len(recs)}; expected {LAYOUT}"
        )
    items: list[Item] = []
    seen: set[tuple[str, str]] = set()
    for _, rec in recs:
        key = (rec["question"].strip(), rec["reference"].strip())
        if key in seen:
            continue
        seen.add(key)
        digest = sha256_text(key[0] + "\n" + key[1])[:16]
        items.append(
            Item(id=f"ae-train-{digest}", original=key[1], context={"question": key[0], "paragraph": None})
        )
    return SourceData(
        items=tuple(items),
        files=(fetched.record,),
        notes=(
            "Partial copy: only AE's train split (lines 4,300-13,389 of the PEDANTS authors' ae_augmented_train.jsonl); "
            "AE dev and test were not available.",
            "This copy has no context paragraphs: the `paragraph` field is null and judge prompts omit it.",
            "Items are de-duplicated by (question, reference); ids are hashes of that pair (the copy has no qid).",
        ),
        partial=True,
    )


def _use_published(locator: SourceLocator) -> bool:
    return (
        not locator.is_local
        or locator.exists("answer_equivalence/train.jsonl")
        or not locator.exists(AUGMENTED)
    )


def source_files(spec: DatasetSpec, locator: SourceLocator) -> tuple[tuple[str, str | None], ...]:
    """The files :func:`load_answer_equivalence` reads: the published AE files, else the partial copy."""
    if not _use_published(locator):
        return ((AUGMENTED, None),)
    return tuple(
        (f"answer_equivalence/{split}.jsonl", spec.source.origin_urls.get(split)) for split in PUBLISHED
    )


def load_answer_equivalence(spec: DatasetSpec, locator: SourceLocator) -> SourceData:
    """The published AE files when present (always, when downloading); else the partial offline copy."""
    if not locator.is_local or locator.exists("answer_equivalence/train.jsonl"):
        return _published(spec, locator)
    if locator.exists(AUGMENTED):
        return _augmented(locator)
    raise SourceError(
        f"missing source files for Answer Equivalence in {locator.root}; expected layout:\n{LAYOUT}"
    )
