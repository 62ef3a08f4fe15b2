"""The mark of a private split: its version names its commitment (``v1.0.0-private.<12 hex>``).

A private split (``dhp build --split private``) is the twin of the public datasets built with a secret seed
read from :data:`SEED_ENV` only. Its identity is a commitment, a SHA-256 over the seed and the rows
(:func:`dhp.builder.private.commitment`), never the seed. The builder tags the version with the commitment's
first 12 hex digits (:func:`private_version`), as a sample build's is tagged ``-sample``
(:mod:`dhp.data.sample`); the scorer, the card and the board read the tag (:func:`is_private_version`,
:func:`version_commitment`), so a private folder is never scored, shown or published as a public one.
"""

from __future__ import annotations

import re

__all__ = [
    "DEFAULT_PRIVATE_DATA",
    "PRIVATE_TAG",
    "SEED_ENV",
    "SPLITS",
    "is_private_version",
    "private_version",
    "version_commitment",
]

#: the environment variable that holds the private split's seed (never written, logged or shown)
SEED_ENV = "DHP_PRIVATE_SEED"
#: the pre-release identifier of a private split's version
PRIVATE_TAG = "private"
#: the splits a dataset can be built and scored as
SPLITS = ("public", "private")
#: where ``dhp build --split private`` writes and ``dhp score --split private`` reads by default
DEFAULT_PRIVATE_DATA = "out/private"
_MARK = re.compile(r"[-.]" + PRIVATE_TAG + r"\.([0-9a-f]{12})(?=[.+]|$)")


def private_version(version: str, commitment: str) -> str:
    """The version of a private build: ``v1.0.0`` -> ``v1.0.0-private.<commitment[:12]>``; a version that
    has a pre-release tag already gets it appended (``v1.0.0-sample`` -> ``v1.0.0-sample.private.<12>``)."""
    base = version.split("+", 1)[0]
    sep = "." if "-" in base else "-"
    return f"{base}{sep}{PRIVATE_TAG}.{commitment[:12]}"


def version_commitment(version: str | None) -> str | None:
    """The commitment prefix (12 hex) a private version (or a version label such as
    ``v1.0.0-private.0123456789ab+offline-rules.8``) carries; None for a public one."""
    if version is None:
        return None
    m = _MARK.search(version.split("+", 1)[0])
    return None if m is None else m.group(1)


def is_private_version(version: str | None) -> bool:
    """Whether a dataset version (or version label) is a private split's."""
    return version_commitment(version) is not None
