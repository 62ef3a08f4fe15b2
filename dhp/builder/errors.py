"""The builder's errors, under the names the builder imports them by.

They are defined in :mod:`dhp.errors` (the lowest stage), all deriving from
:class:`dhp.errors.UserError` (exit status 2), so no builder module imports the ``dhp`` command.
"""

from __future__ import annotations

from dhp.errors import BuildError, DataError, PerturberError, PublishError, SourceError, TooFewItemsError

__all__ = ["BuildError", "DataError", "PerturberError", "PublishError", "SourceError", "TooFewItemsError"]
