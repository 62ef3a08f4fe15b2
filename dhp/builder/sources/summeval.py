"""SummEval, from BARTScore's pickle of plain Python types (docs/datasets.md#sources).

Per article the reference summary with the most sentences is judged (ties: the lowest index) and
the article is the context. The pickle text is PTB-tokenised ("Tottenham 's draw ."); both are
detokenised by :func:`detokenize` (PTB-aware rules: punctuation, contractions, ``$ 70``, and
quote pairing, which the Moses detokenizer gets wrong for this data) so that judges read normal
English.
"""

from __future__ import annotations

import pickle
import re
from dataclasses import dataclass
from typing import Any

from dhp.builder.sources.fetch import SourceLocator
from dhp.builder.sources.safe_pickle import safe_load
from dhp.data.items import OTHER_REFERENCES, Item, SourceData
from dhp.errors import SourceError
from dhp.types import DatasetSpec

__all__ = ["LAYOUT", "detokenize", "load_summeval", "pick_reference", "source_files"]

LAYOUT = "summeval/data.pkl   (BARTScore SUM/SummEval/data.pkl, 1,176,833 bytes)"
_PTB_SENT = re.compile(r"(?<=[.!?])\s+")


def _ptb_sentences(text: str) -> int:
    return len([s for s in _PTB_SENT.split(text.strip()) if s.strip()])


def pick_reference(refs: list[str]) -> int:
    """Index of the reference with the most sentences (PTB splitter), lowest index on ties."""
    counts = [_ptb_sentences(r) for r in refs]
    return counts.index(max(counts))


_ATTACH_LEFT = frozenset(
    {
        ".",
        ",",
        ";",
        ":",
        "!",
        "?",
        "%",
        ")",
        "]",
        "}",
        "...",
        "n't",
        "'s",
        "'re",
        "'ve",
        "'ll",
        "'d",
        "'m",
        "''",
    }
)
_ATTACH_RIGHT = frozenset({"(", "[", "{", "``", "$", "#"})
_CONTRACTION_TAILS = frozenset({"s", "re", "ve", "ll", "d", "m", "t"})


def detokenize(text: str) -> str:
    """Undo PTB tokenisation: ``Tottenham 's 0-0 draw , ' honour '`` -> ``Tottenham's 0-0 draw, 'honour'``.

    Token rules: closing punctuation and clitics attach to the left, opening brackets/currency to
    the right; ```` `` ```` / ``''`` become ``"``; a standalone ``'`` closes an open single quote, is a
    possessive after a word ending in *s*, and otherwise opens a quote.
    """
    toks = text.split()
    out: list[str] = []
    state = _Quotes()
    glue_next = False  # the previous token attaches to the right
    for i, tok in enumerate(toks):
        tok, left, right = state.place(tok, toks[i + 1] if i + 1 < len(toks) else "", out[-1] if out else "")
        if out and not left and not glue_next:
            out.append(" ")
        out.append(tok)
        glue_next = right
    return "".join(out)


@dataclass
class _Quotes:
    """Which quotes are open while :func:`detokenize` walks the tokens."""

    single_open: bool = False
    double_open: bool = False

    def place(self, tok: str, nxt: str, prev: str) -> tuple[str, bool, bool]:
        """The token as written, and whether it attaches to the left / to the right."""
        left, right = tok in _ATTACH_LEFT, tok in _ATTACH_RIGHT
        if tok in ("``", "''", '"'):
            return self._double(tok)
        if tok in ("'", "’"):
            left, right = self._single(nxt, prev)
        elif tok[:1] in "'’" and len(tok) > 1 and tok not in _ATTACH_LEFT and tok[1].isalnum():
            self.single_open = True  # an opening quote already attached: "'honour"
        return tok, left, right

    def _double(self, tok: str) -> tuple[str, bool, bool]:
        if tok == "``":
            self.double_open = True
            return '"', False, True
        if tok == "''":
            self.double_open = False
            return '"', True, False
        closing = self.double_open  # a plain '"' closes an open quote, else opens one
        self.double_open = not closing
        return '"', closing, not closing

    def _single(self, nxt: str, prev: str) -> tuple[bool, bool]:
        if nxt in _CONTRACTION_TAILS:  # "collector ’ s" -> "collector’s"
            return True, True
        if self.single_open:
            self.single_open = False
            return True, False
        if prev.endswith("s"):
            return True, False  # plural possessive: "Postmates '"
        self.single_open = True
        return False, True


def source_files(spec: DatasetSpec, locator: SourceLocator) -> tuple[tuple[str, str | None], ...]:
    """The (layout path, public URL) of every file :func:`load_summeval` reads."""
    return (("summeval/data.pkl", spec.source.origin_urls.get("data.pkl")),)


def load_summeval(spec: DatasetSpec, locator: SourceLocator) -> SourceData:
    """Read ``summeval/data.pkl`` with a restricted unpickler and return one item per article."""
    ((rel, url),) = source_files(spec, locator)
    fetched = locator.fetch(rel, url, LAYOUT)
    try:
        data: Any = safe_load(fetched.path.read_bytes())
    except (pickle.UnpicklingError, EOFError, ValueError, IndexError, TypeError) as e:
        raise SourceError(
            f"corrupt source file {fetched.path}: not a readable data pickle ({e}); expected {LAYOUT}"
        ) from e
    if not isinstance(data, dict) or not data:
        raise SourceError(
            f"corrupt source file {fetched.path}: expected a dict of articles; expected {LAYOUT}"
        )
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
                original=detokenize(refs[best]),
                context={"article": detokenize(src)},
                extras={
                    "reference_index": str(best),
                    OTHER_REFERENCES: "\n".join(detokenize(r) for k, r in enumerate(refs) if k != best),
                },
            )
        )
    return SourceData(
        items=tuple(items),
        files=(fetched.record,),
        notes=(
            "Texts are detokenised from SummEval's PTB tokenisation (punctuation, clitics and quotes re-attached).",
            "Per article, the reference with the most sentences is used (ties: the lowest index).",
        ),
    )
