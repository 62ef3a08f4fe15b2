"""SummEval, from BARTScore's pickle of plain Python types (SOURCES.md §1).

Per article the reference summary with the most sentences is judged (ties: the lowest index) and
the article is the context. The pickle text is PTB-tokenised ("Tottenham 's draw ."); both are
detokenised with sacremoses' Moses detokenizer so that judges read normal English.
"""

from __future__ import annotations

import pickle
import re
from typing import Any

from dhp.builder.errors import SourceError
from dhp.builder.items import Item, SourceData
from dhp.builder.sources.fetch import SourceLocator
from dhp.builder.sources.safe_pickle import safe_load
from dhp.types import DatasetSpec

__all__ = ["LAYOUT", "load_summeval", "pick_reference"]

LAYOUT = "summeval/data.pkl   (BARTScore SUM/SummEval/data.pkl, 1,176,833 bytes)"
_PTB_SENT = re.compile(r"(?<=[.!?])\s+")


def _ptb_sentences(text: str) -> int:
    return len([s for s in _PTB_SENT.split(text.strip()) if s.strip()])


def pick_reference(refs: list[str]) -> int:
    """Index of the reference with the most sentences (PTB splitter), lowest index on ties."""
    counts = [_ptb_sentences(r) for r in refs]
    return counts.index(max(counts))


def _detok(text: str) -> str:
    from sacremoses import MosesDetokenizer

    md = MosesDetokenizer(lang="en")
    out: str = md.detokenize(text.split())
    return out


def load_summeval(spec: DatasetSpec, locator: SourceLocator) -> SourceData:
    """Read ``summeval/data.pkl`` with a restricted unpickler and return one item per article."""
    fetched = locator.fetch("summeval/data.pkl", spec.source.origin_urls.get("data.pkl"), LAYOUT)
    try:
        data: Any = safe_load(fetched.path.read_bytes())
    except (pickle.UnpicklingError, EOFError, ValueError, IndexError, TypeError) as e:
        raise SourceError(f"corrupt source file {fetched.path}: not a readable data pickle ({e}); expected {LAYOUT}") from e
    if not isinstance(data, dict) or not data:
        raise SourceError(f"corrupt source file {fetched.path}: expected a dict of articles; expected {LAYOUT}")
    items: list[Item] = []
    for doc_id, rec in data.items():
        refs = rec.get("ref_summs") if isinstance(rec, dict) else None
        src = rec.get("src") if isinstance(rec, dict) else None
        if (
            not isinstance(doc_id, str)
            or not isinstance(src, str)
            or not isinstance(refs, list)
            or not refs
            or not all(isinstance(r, str) for r in refs)
        ):
            raise SourceError(
                f"corrupt source file {fetched.path}: article {doc_id!r} lacks 'src' or 'ref_summs'; expected {LAYOUT}"
            )
        best = pick_reference(refs)
        items.append(
            Item(
                id=doc_id,
                judged=_detok(refs[best]),
                context={"article": _detok(src)},
                extras={"reference_index": str(best)},
            )
        )
    return SourceData(
        items=tuple(items),
        files=(fetched.record,),
        notes=(
            "Texts are detokenised from SummEval's PTB tokenisation with sacremoses (Moses detokenizer).",
            "Per article, the reference with the most sentences is used (ties: the lowest index).",
        ),
    )
