"""User-facing errors of the builder. All derive from :class:`dhp.cli.UserError` (exit status 2)."""

from __future__ import annotations

from dhp.cli import UserError
from dhp.types import SpecError

__all__ = ["BuildError", "DataError", "PerturberError", "PublishError", "SourceError", "TooFewItemsError"]


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
