"""The mark of a dataset built from the embedded sample: its version says so (``v1.0.0-sample``).

The builder tags a sample build's version (:func:`sample_version`); the scorer, the card and the board
read the tag (:func:`is_sample_version`), so a result on sample data is never taken for the benchmark's.
"""

from __future__ import annotations

__all__ = ["SAMPLE_TAG", "is_sample_version", "sample_version"]

SAMPLE_TAG = "-sample"


def sample_version(version: str) -> str:
    """The version of a sample build: ``v1.0.0`` -> ``v1.0.0-sample`` (unchanged when already tagged)."""
    return version if is_sample_version(version) else f"{version}{SAMPLE_TAG}"


def is_sample_version(version: str | None) -> bool:
    """Whether a dataset version (or a version label such as ``v1.0.0-sample+offline-rules.8``) is a sample's."""
    return version is not None and SAMPLE_TAG in version.split("+", 1)[0]
