"""dhp.records: records written from their fields and read back by pydantic, with one-line errors.

The dataset format's records (build_info.json, not_applicable.jsonl): tests/data/test_dataset_io.py.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from dhp.records import OMIT_NONE, from_data, problem, to_data
from dhp.types import Level


@dataclass(frozen=True)
class _Inner:
    level: Level
    tags: tuple[str, ...]


@dataclass(frozen=True)
class _Outer:
    name: str
    inner: _Inner
    counts: dict[str, int] = field(default_factory=dict)
    note: str | None = field(default=None, metadata=OMIT_NONE)
    kept: str | None = None

    def derived(self) -> dict[str, Any]:
        return {"total": sum(self.counts.values())}


def test_to_data_writes_fields_in_order_then_derived() -> None:
    rec = _Outer("x", _Inner(Level.WORD, ("a", "b")), {"p": 2, "q": 3})
    data = to_data(rec)
    assert list(data) == ["name", "inner", "counts", "kept", "total"]  # note: None, left out
    assert data["inner"] == {"level": "W", "tags": ["a", "b"]} and data["total"] == 5
    assert to_data(_Outer("x", rec.inner, note="n"))["note"] == "n"


def test_from_data_reads_back_and_ignores_derived() -> None:
    rec = _Outer("x", _Inner(Level.SENTENCE, ("a",)), {"p": 1}, note="n")
    assert from_data(_Outer, json.loads(json.dumps(to_data(rec)))) == rec


def test_from_data_errors_are_value_errors_with_a_one_line_problem() -> None:
    with pytest.raises(ValueError) as e:
        from_data(_Outer, {"name": "x", "inner": {"level": "Q", "tags": []}})
    line = problem(e.value)
    assert line.startswith("at inner.level: ") and "\n" not in line
    with pytest.raises(ValueError) as e:
        from_data(_Outer, {"inner": {"level": "C", "tags": []}})
    assert problem(e.value).startswith("at name: ")
