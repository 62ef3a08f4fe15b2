"""Frozen-dataclass records to and from JSON-compatible data, derived from their fields (no hand-written pairs).

:func:`to_data` writes a record's fields in declaration order: nested records as objects, tuples as
lists, mappings as objects, enums as their values. A field declared with ``metadata=OMIT_NONE`` is
left out while it is ``None``. A record may add computed values for readers of the file (a pass
rate, a row count) by a ``derived()`` method (:class:`Derived`); they are written after the fields
and ignored when read back.

:func:`from_data` builds a record from such data with pydantic, from the fields' types: unknown keys
(the derived ones) are ignored, a missing or mistyped field is a pydantic ``ValidationError`` (a
``ValueError``); :func:`problem` says what is wrong in one line.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from typing import Any, Protocol, TypeVar, runtime_checkable

from pydantic import TypeAdapter, ValidationError

from dhp.errors import first_validation_problem

__all__ = ["OMIT_NONE", "Derived", "from_data", "problem", "to_data"]

#: field metadata: leave the field out of :func:`to_data` while it is None
OMIT_NONE: Mapping[str, bool] = {"omit_none": True}

T = TypeVar("T")


@runtime_checkable
class Derived(Protocol):
    """A record that writes computed values after its fields."""

    def derived(self) -> dict[str, Any]: ...


def to_data(value: Any) -> Any:
    """``value`` as JSON-compatible data (see the module docstring)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {
            f.name: to_data(getattr(value, f.name))
            for f in dataclasses.fields(value)
            if not (f.metadata.get("omit_none") and getattr(value, f.name) is None)
        }
        if isinstance(value, Derived):
            out.update(value.derived())
        return out
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Mapping):
        return {k: to_data(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [to_data(v) for v in value]
    return value


_ADAPTERS: dict[type[Any], TypeAdapter[Any]] = {}  # one pydantic validator per record type, built once


def from_data(cls: type[T], data: Any) -> T:
    """The record of type ``cls`` that ``data`` describes; a pydantic ``ValidationError`` if it does not."""
    adapter = _ADAPTERS.get(cls) or _ADAPTERS.setdefault(cls, TypeAdapter(cls))
    out: T = adapter.validate_python(data)
    return out


def problem(e: ValueError) -> str:
    """One line saying what :func:`from_data` (or another check) found wrong."""
    return first_validation_problem(e) if isinstance(e, ValidationError) else str(e)
