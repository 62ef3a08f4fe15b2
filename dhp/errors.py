"""The error types every stage may raise, and turning library exceptions into one readable line.

This module sits in the lowest stage (see ``tests/core/test_stages.py``), so that the builder, the
scorer and the task file raise errors the ``dhp`` command can report without importing it:
:func:`dhp.cli.main` prints a :class:`UserError` or :class:`SpecError` as one line, exit status 2.
"""

from __future__ import annotations

from pydantic import ValidationError

__all__ = [
    "BuildError",
    "DataError",
    "PerturberError",
    "PublishError",
    "SourceError",
    "SpecError",
    "TooFewItemsError",
    "UserError",
    "first_validation_problem",
]


class UserError(Exception):
    """An error caused by the user's input: printed as one line, exit status 2."""


class SpecError(ValueError):
    """A benchmark declaration (built-in or from a user's file) is invalid."""


class BuildError(UserError):
    """A dataset cannot be built as asked (bad option, unknown name, invalid output folder)."""


class DataError(BuildError, SpecError):
    """A built dataset folder (local or downloaded) that cannot be read or does not match its spec."""


class SourceError(BuildError):
    """A raw source file is missing, corrupt or not in the expected layout."""


class TooFewItemsError(BuildError):
    """Fewer eligible items than the dataset's N, and ``--allow-fewer`` was not given."""


class PerturberError(BuildError):
    """The LLM perturbation endpoint failed or kept returning invalid outputs."""


class PublishError(UserError):
    """Publishing or downloading datasets was refused or failed."""


def first_validation_problem(e: ValidationError) -> str:
    """``"at judge.kind: Input should be ..."`` for the first error pydantic found."""
    first = e.errors()[0]
    loc = ".".join(str(x) for x in first["loc"]) or "(root)"
    return f"at {loc}: {str(first['msg']).removeprefix('Value error, ')}"
