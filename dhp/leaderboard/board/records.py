"""The table's record of a result: exactly what the board's rows read, parsed straight from a file.

A result file is mostly its item scores and its perturbations, which the table never reads; parsing
and validating all of it for 3,000 files was the cold start's cost (issue 37: about 3 s of CPU, the
JSON of the scores and pydantic's objects of every perturbation). :func:`parse_record` reads a file
written as ``dhp`` writes it (:func:`dhp.scoring.result_files.dump_result`: JSON indented by two spaces)
member by member: only the top-level members the table reads are parsed (the judge, the dataset, the
scoring settings, the summary, the coverage) and validated by the result's own models, the rest is
left as text. Any other file (another layout, an older schema, a member that does not parse) gets
``None``: its reader parses it in full (:func:`dhp.scoring.result_files.parse_result`), as before.

Finding the members is safe on any text: a JSON string holds no raw newline, so a newline, two spaces
and a quote start a line of the document's own structure; if the members so found are not the
document's top level, one of them fails to parse or to validate (``None``), and in the pathological
case that one does not, the full validation made in the background
(:meth:`dhp.leaderboard.board.loading.ResultsIndex.validate`) finds the record different from the
full result's and replaces it.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dhp.scoring.caveats import caveats
from dhp.scoring.results import (
    SCHEMA_VERSION,
    Coverage,
    DatasetRef,
    JudgeInfo,
    Result,
    ScoringSettings,
    Summary,
)

__all__ = ["LazyResult", "TableRecord", "parse_record"]

#: A top-level member's key as ``dump_result`` writes it: a line of two spaces, the key, a colon.
_MEMBER = re.compile(rb'\n  "([A-Za-z_]+)": ')
#: The members a record reads, and every member a result may have (any other: parsed in full).
_READ = ("schema_version", "created_at", "judge", "dataset", "scoring", "summary", "coverage")
_KNOWN = frozenset(Result.model_fields)


@dataclass(frozen=True)
class TableRecord:
    """What the board's table, rows and CSV read of a result, named as on :class:`Result` (so the
    ``.judge``, ``.dataset``, ``.scoring``, ``.summary`` of either read alike), and its caveats."""

    created_at: str
    judge: JudgeInfo
    dataset: DatasetRef
    scoring: ScoringSettings
    summary: Summary
    coverage: Coverage
    caveats: tuple[str, ...]  # :func:`dhp.scoring.caveats.caveats` of the result

    @classmethod
    def of(cls, r: Result) -> TableRecord:
        """The record of a full result (what :func:`parse_record` reads of its file)."""
        return cls(r.created_at, r.judge, r.dataset, r.scoring, r.summary, r.coverage, caveats(r))


def _members(text: bytes) -> dict[str, tuple[int, int]] | None:
    """Top-level key -> the span of its value's text; ``None`` for a layout that is not ``dump_result``'s
    or a key met twice."""
    body = text.rstrip()
    if not (body.startswith(b"{") and body.endswith(b"}")):
        return None
    found = list(_MEMBER.finditer(body))
    if not found or body[1 : found[0].start()].strip():
        return None
    spans: dict[str, tuple[int, int]] = {}
    for m, nxt in zip(found, [*found[1:], None], strict=True):
        key = m.group(1).decode("ascii")
        if key in spans or key not in _KNOWN:
            return None
        end = nxt.start() if nxt is not None else len(body) - 1
        spans[key] = (m.end(), end)
    return spans


def _value(text: bytes, span: tuple[int, int], last: bool) -> Any:
    """A member's value: its text, less the comma that ends every member but the last."""
    import orjson

    raw = text[span[0] : span[1]].rstrip()
    if not last:
        if not raw.endswith(b","):
            raise ValueError("a member not followed by a comma")
        raw = raw[:-1]
    return orjson.loads(raw)


def _private_rule(dataset: DatasetRef, coverage: Coverage, scores: Any) -> bool:
    """The result's own rule (:meth:`Result._private_holds_aggregates_only`) holds."""
    if dataset.private:
        return bool(dataset.commitment) and scores is None and not coverage.unparsed_examples
    return dataset.commitment is None


def _caveats(dataset: DatasetRef, coverage: Coverage, summary: Summary) -> tuple[str, ...]:
    """:func:`~dhp.scoring.caveats.caveats`, which reads a result's dataset, coverage and summary only,
    of a result shell holding them (every field given: a default would cost ``inspect`` a call)."""
    shell = Result.model_construct(
        schema_version=SCHEMA_VERSION, dhp_version="", created_at="", judge=None, dataset=dataset,
        scoring=None, perturbations=(), summary=summary, coverage=coverage, timing=None, scores=None,
    )  # fmt: skip
    return caveats(shell)


def parse_record(text: bytes) -> TableRecord | None:
    """The record of a current-schema result written as ``dhp`` writes it, its other members unread
    (not even checked to be JSON); ``None`` for any other text (its reader parses it in full, which
    names its problem)."""
    spans = _members(text)
    if spans is None or any(k not in spans for k in _READ):
        return None
    last = max(spans, key=lambda k: spans[k][0])
    try:
        v = {k: _value(text, spans[k], k == last) for k in _READ}
        if v["schema_version"] != SCHEMA_VERSION or not isinstance(v["created_at"], str):
            return None
        judge, dataset = JudgeInfo.model_validate(v["judge"]), DatasetRef.model_validate(v["dataset"])
        scoring, summary = ScoringSettings.model_validate(v["scoring"]), Summary.model_validate(v["summary"])
        coverage = Coverage.model_validate(v["coverage"])
        # a private result's scores are null (read: a few bytes); a public one's are left unread
        scores = (
            _value(text, spans["scores"], last == "scores") if dataset.private and "scores" in spans else None
        )
    except ValueError:  # orjson's and pydantic's errors among them
        return None
    if not _private_rule(dataset, coverage, scores):
        return None
    marks = _caveats(dataset, coverage, summary)
    return TableRecord(v["created_at"], judge, dataset, scoring, summary, coverage, marks)


class LazyResult:
    """A result made at most once, when first asked for (the board's judge pages, the survey's
    reweighting, the prompt spreads; :meth:`ResultsIndex.validate` in the background). Thread-safe."""

    def __init__(self, make: Callable[[], Result]) -> None:
        self._make: Callable[[], Result] | None = make
        self._result: Result | None = None
        self._lock = threading.Lock()

    @property
    def made(self) -> bool:
        return self._result is not None

    def get(self) -> Result:
        """The result (made now the first time; a :class:`~dhp.scoring.results.ResultError` if it
        does not validate, raised again at each call)."""
        with self._lock:
            if self._result is None:
                assert self._make is not None
                self._result = self._make()
                self._make = None  # the text it was made from is let go
            return self._result
