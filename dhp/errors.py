"""Turning library exceptions into one readable line."""

from __future__ import annotations

from pydantic import ValidationError

__all__ = ["first_validation_problem"]


def first_validation_problem(e: ValidationError) -> str:
    """``"at judge.kind: Input should be ..."`` for the first error pydantic found."""
    first = e.errors()[0]
    loc = ".".join(str(x) for x in first["loc"]) or "(root)"
    return f"at {loc}: {str(first['msg']).removeprefix('Value error, ')}"
